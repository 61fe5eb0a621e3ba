"""Shared helpers of the colfile Python tests: where the fixtures are, the official
``tsfile`` package's reading of a table, and comparisons that treat NaN as equal to NaN."""

import math
import os
import pathlib

import pyarrow as pa
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
TSFILES = REPO / "fixtures" / "tsfile"
RCFILES = REPO / "fixtures" / "rcfile"
SHARED = REPO.parent / "shared"


def official_table(path, table, columns=None, **query):
    """The official package's rows of ``table`` (Arrow path), ``time`` first."""
    ts = pytest.importorskip("tsfile")
    with ts.TsFileReader(str(path)) as r:
        if columns is None:
            schema = r.get_all_table_schemas()[table]
            columns = [
                c.get_column_name()
                for c in schema.get_columns()
                if c.get_category().name in ("TAG", "FIELD")
            ]
        rs = r.query_table(table, list(columns), batch_size=4096, **query)
        parts = []
        try:
            while (t := rs.read_arrow_batch()) is not None:
                parts.append(t)
        finally:
            rs.close()
    if not parts:
        return None
    return pa.concat_tables(parts)


def raw(table):
    """Timestamps as their stored 64-bit values (the official package calls TIMESTAMP
    values nanoseconds, colfile milliseconds; the stored numbers are what must agree)."""
    cols = []
    for f, c in zip(table.schema, table.columns):
        if pa.types.is_timestamp(f.type):
            c = c.cast(pa.int64())
        cols.append(c)
    return pa.table(cols, names=table.column_names)


def rows(table, order=None):
    """The rows as tuples, sorted by ``order`` (column names) or left in order."""
    names = table.column_names
    data = table.to_pydict()
    out = [tuple(data[n][i] for n in names) for i in range(table.num_rows)]
    if order:
        idx = [names.index(o) for o in order]
        out.sort(key=lambda r: tuple((r[i] is None, r[i] if r[i] is not None else 0) for i in idx))
    return out


def same(a, b):
    """Values equal, NaN equal to NaN, -0.0 equal to 0.0 only where both are floats."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def assert_same_rows(got, want):
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert same(g, w), f"row {i}: {g!r} != {w!r}"


def moto_server():
    """The moto S3 server command set by .ci/run (COLFILE_MOTO_SERVER), else None."""
    return os.environ.get("COLFILE_MOTO_SERVER")
