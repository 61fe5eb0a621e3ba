"""Reading TsFiles: colfile's tables against the official tsfile 2.5.0 package's reading of
the same files (every table of every reference-written fixture), and the query options."""

import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import colfile
from colfile.tsfile import TsFileReader, to_dataframe

from conftest import TSFILES, assert_same_rows, official_table, raw, rows

ts = pytest.importorskip("tsfile")

# Where colfile deliberately reads as the Java library does and the C++ one differs (see
# tests/tsfile_fixtures.rs): SPRINTZ INT64 prediction overflow.
JAVA_READING = {("enc_sprintz", "v_int64")}


def table_cases():
    for path in sorted(TSFILES.glob("*.tsfile")):
        try:
            with ts.TsFileReader(str(path)) as r:
                tables = list(r.get_all_table_schemas())
        except Exception:  # the official reader cannot open it: nothing to compare with
            continue
        for t in tables:
            yield pytest.param(path, t, id=f"{path.stem}:{t}")


@pytest.mark.parametrize("path,table", list(table_cases()))
def test_every_fixture_table_reads_as_the_official_package_reads_it(path, table):
    try:
        want = official_table(path, table)
    except Exception as e:  # the C++ reader fails on some encodings it wrote
        pytest.skip(f"official reader fails: {e}")
    got = colfile.read_tsfile(path, table=table)
    if want is None:
        assert got.num_rows == 0
        return
    assert got.column_names[0] == "time"
    names = [n for n in want.column_names if (path.stem, n) not in JAVA_READING]
    got, want = raw(got).select(names), raw(want).select(names)
    order = [f.name for f in got.schema if f.metadata and f.metadata.get(b"tsfile.category") == b"TAG"]
    assert_same_rows(rows(got, order + ["time"]), rows(want, order + ["time"]))


def test_query_options_match_the_official_query():
    path = TSFILES / "many_devices.tsfile"
    table = colfile.read_tsfile(path)
    tags = [f.name for f in table.schema if f.metadata.get(b"tsfile.category") == b"TAG"]
    fields = [n for n in table.column_names if n != "time" and n not in tags]
    times = sorted(set(table["time"].cast(pa.int64()).to_pylist()))
    start, end = times[len(times) // 4], times[3 * len(times) // 4]
    value = table[tags[0]][0].as_py()
    got = colfile.read_tsfile(
        path, columns=[tags[0], fields[0]], start=start, end=end, tag_filter={tags[0]: value}
    )
    want = official_table(
        path,
        "fleet",
        [tags[0], fields[0]],
        start_time=start,
        end_time=end,
        tag_filter=ts.tag_filter.tag_eq(tags[0], value) if hasattr(ts, "tag_filter") else None,
    )
    assert got.num_rows > 0
    assert got.column_names == ["time", tags[0], fields[0]]
    assert_same_rows(rows(raw(got), ["time"]), rows(raw(want), ["time"]))
    times = got["time"].cast(pa.int64())
    assert pc.min(times).as_py() >= start and pc.max(times).as_py() <= end
    assert set(got[tags[0]].to_pylist()) == {value}


def test_tag_filter_forms_agree():
    path = TSFILES / "many_devices.tsfile"
    table = colfile.read_tsfile(path)
    tag = next(f.name for f in table.schema if f.metadata.get(b"tsfile.category") == b"TAG")
    value = table[tag][0].as_py()
    by_dict = colfile.read_tsfile(path, tag_filter={tag: value})
    by_text = colfile.read_tsfile(path, tag_filter=f"{tag} = '{value}'")
    from tsfile.tag_filter import tag_eq, tag_neq

    by_official = colfile.read_tsfile(path, tag_filter=tag_eq(tag, value))
    negated = colfile.read_tsfile(path, tag_filter=tag_neq(tag, value))
    assert by_dict.equals(by_text) and by_dict.equals(by_official)
    assert 0 < by_dict.num_rows < table.num_rows
    assert by_dict.num_rows + negated.num_rows == table.num_rows
    both = colfile.read_tsfile(path, tag_filter=tag_eq(tag, value) | tag_neq(tag, value))
    assert both.num_rows == table.num_rows


def test_batches_stream_the_same_rows_and_stop_at_the_limit():
    path = TSFILES / "default_multipage.tsfile"
    whole = colfile.read_tsfile(path)
    reader = colfile.read_tsfile_batches(path, batch_size=1000)
    assert isinstance(reader, pa.RecordBatchReader)
    batches = list(reader)
    assert all(b.num_rows <= 1000 for b in batches) and len(batches) > 1
    assert pa.Table.from_batches(batches).equals(whole)
    assert colfile.read_tsfile(path, limit=1234).equals(whole.slice(0, 1234))


def test_a_directory_reads_its_files_in_name_order_and_the_limit_spans_them(tmp_path):
    src = TSFILES / "many_devices.tsfile"
    for name in ["b.tsfile", "a.tsfile", "_SUCCESS", ".hidden.tsfile", "notes.txt"]:
        shutil.copy(src, tmp_path / name)
    one = colfile.read_tsfile(src)
    both = colfile.read_tsfile(tmp_path)
    assert both.num_rows == 2 * one.num_rows
    assert both.slice(one.num_rows).equals(one)
    limited = colfile.read_tsfile(tmp_path, limit=one.num_rows + 5)
    assert limited.num_rows == one.num_rows + 5


def test_files_of_different_columns_in_a_directory_are_an_error_naming_the_file(tmp_path):
    shutil.copy(TSFILES / "many_devices.tsfile", tmp_path / "a.tsfile")
    shutil.copy(TSFILES / "basic.tsfile", tmp_path / "b.tsfile")
    with pytest.raises(colfile.SchemaError) as e:
        colfile.read_tsfile(tmp_path)
    assert "b.tsfile" in str(e.value)


def test_tree_model_files_read_as_the_official_dump_says():
    # The official package's Arrow tree query fails on this file; its row dump (made by
    # the oracle with the official reader) is the reference.
    import json

    path = TSFILES / "tree_basic.tsfile"
    got = colfile.read_tsfile(path)
    assert got.column_names[:2] == ["device", "time"]
    want = {}
    for line in (TSFILES / "tree_basic.expected.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["kind"] == "row":
            want[(r["device"], r["time"])] = r["fields"]
    mine = raw(got).to_pylist()
    assert len(mine) == len(want)
    for r in mine:
        fields = want[(r["device"], r["time"])]
        for name, value in fields.items():
            if isinstance(value, str) and got.schema.field(name).type == pa.binary():
                value = bytes.fromhex(value)
            assert r[name] == value or (value != value and r[name] != r[name]), (r, name)
    compat = colfile.tsfile.TsFileReader(path).query_table_on_tree(got.column_names[2:])
    back = pa.concat_tables(list(compat))
    assert back.num_rows == got.num_rows and back.schema.field("time").type == pa.int64()


def test_the_compatibility_module_answers_as_the_official_one():
    path = TSFILES / "basic.tsfile"
    want = ts.to_dataframe(str(path))
    got = to_dataframe(str(path))
    assert list(got.columns) == list(want.columns)
    assert [str(t) for t in got.dtypes] == [str(t) for t in want.dtypes]
    assert got["time"].tolist() == want["time"].tolist()
    for c in want.columns:
        assert [None if v != v else v for v in got[c].astype(object).where(got[c].notna(), None)] == [
            None if v != v else v for v in want[c].astype(object).where(want[c].notna(), None)
        ], c
    with TsFileReader(path) as r, ts.TsFileReader(str(path)) as o:
        assert list(r.get_all_table_schemas()) == list(o.get_all_table_schemas())
        mine = r.query_table("weather", ["city", "temp"], batch_size=3)
        theirs = o.query_table("weather", ["city", "temp"])
        n = 0
        while mine.next():
            assert theirs.next()
            assert mine.get_value_by_name("temp") == theirs.get_value_by_name("temp")
            assert mine.get_value_by_index(1) == theirs.get_value_by_index(1)
            n += 1
        assert not theirs.next() and n == 10
        theirs.close()


# Not `strings` (the official frames cut text at a NUL byte) nor `types_all` (the official
# to_dataframe fails on it).
@pytest.mark.parametrize("name", ["basic", "nulls", "tags_nulls", "many_devices"])
def test_to_dataframe_gives_the_official_frame(name):
    path = str(TSFILES / f"{name}.tsfile")
    got, want = to_dataframe(path), ts.to_dataframe(path)
    keys = [c for c in want.columns if want[c].dtype == object][:2] + ["time"]
    got = got.sort_values(keys, kind="stable").reset_index(drop=True)
    want = want.sort_values(keys, kind="stable").reset_index(drop=True)
    assert got.equals(want)
