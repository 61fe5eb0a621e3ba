#!/usr/bin/env python3
"""The house rules a script can check (run by .ci/run from the repository root):

1. no Rust file over 800 lines (sources, tests, benches, examples of every crate);
2. no import loop between the library's modules: the graph of `use crate::...` /
   `use super::...` statements between files of src/ (an item used from an ancestor
   module does not count; doc comments do not count) has no cycle;
3. the library's normal dependencies hold no argument parser or terminal crate, and
   serde_json is optional (the `json` feature).

Prints one line per breach and exits 1 if there is any.
"""
import os
import re
import sys

MAX_LINES = 800
problems = []

def rust_files(top):
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if x not in ("target", ".git")]
        for f in files:
            if f.endswith(".rs"):
                yield os.path.join(d, f)

for top in ["src", "tests", "benches", "examples", "colfile-cli", "colfile-datafusion",
            "colfile-testkit", "fuzz/src", "fuzz/fuzz_targets"]:
    if not os.path.isdir(top):
        continue
    for p in rust_files(top):
        with open(p, encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES:
            problems.append(f"{p}: {n} lines (at most {MAX_LINES})")

# --- import loops in src/
mods = {}
for p in rust_files("src"):
    rel = os.path.relpath(p, "src")[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    if rel == ["lib"]:
        rel = []
    mods["::".join(["crate"] + rel)] = p

def resolve(cur, path):
    parts = path.split("::")
    base = cur.split("::")
    if parts[0] == "crate":
        cand = parts
    elif parts[0] == "super":
        cand = base[:]
        while parts and parts[0] == "super":
            cand, parts = cand[:-1], parts[1:]
        cand = cand + parts
    elif parts[0] == "self":
        cand = base + parts[1:]
    else:
        return None
    for n in range(len(cand), 0, -1):
        m = "::".join(cand[:n])
        if m in mods:
            return m
    return None

USE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+((?:crate|super|self)(?:::\w+)*)(?:::\{([^;]*))?", re.M)
edges = {m: set() for m in mods}
for m, p in mods.items():
    with open(p, encoding="utf-8") as fh:
        src = fh.read()
    # unit tests may use anything
    src = re.split(r"#\[cfg\(test\)\]\s*mod tests", src)[0]
    for base, inner in USE.findall(src):
        targets = [base]
        if inner:
            inner = re.sub(r"\{[^}]*\}", "", inner.split("}")[0] if inner.count("{") == 0 else inner)
            for it in inner.split(","):
                it = it.strip().split(" as ")[0].strip("} ")
                if it:
                    targets.append(base + "::" + it.split("::")[0])
        for t in targets:
            r = resolve(m, t)
            if r and r != m and not m.startswith(r + "::"):
                edges[m].add(r)

index, low, stack, on, counter = {}, {}, [], set(), [0]
sys.setrecursionlimit(100000)

def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            problems.append("import loop: " + " <-> ".join(sorted(comp)))

for v in list(edges):
    if v not in index:
        strong(v)

# --- the library's dependencies
with open("Cargo.toml", encoding="utf-8") as fh:
    manifest = fh.read()
deps = manifest.split("\n[dependencies]\n", 1)[1].split("\n[", 1)[0]
for crate in ["lexopt", "clap", "indicatif", "console", "termcolor", "atty", "is-terminal", "csv"]:
    if re.search(rf"^{re.escape(crate)}\s*=", deps, re.M):
        problems.append(f"Cargo.toml: the library depends on {crate}, which only the command needs")
m = re.search(r"^serde_json\s*=\s*(.*)$", deps, re.M)
if m and "optional = true" not in m.group(1):
    problems.append("Cargo.toml: serde_json must be optional (feature json) in the library")

for p in problems:
    print(p)
print(f"house: {len(mods)} library modules, {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
