#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the repository's small fixtures and a few hand-written
# inputs (adds to what is there; `cargo fuzz cmin` afterwards keeps what adds coverage). Run from anywhere: `bash fuzz/seed.sh`. Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
corpus="$here/corpus"
max=20000 # bytes: fixtures larger than this are left out (they slow every run down)

seed_files() { # target, files...
    local t="$1"
    shift
    mkdir -p "$corpus/$t"
    for f in "$@"; do
        if [ "$(stat -c %s "$f")" -le "$max" ]; then
            cp "$f" "$corpus/$t/$(basename "$f")"
        fi
    done
}

seed_text() { # target, name, printf-format bytes
    mkdir -p "$corpus/$1"
    printf "$3" >"$corpus/$1/$2"
}

seed_files tsfile_read "$root"/fixtures/tsfile/*.tsfile
seed_files tsfile_tools "$root"/fixtures/tsfile/*.tsfile
seed_files rcfile_read "$root"/fixtures/rcfile/*.rc

# tsfile_mods: a first byte (even: text .mods, odd: binary .mods2), then the file.
seed_text tsfile_mods text 'tDELETION,root.sg.d1.s1,1024,100,300\nDELETION,root.sg.`a,b`.**,7,50\r\nDELET'
seed_text tsfile_mods text_bad 'tDELETION,root.sg.d1.s1,1,2,3\nUPDATE,root.a,1,2,3\n'
seed_text tsfile_mods binary_tree '\001\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\011\014root.*'
seed_text tsfile_mods binary_table '\001\000\000\000\000\000\000\000\000\001\000\000\000\000\000\000\000\002\002t\003\004\002\002a\002\001\002\002t\002a\002\004s1'
seed_text tsfile_mods binary_bad '\001\007\000\000'

# tsfile_resource: IoTDB .resource files, time index types 1, 3 and 0.
seed_text tsfile_resource type1 '\x01\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x09\x00\x00\x00\x0a\x72\x6f\x6f\x74\x2e\x73\x67\x2e\x64\x32\x00\x00\x00\x01\x00\x00\x00\x0a\x72\x6f\x6f\x74\x2e\x73\x67\x2e\x64\x31\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09\x00\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff'
seed_text tsfile_resource type3 '\x01\x03\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x04\x02\x0e\x72\x6f\x6f\x74\x2e\x73\x67\x04\x64\x31\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
seed_text tsfile_resource type0 '\x01\x00\x00\x00\x00\x01\x00\x00\x00\x0a\x72\x6f\x6f\x74\x2e\x73\x67\x2e\x64\x31\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02'

# tsfile_filter: `--where` expressions.
seed_text tsfile_filter and 'time >= 10 and v < 3.5'
seed_text tsfile_filter or "(a = 'x' or b != 2) and not c is null"
seed_text tsfile_filter between 'time between 1 and 100 or s like '"'"'ab%%'"'"
seed_text tsfile_filter in "tag in ('a', 'b') and x > -1e3"

# serde_cells: selector byte, then a cell (text serde forms of a few types).
seed_text serde_cells int '\003123'
seed_text serde_cells array '\0171\0022\0023'
seed_text serde_cells map '\020k\003v\002x\001'
seed_text serde_cells decimal '\0151234.5678'
seed_text serde_cells timestamp '\0142024-01-02 03:04:05.123'

# tsfile_encodings: selector byte (encoding index + 16 * type index), then a value stream.
for sel in 0 1 2 3 4 5 16 17 18 19 20 21 32 33 34 48 49 50 64 65; do
    seed_text tsfile_encodings "sel$sel" "\\$(printf %03o "$sel")\\000\\000\\000\\012\\001\\002\\003\\004\\005\\006\\007\\010"
done

# codecs: u16 LE size / 4, codec index (0-9), flags (bit 0: round trip), then bytes.
for c in 0 1 2 3 4 5 6 7 8 9; do
    seed_text codecs "codec$c" "\\004\\000\\$(printf %03o "$c")\\000\\037\\213\\010\\000\\000\\000\\000\\000\\000\\003"
    seed_text codecs "roundtrip$c" "\\000\\000\\$(printf %03o "$c")\\001abcabcabcabc0123456789"
done
echo "seeded $(find "$corpus" -type f | wc -l) inputs under $corpus"
