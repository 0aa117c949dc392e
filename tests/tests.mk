# tests.mk - `make check`: unit tests of every codec and the CLI suite, each
# under ASan and UBSan as well as the normal build.  Fragments from other
# parts (fuzz replay, analyzers, python, size regression) add CHECK_STEPS.

SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_LIB_SRC := $(LIB_SRC)
TEST_HDRS := tests/bus_test.h tests/corpus.h tests/oracle.h tests/fuzz/archive.h tests/fuzz/fuzz_common.h
CHECK_UNITS := $(patsubst tests/%.c,$(B)/san/%,$(filter-out tests/gen_samples.c tests/codec_harness.c,$(wildcard tests/test_*.c)))

$(B)/san/test_%: tests/test_%.c $(SAN_LIB_SRC) $(HDRS) $(TEST_HDRS) $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) $(SAN_FLAGS) -o $@ $< $(SAN_LIB_SRC) $(LIBS)

# test_coder measures sizes against the entropy (log2)
$(B)/san/test_coder: LIBS += -lm

$(B)/san/trz: $(CLI_SRC) $(SAN_LIB_SRC) $(HDRS) $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) $(SAN_FLAGS) -o $@ $(CLI_SRC) $(SAN_LIB_SRC) $(LIBS)

$(B)/codec_harness: tests/codec_harness.c $(LIB_SRC) $(HDRS) $(B)/deps.ok
	$(CC) $(STD) $(WARN) -O2 -o $@ tests/codec_harness.c $(LIB_SRC) $(LIBS)

-include tests/fuzz/fuzz.mk
-include tests/regression/regression.mk
-include tests/python/python.mk
-include tests/reliability.mk

# Tools the tests drive (xz for the shared corpus, zstd and gzip for
# compressed input, bzip2 for the benchmarks): installed as root, else named.
TEST_DEB_PKGS := xz-utils zstd bzip2 gzip
$(B)/checkdeps.ok: $(B)/deps.ok
	@if ! command -v xz >/dev/null || ! command -v zstd >/dev/null || ! command -v bzip2 >/dev/null || ! command -v gzip >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "trz: installing test tools: $(TEST_DEB_PKGS)"; \
	    (apt-get install -y $(TEST_DEB_PKGS) || (apt-get update && apt-get install -y $(TEST_DEB_PKGS))) >/dev/null || exit 1; \
	  else \
	    echo "trz: missing test tools. Run as root:"; echo "  apt-get install -y $(TEST_DEB_PKGS)"; exit 1; \
	  fi; \
	fi
	@touch $@

check: $(B)/checkdeps.ok all $(CHECK_UNITS) $(B)/san/trz $(CHECK_DEPS)
	@TRZ_UNITS="$(CHECK_UNITS)" TRZ_STEPS="$(CHECK_STEPS)" bash tests/run_all.sh
