#!/usr/bin/env python3
"""Side-by-side RCFile write benchmark: `colfile write` against Hive 2.3's writer (rcoracle).

Run through interop/writebench.sh. The rows: issue 23's 500k-row, 7-column binary-serde table
(bigint, int, double, string, timestamp, boolean, decimal(10,2); 5% NULLs; short strings).

* Hive: `rcoracle write SPEC OUT` in one JVM (`rcoracle batch`), the same file written
  --warmup times, then --iters times; the time is what the oracle reports for each write:
  generating the rows (its seeded generator), `LazyBinaryColumnarSerDe.serialize` and
  `RCFile.Writer.append`/`close`. Median of the timed writes.
* colfile: the same rows as JSON lines (`colfile cat` of Hive's uncompressed file, made once),
  written by `colfile write --format rcfile --serde binary --codec C --input rows.jsonl`
  (parsed and serialized on one thread per core, compressed and written on another), a fresh
  process per run; median wall time of --runs runs after one warm-up run.
* colfile from Arrow: the same rows as an Arrow IPC file (`colfile convert` of Hive's file,
  made once), written by `colfile convert rows.arrow out.rc --serde binary --codec C`
  (`RcFileArrowWriter`: the batches' columns serialized on one thread per core), timed the
  same way: the counterpart of the TsFile benchmark's write from Arrow.

Each side thus includes making its rows (Hive generates them, colfile parses JSON lines or
reads Arrow batches), and the same codec over the same values. The uncompressed outputs are compared byte for byte
(both writers are given the same sync marker). Prints JSON lines, then a table; results in
target/interop/writebench/results.jsonl.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

from bench import SEVEN, SEVEN_CODECS as CODECS, spec  # the same rows as bench.py part 4

SYNC = "00112233445566778899aabbccddeeff"
SCHEMA = ",".join(f"{n}:{t}" for n, t in SEVEN)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--colfile", required=True)
    ap.add_argument("--rcoracle", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rows", type=int, default=500000)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--codecs", default=",".join(CODECS))
    a = ap.parse_args()
    w = a.work
    os.makedirs(w, exist_ok=True)
    codecs = [c for c in a.codecs.split(",") if c]
    gen = {"rows": a.rows, "seed": 20240601, "null_rate": 0.05, "max_len": 24, "max_items": 4}

    # Hive: every codec in one JVM, warm-up writes then timed writes of the same file
    cmds, specs = [], {}
    for codec in codecs:
        sp = os.path.join(w, f"seven_{codec}.spec.json")
        with open(sp, "w") as f:
            json.dump(spec(SEVEN, codec, gen), f)
        specs[codec] = sp
        out = os.path.join(w, f"hive_{codec}.rc")
        cmds += [["write", sp, out]] * (a.warmup + a.iters)
    batch = os.path.join(w, "hive_writes.jsonl")
    with open(batch, "w") as f:
        f.write("".join(json.dumps(c) + "\n" for c in cmds))
    log = os.path.join(w, "hive_writes.log")
    t0 = time.time()
    with open(log, "wb") as err:
        rc = subprocess.run([a.rcoracle, "batch", batch], stdout=subprocess.DEVNULL, stderr=err,
                            stdin=subprocess.DEVNULL).returncode
    print(f"# rcoracle batch: rc={rc}, {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
    if rc != 0:
        sys.exit(f"writebench: rcoracle batch failed, see {log}")
    hive = {c: [] for c in codecs}
    pat = re.compile(r"rcoracle: wrote .*/hive_(\w+)\.rc \((\d+) rows, (\d+) bytes\) in ([0-9.]+) s")
    with open(log) as f:
        for line in f:
            m = pat.search(line)
            if m:
                hive[m.group(1)].append((float(m.group(4)), int(m.group(3))))

    # colfile: the same rows as JSON lines
    rows_path = os.path.join(w, "rows.jsonl")
    with open(rows_path, "wb") as out:
        subprocess.run([a.colfile, "cat", os.path.join(w, "hive_none.rc") if "none" in codecs else
                        os.path.join(w, f"hive_{codecs[0]}.rc"), "--schema", SCHEMA, "--serde", "binary",
                        "--calendar", "hybrid", "--time-zone", "UTC"], stdout=out, check=True)
    arrow_path = os.path.join(w, "rows.arrow")
    subprocess.run([a.colfile, "convert", os.path.join(w, "hive_none.rc") if "none" in codecs else
                    os.path.join(w, f"hive_{codecs[0]}.rc"), arrow_path, "--schema", SCHEMA, "--serde",
                    "binary", "--calendar", "hybrid", "--time-zone", "UTC", "--no-progress"],
                   stdout=subprocess.DEVNULL, check=True)

    def timed_runs(argv, out):
        walls = []
        for i in range(a.runs + 1):
            if os.path.exists(out):
                os.remove(out)
            t = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, stdin=subprocess.DEVNULL)
            if i > 0:
                walls.append(time.perf_counter() - t)
        return walls

    results, table = [], []
    for codec in codecs:
        out = os.path.join(w, f"colfile_{codec}.rc")
        argv = [a.colfile, "write", out, "--format", "rcfile", "--schema", SCHEMA, "--serde", "binary",
                "--codec", codec, "--sync", SYNC, "--input", rows_path]
        walls = timed_runs(argv, out)
        out_arrow = os.path.join(w, f"colfile_arrow_{codec}.rc")
        argv = [a.colfile, "convert", arrow_path, out_arrow, "--serde", "binary", "--calendar", "hybrid",
                "--time-zone", "UTC", "--codec", codec, "--sync", SYNC, "--no-progress"]
        arrow_walls = timed_runs(argv, out_arrow)
        timed = [s for s, _ in hive[codec][a.warmup:]]
        hs, cs, ars = statistics.median(timed), statistics.median(walls), statistics.median(arrow_walls)
        rec = {"bench": "rcfile_write", "codec": codec, "rows": a.rows,
               "hive_median_s": round(hs, 4), "hive_rows_per_s": round(a.rows / hs, 1),
               "hive_bytes": hive[codec][-1][1], "colfile_median_wall_s": round(cs, 4),
               "colfile_rows_per_s": round(a.rows / cs, 1), "colfile_bytes": os.path.getsize(out),
               "colfile_over_hive": round(hs / cs, 2), "hive_times_s": timed,
               "colfile_times_s": [round(x, 4) for x in walls],
               "colfile_arrow_median_wall_s": round(ars, 4), "colfile_arrow_rows_per_s": round(a.rows / ars, 1),
               "colfile_arrow_bytes": os.path.getsize(out_arrow), "arrow_over_hive": round(hs / ars, 2),
               "colfile_arrow_times_s": [round(x, 4) for x in arrow_walls]}
        if codec == "none":
            with open(os.path.join(w, "hive_none.rc"), "rb") as y:
                hive_bytes = y.read()
            with open(out, "rb") as x:
                rec["identical_bytes"] = x.read() == hive_bytes
            with open(out_arrow, "rb") as x:
                rec["arrow_identical_bytes"] = x.read() == hive_bytes
        print(json.dumps(rec), flush=True)
        results.append(rec)
        table.append(rec)
    print()
    print(f"{'codec':8} {'Hive':>14} {'colfile JSON':>14} {'/Hive':>7} {'from Arrow':>14} {'/Hive':>7}"
          f" {'bytes Hive/colfile':>24}")
    for r in table:
        print(f"{r['codec']:8} {r['hive_rows_per_s'] / 1e6:>8.2f} Mrow/s {r['colfile_rows_per_s'] / 1e6:>8.2f} Mrow/s "
              f"{r['colfile_over_hive']:>6.2f}x {r['colfile_arrow_rows_per_s'] / 1e6:>8.2f} Mrow/s "
              f"{r['arrow_over_hive']:>6.2f}x {r['hive_bytes']:>12}/{r['colfile_bytes']}")
    print("(Hive: generate + serialize + write, warm JVM; colfile: parse JSON lines, or read Arrow batches,"
          " + serialize + write, fresh process; >1 means colfile is faster)")
    with open(os.path.join(w, "results.jsonl"), "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in results))
    for codec in codecs:
        for who in ("hive", "colfile", "colfile_arrow"):
            p = os.path.join(w, f"{who}_{codec}.rc")
            if os.path.exists(p):
                os.remove(p)
    os.remove(rows_path)
    os.remove(arrow_path)


if __name__ == "__main__":
    main()
