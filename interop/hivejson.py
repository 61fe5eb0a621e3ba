"""JSON glue shared by the interop scripts.

* `loads` parses JSON keeping every non-integer number as its literal text (`Num`), so rows can
  be passed on to `colfile write` digit for digit and floats can be compared at their own width.
* `dumps` writes JSON back out, emitting `Num` literals unchanged.
* `parse_type` parses a Hive type string (`map<string,array<struct<a:int>>>`).
* `compare_value` compares one value of a given Hive type the way the interop check wants it:
  float and double by value at their width (bit for bit after rounding, every NaN equal to every
  NaN, so -0.0 != 0.0), everything else exactly (integers exact, decimals, dates, timestamps and
  binary as the exact strings of the dump format, maps as ordered [[k, v], ...] lists, structs as
  objects with the fields in order, unions as {"tag": n, "value": v}).
"""

import json
import math
import struct
from fractions import Fraction


class Num(str):
    """A JSON number literal that is not an integer, kept as text."""


def loads(text):
    return json.loads(text, parse_float=Num, parse_constant=Num)


def load(path):
    with open(path, encoding="utf-8") as f:
        return loads(f.read())


def dumps(v):
    out = []
    _dump(v, out)
    return "".join(out)


def _dump(v, out):
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, Num):
        out.append(str.__str__(v))
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, float):
        out.append(repr(v))
    elif isinstance(v, str):
        out.append(json.dumps(v, ensure_ascii=False))
    elif isinstance(v, list):
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            _dump(x, out)
        out.append("]")
    elif isinstance(v, dict):
        out.append("{")
        for i, (k, x) in enumerate(v.items()):
            if i:
                out.append(",")
            out.append(json.dumps(k, ensure_ascii=False))
            out.append(":")
            _dump(x, out)
        out.append("}")
    else:
        raise TypeError(f"cannot write {type(v).__name__} as JSON")


# ---------------------------------------------------------------- Hive types

class HiveType:
    __slots__ = ("kind", "args", "fields")

    def __init__(self, kind, args=(), fields=()):
        self.kind = kind  # primitive name, or array / map / struct / uniontype
        self.args = list(args)  # element types (array: [T], map: [K, V], union: [T...])
        self.fields = list(fields)  # struct: [(name, type)]

    def __repr__(self):
        if self.kind == "struct":
            return "struct<" + ",".join(f"{n}:{t!r}" for n, t in self.fields) + ">"
        if self.args:
            return self.kind + "<" + ",".join(repr(a) for a in self.args) + ">"
        return self.kind


def parse_type(s):
    t, i = _parse_type(s, 0)
    if s[i:].strip():
        raise ValueError(f"trailing text in type {s!r}: {s[i:]!r}")
    return t


def _ident(s, i):
    j = i
    while j < len(s) and (s[j].isalnum() or s[j] in "_$"):
        j += 1
    return s[i:j], j


def _skip(s, i):
    while i < len(s) and s[i] == " ":
        i += 1
    return i


def _expect(s, i, c):
    i = _skip(s, i)
    if i >= len(s) or s[i] != c:
        raise ValueError(f"type {s!r}: expected {c!r} at {i}")
    return i + 1


def _parse_type(s, i):
    i = _skip(s, i)
    name, i = _ident(s, i)
    name = name.lower()
    if name in ("array", "map", "uniontype"):
        i = _expect(s, i, "<")
        args = []
        while True:
            t, i = _parse_type(s, i)
            args.append(t)
            i = _skip(s, i)
            if s[i] == ",":
                i += 1
                continue
            i = _expect(s, i, ">")
            break
        return HiveType(name, args), i
    if name == "struct":
        i = _expect(s, i, "<")
        fields = []
        i = _skip(s, i)
        if s[i] == ">":
            return HiveType("struct", fields=fields), i + 1
        while True:
            i = _skip(s, i)
            fname, i = _ident(s, i)
            i = _expect(s, i, ":")
            t, i = _parse_type(s, i)
            fields.append((fname, t))
            i = _skip(s, i)
            if s[i] == ",":
                i += 1
                continue
            i = _expect(s, i, ">")
            break
        return HiveType("struct", fields=fields), i
    # primitive, maybe with parameters: varchar(10), decimal(10,2)
    i2 = _skip(s, i)
    if i2 < len(s) and s[i2] == "(":
        j = s.index(")", i2)
        i = j + 1
    return HiveType(name), i


# ---------------------------------------------------------------- floats

def _f32_bits(q):
    """Correctly rounded (nearest, ties to even) float32 bits of the exact rational q."""
    if q == 0:
        return 0
    neg = q < 0
    a = -q if neg else q
    # exponent e with 2^e <= a < 2^(e+1)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    if e < -126:
        e = -126  # subnormal range: fixed quantum 2^-149
    scale = Fraction(2) ** (23 - e)
    m_exact = a * scale
    m = m_exact.numerator // m_exact.denominator
    rem = m_exact - m
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and m % 2 == 1):
        m += 1
    value = Fraction(m) / scale
    if value >= Fraction(2) ** 128 - Fraction(2) ** 103:  # rounds to infinity
        bits = 0x7F800000
    else:
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
    return bits | (0x80000000 if neg else 0)


# the only strings a float or double may be, as in the dumps (anything else must be a JSON number)
_SPECIAL = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}


def float_key(v, width):
    """("nan",) for any NaN, else the IEEE bits of v at the given width (32 or 64). v is a JSON
    number (Num or int) or one of the strings "NaN", "Infinity", "-Infinity"."""
    if isinstance(v, bool) or v is None:
        raise ValueError(f"not a number: {v!r}")
    if isinstance(v, Num):
        text = str.__str__(v)
    elif isinstance(v, int):
        text = str(v)
    elif isinstance(v, str):
        if v not in _SPECIAL:
            raise ValueError(f"not a number: {v!r}")
        text = v
    elif isinstance(v, float):
        text = repr(v)
    else:
        raise ValueError(f"not a number: {v!r}")
    if text in _SPECIAL:
        f = float(_SPECIAL[text])
        if math.isnan(f):
            return ("nan",)
        if width == 32:
            return struct.unpack("<I", struct.pack("<f", f))[0]
        return struct.unpack("<Q", struct.pack("<d", f))[0]
    if width == 64:
        f = float(text)  # Python's float() is correctly rounded
        return struct.unpack("<Q", struct.pack("<d", f))[0]
    q = Fraction(text)
    bits = _f32_bits(q)
    if q == 0 and text.startswith("-"):
        bits = 0x80000000
    return bits


# ---------------------------------------------------------------- comparison

def _short(v):
    s = dumps(v) if not isinstance(v, Exception) else str(v)
    return s if len(s) <= 80 else s[:77] + "..."


def compare_value(t, exp, got, path, diffs, limit=20):
    """Append human-readable differences between exp (the Hive dump) and got to diffs."""
    if len(diffs) >= limit:
        return
    if exp is None or got is None:
        if not (exp is None and got is None):
            diffs.append(f"{path}: expected {_short(exp)}, got {_short(got)}")
        return
    k = t.kind
    if k in ("float", "double"):
        w = 32 if k == "float" else 64
        try:
            same = float_key(exp, w) == float_key(got, w)
        except (ValueError, ArithmeticError):
            same = False
        if not same:
            diffs.append(f"{path} ({k}): expected {_short(exp)}, got {_short(got)}")
        return
    if k == "array":
        if not isinstance(got, list) or not isinstance(exp, list):
            diffs.append(f"{path}: expected {_short(exp)}, got {_short(got)}")
            return
        if len(exp) != len(got):
            diffs.append(f"{path}: expected {len(exp)} items {_short(exp)}, got {len(got)} {_short(got)}")
            return
        for i, (a, b) in enumerate(zip(exp, got)):
            compare_value(t.args[0], a, b, f"{path}[{i}]", diffs, limit)
        return
    if k == "map":
        ok = isinstance(got, list) and all(isinstance(p, list) and len(p) == 2 for p in got)
        if not ok or len(exp) != len(got):
            diffs.append(f"{path}: expected {_short(exp)}, got {_short(got)}")
            return
        for i, (a, b) in enumerate(zip(exp, got)):
            compare_value(t.args[0], a[0], b[0], f"{path}[{i}].key", diffs, limit)
            compare_value(t.args[1], a[1], b[1], f"{path}[{i}].value", diffs, limit)
        return
    if k == "struct":
        names = [n for n, _ in t.fields]
        if not isinstance(got, dict) or list(got.keys()) != list(exp.keys()):
            diffs.append(f"{path}: expected {_short(exp)}, got {_short(got)}")
            return
        for n, ft in t.fields:
            if n in exp:
                compare_value(ft, exp[n], got[n], f"{path}.{n}", diffs, limit)
        if list(exp.keys()) != names:
            diffs.append(f"{path}: dump struct fields {list(exp.keys())} are not {names}")
        return
    if k == "uniontype":
        if not isinstance(got, dict) or set(got.keys()) != {"tag", "value"} or got.get("tag") != exp.get("tag"):
            diffs.append(f"{path}: expected {_short(exp)}, got {_short(got)}")
            return
        tag = exp["tag"]
        compare_value(t.args[tag], exp["value"], got["value"], f"{path}<{tag}>", diffs, limit)
        return
    # every other primitive: exact JSON value (ints exact; strings exact)
    if type(exp) is not type(got) or exp != got:
        diffs.append(f"{path} ({k}): expected {_short(exp)}, got {_short(got)}")


def compare_rows(columns, exp_rows, got_rows, limit=20):
    """columns: [(name, HiveType)]; exp_rows: dump rows (lists); got_rows: colfile rows (dicts)."""
    diffs = []
    names = [n for n, _ in columns]
    if len(exp_rows) != len(got_rows):
        diffs.append(f"row count: expected {len(exp_rows)}, got {len(got_rows)}")
    for r, (e, g) in enumerate(zip(exp_rows, got_rows)):
        if len(diffs) >= limit:
            break
        if not isinstance(g, dict) or list(g.keys()) != names:
            diffs.append(f"row {r}: expected keys {names[:6]}..., got {_short(g)}")
            continue
        for c, (n, t) in enumerate(columns):
            compare_value(t, e[c], g[n], f"row {r} {n}", diffs, limit)
    return diffs


def vint_size(i):
    """Bytes of Hadoop's WritableUtils.writeVInt(i)."""
    if -112 <= i <= 127:
        return 1
    if i < 0:
        i = ~i
    return 1 + (i.bit_length() + 7) // 8
