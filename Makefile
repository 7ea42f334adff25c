# shmcomm build.
#   make                      libraries, shmrun, examples, benchmarks (into build/)
#   make check                build and run every test (Check suites, examples, launcher)
#   make SAN=address check    the same under AddressSanitizer+UBSan (into build-address/)
#   make SAN=thread check     the same under ThreadSanitizer (into build-thread/)
#   make check-stress         long ring and random-traffic stress runs
#   make check-coll-full      the collectives' full test matrix (long)
#   make bench                build the benchmarks; see bench/README.md to run them
#   make install PREFIX=/usr/local [DESTDIR=...]
#   CUDA=auto (default): with CUDA where the toolkit is found (nvcc on the PATH, or in
#   CUDA_HOME, /usr/local/cuda by default); CUDA=1 requires it; CUDA=0 builds without.
#   make format               apply .clang-format to every C file

PREFIX  ?= /usr/local
SAN     ?=
BUILD   ?= build$(if $(SAN),-$(SAN))
# One name for each build directory however it was given (tests/launcher/check_install
# passes it absolute): the dependency files a build writes name their targets as the
# next build asks for them, or a changed header would not rebuild what includes it.
override BUILD := $(patsubst $(CURDIR)/%,%,$(abspath $(BUILD)))
OPT     ?= -O2
VERSION := 0.1.0
SOMAJOR := 0

HWLOC_CFLAGS := $(shell pkg-config --cflags hwloc 2>/dev/null)
HWLOC_LIBS   := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -pthread)

# CUDA: the device backend (lib/device/cuda/) and the CUDA runtime, linked statically so
# that one library runs with or without a GPU and driver.
CUDA      ?= auto
NVCC      ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
# The toolkit holding the static runtime: nvcc's own tree, or /usr/local/cuda when the
# nvcc on the PATH is a wrapper script elsewhere (as /usr/local/bin/nvcc can be).
CUDA_HOME ?= $(firstword $(foreach d,$(if $(NVCC),$(patsubst %/bin/,%,$(dir $(realpath $(NVCC))))) \
                 /usr/local/cuda,$(if $(wildcard $(d)/lib64/libcudart_static.a),$(d))) /usr/local/cuda)
CUDART    := $(wildcard $(CUDA_HOME)/lib64/libcudart_static.a)
ifeq ($(CUDA),auto)
WITH_CUDA := $(if $(and $(NVCC),$(CUDART)),1,0)
else ifeq ($(CUDA),1)
WITH_CUDA := 1
ifeq ($(and $(NVCC),$(CUDART)),)
$(error CUDA=1 but no CUDA Toolkit was found (nvcc and lib64/libcudart_static.a under CUDA_HOME=$(CUDA_HOME)); install it or set CUDA_HOME)
endif
else ifeq ($(CUDA),0)
WITH_CUDA := 0
else
$(error CUDA must be auto, 0 or 1, not '$(CUDA)')
endif
# Device code for these compute capabilities (A100: 80, H100 and H200: 90), and PTX for
# the last, which newer GPUs compile when they load it.
CUDA_ARCHS ?= 80 90
NVCC_FLAGS := -O2 -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden,-fno-exceptions,-fno-threadsafe-statics \
              -Iinclude -Ilib \
              $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
              -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
ifeq ($(WITH_CUDA),1)
DEV_SRC   := $(wildcard lib/device/cuda/*.c)
DEV_CU    := $(wildcard lib/device/cuda/*.cu)
CUDA_LIBS := $(CUDART) -ldl -lrt -lpthread
else
DEV_SRC   := lib/device/none.c
DEV_CU    :=
CUDA_LIBS :=
endif

ifeq ($(SAN),address)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SAN),thread)
SANFLAGS := -fsanitize=thread
else ifneq ($(SAN),)
$(error SAN must be 'address' or 'thread', not '$(SAN)')
endif

WARN := -Wall -Wextra -Werror=implicit-function-declaration -Wshadow -Wconversion \
        -Wno-sign-conversion -Wstrict-prototypes \
        -Wmissing-prototypes -Wno-missing-field-initializers
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN) -fvisibility=hidden -fPIC \
               -Iinclude -MMD -MP $(SANFLAGS)
ALL_CFLAGS  := $(BASE_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(SANFLAGS) $(LDFLAGS)

# The library's layers, lowest first (docs/design.md); scripts/layers.sh checks that no
# object calls a layer above its own.
LAYERS  := base shm transport device p2p coll boot
LIB_SRC := $(filter-out lib/device/none.c,$(foreach l,$(LAYERS),$(wildcard lib/$(l)/*.c))) \
           $(DEV_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(DEV_CU:%.cu=$(BUILD)/%.o)
# shmrun links only these two layers.
LAUNCH_LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard lib/base/*.c lib/shm/*.c))
LAUNCH_SRC := $(wildcard launcher/*.c)
LAUNCH_OBJ := $(LAUNCH_SRC:%.c=$(BUILD)/%.o)
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
# Examples on GPU memory: built only with CUDA (they use the CUDA runtime themselves).
ifeq ($(WITH_CUDA),1)
EXAMPLES += $(patsubst examples/cuda/%.c,$(BUILD)/examples/cuda/%,$(wildcard examples/cuda/*.c))
endif
# bench/measure.c is one source for every runtime: with rt_shmcomm.c here, with rt_mpi.c
# and an MPI's mpicc in bench-compare. limits.c needs no library at all.
BENCHES  := $(BUILD)/bench/measure $(BUILD)/bench/limits $(BUILD)/bench/coll_bench \
            $(BUILD)/bench/path_cost $(BUILD)/bench/dev_bench $(BUILD)/bench/thread_bench \
            $(BUILD)/bench/copy_bench $(BUILD)/bench/line_rtt $(BUILD)/bench/measure-shmcc \
            $(BUILD)/bench/footprint
TEST_PROGS := $(patsubst tests/progs/%.c,$(BUILD)/tests/progs/%,$(wildcard tests/progs/*.c))
# Test suites by layer (docs/contributing.md): tests/unit (a module with its internals),
# p2p, coll, device, robustness, launcher (public API only; scripts/layers.sh checks it).
CHECKS   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/*/check_*.c))
TEST_LIB_SRC := tests/harness.c
TEST_LIB_OBJ := $(TEST_LIB_SRC:%.c=$(BUILD)/%.o)

# The MPI interface (mpi/): libshmcomm_mpi over the public API, mpi.h, and shmcc.
MPI_SRC    := $(wildcard mpi/src/*.c)
MPI_OBJ    := $(MPI_SRC:%.c=$(BUILD)/%.o)
MPI_STATIC := $(BUILD)/lib/libshmcomm_mpi.a
MPI_SHARED := $(BUILD)/lib/libshmcomm_mpi.so.$(VERSION)
SHMCC      := $(BUILD)/bin/shmcc

STATIC := $(BUILD)/lib/libshmcomm.a
# What a program linked with the static library needs besides it.
STATIC_DEPS := $(CUDA_LIBS)
SHARED := $(BUILD)/lib/libshmcomm.so.$(VERSION)
SHMRUN := $(BUILD)/bin/shmrun

.PHONY: all lib mpi torch check-torch check-torch-cuda layers check check-cuda check-stress check-coll-full fuzz bench bench-compare install uninstall clean format symbols deps demo
all: deps lib mpi $(SHMRUN) $(EXAMPLES) $(BENCHES)

# Says what is missing (and how to install it) before a compiler error would.
deps:
	@scripts/deps.sh

demo: all
	$(SHMRUN) -n 4 --tag-output $(BUILD)/examples/ring
lib: $(STATIC) $(SHARED) $(BUILD)/lib/libshmcomm.so

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ilib $(if $(filter launcher/%,$<),$(HWLOC_CFLAGS)) \
	    $(if $(filter tests/%,$<),$(CHECK_CFLAGS) -Itests -DSHMC_BUILD_DIR='"$(abspath $(BUILD))"' \
	        -DSHMC_SRC_DIR='"$(abspath .)"') \
	    -c $< -o $@

$(BUILD)/lib/device/cuda/%.o: ALL_CFLAGS += -I$(CUDA_HOME)/include

$(BUILD)/lib/device/cuda/%.o: lib/device/cuda/%.cu lib/device/cuda/kernels.h lib/base/half.h \
                              lib/base/reduction.h include/shmcomm.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

# The reduction kernels must vectorise: GCC's -O2 cost model alone leaves them scalar.
$(BUILD)/lib/base/reduction.o: ALL_CFLAGS += -ftree-vectorize -fvect-cost-model=dynamic

$(STATIC): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(SHARED): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libshmcomm.so.$(SOMAJOR) -Wl,-z,defs -Wl,--exclude-libs,ALL \
	    -o $@ $^ $(CUDA_LIBS) $(ALL_LDFLAGS)

$(BUILD)/lib/libshmcomm.so: $(SHARED)
	ln -sf libshmcomm.so.$(VERSION) $(BUILD)/lib/libshmcomm.so.$(SOMAJOR)
	ln -sf libshmcomm.so.$(VERSION) $@

mpi: $(MPI_STATIC) $(MPI_SHARED) $(BUILD)/lib/libshmcomm_mpi.so $(SHMCC)

$(BUILD)/mpi/src/%.o: ALL_CFLAGS += -Impi/include
# The unimplemented functions' bodies ignore their parameters.
$(BUILD)/mpi/src/stubs.o: ALL_CFLAGS += -Wno-unused-parameter

$(MPI_STATIC): $(MPI_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# Linked to libshmcomm.so, found beside it ($ORIGIN) wherever both are installed.
$(MPI_SHARED): $(MPI_OBJ) $(BUILD)/lib/libshmcomm.so
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libshmcomm_mpi.so.$(SOMAJOR) -Wl,-z,defs -o $@ $(MPI_OBJ) \
	    -L$(BUILD)/lib -lshmcomm -Wl,-rpath,'$$ORIGIN' -lpthread $(ALL_LDFLAGS)

$(BUILD)/lib/libshmcomm_mpi.so: $(MPI_SHARED)
	ln -sf libshmcomm_mpi.so.$(VERSION) $(BUILD)/lib/libshmcomm_mpi.so.$(SOMAJOR)
	ln -sf libshmcomm_mpi.so.$(VERSION) $@

# shmcc for this build tree (make install writes one for PREFIX).
$(SHMCC): mpi/shmcc.in Makefile
	@mkdir -p $(@D)
	sed -e 's|@CC@|$(CC)|g' -e 's|@INCDIR@|$(abspath mpi/include)|g' \
	    -e 's|@LIBDIR@|$(abspath $(BUILD)/lib)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@
	chmod 755 $@

$(SHMRUN): $(LAUNCH_OBJ) $(LAUNCH_LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -o $@ $(LAUNCH_OBJ) $(LAUNCH_LIB_OBJ) $(HWLOC_LIBS) $(ALL_LDFLAGS)

# Examples link the shared library, so the exported API is what they exercise.
$(BUILD)/examples/cuda/%: examples/cuda/%.c examples/example.h $(BUILD)/lib/libshmcomm.so
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(CUDA_HOME)/include -o $@ $< -L$(BUILD)/lib -lshmcomm \
	    -Wl,-rpath,$(abspath $(BUILD)/lib) $(CUDA_LIBS) -lm $(ALL_LDFLAGS)

$(BUILD)/examples/%: examples/%.c $(BUILD)/lib/libshmcomm.so
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< -L$(BUILD)/lib -lshmcomm -Wl,-rpath,$(abspath $(BUILD)/lib) -lm $(ALL_LDFLAGS)

$(BUILD)/bench/%: bench/%.c bench/bench.h bench/timing.h $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ilib -o $@ $< $(STATIC) $(STATIC_DEPS) -lm $(ALL_LDFLAGS)

$(BUILD)/bench/measure: bench/measure.c bench/rt_shmcomm.c bench/rt.h bench/timing.h $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ bench/measure.c bench/rt_shmcomm.c $(STATIC) $(STATIC_DEPS) -lm \
	    $(ALL_LDFLAGS)

# The floors' sum loop is vectorised as lib/base/reduction.c's kernels are.
$(BUILD)/bench/limits: bench/limits.c bench/floor_allreduce.c bench/floor_allreduce.h bench/timing.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -ftree-vectorize -fvect-cost-model=dynamic -o $@ bench/limits.c \
	    bench/floor_allreduce.c $(ALL_LDFLAGS)

# The same measurement source on Open MPI and MPICH, built with their own compilers
# (same optimisation flags as ours).
MPI_BENCH_FLAGS := -O2 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-stringop-overflow
$(BUILD)/bench/measure-openmpi: bench/measure.c bench/rt_mpi.c bench/rt.h bench/timing.h
	@mkdir -p $(@D)
	mpicc.openmpi $(MPI_BENCH_FLAGS) -o $@ bench/measure.c bench/rt_mpi.c

$(BUILD)/bench/measure-mpich: bench/measure.c bench/rt_mpi.c bench/rt.h bench/timing.h
	@mkdir -p $(@D)
	mpicc.mpich $(MPI_BENCH_FLAGS) -o $@ bench/measure.c bench/rt_mpi.c

# ... and on shmcomm's own MPI interface, against the native calls (docs/mpi.md, speed).
$(BUILD)/bench/measure-shmcc: bench/measure.c bench/rt_mpi.c bench/rt.h bench/timing.h \
                              $(SHMCC) $(MPI_SHARED) $(SHARED)
	@mkdir -p $(@D)
	$(SHMCC) $(MPI_BENCH_FLAGS) -o $@ bench/measure.c bench/rt_mpi.c

$(BUILD)/tests/progs/%: tests/progs/%.c $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ilib -o $@ $< $(STATIC) $(STATIC_DEPS) -lm $(ALL_LDFLAGS)

$(CHECKS): %: %.o $(TEST_LIB_OBJ) $(STATIC)
	$(CC) -o $@ $^ $(STATIC_DEPS) $(CHECK_LIBS) -lm $(TEST_LDFLAGS) $(ALL_LDFLAGS)

# The MPI interface's suites link its library before the C library's.
MPI_CHECKS := $(filter $(BUILD)/tests/mpi/%,$(CHECKS))
$(BUILD)/tests/mpi/%.o: ALL_CFLAGS += -Impi/include
$(MPI_CHECKS): $(MPI_STATIC)
$(MPI_CHECKS): TEST_LDFLAGS := $(MPI_STATIC) $(STATIC) -lpthread

# The direct all-reduce's unit test holds one rank back inside the algorithm by wrapping
# the entry into a world round at link time (no hook in the library's code).
$(BUILD)/tests/unit/check_direct: TEST_LDFLAGS := -Wl,--wrap=shmc__wsync_enter_call
# The start test holds rank 0 back in its start the same way.
$(BUILD)/tests/unit/check_latestart: TEST_LDFLAGS := -Wl,--wrap=shmc__job_wait_attached
# The coop receive's test holds the receiver between a step and its look at the job.
$(BUILD)/tests/unit/check_coopleave: TEST_LDFLAGS := -Wl,--wrap=shmc__coop_recv_step
# The device all-reduce's test makes one member's kernel late the same way.
$(BUILD)/tests/unit/check_devdirect: TEST_LDFLAGS := -Wl,--wrap=shmc__dev_reduce_fold
# The staged all-reduce's test makes one rank's reservation of its buffers fail.
$(BUILD)/tests/unit/check_stagefail: TEST_LDFLAGS := -Wl,--wrap=shmc__arena_stage_reserve

# Check's own fork-per-test timeout guards against hangs; sanitizers run slower.
CK_MULT := $(if $(SAN),4,1)
CHECK_ENV := CK_TIMEOUT_MULTIPLIER=$(CK_MULT) SHMC_TEST_BUILD=$(abspath $(BUILD)) \
             SHMC_TEST_SAN='$(SAN)' SHMC_TEST_CFLAGS='$(SANFLAGS)'

check: all symbols layers $(CHECKS) $(TEST_PROGS)
	@fail=0; failed=""; log=$(BUILD)/check.log; : > $$log.failed; for t in $(CHECKS); do \
	    echo "== $$t"; $(CHECK_ENV) $$t > $$log 2>&1; rc=$$?; cat $$log; \
	    if [ $$rc -ne 0 ]; then fail=1; failed="$$failed $$t"; \
	        { echo "== $$t (exit $$rc)"; grep -E ':[EF]:' $$log; } >> $$log.failed; fi; \
	done; \
	if [ -n "$(SAN)" ]; then \
	    echo "== torch backend: not run under a sanitizer (the interpreter is not instrumented)"; \
	elif python3 -c 'import torch, pytest' 2>/dev/null; then \
	    echo "== torch backend (bindings/torch)"; $(MAKE) --no-print-directory check-torch || { fail=1; failed="$$failed torch"; }; \
	elif [ -n "$$SHMC_TEST_TORCH_REQUIRED" ]; then \
	    echo "== torch backend: torch or pytest is missing and SHMC_TEST_TORCH_REQUIRED is set"; fail=1; \
	else \
	    echo "== torch backend: skipped (pip install torch pytest to run it)"; \
	fi; \
	if [ $$fail -ne 0 ]; then cat $$log.failed; echo "make check: FAILED:$$failed"; exit 1; fi; \
	echo "make check: all suites passed"

# The torch.distributed backend "shmc" (bindings/torch): the C++ extension, built against
# the installed torch and linked to this build's libshmcomm, placed in the package's
# directory; rebuilt when its sources or the library change.
TORCH_DIR := bindings/torch
TORCH_STAMP := $(BUILD)/torch.stamp
TORCH_SRC := $(wildcard $(TORCH_DIR)/csrc/*.cpp $(TORCH_DIR)/csrc/*.h) $(TORCH_DIR)/setup.py
torch: $(TORCH_STAMP)
$(TORCH_STAMP): $(TORCH_SRC) $(SHARED) $(BUILD)/lib/libshmcomm.so include/shmcomm.h
	cd $(TORCH_DIR) && SHMCOMM_BUILD=$(abspath $(BUILD)) python3 setup.py -q build_ext --inplace
	@touch $@

check-torch: $(TORCH_STAMP) $(SHMRUN)
	cd $(TORCH_DIR) && SHMC_TEST_BUILD=$(abspath $(BUILD)) python3 -m pytest -q -p no:cacheprovider tests

# The CUDA suites alone, for a machine with a GPU: they fail where they would skip. The
# torch backend's CUDA tests too, where torch and pytest are installed.
check-cuda: all $(BUILD)/tests/device/check_cuda $(BUILD)/tests/device/check_device
	$(CHECK_ENV) SHMC_TEST_CUDA_REQUIRED=1 $(BUILD)/tests/device/check_cuda
	$(CHECK_ENV) SHMC_TEST_CUDA_REQUIRED=1 $(BUILD)/tests/device/check_device
	@if python3 -c 'import torch, pytest' 2>/dev/null; then \
	    $(MAKE) --no-print-directory check-torch-cuda; \
	else echo "== torch backend's CUDA tests: not run (pip install torch pytest)"; fi

check-torch-cuda: $(TORCH_STAMP)
	cd $(TORCH_DIR) && SHMC_TEST_CUDA_REQUIRED=1 SHMC_TEST_BUILD=$(abspath $(BUILD)) \
	    python3 -m pytest -q -p no:cacheprovider tests/test_cuda.py

# Longer runs: 10^8 ring records per stress test, 16 ranks of random traffic, 200 jobs in
# which a member dies and the survivors stay out of the library (check_survivors).
check-stress: all $(CHECKS) $(TEST_PROGS)
	$(CHECK_ENV) SHMC_RING_STRESS_N=100000000 $(BUILD)/tests/unit/check_ring
	$(CHECK_ENV) SHMC_STRESS=1 $(BUILD)/tests/robustness/check_stress
	$(CHECK_ENV) SHMC_STRESS=1 $(BUILD)/tests/robustness/check_scribble
	$(CHECK_ENV) SHMC_STRESS=1 $(BUILD)/tests/device/check_device_stress
	rm -f $(BUILD)/survivors.log
	$(CHECK_ENV) SHMC_STRESS=1 SHMC_SURVIVOR_LOG=$(abspath $(BUILD))/survivors.log \
	    $(BUILD)/tests/robustness/check_survivors
	scripts/survivors_report.sh $(BUILD)/survivors.log

# Fuzzing with libFuzzer (clang): shmrun's option parser and the mailbox record decoder,
# each for FUZZ_TIME seconds under AddressSanitizer and UBSan, starting from
# tests/fuzz/seeds/<target>; inputs it finds go to build-fuzz/corpus/<target>.
FUZZ_TIME ?= 60
FUZZ_CC ?= clang
FUZZ_DIR := build-fuzz
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
              -Iinclude -Ilib -Ilauncher
FUZZ_TARGETS := options ring
FUZZ_SRC_options := launcher/options.c lib/base/public.c
FUZZ_SRC_ring := lib/transport/ring.c

fuzz:
	@scripts/deps.sh --fuzz
	@for t in $(FUZZ_TARGETS); do mkdir -p $(FUZZ_DIR)/corpus/$$t; done
	$(FUZZ_CC) $(FUZZ_FLAGS) tests/fuzz/fuzz_options.c $(FUZZ_SRC_options) -lm -o $(FUZZ_DIR)/fuzz_options
	$(FUZZ_CC) $(FUZZ_FLAGS) tests/fuzz/fuzz_ring.c $(FUZZ_SRC_ring) -o $(FUZZ_DIR)/fuzz_ring
	@for t in $(FUZZ_TARGETS); do \
	    echo "== fuzz_$$t for $(FUZZ_TIME) s"; \
	    $(FUZZ_DIR)/fuzz_$$t -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
	        $(FUZZ_DIR)/corpus/$$t tests/fuzz/seeds/$$t || exit 1; \
	done

# Every collective x dtype x op at every count and rank count (check_coll's full matrix).
check-coll-full: all $(CHECKS)
	$(CHECK_ENV) SHMC_COLL_FULL=1 CK_TIMEOUT_MULTIPLIER=20 $(BUILD)/tests/coll/check_coll

bench: $(BENCHES) $(SHMRUN)

# shmcomm side by side with Open MPI, MPICH and gloo; see bench/compare.sh.
# make bench-compare [MODE=quick|full]
MODE ?= full
bench-compare: all
	bench/compare.sh $(MODE)

# Every call goes down the layers, no file-level cycle, includes in order, tests on the
# public API (scripts/layers.sh); then the check's own self-test, which plants an upward
# call and a cycle and requires both to be caught.
layers: lib
	@scripts/layers.sh $(BUILD)
	@CC='$(CC)' scripts/layers.sh --self-test $(BUILD)

# Only the public API may be exported from the shared library.
symbols: $(SHARED) $(MPI_SHARED)
	@bad=$$(nm -D --defined-only $(SHARED) | awk '{print $$3}' | grep -v '^shmc_' | grep -v '^_' || true); \
	if [ -n "$$bad" ]; then echo "exported non-API symbols: $$bad"; exit 1; fi; \
	echo "exported symbols: only shmc_*"
	@bad=$$(nm -D --defined-only $(MPI_SHARED) | awk '{print $$3}' | grep -v '^P\?MPI_' | grep -v '^_' || true); \
	if [ -n "$$bad" ]; then echo "libshmcomm_mpi exports non-MPI symbols: $$bad"; exit 1; fi; \
	echo "libshmcomm_mpi exports: only MPI_* and PMPI_*"

install: lib mpi $(SHMRUN)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -d $(DESTDIR)$(PREFIX)/include/shmcomm-mpi
	install -m 644 include/shmcomm.h $(DESTDIR)$(PREFIX)/include/
	# mpi.h in a directory of its own, so that it never shadows a system MPI's.
	install -m 644 mpi/include/mpi.h mpi/include/shmcomm_mpi_functions.h \
	    $(DESTDIR)$(PREFIX)/include/shmcomm-mpi/
	install -m 644 $(MPI_STATIC) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(MPI_SHARED) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libshmcomm_mpi.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libshmcomm_mpi.so.$(SOMAJOR)
	ln -sf libshmcomm_mpi.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libshmcomm_mpi.so
	sed -e 's|@CC@|$(CC)|g' -e 's|@INCDIR@|$(PREFIX)/include/shmcomm-mpi|g' \
	    -e 's|@LIBDIR@|$(PREFIX)/lib|g' -e 's|@VERSION@|$(VERSION)|g' mpi/shmcc.in \
	    > $(DESTDIR)$(PREFIX)/bin/shmcc
	chmod 755 $(DESTDIR)$(PREFIX)/bin/shmcc
	install -m 644 $(STATIC) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SHARED) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libshmcomm.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libshmcomm.so.$(SOMAJOR)
	ln -sf libshmcomm.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libshmcomm.so
	install -m 755 $(SHMRUN) $(DESTDIR)$(PREFIX)/bin/
	# Made here, not cached: it names PREFIX, which differs from one install to the next.
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@LIBS_PRIVATE@|$(STATIC_DEPS) -lm|g' shmcomm.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/shmcomm.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/shmcomm.pc
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig 2>/dev/null || true; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/shmcomm.h $(DESTDIR)$(PREFIX)/bin/shmrun \
	      $(DESTDIR)$(PREFIX)/lib/libshmcomm.* $(DESTDIR)$(PREFIX)/lib/pkgconfig/shmcomm.pc \
	      $(DESTDIR)$(PREFIX)/lib/libshmcomm_mpi.* $(DESTDIR)$(PREFIX)/bin/shmcc
	rm -rf $(DESTDIR)$(PREFIX)/include/shmcomm-mpi

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cpp')

clean:
	rm -rf build build-address build-thread

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
