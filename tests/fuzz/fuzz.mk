# fuzz.mk - the fuzz targets of tests/fuzz/ (libFuzzer, clang with ASan and
# UBSan), `make fuzz`, and the replay driver that runs every target over its
# seed corpus with gcc's sanitizers (a `make check` step, see reliability.mk).
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_SEED=1] [FUZZ_TARGETS="decode_any seek_read reader_api"]

FUZZ_CC ?= $(shell command -v clang-14 2>/dev/null || command -v clang 2>/dev/null || echo clang)
FUZZ_SECONDS ?= 60
FUZZ_ALL := decode_any roundtrip_raw roundtrip_rst roundtrip_byu roundtrip_pbus roundtrip_uop roundtrip_champsim roundtrip_drmemtrace seek_read oracle drfile sequential reader_api
FUZZ_TARGETS ?= $(FUZZ_ALL)
FZ := $(B)/fuzz
FUZZ_PKG_CFLAGS = $(shell pkg-config --cflags libzstd zlib libxxhash liblz4 snappy 2>/dev/null)
FUZZ_CLANG_SAN := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
                  -fsanitize-ignorelist=tests/fuzz/ubsan.ignore
FUZZ_HDRS := $(HDRS) tests/fuzz/fuzz_common.h tests/fuzz/archive.h tests/fuzz/api_model.h tests/oracle.h tests/fuzz/ubsan.ignore

# The library with coverage instrumentation, once for every target.
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FZ)/lib/%.o)
$(FZ)/lib/%.o: %.c $(HDRS) tests/fuzz/ubsan.ignore $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(STD) $(WARN) $(FUZZ_CLANG_SAN) -fsanitize=fuzzer-no-link $(FUZZ_PKG_CFLAGS) -c $< -o $@

$(FZ)/decode_any $(FZ)/seek_read $(FZ)/oracle $(FZ)/drfile $(FZ)/sequential $(FZ)/reader_api: $(FZ)/%: tests/fuzz/fuzz_%.c $(FUZZ_HDRS) $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) $(STD) $(WARN) $(FUZZ_CLANG_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(LIBS)

$(FZ)/roundtrip_%: tests/fuzz/fuzz_roundtrip.c $(FUZZ_HDRS) $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) $(STD) $(WARN) $(FUZZ_CLANG_SAN) -fsanitize=fuzzer -DFUZZ_FORMAT='"$*"' -o $@ $< $(FUZZ_LIB_OBJ) $(LIBS)

fuzz: $(FUZZ_TARGETS:%=$(FZ)/%)
	@FZ=$(FZ) FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/run_fuzz.sh $(FUZZ_TARGETS)

# ---- replay (gcc, ASan + UBSan): every target in one binary, on the
# sanitized library of tests.mk ----
$(FZ)/rp/decode_any.o $(FZ)/rp/seek_read.o $(FZ)/rp/oracle.o $(FZ)/rp/drfile.o $(FZ)/rp/sequential.o $(FZ)/rp/reader_api.o: $(FZ)/rp/%.o: tests/fuzz/fuzz_%.c $(FUZZ_HDRS) $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) $(SAN_FLAGS) $(FUZZ_PKG_CFLAGS) -DLLVMFuzzerTestOneInput=fz_$* -c $< -o $@

$(FZ)/rp/roundtrip_%.o: tests/fuzz/fuzz_roundtrip.c $(FUZZ_HDRS) $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) $(SAN_FLAGS) -DFUZZ_FORMAT='"$*"' -DLLVMFuzzerTestOneInput=fz_roundtrip_$* -c $< -o $@

$(FZ)/replay: tests/fuzz/replay.c $(FUZZ_ALL:%=$(FZ)/rp/%.o) $(SAN_LIB)
	$(CC) $(STD) $(WARN) $(SAN_FLAGS) -o $@ $^ $(LIBS)
