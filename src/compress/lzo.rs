//! LZO1X raw blocks (TsFile compression code 3, which the C++ writer produces with
//! `lzokay`; Java has no LZO), decoded and encoded here without dependencies.
//!
//! A block is a run of instructions ending with the end marker `11 00 00`. With `S` the
//! literal count that the previous instruction announced (its low two bits; 4 after a
//! literal run of four or more, 0 at the start):
//!
//! | first byte | meaning |
//! | --- | --- |
//! | `1LLDDDSS`, `01LDDDSS` + `H` | copy `L + 5` / `L + 3` bytes from distance `(H << 3) + D + 1`, then `S` literals |
//! | `001LLLLL` [+ length] + LE16 `D<<2 \| S` | copy `L + 2` bytes from distance `D + 1` (≤ 16 KiB) |
//! | `0001HLLL` [+ length] + LE16 `D<<2 \| S` | copy `L + 2` bytes from distance `16384 + (H << 14) + D`; `D = H = 0` ends the block |
//! | `0000LLLL` when `S = 0` [+ length] | `L + 3` literals |
//! | `0000DDSS` + `H` when `S` is 1–3 | copy 2 bytes from distance `(H << 2) + D + 1` |
//! | `0000DDSS` + `H` when `S = 4` | copy 3 bytes from distance `(H << 2) + D + 2049` |
//!
//! A zero length field `L` is followed by a *length*: `n` zero bytes and one non-zero byte
//! `b`, adding `255 n + b` to the field's maximum (31, 7, 15). The block's first byte may
//! instead be `17 + n` for a first run of `n` literals (1–238).
//!
//! [`LzoBlock::decompress_block`] checks every length and distance against the input and the
//! output room it is given (the page's declared size) before copying, and requires the end
//! marker and nothing after it, as `lzokay::decompress` does. The encoder is a greedy
//! hash-chain-free LZ77 (one candidate per 4-byte hash) emitting only the instructions
//! every LZO1X reader takes; matches are capped at [`MAX_MATCH`] bytes so no block
//! compresses beyond 255:1, the largest ratio the C++ reader's retry loop tries.

use super::block::RawBlock;
use super::Algorithm;
use crate::{Error, Result};

/// Longest match the encoder writes (at most 4 bytes of instruction per 264 plain bytes).
const MAX_MATCH: usize = 264;
/// Farthest distance the encoder uses (the M4 limit).
const MAX_DISTANCE: usize = 0xbfff;
/// Hash table size (entries) of the encoder.
const HASH_BITS: u32 = 14;

/// LZO1X as a [`RawBlock`]; only the bare framing (Hadoop's LZO codecs are other formats).
pub(crate) struct LzoBlock {
    table: Vec<u32>,
}

impl Default for LzoBlock {
    fn default() -> Self {
        LzoBlock {
            table: vec![0; 1 << HASH_BITS],
        }
    }
}

impl std::fmt::Debug for LzoBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LzoBlock")
    }
}

fn corrupt(message: String) -> Error {
    Error::corrupt("lzo", message)
}

impl RawBlock for LzoBlock {
    const ALGORITHM: Algorithm = Algorithm::Lzo;
    /// Not used: LZO has no Hadoop block framing here.
    const HADOOP_MAX_INPUT: usize = usize::MAX;

    fn max_compressed_len(input_len: usize) -> usize {
        // lzokay's `compress_worst_size`; literals cost at most 1 byte per 238 (or 255).
        input_len + input_len / 16 + 64 + 3
    }

    fn max_decompressed_len(compressed_len: usize) -> usize {
        // A length byte adds at most 255 plain bytes; nothing is denser.
        compressed_len.saturating_mul(255).saturating_add(16)
    }

    fn declared_len(_block: &[u8]) -> Result<Option<usize>> {
        Ok(None)
    }

    fn compress_block(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        let mut out = Vec::with_capacity(Self::max_compressed_len(input.len()));
        compress(input, &mut self.table, &mut out);
        let n = out.len();
        output
            .get_mut(..n)
            .ok_or_else(|| Error::invalid("LZO output buffer too small"))?
            .copy_from_slice(&out);
        Ok(n)
    }

    fn decompress_block(&mut self, block: &[u8], output: &mut [u8]) -> Result<usize> {
        decompress(block, output)
    }
}

/// Reads the bytes of an LZO1X block.
struct Input<'a> {
    data: &'a [u8],
    at: usize,
}

impl Input<'_> {
    fn byte(&mut self) -> Result<usize> {
        let b = self
            .data
            .get(self.at)
            .copied()
            .ok_or_else(|| self.short())?;
        self.at += 1;
        Ok(usize::from(b))
    }

    fn le16(&mut self) -> Result<usize> {
        Ok(self.byte()? | self.byte()? << 8)
    }

    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len());
        let s = end
            .and_then(|e| self.data.get(self.at..e))
            .ok_or_else(|| self.short())?;
        self.at += n;
        Ok(s)
    }

    /// A length field of 0: zero bytes (255 each), then a non-zero byte, plus `base`.
    fn length(&mut self, base: usize) -> Result<usize> {
        let zeros = self.data.get(self.at..).unwrap_or_default();
        let n = zeros.iter().take_while(|&&b| b == 0).count();
        self.at += n;
        Ok(base + n * 255 + self.byte()?)
    }

    fn short(&self) -> Error {
        corrupt(format!(
            "block of {} bytes ends inside an instruction",
            self.data.len()
        ))
    }
}

/// Decodes one block into the start of `out`, returning the plain length.
pub(crate) fn decompress(block: &[u8], out: &mut [u8]) -> Result<usize> {
    let mut inp = Input { data: block, at: 0 };
    let mut op = 0usize;
    let mut state = 0usize;
    match block.first() {
        Some(&b) if b >= 18 => {
            inp.at = 1;
            let n = usize::from(b) - 17;
            copy_literals(&mut inp, out, &mut op, n)?;
            state = n.min(4);
        }
        _ => {}
    }
    loop {
        let inst = inp.byte()?;
        let (len, dist, next);
        if inst >= 64 {
            let h = inp.byte()?;
            len = (inst >> 5) + 1;
            dist = (h << 3) + ((inst >> 2) & 7) + 1;
            next = inst & 3;
        } else if inst >= 32 {
            len = match inst & 31 {
                0 => inp.length(31)?,
                l => l,
            } + 2;
            let d = inp.le16()?;
            dist = (d >> 2) + 1;
            next = d & 3;
        } else if inst >= 16 {
            len = match inst & 7 {
                0 => inp.length(7)?,
                l => l,
            } + 2;
            let d = inp.le16()?;
            let far = ((inst & 8) << 11) + (d >> 2);
            if far == 0 {
                if len != 3 || inp.at != block.len() {
                    return Err(corrupt(format!(
                        "bad end marker at byte {} of {}",
                        inp.at - 3,
                        block.len()
                    )));
                }
                return Ok(op);
            }
            dist = far + 16384;
            next = d & 3;
        } else if state == 0 {
            let n = match inst {
                0 => inp.length(15)?,
                l => l,
            } + 3;
            copy_literals(&mut inp, out, &mut op, n)?;
            state = 4;
            continue;
        } else {
            let h = inp.byte()?;
            (len, dist) = if state == 4 {
                (3, (inst >> 2) + (h << 2) + 2049)
            } else {
                (2, (inst >> 2) + (h << 2) + 1)
            };
            next = inst & 3;
        }
        let from = op.checked_sub(dist).ok_or_else(|| {
            corrupt(format!(
                "a match reaches {dist} bytes back from output byte {op}"
            ))
        })?;
        let end = op + len;
        if end > out.len() {
            return Err(too_long(out.len()));
        }
        if dist >= len {
            out.copy_within(from..from + len, op);
        } else if let Some(window) = out.get_mut(from..end) {
            // Overlapping: each byte may be one this match just wrote, so the copy repeats
            // the `dist` bytes before `op` with period `dist`.
            if let Some((pattern, rest)) = window.split_at_mut_checked(dist) {
                for (d, &s) in rest.iter_mut().zip(pattern.iter().cycle()) {
                    *d = s;
                }
            }
        }
        op = end;
        copy_literals(&mut inp, out, &mut op, next)?;
        state = next;
    }
}

/// Copies `n` literals from the input to `out` at `op`.
fn copy_literals(inp: &mut Input<'_>, out: &mut [u8], op: &mut usize, n: usize) -> Result<()> {
    let src = inp.take(n)?;
    let end = *op + n;
    let room = out.len();
    let dst = out.get_mut(*op..end).ok_or_else(|| too_long(room))?;
    dst.copy_from_slice(src);
    *op = end;
    Ok(())
}

fn too_long(room: usize) -> Error {
    corrupt(format!(
        "block decodes to more than the {room} bytes left for it"
    ))
}

/// Appends `n` (≥ 1) as a length: `n / 255`-ish zero bytes and a final non-zero byte.
fn put_length(out: &mut Vec<u8>, n: usize) {
    let zeros = (n - 1) / 255;
    out.resize(out.len() + zeros, 0);
    out.push((n - zeros * 255) as u8);
}

/// Appends a literal run that is not the block's first bytes (the previous match announced
/// `S = 0`, so `0000LLLL` reads as literals), or, with `first`, the block's opening run.
fn put_literals(out: &mut Vec<u8>, lit: &[u8], first: bool) {
    let n = lit.len();
    if first && n <= 238 {
        out.push((17 + n) as u8);
    } else if n <= 18 {
        out.push((n - 3) as u8);
    } else {
        out.push(0);
        put_length(out, n - 18);
    }
    out.extend_from_slice(lit);
}

/// Appends a match of `len` (3..=[`MAX_MATCH`]) bytes at `dist` (1..=[`MAX_DISTANCE`]),
/// announcing `s` (0..=3) literals after it.
fn put_match(out: &mut Vec<u8>, len: usize, dist: usize, s: usize) {
    if len <= 8 && dist <= 2048 {
        let d = dist - 1;
        out.push((((len - 1) << 5) | ((d & 7) << 2) | s) as u8);
        out.push((d >> 3) as u8);
        return;
    }
    let (d, marker, max) = if dist <= 16384 {
        (dist - 1, 0x20, 31)
    } else {
        let far = dist - 16384;
        (far & 0x3fff, 0x10 | ((far >> 11) & 8), 7)
    };
    if len - 2 <= max {
        out.push((marker | (len - 2)) as u8);
    } else {
        out.push(marker as u8);
        put_length(out, len - 2 - max);
    }
    let le = (d << 2) | s;
    out.extend_from_slice(&[le as u8, (le >> 8) as u8]);
}

fn hash(four: u32) -> usize {
    (four.wrapping_mul(0x9e37_79b1) >> (32 - HASH_BITS)) as usize
}

/// Appends the LZO1X block of `input` (greedy, one hash candidate per position).
fn compress(input: &[u8], table: &mut [u32], out: &mut Vec<u8>) {
    table.fill(0);
    let (mut i, mut lit_start) = (0usize, 0usize);
    // The match waiting for its following literal count.
    let mut pending: Option<(usize, usize)> = None;
    let mut first = true;
    let mut flush = |out: &mut Vec<u8>, pending: &mut Option<(usize, usize)>, lit: &[u8]| {
        let s = if (1..=3).contains(&lit.len()) {
            lit.len()
        } else {
            0
        };
        match pending.take() {
            Some((len, dist)) => {
                put_match(out, len, dist, s);
                if s > 0 {
                    out.extend_from_slice(lit);
                } else if !lit.is_empty() {
                    put_literals(out, lit, false);
                }
            }
            None if !lit.is_empty() => put_literals(out, lit, first),
            None => {}
        }
        first = false;
    };
    while let Some(head @ &[b0, b1, b2, b3]) = input.get(i..i + 4) {
        let four = u32::from_le_bytes([b0, b1, b2, b3]);
        // The table has 1 << HASH_BITS entries and `hash` is below that.
        let Some(slot) = table.get_mut(hash(four)) else {
            i += 1;
            continue;
        };
        let cand = *slot as usize;
        *slot = i as u32 + 1;
        let ok = cand > 0 && i - (cand - 1) <= MAX_DISTANCE && {
            let c = cand - 1;
            input.get(c..c + 4) == Some(head)
        };
        if !ok {
            i += 1;
            continue;
        }
        let c = cand - 1;
        // Extend past the four equal bytes while the input lasts, up to MAX_MATCH.
        let ahead = input.get(i + 4..).unwrap_or_default();
        let behind = input.get(c + 4..).unwrap_or_default();
        let more = behind.iter().zip(ahead).take(MAX_MATCH - 4);
        let len = 4 + more.take_while(|(a, b)| a == b).count();
        let literals = input.get(lit_start..i).unwrap_or_default();
        flush(out, &mut pending, literals);
        pending = Some((len, i - c));
        i += len;
        lit_start = i;
    }
    let literals = input.get(lit_start..).unwrap_or_default();
    flush(out, &mut pending, literals);
    out.extend_from_slice(&[0x11, 0, 0]);
}
