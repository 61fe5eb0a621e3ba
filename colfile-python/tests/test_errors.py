"""Failures: located exceptions of the right class for corrupt, truncated and missing files;
no crash on mutated files; the GIL released while reading."""

import errno
import random
import threading
import time

import pyarrow as pa
import pytest

import colfile

from conftest import RCFILES, TSFILES


def test_a_truncated_tsfile_is_a_corrupt_file_error_naming_file_and_offset(tmp_path):
    data = (TSFILES / "basic.tsfile").read_bytes()
    path = tmp_path / "cut.tsfile"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(colfile.CorruptFileError) as e:
        colfile.read_tsfile(path)
    err = e.value
    assert isinstance(err, ValueError) and isinstance(err, colfile.ColfileError)
    assert err.file == str(path) and err.offset is not None and err.kind in ("corrupt", "truncated")
    assert str(path) in str(err)


def test_a_damaged_page_names_its_chunk_and_page(tmp_path):
    data = bytearray((TSFILES / "comp_uncompressed.tsfile").read_bytes())
    # overwrite the middle of the data area (chunk pages), not the index at the end
    for i in range(len(data) // 4, len(data) // 4 + 64):
        data[i] = 0xFF
    path = tmp_path / "damaged.tsfile"
    path.write_bytes(bytes(data))
    with pytest.raises(colfile.ColfileError) as e:
        colfile.read_tsfile(path)
    err = e.value
    assert err.file == str(path)
    assert err.chunk is not None or err.offset is not None, err


def test_a_damaged_rcfile_names_its_row_group(tmp_path):
    data = bytearray((RCFILES / "multi_group_binary_deflate.rc").read_bytes())
    cut = len(data) * 2 // 3
    path = tmp_path / "cut.rc"
    path.write_bytes(bytes(data[:cut]))
    import json

    d = json.loads((RCFILES / "multi_group_binary_deflate.json").read_text())
    schema = ",".join(f"{c['name']}:{c['type']}" for c in d["columns"])
    with pytest.raises(colfile.CorruptFileError) as e:
        colfile.read_rcfile(path, schema)
    assert e.value.file == str(path) and e.value.row_group is not None, e.value


def test_a_missing_file_is_an_os_error_with_its_errno(tmp_path):
    with pytest.raises(colfile.ColfileIOError) as e:
        colfile.read_tsfile(tmp_path / "nope.tsfile")
    assert isinstance(e.value, OSError) and e.value.errno == errno.ENOENT
    assert e.value.file == str(tmp_path / "nope.tsfile")


def test_bad_arguments_are_invalid_argument_errors():
    with pytest.raises(colfile.InvalidArgumentError):
        colfile.read_tsfile(TSFILES / "basic.tsfile", tag_filter="city = = 'x'")
    with pytest.raises(colfile.InvalidArgumentError):
        colfile.read_rcfile(RCFILES / "strings_text.rc", "s:string", serde="json")
    with pytest.raises(colfile.SchemaError):
        colfile.read_rcfile(RCFILES / "strings_text.rc", "s:notatype")
    with pytest.raises(colfile.ColfileError):
        colfile.read_tsfile(TSFILES / "basic.tsfile", columns=["no_such_column"])


def test_mutated_files_never_crash_the_interpreter(tmp_path):
    """Fuzzing-level guarantees through Python: every mutation reads or raises ColfileError."""
    rng = random.Random(20261206)
    cases = [(TSFILES / "multi_table.tsfile", None), (TSFILES / "enc_gorilla.tsfile", None),
             (RCFILES / "all_types_binary_snappy.rc", "binary"), (RCFILES / "nested_text.rc", "text")]
    import json

    read = errors = 0
    for path, serde in cases:
        data = path.read_bytes()
        schema = None
        if serde:
            d = json.loads(path.with_suffix(".json").read_text())
            schema = ",".join(f"{c['name']}:{c['type']}" for c in d["columns"])
        for _ in range(150):
            b = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(b))
                b[i] = rng.randrange(256) if rng.random() < 0.8 else b[i] ^ 0x80
            if rng.random() < 0.2:
                del b[rng.randrange(len(b)):]
            p = tmp_path / ("m" + path.suffix)
            p.write_bytes(bytes(b))
            try:
                if serde:
                    colfile.read_rcfile(p, schema, serde=serde)
                else:
                    colfile.read_tsfile(p)
                read += 1
            except colfile.ColfileError:
                errors += 1
    assert errors > 50 and read + errors == 600


def test_reads_release_the_gil(tmp_path):
    # A file big enough that reading it takes a while.
    n = 400_000
    table = pa.table({"time": pa.array(range(n), pa.int64()), "dev": ["d"] * n,
                      "v": pa.array([float(i) for i in range(n)])})
    path = tmp_path / "big.tsfile"
    colfile.write_tsfile(path, table, table="t", tags=["dev"])
    done = threading.Event()
    took = []

    def read():
        start = time.perf_counter()
        for _ in range(5):
            colfile.read_tsfile(path)
        took.append(time.perf_counter() - start)
        done.set()

    ticks = 0
    t = threading.Thread(target=read)
    t.start()
    while not done.is_set():
        ticks += 1  # pure Python work: runs only while the reader does not hold the GIL
    t.join()
    # Holding the GIL for a whole read would leave this thread about one switch interval
    # (5 ms) per batch; released, it runs the whole time.
    assert ticks > 100_000 * took[0], (ticks, took)
