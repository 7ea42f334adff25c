# The tests: every tests/*/check_*.c is a suite and every tests/progs/*.c a helper
# program (a new one needs no edit here). A suite that needs special link flags says so
# in its own source, on a line of its own:
#     /* link: -Wl,--wrap=shmc__wsync_enter_call */
# and one that must not run beside other suites (it counts what is in /dev/shm, or its
# margins are times):
#     /* check: alone */
#
#   make check                     every suite, then the torch backend's tests
#   make check T=p2p/check_p2p     one suite (or several, or a folder: T=launcher; T=torch)
#   make -j2 check                 suites side by side, those marked alone one at a time after

CHECKS   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/*/check_*.c))
TEST_PROGS := $(patsubst tests/progs/%.c,$(BUILD)/tests/progs/%,$(wildcard tests/progs/*.c))
TEST_LIB_SRC := tests/harness.c
TEST_LIB_OBJ := $(TEST_LIB_SRC:%.c=$(BUILD)/%.o)

$(BUILD)/tests/progs/%: tests/progs/%.c $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ilib -o $@ $< $(STATIC) $(STATIC_DEPS) -lm $(ALL_LDFLAGS)

# A suite's own link flags, from its source (above).
test_link = $(shell sed -n 's|^/\* link: \(.*\) \*/$$|\1|p' $(patsubst $(BUILD)/%,%,$(1)).c)

$(CHECKS): %: %.o $(TEST_LIB_OBJ) $(STATIC)
	$(CC) -o $@ $^ $(STATIC_DEPS) $(CHECK_LIBS) -lm $(TEST_LDFLAGS) $(call test_link,$@) \
	    $(ALL_LDFLAGS)

# The MPI interface's suites link its library before the C library's.
MPI_CHECKS := $(filter $(BUILD)/tests/mpi/%,$(CHECKS))
$(BUILD)/tests/mpi/%.o: ALL_CFLAGS += -Impi/include
$(MPI_CHECKS): $(MPI_STATIC)
$(MPI_CHECKS): TEST_LDFLAGS := $(MPI_STATIC) $(STATIC) -lpthread

# Check's own fork-per-test timeout guards against hangs; sanitizers run slower.
CK_MULT := $(if $(SAN),4,1)
CHECK_ENV := CK_TIMEOUT_MULTIPLIER=$(CK_MULT) SHMC_TEST_BUILD=$(abspath $(BUILD)) \
             SHMC_TEST_SAN='$(SAN)' SHMC_TEST_CFLAGS='$(SANFLAGS)'

# The tests expect the built-in dispatch rules: a user's tuned rules (bench/tune.py
# --install, in XDG_CACHE_HOME or ~/.cache) must not change what they pick.
check check-cuda check-stress check-coll-full check-torch check-torch-cuda: \
    export XDG_CACHE_HOME := $(abspath $(BUILD))/no-user-cache

# Which suites run: all, or what T names ("torch" is the torch backend's tests alone,
# "mpi4py" mpi4py's smoke test).
T ?=
T_SUITES := $(filter-out torch mpi4py,$(T))
SUITES := $(if $(T),$(foreach t,$(T_SUITES),$(or $(filter $(BUILD)/tests/$(t) $(BUILD)/tests/$(t)/%,$(CHECKS)),\
              $(error T=$(t) names no suite: give one as p2p/check_p2p, or a folder of tests/))),$(CHECKS))
RUN_TORCH := $(if $(T),$(filter torch,$(T)),all)
RUN_MPI4PY := $(if $(T),$(filter mpi4py,$(T)),all)
# The Python whose mpi4py, built against this tree's shmcc, make check-mpi4py runs.
MPI4PY_PYTHON ?= python3
ALONE := $(foreach s,$(SUITES),$(if $(shell grep -l '^/\* check: alone \*/$$' $(patsubst $(BUILD)/%,%,$(s)).c),$(s)))
SIDE := $(filter-out $(ALONE),$(SUITES))

# Each suite's run: its output in $(BUILD)/check/<suite>.log, its status in .rc, printed
# whole when it ends. Those side by side first, then the ones alone in a chain.
run_of = $(patsubst $(BUILD)/tests/%,$(BUILD)/check/%.run,$(1))
SIDE_RUNS := $(call run_of,$(SIDE))
ALONE_RUNS := $(call run_of,$(ALONE))
CHECK_READY := all symbols layers docs-check $(TEST_PROGS)

# The documents name the variables the code reads, and no others (scripts/docs_check.sh).
docs-check:
	@scripts/docs_check.sh

# docs/configuration.md's table of the library's settings, from lib/base/settings.c.
docs-config: $(SHMRUN)
	@scripts/gen_config_docs.sh $(SHMRUN)

$(BUILD)/check/%.run: $(BUILD)/tests/% FORCE | $(CHECK_READY)
	@mkdir -p $(@D); log=$(basename $@).log; \
	$(CHECK_ENV) $< > $$log 2>&1; echo $$? > $(basename $@).rc; \
	echo "== $<"; cat $$log

# The ones alone: each after every suite side by side and after the one before it.
prev_alone :=
$(foreach r,$(ALONE_RUNS),$(eval $(r): | $(SIDE_RUNS) $(prev_alone))$(eval prev_alone := $(r)))

FORCE:

check: $(SIDE_RUNS) $(ALONE_RUNS) | $(CHECK_READY)
	@fail=0; failed=""; for s in $(SUITES); do \
	    r=$$(echo $$s | sed 's|^$(BUILD)/tests/|$(BUILD)/check/|'); rc=$$(cat $$r.rc 2>/dev/null || echo 1); \
	    if [ "$$rc" -ne 0 ]; then fail=1; failed="$$failed $$s"; \
	        echo "== $$s (exit $$rc)"; grep -E ':[EF]:' $$r.log; fi; \
	done; \
	if [ -z "$(RUN_TORCH)" ]; then :; \
	elif [ -n "$(SAN)" ]; then \
	    echo "== torch backend: not run under a sanitizer (the interpreter is not instrumented)"; \
	elif python3 -c 'import torch, pytest' 2>/dev/null; then \
	    echo "== torch backend (bindings/torch)"; $(MAKE) --no-print-directory check-torch || { fail=1; failed="$$failed torch"; }; \
	elif [ -n "$$SHMC_TEST_TORCH_REQUIRED" ]; then \
	    echo "== torch backend: torch or pytest is missing and SHMC_TEST_TORCH_REQUIRED is set"; fail=1; \
	else \
	    echo "== torch backend: skipped (pip install torch pytest to run it)"; \
	fi; \
	if [ -z "$(RUN_MPI4PY)" ]; then :; \
	elif $(MPI4PY_PYTHON) -c 'from mpi4py import MPI; assert "shmcomm" in MPI.Get_library_version()' \
	        >/dev/null 2>&1; then \
	    echo "== mpi4py on shmcomm"; $(MAKE) --no-print-directory check-mpi4py || { fail=1; failed="$$failed mpi4py"; }; \
	elif [ -n "$$SHMC_TEST_MPI4PY_REQUIRED" ]; then \
	    echo "== mpi4py: no mpi4py built against shmcc, and SHMC_TEST_MPI4PY_REQUIRED is set"; fail=1; \
	else \
	    echo "== mpi4py: skipped (MPICC=build/bin/shmcc pip install --no-binary mpi4py mpi4py; docs/mpi.md)"; \
	fi; \
	for s in $$failed; do case $$s in $(BUILD)/tests/*) \
	    r=$$(echo $$s | sed 's|^$(BUILD)/tests/|$(BUILD)/check/|'); \
	    echo "== $$s failed; its log ends:"; tail -n 40 $$r.log;; esac; \
	done; \
	if [ $$fail -ne 0 ]; then echo "make check: FAILED:$$failed"; exit 1; fi; \
	echo "make check: all suites passed"

# The CUDA suites alone, for a machine with a GPU: they fail where they would skip. The
# torch backend's CUDA tests too, where torch and pytest are installed.
check-cuda: all $(BUILD)/tests/device/check_cuda $(BUILD)/tests/device/check_device
	$(CHECK_ENV) SHMC_TEST_CUDA_REQUIRED=1 $(BUILD)/tests/device/check_cuda
	$(CHECK_ENV) SHMC_TEST_CUDA_REQUIRED=1 $(BUILD)/tests/device/check_device
	@if python3 -c 'import torch, pytest' 2>/dev/null; then \
	    $(MAKE) --no-print-directory check-torch-cuda; \
	else echo "== torch backend's CUDA tests: not run (pip install torch pytest)"; fi

# mpi4py built against this tree's shmcc: its users' first calls, at 2 and 4 ranks, and
# a pool of mpi4py.futures (over an intercommunicator) at 3.
check-mpi4py: all
	$(CHECK_ENV) $(SHMRUN) -n 2 $(MPI4PY_PYTHON) tests/mpi/mpi4py_smoke.py
	$(CHECK_ENV) $(SHMRUN) -n 4 $(MPI4PY_PYTHON) tests/mpi/mpi4py_smoke.py
	$(CHECK_ENV) $(SHMRUN) -n 3 --timeout 120 $(MPI4PY_PYTHON) -m mpi4py.futures tests/mpi/mpi4py_futures.py

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

# Every collective x dtype x op at every count and rank count (check_coll's full matrix).
check-coll-full: all $(CHECKS)
	$(CHECK_ENV) SHMC_COLL_FULL=1 CK_TIMEOUT_MULTIPLIER=20 $(BUILD)/tests/coll/check_coll
