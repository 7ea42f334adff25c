# shmrun: the launcher's own files over the library's two lowest layers, and hwloc.

LAUNCH_LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard lib/base/*.c lib/shm/*.c))
LAUNCH_SRC := $(wildcard launcher/*.c)
LAUNCH_OBJ := $(LAUNCH_SRC:%.c=$(BUILD)/%.o)
SHMRUN := $(BUILD)/bin/shmrun

$(SHMRUN): $(LAUNCH_OBJ) $(LAUNCH_LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) -o $@ $(LAUNCH_OBJ) $(LAUNCH_LIB_OBJ) $(HWLOC_LIBS) $(ALL_LDFLAGS)
