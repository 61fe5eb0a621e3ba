#!/usr/bin/env bash
# Curates fuzz/corpus/<target>/ from a grown corpus (the rule in fuzz/README.md): the inputs up
# to a size cap (2 KiB for the file readers, 512 bytes for the others), merged to the set that
# keeps their coverage (libFuzzer -merge=1), then the 250 smallest of those, plus the committed
# crash regressions (regress-*).
#   bash fuzz/curate.sh TARGET GROWN_CORPUS_DIR [FUZZ_BINARY]
# FUZZ_BINARY defaults to the cargo fuzz build in fuzz/target.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
t="$1"
grown="$2"
bin="${3:-$here/target/x86_64-unknown-linux-gnu/release/$t}"
case "$t" in rcfile_read | tsfile_read | tsfile_tools) cap=2048 ;; *) cap=512 ;; esac
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/small" "$work/merged"
# Inputs are named by their hash, so one name in both places is one input.
find "$grown" "$here/corpus/$t" -maxdepth 1 -type f -size -"$((cap + 1))"c ! -name 'regress-*' \
    -print0 | while IFS= read -r -d '' f; do
    [ -e "$work/small/${f##*/}" ] || cp "$f" "$work/small/"
done
"$bin" -merge=1 -rss_limit_mb=2048 -timeout=20 "$work/merged" "$work/small" >"$work/merge.log" 2>&1
find "$here/corpus/$t" -maxdepth 1 -type f ! -name 'regress-*' -delete
ls -S -r "$work/merged" | sed -n "1,250p" | while read -r f; do
    cp "$work/merged/$f" "$here/corpus/$t/$f"
done
echo "$t: $(find "$here/corpus/$t" -type f | wc -l) inputs, $(( $(cat "$here/corpus/$t"/* | wc -c) / 1024 )) KiB"
