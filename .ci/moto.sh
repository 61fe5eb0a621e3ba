#!/usr/bin/env bash
# Installs PyPI's moto S3 server (moto[server]==5.2.5, the pin of colfile-testkit/src/s3.rs's
# MOTO_VERSION) into target/moto-venv unless a complete install is there, and prints its
# version. Idempotent; writes the same marker file as the tests' own installer, so either one
# reuses the other's venv. Prints the moto_server path on its last line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="$(sed -n 's/^pub const MOTO_VERSION: &str = "\(.*\)";$/\1/p' "$ROOT/colfile-testkit/src/s3.rs")"
[ -n "$VERSION" ] || { echo "moto.sh: MOTO_VERSION not found in colfile-testkit/src/s3.rs" >&2; exit 1; }
VENV="$ROOT/target/moto-venv"
MARKER="$VENV/.colfile-moto-$VERSION"

if [ ! -f "$MARKER" ] || [ ! -x "$VENV/bin/moto_server" ]; then
  mkdir -p "$ROOT/target"
  # the tests' installer takes the same lock directory
  until mkdir "$ROOT/target/moto-venv.lock" 2>/dev/null; do sleep 0.2; done
  trap 'rmdir "$ROOT/target/moto-venv.lock"' EXIT
  echo "moto.sh: installing moto[server]==$VERSION into $VENV" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "moto[server]==$VERSION"
  echo "moto[server]==$VERSION" > "$MARKER"
fi
echo "moto $("$VENV/bin/python" -c 'import moto; print(moto.__version__)')" >&2
echo "$VENV/bin/moto_server"
