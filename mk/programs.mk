# The examples and the benchmarks: every examples/*.c, and every bench/*.c with a main
# that is not an MPI program, is a program of its own (a new one needs no edit here).

EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
# Examples on GPU memory: built only with CUDA (they use the CUDA runtime themselves).
ifeq ($(WITH_CUDA),1)
EXAMPLES += $(patsubst examples/cuda/%.c,$(BUILD)/examples/cuda/%,$(wildcard examples/cuda/*.c))
endif

# Examples link the shared library, so the exported API is what they exercise.
$(BUILD)/examples/cuda/%: examples/cuda/%.c examples/example.h $(BUILD)/lib/libshmcomm.so
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(CUDA_HOME)/include -o $@ $< -L$(BUILD)/lib -lshmcomm \
	    -Wl,-rpath,$(abspath $(BUILD)/lib) $(CUDA_LIBS) -lm $(ALL_LDFLAGS)

$(BUILD)/examples/%: examples/%.c $(BUILD)/lib/libshmcomm.so
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< -L$(BUILD)/lib -lshmcomm -Wl,-rpath,$(abspath $(BUILD)/lib) -lm $(ALL_LDFLAGS)

# bench/measure.c is one source for every runtime: with rt_shmcomm.c here, with rt_mpi.c
# and an MPI's mpicc in bench-compare. limits.c needs no library at all. MPI programs
# (barrier_bcast.c) are built by hand with each runtime's wrapper (bench/README.md).
BENCH_MAINS := $(filter-out $(shell grep -l 'include <mpi.h>' bench/*.c), \
                            $(shell grep -l '^int main' bench/*.c))
BENCHES := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_MAINS)) $(BUILD)/bench/measure-shmcc

bench: $(BENCHES) $(SHMRUN)

$(BUILD)/bench/%: bench/%.c bench/bench.h bench/timing.h $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ilib -o $@ $< $(STATIC) $(STATIC_DEPS) -lm $(ALL_LDFLAGS)

$(BUILD)/bench/measure: bench/measure.c bench/rt_shmcomm.c bench/rt.h bench/timing.h bench/pair_line.h $(STATIC)
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
$(BUILD)/bench/measure-openmpi: bench/measure.c bench/rt_mpi.c bench/rt.h bench/timing.h bench/pair_line.h
	@mkdir -p $(@D)
	mpicc.openmpi $(MPI_BENCH_FLAGS) -o $@ bench/measure.c bench/rt_mpi.c

$(BUILD)/bench/measure-mpich: bench/measure.c bench/rt_mpi.c bench/rt.h bench/timing.h bench/pair_line.h
	@mkdir -p $(@D)
	mpicc.mpich $(MPI_BENCH_FLAGS) -o $@ bench/measure.c bench/rt_mpi.c

# ... and on shmcomm's own MPI interface, against the native calls (docs/mpi.md, speed).
$(BUILD)/bench/measure-shmcc: bench/measure.c bench/rt_mpi.c bench/rt.h bench/timing.h bench/pair_line.h \
                              $(SHMCC) $(MPI_SHARED) $(SHARED)
	@mkdir -p $(@D)
	$(SHMCC) $(MPI_BENCH_FLAGS) $(SANFLAGS) -o $@ bench/measure.c bench/rt_mpi.c

# shmcomm side by side with Open MPI, MPICH and gloo; see bench/compare.sh.
# make bench-compare [MODE=quick|full]
MODE ?= full
bench-compare: all
	bench/compare.sh $(MODE)
