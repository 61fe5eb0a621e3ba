"""Writing TsFiles from pyarrow and pandas: the official tsfile 2.5.0 package reads back
exactly the rows written, and colfile reads what the official writer writes."""

import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colfile

from conftest import assert_same_rows, official_table, raw, rows

ts = pytest.importorskip("tsfile")


def weather(n=2000, devices=5):
    rng = np.random.default_rng(7)
    city = [f"c{i % devices}" for i in range(n)]
    time = [1_700_000_000_000 + (i // devices) * 1000 for i in range(n)]
    temp = rng.normal(20, 5, n)
    temp[::11] = np.nan
    count = pa.array([None if i % 7 == 0 else i for i in range(n)], pa.int64())
    status = pa.array([None if i % 5 == 0 else f"s{i % 13}" for i in range(n)], pa.string())
    flag = pa.array([i % 3 == 0 for i in range(n)])
    return pa.table(
        {
            "time": pa.array(time, pa.int64()),
            "city": pa.array(city),
            "temp": pa.array(temp),
            "count": count,
            "status": status,
            "flag": flag,
            "small": pa.array([i % 100 for i in range(n)], pa.int16()),
        }
    )


@pytest.mark.parametrize("compression", [None, "SNAPPY", "ZSTD", "GZIP", "UNCOMPRESSED"])
def test_the_official_reader_reads_back_what_colfile_writes(tmp_path, compression):
    data = weather()
    path = tmp_path / "w.tsfile"
    summary = colfile.write_tsfile(
        path,
        data,
        table="weather",
        tags=["city"],
        compression=compression,
        encodings={"temp": "GORILLA", "count": "TS_2DIFF"},
    )
    assert summary["rows"] == data.num_rows and summary["bytes"] == os.path.getsize(path)
    assert summary["devices"] == 5
    want = official_table(path, "weather", ["city", "temp", "count", "status", "flag", "small"])
    mine = data.set_column(6, "small", data["small"].cast(pa.int32()))
    assert_same_rows(rows(raw(want), ["city", "time"]), rows(mine, ["city", "time"]))
    assert_same_rows(rows(raw(colfile.read_tsfile(path)).select(mine.column_names), ["city", "time"]),
                     rows(mine, ["city", "time"]))


def test_pandas_frames_and_record_batch_readers_write_like_tables(tmp_path):
    data = weather(300)
    frame = data.to_pandas()
    frame["time"] = pd.to_datetime(frame["time"], unit="ms")
    colfile.write_tsfile(tmp_path / "a.tsfile", frame, table="weather", tags=["city"])
    reader = pa.RecordBatchReader.from_batches(data.schema, data.to_batches(max_chunksize=64))
    colfile.write_tsfile(tmp_path / "b.tsfile", reader, table="weather", tags=["city"])
    a = colfile.read_tsfile(tmp_path / "a.tsfile")
    b = colfile.read_tsfile(tmp_path / "b.tsfile")
    # pandas' datetimes (any unit) are stored as milliseconds, as the integers were. (pandas
    # itself turns the nullable integers into floats and NaN into null.)
    for c in ["time", "city", "status", "flag", "small"]:
        assert a[c].equals(b[c]), c
    frame["time"] = frame["time"] + pd.Timedelta(microseconds=1)
    with pytest.raises(pa.ArrowInvalid):
        colfile.write_tsfile(tmp_path / "c.tsfile", frame, table="weather", tags=["city"])
    assert not (tmp_path / "c.tsfile").exists()


def test_colfile_reads_what_the_official_writer_writes(tmp_path):
    frame = weather(500).to_pandas()
    frame = frame.drop(columns=["small"])
    path = tmp_path / "official.tsfile"
    ts.dataframe_to_tsfile(frame, str(path), table_name="weather", tag_column=["city"])
    got = raw(colfile.read_tsfile(path))
    want = raw(official_table(path, "weather"))
    assert_same_rows(rows(got.select(want.column_names), ["city", "time"]),
                     rows(want, ["city", "time"]))
    assert got.num_rows == 500


def test_tree_model_writes_read_back(tmp_path):
    data = pa.table(
        {
            "device": ["root.sg.d1", "root.sg.d2", "root.sg.d1", "root.sg.d2"],
            "time": pa.array([1, 1, 2, 2], pa.int64()),
            "s1": pa.array([1.5, None, 2.5, 3.5]),
            "s2": pa.array([10, 20, None, 40], pa.int32()),
        }
    )
    colfile.write_tsfile(tmp_path / "t.tsfile", data)
    back = raw(colfile.read_tsfile(tmp_path / "t.tsfile")).select(data.column_names)
    assert sorted(back.to_pylist(), key=lambda r: (r["device"], r["time"])) == sorted(
        data.to_pylist(), key=lambda r: (r["device"], r["time"])
    )


def test_a_failed_write_leaves_no_file_and_says_why(tmp_path):
    bad = pa.table({"time": pa.array([2, 1], pa.int64()), "city": ["a", "a"], "v": [1.0, 2.0]})
    path = tmp_path / "bad.tsfile"
    with pytest.raises(colfile.ColfileError) as e:
        colfile.write_tsfile(path, bad, table="t", tags=["city"])
    assert "time" in str(e.value).lower()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(colfile.InvalidArgumentError):
        colfile.write_tsfile(path, bad, table="t", tags=["nope"])
    with pytest.raises(colfile.ColfileError):
        colfile.write_tsfile(path, bad.sort_by("time"), table="t", tags=["city"], compression="LZ77")
    with pytest.raises(TypeError):
        colfile.write_tsfile(path, [1, 2, 3], table="t")
    assert list(tmp_path.iterdir()) == []
