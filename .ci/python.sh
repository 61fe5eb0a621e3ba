#!/usr/bin/env bash
# The Python package: builds colfile-python's wheel into a virtual environment
# (target/py-venv, as a user would: `pip install ./colfile-python`) beside pytest, pandas and
# the official tsfile 2.5.0 package, then runs colfile-python/tests. Run from the
# repository root after interop/rcfile.sh (whose Hive oracle build, target/rcoracle, the
# RCFile write test uses) with COLFILE_MOTO_SERVER set (the S3 tests start that server).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/target/py-venv"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check pytest pandas "pyarrow>=17" tsfile==2.5.0
# The tests check values, not speed: maturin builds the wheel in the dev profile, which
# reuses the dependencies `cargo test` already compiled (under a minute, against ~4.5 for an
# optimised build). The wheel a user builds keeps the release profile; the benchmark uses that.
MATURIN_PEP517_ARGS="--profile dev" \
  "$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./colfile-python
"$VENV/bin/python" -c 'import colfile; print("colfile", colfile.__version__, "from", colfile.__file__)'
cd "$ROOT/colfile-python"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests
