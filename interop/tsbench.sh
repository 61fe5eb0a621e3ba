#!/usr/bin/env bash
# Side-by-side TsFile benchmark of colfile against the official library (not part of CI: it takes
# a minute or two and the numbers are only meaningful on a quiet machine).
#
#   bash interop/tsbench.sh [--rows 1e6] [--devices 1000] [--runs 3] [--keep]
#
# The official writer makes an IoT table (`tsoracle.py benchwrite 1e6`: 1M rows, 1000 devices,
# 2 STRING tags + 6 fields, default encodings, LZ4). Read: `colfile scan` (best of 3) vs
# `tsoracle.py bench --mode arrow --repeat 3`. Write: the same rows, exported once with
# `colfile cat` (untimed) and written by `colfile write --format tsfile --table iot --schema ...`
# (best of 3 wall times, JSON parsing included) vs the official write time (best of 3, Arrow
# input). The official reader checks colfile's file. Prints one JSON line per measurement, then
# one line with rows/s of both and the ratios (colfile / official; > 1 = colfile faster).
# Files go to target/interop/tsbench/ (about 100 MB at peak; deleted unless --keep).
# Env as for interop/tsfile.sh (TSORACLE_DIR, PYTHON, INTEROP_SKIP_BUILD).
set -euo pipefail
TSFILE_SETUP_ONLY=1
# shellcheck source=interop/tsfile.sh
source "$(dirname "${BASH_SOURCE[0]}")/tsfile.sh"   # installs tsfile, builds colfile; sets ROOT, PY, COLFILE, TSORACLE_DIR
WORK="$ROOT/target/interop/tsbench"
rm -rf "$WORK"
mkdir -p "$WORK"
echo "# machine: $(nproc) cores, $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
exec "$PY" "$ROOT/interop/tsbench.py" --colfile "$COLFILE" --oracle-dir "$TSORACLE_DIR" --python "$PY" \
  --work "$WORK" "$@"
