#!/usr/bin/env bash
# Live TsFile interoperability check of colfile against the official Apache TsFile library.
#
#   bash interop/tsfile.sh            install/build what is missing, run every case
#
# The oracle is tsoracle.py (../shared/oracles/tsfile beside the repository, read-only is fine)
# on PyPI's tsfile==2.5.0 (Apache TsFile Python, a wrapper around the C++ library), installed
# with pip if `import tsfile` fails. Both directions (details in interop/tsfile_interop.py):
#   colfile-reads   every fixture in fixtures/tsfile: `colfile cat --format dump` must equal
#                   X.expected.jsonl (tsoracle compare), plus projected/time-ranged queries
#                   against the official reader's answers; and fresh random files the official
#                   writer made in this run (new seed each run);
#   official-reads  colfile writes every fixture spec (and this run's random specs); the
#                   official reader must read it to the same dump, tsraw (the oracle's
#                   independent byte-level parser) must find no error, and colfile must read
#                   its own file back. Byte identity with the official file is reported.
#   v3-convert      the real TsFile v3 files (../shared/fixtures/external/real) converted to v4
#                   by `colfile convert`: the official reader must read them as colfile does,
#                   with the rows colfile reads from the v3 original;
#   Fixtures that use an encoding/compression colfile does not support yet (taken from the
#   file itself) must be refused with a clear "unsupported" error: expected-unsupported cases.
# One line per case, then "N passed, N failed"; the exit status is non-zero if any case failed.
#
# Env: INTEROP_SEED (reuse a run's seed), TSORACLE_DIR (default ../shared/oracles/tsfile),
#      PYTHON (default python3), INTEROP_SKIP_BUILD=1 (use target/release/colfile as it is).
# Everything it writes goes under target/ (work files: target/interop/tsfile/). About a minute.
set -euo pipefail
INTEROP_NO_RCORACLE=1
# shellcheck source=interop/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"   # sets ROOT and PY, builds colfile
WORK="$ROOT/target/interop/tsfile"
TSORACLE_DIR="${TSORACLE_DIR:-$ROOT/../shared/oracles/tsfile}"
if [ ! -f "$TSORACLE_DIR/tsoracle.py" ]; then
  echo "interop: tsoracle.py not found in $TSORACLE_DIR (expected ../shared/oracles/tsfile beside the repo)" >&2
  exit 2
fi
TSORACLE_DIR="$(cd "$TSORACLE_DIR" && pwd)"

# the oracle's dependency: the official library from PyPI
TSFILE_VERSION=2.5.0
if ! "$PY" -c 'import tsfile' >/dev/null 2>&1; then
  echo "interop: installing tsfile==$TSFILE_VERSION from PyPI" >&2
  pip_args=(install --quiet "tsfile==$TSFILE_VERSION")
  # PEP 668: a distribution's system Python refuses pip outside a venv unless told otherwise
  if "$PY" - <<'PYEOF'
import os, sys, sysconfig
in_venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
sys.exit(0 if (not in_venv and os.path.exists(marker)) else 1)
PYEOF
  then
    pip_args+=(--break-system-packages)
  fi
  "$PY" -m pip "${pip_args[@]}"
  "$PY" -c 'import tsfile' || { echo "interop: tsfile still not importable after pip install" >&2; exit 2; }
fi
echo "# oracle: tsoracle.py on tsfile $("$PY" -c 'import importlib.metadata as m; print(m.version("tsfile"))' 2>/dev/null || echo '?') (Python $("$PY" -c 'import platform; print(platform.python_version())'))"

# interop/tsbench.sh sources this file for the setup above
if [ "${TSFILE_SETUP_ONLY:-0}" = 1 ]; then return 0; fi

rm -rf "$WORK"
mkdir -p "$WORK"
SEED_ARGS=()
if [ -n "${INTEROP_SEED:-}" ]; then SEED_ARGS=(--seed "$INTEROP_SEED"); fi
exec "$PY" "$ROOT/interop/tsfile_interop.py" --colfile "$COLFILE" --oracle-dir "$TSORACLE_DIR" \
  --python "$PY" --fixtures "$ROOT/fixtures/tsfile" --work "$WORK" ${SEED_ARGS[@]+"${SEED_ARGS[@]}"}
