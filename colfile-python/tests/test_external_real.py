"""Python against the Rust command line on files no one here wrote
(../shared/fixtures/external/real: Java v4, IoTDB/C++ v3, pre-v1 TsFiles; Hive, HCatalog
and Impala RCFiles): the same row count where the command reads a file, and a located
ColfileError (never a crash) where it refuses one."""

import os
import subprocess
from pathlib import Path

import pytest

import colfile

from conftest import REPO, SHARED

REAL = SHARED / "fixtures" / "external" / "real"
# The command to compare with: COLFILE_CLI (.ci/run passes the debug build `cargo test`
# made), else the release build.
CLI = Path(os.environ.get("COLFILE_CLI") or REPO / "target" / "release" / "colfile")


# Files the command reads row by row but Arrow cannot hold as one table: a tree-model
# measurement with different types on different devices has no single column type.
ARROW_REFUSES = {"tsfile_java_v3TsFile": "measurement s1 is FLOAT in d1 but TEXT in d2"}


def cli_count(path):
    """`colfile count PATH` run by the command (skipped without it, outside CI)."""
    if not CLI.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CLI} is missing (.ci/run sets COLFILE_CLI to the debug build)")
        pytest.skip(f"no {CLI}")
    return subprocess.run([str(CLI), "count", str(path)], capture_output=True, text=True)


def cases():
    return sorted(REAL.glob("*.tsfile")) if REAL.exists() else []


@pytest.mark.parametrize("path", cases(), ids=lambda p: p.stem)
def test_real_tsfiles_read_as_the_command_reads_them(path):
    run = cli_count(path)
    if path.stem in ARROW_REFUSES:
        assert run.returncode == 0
        with pytest.raises(colfile.SchemaError) as e:
            colfile.read_tsfile(path)
        assert ARROW_REFUSES[path.stem] in str(e.value)
    elif run.returncode == 0:
        assert colfile.read_tsfile(path).num_rows == int(run.stdout.strip())
    else:
        with pytest.raises(colfile.ColfileError) as e:
            colfile.read_tsfile(path)
        assert e.value.file == str(path)


def rc_cases():
    if not REAL.exists():
        return []
    return sorted(p for p in REAL.iterdir() if p.suffix in (".rc", ".rcfile"))


@pytest.mark.parametrize("path", rc_cases(), ids=lambda p: p.stem)
def test_real_rcfiles_count_as_the_command_counts_them(path):
    run = cli_count(path)
    # One text column reads every row whatever the file's columns are (cells are not
    # decoded past the first column).
    if run.returncode == 0:
        assert colfile.read_rcfile(path, "a:string", serde="text").num_rows == int(run.stdout)
    else:
        with pytest.raises(colfile.ColfileError) as e:
            colfile.read_rcfile(path, "a:string", serde="text")
        assert e.value.file == str(path)
