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

check-torch-cuda: $(TORCH_STAMP)
	cd $(TORCH_DIR) && SHMC_TEST_CUDA_REQUIRED=1 SHMC_TEST_BUILD=$(abspath $(BUILD)) \
	    python3 -m pytest -q -p no:cacheprovider tests/test_cuda.py
