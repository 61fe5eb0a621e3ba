# Shared setup for the interop scripts (sourced, not run). Sets ROOT, PY, ORACLE_DIR,
# RCORACLE_BUILD, ORACLE (the rcoracle launcher) and COLFILE, building what is missing:
#   * rcoracle from ../shared/oracles/rcfile beside the repository (read-only is fine: it builds
#     into target/rcoracle; its build.sh installs pyspark with pip if missing);
#   * colfile in release mode (INTEROP_SKIP_BUILD=1 uses target/release/colfile as it is;
#     COLFILE_CLI=path uses that binary and builds nothing: CI passes the debug build
#     `cargo test` made, since these checks are about bytes and values, not speed).
# Env: RCORACLE_DIR, RCORACLE_BUILD, PYTHON.
# INTEROP_NO_RCORACLE=1 (set by the TsFile scripts, which bring their own oracle) skips the
# rcoracle part: then only ROOT, PY and COLFILE are set.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PYTHONDONTWRITEBYTECODE=1
PY="${PYTHON:-python3}"

if [ "${INTEROP_NO_RCORACLE:-0}" != 1 ]; then
  ORACLE_DIR="${RCORACLE_DIR:-$ROOT/../shared/oracles/rcfile}"
  export RCORACLE_BUILD="${RCORACLE_BUILD:-$ROOT/target/rcoracle}"
  ORACLE="$ORACLE_DIR/rcoracle"

  if [ ! -x "$ORACLE" ]; then
    echo "interop: rcoracle not found at $ORACLE_DIR (expected ../shared/oracles/rcfile beside the repo)" >&2
    exit 2
  fi

  # the oracle: (re)build when missing, unusable, or older than its source
  _oracle_ok() {
    [ -f "$RCORACLE_BUILD/classpath" ] && [ -f "$RCORACLE_BUILD/rcoracle.jar" ] &&
      [ ! "$ORACLE_DIR/src/RcOracle.java" -nt "$RCORACLE_BUILD/rcoracle.jar" ] &&
      "$ORACLE" version >/dev/null 2>&1
  }
  if ! _oracle_ok; then
    echo "interop: building rcoracle into ${RCORACLE_BUILD#"$ROOT"/}" >&2
    mkdir -p "$(dirname "$RCORACLE_BUILD")"
    PYTHON="$PY" "$ORACLE_DIR/build.sh"
  fi
  echo "# oracle: $("$ORACLE" version)"
fi

if [ -n "${COLFILE_CLI:-}" ]; then
  COLFILE="$COLFILE_CLI"
else
  if [ "${INTEROP_SKIP_BUILD:-0}" != 1 ]; then
    cargo build --release --quiet --bin colfile
  fi
  COLFILE="$ROOT/target/release/colfile"
fi
[ -x "$COLFILE" ] || { echo "interop: $COLFILE missing" >&2; exit 2; }
echo "# colfile: $("$COLFILE" --version) at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet HEAD -- src colfile-cli Cargo.toml 2>/dev/null || echo ' (+ uncommitted changes)')"
