# reliability.mk - `make check` steps for reliability: the fuzz targets'
# replay over their seed corpora (tests/fuzz/replay.sh) and
# tests/reliability.sh (corruption and truncation sweeps, --salvage, crafted
# hostile archives, safe output).  The helpers' sources are in tests/fuzz/;
# `make fuzz` itself is in tests/fuzz/fuzz.mk.

REL := $(B)/rel

# the sweep with ASan and UBSan, on the sanitized library of tests.mk
$(REL)/sweep: tests/fuzz/sweep.c tests/fuzz/fuzz_common.h $(SAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) $(SAN_FLAGS) -o $@ tests/fuzz/sweep.c $(SAN_LIB) $(LIBS)

# the same, optimized, for the bulk of the positions
$(REL)/sweep_fast: tests/fuzz/sweep.c tests/fuzz/fuzz_common.h libtrz.a
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) -O2 -o $@ tests/fuzz/sweep.c libtrz.a $(LIBS)

$(REL)/craft: tests/fuzz/craft.c tests/fuzz/fuzz_common.h $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) -O2 $(FUZZ_PKG_CFLAGS) -o $@ tests/fuzz/craft.c $(LIBS)

CHECK_DEPS += $(FZ)/replay $(REL)/sweep $(REL)/sweep_fast $(REL)/craft trz $(B)/san/trz
CHECK_STEPS += tests/fuzz/replay.sh tests/reliability.sh
