# trz - lossless compressor for computer-architecture traces.
#   make            libtrz.a, libtrz.so and ./trz
#   make check      every test, including builds under ASan and UBSan
#   make demo       the ratio and speed table on the samples in corpus/
#   make install PREFIX=/usr/local
# Dependencies (Debian packages): libzstd, zlib, libxxhash, liblzma and libbz2
# (the last two to read .xz and .bz2 input), liblz4 and libsnappy (to read and
# rebuild drmemtrace's .lz4 and .sz traces), found with pkg-config (libbz2 has
# no .pc file: its header is checked and -lbz2 linked).

CC      ?= cc
PREFIX  ?= /usr/local
DESTDIR ?=
PKGS    := libzstd zlib libxxhash liblzma liblz4 snappy
DEB_PKGS := libzstd-dev zlib1g-dev libxxhash-dev liblzma-dev libbz2-dev liblz4-dev libsnappy-dev pkg-config
OPT     ?= -O2 -g
WARN    := -Wall -Wextra -Werror
STD     := -std=c11 -D_POSIX_C_SOURCE=200809L
CFLAGS  ?=
BASE_CFLAGS = $(STD) $(WARN) $(OPT) $(CFLAGS)
LIBS     = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lbz2 -lpthread

LIB_SRC := $(wildcard src/common/*.c src/format/*.c src/wrap/*.c src/compress/*.c src/decompress/*.c src/tools/*.c codecs/*.c codecs/*/*.c)
CLI_SRC := $(wildcard src/cli/*.c src/serve/*.c)
HDRS    := $(wildcard include/*.h src/*/*.h codecs/*.h codecs/*/*.h)

B := build
LIB_OBJ := $(LIB_SRC:%.c=$(B)/pic/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/obj/%.o)
SOVER   := 0

.PHONY: all deps check demo install install-python clean samples fuzz bench analyzers
all: trz libtrz.a libtrz.so analyzers

# Fail early and clearly when a dependency is missing; as root, install it.
$(B)/deps.ok:
	@mkdir -p $(B)
	@if ! pkg-config --exists $(PKGS) 2>/dev/null || ! echo '#include <bzlib.h>' | $(CC) -E - >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "trz: installing build dependencies: $(DEB_PKGS)"; \
	    (apt-get install -y $(DEB_PKGS) || (apt-get update && apt-get install -y $(DEB_PKGS))) >/dev/null || exit 1; \
	  else \
	    echo "trz: missing build dependencies. Run as root:"; \
	    echo "  apt-get install -y $(DEB_PKGS)"; exit 1; \
	  fi; \
	fi
	@touch $@

deps: $(B)/deps.ok

$(B)/pic/%.o: %.c $(HDRS) $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -fPIC -fvisibility=hidden $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -c $< -o $@

$(B)/obj/%.o: %.c $(HDRS) $(B)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -c $< -o $@

libtrz.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

libtrz.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libtrz.so.$(SOVER) -o $@ $^ $(LIBS)

trz: $(CLI_OBJ) libtrz.a
	$(CC) -o $@ $(CLI_OBJ) libtrz.a $(LIBS)

include bench/bench.mk
include tests/tests.mk

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 trz $(DESTDIR)$(PREFIX)/bin/trz
	install -m 644 include/trz.h include/trz_records.h include/trz_champsim.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 libtrz.a $(DESTDIR)$(PREFIX)/lib/libtrz.a
	install -m 755 libtrz.so $(DESTDIR)$(PREFIX)/lib/libtrz.so.$(SOVER)
	ln -sf libtrz.so.$(SOVER) $(DESTDIR)$(PREFIX)/lib/libtrz.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(shell sed -n 's/^#define TRZ_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' include/trz.h | paste -sd.)|g' \
	    trz.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/trz.pc
	install -m 644 trz.1 $(DESTDIR)$(PREFIX)/share/man/man1/trz.1
	@# the loader's cache, so that programs find libtrz.so.0 under /usr/local/lib
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

# The Python package (python/) with its own copy of libtrz.so, into the
# Python that PYTHON names (a virtual environment's, say: Debian's own
# Python leaves its packages to apt).  python/install.py copies it into
# site-packages with pip's metadata: no pip, wheel or network needed, which
# a fresh virtual environment on an offline machine does not have.
PYTHON ?= python3
install-python: libtrz.so
	$(PYTHON) python/install.py --library libtrz.so

samples: $(B)/gen_samples
	$(B)/gen_samples corpus

$(B)/gen_samples: tests/gen_samples.c tests/champsim_gen.h tests/drmemtrace_gen.h
	@mkdir -p $(B)
	$(CC) $(STD) $(WARN) -O2 -o $@ $<

clean:
	rm -rf $(B) trz libtrz.a libtrz.so tests/out
