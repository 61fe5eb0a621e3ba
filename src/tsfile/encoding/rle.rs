//! RLE, the hybrid run-length / bit-packing encoding (`spec/tsfile.md` §7.3) for INT32/DATE,
//! INT64/TIMESTAMP and (as 0/1 ints) BOOLEAN; also under the FLOAT/DOUBLE wrapper and the
//! DICTIONARY index stream.
//!
//! ```text
//! RleStream := UVarInt body_len  u8 bit_width  Run*
//! Run       := UVarInt (count << 1)  value[ceil(bit_width/8)]          (INT32 LE, INT64 BE)
//!            | u8 (groups << 1 | 1)  u8 last_valid  groups * bit_width bytes (8 values each)
//! ```
//!
//! [`encode`] with `runs` replays Java's `RleEncoder` state machine exactly (including the
//! initial previous value 0, the 8-repeat threshold, the 0x7FFF run cap and the 63-group
//! cap), so its bytes equal Java's. Without `runs` it writes bit-packed runs only, which is
//! what the C++ writer does and all the C++ 2.5 reader understands (it takes every run
//! header as bit-packed); Java reads both. [`decode`] reads both forms, and several streams
//! back to back while bytes remain.

use super::bits::{unpack_map, BitWriter};
use super::limit_exceeded;
use super::word::Word;
use crate::cursor::Cursor;
use crate::tsfile::format::varint::put_uvarint;
use crate::{Error, Result};

/// A run of equal values at least this long is run-length encoded.
const MIN_REPEAT: u32 = 8;
/// Longest run-length run.
const MAX_REPEAT: u32 = 0x7FFF;
/// Most 8-value groups in one bit-packed run.
const MAX_GROUPS: u32 = 63;

/// Java's encoder state, replayed over a page's values.
struct Encoder<T: Word> {
    body: Vec<u8>,
    width: u32,
    pre: T,
    repeat: u32,
    buf: [T; 8],
    nbuf: usize,
    groups: u32,
    packed: Vec<u8>,
    /// Run-length runs allowed (Java); otherwise bit-packing only (C++).
    runs: bool,
}

impl<T: Word> Encoder<T> {
    fn end_bit_packed_run(&mut self, last_valid: u8) {
        if self.groups == 0 {
            return;
        }
        self.body.push(((self.groups << 1) | 1) as u8);
        self.body.push(last_valid);
        self.body.append(&mut self.packed);
        self.groups = 0;
    }

    fn write_rle_run(&mut self) {
        self.end_bit_packed_run(8);
        put_uvarint(&mut self.body, self.repeat << 1);
        self.pre
            .put_rle_value(self.width.div_ceil(8) as usize, &mut self.body);
        self.repeat = 0;
        self.nbuf = 0;
    }

    fn write_group(&mut self) {
        if self.groups >= MAX_GROUPS {
            self.end_bit_packed_run(8);
        }
        let mut w = BitWriter::new(&mut self.packed);
        for v in self.buf {
            w.put(v.to_bits(), self.width);
        }
        w.finish();
        self.nbuf = 0;
        self.repeat = 0;
        self.groups += 1;
    }

    /// Java's repeat tracking; true when `v` was absorbed into a pending run-length run.
    fn track_repeat(&mut self, v: T) -> bool {
        if v == self.pre {
            self.repeat += 1;
            if (MIN_REPEAT..=MAX_REPEAT).contains(&self.repeat) {
                return true;
            }
            if self.repeat == MAX_REPEAT + 1 {
                self.repeat = MAX_REPEAT;
                self.write_rle_run();
                self.repeat = 1;
                self.pre = v;
            }
        } else {
            if self.repeat >= MIN_REPEAT {
                self.write_rle_run();
            }
            self.repeat = 1;
            self.pre = v;
        }
        false
    }

    fn push(&mut self, v: T) {
        if self.runs && self.track_repeat(v) {
            return;
        }
        if let Some(slot) = self.buf.get_mut(self.nbuf) {
            *slot = v;
        }
        self.nbuf += 1;
        if self.nbuf == 8 {
            self.write_group();
        }
    }

    fn flush(mut self, out: &mut Vec<u8>) {
        let last = self.nbuf;
        if self.runs && self.repeat >= MIN_REPEAT {
            self.write_rle_run();
        } else if last > 0 {
            self.buf
                .iter_mut()
                .skip(last)
                .for_each(|v| *v = T::default());
            self.write_group();
            self.end_bit_packed_run(last as u8);
        } else {
            self.end_bit_packed_run(8);
        }
        put_uvarint(out, self.body.len() as u32);
        out.extend_from_slice(&self.body);
    }
}

/// Appends one RLE stream of `values`: Java's bytes exactly with `runs`, bit-packed runs
/// only (as C++ writes) without. No values give `00`.
pub(crate) fn encode<T: Word>(values: &[T], runs: bool, out: &mut Vec<u8>) {
    if values.is_empty() {
        out.push(0);
        return;
    }
    let width = values.iter().map(|v| v.bit_len()).max().unwrap_or(0).max(1);
    let mut e = Encoder {
        body: vec![width as u8],
        width,
        pre: T::default(),
        repeat: 0,
        buf: [T::default(); 8],
        nbuf: 0,
        groups: 0,
        packed: Vec::new(),
        runs,
    };
    for &v in values {
        e.push(v);
    }
    e.flush(out);
}

/// Decodes every RLE stream in `input` (first byte at offset `base`), appending to `out`;
/// more than `max` values is an error.
pub(crate) fn decode<T: Word>(input: &[u8], base: u64, max: usize, out: &mut Vec<T>) -> Result<()> {
    let mut c = Cursor::new(input, base);
    let mut left = max;
    while !c.is_empty() {
        let len = c.read_uvarint()? as usize;
        let body_at = c.offset();
        let mut b = Cursor::new(c.take("RLE body", len)?, body_at);
        if b.is_empty() {
            continue;
        }
        let width = b.read_u8()? as u32;
        if width > T::BITS {
            return Err(
                Error::corrupt("tsfile", format!("RLE bit width {width}")).at_offset(body_at)
            );
        }
        let value_len = width.div_ceil(8) as usize;
        while !b.is_empty() {
            let at = b.offset();
            let header = b.read_uvarint()?;
            let n = if header & 1 == 0 {
                let n = (header >> 1) as usize;
                let v = T::from_rle_value(b.take("RLE run value", value_len)?);
                if n > left {
                    return Err(limit_exceeded("RLE", max).at_offset(at));
                }
                out.resize(out.len() + n, v);
                n
            } else {
                let groups = (header >> 1) as usize;
                let last = b.read_u8()? as usize;
                if groups == 0 || last > 8 {
                    return Err(Error::corrupt(
                        "tsfile",
                        format!("RLE bit-packed run of {groups} groups, {last} in the last"),
                    )
                    .at_offset(at));
                }
                // The groups, and the rest of the stream after them (read-ahead).
                let packed = b.rest();
                b.take("RLE bit-packed groups", groups * width as usize)?;
                let n = (groups - 1) * 8 + last;
                if n > left {
                    return Err(limit_exceeded("RLE", max).at_offset(at));
                }
                let start = out.len();
                out.resize(start + n, T::from_bits(0));
                let dst = out.get_mut(start..).unwrap_or_default();
                unpack_map(packed, width, dst, T::from_bits);
                n
            };
            left -= n;
        }
    }
    Ok(())
}
