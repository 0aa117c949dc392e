#!/usr/bin/env bash
# install.sh - `make install` into a temporary prefix, then what README.md
# and docs/ tell users to build against it, found through pkg-config only:
# the reader examples of README.md and docs/library.md, the C batch reader
# of trz_champsim.h, a static program linked with `pkg-config --static`,
# and (where g++ is present) docs/champsim.md's ChampSim stream class,
# built through a Makefile that sets its flags with `override` as
# ChampSim's does plus that guide's two lines;
# each reads an archive at run time through the installed library.  A
# `make check` step; prints "N passed, M failed" last.
set -u
. "$(dirname "$0")/lib.sh" install
cd "$ROOT" || exit 1

P=$W/prefix
if make -s install PREFIX="$P" > "$W/log" 2>&1; then ok; else bad "make install" "$(tail -3 "$W/log")"; fi
for f in bin/trz include/trz.h include/trz_records.h include/trz_champsim.h lib/libtrz.a lib/libtrz.so.0 \
         lib/libtrz.so lib/pkgconfig/trz.pc share/man/man1/trz.1; do
    [ -e "$P/$f" ] && ok || bad "installed $f"
done
export PKG_CONFIG_PATH=$P/lib/pkgconfig
CF=$(pkg-config --cflags trz) LF="$(pkg-config --libs trz) -Wl,-rpath,$(pkg-config --variable=libdir trz)"
./trz -q -c corpus/mix.champsimtrace > "$W/m.trz" || bad "compress the sample"
./trz -dc "$W/m.trz" | wc -c > "$W/want.n"

# the C reader, outside the source tree: only the installed header and library
cp bench/analyzers/champsim_read.c "$W/"
if (cd "$W" && cc -std=c11 -Wall -Wextra -Werror -O2 -o csr champsim_read.c $CF $LF) 2> "$W/err"; then
    ok
    if ldd "$W/csr" | grep -q "libtrz.so.0 => $P/lib/libtrz.so.0"; then ok; else bad "the reader finds the installed libtrz.so.0" "$(ldd "$W/csr" | grep trz)"; fi
    if "$W/csr" -o "$W/back" "$W/m.trz" > /dev/null 2> "$W/err" && ./trz -dc "$W/m.trz" | cmp -s - "$W/back"; then ok
    else bad "the installed reader gives the records" "$(head -3 "$W/err")"; fi
else
    bad "compile the C reader against the installed trz" "$(head -5 "$W/err")"
fi

# the reader examples, as written: README.md's program (its one C block)
# and docs/library.md's (its "..." the start of main); each counts INSTR
# records from record 1000 on, and a missing file's message names it
awk '/^```c$/ { f = 1; next } f && /^```$/ { exit } f' README.md > "$W/rex1.c"
{ printf '#include <stdint.h>\n#include <stdio.h>\n#include "trz.h"\n'
  sed -n '/^static int count(void \*ctx/,/^```$/p' docs/library.md | sed -e 's/^\.\.\.$/int main(void)\n{/' -e 's/^```$/return 0;\n}/'; } > "$W/rex2.c"
mkdir -p "$W/rex.d"
./trz -q -c corpus/loops-4cpu.rst > "$W/trace.trz"
want=$(tail -c +$((24 * 1000 + 1)) corpus/loops-4cpu.rst | od -An -v -tu1 -w24 | awk '$1 == 3' | wc -l)
for ex in "1 README.md" "2 docs/library.md"; do
    n=${ex%% *} doc=${ex#* }
    if grep -q main "$W/rex$n.c" && (cd "$W" && cc -std=c11 -Wall -Wextra -Werror -O2 -o rex$n rex$n.c $CF $LF) 2> "$W/err"; then
        ok
        rm -f "$W/rex.d/trace.trz"
        (cd "$W/rex.d" && ../rex$n) > "$W/out" 2> "$W/err"; rc=$?
        [ $rc = 1 ] && [ "$(cat "$W/err")" = "trace.trz: No such file or directory" ] && ok \
            || bad "$doc's reader example names a missing file" "exit $rc: $(cat "$W/err")"
        cp "$W/trace.trz" "$W/rex.d/trace.trz"
        (cd "$W/rex.d" && ../rex$n) > "$W/out" 2> "$W/err" && [ "$(cat "$W/out")" = "$want INSTR records from record 1000 on" ] && ok \
            || bad "$doc's reader example counts INSTR records" "$(cat "$W/out" "$W/err")"
    else
        bad "compile $doc's reader example against the installed trz" "$(head -5 "$W/rex$n.c" "$W/err")"
    fi
done

# a static program: libtrz.a and what `pkg-config --static --libs trz`
# names, nothing else; it keeps a zip of drmemtrace records (deflate
# re-encoded on the way back) and gives the zip back byte for byte
cat > "$W/st.c" <<'C'
#include <stdio.h>
#include "trz.h"
int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    trz_cctx *c = trz_cctx_create();
    if (!c || trz_compress_path(c, argv[1], argv[2]) != TRZ_OK) {
        fprintf(stderr, "compress: %s\n", c ? trz_cctx_error(c) : "out of memory");
        return 1;
    }
    trz_cctx_free(c);
    trz_reader *r;
    FILE *f = fopen(argv[3], "wb");
    int fd = f ? fileno(f) : -1;
    trz_io out;
    trz_io_fd(&out, &fd);
    int rc = trz_reader_open_path(&r, argv[2]);
    if (rc == TRZ_OK) rc = trz_restore(r, &out);
    if (rc != TRZ_OK || !f || fclose(f)) { fprintf(stderr, "restore: %s\n", trz_reader_error(r)); return 1; }
    trz_reader_close(r);
    return 0;
}
C
python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(zipfile.ZipInfo("chunk.0000", (2024, 5, 6, 7, 8, 10)), open(sys.argv[1], "rb").read(), zipfile.ZIP_DEFLATED)' \
    corpus/core-6thr.drmemtrace "$W/st.trace.zip" || bad "make a zip of drmemtrace records"
SLF=$(pkg-config --static --libs trz)
if (cd "$W" && cc -std=c11 -Wall -Wextra -Werror -O2 -static -o st st.c $CF $SLF) 2> "$W/err"; then
    ok
    ldd "$W/st" > "$W/ldd" 2>&1; grep -q "not a dynamic executable" "$W/ldd" && ok || bad "the static program is static" "$(head -3 "$W/ldd")"
    if "$W/st" "$W/st.trace.zip" "$W/st.trz" "$W/st.back.zip" 2> "$W/err" && cmp -s "$W/st.trace.zip" "$W/st.back.zip" \
            && ./trz -dc "$W/st.trz" | cmp -s - corpus/core-6thr.drmemtrace; then ok
    else bad "the static program keeps and restores a zip" "$(head -3 "$W/err")"; fi
else
    bad "link a static program with pkg-config --static --libs trz ($SLF)" "$(grep -m3 -E 'undefined|cannot find|error' "$W/err")"
fi
# against libtrz.a alone, the system's libraries shared
if (cd "$W" && cc -std=c11 -Wall -Wextra -Werror -O2 -o sta st.c $CF "$P/lib/libtrz.a" ${SLF/-ltrz/}) 2> "$W/err" \
        && ! ldd "$W/sta" | grep -q libtrz && "$W/sta" "$W/st.trace.zip" "$W/st2.trz" "$W/st2.back.zip" 2> "$W/err" \
        && cmp -s "$W/st.trace.zip" "$W/st2.back.zip"; then ok
else bad "link against libtrz.a with pkg-config --static --libs trz" "$(grep -m3 -E 'undefined|cannot find|error|:' "$W/err")"; fi

# docs/champsim.md's stream class for ChampSim's tracereader, as written there
if command -v g++ > /dev/null; then
    sed -n '/^\/\/ inc\/trz_istream.h (new)/,/^};$/p' docs/champsim.md > "$W/trz_istream.h"
    cat > "$W/use.cc" <<'CC'
#include <cstdio>
#include <vector>
#include "trz_istream.h"
struct input_instr { unsigned long long ip; unsigned char b[8]; unsigned long long m[6]; };
static_assert(sizeof(input_instr) == 64, "64-byte records");
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  trz_istream<input_instr> s(argv[1]);
  std::vector<char> buf(127 * sizeof(input_instr));   // bulk_tracereader's batch
  long long bytes = 0;
  do { s.read(buf.data(), static_cast<std::streamsize>(buf.size())); bytes += s.gcount(); } while (!s.eof());
  std::printf("%lld\n", bytes);
  try { trz_istream<input_instr> bad(argv[2]); } catch (const std::runtime_error& e) { std::printf("error: %s\n", e.what()); }
}
CC
    # a stand-in for ChampSim's Makefile: its flags set with override, so
    # that only the guide's lines written with override too reach the build
    sed -n 's/^\/\/   \(.*\(CPPFLAGS\|LDLIBS\) +=.*\)$/\1/p' docs/champsim.md > "$W/readme.mk"
    cat > "$W/Makefile" <<'MK'
override CPPFLAGS += -I.
override CXXFLAGS += -std=c++17 -Wall -Wextra -Werror -O2
override LDLIBS   += -lm
include readme.mk
use: use.o
	$(CXX) $(LDFLAGS) -o $@ $^ $(LOADLIBES) $(LDLIBS)
use.o: use.cc trz_istream.h
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -c -o $@ $<
MK
    if [ "$(wc -l < "$W/trz_istream.h")" -gt 10 ] && grep -q CPPFLAGS "$W/readme.mk" && grep -q LDLIBS "$W/readme.mk" \
            && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$W" use > "$W/err" 2>&1; then
        ok
        printf 'not an archive' > "$W/junk.trz"
        "$W/use" "$W/m.trz" "$W/junk.trz" > "$W/out" 2>&1
        [ "$(head -1 "$W/out")" = "$(cat "$W/want.n")" ] && ok || bad "the stream class reads every record" "$(head -2 "$W/out")"
        grep -q '^error: .*junk.trz' "$W/out" && ok || bad "the stream class throws on a bad file" "$(tail -1 "$W/out")"
    else
        bad "build docs/champsim.md's stream class with its Makefile lines against the installed trz" "$(cat "$W/readme.mk"; head -5 "$W/err")"
    fi
else
    echo "note: no g++; docs/champsim.md's C++ stream class is not compiled"
fi
finish
