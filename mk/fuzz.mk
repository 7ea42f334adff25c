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
