//! RCFile side of the damage tests: a full read (every row group, every column, both
//! serdes), the structure boundaries of an intact file, and its length and count fields.

use colfile::compress::HadoopCodec;
use colfile::rcfile::hadoop::{decode_vlong, write_vlong};
use colfile::rcfile::{ColumnBatch, RcFileReader, Schema, Serde, Value};
use colfile::Limits;

use super::common;
use super::mutate::{spliced, Rng};

/// One fixture: its bytes and how to decode its cells.
pub struct RcFixture {
    pub name: String,
    pub bytes: Vec<u8>,
    pub schema: Schema,
    /// The file's serde first, then the other one.
    pub serdes: Vec<Serde>,
}

/// Every `fixtures/rcfile/*.rc`.
pub fn fixtures() -> Vec<RcFixture> {
    let on_disk = std::fs::read_dir(common::fixtures_dir())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "rc")
        })
        .count();
    let out: Vec<RcFixture> = common::fixtures()
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f.rc).unwrap();
            let serde_name = f.dump["serde"].as_str().unwrap_or("raw");
            let (schema, serdes) = if serde_name == "raw" {
                let n = RcFileReader::new(bytes.as_slice())
                    .unwrap()
                    .header()
                    .column_count;
                let text: Vec<String> = (0..n).map(|i| format!("_c{i}:string")).collect();
                let schema = if n == 0 {
                    Schema::new(Vec::new())
                } else {
                    text.join(",").parse().unwrap()
                };
                (schema, vec![Serde::binary(), Serde::text()])
            } else {
                let props = common::serde_props(&f.dump);
                let calendar = (serde_name == "binary").then_some("hybrid");
                let own = Serde::from_options(serde_name, &props, None, calendar).unwrap();
                let other = if serde_name == "binary" {
                    Serde::text()
                } else {
                    Serde::binary()
                };
                (
                    common::schema_text(&f.dump).parse().unwrap(),
                    vec![own, other],
                )
            };
            RcFixture {
                name: f.name,
                bytes,
                schema,
                serdes,
            }
        })
        .collect();
    assert_eq!(out.len(), on_disk, "every .rc fixture has its dump");
    out
}

/// Reads everything: every row group's cells, and every schema column decoded as values with
/// each serde and as a batch with the file's serde. A cell that does not decode is an error
/// for that column only (the read goes on with the next column); an error of the container
/// ends the read. Returns the rows read.
pub fn read_fully(f: &RcFixture, bytes: &[u8], limits: Limits) -> colfile::Result<u64> {
    let mut r = RcFileReader::builder(bytes).with_limits(limits).build()?;
    let mut rows = 0u64;
    let mut values: Vec<Value> = Vec::new();
    let mut batch = ColumnBatch::default();
    while let Some(g) = r.next_row_group()? {
        rows += g.num_rows() as u64;
        let mut cell_bytes = 0usize;
        for c in 0..g.num_columns() {
            if let Some(col) = g.column(c) {
                cell_bytes += col.cells().map(<[u8]>::len).sum::<usize>();
            }
        }
        std::hint::black_box(cell_bytes);
        for (c, col) in f.schema.columns().iter().enumerate() {
            for serde in &f.serdes {
                values.clear();
                let _ = g.decode_column(c, &col.ty, serde, &mut values);
            }
            let _ = g.decode_batch(c, &col.ty, &f.serdes[0], &mut batch);
        }
    }
    Ok(rows)
}

/// One row group of an intact file.
pub struct Group {
    /// Where its record length is (after the sync block, if any).
    pub at: usize,
    pub record_len: usize,
    pub key_len: usize,
    pub compressed_key_len: usize,
    pub start: usize,
    pub end: usize,
}

/// The header length and the row groups of an intact file.
pub fn structure(bytes: &[u8]) -> (usize, Vec<Group>) {
    let mut r = RcFileReader::new(bytes).unwrap();
    let header = r.header().length as usize;
    let mut groups = Vec::new();
    while let Some(g) = r.next_row_group().unwrap() {
        let range = g.byte_range();
        let at = range.start as usize + if g.sync_before() { 20 } else { 0 };
        groups.push(Group {
            at,
            record_len: g.record_length() as usize,
            key_len: g.key_length() as usize,
            compressed_key_len: g.compressed_key_length() as usize,
            start: range.start as usize,
            end: range.end as usize,
        });
    }
    (header, groups)
}

/// Every structure boundary: header end, sync blocks, row group headers, key and value
/// sections.
pub fn boundaries(bytes: &[u8]) -> Vec<usize> {
    let (header, groups) = structure(bytes);
    let mut marks = vec![0, 4, header];
    for g in &groups {
        marks.extend([g.start, g.at, g.at + 4, g.at + 8, g.at + 12]);
        marks.extend([g.at + 12 + g.compressed_key_len, g.end]);
    }
    marks
}

/// Huge values for a VInt length or count.
pub const HUGE_VINTS: [i64; 7] = [
    0x7fff_ffff,
    -1,
    u32::MAX as i64,
    i64::MAX,
    i32::MIN as i64,
    1 << 30,
    0x7fff_fff0,
];

/// Huge values for an Int32 length or count.
pub const HUGE_INTS: [i32; 5] = [0x7fff_ffff, -1, i32::MIN, 1 << 30, -2];

fn vint(v: i64) -> Vec<u8> {
    let mut out = Vec::new();
    write_vlong(&mut out, v);
    out
}

/// A damaged file and what was done to it.
pub struct LengthDamage {
    pub what: String,
    pub bytes: Vec<u8>,
}

/// Every Text length of the header (codec class, metadata keys and values, SEQ6 class names)
/// and the metadata count, each replaced by each huge value.
fn header_fields(bytes: &[u8], out: &mut Vec<LengthDamage>) {
    let seq = &bytes[..3] == b"SEQ" || (&bytes[..3] == b"RCF" && bytes[3] == 0);
    let mut pos = 4;
    let text = |pos: &mut usize, out: &mut Vec<LengthDamage>, name: &str| {
        let (len, n) = decode_vlong(&bytes[*pos..]).unwrap();
        for v in HUGE_VINTS {
            out.push(LengthDamage {
                what: format!("header {name} length at byte {} = {v}", *pos),
                bytes: spliced(bytes, *pos..*pos + n, &vint(v)),
            });
        }
        *pos += n + len as usize;
    };
    if seq {
        text(&mut pos, out, "key class");
        text(&mut pos, out, "value class");
    }
    let compressed = bytes[pos] == 1;
    pos += if seq { 2 } else { 1 };
    if compressed {
        text(&mut pos, out, "codec class");
    }
    let count = i32::from_be_bytes(bytes[pos..pos + 4].try_into().unwrap());
    for v in HUGE_INTS {
        out.push(LengthDamage {
            what: format!("metadata count at byte {pos} = {v}"),
            bytes: spliced(bytes, pos..pos + 4, &v.to_be_bytes()),
        });
    }
    pos += 4;
    for i in 0..count {
        text(&mut pos, out, &format!("metadata key {i}"));
        text(&mut pos, out, &format!("metadata value {i}"));
    }
}

/// The row group's key section, decompressed.
pub fn key_section(bytes: &[u8], codec: Option<HadoopCodec>, g: &Group) -> Vec<u8> {
    let stored = &bytes[g.at + 12..g.at + 12 + g.compressed_key_len];
    match codec {
        None => stored.to_vec(),
        Some(c) => {
            let mut out = Vec::new();
            c.codec()
                .unwrap()
                .decompress(stored, &mut out, g.key_len)
                .unwrap();
            out
        }
    }
}

/// The file with row group `g`'s key section replaced by `key` (compressed again when the
/// file is), its three header ints made consistent with it.
pub fn with_key_section(
    bytes: &[u8],
    codec: Option<HadoopCodec>,
    g: &Group,
    key: &[u8],
) -> Vec<u8> {
    let stored = match codec {
        None => key.to_vec(),
        Some(c) => {
            let mut out = Vec::new();
            c.codec().unwrap().compress(key, &mut out).unwrap();
            out
        }
    };
    let value_len = g.record_len - g.key_len;
    let mut head = Vec::with_capacity(12 + stored.len());
    head.extend_from_slice(&((key.len() + value_len) as i32).to_be_bytes());
    head.extend_from_slice(&(key.len() as i32).to_be_bytes());
    head.extend_from_slice(&(stored.len() as i32).to_be_bytes());
    head.extend_from_slice(&stored);
    spliced(bytes, g.at..g.at + 12 + g.compressed_key_len, &head)
}

/// Offsets (in the decompressed key section) of its VInts: `numRows`, then per column
/// `(colOnDiskLen, colPlainLen, lengthsBufLen)`.
pub fn key_fields(key: &[u8]) -> (usize, Vec<[usize; 3]>) {
    let (_, mut pos) = decode_vlong(key).unwrap();
    let mut cols = Vec::new();
    while pos < key.len() {
        let mut at = [0; 3];
        let mut buf_len = 0;
        for (i, slot) in at.iter_mut().enumerate() {
            *slot = pos;
            let (v, n) = decode_vlong(&key[pos..]).unwrap();
            pos += n;
            if i == 2 {
                buf_len = v as usize;
            }
        }
        pos += buf_len;
        cols.push(at);
    }
    (0, cols)
}

/// The header's lengths and counts, and in a sample of row groups the three header ints, the
/// row count and the lengths of a sample of columns in the key section, each replaced by huge
/// values. Key-section damage is written back consistently (recompressed, header ints
/// adjusted), so the reader meets the huge value itself rather than a framing mismatch.
pub fn length_damage(bytes: &[u8], seed: u64, cols_per_group: usize) -> Vec<LengthDamage> {
    let mut out = Vec::new();
    header_fields(bytes, &mut out);
    let codec = RcFileReader::new(bytes).unwrap().header().codec;
    let (_, groups) = structure(bytes);
    let mut rng = Rng::new(seed);
    let mut picked: Vec<usize> = vec![0, 1, groups.len().saturating_sub(1)];
    picked.push(rng.below(groups.len()));
    picked.sort_unstable();
    picked.dedup();
    for gi in picked.into_iter().filter(|&i| i < groups.len()) {
        let g = &groups[gi];
        for (k, name) in ["record length", "key length", "compressed key length"]
            .iter()
            .enumerate()
        {
            let at = g.at + 4 * k;
            for v in HUGE_INTS {
                out.push(LengthDamage {
                    what: format!("row group {gi} {name} at byte {at} = {v}"),
                    bytes: spliced(bytes, at..at + 4, &v.to_be_bytes()),
                });
            }
        }
        let key = key_section(bytes, codec, g);
        let (rows_at, cols) = key_fields(&key);
        let mut fields = vec![("row count".to_string(), rows_at)];
        let mut which: Vec<usize> = vec![0, cols.len().saturating_sub(1)];
        for _ in 0..cols_per_group.saturating_sub(2) {
            which.push(rng.below(cols.len()));
        }
        which.sort_unstable();
        which.dedup();
        for c in which.into_iter().filter(|&c| c < cols.len()) {
            for (i, name) in ["on-disk length", "plain length", "lengths buffer length"]
                .iter()
                .enumerate()
            {
                fields.push((format!("column {c} {name}"), cols[c][i]));
            }
        }
        for (name, at) in fields {
            let n = decode_vlong(&key[at..]).unwrap().1;
            for v in HUGE_VINTS {
                let key = spliced(&key, at..at + n, &vint(v));
                out.push(LengthDamage {
                    what: format!("row group {gi} key section {name} (key byte {at}) = {v}"),
                    bytes: with_key_section(bytes, codec, g, &key),
                });
            }
        }
    }
    out
}
