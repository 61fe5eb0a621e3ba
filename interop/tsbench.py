#!/usr/bin/env python3
"""Side-by-side TsFile benchmark: colfile against the official library (tsoracle.py on PyPI
tsfile 2.5.0, C++ inside). Run through interop/tsbench.sh. Not part of CI (too slow, too noisy).

1. The official writer makes the IoT table (`tsoracle.py benchwrite N --keep`: 2 STRING tags,
   INT64/DOUBLE/FLOAT/INT32/BOOLEAN/STRING fields, default encodings, LZ4, 1000 devices); its
   write time (incl. close, data generation excluded) is the best of --runs runs.
2. Read: `colfile scan F` (every value decoded; best of --runs of the in-process seconds it reports,
   wall time reported too) vs `tsoracle.py bench F --mode arrow --repeat N` (query_table +
   read_arrow_batch of every row and column).
3. Write: the same rows, exported once with `colfile cat F --format dump` and converted to
   JSON-lines rows [time, region, device_id, fields...] (untimed), written by
   `colfile write --format tsfile --table iot --schema ...` with the benchwrite settings; best of
   --runs wall times (this includes colfile's JSON parsing of the input, which the official
   writer does not pay: it is fed Arrow batches). The official reader then reads colfile's file
   (row count checked, and its read speed reported).
3a. CSV ingest: the same rows as CSV (untimed), written by `colfile convert rows.csv out.tsfile
   --schema time:INT64:TIME,... --table iot`; best of --runs wall times (CSV and JSON parsing
   included).
3c. RCFile ingest: the same JSON lines and CSV into an RCFile of the same columns as Hive types
   (binary serde, no codec): `colfile write` and `colfile convert`, best of --runs wall times,
   compared with the official TsFile writer's rows/s (there is no official JSON or CSV ingest).

Prints one JSON line per measurement and a final JSON line with rows/s of both and the ratios
(colfile / official: > 1 means colfile is faster).
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

SCHEMA = ("region:STRING:TAG,device_id:STRING:TAG,s_i64:INT64:FIELD:TS_2DIFF:LZ4,"
          "s_f64:DOUBLE:FIELD:GORILLA:LZ4,s_f32:FLOAT:FIELD:GORILLA:LZ4,s_i32:INT32:FIELD:TS_2DIFF:LZ4,"
          "s_bool:BOOLEAN:FIELD:PLAIN:LZ4,s_str:STRING:FIELD:PLAIN:LZ4")
FIELDS = ["s_i64", "s_f64", "s_f32", "s_i32", "s_bool", "s_str"]
# The same columns as Hive types, for the RCFile ingest measurements (3c).
HIVE_SCHEMA = ("time bigint, region string, device_id string, s_i64 bigint, s_f64 double, "
               "s_f32 float, s_i32 int, s_bool boolean, s_str string")


def csv_cell(v):
    """A JSON value as a CSV cell `colfile convert` reads back as it: empty for null."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def run(argv, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kw)
    if p.returncode != 0:
        sys.exit(f"tsbench: {' '.join(argv)} failed (exit {p.returncode}): {p.stderr.strip()[-2000:]}")
    return p.stdout


def emit(rec):
    print(json.dumps(rec), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--colfile", required=True)
    ap.add_argument("--oracle-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--rows", default="1e6")
    ap.add_argument("--devices", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    tso = [a.python, os.path.join(a.oracle_dir, "tsoracle.py")]
    os.makedirs(a.work, exist_ok=True)
    f_off = os.path.join(a.work, "official.tsfile")
    f_ours = os.path.join(a.work, "colfile.tsfile")
    rows_jsonl = os.path.join(a.work, "rows.jsonl")

    # 1. the official writer
    writes = []
    for i in range(a.runs):
        out = f_off if i == 0 else os.path.join(a.work, f"official.{i}.tsfile")
        argv = tso + ["benchwrite", a.rows, "--devices", str(a.devices), "--out", out]
        if i == 0:
            argv.append("--keep")
        r = json.loads(run(argv))
        writes.append(r)
        emit({"measure": "official_write", "run": i, "rows": r["rows"], "total_s": r["total_s"],
              "rows_per_s": r["rows_per_s"], "bytes": r["bytes"]})
    n_rows = writes[0]["rows"]
    off_write_s = min(w["total_s"] for w in writes)

    # 2. reads of the official file
    scans = []
    for i in range(a.runs):
        t0 = time.perf_counter()
        s = json.loads(run([a.colfile, "scan", f_off]).strip().splitlines()[-1])
        wall = time.perf_counter() - t0
        scans.append((s["seconds"], wall, s))
        emit({"measure": "colfile_scan", "run": i, "rows": s["rows"], "values": s.get("values"),
              "seconds": s["seconds"], "wall_s": round(wall, 4)})
    if scans[0][2]["rows"] != n_rows:
        sys.exit(f"tsbench: colfile scan counted {scans[0][2]['rows']} rows, the official writer wrote {n_rows}")
    ours_read_s = min(x[0] for x in scans)
    ours_read_wall = min(x[1] for x in scans)
    b = json.loads(run(tso + ["bench", f_off, "--mode", "arrow", "--repeat", str(a.runs)]))["arrow"]
    emit({"measure": "official_read_arrow", "rows": b["rows"], "best_s": b["best_s"], "all_s": b["all_s"],
          "rows_per_s": b["rows_per_s"]})

    # 3. colfile writes the same rows (export untimed)
    t0 = time.perf_counter()
    dump = os.path.join(a.work, "official.dump.jsonl")
    with open(dump, "wb") as f:
        p = subprocess.run([a.colfile, "cat", f_off, "--format", "dump"], stdout=f, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        sys.exit(f"tsbench: colfile cat {f_off} --format dump failed (exit {p.returncode})")
    n = 0
    with open(dump, encoding="utf-8") as src, open(rows_jsonl, "w", encoding="utf-8") as dst:
        for line in src:
            d = json.loads(line)
            if d.get("kind") != "row":
                continue
            t, fl = d["tags"], d["fields"]
            dst.write(json.dumps([d["time"], t["region"], t["device_id"]] + [fl[k] for k in FIELDS],
                                 ensure_ascii=False, separators=(",", ":")) + "\n")
            n += 1
    os.remove(dump)
    emit({"measure": "export_untimed", "rows": n, "seconds": round(time.perf_counter() - t0, 2),
          "jsonl_bytes": os.path.getsize(rows_jsonl)})
    ours_writes = []
    for i in range(a.runs):
        if os.path.exists(f_ours):
            os.remove(f_ours)
        t0 = time.perf_counter()
        run([a.colfile, "write", f_ours, "--format", "tsfile", "--table", "iot", "--schema", SCHEMA,
             "--input", rows_jsonl])
        wall = time.perf_counter() - t0
        ours_writes.append(wall)
        emit({"measure": "colfile_write", "run": i, "rows": n, "wall_s": round(wall, 4),
              "bytes": os.path.getsize(f_ours)})
    ours_write_s = min(ours_writes)
    # 3a. the same rows as CSV (written untimed from the JSON lines), through
    # `colfile convert rows.csv out.tsfile --schema time:INT64:TIME,... --table iot`.
    rows_csv = os.path.join(a.work, "rows.csv")
    with open(rows_jsonl, encoding="utf-8") as src, open(rows_csv, "w", encoding="utf-8", newline="") as dst:
        w = csv.writer(dst, lineterminator="\n")
        w.writerow(["time", "region", "device_id"] + FIELDS)
        for line in src:
            w.writerow([csv_cell(v) for v in json.loads(line)])
    f_csv = os.path.join(a.work, "colfile_csv.tsfile")
    csv_writes = []
    for i in range(a.runs):
        if os.path.exists(f_csv):
            os.remove(f_csv)
        t0 = time.perf_counter()
        run([a.colfile, "convert", rows_csv, f_csv, "--schema", "time:INT64:TIME," + SCHEMA, "--table", "iot"])
        wall = time.perf_counter() - t0
        csv_writes.append(wall)
        emit({"measure": "colfile_convert_csv", "run": i, "rows": n, "wall_s": round(wall, 4),
              "bytes": os.path.getsize(f_csv)})
    if os.path.getsize(f_csv) != os.path.getsize(f_ours):
        sys.exit("tsbench: the CSV input wrote another file than the JSON lines")
    csv_write_s = min(csv_writes)
    # 3c. the same rows into an RCFile (binary serde, no codec): JSON lines through `write`,
    # CSV through `convert`, each checked for its row count.
    def rc_ingest(measure, argv, out):
        best = None
        for i in range(a.runs):
            if os.path.exists(out):
                os.remove(out)
            t0 = time.perf_counter()
            got = json.loads(run(argv).strip().splitlines()[-1])
            wall = time.perf_counter() - t0
            if got["rows"] != n:
                sys.exit(f"tsbench: {measure} wrote {got['rows']} rows, expected {n}")
            emit({"measure": measure, "run": i, "rows": n, "wall_s": round(wall, 4),
                  "bytes": os.path.getsize(out)})
            best = wall if best is None else min(best, wall)
        return best
    f_rc = os.path.join(a.work, "colfile.rc")
    rc_json_s = rc_ingest("colfile_write_rcfile", [a.colfile, "write", f_rc, "--schema", HIVE_SCHEMA,
                                                   "--input", rows_jsonl], f_rc)
    rc_csv_s = rc_ingest("colfile_convert_csv_rcfile", [a.colfile, "convert", rows_csv, f_rc,
                                                        "--schema", HIVE_SCHEMA], f_rc)
    # 3b. colfile writes the same table from columnar batches (the official writer is fed
    # Arrow batches): `write --from` reads the official file and times only the writer.
    batch_writes = []
    f_batch = os.path.join(a.work, "colfile_batches.tsfile")
    for i in range(a.runs):
        line = run([a.colfile, "write", f_batch, "--format", "tsfile", "--from", f_off]).strip().splitlines()[-1]
        w = json.loads(line)["write_seconds"]
        batch_writes.append(w)
        emit({"measure": "colfile_write_batches", "run": i, "rows": n_rows, "write_s": w,
              "bytes": os.path.getsize(f_batch)})
    batch_write_s = min(batch_writes)
    bo = json.loads(run(tso + ["bench", f_ours, "--mode", "arrow", "--repeat", "1"]))["arrow"]
    emit({"measure": "official_read_of_colfile_file", "rows": bo["rows"], "best_s": bo["best_s"],
          "rows_per_s": bo["rows_per_s"]})
    if bo["rows"] != n_rows:
        sys.exit(f"tsbench: the official reader read {bo['rows']} rows from colfile's file, expected {n_rows}")

    res = {
        "rows": n_rows, "devices": a.devices, "official_bytes": writes[0]["bytes"],
        "colfile_bytes": os.path.getsize(f_ours),
        "read": {"colfile_rows_per_s": round(n_rows / ours_read_s),
                 "colfile_wall_rows_per_s": round(n_rows / ours_read_wall),
                 "official_arrow_rows_per_s": b["rows_per_s"],
                 "ratio": round(n_rows / ours_read_s / b["rows_per_s"], 2),
                 "ratio_wall": round(n_rows / ours_read_wall / b["rows_per_s"], 2)},
        "write": {"colfile_jsonl_rows_per_s": round(n_rows / ours_write_s),
                  "colfile_batches_rows_per_s": round(n_rows / batch_write_s),
                  "colfile_csv_rows_per_s": round(n_rows / csv_write_s),
                  "official_rows_per_s": round(n_rows / off_write_s),
                  "ratio_jsonl": round(off_write_s / ours_write_s, 2),
                  "ratio_csv": round(off_write_s / csv_write_s, 2),
                  "ratio_batches": round(off_write_s / batch_write_s, 2)},
        "rcfile_ingest": {"jsonl_rows_per_s": round(n_rows / rc_json_s),
                          "csv_rows_per_s": round(n_rows / rc_csv_s),
                          "ratio_jsonl": round(off_write_s / rc_json_s, 2),
                          "ratio_csv": round(off_write_s / rc_csv_s, 2)},
    }
    print(json.dumps(res, separators=(",", ":")), flush=True)
    if not a.keep:
        for fn in os.listdir(a.work):
            if fn.endswith((".tsfile", ".rc")) or fn in ("rows.jsonl", "rows.csv"):
                os.remove(os.path.join(a.work, fn))


if __name__ == "__main__":
    main()
