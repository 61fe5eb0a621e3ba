#!/usr/bin/env bash
# Side-by-side read benchmark of colfile against Hive 2.3's RCFile reader (not part of CI).
#
#   bash interop/bench.sh [--rows N] [--big-rows N] [--runs N] [--iters N] [--warmup N] [--keep] [--no-seven]
#
# 1. rows/s on a 500k-row binary-serde file (10 mixed columns: bigint, int, smallint, boolean,
#    double, decimal(12,2), string, timestamp, date, array<string>), uncompressed and lz4, written
#    by Hive: `rcoracle bench --iters 5 --warmup 3 --modes serde,raw` against `colfile scan`
#    (all values decoded) and `colfile scan --raw` (cells only), median of several runs;
# 2. raw cell-scan GB/s (uncompressed column bytes per second) on an uncompressed and an lz4
#    file of a few hundred MB (200k rows of long random strings/binary, written by Hive) and a
#    compressible log-like lz4 file (1.2M rows, written by colfile write), colfile vs Hive raw;
# 3. colfile decode rate per column of the 500k-row files (--columns);
# 4. one thread (unless --no-seven): a 500k-row 7-column file (bigint, int, double, string,
#    timestamp, boolean, decimal(10,2); 5% NULLs) in every codec Hive's writer has here,
#    Hive's serde mode against `colfile scan --threads 1`.
# Prints one JSON line per measurement and a table; results in target/interop/bench/results.jsonl.
# Files go to target/interop/bench/ (about 0.8 GB at peak; the data files are deleted afterwards).
# Takes about 2 minutes on 2 cores (more on a loaded machine: compare runs made at low load).
# Env as for interop/rcfile.sh (RCORACLE_DIR, RCORACLE_BUILD, PYTHON, INTEROP_SKIP_BUILD).
set -euo pipefail
# shellcheck source=interop/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   # builds rcoracle and colfile if needed
WORK="$ROOT/target/interop/bench"
rm -rf "$WORK"
mkdir -p "$WORK"
echo "# machine: $(nproc) cores, $(uname -sr)"
"$PY" "$ROOT/interop/bench.py" --colfile "$COLFILE" --rcoracle "$ORACLE" --work "$WORK" "$@"
# keep the results and specs, drop the data files unless --keep
case " $* " in
  *" --keep "*) ;;
  *) rm -f "$WORK"/*.rc ;;
esac
