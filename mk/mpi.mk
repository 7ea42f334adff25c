# The MPI interface (mpi/): libshmcomm_mpi over the public API, mpi.h, and shmcc.

MPI_SRC    := $(wildcard mpi/src/*.c)
MPI_OBJ    := $(MPI_SRC:%.c=$(BUILD)/%.o)
MPI_STATIC := $(BUILD)/lib/libshmcomm_mpi.a
MPI_SHARED := $(BUILD)/lib/libshmcomm_mpi.so.$(VERSION)
SHMCC      := $(BUILD)/bin/shmcc
SHMCXX     := $(BUILD)/bin/shmcxx

mpi: $(MPI_STATIC) $(MPI_SHARED) $(BUILD)/lib/libshmcomm_mpi.so $(SHMCC) $(SHMCXX) \
     $(BUILD)/mpi-bin/.made

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

# The compiler wrappers, from one template: $(call wrapper,name,language,peer,env,std,
# compiler,incdir,libdir) prints one (make install writes them for PREFIX).
define wrapper
sed -e 's|@NAME@|$(1)|g' -e 's|@LANG@|$(2)|g' -e 's|@PEER@|$(3)|g' -e 's|@ENV@|$(4)|g' \
    -e 's|@STD@|$(5)|g' -e 's|@COMPILER@|$(6)|g' -e 's|@INCDIR@|$(7)|g' -e 's|@LIBDIR@|$(8)|g' \
    -e 's|@VERSION@|$(VERSION)|g' mpi/wrapper.in
endef
SHMCC_FOR  = $(call wrapper,shmcc,C,mpicc,SHMCC_CC,CC,$(CC),$(1),$(2))
SHMCXX_FOR = $(call wrapper,shmcxx,C++,mpicxx,SHMCXX_CXX,CXX,$(CXX),$(1),$(2))

# The names MPI's tools go by, pointing at shmcomm's, in a directory of their own: putting
# it first in PATH makes a script's mpicc, mpicxx, mpiexec and mpirun shmcomm's.
MPI_NAMES := mpicc:shmcc mpicxx:shmcxx mpiexec:shmrun mpirun:shmrun
define mpi_names
mkdir -p $(1) && for p in $(MPI_NAMES); do ln -sf $(2)/$${p#*:} $(1)/$${p%%:*}; done
endef

$(SHMCC): mpi/wrapper.in mk/mpi.mk
	@mkdir -p $(@D)
	$(call SHMCC_FOR,$(abspath mpi/include),$(abspath $(BUILD)/lib)) > $@
	chmod 755 $@

$(SHMCXX): mpi/wrapper.in mk/mpi.mk
	@mkdir -p $(@D)
	$(call SHMCXX_FOR,$(abspath mpi/include),$(abspath $(BUILD)/lib)) > $@
	chmod 755 $@

$(BUILD)/mpi-bin/.made: mk/mpi.mk
	$(call mpi_names,$(BUILD)/mpi-bin,$(abspath $(BUILD)/bin))
	touch $@
