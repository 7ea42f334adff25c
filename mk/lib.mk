# The library: libshmcomm.a and libshmcomm.so, from every .c of its layers (a new file
# needs no edit here), and the checks on it: layers only call down, and only the public
# API is exported.

# The library's layers, lowest first (docs/design.md); scripts/layers.sh checks that no
# object calls a layer above its own.
LAYERS  := base shm transport device p2p coll boot rma
LIB_SRC := $(filter-out lib/device/none.c,$(foreach l,$(LAYERS),$(wildcard lib/$(l)/*.c))) \
           $(DEV_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(DEV_CU:%.cu=$(BUILD)/%.o)

STATIC := $(BUILD)/lib/libshmcomm.a
# What a program linked with the static library needs besides it.
STATIC_DEPS := $(CUDA_LIBS)
SHARED := $(BUILD)/lib/libshmcomm.so.$(VERSION)

lib: $(STATIC) $(SHARED) $(BUILD)/lib/libshmcomm.so

$(BUILD)/lib/device/cuda/%.o: ALL_CFLAGS += -I$(CUDA_HOME)/include

$(BUILD)/lib/device/cuda/%.o: lib/device/cuda/%.cu lib/device/cuda/kernels.h lib/base/half.h \
                              lib/base/reduction.h include/shmcomm.h
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

# The dispatch rules, built into the library as a string (lib/coll/rules.c).
$(BUILD)/gen/coll/dispatch_rules.inc: lib/coll/dispatch.rules
	@mkdir -p $(@D)
	sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $< > $@
$(BUILD)/lib/coll/rules.o: $(BUILD)/gen/coll/dispatch_rules.inc
$(BUILD)/lib/coll/rules.o: ALL_CFLAGS += -I$(BUILD)/gen

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

# Every call goes down the layers, no file-level cycle, includes in order, tests on the
# public API (scripts/layers.sh); then the check's own self-test, which plants an upward
# call and a cycle and requires both to be caught.
layers: lib
	@scripts/layers.sh $(BUILD)
	@CC='$(CC)' scripts/layers.sh --self-test $(BUILD)

# Only the public API may be exported from the shared libraries: the MPI library's is its
# MPI_* and PMPI_* functions and the objects mpi.h names (shmc_mpi_<name>, one underscore).
symbols: $(SHARED) $(MPI_SHARED)
	@bad=$$(nm -D --defined-only $(SHARED) | awk '{print $$3}' | grep -v '^shmc_' | grep -v '^_' || true); \
	if [ -n "$$bad" ]; then echo "exported non-API symbols: $$bad"; exit 1; fi; \
	echo "exported symbols: only shmc_*"
	@bad=$$(nm -D --defined-only $(MPI_SHARED) | awk '{print $$3}' | grep -v '^P\?MPI_' | grep -v '^shmc_mpi_[a-z]' | grep -v '^_' || true); \
	if [ -n "$$bad" ]; then echo "libshmcomm_mpi exports non-MPI symbols: $$bad"; exit 1; fi; \
	echo "libshmcomm_mpi exports: only MPI_*, PMPI_* and mpi.h's objects"
