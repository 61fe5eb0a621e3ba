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
export PYTHONDONTWRITEBYTECODE=1

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
ORACLE_DIR="${RCORACLE_DIR:-$ROOT/../shared/oracles/rcfile}"
export RCORACLE_BUILD="${RCORACLE_BUILD:-$ROOT/target/rcoracle}"
WORK="$ROOT/target/interop/rcfile"

if [ ! -x "$ORACLE_DIR/rcoracle" ]; then
  echo "interop: rcoracle not found at $ORACLE_DIR (expected ../shared/oracles/rcfile beside the repo)" >&2
  exit 2
fi

# 1. the oracle: rebuild when missing, unusable, or older than its source
oracle_ok() {
  [ -f "$RCORACLE_BUILD/classpath" ] && [ -f "$RCORACLE_BUILD/rcoracle.jar" ] &&
    [ ! "$ORACLE_DIR/src/RcOracle.java" -nt "$RCORACLE_BUILD/rcoracle.jar" ] &&
    "$ORACLE_DIR/rcoracle" version >/dev/null 2>&1
}
if ! oracle_ok; then
  echo "interop: building rcoracle into ${RCORACLE_BUILD#"$ROOT"/}" >&2
  mkdir -p "$(dirname "$RCORACLE_BUILD")"
  PYTHON="$PY" "$ORACLE_DIR/build.sh"
fi
echo "# oracle: $("$ORACLE_DIR/rcoracle" version)"

# 2. colfile
if [ "${INTEROP_SKIP_BUILD:-0}" != 1 ]; then
  cargo build --release --quiet --bin colfile
fi
COLFILE="$ROOT/target/release/colfile"
[ -x "$COLFILE" ] || { echo "interop: $COLFILE missing" >&2; exit 2; }
echo "# colfile: $("$COLFILE" --version) at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet HEAD -- src Cargo.toml 2>/dev/null || echo ' (+ uncommitted changes)')"

# 3. the cases (two JVMs in all)
rm -rf "$WORK"
mkdir -p "$WORK"
SEED_ARGS=()
if [ -n "${INTEROP_SEED:-}" ]; then SEED_ARGS=(--seed "$INTEROP_SEED"); fi
exec "$PY" "$ROOT/interop/rcfile_interop.py" --colfile "$COLFILE" \
  --rcoracle "$ORACLE_DIR/rcoracle" --fixtures "$ROOT/fixtures/rcfile" --work "$WORK" ${SEED_ARGS[@]+"${SEED_ARGS[@]}"}
