# make install PREFIX=/usr/local [DESTDIR=...], and make uninstall. The man pages are
# docs/man/*.1 and *.3, written in man(7) as they are installed.

MAN1 := $(wildcard docs/man/*.1)
MAN3 := $(wildcard docs/man/*.3)

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
	$(call SHMCC_FOR,$(PREFIX)/include/shmcomm-mpi,$(PREFIX)/lib) > $(DESTDIR)$(PREFIX)/bin/shmcc
	$(call SHMCXX_FOR,$(PREFIX)/include/shmcomm-mpi,$(PREFIX)/lib) > $(DESTDIR)$(PREFIX)/bin/shmcxx
	chmod 755 $(DESTDIR)$(PREFIX)/bin/shmcc $(DESTDIR)$(PREFIX)/bin/shmcxx
	# mpicc, mpicxx, mpiexec, mpirun: only for those who put this directory in PATH.
	$(call mpi_names,$(DESTDIR)$(PREFIX)/lib/shmcomm/mpi-bin,$(PREFIX)/bin)
	install -m 644 $(STATIC) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SHARED) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libshmcomm.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libshmcomm.so.$(SOMAJOR)
	ln -sf libshmcomm.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libshmcomm.so
	install -m 755 $(SHMRUN) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(MAN3) $(DESTDIR)$(PREFIX)/share/man/man3/
	# Made here, not cached: it names PREFIX, which differs from one install to the next.
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@LIBS_PRIVATE@|$(STATIC_DEPS) -lm|g' shmcomm.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/shmcomm.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/shmcomm.pc
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig 2>/dev/null || true; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/shmcomm.h $(DESTDIR)$(PREFIX)/bin/shmrun \
	      $(DESTDIR)$(PREFIX)/lib/libshmcomm.* $(DESTDIR)$(PREFIX)/lib/pkgconfig/shmcomm.pc \
	      $(DESTDIR)$(PREFIX)/lib/libshmcomm_mpi.* $(DESTDIR)$(PREFIX)/bin/shmcc \
	      $(DESTDIR)$(PREFIX)/bin/shmcxx
	rm -rf $(DESTDIR)$(PREFIX)/include/shmcomm-mpi $(DESTDIR)$(PREFIX)/lib/shmcomm
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(MAN1))) \
	      $(addprefix $(DESTDIR)$(PREFIX)/share/man/man3/,$(notdir $(MAN3)))
