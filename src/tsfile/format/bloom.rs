//! [`BloomFilter`]: the footer's series-path filter (`spec/tsfile.md` §9) — Java's sizing,
//! its `BitSet` byte form, and the Murmur128 variant it hashes with.

use super::varint::put_uvarint;
use crate::cursor::Cursor;
use crate::{Error, Result};

/// The seeds of Java's hash functions, in order; `hash_count` takes a prefix.
const SEEDS: [u64; 8] = [5, 7, 11, 19, 31, 37, 43, 59];
/// The smallest bit count Java creates.
const MIN_BITS: u32 = 256;
/// The `hash_count` an unused experimental Java variant writes (another `UVarInt` follows).
const CHEAP_HASH_SENTINEL: u32 = 0x7fff_ffff;

/// A Bloom filter over series paths `device.measurement` (the aligned time column's path
/// ends in `.`).
///
/// ```
/// use colfile::tsfile::format::BloomFilter;
/// let mut f = BloomFilter::with_capacity(2, 0.05);
/// assert_eq!((f.bit_count(), f.hash_count()), (256, 5));
/// f.add("tab1.bj.d1.");
/// f.add("tab1.bj.d1.temp");
/// assert!(f.may_contain("tab1.bj.d1.temp"));
/// let mut bytes = Vec::new();
/// f.write_to(&mut bytes);
/// let back = BloomFilter::read(&mut colfile::cursor::Cursor::new(&bytes, 0))?.unwrap();
/// assert_eq!(back, f);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BloomFilter {
    /// `BitSet.toByteArray()`: bit `i` is bit `i % 8` of byte `i / 8`, trailing zero bytes
    /// dropped (kept trimmed at all times).
    bits: Vec<u8>,
    bit_count: u32,
    hash_count: u32,
}

impl BloomFilter {
    /// An empty filter sized as Java's `getEmptyBloomFilter(error_rate, n)`: the rate is
    /// clamped to 0.01..=0.10, `m = max(256, (int)(-n·ln p / ln2 / ln2) + 1)`,
    /// `k = min(8, (int)(-ln p / ln2) + 1)`.
    pub fn with_capacity(n: u32, error_rate: f64) -> BloomFilter {
        let p = error_rate.clamp(0.01, 0.10);
        let ln2 = 2f64.ln();
        // Java negates the int first; `as i32` saturates like Java's (int) cast.
        let m = ((-(n as i32 as f64) * p.ln() / ln2 / ln2) as i32).saturating_add(1);
        let k = ((-p.ln() / ln2) as i32).saturating_add(1);
        BloomFilter {
            bits: Vec::new(),
            bit_count: (m.max(0) as u32).max(MIN_BITS),
            hash_count: k.clamp(0, 8) as u32,
        }
    }

    /// An empty filter of `bit_count` bits and `hash_count` (at most 8) hash functions.
    pub fn new(bit_count: u32, hash_count: u32) -> BloomFilter {
        BloomFilter {
            bits: Vec::new(),
            bit_count,
            hash_count: hash_count.min(8),
        }
    }

    /// Number of bits `m`.
    pub fn bit_count(&self) -> u32 {
        self.bit_count
    }

    /// Number of hash functions `k`.
    pub fn hash_count(&self) -> u32 {
        self.hash_count
    }

    /// The serialised bit array (trailing zero bytes dropped).
    pub fn bytes(&self) -> &[u8] {
        &self.bits
    }

    /// Inserts a key (a series path as [`DeviceId`](super::DeviceId)'s `Display` + `.` +
    /// measurement), hashed as Java does.
    pub fn add(&mut self, key: &str) {
        self.add_hashed(key, TailBytes::Java);
    }

    /// Inserts a key hashed with the given tail-byte rule.
    pub fn add_hashed(&mut self, key: &str, tail: TailBytes) {
        for pos in self.positions(key, tail) {
            let byte = pos / 8;
            if self.bits.len() <= byte {
                self.bits.resize(byte + 1, 0);
            }
            if let Some(b) = self.bits.get_mut(byte) {
                *b |= 1 << (pos % 8);
            }
        }
    }

    /// False only when `key` was certainly never added, by a Java or a C++ writer (they hash
    /// non-ASCII keys differently). A filter this crate cannot evaluate (the experimental
    /// cheap-hash form) answers true.
    pub fn may_contain(&self, key: &str) -> bool {
        if self.hash_count > 8 {
            return true;
        }
        let all_set = |tail| {
            self.positions(key, tail).all(|pos| {
                self.bits
                    .get(pos / 8)
                    .is_some_and(|b| b & (1 << (pos % 8)) != 0)
            })
        };
        all_set(TailBytes::Java) || (!key.is_ascii() && all_set(TailBytes::Cpp))
    }

    fn positions<'k>(&self, key: &'k str, tail: TailBytes) -> impl Iterator<Item = usize> + 'k {
        let cap = self.bit_count.max(1) as i64;
        let k = (self.hash_count as usize).min(SEEDS.len());
        SEEDS.iter().take(k).map(move |&seed| {
            let mut h = murmur128(key.as_bytes(), seed, tail) as i32;
            if h == i32::MIN {
                h = 0;
            }
            ((h as i64).abs() % cap) as usize
        })
    }

    /// Reads the footer form; `None` when the byte length is 0 (no filter, or no bit set).
    pub fn read(c: &mut Cursor<'_>) -> Result<Option<BloomFilter>> {
        let at = c.offset();
        let n = c.read_uvarint()? as usize;
        if n == 0 {
            return Ok(None);
        }
        let bits = c.take("bloom filter bits", n)?.to_vec();
        let bit_count = c.read_uvarint()?;
        let mut hash_count = c.read_uvarint()?;
        if hash_count == CHEAP_HASH_SENTINEL {
            c.read_uvarint()?;
        } else if hash_count > 8 {
            hash_count = CHEAP_HASH_SENTINEL;
        }
        if (n as u64) * 8 > bit_count as u64 + 7 {
            return Err(Error::corrupt(
                "tsfile",
                format!("bloom filter has {n} bytes for {bit_count} bits"),
            )
            .at_offset(at));
        }
        let mut bits = bits;
        while bits.last() == Some(&0) {
            bits.pop();
        }
        Ok(Some(BloomFilter {
            bits,
            bit_count,
            hash_count,
        }))
    }

    /// Appends the footer form.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        put_uvarint(out, self.bits.len() as u32);
        if !self.bits.is_empty() {
            out.extend_from_slice(&self.bits);
            put_uvarint(out, self.bit_count);
            put_uvarint(out, self.hash_count);
        }
    }
}

/// Writes an absent filter (the single byte `00`).
pub fn write_absent(out: &mut Vec<u8>) {
    put_uvarint(out, 0);
}

const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;

fn mix_k1(k1: u64) -> u64 {
    k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
}

fn mix_k2(k2: u64) -> u64 {
    k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
}

fn fmix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// How the last `len % 16` bytes enter the hash; the two differ only for bytes >= 0x80.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TailBytes {
    /// Java's `Murmur128Hash`: each tail byte sign-extended (`(long) key[i]`).
    Java,
    /// The C++ 2.5 writer (checked against the `tags_nulls` fixture): tail bytes unsigned,
    /// as in reference MurmurHash3.
    Cpp,
}

/// Java's `Murmur128Hash.innerHash`: MurmurHash3_x64_128 returning `h1 + h2`, with the tail
/// bytes taken as `tail` says.
pub fn murmur128(key: &[u8], seed: u64, tail_bytes: TailBytes) -> u64 {
    let (mut h1, mut h2) = (seed, seed);
    let mut blocks = key.chunks_exact(16);
    for b in &mut blocks {
        // A 16-byte block: its first and last 8 bytes.
        let (Some(lo), Some(hi)) = (b.first_chunk::<8>(), b.last_chunk::<8>()) else {
            continue;
        };
        let (k1, k2) = (u64::from_le_bytes(*lo), u64::from_le_bytes(*hi));
        h1 ^= mix_k1(k1);
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= mix_k2(k2);
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let widen = |b: u8| match tail_bytes {
        TailBytes::Java => b as i8 as i64 as u64,
        TailBytes::Cpp => b as u64,
    };
    let lane = |bytes: &[u8]| {
        bytes
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, &b)| acc ^ (widen(b) << (8 * i)))
    };
    let (low, high) = tail.split_at(tail.len().min(8));
    if !high.is_empty() {
        h2 ^= mix_k2(lane(high));
    }
    if !low.is_empty() {
        h1 ^= mix_k1(lane(low));
    }
    let len = key.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1.wrapping_add(h2)
}
