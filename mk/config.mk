# The toolchain and its flags: what every part of the build compiles with.

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

# Every C file of the tree compiles the same way; the launcher's see hwloc, the tests'
# Check and where the build and the sources are.
$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ilib $(if $(filter launcher/%,$<),$(HWLOC_CFLAGS)) \
	    $(if $(filter tests/%,$<),$(CHECK_CFLAGS) -Itests -DSHMC_BUILD_DIR='"$(abspath $(BUILD))"' \
	        -DSHMC_SRC_DIR='"$(abspath .)"') \
	    -c $< -o $@
