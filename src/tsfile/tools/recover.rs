//! [`recover`]: rebuilds a valid TsFile from one cut off mid-write (`colfile recover`), as
//! Java's `TsFileSequenceReader.selfCheck` / `RestorableTsFileIOWriter` do.
//!
//! The data section is scanned from the head (`spec/tsfile.md` §5.8); every chunk is decoded
//! and its statistics recomputed from its values (single-page chunks carry none). The scan
//! stops at the first chunk group that is cut off or does not parse or decode; the bytes of
//! every earlier record are copied unchanged (so chunk offsets stay valid) and a new
//! metadata section is written with the writer's own code (`writer::index`):
//! TimeseriesMetadata, index tree, Bloom filter, table schemas and footer.
//!
//! What counts as complete: a chunk group is kept only once the marker of the record after
//! it (another chunk group, an operation index range or the separator) is in the file. A cut
//! exactly at the end of a group's last chunk therefore drops that group too, because the
//! file cannot tell it apart from a group that lost its remaining chunks (Java decides the
//! same way).
//!
//! Table schemas, in order of preference:
//! 1. a schema given in [`RecoverOptions::schemas`] (matched by table name);
//! 2. the input's own footer, when it is still readable (a complete input file): its
//!    schemas and properties are kept as they are;
//! 3. otherwise a schema inferred from the data, for every table whose devices are all
//!    aligned and whose name has no `.` (tree-model devices such as `root.sg1.d1` get no
//!    schema, as tree-model files have none). The inferred schema has one STRING TAG
//!    column per device id segment after the table name — as many as the longest device
//!    id of the table has, named `tag1`, `tag2`, … (the real names live only in the lost
//!    footer; trailing null tags are not stored, so a table whose every device has null
//!    last tags gets fewer tag columns) — followed by one FIELD column per measurement in
//!    the order first met, with the type, encoding and compression of its chunk header.
//!    ATTRIBUTE columns are not stored in the data section and cannot be recovered, nor can
//!    column properties (such as `max_point_number`) or user file properties.

use std::collections::BTreeMap;
use std::io::Write;

use super::layout::scan_data_with;
use super::recompute::{is_lossy, statistics_agree, StatsDecoder};
use crate::source::ByteSource;
use crate::tsfile::format::device::java_str_cmp;
use crate::tsfile::format::{v3, TailBytes};
use crate::tsfile::format::headers::{TIME_COLUMN_MASK, VALUE_COLUMN_MASK};
use crate::tsfile::format::{
    ChunkKind, ChunkMetadata, ColumnCategory, DataType, DeviceId, MeasurementSchema, Statistics,
    TableColumn, TableSchema, TimeseriesMetadata,
};
use crate::tsfile::read::metadata::FileMetadata;
use crate::tsfile::writer::index as index_writer;
use crate::{Error, ErrorKind, Limits, Result};

/// Options of [`recover_with`].
#[derive(Clone, Debug)]
pub struct RecoverOptions {
    /// Bounds on every size read from the input.
    pub limits: Limits,
    /// Known table schemas; they replace the footer's or inferred ones of the same name.
    pub schemas: Vec<TableSchema>,
    /// Index fan-out of the new metadata (Java's default 256).
    pub max_index_degree: usize,
    /// Bloom filter error rate (Java's default 0.05).
    pub bloom_error_rate: f64,
    /// Whether series type bytes carry Java's 0x80 / 0x40 role masks.
    pub role_masks: bool,
}

impl Default for RecoverOptions {
    fn default() -> Self {
        RecoverOptions {
            limits: Limits::default(),
            schemas: Vec::new(),
            max_index_degree: 256,
            bloom_error_rate: 0.05,
            role_masks: true,
        }
    }
}

/// What [`recover`] kept and how.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecoverySummary {
    /// Length of the input.
    pub input_len: u64,
    /// Bytes of the input kept (head and complete records): where the new `0x02` is.
    pub data_end: u64,
    /// Length of the recovered file.
    pub output_len: u64,
    /// Chunk groups kept.
    pub chunk_groups: u64,
    /// Chunk groups seen but dropped as incomplete or invalid.
    pub dropped_chunk_groups: u64,
    /// Chunks kept.
    pub chunks: u64,
    /// Devices in the new index.
    pub devices: u64,
    /// Series in the new index.
    pub series: u64,
    /// True when the input's footer was readable and its schemas and properties were kept.
    pub footer_kept: bool,
    /// Tables whose schema was inferred from the data.
    pub inferred_tables: Vec<String>,
    /// Why the scan ended before the separator (`None`: the data section was complete).
    pub stop: Option<String>,
}

/// Recovers `source` into `out` with default options (see the module docs).
///
/// ```
/// use colfile::tsfile::{recover, Query, TsFileReader};
/// let bytes = std::fs::read("fixtures/tsfile/basic.tsfile")?;
/// // Cut inside the second chunk group: the first one (device weather.beijing.d1) survives.
/// let mut fixed = Vec::new();
/// let summary = recover(&bytes[..200], &mut fixed)?;
/// assert_eq!((summary.chunk_groups, summary.dropped_chunk_groups), (1, 1));
/// assert_eq!(summary.inferred_tables, ["weather"]);
/// let r = TsFileReader::open(fixed)?;
/// let rows: usize = r.query(&Query::all())?.map(|b| b.map(|b| b.len())).sum::<Result<_, _>>()?;
/// assert!(rows > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn recover<S: ByteSource + ?Sized, W: Write>(source: &S, out: W) -> Result<RecoverySummary> {
    recover_with(source, out, &RecoverOptions::default())
}

/// A chunk kept for the index.
struct Kept {
    group: usize,
    device: DeviceId,
    name: String,
    kind: Option<ChunkKind>,
    data_type: DataType,
    encoding: crate::tsfile::format::Encoding,
    compression: crate::tsfile::format::Compression,
    offset: u64,
    stats: Statistics,
}

/// [`recover`] with options.
///
/// Errors: the input does not start with `TsFile` and version 4; a chunk uses a codec this
/// build lacks (its statistics cannot be recomputed); I/O errors.
pub fn recover_with<S: ByteSource + ?Sized, W: Write>(
    source: &S,
    mut out: W,
    opts: &RecoverOptions,
) -> Result<RecoverySummary> {
    let limits = &opts.limits;
    let footer = match FileMetadata::read(source, limits) {
        Ok(m) => Some(m),
        Err(e) if matches!(e.kind(), ErrorKind::Io(_)) => return Err(e),
        Err(_) => None,
    };
    let mut dec = StatsDecoder::new(limits);
    let mut kept = Vec::new();
    let mut fatal = None;
    let data = scan_data_with(source, limits, |group, device, chunk| {
        let stats = dec.chunk(group, chunk).inspect_err(|e| {
            if matches!(
                e.kind(),
                ErrorKind::Unsupported(_)
                    | ErrorKind::UnknownCodec(_)
                    | ErrorKind::CodecDisabled { .. }
            ) {
                fatal = Some(Error::unsupported(format!(
                    "cannot recompute statistics: {e}"
                )));
            }
        })?;
        let h = &chunk.header;
        // Page headers are copied as they are: their statistics must describe their data
        // as `verify` requires, or the chunk (and its group) is not kept.
        let lossy = is_lossy(h.data_type, h.encoding);
        let pages = stats.stored.iter().zip(&stats.pages).enumerate();
        for (k, (stored, computed)) in pages {
            if stored
                .as_ref()
                .is_some_and(|s| !statistics_agree(s, computed, lossy))
            {
                let msg = "page statistics differ from the page's data";
                return Err(Error::corrupt("tsfile", msg)
                    .at_offset(chunk.offset)
                    .in_chunk(chunk.offset)
                    .in_page(k as u32));
            }
        }
        kept.push(Kept {
            group,
            device: device.clone(),
            name: h.measurement_id.clone(),
            kind: h.marker.chunk_kind(),
            data_type: h.data_type,
            encoding: h.encoding,
            compression: h.compression,
            offset: chunk.offset,
            stats: stats.chunk,
        });
        Ok(())
    })?;
    if let Some(e) = fatal {
        return Err(e);
    }
    kept.retain(|k| data.groups.get(k.group).is_some_and(|g| g.end.is_some()));
    let mut summary = RecoverySummary {
        input_len: source.len(),
        data_end: data.complete_end,
        chunk_groups: data.complete_groups().count() as u64,
        dropped_chunk_groups: data.groups.iter().filter(|g| g.end.is_none()).count() as u64,
        chunks: kept.len() as u64,
        footer_kept: footer.is_some(),
        stop: data.stop.as_ref().map(|s| s.error.to_string()),
        ..RecoverySummary::default()
    };
    let (schemas, inferred) = schemas_for(footer.as_ref(), opts, &kept);
    summary.inferred_tables = inferred;
    let properties = footer
        .as_ref()
        .map_or(Vec::new(), |m| m.properties().to_vec());
    let devices = series_of(kept, opts.role_masks)?;
    summary.devices = devices.len() as u64;
    summary.series = devices.iter().map(|(_, s)| s.len() as u64).sum();

    copy_prefix(source, data.complete_end, &mut out)?;
    let written = if data.version == v3::VERSION_V3 {
        // A v3 file stays v3: no schemas, no properties, one device root.
        let input = index_writer::IndexInput {
            devices: &devices,
            schemas: &[],
            properties: &[],
            max_degree: opts.max_index_degree,
            bloom_error_rate: opts.bloom_error_rate,
            bloom_n: summary.chunks as usize,
            bloom_hash: TailBytes::Java,
        };
        index_writer::write_index_v3(&mut out, data.complete_end, &input)?
    } else {
        index_writer::write_metadata(
            &mut out,
            data.complete_end,
            &devices,
            &schemas,
            &properties,
            opts.max_index_degree,
            opts.bloom_error_rate,
            summary.chunks as usize,
        )?
    };
    out.flush()?;
    summary.output_len = written.file_len;
    Ok(summary)
}

/// Copies `[0, end)` of `source` to `out` in blocks.
fn copy_prefix<S: ByteSource + ?Sized, W: Write>(source: &S, end: u64, out: &mut W) -> Result<()> {
    let mut buf = vec![0u8; (end.min(1 << 20)) as usize];
    let mut pos = 0u64;
    while pos < end {
        let n = (end - pos).min(buf.len() as u64) as usize;
        // n <= buf.len() (and > 0: buf is empty only when end is 0).
        let block = buf
            .get_mut(..n)
            .ok_or_else(|| Error::invalid("copy block larger than its buffer"))?;
        source.read_exact_at(pos, block)?;
        out.write_all(block)?;
        pos += n as u64;
    }
    Ok(())
}

/// A series' name, type-byte mask and chunks (with their data types) in file order.
type SeriesChunks = (String, u8, Vec<(DataType, ChunkMetadata)>);

/// Each device's series (time column first, then by name), chunks in file order. As in
/// Java, a series keeps only the chunks of the type of its last chunk.
fn series_of(kept: Vec<Kept>, masks: bool) -> Result<Vec<(DeviceId, Vec<TimeseriesMetadata>)>> {
    let mut by_device: BTreeMap<DeviceId, Vec<SeriesChunks>> = BTreeMap::new();
    for k in kept {
        let mask = match (masks, k.kind) {
            (true, Some(ChunkKind::Time)) => TIME_COLUMN_MASK,
            (true, Some(ChunkKind::Value)) => VALUE_COLUMN_MASK,
            _ => 0,
        };
        let series = by_device.entry(k.device).or_default();
        let entry = match series.iter().position(|(n, _, _)| *n == k.name) {
            Some(i) => series.get_mut(i),
            None => {
                series.push((k.name, mask, Vec::new()));
                series.last_mut()
            }
        };
        if let Some((_, _, chunks)) = entry {
            chunks.push((
                k.data_type,
                ChunkMetadata {
                    offset_of_chunk_header: k.offset as i64,
                    statistics: Some(k.stats),
                },
            ));
        }
    }
    let mut devices = Vec::with_capacity(by_device.len());
    for (device, mut series) in by_device {
        series.sort_by(|a, b| java_str_cmp(&a.0, &b.0));
        let mut list = Vec::with_capacity(series.len());
        for (name, mask, chunks) in series {
            let Some(&(last, _)) = chunks.last() else {
                continue;
            };
            let chunks = chunks
                .into_iter()
                .filter(|(t, _)| *t == last)
                .map(|(_, c)| c)
                .collect();
            list.push(index_writer::series_metadata(name, last, mask, chunks)?);
        }
        devices.push((device, list));
    }
    Ok(devices)
}

/// The schemas to write and the names of the tables whose schema was inferred.
fn schemas_for(
    footer: Option<&FileMetadata>,
    opts: &RecoverOptions,
    kept: &[Kept],
) -> (Vec<TableSchema>, Vec<String>) {
    let given = |name: &str| {
        opts.schemas
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    };
    if let Some(m) = footer {
        let mut schemas: Vec<TableSchema> = m.footer().schemas.clone();
        for s in &mut schemas {
            if let Some(g) = given(&s.name) {
                *s = g.clone();
            }
        }
        return (schemas, Vec::new());
    }
    // table -> (all aligned, longest device id, fields in first-seen order)
    let mut tables: BTreeMap<&str, (bool, usize, Vec<MeasurementSchema>)> = BTreeMap::new();
    for k in kept {
        let t = tables
            .entry(k.device.table_name())
            .or_insert((true, 0, Vec::new()));
        t.0 &= k.kind != Some(ChunkKind::NonAligned);
        t.1 = t.1.max(k.device.segments().len());
        if k.kind == Some(ChunkKind::Value) && !t.2.iter().any(|m| m.name == k.name) {
            t.2.push(MeasurementSchema::new(
                &k.name,
                k.data_type,
                k.encoding,
                k.compression,
            ));
        }
    }
    let (mut schemas, mut inferred) = (Vec::new(), Vec::new());
    for (name, (aligned, segments, fields)) in tables {
        if let Some(g) = given(name) {
            schemas.push(g.clone());
        } else if aligned && !name.contains('.') {
            schemas.push(infer(name, segments.saturating_sub(1), fields));
            inferred.push(name.to_owned());
        }
    }
    (schemas, inferred)
}

/// `tags` STRING TAG columns named `tag1…` (with `_` appended while a field has the name),
/// then the fields.
fn infer(table: &str, tags: usize, fields: Vec<MeasurementSchema>) -> TableSchema {
    let mut columns = Vec::with_capacity(tags + fields.len());
    for i in 1..=tags {
        let mut name = format!("tag{i}");
        while fields.iter().any(|f| f.name == name) {
            name.push('_');
        }
        columns.push(TableColumn::new(
            &name,
            DataType::String,
            ColumnCategory::Tag,
        ));
    }
    columns.extend(fields.into_iter().map(|schema| TableColumn {
        schema,
        category: ColumnCategory::Field,
    }));
    TableSchema::new(table, columns)
}
