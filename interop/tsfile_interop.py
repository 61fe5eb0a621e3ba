#!/usr/bin/env python3
"""Live TsFile interoperability check: colfile against the official Apache TsFile library.

Run through interop/tsfile.sh, which installs the oracle's dependency (PyPI tsfile==2.5.0, the
C++ library inside) and builds colfile first. The oracle is tsoracle.py
(../shared/oracles/tsfile beside the repository): `dump` and `write` go through the official
library, `raw` is its independent byte-level parser (tsraw.py), `compare` its semantic diff of
two dumps. Groups of cases:

  colfile-reads  fixture X   `colfile cat X.tsfile --format dump` must equal X.expected.jsonl
                             (tsoracle compare: schema, devices, properties and every row);
                             plus a projected/time-ranged query against the official reader's
                             answer to the same query for some fixtures, and `colfile meta`,
                             `colfile schema` must print JSON.
  official-reads fixture X   `colfile write --format tsfile --spec X.spec.json`; the official
                             reader's dump of our file must equal X.expected.jsonl, tsraw must
                             find no structural error, and colfile must read its own file back
                             to X.expected.jsonl. Byte identity with X.tsfile and tsraw's
                             structure summary are reported, not required. Fixtures whose
                             expected output was built from the spec because the official
                             reader cannot read them (MANIFEST expected_source "spec ...":
                             time_plain, PLAIN time) skip only the official read.
  ...            expected-unsupported X
                             fixtures whose file uses an encoding or compression outside
                             SUPPORTED_ENCODINGS / SUPPORTED_COMPRESSIONS (taken from the file's
                             own chunk headers and schema, X.raw.json): colfile must fail with
                             exit 1 and an error that says "unsupported" and names one of those
                             encodings/compressions. Data-driven: if colfile succeeds instead, the
                             case is checked like any other (so it flips to a real comparison as
                             soon as colfile supports the encoding).
  colfile-reads  live S      fresh random specs (new seed each run; INTEROP_SEED reuses one),
  official-reads live S      written by both the official library (O) and colfile (C):
                             colfile's dump of O == the official dump of O; the official dump of
                             C == the official dump of O; tsraw on C; colfile's dump of C == the
                             official dump of O; a random projected/time-ranged query on O.

  official-reads convert X    `colfile convert` outputs: each table of the table-model fixture X
                             (one that colfile reads) converted TsFile -> TsFile, and through
                             JSONL back to a TsFile (--schema from `colfile schema`). The
                             official reader's dump of each output must equal colfile's own dump
                             of it, and tsraw must find no structural error.

The official library runs in one long-lived Python worker (importing tsfile takes seconds), with a
timeout per command (the C++ reader can loop forever on some inputs) and a restart after a crash;
its writes run as separate `tsoracle.py write` processes. One line per case, then
`N passed, N failed`.
"""

import argparse
import datetime
import filecmp
import json
import os
import random
import select
import shutil
import struct
import subprocess
import sys
import time

# This set. Anything else in a file must be refused with a clear "unsupported" error
# (expected-unsupported cases) until colfile supports it.
SUPPORTED_ENCODINGS = ("PLAIN", "TS_2DIFF", "GORILLA", "RLE", "DICTIONARY", "ZIGZAG", "CHIMP",
                       "SPRINTZ", "RLBE", "CAMEL", "GORILLA_V1", "REGULAR")
SUPPORTED_COMPRESSIONS = ("UNCOMPRESSED", "SNAPPY", "GZIP", "LZ4", "ZSTD", "LZMA2", "LZO")

# Not used in random live files: C++ 2.5's SPRINTZ reader and writer disagree with Java's for
# large 64-bit deltas and lose values with residuals of 2^30 or more (its own files too), and
# colfile reads SPRINTZ as Java does. CAMEL: the reference encoders (Java and C++ alike) store
# NaN as 0.0 and round some values onto nearby short decimals, while colfile's writes those
# values losslessly, so an official file and ours hold different values by design. The fixtures
# (both directions) and tests/tsfile_encoding/{sprintz,camel}.rs cover both.
LIVE_EXCLUDED = ("SPRINTZ", "CAMEL")
COMMAND_TIMEOUT = 120  # seconds for one colfile command or one oracle command
WRITE_TIMEOUT = 300  # one `tsoracle.py write` process
LIVE_SPECS = 5
# fixtures that also get a projected / time-ranged query check (besides every live file)
QUERY_FIXTURES = {
    "basic": {"table": "weather", "columns": ["station", "temp", "status"], "start": 1700000002000,
              "end": 1700000007000},
    "nulls": {"columns": ["all_null", "alt"], "start": None, "end": None},
    "multi_chunk": {"columns": ["s", "dev"], "start": 1000, "end": 7000},
    "tags_nulls": {"columns": ["b", "v"], "start": None, "end": None},
    "types_all": {"columns": ["f_date", "f_blob", "dev", "f_text"], "start": None, "end": None},
    "extremes": {"columns": ["i64", "dt"], "start": -1, "end": 2 ** 63 - 1},
}

WORKER = r"""
import json, os, sys, traceback
sys.path.insert(0, sys.argv[1])
os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
import tsoracle
tsoracle.lib()
reply = os.fdopen(os.dup(1), "w")
print(json.dumps({"ready": True}), file=reply, flush=True)
for line in sys.stdin:
    req = json.loads(line)
    sys.stdout.flush(); sys.stderr.flush()
    saved1, saved2 = os.dup(1), os.dup(2)
    out = os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(req["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1); os.dup2(err, 2); os.close(out); os.close(err)
    try:
        rc = tsoracle.main(req["argv"])
    except SystemExit as e:
        if isinstance(e.code, int) or e.code is None:
            rc = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            rc = 1
    except BaseException:
        traceback.print_exc()
        rc = 1
    sys.stdout.flush(); sys.stderr.flush()
    os.dup2(saved1, 1); os.dup2(saved2, 2); os.close(saved1); os.close(saved2)
    print(json.dumps({"rc": rc}), file=reply, flush=True)
"""


class Oracle:
    """The official library: one long-lived worker process for dump/raw/compare, a fresh
    process per write (as the README's documented usage)."""

    def __init__(self, oracle_dir, py):
        self.dir = oracle_dir
        self.script = os.path.join(oracle_dir, "tsoracle.py")
        self.py = py
        self.proc = None
        self.calls = 0
        self.restarts = 0

    def _start(self):
        self.proc = subprocess.Popen([self.py, "-c", WORKER, self.dir], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=None, text=True, bufsize=1)
        line = self._read(COMMAND_TIMEOUT)
        if line is None or not json.loads(line).get("ready"):
            self.stop()
            raise RuntimeError("tsoracle worker did not start (is `pip install tsfile==2.5.0` done?)")

    def _read(self, timeout):
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not r:
            return None
        line = self.proc.stdout.readline()
        return line or None

    def stop(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def run(self, argv, out, timeout=COMMAND_TIMEOUT):
        """tsoracle.py ARGV with stdout to `out`; returns (rc, stderr text)."""
        err = out + ".err"
        if self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:
                self.restarts += 1
            self._start()
        self.calls += 1
        self.proc.stdin.write(json.dumps({"argv": argv, "out": out, "err": err}) + "\n")
        self.proc.stdin.flush()
        line = self._read(timeout)
        if line is None:
            code = self.proc.poll()
            if code is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None
            self.restarts += 1
            return -1, (f"oracle worker crashed (exit {code})" if code is not None
                        else f"oracle timed out after {timeout} s")
        rc = json.loads(line)["rc"]
        return rc, read_text(err)

    def write(self, spec_path, out, log):
        if os.path.exists(out):
            os.remove(out)
        try:
            with open(log, "wb") as f:
                p = subprocess.run([self.py, self.script, "write", spec_path, out], stdout=f, stderr=f,
                                   stdin=subprocess.DEVNULL, timeout=WRITE_TIMEOUT)
            return p.returncode, read_text(log)
        except subprocess.TimeoutExpired:
            return -1, f"tsoracle write timed out after {WRITE_TIMEOUT} s"


# Valid TsFile v3 files in the shared real-world fixtures (their README gives the origin):
# Java TsFile 1.x's compatibility-test file and the C++ 1.x smoke-test output.
V3_FILES = ["tsfile_java_v3TsFile.tsfile", "tsfile_cpp_smoke_test.write_record.dat.tsfile"]


class Case:
    def __init__(self, direction, kind, name):
        self.direction = direction  # "colfile-reads" | "official-reads"
        self.kind = kind  # "fixture" | "live" | "expected-unsupported"
        self.name = name
        self.checks = []  # [(label, ok: True | False | None (informational), detail, word)]
        self.error = None

    def add(self, label, ok, detail="", word=None):
        self.checks.append((label, ok, detail, word or ("ok" if ok else "FAIL" if ok is False else "info")))

    @property
    def passed(self):
        return self.error is None and bool(self.checks) and all(ok is not False for _, ok, _, _ in self.checks)

    def line(self):
        parts = []
        for label, ok, detail, word in self.checks:
            parts.append(f"{label}={word}" + (f"({detail})" if detail and ok is not True else ""))
        if self.error:
            parts.append(f"error({self.error})")
        head = "PASS" if self.passed else "FAIL"
        return f"{head} {self.direction:14} {self.kind:20} {self.name:24} " + " ".join(parts)


def read_text(path, limit=200_000):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def last_line(s, n=300):
    lines = [x for x in (s or "").strip().splitlines() if x.strip()]
    s = lines[-1].strip() if lines else ""
    return s if len(s) <= n else s[: n - 3] + "..."


def compare_detail(text, n=3):
    """The useful part of `tsoracle compare` output: the counts line and the first problems."""
    lines = [x for x in (text or "").splitlines() if x.strip() and x.strip() not in ("EQUAL", "DIFFERENT")]
    keep = lines[: 1 + n]
    s = " | ".join(x.strip() for x in keep)
    return s if len(s) <= 600 else s[:597] + "..."


# Fixture columns we read as Java does, not as C++ 2.5 does, and how many values differ:
# C++ 2.5 predicts SPRINTZ INT64 groups with an exact 128-bit FIRE product where Java wraps
# it to 64 bits (src/tsfile/encoding/sprintz.rs), which shows for values around +-10^12.
# Same list as tests/tsfile_fixtures.rs.
JAVA_READS_DIFFERENTLY = {"enc_sprintz": ("v_int64", 128), "tree_encodings": ("v_int64", 33)}


def accept_java_readings(expected, got_path, column, count):
    """Rewrites colfile's dump at got_path so that `column` takes the expected value wherever
    ours differs; ok when exactly `count` values did."""
    def key(r):
        r = dict(r)
        r.pop("fields", None)
        return json.dumps(r, sort_keys=True)
    with open(expected, encoding="utf-8") as f:
        want = {key(r): r.get("fields", {}).get(column)
                for r in map(json.loads, filter(str.strip, f)) if r.get("kind") == "row"}
    with open(got_path, encoding="utf-8") as f:
        got = [json.loads(line) for line in f if line.strip()]
    differing = 0
    for r in got:
        k = key(r) if r.get("kind") == "row" else None
        if k in want and r.get("fields", {}).get(column) != want[k]:
            r["fields"][column] = want[k]
            differing += 1
    with open(got_path, "w", encoding="utf-8") as f:
        for r in got:
            f.write(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
    return differing == count, f"{differing} {column} values read as Java does ({count} expected)"


def features(raw):
    """(encodings, compressions) a file uses, from tsraw's JSON: every chunk header, and the
    table schemas' column settings."""
    encs, comps = set(), set()
    for g in raw.get("chunk_groups", []):
        for c in g.get("chunks", []):
            encs.add(str(c.get("encoding")))
            comps.add(str(c.get("compression")))
    for cols in ((raw.get("meta") or {}).get("table_schemas") or {}).values():
        for c in cols:
            encs.add(str(c.get("encoding")))
            comps.add(str(c.get("compression")))
    return encs, comps


def unsupported_of(encs, comps):
    return sorted(e for e in encs if e not in SUPPORTED_ENCODINGS) + \
        sorted(c for c in comps if c not in SUPPORTED_COMPRESSIONS)


def unsupported_error_ok(rc, err, names):
    """colfile refused a file/spec: exit 1 and a message saying "unsupported" that names one of
    the unsupported encodings/compressions. Returns (ok, detail)."""
    msg = last_line(err, 200)
    low = (err or "").lower()
    named = [n for n in names if n.lower() in low]
    if rc != 1:
        return False, f"exit {rc} (want 1): {msg}"
    if "unsupported" not in low and "not supported" not in low:
        return False, f"error does not say unsupported: {msg}"
    if not named:
        return False, f"error names none of {','.join(names)}: {msg}"
    return True, f"{','.join(named)}: {msg}"


# ------------------------------------------------------------------ random specs

FIELD_TYPES = ("BOOLEAN", "INT32", "INT64", "FLOAT", "DOUBLE", "TEXT", "STRING", "BLOB", "DATE", "TIMESTAMP")
# the library's per-type encoding settings (tsoracle TYPE_ENCODING_KEY): the types of one group
# share one encoding per table
GROUPS = {"BOOLEAN": ("BOOLEAN",), "INT32": ("INT32", "DATE"), "INT64": ("INT64", "TIMESTAMP"),
          "FLOAT": ("FLOAT",), "DOUBLE": ("DOUBLE",), "STRING": ("TEXT", "STRING", "BLOB")}
GROUP_OF = {t: g for g, ts in GROUPS.items() for t in ts}
TAG_POOL = ["east", "west", "", "null", "ü-nord", "a.b", "x`y", "東京", "X"]
TEXT_POOL = ["", " ", "ok", "warn", "err", "null", "NULL", "π≈3.14159", "emoji 🚀", "tab\tnew\nline",
             "nul\u0000inside", "\U0010ffff", "quote\"back\\slash", "a" * 300]


def ok_encodings(probe, ftype):
    """Encodings of SUPPORTED_ENCODINGS that probe_results.json says the library writes and reads
    back for a table-model type."""
    out = [e for e in SUPPORTED_ENCODINGS if e not in LIVE_EXCLUDED
           if ((probe or {}).get("encodings", {}).get(f"table/{ftype}/{e}") or {}).get("status") == "ok"]
    return out or ["PLAIN"]


def f32(x):
    return struct.unpack(">f", struct.pack(">f", x))[0]


def rand_value(rng, ftype, enc, state):
    """One random non-null spec value (state: the column's random walk)."""
    r = rng.random()
    if ftype == "BOOLEAN":
        return rng.random() < 0.5
    if ftype in ("INT32", "INT64", "TIMESTAMP"):
        bits = 31 if ftype == "INT32" else 63
        lo, hi = -(2 ** bits), 2 ** bits - 1
        if r < 0.05:
            return rng.choice([lo, hi, 0, -1, 1])
        if r < 0.25:
            return rng.randint(lo, hi)
        state["v"] = max(lo, min(hi, state.get("v", rng.randint(-1000, 1000)) + rng.randint(-50, 60)))
        return state["v"]
    if ftype == "DATE":
        if r < 0.05:
            return rng.choice(["1000-01-01", "9999-12-31", "1970-01-01", "2000-02-29"])
        return (datetime.date(1000, 1, 1) + datetime.timedelta(days=rng.randint(0, 3287181))).isoformat()
    if ftype in ("FLOAT", "DOUBLE"):
        if enc == "TS_2DIFF":
            # TS_2DIFF quantises floats to 2 decimals, and both writers must do it the same way:
            # moderate magnitudes and no NaN/inf (whose float-to-int conversion C++ leaves undefined)
            state["v"] = state.get("v", rng.uniform(-1000, 1000)) + rng.uniform(-5, 5)
            v = round(state["v"], rng.choice([2, 3, 7]))
        elif r < 0.08:
            v = rng.choice(["NaN", "Infinity", "-Infinity", -0.0, 0.0,
                            5e-324 if ftype == "DOUBLE" else 1e-45,
                            1.7976931348623157e308 if ftype == "DOUBLE" else 3.4028234663852886e38])
        elif r < 0.3:
            v = rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)
        else:
            state["v"] = round(state.get("v", rng.uniform(-100, 100)) + rng.gauss(0, 1), 2)
            v = state["v"]
        if ftype == "FLOAT" and isinstance(v, float) and rng.random() < 0.8:
            v = f32(v)  # mostly values a float holds exactly; the rest tests the f64->f32 rounding
        return v
    if ftype in ("TEXT", "STRING"):
        if r < 0.5:
            v = rng.choice(TEXT_POOL)
            # The C++ DICTIONARY encoder cuts a value at its first NUL byte (the official
            # library's own files lose "nul\0inside"), so only PLAIN columns get one.
            if enc == "DICTIONARY" and "\u0000" in v:
                v = v.replace("\u0000", "0")
            return v
        return "".join(rng.choice("abcdefghij0123456789 _-äß中") for _ in range(rng.randint(0, 40)))
    if ftype == "BLOB":
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 24))).hex()
    raise ValueError(ftype)


def rand_table(rng, probe, tname, comp, n_rows):
    ntags = rng.randint(1, 3) if rng.random() < 0.85 else 0
    ftypes = [rng.choice(FIELD_TYPES) for _ in range(rng.randint(2, 8))]
    encs = {}
    for g in sorted({GROUP_OF[t] for t in ftypes}):
        used = [t for t in ftypes if GROUP_OF[t] == g]
        common = [e for e in ok_encodings(probe, used[0]) if all(e in ok_encodings(probe, t) for t in used)]
        if "BLOB" in used:
            common = [e for e in common if e != "DICTIONARY"]  # the library fails on BLOB DICTIONARY
        encs[g] = rng.choice(common or ["PLAIN"])
    cols = [{"name": f"tag{i}", "category": "TAG", "type": "STRING"} for i in range(ntags)]
    cols += [{"name": f"f{i}_{t.lower()}", "category": "FIELD", "type": t, "encoding": encs[GROUP_OF[t]],
              "compression": comp} for i, t in enumerate(ftypes)]
    if rng.random() < 0.2:
        cols.insert(rng.randint(ntags, len(cols)), {"name": "attr", "category": "ATTRIBUTE", "type": "STRING"})
    ndev = 1 if ntags == 0 else rng.choice([1, 2, 3, 5, 12, 40])
    devices = set()
    while len(devices) < ndev:
        devices.add(tuple(None if rng.random() < 0.12 else
                          rng.choice(TAG_POOL) + (str(rng.randint(0, 9)) if rng.random() < 0.5 else "")
                          for _ in range(ntags)))
    devices = sorted(devices, key=lambda d: tuple((0, "") if x is None else (1, x) for x in d))
    per_dev = max(1, n_rows // len(devices))
    null_rate = {c["name"]: rng.choice([0.0, 0.05, 0.3, 0.9, 1.0 if rng.random() < 0.3 else 0.1])
                 for c in cols if c["category"] == "FIELD"}
    rows = []
    for d in devices:
        t = rng.choice([0, 1_700_000_000_000, -5_000, rng.randint(-2 ** 62, 2 ** 62)])
        states = {c["name"]: {} for c in cols}
        for _ in range(rng.randint(1, per_dev * 2)):
            row, tags = [t], iter(d)
            for c in cols:
                if c["category"] == "TAG":
                    row.append(next(tags))
                elif c["category"] == "ATTRIBUTE":
                    row.append(rng.choice(["a", None]))
                elif rng.random() < null_rate[c["name"]]:
                    row.append(None)
                else:
                    row.append(rand_value(rng, c["type"], c["encoding"], states[c["name"]]))
            rows.append(row)
            t += rng.choice([1, 1, 1000, 1000, rng.randint(1, 10 ** 6)])
    rng.shuffle(rows)  # both writers sort by time (stable); times are unique per device
    table = {"name": tname, "compression": comp, "columns": cols, "rows": rows,
             "tablet_rows": rng.choice([7, 100, 1024])}
    if rng.random() < 0.25:
        table["flush_every"] = rng.choice([50, 200])
    return table


def make_specs(seed, probe, count=LIVE_SPECS):
    """Fresh random table-model specs: types x encodings the library round-trips (probe) within
    this issue's set x the supported compressions, nulls (whole null columns too), null and
    empty tags, several devices and tables, small pages, sometimes flushes (several chunks) and
    a small index degree (multi-level index trees)."""
    rng = random.Random(seed)
    specs = []
    for k in range(count):
        cfg = {"page_max_points": rng.choice([8, 33, 100, 1000, 10000]),
               "time_encoding": "TS_2DIFF",  # the C++ reader cannot read PLAIN time columns
               "time_compression": rng.choice(SUPPORTED_COMPRESSIONS)}
        if rng.random() < 0.3:
            cfg["max_index_degree"] = rng.choice([4, 5, 16])
        tables = [rand_table(rng, probe, f"t{k}_{i}", rng.choice(SUPPORTED_COMPRESSIONS), rng.choice([30, 300, 1500]))
                  for i in range(rng.choice([1, 1, 2, 3]))]
        spec = {"model": "table", "description": f"interop live spec {k} (seed {seed})", "config": cfg,
                "tables": tables}
        if rng.random() < 0.5:
            spec["properties"] = {"seed": str(seed), "note": rng.choice(["", "ü", "k=v;x"])}
        specs.append((f"live{k}", spec))
    return specs


def rand_query(rng, spec):
    """A projected, time-ranged query on one table of a spec."""
    t = rng.choice(spec["tables"])
    names = [c["name"] for c in t["columns"] if c["category"] in ("TAG", "FIELD")]
    cols = sorted(rng.sample(names, rng.randint(1, len(names))), key=names.index)
    if rng.random() < 0.5:
        rng.shuffle(cols)  # asked for in another order
    times = sorted(r[0] for r in t["rows"])
    q = {"table": t["name"], "columns": cols, "start": None, "end": None}
    if times and rng.random() < 0.8:
        a, b = sorted(rng.choice(times) + rng.choice([-1, 0, 1]) for _ in range(2))
        q["start"], q["end"] = a, b
    return q


# ------------------------------------------------------------------ runner

class Runner:
    def __init__(self, a):
        self.a = a
        self.colfile = a.colfile
        self.fixtures = a.fixtures
        self.work = a.work
        self.seed = a.seed
        self.oracle = Oracle(a.oracle_dir, a.python)
        try:
            with open(os.path.join(a.oracle_dir, "probe_results.json"), encoding="utf-8") as f:
                self.probe = json.load(f)
        except (OSError, ValueError):
            self.probe = None
        os.makedirs(self.work, exist_ok=True)

    def path(self, *parts):
        p = os.path.join(self.work, *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def colfile_run(self, argv, out):
        """colfile ARGV with stdout to `out`; returns (rc, stderr text)."""
        try:
            with open(out, "wb") as f:
                p = subprocess.run([self.colfile] + argv, stdout=f, stderr=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL, timeout=COMMAND_TIMEOUT)
            return p.returncode, p.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            return -1, f"timed out after {COMMAND_TIMEOUT} s"

    def compare(self, expected, actual, rows_only=False):
        """tsoracle compare: (equal, detail)."""
        out = actual + ".compare.txt"
        rc, err = self.oracle.run(["compare", expected, actual] + (["--rows-only"] if rows_only else []), out)
        text = read_text(out)
        if rc == 0:
            return True, compare_detail(text, 0)
        return False, compare_detail(text) or last_line(err)

    def raw(self, path):
        """tsraw of a file: (json or None, error text)."""
        out = path + ".raw.json"
        rc, err = self.oracle.run(["raw", path, "--json"], out)
        text = read_text(out, 50_000_000)
        try:
            rep = json.loads(text)
        except ValueError:
            return None, last_line(text) or last_line(err) or f"exit {rc}"
        return rep, ""

    # -------------------------------------------------------------- checks

    def check_cat(self, case, label, tsfile, expected, tag, query=None, rows_only=False):
        """colfile cat --format dump of a file against an expected dump. Returns colfile's
        (rc, stderr) so a caller can judge a refusal."""
        out = self.path("cat", f"{tag}.{label}.jsonl")
        argv = ["cat", tsfile, "--format", "dump"]
        if query:
            if query.get("table"):
                argv += ["--table", query["table"]]
            if query.get("columns"):
                argv += ["--columns", ",".join(query["columns"])]
            if query.get("start") is not None:
                argv += ["--start", str(query["start"])]
            if query.get("end") is not None:
                argv += ["--end", str(query["end"])]
        rc, err = self.colfile_run(argv, out)
        if rc != 0:
            return rc, err
        known = JAVA_READS_DIFFERENTLY.get(tag.removeprefix("fixture_")) if query is None else None
        if known:
            ok, det = accept_java_readings(expected, out, *known)
            case.add(f"{label}-java-reading", ok, det)
        ok, det = self.compare(expected, out, rows_only=rows_only)
        case.add(label, ok, det)
        return 0, ""

    def check_query(self, case, tsfile, q, tag):
        """The same query through the official reader and through colfile (rows only)."""
        exp = self.path("cat", f"{tag}.query.official.jsonl")
        argv = ["dump", tsfile, "--rows-only"]
        if q.get("table"):
            argv += ["--table", q["table"]]
        if q.get("columns"):
            argv += ["--columns", ",".join(q["columns"])]
        if q.get("start") is not None:
            argv += ["--start", str(q["start"])]
        if q.get("end") is not None:
            argv += ["--end", str(q["end"])]
        rc, err = self.oracle.run(argv, exp)
        if rc != 0:
            case.add("query", False, f"official dump of the query failed: {last_line(err)}")
            return
        rc, err = self.check_cat(case, "query", tsfile, exp, tag, query=q, rows_only=True)
        if rc != 0:
            case.add("query", False, f"colfile cat {describe_query(q)} exit {rc}: {last_line(err)}")

    def check_json_cmds(self, case, tsfile, tag):
        for sub in ("meta", "schema"):
            out = self.path("cat", f"{tag}.{sub}.json")
            rc, err = self.colfile_run([sub, tsfile], out)
            if rc != 0:
                case.add(sub, False, f"colfile {sub} exit {rc}: {last_line(err)}")
                continue
            try:
                json.loads(read_text(out, 100_000_000))
                case.add(sub, True)
            except ValueError as e:
                case.add(sub, False, f"not one JSON document: {e}")

    def colfile_reads(self, case, tsfile, expected, names_unsupported, tag, query=None):
        """colfile reads an official file: dump compare (or the expected refusal), meta/schema,
        and optionally a query."""
        rc, err = self.check_cat(case, "dump", tsfile, expected, tag)
        if rc != 0:
            if names_unsupported:
                ok, det = unsupported_error_ok(rc, err, names_unsupported)
                case.add("refused", ok, det, "expected-unsupported" if ok else None)
                if ok:
                    case.kind = "expected-unsupported"
            else:
                case.add("dump", False, f"colfile cat exit {rc}: {last_line(err)}")
            return
        self.check_json_cmds(case, tsfile, tag)
        if query is not None:
            self.check_query(case, tsfile, query, tag)

    def trimmed(self, expected, tag):
        """`expected` with trailing null segments removed from each device id.

        colfile writes device ids the way Java does (trailing null tags are not stored,
        spec/tsfile.md §5.2); the C++ writer that made the expected dumps keeps them. Rows are
        unaffected (tags are matched by name), only the devices line differs."""
        out = self.path("official", f"{tag}.expected_java_ids.jsonl")
        with open(expected, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as g:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    if d.get("kind") == "devices":
                        for dev in d["devices"]:
                            seg = dev["segments"]
                            while len(seg) > 1 and seg[-1] is None:
                                seg.pop()
                    line = json.dumps(d, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
                g.write(line)
        return out

    def official_reads(self, case, ours, expected, ref_tsfile, ref_raw, official_ok, tag):
        """Checks of a colfile-written file: official dump, tsraw, colfile read-back, bytes."""
        expected = self.trimmed(expected, tag)
        if official_ok:
            got = self.path("official", f"{tag}.official_dump.jsonl")
            rc, err = self.oracle.run(["dump", ours], got)
            if rc != 0:
                case.add("official", False, f"official dump of colfile's file failed: {last_line(err)}")
            else:
                ok, det = self.compare(expected, got)
                case.add("official", ok, det)
        else:
            case.add("official", None, "official reader cannot read this file (see MANIFEST expected_source)",
                     "skipped")
        rep = self.check_raw(case, ours)
        rc, err = self.check_cat(case, "readback", ours, expected, tag + ".ours")
        if rc != 0:
            case.add("readback", False, f"colfile cat of its own file exit {rc}: {last_line(err)}")
        if rep is not None and ref_raw is not None:
            keys = ("chunk_groups", "chunks", "max_pages_per_chunk", "multi_page_chunks", "encodings",
                    "max_index_device_levels", "max_index_measurement_levels")
            a, b = ref_raw.get("summary") or {}, rep.get("summary") or {}
            diff = [f"{k} {a.get(k)} vs ours {b.get(k)}" for k in keys if a.get(k) != b.get(k)]
            case.add("structure", None, "; ".join(diff)[:300], "same" if not diff else "differs")
        if ref_tsfile and os.path.exists(ref_tsfile):
            same = filecmp.cmp(ours, ref_tsfile, shallow=False)
            case.add("bytes", None, "" if same else first_difference(ours, ref_tsfile),
                     "identical" if same else "differ")

    def check_raw(self, case, path, label="raw"):
        """tsraw on a colfile-written file: no structural error, both magics. Returns the report."""
        rep, why = self.raw(path)
        if rep is None:
            case.add(label, False, f"tsraw failed: {why}")
            return None
        errs = list(rep.get("errors") or [])
        pe = (rep.get("summary") or {}).get("page_errors", 0)
        if pe:
            errs.append(f"{pe} page errors")
        if not (rep.get("head_magic_ok") and rep.get("tail_magic_ok")):
            errs.append("magic")
        case.add(label, not errs, "; ".join(map(str, errs[:3])))
        return rep

    def convert_reads(self, case, src, tag):
        """`colfile convert` outputs read by the official reader as colfile reads them."""
        schema_json = self.path("convert", f"{tag}.schema.json")
        rc, err = self.colfile_run(["schema", src], schema_json)
        if rc != 0:
            case.add("schema", False, f"colfile schema exit {rc}: {last_line(err)}")
            return
        tables = json.loads(read_text(schema_json, 100_000_000)).get("tables") or []
        outputs = []
        for t in tables:  # convert takes one table at a time
            name = t["name"]
            direct = self.path("convert", f"{tag}.{name}.tsfile")
            if self.colfile_convert(case, "convert", [src, direct, "--table", name]):
                outputs.append((f"direct.{name}", direct))
            spec = ",".join(f"{c['name']}:{c['type']}:{c['category']}" for c in t["columns"]
                            if c["category"] in ("TAG", "FIELD"))
            jsonl = self.path("convert", f"{tag}.{name}.jsonl")
            back = self.path("convert", f"{tag}.{name}.via_jsonl.tsfile")
            if (self.colfile_convert(case, "to-jsonl", [src, jsonl, "--table", name])
                    and self.colfile_convert(case, "from-jsonl", [jsonl, back, "--schema", spec,
                                                                  "--table", name])):
                outputs.append((f"via-jsonl.{name}", back))
        for label, out in outputs:
            ours = self.path("convert", f"{tag}.{label}.colfile.jsonl")
            rc, err = self.colfile_run(["cat", out, "--format", "dump"], ours)
            if rc != 0:
                case.add("readback", False, f"{label}: colfile cat exit {rc}: {last_line(err)}")
                continue
            got = self.path("convert", f"{tag}.{label}.official.jsonl")
            rc, err = self.oracle.run(["dump", out], got)
            if rc != 0:
                case.add("official", False, f"{label}: official dump failed: {last_line(err)}")
                continue
            ok, det = self.compare(ours, got)
            case.add(label.split(".")[0] + "-official", ok, det)
            self.check_raw(case, out, label.split(".")[0] + "-raw")

    def v3_convert_reads(self, case, src, tag):
        """A TsFile v3 written by IoTDB/TsFile 1.x, converted to v4 by `colfile convert`: the
        official reader reads the v4 file as colfile does, and with the rows colfile reads
        from the v3 original."""
        out = self.path("v3", f"{tag}.v4.tsfile")
        if not self.colfile_convert(case, "convert", [src, out]):
            return
        ours = self.path("v3", f"{tag}.v4.colfile.jsonl")
        rc, err = self.colfile_run(["cat", out, "--format", "dump"], ours)
        if rc != 0:
            case.add("readback", False, f"colfile cat exit {rc}: {last_line(err)}")
            return
        got = self.path("v3", f"{tag}.v4.official.jsonl")
        rc, err = self.oracle.run(["dump", out], got)
        if rc != 0:
            case.add("official", False, f"official dump failed: {last_line(err)}")
            return
        case.add("official", *self.compare(ours, got))
        original = self.path("v3", f"{tag}.v3.colfile.jsonl")
        rc, err = self.colfile_run(["cat", src, "--format", "dump"], original)
        if rc != 0:
            case.add("v3-read", False, f"colfile cat of the v3 file exit {rc}: {last_line(err)}")
            return
        case.add("rows-as-v3", *self.compare(original, got, rows_only=True))
        self.check_raw(case, out, "v4-raw")

    def colfile_convert(self, case, label, argv):
        """colfile convert ARGV (output second); True when it wrote the output."""
        out = argv[1]
        if os.path.exists(out):
            os.remove(out)
        rc, err = self.colfile_run(["convert"] + argv + ["--no-progress"], out + ".stdout")
        if rc == 0 and os.path.exists(out):
            return True
        case.add(label, False, f"colfile convert exit {rc}: {last_line(err)}")
        return False

    def colfile_write(self, case, spec_path, out, names_unsupported):
        """colfile write --spec; returns True when there is a file to check."""
        if os.path.exists(out):
            os.remove(out)
        rc, err = self.colfile_run(["write", out, "--format", "tsfile", "--spec", spec_path], out + ".stdout")
        if rc == 0 and os.path.exists(out):
            return True
        if names_unsupported:
            ok, det = unsupported_error_ok(rc, err, names_unsupported)
            case.add("refused", ok, det, "expected-unsupported" if ok else None)
            if ok:
                case.kind = "expected-unsupported"
                if os.path.exists(out):
                    case.add("leftover", None, "colfile left a file behind after refusing", "file-left")
        else:
            case.add("write", False, f"colfile write exit {rc}: {last_line(err)}")
        return False

    @staticmethod
    def guard(case, fn, *args, **kw):
        try:
            return fn(*args, **kw)
        except Exception as e:  # noqa: BLE001
            case.error = f"interop script error: {type(e).__name__}: {e}"
            return None

    # -------------------------------------------------------------- main

    def fixture_names(self):
        try:
            with open(os.path.join(self.fixtures, "MANIFEST.json"), encoding="utf-8") as f:
                manifest = json.load(f)
        except (OSError, ValueError):
            manifest = {}
        names = sorted(fn[: -len(".tsfile")] for fn in os.listdir(self.fixtures) if fn.endswith(".tsfile"))
        return names, manifest

    def fixture_raw(self, name):
        p = os.path.join(self.fixtures, name + ".raw.json")
        try:
            with open(p, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            rep, _ = self.raw(os.path.join(self.fixtures, name + ".tsfile"))
            return rep

    def main(self):
        t_start = time.time()
        print(f"# seed {self.seed} (rerun with INTEROP_SEED={self.seed})", flush=True)
        cases = []
        names, manifest = self.fixture_names()

        # 1. fixtures
        for name in names:
            ts = os.path.join(self.fixtures, name + ".tsfile")
            exp = os.path.join(self.fixtures, name + ".expected.jsonl")
            spec = os.path.join(self.fixtures, name + ".spec.json")
            raw = self.fixture_raw(name)
            encs, comps = features(raw or {})
            unsup = unsupported_of(encs, comps)
            c = Case("colfile-reads", "fixture", name)
            cases.append(c)
            q = QUERY_FIXTURES.get(name)
            self.guard(c, self.colfile_reads, c, ts, exp, unsup, f"fixture_{name}", query=q)
            src = str((manifest.get(name) or {}).get("expected_source", ""))
            # A direct convert keeps the fixture's codecs, which the official reader may not
            # read (MANIFEST expected_source "spec ...").
            # Tree-model files convert only to JSONL (every device), so they are not here.
            tree = not ((raw or {}).get("meta") or {}).get("table_schemas")
            if c.passed and c.kind == "fixture" and not src.startswith("spec") and not tree:
                cc = Case("official-reads", "convert", name)
                cases.append(cc)
                self.guard(cc, self.convert_reads, cc, ts, f"fixture_{name}")
            if os.path.exists(spec):
                c = Case("official-reads", "fixture", name)
                cases.append(c)
                ours = self.path("official", f"fixture_{name}.colfile.tsfile")
                official_ok = not src.startswith("spec")
                if self.guard(c, self.colfile_write, c, spec, ours, unsup):
                    self.guard(c, self.official_reads, c, ours, exp, ts, raw, official_ok, f"fixture_{name}")
            print(f"# fixture {name}: done ({time.time() - t_start:.0f} s)", flush=True)

        # 1b. real TsFile v3 files (IoTDB / TsFile 1.x writers), converted to v4
        for name in V3_FILES:
            src = os.path.join(self.a.external, name)
            if not os.path.exists(src):
                continue
            c = Case("official-reads", "v3-convert", name.removesuffix(".tsfile"))
            cases.append(c)
            self.guard(c, self.v3_convert_reads, c, src, f"v3_{len(cases)}")
        print(f"# v3 conversions: done ({time.time() - t_start:.0f} s)", flush=True)

        # 2. fresh random files, both ways
        qrng = random.Random(self.seed ^ 0x5EED)
        for name, spec in make_specs(self.seed, self.probe):
            sp = self.path("live", f"{name}.spec.json")
            with open(sp, "w", encoding="utf-8") as f:
                json.dump(spec, f, ensure_ascii=False, indent=None)
            off = self.path("live", f"{name}.official.tsfile")
            ours = self.path("live", f"{name}.colfile.tsfile")
            ref = self.path("live", f"{name}.official.jsonl")
            cr = Case("colfile-reads", "live", name)
            orc = Case("official-reads", "live", name)
            cases += [cr, orc]
            rc, err = self.oracle.write(sp, off, self.path("live", f"{name}.official.write.log"))
            if rc != 0 or not os.path.exists(off):
                cr.error = orc.error = f"official write failed (spec {os.path.relpath(sp)}): {last_line(err)}"
                continue
            rc, err = self.oracle.run(["dump", off], ref)
            if rc != 0:
                cr.error = orc.error = f"official dump of the official file failed: {last_line(err)}"
                continue
            off_raw, _ = self.raw(off)
            self.guard(cr, self.colfile_reads, cr, off, ref, [], f"live_{name}", query=rand_query(qrng, spec))
            if self.guard(orc, self.colfile_write, orc, sp, ours, []):
                self.guard(orc, self.official_reads, orc, ours, ref, off, off_raw, True, f"live_{name}")
            print(f"# live {name}: done ({time.time() - t_start:.0f} s)", flush=True)
        self.oracle.stop()

        # 3. report
        order = [("colfile-reads", "fixture"), ("colfile-reads", "expected-unsupported"),
                 ("colfile-reads", "live"), ("official-reads", "fixture"),
                 ("official-reads", "expected-unsupported"), ("official-reads", "live"),
                 ("official-reads", "convert"), ("official-reads", "v3-convert")]
        results = []
        for direction, kind in order:
            sel = [c for c in cases if c.direction == direction and c.kind == kind]
            if not sel:
                continue
            print(f"\n## {direction} {kind} ({len(sel)} cases)")
            for c in sel:
                print(c.line())
                results.append({"direction": c.direction, "kind": c.kind, "name": c.name, "passed": c.passed,
                                "error": c.error, "checks": [{"check": l, "ok": o, "detail": t, "status": w}
                                                             for l, o, t, w in c.checks]})
        print("\n## summary")
        for direction, kind in order:
            sel = [c for c in cases if c.direction == direction and c.kind == kind]
            if not sel:
                continue
            p = sum(c.passed for c in sel)
            levels = {}
            for c in sel:
                for label, _, _, word in c.checks:
                    s = levels.setdefault(label, {})
                    s[word] = s.get(word, 0) + 1
            lv = ", ".join(f"{l} " + "/".join(f"{n} {w}" for w, n in sorted(s.items())) for l, s in levels.items())
            print(f"{direction} {kind}: {p} passed, {len(sel) - p} failed   [{lv}]")
        with open(os.path.join(self.work, "results.json"), "w", encoding="utf-8") as f:
            json.dump({"seed": self.seed, "cases": results}, f, indent=1, ensure_ascii=False)
        passed = sum(c.passed for c in cases)
        print(f"# {time.time() - t_start:.1f} s, {self.oracle.calls} oracle calls "
              f"({self.oracle.restarts} worker restarts); details in {os.path.relpath(self.work)}")
        print(f"{passed} passed, {len(cases) - passed} failed")
        return 0 if passed == len(cases) else 1


def describe_query(q):
    return " ".join(f"--{k} {','.join(v) if isinstance(v, list) else v}" for k, v in q.items() if v is not None)


def first_difference(a, b):
    with open(a, "rb") as f:
        x = f.read()
    with open(b, "rb") as f:
        y = f.read()
    n = min(len(x), len(y))
    i = next((i for i in range(n) if x[i] != y[i]), n)
    return f"first difference at byte {i} (colfile {len(x)} bytes, official {len(y)} bytes)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--colfile", required=True)
    ap.add_argument("--oracle-dir", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--external", default=None,
                    help="the real files of other writers (default: fixtures/external/real beside the oracle)")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = int(time.time())
    if a.external is None:
        a.external = os.path.join(a.oracle_dir, "..", "..", "fixtures", "external", "real")
    sys.exit(Runner(a).main())


if __name__ == "__main__":
    main()
