//! [`sketch`]: the physical layout of a TsFile with the offset of every part, like Java's
//! `TsFileSketchTool` (`colfile sketch`): chunk groups, chunks and pages from a front-to-back
//! scan ([`layout`](super::layout)), then the metadata region — TimeseriesMetadata and index
//! nodes in file order — the footer with the Bloom filter, `L` and the tail magic. Works on
//! incomplete files too (the scan says where it stopped; the metadata part is omitted).
//!
//! [`Sketch::to_text`] is for people; [`Sketch::to_json`] for scripts. The JSON uses the key
//! names of the oracle's `tsraw.py --json` structure where the two describe the same thing
//! (`file_size`, `separator_offset`, `meta_start`, `meta_size`, `chunk_groups[].chunks[]`
//! with `offset`, `marker`, `kind`, `measurement`, `data_size`, …, `meta.index_roots`,
//! `meta.bloom_filter`).

use std::fmt::Write as _;

use super::layout::{index_layout, scan_data, ChunkLayout, DataLayout, IndexLayout};
use super::meta_json::{set_key, statistics_json};
use crate::source::ByteSource;
use crate::tsfile::format::MAGIC;
use crate::tsfile::format::{ChunkKind, DataType, MetadataIndexNode, NodeEntries, Statistics};
use crate::tsfile::read::metadata::FileMetadata;
use crate::{ErrorKind, Limits, Result};
use serde_json::{json, Map, Value as Json};

/// A file's layout.
#[derive(Debug)]
pub struct Sketch {
    /// File length.
    pub file_len: u64,
    /// Whether the file ends with the tail magic.
    pub tail_magic: bool,
    /// The data section.
    pub data: DataLayout,
    /// The footer, when it could be read.
    pub metadata: Option<FileMetadata>,
    /// The index tree, when it could be walked.
    pub index: Option<IndexLayout>,
    /// Why the footer or index could not be read.
    pub errors: Vec<String>,
}

/// Reads the layout of `src`.
///
/// ```
/// use colfile::tsfile::tools::sketch::sketch;
/// let bytes = std::fs::read("fixtures/tsfile/basic.tsfile")?;
/// let s = sketch(&bytes, &colfile::Limits::default())?;
/// assert_eq!(s.to_json()["separator_offset"], 333);
/// assert!(s.to_text().contains("[Chunk Group] of weather.beijing.d1"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Errors: a head that is not `TsFile` + version 4, and I/O errors.
pub fn sketch<S: ByteSource + ?Sized>(src: &S, limits: &Limits) -> Result<Sketch> {
    let data = scan_data(src, limits)?;
    let file_len = src.len();
    let mut tail = [0u8; 6];
    let tail_magic =
        file_len >= 13 && src.read_exact_at(file_len - 6, &mut tail).is_ok() && &tail == MAGIC;
    let mut errors = Vec::new();
    let metadata = match FileMetadata::read(src, limits) {
        Ok(m) => Some(m),
        Err(e) if matches!(e.kind(), ErrorKind::Io(_)) => return Err(e),
        Err(e) => {
            errors.push(format!("footer: {e}"));
            None
        }
    };
    let index = match &metadata {
        Some(m) => match index_layout(src, m) {
            Ok(i) => Some(i),
            Err(e) if matches!(e.kind(), ErrorKind::Io(_)) => return Err(e),
            Err(e) => {
                errors.push(format!("index: {e}"));
                None
            }
        },
        None => None,
    };
    Ok(Sketch {
        file_len,
        tail_magic,
        data,
        metadata,
        index,
        errors,
    })
}

fn kind_name(c: &ChunkLayout) -> &'static str {
    match c.header.marker.chunk_kind() {
        Some(ChunkKind::Time) => "time",
        Some(ChunkKind::Value) => "value",
        _ => "plain",
    }
}

/// The statistics type of a chunk's pages.
fn stat_type(c: &ChunkLayout) -> DataType {
    c.header.data_type
}

fn stats_text(s: &Statistics, dt: DataType) -> String {
    statistics_json(s, dt).to_string()
}

fn node_entries_json(n: &MetadataIndexNode) -> Json {
    match &n.entries {
        NodeEntries::Device(v) => v
            .iter()
            .map(|e| json!([e.device.segments(), e.offset]))
            .collect(),
        NodeEntries::Measurement(v) => v.iter().map(|e| json!([e.measurement, e.offset])).collect(),
    }
}

fn node_json(n: &MetadataIndexNode) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert("entries".into(), node_entries_json(n));
    m.insert("end_offset".into(), json!(n.end_offset));
    m.insert("type".into(), json!(n.node_type.name()));
    m.insert("raw_type".into(), json!(n.node_type.code()));
    m
}

impl Sketch {
    /// The layout as JSON (see the module docs for the key names).
    pub fn to_json(&self) -> Json {
        let d = &self.data;
        let groups: Vec<Json> = d
            .groups
            .iter()
            .map(|g| {
                let chunks: Vec<Json> = g
                    .chunks
                    .iter()
                    .map(|c| {
                        let pages: Vec<Json> = c
                            .pages
                            .iter()
                            .map(|p| {
                                json!({"offset": p.offset, "data_offset": p.data_offset,
                                "uncompressed_size": p.header.uncompressed_size,
                                "compressed_size": p.header.compressed_size,
                                "statistics": p.header.statistics.as_ref().map(|s| statistics_json(s, stat_type(c)))})
                            })
                            .collect();
                        json!({"offset": c.offset, "marker": format!("0x{:02x}", c.header.marker.code()),
                        "kind": kind_name(c), "one_page": !c.header.marker.is_multi_page(),
                        "measurement": c.header.measurement_id, "data_size": c.header.data_size,
                        "type": c.header.data_type.name(), "compression": c.header.compression.name(),
                        "encoding": c.header.encoding.name(), "pages": c.pages.len(),
                        "header_size": c.body_offset - c.offset, "end": c.end(), "page_headers": pages})
                    })
                    .collect();
                json!({"offset": g.offset, "end": g.end, "complete": g.end.is_some(),
                "device": g.device.segments(), "chunks": chunks})
            })
            .collect();
        let ops: Vec<Json> = (d.operation_ranges.iter())
            .map(|o| json!({"offset": o.offset, "min": o.min, "max": o.max}))
            .collect();
        let mut j = json!({
            "file_size": self.file_len, "head_magic_ok": true, "version_byte": d.version,
            "tail_magic_ok": self.tail_magic, "separator_offset": d.separator,
            "complete_end": d.complete_end, "chunk_groups": groups, "operation_ranges": ops,
            "stop": d.stop.as_ref().map(|s| json!({"offset": s.offset, "error": s.error.to_string()})),
            "errors": self.errors,
        });
        if let Some(m) = &self.metadata {
            set_key(&mut j, "meta_start", json!(m.footer_start()));
            let meta_size = m.file_len() - 10 - m.footer_start();
            set_key(&mut j, "meta_size", json!(meta_size));
            set_key(&mut j, "meta", self.meta_json(m));
        }
        if let Some(index) = &self.index {
            let nodes: Vec<Json> = (index.nodes.iter())
                .map(|n| {
                    let mut o = node_json(&n.node);
                    o.insert("table".into(), json!(n.table));
                    o.insert("offset".into(), json!(n.range.map(|r| r.0)));
                    o.insert("end".into(), json!(n.range.map(|r| r.1)));
                    o.insert("depth".into(), json!(n.depth));
                    o.insert(
                        "device".into(),
                        json!(n.device.as_ref().map(|d| d.segments())),
                    );
                    Json::Object(o)
                })
                .collect();
            let series: Vec<Json> = (index.series.iter())
                .map(|s| {
                    let t = &s.metadata;
                    json!({"offset": s.range.0, "end": s.range.1, "table": s.table,
                    "device": s.device.segments(), "measurement": t.measurement_id,
                    "type": t.data_type.name(), "timeseries_type": t.timeseries_type,
                    "chunks": t.chunks.iter().map(|c| c.offset_of_chunk_header).collect::<Vec<_>>(),
                    "statistics": statistics_json(&t.statistics, t.data_type)})
                })
                .collect();
            set_key(&mut j, "index", json!({"nodes": nodes, "series": series}));
        }
        j
    }

    fn meta_json(&self, m: &FileMetadata) -> Json {
        let f = m.footer();
        let roots: Map<String, Json> = (f.table_roots.iter())
            .map(|(t, n)| (t.clone(), Json::Object(node_json(n))))
            .collect();
        let schemas: Map<String, Json> = (f.schemas.iter())
            .map(|s| {
                let cols: Vec<Json> = (s.columns.iter())
                    .map(|c| json!({"name": c.schema.name, "type": c.schema.data_type.name(),
                    "encoding": c.schema.encoding.name(), "compression": c.schema.compression.name(),
                    "category": c.category.name()}))
                    .collect();
                (s.name.clone(), Json::Array(cols))
            })
            .collect();
        let props: Map<String, Json> = (m.properties().iter())
            .map(|(k, v)| {
                (
                    k.clone(),
                    json!(v.as_ref().map(|b| String::from_utf8_lossy(b))),
                )
            })
            .collect();
        let bloom = f.bloom.as_ref().map(|b| {
            json!({"bytes": b.bytes().len(), "size": b.bit_count(), "hash_functions": b.hash_count()})
        });
        json!({"index_roots": roots, "table_schemas": schemas, "meta_offset": f.meta_offset,
        "bloom_filter": bloom, "properties": props})
    }

    /// The layout as text, one part per line with its offset, in file order.
    pub fn to_text(&self) -> String {
        let mut o = String::new();
        let line = |o: &mut String, at: Option<u64>, depth: usize, text: &str| {
            let pos = at.map_or(String::new(), |a| a.to_string());
            let _ = writeln!(o, "{pos:>20}|{}{text}", "\t".repeat(depth + 1));
        };
        let _ = writeln!(o, "{:-^80}", " TsFile Sketch ");
        let _ = writeln!(o, "file length: {}", self.file_len);
        let _ = writeln!(o, "{:>20}|\tCONTENT", "POSITION");
        line(&mut o, Some(0), 0, "[magic head] TsFile");
        line(
            &mut o,
            Some(6),
            0,
            &format!("[version number] {}", self.data.version),
        );
        let d = &self.data;
        let mut ops = d.operation_ranges.iter().peekable();
        for g in &d.groups {
            while let Some(op) = ops.next_if(|op| op.offset < g.offset) {
                line(
                    &mut o,
                    Some(op.offset),
                    0,
                    &format!("[operation index range] min {}, max {}", op.min, op.max),
                );
            }
            let _ = writeln!(
                o,
                "{:|>21}\t[Chunk Group] of {}, num of Chunks: {}",
                "",
                g.device,
                g.chunks.len()
            );
            line(
                &mut o,
                Some(g.offset),
                0,
                &format!("[Chunk Group Header] marker 0, deviceID {}", g.device),
            );
            for c in &g.chunks {
                let h = &c.header;
                line(
                    &mut o,
                    Some(c.offset),
                    0,
                    &format!(
                    "[Chunk] measurement {:?}, marker 0x{:02x} ({}, {}), data size {}, {}, {}, {}",
                    h.measurement_id, h.marker.code(), kind_name(c),
                    if h.marker.is_multi_page() { "several pages" } else { "one page" },
                    h.data_size, h.data_type, h.encoding, h.compression),
                );
                for p in &c.pages {
                    let mut t = format!(
                        "[Page {}] uncompressed {}, compressed {}",
                        p.index, p.header.uncompressed_size, p.header.compressed_size
                    );
                    if p.header.is_empty() {
                        t.push_str(" (empty page)");
                    }
                    if let Some(s) = &p.header.statistics {
                        let _ = write!(t, ", statistics {}", stats_text(s, stat_type(c)));
                    }
                    line(&mut o, Some(p.offset), 1, &t);
                }
            }
            let state = if g.end.is_some() {
                "ends"
            } else {
                "is incomplete"
            };
            let _ = writeln!(o, "{:|>21}\t[Chunk Group] of {} {state}", "", g.device);
        }
        for op in ops {
            line(
                &mut o,
                Some(op.offset),
                0,
                &format!("[operation index range] min {}, max {}", op.min, op.max),
            );
        }
        if let Some(stop) = &d.stop {
            line(
                &mut o,
                Some(stop.offset),
                0,
                &format!("[scan stopped] {}", stop.error),
            );
        }
        if let Some(sep) = d.separator {
            line(
                &mut o,
                Some(sep),
                0,
                "[marker] 2 (separator: end of the data section)",
            );
        }
        if let Some(index) = &self.index {
            let mut items: Vec<(u64, String)> = Vec::new();
            for s in &index.series {
                let t = &s.metadata;
                items.push((
                    s.range.0,
                    format!(
                        "[TimeseriesMetadata] {}.{} ({}), {} chunk(s) at {:?}, statistics {}",
                        s.device,
                        t.measurement_id,
                        t.data_type,
                        t.chunks.len(),
                        t.chunks
                            .iter()
                            .map(|c| c.offset_of_chunk_header)
                            .collect::<Vec<_>>(),
                        stats_text(&t.statistics, t.data_type)
                    ),
                ));
            }
            for n in &index.nodes {
                if let Some((s, e)) = n.range {
                    let owner = n
                        .device
                        .as_ref()
                        .map_or(format!("table {}", n.table), |d| d.to_string());
                    items.push((s, format!("[MetadataIndexNode] {} of {owner}, {} entries, end_offset {}, ends at {e}",
                        n.node.node_type.name(), n.node.entries.len(), n.node.end_offset)));
                }
            }
            items.sort_by_key(|(at, _)| *at);
            for (at, t) in items {
                line(&mut o, Some(at), 0, &t);
            }
        }
        if let Some(m) = &self.metadata {
            let f = m.footer();
            let l = m.file_len() - 10 - m.footer_start();
            line(
                &mut o,
                Some(m.footer_start()),
                0,
                &format!("[TsFileMetadata] {l} bytes"),
            );
            let v3 = m.version() == crate::tsfile::format::v3::VERSION_V3;
            for (t, n) in &f.table_roots {
                line(
                    &mut o,
                    None,
                    1,
                    &format!(
                        "{}: {}, {} entries, end_offset {}",
                        // A v3 file has one root and no tables.
                        if v3 { "[root]".into() } else { format!("[table root] {t}") },
                        n.node_type.name(),
                        n.entries.len(),
                        n.end_offset
                    ),
                );
            }
            for s in &f.schemas {
                line(
                    &mut o,
                    None,
                    1,
                    &format!("[table schema] {}: {} columns", s.name, s.columns.len()),
                );
            }
            line(&mut o, None, 1, &format!("[meta offset] {}", f.meta_offset));
            let bloom = f.bloom.as_ref().map_or("none".into(), |b| {
                format!(
                    "{} bytes, {} bits, {} hash functions",
                    b.bytes().len(),
                    b.bit_count(),
                    b.hash_count()
                )
            });
            line(&mut o, None, 1, &format!("[bloom filter] {bloom}"));
            if !v3 {
                line(
                    &mut o,
                    None,
                    1,
                    &format!("[properties] {}", m.properties().len()),
                );
            }
            line(
                &mut o,
                Some(m.file_len() - 10),
                0,
                &format!("[TsFileMetadataSize] {l}"),
            );
            line(&mut o, Some(m.file_len() - 6), 0, "[magic tail] TsFile");
        }
        for e in &self.errors {
            let _ = writeln!(o, "{:>20}|\t[error] {e}", "");
        }
        line(&mut o, Some(self.file_len), 0, "END of TsFile");
        o
    }
}
