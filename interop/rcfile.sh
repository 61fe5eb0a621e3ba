#!/usr/bin/env bash
# Live RCFile interoperability check of colfile against Hive 2.3's own RCFile code.
#
#   bash interop/rcfile.sh            build what is missing, run every case
#
# Both directions, with Hive's real RCFile.Writer/Reader and serdes driven by rcoracle
# (../shared/oracles/rcfile beside the repository):
#   hive-reads     colfile writes the rows of each fixture dump (and of this run's fresh files);
#                  Hive must read them back (`rcoracle check`, structure and values), and
#                  uncompressed files must equal Hive's byte for byte;
#   colfile-reads  Hive writes fresh random files (new seed each run) plus the checked-in
#                  fixtures; `colfile cat` must give Hive's rows, `colfile meta` Hive's structure.
# One line per case, then "N passed, N failed"; the exit status is non-zero if any case failed.
#
# Env: INTEROP_SEED (reuse a run's seed), RCORACLE_DIR (default ../shared/oracles/rcfile),
#      RCORACLE_BUILD (default target/rcoracle), PYTHON (default python3),
#      INTEROP_SKIP_BUILD=1 (use target/release/colfile as it is).
# Everything it writes goes under target/ (work files: target/interop/rcfile/).
set -euo pipefail
# shellcheck source=interop/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   # builds rcoracle and colfile if needed
WORK="$ROOT/target/interop/rcfile"

# the cases (two or three JVMs in all)
rm -rf "$WORK"
mkdir -p "$WORK"
SEED_ARGS=()
if [ -n "${INTEROP_SEED:-}" ]; then SEED_ARGS=(--seed "$INTEROP_SEED"); fi
exec "$PY" "$ROOT/interop/rcfile_interop.py" --colfile "$COLFILE" \
  --rcoracle "$ORACLE" --fixtures "$ROOT/fixtures/rcfile" --work "$WORK" ${SEED_ARGS[@]+"${SEED_ARGS[@]}"}
