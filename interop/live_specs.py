"""Fresh oracle specs for the live interop run: random rows (`generate`) with a per-run seed plus a
few hand-written edge rows, over schemas that cover every Hive type (nested too), both serdes,
every codec the oracle's JVM can write, small row groups, sync markers, SEQ headers, row groups cut
by bytes, serde properties, metadata, wide and empty files."""

import hashlib

# every primitive type, including parameterized ones and bare `decimal` (= decimal(10,0))
PRIM = [
    ("b", "boolean"), ("ti", "tinyint"), ("si", "smallint"), ("i", "int"), ("bi", "bigint"),
    ("f", "float"), ("d", "double"), ("s", "string"), ("vc", "varchar(10)"), ("c", "char(5)"),
    ("bin", "binary"), ("dt", "date"), ("ts", "timestamp"), ("dec", "decimal(10,2)"),
    ("dec38", "decimal(38,18)"), ("decd", "decimal"),
]
# nested: array, map (string, int, bigint and tinyint keys), struct, uniontype, 4 levels deep
NESTED = [
    ("ai", "array<int>"), ("aas", "array<array<string>>"), ("msi", "map<string,int>"),
    ("mia", "map<int,array<double>>"), ("st", "struct<a:int,b:string,c:array<boolean>,d:float>"),
    ("u", "uniontype<int,string,struct<x:double,y:date>>"),
    ("mbs", "map<bigint,struct<t:timestamp,v:varchar(4)>>"), ("ad", "array<decimal(12,4)>"),
    ("mb", "map<tinyint,binary>"), ("deep", "struct<p:map<string,array<struct<q:smallint,r:char(2)>>>>"),
]
ALL = PRIM + NESTED

# Hand-written rows for ALL. Values Hive reads back differently from what it was given are
# avoided where a rewrite of the read-back value could not reproduce Hive's bytes (for example
# an empty string in a numeric text column, which Hive reads as NULL).
EDGE_ROWS = [
    [None] * len(ALL),
    [True, 127, 32767, 2147483647, 9223372036854775807, "3.4028235E38", "1.7976931348623157E308",
     "h\u00e9llo \u4e2d\u6587 \U0001F600 tab\there", "0123456789abc", "abcdefg", "00ff7f80",
     "9999-12-31", "9999-12-31 23:59:59.999999999", "99999999.99",
     "99999999999999999999.999999999999999999", "9999999999",
     [2147483647, -2147483648, 0], [["a", "b"], ["c"]], [["k", 1], ["kk", None]],
     [[1, [0.5, "NaN"]], [-1, [1e-300]]], {"a": 1, "b": "x", "c": [True, False], "d": "1.5"},
     {"tag": 2, "value": {"x": "-0.0", "y": "1582-10-15"}},
     [[9223372036854775807, {"t": "2038-01-19 03:14:08", "v": "abcd"}]],
     ["12345678.1234", "-0.0001"], [[127, "ff"], [-128, "00"]],
     {"p": [["z", [{"q": -32768, "r": "zz"}]]]}],
    [False, -128, -32768, -2147483648, -9223372036854775808, "-Infinity", "NaN", "", "", "", "61",
     "0001-01-01", "0001-01-01 00:00:00", "-99999999.99", "-0.000000000000000001", "-9999999999",
     [], [], [], [], {"a": None, "b": None, "c": None, "d": None}, {"tag": 0, "value": 0}, [], [],
     [], {"p": []}],
    [None, 0, 0, 0, 0, "-0.0", "-0.0", "\\N", "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9",
     "\U0001F600\U0001F600", "0a0d", "1582-10-04", "1582-10-04 23:59:59.5", "1.005", "1.0000000000000000005",
     "0.5", [None, 1], [["x"], ["y", "z"]], [["n", None]], [[0, [None]]],
     {"a": -1, "b": "", "c": [], "d": "-0.0"}, {"tag": 1, "value": "un"},
     [[-1, {"t": "1500-03-01 12:00:00", "v": None}]], [None, "0.00005"], [[0, None]],
     {"p": [["", [{"q": None, "r": "a"}]]]}],
    [True, 1, -1, 1000000, 4294967296, "1.4E-45", "4.9E-324", "1.0E-7", "x", "y", "01",
     "1582-10-10", "1969-12-31 23:59:59.999999999", "0.01", "0.000000000000000001", "-1",
     [1], [["1"]], [["k", -2147483648]], [[2147483647, ["Infinity", "-Infinity"]]],
     {"a": 0, "b": "b", "c": [None], "d": "1.0E-7"},
     {"tag": 2, "value": {"x": "4.9E-324", "y": "0100-01-01"}},
     [[0, {"t": "1970-01-01 00:00:00.000000001", "v": ""}]], ["-99999999.9999"], [[1, "00"]],
     {"p": [["k", [{"q": 1, "r": "b"}, {"q": 2, "r": None}]]]}],
]

CODECS = ["none", "deflate", "gzip", "snappy", "lz4", "bzip2"]  # what this JVM can write

# separator-heavy rows for the text serde with escape.delim and custom separators
PROPS_COLS = [("s", "string"), ("a", "array<string>"), ("m", "map<string,string>"),
              ("st", "struct<x:string,y:int>"), ("n", "int")]
PROPS_ROWS = [
    ["a,b=c\\d", ["x,y", "=", "\\"], [["k=1", "v,2"], ["", "e"]], {"x": "p,q", "y": 3}, 1],
    ["NULL", ["NULL", "n"], [["z", "NULL"]], {"x": "NULL", "y": None}, None],
    [None, None, None, None, 7],
    ["\\N", ["\\N"], [["\\N", "\\N"]], {"x": "\\N", "y": 0}, -1],
]
PROPS = {"escape.delim": "\\", "serialization.null.format": "NULL", "colelction.delim": ",",
         "mapkey.delim": "="}

# separator and control bytes inside values: without escape.delim Hive's text serde splits
# nested values at them (the dump shows what Hive reads back); with it, they are escaped
CTRL_COLS = [("s", "string"), ("a", "array<string>"), ("m", "map<string,string>"),
             ("st", "struct<x:string,y:array<string>>"), ("vc", "varchar(6)"), ("b", "binary")]
CTRL_ROWS = [
    ["\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008", ["a\u0002b", "\u0003", "c\u0001"],
     [["k\u0003x", "v\u0002y"], ["\u0004", "\u0005"]], {"x": "p\u0002q", "y": ["\u0003\u0004", "z"]},
     "\u0002\u0002\u0002\u0002\u0002\u0002\u0002", "0102030405"],
    ["line\nbreak\rcr\ttab", ["\n", "\r"], [["\t", "\n"]], {"x": "\r\n", "y": ["\u000b"]}, "\n\n",
     "0a0d"],
    ["back\\slash \\N", ["\\", "\\N", "N"], [["\\N", "\\"]], {"x": "\\\\", "y": ["\\N"]}, "\\N", "5c4e"],
    ["", [""], [["", ""]], {"x": "", "y": [""]}, "", "00"],
    ["\u00ff\u0100 \U0001F600\u0000nul", ["\u0000"], [["\u0000", "\u0000"]], {"x": "\u0000", "y": []},
     "\u0000", "00ff"],
]

WIDE_TYPES = ["int", "string", "double", "bigint", "boolean", "timestamp", "decimal(9,3)", "date",
              "array<string>", "map<int,string>", "float", "smallint", "binary", "varchar(7)",
              "struct<a:int,b:string>"]


def _sync(name, seed):
    return hashlib.md5(f"{name}/{seed}".encode()).hexdigest()


def _cols(pairs):
    return [{"name": n, "type": t} for n, t in pairs]


def make_specs(seed):
    """[(name, spec)] for this run's seed."""
    out = []
    k = 0

    def add(name, serde, codec, cols, gen=None, rows=None, **extra):
        nonlocal k
        k += 1
        spec = {"serde": serde, "codec": codec, "columns": _cols(cols), "sync": _sync(name, seed)}
        if rows:
            spec["rows"] = rows
        if gen is not None:
            g = {"rows": 150, "seed": seed * 1000 + k, "null_rate": [0.05, 0.15, 0.3][k % 3],
                 "max_len": [8, 24, 60][k % 3], "max_items": [2, 4, 6][(k // 3) % 3]}
            g.update(gen)
            spec["generate"] = g
        spec.update(extra)
        out.append((name, spec))

    group_rows = [7, 16, 33, 50, 64, 100]
    for si, serde in enumerate(("text", "binary")):
        for ci, codec in enumerate(CODECS):
            # pure-Java bzip2 sets up ~1 MB of state per stream (one per column per group): keep
            # its groups larger so the oracle stays quick
            rgr = 50 if codec == "bzip2" else group_rows[(ci + si) % len(group_rows)]
            add(f"live_{serde}_{codec}", serde, codec, ALL, gen={}, rows=EDGE_ROWS,
                row_group_rows=rgr)
    add("live_seq_text_none", "text", "none", ALL, gen={"rows": 40}, rows=EDGE_ROWS,
        seq_header=True, row_group_rows=16)
    add("live_seq_binary_gzip", "binary", "gzip", ALL, gen={"rows": 40}, rows=EDGE_ROWS,
        seq_header=True, row_group_rows=16)
    add("live_seq_binary_bzip2", "binary", "bzip2", ALL, gen={"rows": 40}, seq_header=True,
        row_group_rows=25)
    add("live_bytes_binary_lz4", "binary", "lz4", PRIM, gen={"rows": 400, "max_len": 40},
        row_group_bytes=4096)
    add("live_bytes_text_deflate", "text", "deflate", PRIM, gen={"rows": 400, "max_len": 40},
        row_group_bytes=3000)
    small = [("id", "bigint"), ("name", "string"), ("x", "double"), ("t", "timestamp"),
             ("tags", "array<string>")]
    add("live_groups_binary_none", "binary", "none", small, gen={"rows": 3000}, row_group_rows=200)
    add("live_groups_text_snappy", "text", "snappy", small, gen={"rows": 2000}, row_group_rows=150)
    add("live_props_text_none", "text", "none", PROPS_COLS, gen={"rows": 60}, rows=PROPS_ROWS,
        serde_properties=PROPS, row_group_rows=20)
    add("live_props_text_gzip", "text", "gzip", PROPS_COLS, gen={"rows": 60}, rows=PROPS_ROWS,
        serde_properties=PROPS, row_group_rows=20)
    add("live_meta_binary_snappy", "binary", "snappy", small, gen={"rows": 30},
        metadata={"k": "v", "\u00fcn\u00efc\u00f6d\u00e9": "\u4e2d\u6587", "empty": "", "a.b": "1"})
    wide = [(f"w{i}", WIDE_TYPES[i % len(WIDE_TYPES)]) for i in range(150)]
    add("live_wide_binary_deflate", "binary", "deflate", wide, gen={"rows": 30, "max_len": 6},
        row_group_rows=8)
    add("live_wide_text_none", "text", "none", wide, gen={"rows": 30, "max_len": 6},
        row_group_rows=8)
    add("live_ctrl_text_none", "text", "none", CTRL_COLS, gen={"rows": 20}, rows=CTRL_ROWS)
    add("live_ctrl_text_escaped_none", "text", "none", CTRL_COLS, gen={"rows": 20}, rows=CTRL_ROWS,
        serde_properties={"escape.delim": "\\"})
    add("live_ctrl_binary_snappy", "binary", "snappy", CTRL_COLS, gen={"rows": 20}, rows=CTRL_ROWS)
    add("live_zero_rows_text_gzip", "text", "gzip", PRIM, gen={"rows": 0})
    add("live_zero_rows_binary_none", "binary", "none", ALL, gen={"rows": 0})
    return out
