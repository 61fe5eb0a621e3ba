#!/usr/bin/env bash
# Side-by-side RCFile write benchmark of colfile against Hive 2.3's writer (not part of CI).
#
#   bash interop/writebench.sh [--rows N] [--runs N] [--iters N] [--warmup N] [--codecs none,lz4,...]
#
# The same 500k rows (bigint, int, double, string, timestamp, boolean, decimal(10,2); 5% NULLs)
# written in every codec Hive's writer has here: `rcoracle write` timed in one warm JVM against
# `colfile write --input rows.jsonl` and `colfile convert rows.arrow out.rc` (see
# interop/writebench.py for what each side includes).
# Prints one JSON line per codec and a table; results in target/interop/writebench/results.jsonl.
# Takes about 3 minutes on 2 cores.
set -euo pipefail
# shellcheck source=interop/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   # builds rcoracle and colfile if needed
WORK="$ROOT/target/interop/writebench"
rm -rf "$WORK"
mkdir -p "$WORK"
echo "# machine: $(nproc) cores, $(uname -sr)"
"$PY" "$ROOT/interop/writebench.py" --colfile "$COLFILE" --rcoracle "$ORACLE" --work "$WORK" "$@"
