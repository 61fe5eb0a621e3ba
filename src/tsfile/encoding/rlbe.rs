//! RLBE (`spec/tsfile.md` §7.9): deltas, run-length coded by bit length with Fibonacci run
//! counts, for INT32/DATE and FLOAT (32-bit lanes) and INT64/TIMESTAMP and DOUBLE (64-bit).
//!
//! ```text
//! Stream  := Block*                        # blocks of up to 10 000 values
//! Block   := u32 count  Segment+  pad      # MSB-first bits; pad to a byte boundary
//! Segment := L (6 bits for 32-bit lanes, 7 for 64-bit)  Fib(r)  r values of L bits each
//! Fib(r)  := Zeckendorf bits of r over 1, 2, 3, 5, 8, …, lowest term first, then '1'
//! ```
//!
//! Value 0 of a block is the first lane itself, value i the wrapping delta `x_i - x_{i-1}`.
//! `L` is the delta's bit length (1 for 0; a negative delta has `L` = 32/64), and segments
//! are maximal runs of equal `L`. Java writes an `L` = 32/64 value with its top bit clear
//! (`(v & 1 << 31) > 0` is false for the sign bit) and its reader restores it by
//! subtracting `MIN_VALUE`; C++ does the same. Bytes equal Java's and C++'s for integers.
//!
//! FLOAT/DOUBLE follow C++ 2.5, not Java: C++ (`FloatRLBEEncoder`) takes the integer
//! deltas of the raw bit patterns, so a stream reads back bit-exactly (NaN payloads
//! included). Java's `FloatRLBE`/`DoubleRLBE` subtract the floats instead and store the bits
//! of the float difference; their reader adds floats, which is neither exact nor the same
//! stream layout in meaning. The two are not interchangeable: after the first value, Java
//! misreads C++'s (and our) FLOAT/DOUBLE blocks and vice versa. We follow C++ because its
//! reader (the only official one that can be run here) must read what we write, and
//! C++-written files are the FLOAT/DOUBLE RLBE files we can check against.

use super::bits::{BitReader, BitWriter};
use super::limit_exceeded;
use super::word::Word;
use crate::tsfile::format::values::Values;
use crate::{Error, Result};

/// Values per block (Java `BLOCK_DEFAULT_SIZE`).
const BLOCK: usize = 10_000;

/// Bits of a segment's length code.
fn length_bits<T: Word>() -> u32 {
    if T::BITS == 32 {
        6
    } else {
        7
    }
}

/// A delta's bit length as RLBE stores it (at least 1).
fn length<T: Word>(d: T) -> u32 {
    d.bit_len().max(1)
}

/// The terms 1, 2, 3, 5, 8, … of the Fibonacci run code, up to the first above `limit`.
fn fib_terms(limit: u64) -> Vec<u64> {
    let mut f = vec![1u64, 2];
    while let [.., a, b] = *f.as_slice() {
        if b > limit {
            break;
        }
        f.push(a + b);
    }
    f
}

/// Appends the RLBE stream of `values` (INT32, INT64, FLOAT or DOUBLE; no values, no bytes).
pub(crate) fn encode(values: &Values, out: &mut Vec<u8>) -> Result<()> {
    match values {
        Values::Int32(v) => encode_lanes(v, out),
        Values::Int64(v) => encode_lanes(v, out),
        Values::Float(v) => encode_lanes(
            &v.iter().map(|x| x.to_bits() as i32).collect::<Vec<_>>(),
            out,
        ),
        Values::Double(v) => encode_lanes(
            &v.iter().map(|x| x.to_bits() as i64).collect::<Vec<_>>(),
            out,
        ),
        _ => return Err(Error::unsupported("RLBE of this type")),
    }
    Ok(())
}

fn encode_lanes<T: Word>(lanes: &[T], out: &mut Vec<u8>) {
    let fib = fib_terms(BLOCK as u64);
    for block in lanes.chunks(BLOCK) {
        let deltas: Vec<T> = block
            .iter()
            .enumerate()
            .map(
                |(i, &x)| match i.checked_sub(1).and_then(|p| block.get(p)) {
                    Some(&prev) => x.wrapping_sub(prev),
                    None => x,
                },
            )
            .collect();
        let mut w = BitWriter::new(out);
        w.put(block.len() as u64, 32);
        for run in deltas.chunk_by(|a, b| length(*a) == length(*b)) {
            let l = run.first().map_or(1, |&d| length(d));
            w.put(l as u64, length_bits::<T>());
            put_fib(&mut w, run.len() as u64, &fib);
            let top = if l == T::BITS {
                !(1u64 << (l - 1))
            } else {
                u64::MAX
            };
            for &d in run {
                w.put(d.to_bits() & top, l);
            }
        }
        w.finish();
    }
}

/// Writes `r` ≥ 1 as its Zeckendorf bits, lowest term first, then the closing '1'.
fn put_fib(w: &mut BitWriter<'_>, mut r: u64, fib: &[u64]) {
    let mut code = 0u64;
    for (j, &f) in fib.iter().enumerate().rev() {
        if f <= r {
            code |= 1 << j;
            r -= f;
        }
    }
    let n = 64 - code.leading_zeros();
    w.put(code.reverse_bits() >> (64 - n), n);
    w.put(1, 1);
}

/// Decodes the RLBE stream `input` into `out` (INT32, INT64, FLOAT or DOUBLE values); more
/// than `max` values is an error.
pub(crate) fn decode(input: &[u8], max: usize, out: &mut Values) -> Result<()> {
    match out {
        Values::Int32(o) => decode_lanes(input, max, |x: i32| x, o),
        Values::Int64(o) => decode_lanes(input, max, |x: i64| x, o),
        Values::Float(o) => decode_lanes(input, max, |x: i32| f32::from_bits(x as u32), o),
        Values::Double(o) => decode_lanes(input, max, |x: i64| f64::from_bits(x as u64), o),
        _ => Err(Error::unsupported("RLBE of this type")),
    }
}

fn decode_lanes<T: Word, V>(
    input: &[u8],
    max: usize,
    conv: impl Fn(T) -> V,
    out: &mut Vec<V>,
) -> Result<()> {
    let mut r = BitReader::new(input);
    let mut left = max;
    let fib = fib_terms(u32::MAX as u64);
    let truncated = |r: &BitReader<'_>| {
        Error::truncated(
            "RLBE stream",
            r.consumed_bits().div_ceil(8),
            input.len() as u64,
        )
        .at_offset(r.consumed_bits() / 8)
    };
    let corrupt = |r: &BitReader<'_>, msg: String| {
        Error::corrupt("tsfile", msg).at_offset(r.consumed_bits() / 8)
    };
    loop {
        // Each block starts on a byte boundary.
        r.skip(((8 - r.consumed_bits() % 8) % 8) as u32);
        if r.remaining_bits() == 0 {
            return Ok(());
        }
        let count = r.read(32) as usize;
        if r.overrun() {
            return Err(truncated(&r));
        }
        if count == 0 {
            return Err(corrupt(&r, "RLBE block of 0 values".into()));
        }
        if count > left {
            return Err(limit_exceeded("RLBE", max).at_offset(r.consumed_bits() / 8 - 4));
        }
        // Every value takes at least one bit.
        if count as u64 > r.remaining_bits() {
            return Err(truncated(&r));
        }
        left -= count;
        out.reserve(count);
        let (mut got, mut prev) = (0usize, T::default());
        while got < count {
            let l = r.read(length_bits::<T>()) as u32;
            if l == 0 || l > T::BITS {
                return Err(corrupt(&r, format!("RLBE length code {l}")));
            }
            let run = match read_fib(&mut r, (count - got) as u64, &fib) {
                Some(run) => run,
                None if r.overrun() => return Err(truncated(&r)),
                None => return Err(corrupt(&r, "RLBE run longer than its block".into())),
            };
            if r.overrun() || run * l as u64 > r.remaining_bits() {
                return Err(truncated(&r));
            }
            for _ in 0..run {
                let mut d = T::from_bits(r.read_wide(l));
                if l == T::BITS {
                    d = d.wrapping_sub(T::from_bits(1 << (l - 1)));
                }
                prev = if got == 0 { d } else { prev.wrapping_add(d) };
                out.push(conv(prev));
                got += 1;
            }
        }
    }
}

/// Reads a Fibonacci run code; `None` when it exceeds `limit` (or never ends in time).
fn read_fib(r: &mut BitReader<'_>, limit: u64, fib: &[u64]) -> Option<u64> {
    let mut sum = 0u64;
    let mut now = r.read(1);
    for &f in fib {
        let next = r.read(1);
        if now == 1 {
            sum += f;
            if sum > limit {
                return None;
            }
            if next == 1 {
                return Some(sum);
            }
        }
        if r.overrun() {
            return None;
        }
        now = next;
    }
    None
}
