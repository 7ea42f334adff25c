# shmrun: the launcher's own files over the library's two lowest layers, and hwloc; and
# the dispatch rules' reader (lib/coll/rules.c, over base alone), whose digest and tuned
# file --info prints.

LAUNCH_LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard lib/base/*.c lib/shm/*.c) lib/coll/rules.c)
LAUNCH_SRC := $(wildcard launcher/*.c)
LAUNCH_OBJ := $(LAUNCH_SRC:%.c=$(BUILD)/%.o)
SHMRUN := $(BUILD)/bin/shmrun

$(SHMRUN): $(LAUNCH_OBJ) $(LAUNCH_LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -o $@ $(LAUNCH_OBJ) $(LAUNCH_LIB_OBJ) $(HWLOC_LIBS) $(ALL_LDFLAGS)
