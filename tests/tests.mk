# tests.mk - `make check`: unit tests of every codec and the CLI suite, each
# under ASan and UBSan as well as the normal build.  Fragments from other
# parts (fuzz replay, analyzers, python, size regression) add CHECK_STEPS.

SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TEST_HDRS := tests/unit.h tests/member_kind.h tests/drfile_gen.h tests/champsim_gen.h tests/drmemtrace_gen.h tests/codec_args.h tests/bus_test.h tests/corpus.h tests/oracle.h tests/fuzz/archive.h tests/fuzz/fuzz_common.h tests/fuzz/api_model.h
CHECK_UNITS := $(patsubst tests/%.c,$(B)/san/%,$(filter-out tests/gen_samples.c tests/codec_harness.c,$(wildcard tests/test_*.c)))

# The library under ASan and UBSan, compiled once: every unit test, the
# sanitized trz, the fuzz replay driver and the sweep link against it.
SAN_LIB_OBJ := $(LIB_SRC:%.c=$(B)/san/lib/%.o)
SAN_LIB := $(B)/san/libtrz.a
$(B)/san/lib/%.o: %.c $(HDRS) $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) $(SAN_FLAGS) $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -c $< -o $@
$(SAN_LIB): $(SAN_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(B)/san/test_%: tests/test_%.c $(SAN_LIB) $(HDRS) $(TEST_HDRS) $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) $(SAN_FLAGS) -o $@ $< $(SAN_LIB) $(LIBS)

# test_coder measures sizes against the entropy (log2)
$(B)/san/test_coder: LIBS += -lm

$(B)/san/trz: $(CLI_SRC) $(SAN_LIB) $(HDRS) $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(WARN) $(SAN_FLAGS) -o $@ $(CLI_SRC) $(SAN_LIB) $(LIBS)

$(B)/codec_harness: tests/codec_harness.c libtrz.a $(HDRS) $(B)/deps.ok
	$(CC) $(STD) $(WARN) -O2 -o $@ tests/codec_harness.c libtrz.a $(LIBS)

-include tests/fuzz/fuzz.mk
-include tests/regression/regression.mk
-include tests/python/python.mk
-include tests/reliability.mk

# Tools the tests drive (xz for the shared corpus, zstd and gzip for
# compressed input, bzip2 for the benchmarks, time for memory.sh's peak RSS):
# installed as root, else named.
TEST_DEB_PKGS := xz-utils zstd bzip2 gzip time
$(B)/checkdeps.ok: $(B)/deps.ok
	@if ! command -v xz >/dev/null || ! command -v zstd >/dev/null || ! command -v bzip2 >/dev/null || ! command -v gzip >/dev/null || [ ! -x /usr/bin/time ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "trz: installing test tools: $(TEST_DEB_PKGS)"; \
	    (apt-get install -y $(TEST_DEB_PKGS) || (apt-get update && apt-get install -y $(TEST_DEB_PKGS))) >/dev/null || exit 1; \
	  else \
	    echo "trz: missing test tools. Run as root:"; echo "  apt-get install -y $(TEST_DEB_PKGS)"; exit 1; \
	  fi; \
	fi
	@touch $@

# the drmemtrace file layer through the command: containers kept and restored, -r
CHECK_STEPS += tests/drfile.sh

# drmemtrace within the memory bounds (64 MB to decompress, 128 MB to compress)
CHECK_STEPS += tests/memory.sh

# trz serve: a trace directory served as named pipes to a reader of its own
# that opens them as DynamoRIO's launcher does (DynamoRIO itself: bench/drmemtrace_client.sh)
$(B)/serve_reader: tests/serve_reader.c $(B)/deps.ok
	$(CC) $(STD) $(WARN) -O2 -o $@ tests/serve_reader.c
CHECK_DEPS += $(B)/serve_reader
CHECK_STEPS += tests/serve.sh

# README.md's headline numbers are bench/headline.csv's, and (with the
# shared corpus) the current build's
CHECK_STEPS += tests/numbers.sh

# the guard: no chunk larger than the raw codec would store it
CHECK_STEPS += tests/guard.sh

# chains: version 4 members round-trip, seek, salvage and join
CHECK_STEPS += tests/chain.sh

# parity: a damaged stretch of a set's stored data is mended through the index
CHECK_STEPS += tests/parity.sh

# damage: chunks and groups cut out, repeated and moved (index as it was and
# rebuilt) never give wrong records with exit 0, on any read path; a sample
# here, every place in `make check-damage` (CI)
$(B)/damage: tests/damage.c libtrz.a $(HDRS) $(B)/deps.ok
	$(CC) $(STD) $(WARN) -O2 -o $@ tests/damage.c libtrz.a $(LIBS)
CHECK_DEPS += $(B)/damage
CHECK_STEPS += tests/damage.sh
.PHONY: check-damage
check-damage: all $(B)/damage
	TRZ_DAMAGE_FULL=1 bash tests/damage.sh

# no environment variable changes what the library writes
CHECK_STEPS += tests/noenv.sh

# the library exports its API and nothing else
CHECK_DEPS += libtrz.so
CHECK_STEPS += tests/exports.sh

# make install into a temporary prefix, and the integrations README.md and docs/ show, built
# against it through pkg-config
CHECK_STEPS += tests/install.sh

# The vector-state test also runs against libtrz.so, built as a host program
# links it: the sanitizers' own code between the calls can hide a dirty state.
$(B)/test_vecstate: tests/test_vecstate.c libtrz.so include/trz.h tests/unit.h
	@mkdir -p $(dir $@)
	ln -sf ../libtrz.so $(B)/libtrz.so.$(SOVER)
	$(CC) $(STD) $(WARN) -O2 -o $@ $< -L. -ltrz -Wl,-rpath,'$$ORIGIN'
CHECK_DEPS += $(B)/test_vecstate
CHECK_STEPS += tests/vecstate.sh

# Last: a rule's prerequisites expand where it is read, so every CHECK_DEPS
# addition above must come first.
check: $(B)/checkdeps.ok $(CHECK_FIRST) all $(CHECK_UNITS) $(B)/san/trz $(CHECK_DEPS)
	@TRZ_UNITS="$(CHECK_UNITS)" TRZ_STEPS="$(CHECK_STEPS)" bash tests/run_all.sh
