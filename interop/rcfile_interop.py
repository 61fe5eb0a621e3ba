#!/usr/bin/env python3
"""Live RCFile interoperability check: colfile against Hive 2.3's own RCFile code (rcoracle).

Run through interop/rcfile.sh, which builds both tools first. Five groups of cases:

  hive-reads  fixture X   colfile writes the rows of fixtures/rcfile/X.json (Hive's dump) with X's
                          options; Hive reads the result (`rcoracle check`, levels `structure` and
                          `values`); uncompressed files must equal Hive's X.rc byte for byte.
  hive-reads  live X      the same for files Hive wrote in this run from fresh random specs.
  colfile-reads live X    Hive writes fresh random specs (new seed each run); `colfile cat` must
                          give the rows of Hive's dump and `colfile meta` its `header` output.
  colfile-reads fixture X the same for the checked-in fixtures (Spark's files included).
  hive-reads  convert X   `colfile convert X.rc OUT.rc` (X's schema, serde and codec; the rows go
                          through convert's JSON-lines pipeline into `write`): Hive must read
                          OUT.rc to the rows of X.json (`rcoracle check --level values`).

All Hive work runs in two JVMs (`rcoracle batch`), three when a case needs Hive's rewrite. One line per case, then `N passed, N failed`.
"""

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hivejson as hj  # noqa: E402
import live_specs  # noqa: E402

CODEC_NAMES = {
    None: "none",
    "org.apache.hadoop.io.compress.DefaultCodec": "deflate",
    "org.apache.hadoop.io.compress.GzipCodec": "gzip",
    "org.apache.hadoop.io.compress.SnappyCodec": "snappy",
    "org.apache.hadoop.io.compress.Lz4Codec": "lz4",
    "org.apache.hadoop.io.compress.BZip2Codec": "bzip2",
    "org.apache.hadoop.io.compress.ZStandardCodec": "zstd",
}
COLUMN_NUMBER_KEY = "hive.io.rcfile.column.number"
COMMAND_TIMEOUT = 120  # seconds for one colfile command (the largest case file is ~150 KB)
BATCH_TIMEOUT = 480  # seconds for one rcoracle batch JVM


class Case:
    def __init__(self, direction, kind, name):
        self.direction = direction  # "hive-reads" | "colfile-reads"
        self.kind = kind  # "fixture" | "live"
        self.name = name
        self.checks = []  # [(label, ok: True | False | None (informational), detail, word)]
        self.error = None

    def add(self, label, ok, detail="", word=None):
        """word: how to show an informational (ok=None) result, default "info"."""
        self.checks.append((label, ok, detail, word or ("ok" if ok else "FAIL" if ok is False else "info")))

    @property
    def passed(self):
        return self.error is None and all(ok is not False for _, ok, _, _ in self.checks) and bool(self.checks)

    def line(self):
        parts = []
        for label, ok, detail, word in self.checks:
            parts.append(f"{label}={word}" + (f"({detail})" if detail and ok is not True else ""))
        if self.error:
            parts.append(f"error({self.error})")
        head = "PASS" if self.passed else "FAIL"
        return f"{head} {self.direction:13} {self.kind:7} {self.name:32} " + " ".join(parts)


def first_line(s, n=240):
    s = (s or "").strip().splitlines()
    s = s[-1] if s else ""
    return s if len(s) <= n else s[: n - 3] + "..."


class Runner:
    def __init__(self, a):
        self.colfile = a.colfile
        self.rcoracle = a.rcoracle
        self.fixtures = a.fixtures
        self.work = a.work
        self.seed = a.seed
        self.verbose = a.verbose
        os.makedirs(self.work, exist_ok=True)

    # ------------------------------------------------------------ tools

    def run(self, argv, stdout_path=None):
        """Run a command; returns (rc, stdout text or None, stderr text)."""
        try:
            if stdout_path:
                with open(stdout_path, "wb") as out:
                    p = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                       timeout=COMMAND_TIMEOUT)
                return p.returncode, None, p.stderr.decode("utf-8", "replace")
            p = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            return -1, None if stdout_path else "", f"timed out after {COMMAND_TIMEOUT} s"
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")

    def oracle_batch(self, name, cmds):
        path = os.path.join(self.work, f"{name}.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for c in cmds:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
        log = os.path.join(self.work, f"{name}.log")
        t0 = time.time()
        with open(log, "wb") as err:
            try:
                rc = subprocess.run([self.rcoracle, "batch", path], stdout=subprocess.DEVNULL, stderr=err,
                                    stdin=subprocess.DEVNULL, timeout=BATCH_TIMEOUT).returncode
            except subprocess.TimeoutExpired:
                rc = f"timeout after {BATCH_TIMEOUT} s"
        print(f"# rcoracle batch {name}: {len(cmds)} commands, rc={rc}, "
              f"{time.time() - t0:.1f} s (log: {os.path.relpath(log)})", flush=True)
        return rc

    # ------------------------------------------------------------ inputs

    def fixture_names(self):
        names = []
        for fn in sorted(os.listdir(self.fixtures)):
            if not fn.endswith(".json") or fn.endswith(".raw.json"):
                continue
            name = fn[: -len(".json")]
            if os.path.exists(os.path.join(self.fixtures, name + ".rc")):
                names.append(name)
        return names

    @staticmethod
    def read_options(dump):
        """colfile cat/write options for a dump's schema and serde. Binary dates and timestamps are
        Hive 2.3's: hybrid Julian/Gregorian calendar, JVM zone UTC (colfile takes these options
        for the binary serde only: text values are strings with no zone)."""
        schema = ",".join(f"{c['name']}:{c['type']}" for c in dump["columns"])
        argv = ["--schema", schema, "--serde", dump["serde"]]
        if dump["serde"] == "binary":
            argv += ["--calendar", "hybrid", "--time-zone", "UTC"]
        for k, v in (dump.get("serde_properties") or {}).items():
            argv += ["--serde-prop", f"{k}={v}"]
        return argv

    @staticmethod
    def write_options(spec, dump):
        """colfile write options reproducing what Hive was told in spec (sync and metadata as
        found in Hive's file)."""
        h = dump["header"]
        codec = spec.get("codec") or "none"
        codec = CODEC_NAMES.get(codec, codec)
        argv = ["--format", "rcfile", "--codec", codec] + Runner.read_options(dump)
        if spec.get("row_group_rows") is not None:
            argv += ["--row-group-rows", str(spec["row_group_rows"])]
        if spec.get("row_group_bytes") is not None:
            argv += ["--row-group-bytes", str(spec["row_group_bytes"])]
        if spec.get("seq_header"):
            argv += ["--seq-header"]
        argv += ["--sync", h["sync"]]
        for k, v in h["metadata"].items():
            if k != COLUMN_NUMBER_KEY:
                argv += ["--meta", f"{k}={v}"]
        return argv

    # ------------------------------------------------------------ colfile reads Hive

    def colfile_reads(self, case, rc_path, dump, header, projection=False):
        """cat vs the dump's rows (optionally also a projected cat), meta vs Hive's header."""
        if dump.get("serde") in (None, "raw"):
            case.add("rows", None, "raw serde: cells only, not compared by cat")
        else:
            self.cat_compare(case, "rows", rc_path, dump, None)
            n = len(dump["columns"])
            if projection and n >= 3:
                # every third column and the last, asked for in reverse order: colfile prints
                # the selected columns in schema order
                idx = sorted(set(range(0, n, 3)) | {n - 1})
                self.cat_compare(case, "projection", rc_path, dump, idx)
        rc, out, err = self.run([self.colfile, "meta", rc_path])
        if rc != 0:
            case.add("meta", False, f"colfile meta exit {rc}: {first_line(err)}")
            return
        try:
            got = hj.loads(out)
        except ValueError as e:
            case.add("meta", False, f"not JSON: {e}")
            return
        diffs = compare_meta(header, got)
        case.add("meta", not diffs, "; ".join(diffs[:3]))

    def cat_compare(self, case, label, rc_path, dump, idx):
        out = os.path.join(self.work, "cat", f"{case.kind}_{case.name}.{label}.jsonl")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        argv = [self.colfile, "cat", rc_path] + self.read_options(dump)
        cols = [(c["name"], hj.parse_type(c["type"])) for c in dump["columns"]]
        exp = dump["rows"]
        if idx is not None:
            argv += ["--columns", ",".join(cols[i][0] for i in reversed(idx))]
            cols = [cols[i] for i in idx]
            exp = [[r[i] for i in idx] for r in exp]
        rc, _, err = self.run(argv, stdout_path=out)
        if rc != 0:
            case.add(label, False, f"colfile cat exit {rc}: {first_line(err)}")
            return
        got = []
        with open(out, encoding="utf-8") as f:
            for n, line in enumerate(f):
                try:
                    got.append(hj.loads(line))
                except ValueError as e:
                    case.add(label, False, f"output line {n + 1} is not JSON: {e}")
                    return
        diffs = hj.compare_rows(cols, exp, got)
        what = f"{len(got)} rows" + (f", {len(cols)} columns" if idx is not None else "")
        case.add(label, not diffs, what + ("; " + "; ".join(diffs[:3]) if diffs else ""))

    # ------------------------------------------------------------ colfile writes, Hive reads

    def colfile_write(self, case, spec, dump, tag):
        d = os.path.join(self.work, "write", tag, case.name)
        shutil.rmtree(d, ignore_errors=True)  # no stale results from an earlier run
        os.makedirs(d)
        jsonl = os.path.join(d, "rows.jsonl")
        with open(jsonl, "w", encoding="utf-8") as f:
            for row in dump["rows"]:
                f.write(hj.dumps(row) + "\n")
        ours = os.path.join(d, "colfile.rc")
        argv = [self.colfile, "write", ours] + self.write_options(spec, dump) + ["--input", jsonl]
        with open(os.path.join(d, "command.txt"), "w", encoding="utf-8") as f:
            f.write(json.dumps(argv, ensure_ascii=False) + "\n")
        rc, _, err = self.run(argv)
        if rc != 0 or not os.path.exists(ours):
            case.error = f"colfile write exit {rc}: {first_line(err)}"
            return None
        return d, ours

    def colfile_convert(self, case, spec, dump, hive_rc):
        """`colfile convert` of Hive's file to a new RCFile with the same serde and codec (rows
        through convert's JSON-lines pipeline into `write`); returns its path."""
        d = os.path.join(self.work, "convert", case.name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        out = os.path.join(d, "converted.rc")
        codec = CODEC_NAMES.get(spec.get("codec"), spec.get("codec") or "none")
        argv = [self.colfile, "convert", hive_rc, out, "--no-progress", "--codec", codec,
                "--out-serde", dump["serde"]] + self.read_options(dump)
        rc, _, err = self.run(argv)
        if rc != 0 or not os.path.exists(out):
            case.error = f"colfile convert exit {rc}: {first_line(err)}"
            return None
        return out

    def hive_checks(self, d, ours, dump_path):
        """Batch commands for one colfile-written file: Hive's checks against the dump it came
        from, and Hive's header of it."""
        j = lambda n: os.path.join(d, n)  # noqa: E731
        return [
            ["check", ours, dump_path, "--level", "structure", "--out", j("check_structure.json")],
            ["check", ours, dump_path, "--level", "values", "--out", j("check_values.json")],
            ["header", ours, "--out", j("hive_header.json")],
        ]

    def hive_rewrite(self, d, ours, spec, dump):
        """Batch commands for Hive's own rewrite of a dump's rows with the same options, and
        Hive's checks of our file against that rewrite's dump (see judge_write)."""
        rw_spec = {k: v for k, v in spec.items() if k not in ("rows", "generate", "comment")}
        rw_spec["rows"] = [oracle_input(r) for r in dump["rows"]]
        rw_spec["sync"] = dump["header"]["sync"]
        rw_spec_path = os.path.join(d, "hive_rewrite.spec.json")
        with open(rw_spec_path, "w", encoding="utf-8") as f:
            f.write(hj.dumps(rw_spec))
        rw_rc, rw_dump = os.path.join(d, "hive_rewrite.rc"), os.path.join(d, "hive_rewrite.json")
        j = lambda n: os.path.join(d, n)  # noqa: E731
        return [
            ["write", rw_spec_path, rw_rc, "--dump", rw_dump],
            ["check", ours, rw_dump, "--level", "structure", "--out", j("rewrite_check_structure.json")],
            ["check", ours, rw_dump, "--level", "values", "--out", j("rewrite_check_values.json")],
        ]

    @staticmethod
    def load_check(path):
        try:
            with open(path, encoding="utf-8") as f:
                c = json.load(f)
        except (OSError, ValueError):
            return False, "no result from rcoracle check (see the batch log)"
        if c.get("check") == "ok":
            return True, ""
        return False, f"{c.get('differences')} differences: " + "; ".join(x[:160] for x in c.get("first", [])[:3])

    def evaluate(self, d, ours, ref_rc, ref_dump, prefix):
        """[(label, ok, detail, word)] for our file against one Hive reference (file + dump)."""
        out = []
        compressed = bool(ref_dump["header"].get("compressed"))
        ok_v, det_v = self.load_check(os.path.join(d, prefix + "check_values.json"))
        out.append(("values", ok_v, det_v, None))
        ok_s, det_s = self.load_check(os.path.join(d, prefix + "check_structure.json"))
        same = filecmp.cmp(ours, ref_rc, shallow=False)
        if not compressed:
            out.append(("structure", ok_s, det_s, None))
            out.append(("bytes", same, "" if same else first_difference(ours, ref_rc), None))
            return out
        # Compressed files. What `check --level structure` compares (RcOracle.cmdCheck): magic,
        # version, compressed, codec, metadata, row_group_count, rows_per_group, and per group
        # rows, key_length, and per column uncompressed_length and cell_lengths_hex. It does not
        # compare column on-disk lengths, compressed_key_length, record_length or offsets. But
        # key_length is the *uncompressed* key size, and the key stores each column's on-disk
        # length as a vint: a different (still valid) compressor output changes key_length
        # whenever a column's compressed size lands in another vint width (<=127, <=255,
        # <=65535, ...), and can move the 2000-byte sync-marker points. Hive's codecs here are
        # java.util.zip, snappy-java, lz4-java and Hadoop's pure-Java bzip2; colfile's are
        # flate2/zlib-rs, snap, lz4_flex and the bzip2 crate, so byte-identical compressed
        # streams are not expected. So Hive's strict structure level is reported as is, and
        # the case is judged by "structure modulo codec output": every field Hive compares, with
        # key_length corrected for the vint widths of the on-disk lengths, plus the sync-marker
        # rule and the length arithmetic on our offsets, all from Hive's own `header` reading
        # of our file. Values must pass regardless.
        out.append(("structure", ok_s if ok_s else None, det_s, None if ok_s else "differs"))
        try:
            got = hj.load(os.path.join(d, "hive_header.json"))
            diffs = structure_mod_codec(ref_dump, got)
        except (OSError, ValueError) as e:
            diffs = [f"no Hive header output for our file ({e})"]
        out.append(("structure_mod_codec", not diffs, "; ".join(diffs[:3]), None))
        out.append(("bytes", None, "", "identical" if same else "differ"))
        return out

    def judge_write(self, case, d, ours, hive_rc, dump, primary):
        # Some rows of a dump do not determine Hive's bytes (what Hive read back is not what it
        # was given: e.g. a decimal over its precision, which Hive's text writer stores as four
        # NUL bytes and reads as NULL, or a text map entry with a \N key, which Hive drops).
        # colfile is given the dump's rows, so the fair reference is what Hive writes from those
        # same rows. Use it only when Hive's own rewrite differs from Hive's original file.
        rw_rc, rw_dump_path = os.path.join(d, "hive_rewrite.rc"), os.path.join(d, "hive_rewrite.json")
        try:
            rw_dump = hj.load(rw_dump_path)
            fixpoint = filecmp.cmp(rw_rc, hive_rc, shallow=False)
        except (OSError, ValueError):
            rw_dump, fixpoint = None, True
        if fixpoint or rw_dump is None:
            for c in primary:
                case.add(*c)
            return
        case.add("reference", None, f"Hive's rewrite of the dump rows: Hive's original differs, "
                 f"{first_difference(rw_rc, hive_rc).replace('colfile', 'rewrite')}", "hive-rewrite")
        for c in self.evaluate(d, ours, rw_rc, rw_dump, "rewrite_"):
            case.add(*c)
        bad = [f"{l}: {det}" if det else l for l, ok, det, _ in primary if ok is False]
        case.add("vs_original", None, "; ".join(bad)[:300], "differs")

    @staticmethod
    def guard(case, fn, *args, **kw):
        """Run one step of a case; an unexpected error fails that case, not the whole run."""
        try:
            return fn(*args, **kw)
        except Exception as e:  # noqa: BLE001
            case.error = f"interop script error: {type(e).__name__}: {e}"
            return None

    # ------------------------------------------------------------ main

    def main(self):
        cases = []
        t_start = time.time()
        print(f"# seed {self.seed} (rerun with INTEROP_SEED={self.seed})", flush=True)

        # 1. live specs, written by Hive (JVM 1)
        live_dir = os.path.join(self.work, "live")
        os.makedirs(live_dir, exist_ok=True)
        live = []
        cmds = []
        for name, spec in live_specs.make_specs(self.seed):
            sp = os.path.join(live_dir, name + ".spec.json")
            with open(sp, "w", encoding="utf-8") as f:
                json.dump(spec, f, ensure_ascii=False, indent=1)
            rc = os.path.join(live_dir, name + ".rc")
            dp = os.path.join(live_dir, name + ".json")
            hp = os.path.join(live_dir, name + ".header.json")
            for p in (rc, dp, hp):
                if os.path.exists(p):
                    os.remove(p)
            cmds.append(["write", sp, rc, "--dump", dp])
            cmds.append(["header", rc, "--out", hp])
            live.append((name, spec, rc, dp, hp))
        self.oracle_batch("hive_writes", cmds)

        # 2. colfile reads what Hive wrote: live, then the fixtures
        for name, spec, rc, dp, hp in live:
            c = Case("colfile-reads", "live", name)
            cases.append(c)
            try:
                dump, header = hj.load(dp), hj.load(hp)
            except (OSError, ValueError) as e:
                c.error = f"Hive did not write the file: {e}"
                continue
            self.guard(c, self.colfile_reads, c, rc, dump, header, projection=True)
        fixtures = self.fixture_names()
        for name in fixtures:
            c = Case("colfile-reads", "fixture", name)
            cases.append(c)
            dump = hj.load(os.path.join(self.fixtures, name + ".json"))
            self.guard(c, self.colfile_reads, c, os.path.join(self.fixtures, name + ".rc"), dump, dump)

        # 3. colfile writes, Hive reads (JVM 2): fixtures except spark_* (rows from Spark, random
        # syncs) and raw_* (no serde), then this run's live files
        writes = []
        cmds = []
        for name in fixtures:
            if name.startswith("spark_") or name.startswith("raw_"):
                continue
            dump_path = os.path.join(self.fixtures, name + ".json")
            spec = hj.load(os.path.join(self.fixtures, "specs", name + ".json"))
            writes.append(("fixture", name, spec, dump_path, os.path.join(self.fixtures, name + ".rc")))
        for name, spec, rc, dp, hp in live:
            if os.path.exists(dp):
                writes.append(("live", name, spec, dp, rc))
        pending = []
        converts = []
        for kind, name, spec, dump_path, hive_rc in writes:
            c = Case("hive-reads", kind, name)
            cases.append(c)
            dump = hj.load(dump_path)
            if kind == "fixture":
                cc = Case("hive-reads", "convert", name)
                cases.append(cc)
                r = self.guard(cc, self.colfile_convert, cc, spec, dump, hive_rc)
                if r is not None:
                    cmds.append(["check", r, dump_path, "--level", "values", "--out", r + ".check_values.json"])
                    converts.append((cc, r))
            r = self.guard(c, self.colfile_write, c, spec, dump, kind)
            if r is None:
                continue
            d, ours = r
            cmds += self.hive_checks(d, ours, dump_path)
            pending.append((c, d, ours, hive_rc, dump, spec))
        if cmds:
            self.oracle_batch("hive_reads", cmds)
        for cc, out in converts:
            ok, det = self.load_check(out + ".check_values.json")
            cc.add("values", ok, det)
        # cases that fail against Hive's original: let Hive rewrite the same rows (JVM 3)
        retry, cmds = [], []
        for c, d, ours, hive_rc, dump, spec in pending:
            primary = self.guard(c, self.evaluate, d, ours, hive_rc, dump, "")
            if primary is None:
                continue
            if all(ok is not False for _, ok, _, _ in primary):
                for x in primary:
                    c.add(*x)
            else:
                cmds += self.hive_rewrite(d, ours, spec, dump)
                retry.append((c, d, ours, hive_rc, dump, primary))
        if cmds:
            self.oracle_batch("hive_rewrites", cmds)
        for c, d, ours, hive_rc, dump, primary in retry:
            self.guard(c, self.judge_write, c, d, ours, hive_rc, dump, primary)

        # 4. report
        order = [("colfile-reads", "live"), ("colfile-reads", "fixture"), ("hive-reads", "fixture"),
                 ("hive-reads", "live"), ("hive-reads", "convert")]
        results = []
        for direction, kind in order:
            sel = [c for c in cases if c.direction == direction and c.kind == kind]
            print(f"\n## {direction} {kind} ({len(sel)} cases)")
            for c in sel:
                print(c.line())
                results.append({"direction": c.direction, "kind": c.kind, "name": c.name, "passed": c.passed,
                                 "error": c.error,
                                 "checks": [{"check": l, "ok": o, "detail": t, "status": w}
                                            for l, o, t, w in c.checks]})
        print("\n## summary")
        for direction, kind in order:
            sel = [c for c in cases if c.direction == direction and c.kind == kind]
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
        print(f"# {time.time() - t_start:.1f} s; details in {os.path.relpath(self.work)}")
        print(f"{passed} passed, {len(cases) - passed} failed")
        return 0 if passed == len(cases) else 1


def oracle_input(v):
    """A dump value as rcoracle spec input: the same encoding, except that -0.0 must be the
    string "-0.0" (the oracle parses JSON numbers as BigDecimal, which has no negative zero)."""
    if isinstance(v, hj.Num):
        return "-0.0" if str.__str__(v) in ("-0.0", "-0") else v
    if isinstance(v, list):
        return [oracle_input(x) for x in v]
    if isinstance(v, dict):
        return {k: oracle_input(x) for k, x in v.items()}
    return v


def first_difference(a, b):
    with open(a, "rb") as f:
        x = f.read()
    with open(b, "rb") as f:
        y = f.read()
    n = min(len(x), len(y))
    i = next((i for i in range(n) if x[i] != y[i]), n)
    return f"first difference at byte {i} (colfile {len(x)} bytes, Hive {len(y)} bytes)"


def compare_meta(exp, got):
    """colfile meta vs Hive's header output: every field Hive prints (except its file name and
    the bzip2 reader-patch note) must be there with the same value."""
    diffs = []
    eh, gh = exp.get("header", {}), got.get("header")
    if not isinstance(gh, dict):
        return ["no header object"]
    for k, v in eh.items():
        if k == "reader_patch":
            continue
        if k not in gh:
            diffs.append(f"header.{k} missing")
        elif gh[k] != v:
            diffs.append(f"header.{k}: expected {hj.dumps(v)[:100]}, got {hj.dumps(gh[k])[:100]}")
    eg, gg = exp.get("row_groups", []), got.get("row_groups")
    if not isinstance(gg, list):
        return diffs + ["no row_groups list"]
    if len(eg) != len(gg):
        diffs.append(f"row_groups: expected {len(eg)}, got {len(gg)}")
    for i, (a, b) in enumerate(zip(eg, gg)):
        for k, v in a.items():
            if k not in b:
                diffs.append(f"row_groups[{i}].{k} missing")
            elif k == "columns":  # (raw dumps' "cells" are not part of colfile meta)
                if len(v) != len(b[k]):
                    diffs.append(f"row_groups[{i}].columns: expected {len(v)}, got {len(b[k])}")
                for c, (x, y) in enumerate(zip(v, b[k])):
                    for kk, vv in x.items():
                        if kk != "cells" and y.get(kk) != vv:
                            diffs.append(f"row_groups[{i}].columns[{c}].{kk}: expected {vv}, got {y.get(kk)}")
            elif b[k] != v:
                diffs.append(f"row_groups[{i}].{k}: expected {v}, got {b[k]}")
    return diffs


def structure_mod_codec(exp, got):
    """Structure of our compressed file (as Hive's `header` reads it) against Hive's dump, allowing
    only what a different compressor legitimately changes. See judge_write."""
    diffs = []
    eh, gh = exp["header"], got["header"]
    for k in ("magic", "version", "compressed", "codec", "metadata", "column_count", "header_length", "sync",
              "row_group_count", "row_count", "rows_per_group"):
        if eh.get(k) != gh.get(k):
            diffs.append(f"header.{k}: expected {eh.get(k)}, got {gh.get(k)}")
    eg, gg = exp["row_groups"], got["row_groups"]
    last_sync_end = 0
    for i, b in enumerate(gg):
        # Hive's writer: a sync marker before a group that starts >= 2000 bytes after the last one
        want_sync = b["offset"] >= last_sync_end + 2000
        if b["sync_before"] != want_sync:
            diffs.append(f"row_groups[{i}].sync_before={b['sync_before']} at offset {b['offset']} "
                         f"(last sync end {last_sync_end})")
        if b["sync_before"]:
            last_sync_end = b["offset"] + 20
        disk = sum(c["length"] for c in b["columns"])
        if b["record_length"] != b["key_length"] + disk:
            diffs.append(f"row_groups[{i}].record_length {b['record_length']} != key_length + column lengths")
        if b["end"] - b["offset"] != (20 if b["sync_before"] else 0) + 12 + b["compressed_key_length"] + disk:
            diffs.append(f"row_groups[{i}]: group size does not add up")
    for i, (a, b) in enumerate(zip(eg, gg)):
        if a["rows"] != b["rows"]:
            diffs.append(f"row_groups[{i}].rows: expected {a['rows']}, got {b['rows']}")
        ka = a["key_length"] - sum(hj.vint_size(c["length"]) for c in a["columns"])
        kb = b["key_length"] - sum(hj.vint_size(c["length"]) for c in b["columns"])
        if ka != kb:
            diffs.append(f"row_groups[{i}].key_length: expected {a['key_length']}, got {b['key_length']} "
                         f"(not explained by on-disk length vints)")
        for c, (x, y) in enumerate(zip(a["columns"], b["columns"])):
            for k in ("uncompressed_length", "cell_lengths_hex"):
                if x[k] != y[k]:
                    diffs.append(f"row_groups[{i}].columns[{c}].{k}: expected {x[k]}, got {y[k]}")
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--colfile", required=True)
    ap.add_argument("--rcoracle", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = int(time.time())
    sys.exit(Runner(a).main())


if __name__ == "__main__":
    main()
