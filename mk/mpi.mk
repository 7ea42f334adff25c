# The MPI interface (mpi/): libshmcomm_mpi over the public API, mpi.h, and shmcc.

MPI_SRC    := $(wildcard mpi/src/*.c)
MPI_OBJ    := $(MPI_SRC:%.c=$(BUILD)/%.o)
MPI_STATIC := $(BUILD)/lib/libshmcomm_mpi.a
MPI_SHARED := $(BUILD)/lib/libshmcomm_mpi.so.$(VERSION)
SHMCC      := $(BUILD)/bin/shmcc

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
$(SHMCC): mpi/shmcc.in mk/mpi.mk
	@mkdir -p $(@D)
	sed -e 's|@CC@|$(CC)|g' -e 's|@INCDIR@|$(abspath mpi/include)|g' \
	    -e 's|@LIBDIR@|$(abspath $(BUILD)/lib)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@
	chmod 755 $@
