# shmcomm build. The parts are in mk/, one file each: config (the toolchain), lib,
# launcher, mpi, programs (examples, benchmarks), torch, tests, install, fuzz.
#   make                      libraries, shmrun, examples, benchmarks (into build/)
#   make check                build and run every test (Check suites, examples, launcher)
#   make check T=p2p/check_p2p  one suite (or a folder: T=launcher; the torch tests: T=torch)
#   make -j2 check            the suites side by side (mk/tests.mk says which run alone)
#   make SAN=address check    the same under AddressSanitizer+UBSan (into build-address/)
#   make SAN=thread check     the same under ThreadSanitizer (into build-thread/)
#   make check-mpi4py         mpi4py built against build/bin/shmcc (MPI4PY_PYTHON=python3)
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
# Output of jobs run side by side comes whole, one job after another.
MAKEFLAGS += --output-sync=target

.PHONY: all lib mpi torch check-torch check-torch-cuda check-mpi4py layers docs-check docs-config check \
        check-cuda \
        check-stress check-coll-full fuzz bench bench-compare install uninstall clean format \
        symbols deps demo
all:

include mk/config.mk mk/lib.mk mk/launcher.mk mk/mpi.mk mk/programs.mk mk/torch.mk \
        mk/tests.mk mk/install.mk mk/fuzz.mk

all: deps lib mpi $(SHMRUN) $(EXAMPLES) $(BENCHES)

# Says what is missing (and how to install it) before a compiler error would.
deps:
	@scripts/deps.sh

demo: all
	$(SHMRUN) -n 4 --tag-output $(BUILD)/examples/ring

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cpp')

clean:
	rm -rf build build-address build-thread

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
