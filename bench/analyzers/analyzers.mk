# analyzers.mk - the example analyzers built on the reader API (rst_stats,
# bus_stats, champsim_stats; champsim_read, the batch reader of ChampSim structs), the timing tools for the reader (read_speed, seek_time), and
# tests/reader.sh, which `make check` runs.  Binaries go to build/analyzers/.
AN_DIR  := $(B)/analyzers
AN_HDRS := bench/analyzers/common.h include/trz_champsim.h $(HDRS)
AN_PROGS := rst_stats bus_stats champsim_stats champsim_read read_speed seek_time write_records
ANALYZERS += $(AN_PROGS:%=$(AN_DIR)/%)

$(AN_DIR)/write_records: bench/analyzers/write_records.c $(HDRS) libtrz.a
	@mkdir -p $(AN_DIR)
	$(CC) $(STD) $(WARN) -O2 -Iinclude -o $@ $< libtrz.a $(LIBS)

$(AN_DIR)/%: bench/analyzers/%.c bench/analyzers/common.c $(AN_HDRS) libtrz.a
	@mkdir -p $(AN_DIR)
	$(CC) $(STD) $(WARN) -O2 -Iinclude -o $@ $< bench/analyzers/common.c libtrz.a $(LIBS)

CHECK_DEPS += $(ANALYZERS) trz
CHECK_STEPS += tests/reader.sh
