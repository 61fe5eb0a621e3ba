"""RCFiles: every Hive-written fixture reads as Hive's own dump says, what colfile writes
reads back the same, and (when the Hive oracle is built) Hive reads what colfile writes."""

import datetime
import decimal
import json
import os
import pathlib
import subprocess

import numpy as np
import pyarrow as pa
import pytest

import colfile

from conftest import RCFILES, SHARED, same

# Fixtures of raw cells, or with no columns.
SKIP = {"raw_cells", "raw_zero_columns"}


def fixtures():
    for dump in sorted(RCFILES.glob("*.json")):
        if dump.name.endswith(".raw.json") or dump.stem in SKIP:
            continue
        d = json.loads(dump.read_text())
        if not isinstance(d, dict) or d.get("serde") not in ("binary", "text"):
            continue
        yield pytest.param(dump, id=dump.stem)


def schema_of(d):
    return ",".join(f"{c['name']}:{c['type']}" for c in d["columns"])


def canonical(v):
    """A pyarrow value in the form of rcoracle's dumps."""
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, datetime.datetime):
        text = v.strftime("%Y-%m-%d %H:%M:%S.%f").rstrip("0").rstrip(".")
        return text
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return v
    if isinstance(v, list):
        # maps arrive as lists of (key, value) tuples
        return [canonical(x) for x in v]
    if isinstance(v, tuple):
        return [canonical(x) for x in v]
    if isinstance(v, dict):
        return {k: canonical(x) for k, x in v.items()}
    return v


def expected(v, hive_type=""):
    if isinstance(v, dict) and v.keys() == {"tag", "value"}:
        return expected(v["value"])  # a uniontype: Arrow's union gives the value
    if isinstance(v, list):
        # nested values carry no type here: the dump's names for special floats
        return [float(x) if x in ("Infinity", "-Infinity", "NaN") else expected(x) for x in v]
    if isinstance(v, dict):
        return {k: expected(x) for k, x in v.items()}
    if isinstance(v, str) and hive_type == "timestamp" and "." in v:
        # read in microseconds (nanoseconds cannot hold year 9999): six digits at most
        head, frac = v.split(".")
        return (head + "." + frac[:6]).rstrip("0").rstrip(".")
    if isinstance(v, str) and hive_type.startswith("decimal"):
        return decimal.Decimal(v)
    if isinstance(v, str) and hive_type in ("float", "double"):
        v = float(v)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and hive_type == "float":
        # the dump prints a float's shortest text; Arrow holds the float32 itself
        return float(np.float32(v))
    return v


def read_rows(table, d):
    out = []
    types = [c["type"] for c in d["columns"]]
    for r in table.to_pylist():
        out.append([canonical(r[c["name"]]) for c in d["columns"]])
    want = [[expected(v, t) for v, t in zip(row, types)] for row in d["rows"]]
    return out, want


def _trim(text):
    text = text.replace("T", " ")
    return text.rstrip("0").rstrip(".") if "." in text else text


def timestamps_as_text(table):
    """Timestamps as text cast by Arrow (keeps nanoseconds, which Python datetimes cannot)."""
    cols = []
    for f, c in zip(table.schema, table.columns):
        if pa.types.is_timestamp(f.type):
            text = c.cast(pa.string()).to_pylist()
            c = pa.array([None if t is None else _trim(t) for t in text], pa.string())
        cols.append(c)
    return pa.table(cols, names=table.column_names)


@pytest.mark.parametrize("dump", list(fixtures()))
def test_every_fixture_reads_as_hive_dumped_it(dump):
    d = json.loads(dump.read_text())
    # Hive 2.3 (which wrote them) counts binary dates and timestamps in the hybrid calendar;
    # tables made with SERDEPROPERTIES give them.
    hybrid = dump.stem.startswith("calendar_hybrid") and d["serde"] == "binary"
    table = colfile.read_rcfile(
        RCFILES / d["file"], schema_of(d), serde=d["serde"], timestamp_unit="us",
        serde_properties=d.get("serde_properties"), calendar="hybrid" if hybrid else None,
    )
    assert table.num_rows == len(d["rows"])
    got, want = read_rows(timestamps_as_text(table), d)
    for i, (g, w) in enumerate(zip(got, want)):
        assert same(g, w), f"row {i}: {g} != {w}"


def test_projection_and_batches_agree_with_the_whole_read():
    path = RCFILES / "all_types_binary_snappy.rc"
    d = json.loads((RCFILES / "all_types_binary_snappy.json").read_text())
    whole = colfile.read_rcfile(path, schema_of(d), timestamp_unit="ms")
    part = colfile.read_rcfile(path, schema_of(d), columns=["s", "i"], limit=40)
    assert part.column_names == ["s", "i"] and part.num_rows == 40
    assert part.equals(whole.select(["s", "i"]).slice(0, 40))
    reader = colfile.read_rcfile_batches(path, schema_of(d), batch_size=10, timestamp_unit="ms")
    batches = list(reader)
    assert len(batches) > 1 and all(b.num_rows <= 10 for b in batches)
    assert same(pa.Table.from_batches(batches).to_pylist(), whole.to_pylist())
    frame = colfile.read_rcfile_pandas(path, schema_of(d), columns=["i"])
    assert frame["i"].notna().tolist() == whole["i"].is_valid().to_pylist()
    assert frame["i"].dropna().tolist() == [v for v in whole["i"].to_pylist() if v is not None]


@pytest.mark.parametrize("serde,codec", [("binary", None), ("binary", "snappy"),
                                         ("text", "gzip"), ("text", "zstd")])
def test_written_files_read_back_the_same(tmp_path, serde, codec):
    src = RCFILES / f"all_types_{serde}_none.rc"
    d = json.loads((RCFILES / f"all_types_{serde}_none.json").read_text())
    table = colfile.read_rcfile(src, schema_of(d), serde=serde, timestamp_unit="us")
    out = tmp_path / "out.rc"
    summary = colfile.write_rcfile(out, table, schema=schema_of(d), serde=serde, codec=codec)
    assert summary["rows"] == table.num_rows and summary["bytes"] == os.path.getsize(out)
    back = colfile.read_rcfile(out, schema_of(d), serde=serde, timestamp_unit="us")
    assert back.schema == table.schema
    assert same(back.to_pylist(), table.to_pylist())


def test_threads_do_not_change_the_file(tmp_path):
    # 40,000 rows of three columns: batches large enough to be encoded on several threads.
    n = 40_000
    t = pa.table({"id": pa.array(range(n), pa.int64()),
                  "name": [None if i % 11 == 0 else f"n{i * 7919 % 1000}" for i in range(n)],
                  "x": pa.array([i / 8 for i in range(n)], pa.float64())})
    one, four = tmp_path / "one.rc", tmp_path / "four.rc"
    colfile.write_rcfile(one, t, codec="lz4", threads=1)
    colfile.write_rcfile(four, t, codec="lz4", threads=4)
    a = np.frombuffer(one.read_bytes(), np.uint8)
    b = np.frombuffer(four.read_bytes(), np.uint8)
    assert len(a) == len(b)
    # The files differ only in their random 16-byte sync markers: every run of differing
    # bytes starts a copy of one same marker.
    starts, last = [], None
    for i in np.nonzero(a != b)[0]:
        if last is None or i - last >= 16:
            starts.append(int(i))
            last = i
    assert starts, "two files with the same sync marker"
    assert len({a[s:s + 16].tobytes() for s in starts}) == 1
    assert len({b[s:s + 16].tobytes() for s in starts}) == 1
    back = colfile.read_rcfile(four, "id:bigint,name:string,x:double")
    assert back.to_pylist() == t.to_pylist()
    with pytest.raises(colfile.InvalidArgumentError):
        colfile.write_rcfile(tmp_path / "bad.rc", t, threads=0)


def test_the_hive_schema_follows_the_arrow_types_when_not_given(tmp_path):
    t = pa.table({"id": pa.array([1, 2, None], pa.int32()), "name": ["a", None, "c"],
                  "tags": pa.array([["x"], [], None], pa.list_(pa.string()))})
    colfile.write_rcfile(tmp_path / "t.rc", t)
    back = colfile.read_rcfile(tmp_path / "t.rc", "id:int,name:string,tags:array<string>")
    assert back.to_pylist() == t.to_pylist()


def rcoracle():
    oracle = SHARED / "oracles" / "rcfile" / "rcoracle"
    build = pathlib.Path(os.environ.get("RCORACLE_BUILD", pathlib.Path(__file__).parents[2] / "target" / "rcoracle"))
    if not oracle.exists() or not (build / "rcoracle.jar").exists():
        return None
    return oracle, build


# Timestamps in nanoseconds (these fixtures' years fit); not `nested_binary`: a NULL
# uniontype has no Arrow form (dense unions carry no nulls) and comes back as a value.
@pytest.mark.parametrize("name", ["multi_group_binary_deflate", "multi_group_text",
                                  "wide_300_binary_snappy", "strings_text", "strings_binary"])
def test_hive_reads_what_colfile_writes(tmp_path, name):
    found = rcoracle()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("the Hive oracle is not built (interop/rcfile.sh builds it)")
        pytest.skip("the Hive oracle is not built (run interop/rcfile.sh)")
    oracle, build = found
    d = json.loads((RCFILES / f"{name}.json").read_text())
    table = colfile.read_rcfile(RCFILES / d["file"], schema_of(d), serde=d["serde"])
    out = tmp_path / "out.rc"
    colfile.write_rcfile(out, table, schema=schema_of(d), serde=d["serde"], codec="deflate")
    env = dict(os.environ, RCORACLE_BUILD=str(build))
    run = subprocess.run([str(oracle), "check", str(out), str(RCFILES / f"{name}.json"),
                          "--level", "values"], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_serde_properties_and_calendar_apply_to_writing_and_reading(tmp_path):
    props = {"colelction.delim": ",", "mapkey.delim": "=", "serialization.null.format": "NULL"}
    table = pa.table({
        "arr": pa.array([["a", "b"], None, []], pa.list_(pa.string())),
        "m": pa.array([[("k", "v")], [("x", None)], None], pa.map_(pa.string(), pa.string())),
    })
    schema = "arr:array<string>,m:map<string,string>"
    path = tmp_path / "props.rc"
    colfile.write_rcfile(path, table, schema, serde="text", serde_properties=props)
    back = colfile.read_rcfile(path, schema, serde="text", serde_properties=props)
    assert same(back.to_pylist(), table.to_pylist())
    # Hive's default delimiters read other values out of the same bytes.
    assert not same(colfile.read_rcfile(path, schema, serde="text").to_pylist(), table.to_pylist())

    old = pa.table({"d": pa.array([datetime.date(1000, 1, 1)], pa.date32())})
    hybrid, proleptic = tmp_path / "hybrid.rc", tmp_path / "proleptic.rc"
    colfile.write_rcfile(hybrid, old, "d:date", calendar="hybrid")
    colfile.write_rcfile(proleptic, old, "d:date")
    assert colfile.read_rcfile(hybrid, "d:date", calendar="hybrid").equals(old)
    assert colfile.read_rcfile(proleptic, "d:date").equals(old)
    # The two calendars count days before 1582 differently.
    assert not colfile.read_rcfile(hybrid, "d:date").equals(old)
    with pytest.raises(colfile.ColfileError):
        colfile.read_rcfile(path, schema, serde="text", calendar="hybrid")
