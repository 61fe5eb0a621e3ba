"""colfile's Python package against the official ``tsfile`` 2.5.0 package, side by side.

Reads and writes the same IoT-shaped table (tags ``region``, ``device_id``; fields INT64,
DOUBLE, FLOAT, INT32, BOOLEAN, STRING; ``--devices`` devices, times in steps of one second,
device-major batches of 100,000 rows) and reports rows per second, the ratio colfile /
official and each side's peak memory. Every measurement runs in a fresh process (with one
OpenBLAS thread: numpy's idle threads would otherwise spin on the cores), so the
peak (``ru_maxrss``) is that operation's; "extra" is the peak above the process's
resident size just before the timed call (data generated, modules imported).

    python colfile-python/bench/bench.py [--rows 1000000] [--devices 1000] [--repeat 3]

Reads: the file the official writer wrote, read whole into Arrow by each side (official:
``query_table`` of every column, ``read_arrow_batch`` until the end; colfile:
``read_tsfile``). Writes: the same pyarrow table (official: ``TsFileWriter`` +
``write_arrow_batch`` per batch; colfile: ``write_tsfile``), default encodings, LZ4.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

FIELDS = [("s_i64", "INT64"), ("s_f64", "DOUBLE"), ("s_f32", "FLOAT"), ("s_i32", "INT32"),
          ("s_bool", "BOOLEAN"), ("s_str", "STRING")]
BATCH_ROWS = 100_000


def make_batches(rows, devices):
    """Device-major batches: each batch holds the next few times of every device."""
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(2026)
    names = [(f"r{i % 10:02d}", f"d{i:05d}") for i in range(devices)]
    regions = pa.array([r for r, _ in names])
    ids = pa.array([d for _, d in names])
    words = pa.array(["OK", "WARN", "ERR", "IDLE", "RUN"])
    per = max(1, BATCH_ROWS // devices)
    done, step, out = 0, 0, []
    while done < rows:
        k = min(per, -(-(rows - done) // devices))
        dev = np.repeat(np.arange(devices), k)
        tick = np.tile(np.arange(step, step + k), devices)
        n = len(dev)
        b = pa.table({
            "time": pa.array(1_700_000_000_000 + tick * 1000, pa.int64()),
            "region": regions.take(pa.array(dev)),
            "device_id": ids.take(pa.array(dev)),
            "s_i64": pa.array(tick + dev * 1_000_000, pa.int64()),
            "s_f64": pa.array(np.round(20 + rng.standard_normal(n), 2)),
            "s_f32": pa.array((50 + rng.standard_normal(n)).astype("float32")),
            "s_i32": pa.array(rng.integers(0, 100, n).astype("int32")),
            "s_bool": pa.array(rng.random(n) < 0.5),
            "s_str": words.take(pa.array(rng.integers(0, 5, n))),
        })
        if done + b.num_rows > rows:
            b = b.slice(0, rows - done)
        out.append(b)
        done += b.num_rows
        step += k
    return out


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(mode, path, rows, devices):
    """One timed operation; prints {"seconds", "rows", "peak_mb", "extra_mb"}."""
    import pyarrow as pa
    import tsfile as ts

    import colfile

    batches = make_batches(rows, devices) if mode.startswith("write") else None
    table = pa.concat_tables(batches) if batches else None
    before = rss_bytes()
    start = time.perf_counter()
    if mode == "write_official":
        cols = [ts.ColumnSchema("region", ts.TSDataType.STRING, ts.ColumnCategory.TAG),
                ts.ColumnSchema("device_id", ts.TSDataType.STRING, ts.ColumnCategory.TAG)]
        cols += [ts.ColumnSchema(n, getattr(ts.TSDataType, t), ts.ColumnCategory.FIELD)
                 for n, t in FIELDS]
        w = ts.TsFileWriter(path)
        w.register_table(ts.TableSchema("iot", cols))
        for b in batches:
            w.write_arrow_batch("iot", b, 0)
        w.close()
        n = table.num_rows
    elif mode == "write_colfile":
        n = colfile.write_tsfile(path, table, table="iot", tags=["region", "device_id"])["rows"]
    elif mode == "read_official":
        n = 0
        parts = []
        with ts.TsFileReader(path) as r:
            rs = r.query_table("iot", ["region", "device_id"] + [f for f, _ in FIELDS],
                               batch_size=65536)
            while (t := rs.read_arrow_batch()) is not None:
                parts.append(t)
                n += t.num_rows
            rs.close()
    elif mode == "read_colfile":
        n = colfile.read_tsfile(path).num_rows
    else:
        raise SystemExit(f"unknown mode {mode}")
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"seconds": seconds, "rows": n, "peak_mb": peak / 1e6,
                      "extra_mb": max(0, peak - before) / 1e6}))


def run(mode, path, rows, devices):
    # numpy (which makes the data) would leave OpenBLAS threads spinning on the cores the
    # timed call runs on; neither side uses BLAS.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--child", mode, "--path", path,
                          "--rows", str(rows), "--devices", str(devices)],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child")
    ap.add_argument("--path")
    a = ap.parse_args()
    rows = int(a.rows)
    if a.child:
        return child(a.child, a.path, rows, a.devices)

    import tsfile

    import colfile

    print(f"colfile {colfile.__version__} ({colfile._colfile.__file__}), tsfile "
          f"{getattr(tsfile, '__version__', '2.5.0')}, {rows:,} rows, {a.devices} devices, "
          f"{os.cpu_count()} cores, best of {a.repeat}")
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "official.tsfile")
        mine = os.path.join(tmp, "colfile.tsfile")
        results = {}
        # alternate the two sides so that drifts of the machine hit both
        for _ in range(a.repeat):
            for mode, path in [("write_official", ref), ("write_colfile", mine),
                               ("read_official", ref), ("read_colfile", ref)]:
                if mode.startswith("write") and os.path.exists(path):
                    os.remove(path)
                r = run(mode, path, rows, a.devices)
                assert r["rows"] == rows, (mode, r)
                best = results.get(mode)
                if best is None or r["seconds"] < best["seconds"]:
                    results[mode] = dict(r, bytes=os.path.getsize(path))
        print(f"{'operation':<16}{'seconds':>9}{'M rows/s':>10}{'peak MB':>9}{'extra MB':>10}"
              f"{'file MB':>9}")
        for mode, r in results.items():
            print(f"{mode:<16}{r['seconds']:>9.3f}{rows / r['seconds'] / 1e6:>10.2f}"
                  f"{r['peak_mb']:>9.0f}{r['extra_mb']:>10.0f}{r['bytes'] / 1e6:>9.1f}")
        for op in ["read", "write"]:
            o, c = results[f"{op}_official"], results[f"{op}_colfile"]
            print(f"{op}: colfile {o['seconds'] / c['seconds']:.1f}x the official rows/s, "
                  f"extra memory {c['extra_mb']:.0f} MB vs {o['extra_mb']:.0f} MB")
        # The two files hold the same rows.
        t1 = colfile.read_tsfile(ref)
        t2 = colfile.read_tsfile(mine)
        keys = [("region", "ascending"), ("device_id", "ascending"), ("time", "ascending")]
        assert t1.sort_by(keys).equals(t2.sort_by(keys)), "the two writers' files differ"


if __name__ == "__main__":
    main()
