//! CAMEL (`spec/tsfile.md` §7.10) for DOUBLE, bit-exact with Java's `CamelEncoder` /
//! `CamelDecoder` (and so with the C++ writer, which ports them) for every value their
//! arithmetic reads back exactly.
//!
//! A page's stream is one or more blocks (writers emit one per page), each
//! `VarInt total_bits` followed by `ceil(total_bits / 8)` bytes of an MSB-first bit stream,
//! zero-padded. Every block starts from fresh state. Its fields:
//!
//! * the first value: its 64 raw bits;
//! * every later value: a sign bit (of Java's `doubleToLongBits`), then a type bit, then the
//!   magnitude `|v|`:
//!   * `1`, decimal path, for `|v|` with `digits(int part) + d ≤ 10` decimal places `d ≥ 1`
//!     that make `|v| · 10^d` a whole number in double arithmetic: the integer part's
//!     difference from the previous one (the first value's integer part, truncated, seeds
//!     it) as a *bit varlong*, `d − 1` in 4 bits, then the `d` fractional digits `f`: if
//!     `f ≥ 5^d`, a `1`, the top `d` mantissa bits of `bits(f/10^d + 1) ^ bits(m/10^d + 1)`
//!     and `m = f mod 5^d`; else a `0` and `m = f`; then `m` as a bit varlong;
//!   * `0`, XOR path, for everything else (0, ±inf, huge, tiny or long-fractioned values):
//!     a Gorilla step of `bits(|v|)` against the previous value's bits (sign included): `0`
//!     = same, `10` + the bits inside the stored leading/trailing window, `11` + 6-bit
//!     leading zeros + 6-bit (length − 1) + the bits, which becomes the window.
//!
//! A *bit varlong* is zigzag, then 7-bit groups low group first, each followed by a
//! continuation bit. Readers rebuild decimal-path magnitudes as
//! `(int · 10^d + round(frac · 10^d)) / 10^d`, with the sign bit applied as a factor ±1.
//!
//! Where these bytes differ from Java's and C++'s: for a value whose decimal path does not
//! read back bit for bit, [`encode`] takes the XOR path, which is exact. Java (and the C++
//! 2.5 writer, which matches it byte for byte, NaN included: checked against the official
//! library) writes the decimal path anyway, losing data in two cases:
//! * NaN after the first value: every comparison with NaN is false, so it goes down the
//!   decimal path with integer part and fraction 0 and every reader returns `0.0`; the
//!   writer's XOR reference then is NaN's bits while the reader's is `0.0`, so the next
//!   XOR-path value (say `inf`) reads back wrong too. The loss is the algorithm's, not a C++
//!   bug. Here such a NaN reads back as NaN (payload kept, sign not);
//! * values that `|v| · 10^d` rounds onto a whole number although `|v|` is not the double
//!   nearest that decimal (e.g. `228.79999999999998`, one ulp below `228.8`, which Java and
//!   C++ store as `228.8`).
//!
//! Such streams are what Java's and C++'s readers decode exactly, so files stay readable
//! everywhere; all other pages (a NaN first value included: it is stored raw) are
//! byte-identical to Java's and C++'s.

use super::bits::{BitReader, BitWriter};
use super::float_wrapper::java_round;
use super::limit_exceeded;
use super::plain::java_double_bits as java_bits;
use crate::cursor::Cursor;
use crate::tsfile::format::varint::put_varint;
use crate::{Error, Result};

/// Most integer + fractional digits the encoder's decimal path takes.
const ENCODER_MAX_DIGITS: u32 = 10;
/// `10^n` for `n` = 0..=15 (the decoder accepts up to 15 fractional digits, like Java).
#[allow(clippy::indexing_slicing)] // in bounds: evaluated at compile time, 1 <= i < 16
const POW10: [i64; 16] = {
    let mut t = [1i64; 16];
    let mut i = 1;
    while i < 16 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// The XOR path's window, shared by writer and reader (`lz == u32::MAX`: none yet).
#[derive(Clone, Copy)]
struct Window {
    lz: u32,
    tz: u32,
}

impl Window {
    const NONE: Window = Window {
        lz: u32::MAX,
        tz: 0,
    };
}

/// Encoder state for one block.
struct Writer<'a> {
    w: BitWriter<'a>,
    bits: u64,
    /// The last integer part (Java `storedVal`).
    int_part: i64,
    /// `java_bits` of the last value, sign included (Java `previousValue`).
    prev: u64,
    window: Window,
}

impl Writer<'_> {
    fn put(&mut self, v: u64, n: u32) {
        self.w.put(v, n);
        self.bits += u64::from(n);
    }

    /// Zigzag, then 7-bit groups, low first, each followed by a continuation bit.
    fn put_varlong(&mut self, v: i64) {
        let mut u = ((v << 1) ^ (v >> 63)) as u64;
        while u >= 0x80 {
            self.put(((u & 0x7f) << 1) | 1, 8);
            u >>= 7;
        }
        self.put(u << 1, 8);
    }

    fn put_value(&mut self, v: f64) {
        let sign = java_bits(v) >> 63;
        self.put(sign, 1);
        let a = v.abs();
        let factor = if sign == 1 { -1.0 } else { 1.0 };
        match Decimal::of(a).filter(|x| (factor * x.magnitude()).to_bits() == v.to_bits()) {
            Some(x) => {
                self.put(1, 1);
                self.put_varlong(x.int_part.wrapping_sub(self.int_part));
                self.int_part = x.int_part;
                self.put(u64::from(x.d - 1), 4);
                match x.high {
                    Some(h) => {
                        self.put(1, 1);
                        self.put(h, x.d);
                    }
                    None => self.put(0, 1),
                }
                self.put_varlong(x.m);
            }
            None => {
                self.put(0, 1);
                self.put_xor(a.to_bits());
            }
        }
        self.prev = java_bits(v);
    }

    fn put_xor(&mut self, cur: u64) {
        let x = cur ^ self.prev;
        if x == 0 {
            self.put(0, 1);
            return;
        }
        let (lz, tz) = (x.leading_zeros(), x.trailing_zeros());
        let Window { lz: wl, tz: wt } = self.window;
        if lz >= wl && tz >= wt {
            self.put(0b10, 2);
            self.put(x >> wt, 64 - wl - wt);
        } else {
            let sig = 64 - lz - tz;
            self.put(0b11, 2);
            self.put(u64::from(lz), 6);
            self.put(u64::from(sig - 1), 6);
            self.put(x >> tz, sig);
            self.window = Window { lz, tz };
        }
    }
}

/// A decimal-path magnitude as stored: integer part, `d` fractional digits, the optional
/// high mantissa bits and the remainder `m`.
struct Decimal {
    int_part: i64,
    d: u32,
    high: Option<u64>,
    m: i64,
}

impl Decimal {
    /// Java's decimal form of a magnitude `a ≥ 0`, or `None` for the XOR path. Java also
    /// sends `a` with `|floor(log10 a)| > 10` down the XOR path; that test never decides
    /// anything (such values need more than 10 digits anyway), so it is left out.
    fn of(a: f64) -> Option<Decimal> {
        if a == 0.0 || a > i64::MAX as f64 {
            return None;
        }
        let int_part = a as i64;
        let mut digits = 1;
        let mut rest = int_part;
        while rest >= 10 {
            rest /= 10;
            digits += 1;
        }
        let mut factor = 1.0f64;
        let mut d = 0u32;
        while (a * factor - java_round(a * factor) as f64).abs() > 0.0 {
            factor *= 10.0;
            d += 1;
            if digits + d > ENCODER_MAX_DIGITS {
                break;
            }
        }
        let d = d.max(1);
        if digits + d > ENCODER_MAX_DIGITS {
            return None;
        }
        let pow = *POW10.get(d as usize)?;
        let f = java_round(a * pow as f64) % pow;
        let threshold = pow >> d; // 5^d
        if f < threshold {
            return Some(Decimal {
                int_part,
                d,
                high: None,
                m: f,
            });
        }
        let m = f % threshold;
        let x = java_bits(f as f64 / pow as f64 + 1.0) ^ java_bits(m as f64 / pow as f64 + 1.0);
        let high = Some((x >> (52 - d)) & ((1 << d) - 1));
        Some(Decimal {
            int_part,
            d,
            high,
            m,
        })
    }

    /// The magnitude Java's reader rebuilds (`d` ≤ 15).
    fn magnitude(&self) -> f64 {
        // The mask keeps the index below 16, the table's length.
        let pow = POW10.get(self.d as usize & 15).copied().unwrap_or(1) as f64;
        let m = self.m as f64 / pow;
        let frac = match self.high {
            Some(h) => f64::from_bits((h << (52 - self.d)) ^ java_bits(m + 1.0)) - 1.0,
            None => m,
        };
        let dec = java_round(frac * pow) as f64;
        let ip = self.int_part as f64;
        if self.int_part >= 0 {
            (ip * pow + dec) / pow
        } else {
            -(ip * pow + dec) / pow
        }
    }
}

/// Appends one block holding `values` (nothing for none, as Java's `flush` does).
pub(crate) fn encode(values: &[f64], out: &mut Vec<u8>) -> Result<()> {
    let Some((&first, rest)) = values.split_first() else {
        return Ok(());
    };
    let mut body = Vec::with_capacity(values.len() * 4 + 8);
    let mut w = Writer {
        w: BitWriter::new(&mut body),
        bits: 0,
        int_part: first as i64,
        prev: java_bits(first),
        window: Window::NONE,
    };
    w.put(first.to_bits(), 64);
    for &v in rest {
        w.put_value(v);
    }
    let bits = i32::try_from(w.bits).map_err(|_| Error::invalid("CAMEL page too large"))?;
    w.w.finish();
    put_varint(out, bits);
    out.extend_from_slice(&body);
    Ok(())
}

/// Decodes every block of `input` (first byte at offset `base`) into `out`; more than `max`
/// values is an error.
pub(crate) fn decode(input: &[u8], base: u64, max: usize, out: &mut Vec<f64>) -> Result<()> {
    let mut c = Cursor::new(input, base);
    let mut produced = 0usize;
    while !c.is_empty() {
        let at = c.offset();
        let bits = c.read_varint()?;
        let bits = u64::try_from(bits).ok().filter(|&b| b > 0).ok_or_else(|| {
            Error::corrupt("tsfile", format!("CAMEL block of {bits} bits")).at_offset(at)
        })?;
        let body_at = c.offset();
        let body = c.take("CAMEL block", bits.div_ceil(8) as usize)?;
        let mut r = Reader {
            r: BitReader::new(body),
            bits,
            base: body_at,
            int_part: 0,
            prev: 0,
            window: Window::NONE,
        };
        // The first value takes 64 bits, every later one at least 3.
        let first = f64::from_bits(r.r.read_wide(64));
        r.check()?;
        r.int_part = first as i64;
        r.prev = java_bits(first);
        let mut v = first;
        loop {
            if produced == max {
                return Err(limit_exceeded("CAMEL", max).at_offset(r.offset()));
            }
            out.push(v);
            produced += 1;
            if r.r.consumed_bits() == bits {
                break;
            }
            v = r.value()?;
            r.check()?;
            r.prev = java_bits(v);
        }
    }
    Ok(())
}

/// Decoder state for one block.
struct Reader<'a> {
    r: BitReader<'a>,
    /// The block's declared bit count.
    bits: u64,
    /// Offset of the block's first byte.
    base: u64,
    int_part: i64,
    prev: u64,
    window: Window,
}

impl Reader<'_> {
    fn offset(&self) -> u64 {
        self.base + self.r.consumed_bits() / 8
    }

    fn corrupt(&self, msg: impl Into<String>) -> Error {
        Error::corrupt("tsfile", msg).at_offset(self.offset())
    }

    /// Fails when the last value ran past the block's declared bits.
    fn check(&self) -> Result<()> {
        if self.r.consumed_bits() > self.bits {
            return Err(self.corrupt(format!(
                "CAMEL value runs past its block's {} bits",
                self.bits
            )));
        }
        Ok(())
    }

    fn varlong(&mut self) -> Result<i64> {
        let mut u = 0u64;
        let mut shift = 0u32;
        loop {
            let group = self.r.read(8);
            u |= (group >> 1) << shift;
            shift += 7;
            if group & 1 == 0 {
                break;
            }
            if shift >= 64 {
                return Err(self.corrupt("CAMEL varlong is too long"));
            }
        }
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    fn value(&mut self) -> Result<f64> {
        let head = self.r.read(2);
        let sign = if head >> 1 == 1 { -1.0 } else { 1.0 };
        if head & 1 == 0 {
            return Ok(sign * self.xor()?);
        }
        self.int_part = self.int_part.wrapping_add(self.varlong()?);
        let d = self.r.read(4) as u32 + 1;
        if d as usize >= POW10.len() {
            return Err(self.corrupt(format!("CAMEL value with {d} decimal digits")));
        }
        let high = (self.r.read(1) == 1).then(|| self.r.read(d));
        let m = self.varlong()?;
        let x = Decimal {
            int_part: self.int_part,
            d,
            high,
            m,
        };
        Ok(sign * x.magnitude())
    }

    fn xor(&mut self) -> Result<f64> {
        if self.r.read(1) == 0 {
            return Ok(f64::from_bits(self.prev));
        }
        if self.r.read(1) == 1 {
            let lz = self.r.read(6) as u32;
            let sig = self.r.read(6) as u32 + 1;
            if lz + sig > 64 {
                return Err(
                    self.corrupt(format!("CAMEL window of {lz} leading zeros and {sig} bits"))
                );
            }
            self.window = Window {
                lz,
                tz: 64 - lz - sig,
            };
        } else if self.window.lz == u32::MAX {
            return Err(self.corrupt("CAMEL '10' before any '11'"));
        }
        let Window { lz, tz } = self.window;
        let x = self.r.read_wide(64 - lz - tz) << tz;
        Ok(f64::from_bits(self.prev ^ x))
    }
}
