//! TsFile side of the damage tests: a full read (query every row, `verify`, `sketch`), the
//! structure boundaries of an intact file, and its length and count fields.

use colfile::cursor::Cursor;
use colfile::tsfile::format::varint::{put_uvarint, put_varint};
use colfile::tsfile::tools::sketch::{sketch, Sketch};
use colfile::tsfile::{verify, VerifyOptions};
use colfile::tsfile::{Query, TsFileReader};
use colfile::Limits;

use super::common::tsdump::ts_fixtures_dir;
use super::mutate::{spliced, Rng};

/// Every `fixtures/tsfile/*.tsfile`: (name, bytes).
pub fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut paths: Vec<_> = std::fs::read_dir(ts_fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tsfile"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 30, "found {} TsFile fixtures", paths.len());
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Every row of every device through the query API (every value touched), then `verify` and
/// `sketch` (rendered as text and JSON). All three run whatever the others did; the first
/// error is returned.
pub fn read_fully(bytes: &[u8], limits: &Limits) -> colfile::Result<usize> {
    let queried = query_all(bytes, limits);
    let opts = VerifyOptions {
        limits: limits.clone(),
        max_problems: 20,
    };
    let verified = verify(bytes, &opts).map(|r| r.problems.len());
    let sketched = sketch(bytes, limits).map(|s| {
        std::hint::black_box(s.to_text().len() + s.to_json().to_string().len());
    });
    let rows = queried?;
    verified?;
    sketched?;
    Ok(rows)
}

fn query_all(bytes: &[u8], limits: &Limits) -> colfile::Result<usize> {
    let r = TsFileReader::open_with_limits(bytes, limits.clone())?;
    let mut rows = 0;
    for batch in r.query(&Query::all())? {
        let batch = batch?;
        rows += batch.len();
        for col in &batch.columns {
            let mut cur = col.cursor();
            for _ in 0..batch.len() {
                std::hint::black_box(cur.next_value());
            }
        }
    }
    Ok(rows)
}

/// The intact file's layout.
pub fn layout(bytes: &[u8]) -> Sketch {
    let s = sketch(bytes, &Limits::default()).unwrap();
    assert!(
        s.errors.is_empty() && s.metadata.is_some(),
        "{:?}",
        s.errors
    );
    s
}

/// Every structure boundary: chunk groups, chunk headers and bodies, page headers and
/// payloads, the separator, index nodes, TimeseriesMetadata, the footer, `L`, the tail magic.
pub fn boundaries(bytes: &[u8], s: &Sketch) -> Vec<usize> {
    let f = bytes.len();
    let mut marks = vec![0, 6, 7, f.saturating_sub(10), f.saturating_sub(6)];
    for g in &s.data.groups {
        marks.push(g.offset as usize);
        for c in &g.chunks {
            marks.extend([c.offset as usize, c.body_offset as usize, c.end() as usize]);
            for p in &c.pages {
                marks.extend([p.offset as usize, p.data_offset as usize]);
            }
        }
    }
    marks.extend(s.data.separator.map(|x| x as usize));
    if let Some(m) = &s.metadata {
        marks.push(m.footer_start() as usize);
    }
    if let Some(index) = &s.index {
        marks.extend(
            index
                .nodes
                .iter()
                .filter_map(|n| n.range.map(|r| r.0 as usize)),
        );
        marks.extend(index.series.iter().map(|x| x.range.0 as usize));
    }
    marks
}

/// The footer (TsFileMetadata, `L`, tail magic), for flips of every bit in small files.
pub fn footer_region(s: &Sketch) -> std::ops::Range<usize> {
    let start = s.metadata.as_ref().unwrap().footer_start() as usize;
    start..s.file_len as usize
}

/// A damaged file and what was done to it.
pub struct LengthDamage {
    pub what: String,
    pub bytes: Vec<u8>,
}

/// Replacements for a `UVarInt` size or count (the last one is an over-long varint).
fn huge_uvarints() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = [0x7fff_ffffu32, u32::MAX, 0xffff_fffe, 1 << 30]
        .iter()
        .map(|&v| {
            let mut b = Vec::new();
            put_uvarint(&mut b, v);
            b
        })
        .collect();
    out.push(vec![0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    out
}

/// Replacements for a zigzag `VarInt` string length.
fn huge_varints() -> Vec<Vec<u8>> {
    [i32::MAX, i32::MIN, -2, 1 << 30]
        .iter()
        .map(|&v| {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            b
        })
        .collect()
}

/// The length in bytes of the varint at `pos`.
fn varint_len(bytes: &[u8], pos: usize) -> usize {
    let mut c = Cursor::new(&bytes[pos..], 0);
    c.read_uvarint().unwrap();
    c.position()
}

/// The value of the zigzag varint at `pos` and its length in bytes.
fn varint_at(bytes: &[u8], pos: usize) -> (i32, usize) {
    let mut c = Cursor::new(&bytes[pos..], 0);
    let v = c.read_varint().unwrap();
    (v, c.position())
}

struct Fields<'a> {
    bytes: &'a [u8],
    out: Vec<LengthDamage>,
}

impl Fields<'_> {
    fn uvarint(&mut self, what: &str, at: usize) {
        let n = varint_len(self.bytes, at);
        for v in huge_uvarints() {
            self.out.push(LengthDamage {
                what: format!("{what} at byte {at} = {v:02x?}"),
                bytes: spliced(self.bytes, at..at + n, &v),
            });
        }
    }

    /// A VarStr at `at`: its length is damaged; returns where the string ends.
    fn var_str(&mut self, what: &str, at: usize) -> usize {
        let (len, n) = varint_at(self.bytes, at);
        for v in huge_varints() {
            self.out.push(LengthDamage {
                what: format!("{what} length at byte {at} = {v:02x?}"),
                bytes: spliced(self.bytes, at..at + n, &v),
            });
        }
        at + n + len.max(0) as usize
    }

    fn fixed(&mut self, what: &str, at: usize, values: &[Vec<u8>]) {
        for v in values {
            self.out.push(LengthDamage {
                what: format!("{what} at byte {at} = {v:02x?}"),
                bytes: spliced(self.bytes, at..at + v.len(), v),
            });
        }
    }
}

/// Up to `n` items of `items`: the first, the last and fixed-seed random others.
fn sample<T>(items: &[T], n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut picked = vec![0, items.len().saturating_sub(1)];
    for _ in 0..n.saturating_sub(2) {
        picked.push(rng.below(items.len()));
    }
    picked.sort_unstable();
    picked.dedup();
    picked.retain(|&i| i < items.len());
    picked
}

/// Sizes, lengths and counts found by parsing the intact file, each replaced by huge values
/// (spliced in: the varint may get longer): in a sample of `per_kind` chunk groups, chunks,
/// pages, TimeseriesMetadata and index nodes, and in the footer.
pub fn length_damage(bytes: &[u8], s: &Sketch, seed: u64, per_kind: usize) -> Vec<LengthDamage> {
    let mut rng = Rng::new(seed);
    let mut f = Fields {
        bytes,
        out: Vec::new(),
    };
    let groups = &s.data.groups;
    for gi in sample(groups, per_kind, &mut rng) {
        let at = groups[gi].offset as usize + 1;
        f.uvarint(&format!("chunk group {gi} segment count"), at);
        let first = at + varint_len(bytes, at);
        f.var_str(&format!("chunk group {gi} segment 0"), first);
    }
    let chunks: Vec<_> = groups.iter().flat_map(|g| &g.chunks).collect();
    for ci in sample(&chunks, per_kind, &mut rng) {
        let c = chunks[ci];
        let size_at = f.var_str(&format!("chunk {ci} measurement"), c.offset as usize + 1);
        f.uvarint(&format!("chunk {ci} data_size"), size_at);
    }
    let pages: Vec<_> = chunks.iter().flat_map(|c| &c.pages).collect();
    for pi in sample(&pages, per_kind, &mut rng) {
        let p = pages[pi];
        let at = p.offset as usize;
        f.uvarint(&format!("page {pi} uncompressed_size"), at);
        if !p.header.is_empty() {
            let next = at + varint_len(bytes, at);
            f.uvarint(&format!("page {pi} compressed_size"), next);
        }
    }
    let index = s.index.as_ref().unwrap();
    for si in sample(&index.series, per_kind, &mut rng) {
        let at = index.series[si].range.0 as usize;
        let end = f.var_str(&format!("timeseries metadata {si} measurement"), at + 1);
        f.uvarint(
            &format!("timeseries metadata {si} chunk_meta_list_size"),
            end + 1,
        );
    }
    let nodes: Vec<_> = index.nodes.iter().filter_map(|n| n.range).collect();
    for ni in sample(&nodes, per_kind, &mut rng) {
        f.uvarint(
            &format!("index node {ni} child_count"),
            nodes[ni].0 as usize,
        );
    }
    footer_fields(&mut f, s);
    f.out
}

/// The footer's table count and first table name, `meta_offset`, the Bloom filter's sizes,
/// the property count, and `L`.
fn footer_fields(f: &mut Fields<'_>, s: &Sketch) {
    let bytes = f.bytes;
    let meta = s.metadata.as_ref().unwrap();
    let start = meta.footer_start() as usize;
    let end = bytes.len() - 10;
    f.uvarint("footer table count", start);
    if !meta.footer().table_roots.is_empty() {
        let name = start + varint_len(bytes, start);
        let root = f.var_str("footer table 0 name", name);
        f.uvarint("footer table 0 root child_count", root);
    }
    let ints = [0x7fff_ffffi32, -1, i32::MIN, 1 << 30]
        .map(|v| v.to_be_bytes().to_vec())
        .to_vec();
    f.fixed("L", end, &ints);
    // meta_offset: the last place its big-endian bytes occur in the footer.
    let needle = (meta.meta_offset() as i64).to_be_bytes();
    let Some(mo) = (start..end.saturating_sub(7))
        .rev()
        .find(|&i| bytes[i..i + 8] == needle)
    else {
        panic!("meta_offset not found in the footer");
    };
    let longs = [i64::MAX, -1, i64::MIN, 1 << 40, 0]
        .map(|v| v.to_be_bytes().to_vec())
        .to_vec();
    f.fixed("meta_offset", mo, &longs);
    let bloom = mo + 8;
    f.uvarint("bloom filter byte_length", bloom);
    let mut c = Cursor::new(&bytes[bloom..end], bloom as u64);
    let n = c.read_uvarint().unwrap() as usize;
    let mut at = bloom + c.position();
    if n > 0 {
        at += n;
        f.uvarint("bloom filter bit_count", at);
        at += varint_len(bytes, at);
        f.uvarint("bloom filter hash_count", at);
        at += varint_len(bytes, at);
    }
    if at < end {
        f.uvarint("property count", at);
        let props = at + varint_len(bytes, at);
        if props < end {
            f.var_str("property 0 key", props);
        }
    }
}
