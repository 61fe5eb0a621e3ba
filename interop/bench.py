#!/usr/bin/env python3
"""Side-by-side read benchmark: colfile against Hive 2.3's RCFile reader (rcoracle bench).

Run through interop/bench.sh. Two parts:

1. rows/s: a 500k-row LazyBinaryColumnarSerDe file with a mixed 10-column schema, uncompressed
   and lz4, written by Hive (rcoracle `generate`). Hive: `rcoracle bench --iters 5 --warmup 3
   --modes serde,raw` (a warm JVM per file; serde = every field deserialized through the
   ObjectInspectors, raw = every cell's bytes touched, which forces decompression). colfile:
   `colfile scan` (every value decoded) and `colfile scan --raw` (every cell touched), each a
   fresh process, median of the reported in-process seconds over several runs after a warm-up run.
2. raw cell-scan throughput: an uncompressed and an lz4 file of a few hundred MB of column bytes
   (long random strings and binary, written by Hive; lz4 barely compresses them), plus a
   compressible log-like lz4 file written by `colfile write` from generated JSON lines;
   `colfile scan --raw` vs Hive's raw mode, reported as uncompressed column bytes per second.
   The big files are deleted at the end.
1b. one thread: a 500k-row, 7-column file (bigint, int, double, string, timestamp, boolean,
   decimal(10,2); 5% NULLs; short strings) written by Hive in every codec its writer has here
   (none, deflate, gzip, snappy, lz4, bzip2): Hive's serde mode against `colfile scan
   --threads 1`.
Also the colfile decode rate of each column of the 500k-row files on its own (`--columns`).

Page cache is warm for both readers. Prints JSON lines, then a short table.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

MIXED = [
    ("id", "bigint"), ("account", "int"), ("qty", "smallint"), ("active", "boolean"),
    ("price", "double"), ("amount", "decimal(12,2)"), ("name", "string"), ("ts", "timestamp"),
    ("day", "date"), ("tags", "array<string>"),
]
# issue 23's file: the mixed types users' tables have, short strings, 5% NULLs; every codec
# Hive's writer has in this JVM, colfile on one thread
SEVEN = [
    ("id", "bigint"), ("account", "int"), ("price", "double"), ("name", "string"),
    ("ts", "timestamp"), ("active", "boolean"), ("amount", "decimal(10,2)"),
]
SEVEN_CODECS = ("none", "deflate", "gzip", "snappy", "lz4", "bzip2")
# compressible log-like rows, generated here and written by `colfile write` (lz4)
WORDS_COLS = [
    ("id", "bigint"), ("host", "string"), ("level", "string"), ("msg", "string"), ("url", "string"),
    ("tags", "array<string>"), ("latency_ms", "int"),
]
BIG = [
    ("id", "bigint"), ("body", "string"), ("title", "string"), ("payload", "binary"),
    ("x", "double"), ("words", "array<string>"),
]


def spec(cols, codec, gen, **extra):
    s = {"serde": "binary", "codec": codec, "columns": [{"name": n, "type": t} for n, t in cols],
         "generate": gen, "sync": "00112233445566778899aabbccddeeff"}
    s.update(extra)
    return s


class Bench:
    def __init__(self, a):
        self.a = a
        self.work = a.work
        os.makedirs(self.work, exist_ok=True)
        self.results = []

    def emit(self, rec):
        self.results.append(rec)
        print(json.dumps(rec), flush=True)

    def batch(self, name, cmds):
        p = os.path.join(self.work, name + ".jsonl")
        with open(p, "w") as f:
            for c in cmds:
                f.write(json.dumps(c) + "\n")
        t0 = time.time()
        with open(os.path.join(self.work, name + ".log"), "wb") as err:
            rc = subprocess.run([self.a.rcoracle, "batch", p], stdout=subprocess.DEVNULL, stderr=err,
                                stdin=subprocess.DEVNULL).returncode
        print(f"# rcoracle batch {name}: rc={rc}, {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
        if rc != 0:
            sys.exit(f"bench: rcoracle batch {name} failed, see {p[:-6]}.log")

    def scan(self, path, cols, raw, runs, columns=None, threads=None):
        schema = ",".join(f"{n}:{t}" for n, t in cols)
        argv = [self.a.colfile, "scan", path, "--schema", schema, "--serde", "binary",
                "--calendar", "hybrid", "--time-zone", "UTC"] + (["--raw"] if raw else [])
        if threads:
            argv += ["--threads", str(threads)]
        if columns:
            argv += ["--columns", ",".join(columns)]
        secs, walls, last = [], [], None
        for i in range(runs + 1):  # the first run only warms caches
            t0 = time.perf_counter()
            p = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL)
            wall = time.perf_counter() - t0
            if p.returncode != 0:
                return {"error": p.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]}
            last = json.loads(p.stdout.decode().strip().splitlines()[-1])
            if i > 0:
                secs.append(last["seconds"])
                walls.append(wall)
        return {"rows": last["rows"], "values": last["values"], "file_bytes": last["bytes"],
                "median_s": statistics.median(secs), "best_s": min(secs),
                "median_wall_s": statistics.median(walls), "runs": runs, "times_s": secs}

    def specs(self, prefix, cols, codecs, gen):
        """Writes a spec per codec; returns {key: (file, spec)} and the rcoracle write commands."""
        files, cmds = {}, []
        for codec in codecs:
            key = f"{prefix}_{codec}"
            sp = os.path.join(self.work, key + ".spec.json")
            with open(sp, "w") as f:
                json.dump(spec(cols, codec, gen), f)
            path = os.path.join(self.work, key + ".rc")
            files[key] = (path, sp)
            cmds.append(["write", sp, path])
        return files, cmds

    @staticmethod
    def rows_record(bench, path, codec, mode, h, c):
        """One rows/s comparison: Hive's result `h` and colfile's scan `c` of `path`."""
        rec = {"bench": bench, "file": os.path.basename(path), "codec": codec,
               "mode": mode, "rows": h["rows"], "file_bytes": h["file_bytes"],
               "uncompressed_bytes": h["uncompressed_bytes"],
               "hive_median_s": h["median_s"], "hive_rows_per_s": h["rows_per_s"]}
        if "error" in c:
            rec["colfile_error"] = c["error"]
        else:
            rec.update({"colfile_median_s": c["median_s"], "colfile_median_wall_s": c["median_wall_s"],
                        "colfile_rows": c["rows"],
                        "colfile_rows_per_s": round(c["rows"] / c["median_s"], 1),
                        "colfile_over_hive": round(h["median_s"] / c["median_s"], 2)})
            if c["rows"] != h["rows"]:
                rec["warning"] = "row counts differ"
        return rec

    def column_rates(self, path, cols, threads=None):
        """colfile's decode rate of each column of `path` on its own (`--columns`)."""
        name = os.path.basename(path)
        for n, t in cols:
            c = self.scan(path, cols, False, 3, columns=[n], threads=threads)
            rec = {"bench": "column_decode", "file": name, "column": n, "type": t}
            if "error" in c:
                rec["colfile_error"] = c["error"]
            else:
                rec.update({"values": c["values"], "colfile_median_s": c["median_s"],
                            "colfile_mvalues_per_s": round(c["values"] / c["median_s"] / 1e6, 2)})
            self.emit(rec)

    def write_words(self, path, rows):
        """Log-like rows (words from a small vocabulary, so lz4 finds matches), piped as JSON lines
        into `colfile write --codec lz4`."""
        import random
        rnd = random.Random(42)
        vocab = [f"{a}{b}" for a in ("re", "con", "pre", "de", "in", "ex", "un", "over", "sub", "tr")
                 for b in ("quest", "nect", "fix", "lay", "put", "port", "load", "flow", "set", "tain",
                           "cord", "ject", "mit", "sume", "vert", "pose", "duce", "form", "tend", "spect")]
        vocab += ["user", "session", "timeout", "error", "ok", "retry", "cache", "miss", "hit", "disk",
                  "GET", "POST", "/api/v1", "200", "404", "500", "ms", "bytes", "id", "token"]
        hosts = [f"node-{i:02d}.dc{i % 3}.example.net" for i in range(40)]
        levels = ["INFO"] * 6 + ["WARN", "WARN", "ERROR", "DEBUG"]
        argv = [self.a.colfile, "write", path, "--format", "rcfile", "--serde", "binary", "--codec", "lz4",
                "--schema", ",".join(f"{n}:{t}" for n, t in WORDS_COLS), "--sync", "00112233445566778899aabbccddeeff"]
        t0 = time.time()
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        buf = []
        for i in range(rows):
            msg = " ".join(rnd.choice(vocab) for _ in range(rnd.randint(8, 40)))
            url = f"/api/v1/{rnd.choice(vocab)}/{rnd.randint(1, 99999)}?q={rnd.choice(vocab)}"
            tags = [rnd.choice(vocab) for _ in range(rnd.randint(0, 4))]
            buf.append(json.dumps([i, rnd.choice(hosts), rnd.choice(levels), msg, url, tags,
                                   rnd.randint(0, 5000)]))
            if len(buf) == 5000:
                p.stdin.write(("\n".join(buf) + "\n").encode())
                buf = []
        if buf:
            p.stdin.write(("\n".join(buf) + "\n").encode())
        p.stdin.close()
        if p.wait() != 0:
            sys.exit("bench: colfile write of the words file failed")
        print(f"# colfile wrote {os.path.basename(path)} ({os.path.getsize(path) / 1e6:.0f} MB) in "
              f"{time.time() - t0:.1f} s", file=sys.stderr, flush=True)

    def uncompressed_bytes(self, path):
        p = subprocess.run([self.a.colfile, "meta", path], capture_output=True, check=True)
        m = json.loads(p.stdout)
        return sum(c["uncompressed_length"] for g in m["row_groups"] for c in g["columns"])

    def hive_bench(self, name, files, iters, warmup, modes):
        """One fresh JVM per file (so one file's JIT and heap history does not favour another)."""
        outs = {}
        for key, (path, sp) in files.items():
            out = os.path.join(self.work, f"hive_bench_{key}.json")
            outs[key] = out
            self.batch(f"{name}_{key}", [["bench", path, "--spec", sp, "--iters", str(iters),
                                          "--warmup", str(warmup), "--modes", modes, "--out", out]])
        res = {}
        for key, out in outs.items():
            with open(out) as f:
                for line in f:
                    if line.strip():
                        r = json.loads(line)
                        res[(key, r["bench"])] = r
        return res

    def run(self):
        a = self.a
        w = self.work
        # ---------------------------------------------------------------- part 1: rows/s
        gen = {"rows": a.rows, "seed": 20240601, "null_rate": 0.05, "max_len": 24, "max_items": 4}
        files, cmds = self.specs("mixed", MIXED, ("none", "lz4"), gen)
        # part 2 files: long strings and binary, a few hundred MB of column bytes
        big_gen = {"rows": a.big_rows, "seed": 7, "null_rate": 0.02, "max_len": 400, "max_items": 6}
        big = {}
        if a.big_rows > 0:
            big, big_cmds = self.specs("big", BIG, ("none", "lz4"), big_gen)
            cmds += big_cmds
        self.batch("write", cmds)

        hive = self.hive_bench("bench_rows", files, a.iters, a.warmup, "serde,raw")
        table = []
        for key, (path, sp) in files.items():
            codec = key.split("_", 1)[1]
            for mode, raw in (("serde", False), ("raw", True)):
                h = hive[(key, mode)]
                c = self.scan(path, MIXED, raw, a.runs)
                rec = self.rows_record("rows_per_s", path, codec, mode, h, c)
                self.emit(rec)
                table.append(rec)

        # per-column decode cost (colfile only: Hive's bench has no projection)
        self.column_rates(files["mixed_none"][0], MIXED)

        # ---------------------------------------------------------------- part 1b: one thread
        if a.seven:
            seven, cmds = self.specs("seven", SEVEN, SEVEN_CODECS, gen)
            self.batch("write_seven", cmds)
            hive7 = self.hive_bench("bench_seven", seven, a.iters, a.warmup, "serde")
            for key, (path, sp) in seven.items():
                h = hive7[(key, "serde")]
                c = self.scan(path, SEVEN, False, a.runs, threads=1)
                rec = self.rows_record("rows_per_s_one_thread", path, key.split("_", 1)[1], "serde", h, c)
                self.emit(rec)
                table.append(rec)
            self.column_rates(seven["seven_none"][0], SEVEN, threads=1)

        # ---------------------------------------------------------------- part 2: GB/s
        if a.words_rows > 0:
            key = "words_lz4"
            path = os.path.join(w, key + ".rc")
            sp = os.path.join(w, key + ".spec.json")
            with open(sp, "w") as f:
                json.dump({"serde": "binary", "columns": [{"name": n, "type": t} for n, t in WORDS_COLS]}, f)
            self.write_words(path, a.words_rows)
            big[key] = (path, sp)
        if big:
            hive_big = self.hive_bench("bench_big", big, 3, 1, "raw")
            for key, (path, sp) in big.items():
                codec = key.split("_", 1)[1]
                ub = self.uncompressed_bytes(path)
                c = self.scan(path, WORDS_COLS if key.startswith("words") else BIG, True, a.runs)
                h = hive_big[(key, "raw")]
                rec = {"bench": "raw_scan_gb_per_s", "file": os.path.basename(path), "codec": codec,
                       "rows": h["rows"], "file_bytes": os.path.getsize(path), "uncompressed_bytes": ub,
                       "hive_median_s": h["median_s"], "hive_gb_per_s": round(ub / h["median_s"] / 1e9, 3)}
                if "error" in c:
                    rec["colfile_error"] = c["error"]
                else:
                    rec.update({"colfile_median_s": c["median_s"],
                                "colfile_gb_per_s": round(ub / c["median_s"] / 1e9, 3),
                                "colfile_over_hive": round(h["median_s"] / c["median_s"], 2)})
                self.emit(rec)
                table.append(rec)
                if not a.keep:
                    os.remove(path)

        # ---------------------------------------------------------------- table
        print()
        print(f"{'file':20} {'mode':9} {'rows':>8} {'Hive':>14} {'colfile':>14} {'colfile/Hive':>12}")
        for r in table:
            if r["bench"] in ("rows_per_s", "rows_per_s_one_thread"):
                hv, cv = f"{r['hive_rows_per_s'] / 1e6:.2f} Mrow/s", (
                    f"{r['colfile_rows_per_s'] / 1e6:.2f} Mrow/s" if "colfile_rows_per_s" in r else "error")
            else:
                r["mode"] = "raw"
                hv, cv = f"{r['hive_gb_per_s']:.2f} GB/s", (
                    f"{r['colfile_gb_per_s']:.2f} GB/s" if "colfile_gb_per_s" in r else "error")
            ratio = f"{r['colfile_over_hive']:.2f}x" if "colfile_over_hive" in r else "-"
            mode = r["mode"] + ("/1t" if r["bench"] == "rows_per_s_one_thread" else "")
            print(f"{r['file']:20} {mode:9} {r['rows']:>8} {hv:>14} {cv:>14} {ratio:>12}")
        for fname in ("mixed_none.rc", "seven_none.rc"):
            cols = [r for r in self.results if r["bench"] == "column_decode" and "colfile_mvalues_per_s" in r
                    and r["file"] == fname]
            if cols:
                print(f"colfile decode per column ({fname}, Mvalues/s): " +
                      ", ".join(f"{r['column']}:{r['type']} {r['colfile_mvalues_per_s']}" for r in cols))
        print("(colfile/Hive = Hive's median time / colfile's median time; >1 means colfile is faster."
              " GB/s = 1e9 uncompressed column bytes per second)")
        with open(os.path.join(w, "results.jsonl"), "w") as f:
            for r in self.results:
                f.write(json.dumps(r) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--colfile", required=True)
    ap.add_argument("--rcoracle", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rows", type=int, default=500000)
    ap.add_argument("--big-rows", type=int, default=200000)
    ap.add_argument("--words-rows", type=int, default=1200000,
                    help="rows of the compressible lz4 file written by colfile (0: skip)")
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5, help="colfile scan runs per measurement (median)")
    ap.add_argument("--keep", action="store_true", help="keep the big files")
    ap.add_argument("--no-seven", dest="seven", action="store_false",
                    help="skip the one-thread 7-column file in every codec")
    Bench(ap.parse_args()).run()


if __name__ == "__main__":
    main()
