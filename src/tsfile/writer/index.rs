//! Writing the metadata section (`spec/tsfile.md` §10, §11 items 1, 2, 4): the `0x02`
//! separator, every TimeseriesMetadata, the index nodes in the order Java's
//! `MetadataIndexConstructor` writes them, the footer, `L` and the tail magic.

use std::collections::VecDeque;
use std::io::Write;

use crate::tsfile::format::device::java_str_cmp;
use crate::tsfile::format::footer::default_properties;
use crate::tsfile::format::{v3, MAGIC};
use crate::tsfile::format::{
    BloomFilter, ChunkMetadata, DataType, DeviceEntry, DeviceId, MeasurementEntry,
    MetadataIndexNode, NodeEntries, NodeType, Statistics, TableSchema, TailBytes,
    TimeseriesMetadata, TsFileMetadata,
};
use crate::{Error, Result};

/// What [`write_index`] needs besides the output and its position.
#[derive(Clone, Debug)]
pub struct IndexInput<'a> {
    /// Each device with its series in measurement order (time column `""` first). Devices
    /// are sorted here into [`DeviceId`] order. Type bytes are written as given: Java's are
    /// `(multi_chunk as u8) | mask` (0x80 time column, 0x40 aligned value column).
    pub devices: &'a [(DeviceId, Vec<TimeseriesMetadata>)],
    /// Table schemas, written in this order.
    pub schemas: &'a [TableSchema],
    /// Every file property, written in this order (see [`java_properties`]).
    pub properties: &'a [(String, Option<Vec<u8>>)],
    /// Index fan-out, at least 2 (Java's default is 256).
    pub max_degree: usize,
    /// Bloom filter error rate (Java's default 0.05; clamped to 0.01..=0.10).
    pub bloom_error_rate: f64,
    /// The `n` the Bloom filter is sized for: Java uses the number of chunk metadata entries.
    pub bloom_n: usize,
    /// How Bloom keys are hashed: [`TailBytes::Java`] for Java's bytes; `Cpp` reproduces
    /// files of the C++ writer (they differ only for non-ASCII paths).
    pub bloom_hash: TailBytes,
}

/// Where the written metadata section lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetadataSummary {
    /// Offset of the `0x02` separator.
    pub meta_offset: u64,
    /// Offset of the footer (`TsFileMetadata`).
    pub footer_offset: u64,
    /// `L`: the footer's length in bytes.
    pub footer_len: u32,
    /// Length of the whole file.
    pub file_len: u64,
}

/// Java's property list: `encryptLevel "0"`, `encryptKey` null, `encryptType` UNENCRYPTED,
/// then `user` (a user value for one of those keys replaces the default in place).
pub fn java_properties(user: &[(String, Option<Vec<u8>>)]) -> Vec<(String, Option<Vec<u8>>)> {
    let mut props = default_properties();
    for (k, v) in user {
        match props.iter_mut().find(|(dk, _)| dk == k) {
            Some(slot) => slot.1.clone_from(v),
            None => props.push((k.clone(), v.clone())),
        }
    }
    props
}

/// Writes the metadata section with Java's default properties followed by `user_properties`,
/// a Bloom filter for `chunk_count` entries, at file position `pos` (the separator's offset).
#[allow(clippy::too_many_arguments)]
pub fn write_metadata<W: Write>(
    out: &mut W,
    pos: u64,
    devices: &[(DeviceId, Vec<TimeseriesMetadata>)],
    schemas: &[TableSchema],
    user_properties: &[(String, Option<Vec<u8>>)],
    max_degree: usize,
    bloom_error_rate: f64,
    chunk_count: usize,
) -> Result<MetadataSummary> {
    let properties = java_properties(user_properties);
    write_index(
        out,
        pos,
        &IndexInput {
            devices,
            schemas,
            properties: &properties,
            max_degree,
            bloom_error_rate,
            bloom_n: chunk_count,
            bloom_hash: TailBytes::Java,
        },
    )
}

/// A series' TimeseriesMetadata from its chunks in file order, each with its statistics:
/// the series statistics merge the chunks'; chunk metadata keep their own statistics only
/// when there are several chunks; the type byte is `(several chunks) | mask` (Java ORs
/// 0x80 for a time column, 0x40 for an aligned value column).
///
/// Errors: chunk statistics of a type other than `data_type`.
pub fn series_metadata(
    name: String,
    data_type: DataType,
    mask: u8,
    chunks: Vec<ChunkMetadata>,
) -> Result<TimeseriesMetadata> {
    let mut statistics = Statistics::new(data_type);
    for c in &chunks {
        if let Some(st) = &c.statistics {
            statistics.merge(st)?;
        }
    }
    let multi = chunks.len() > 1;
    let chunks = chunks
        .into_iter()
        .map(|c| ChunkMetadata {
            offset_of_chunk_header: c.offset_of_chunk_header,
            statistics: if multi { c.statistics } else { None },
        })
        .collect();
    Ok(TimeseriesMetadata {
        timeseries_type: (multi as u8) | mask,
        measurement_id: name,
        data_type,
        statistics,
        chunks,
    })
}

/// Buffers output and counts the file position.
struct Sink<'w, W: Write> {
    out: &'w mut W,
    buf: Vec<u8>,
    pos: u64,
    /// Write device-level nodes in the v3 form.
    v3: bool,
}

impl<W: Write> Sink<'_, W> {
    fn pos(&self) -> i64 {
        (self.pos + self.buf.len() as u64) as i64
    }
    fn node(&mut self, n: &MetadataIndexNode) -> Result<()> {
        if self.v3 {
            v3::write_node(n, &mut self.buf)?;
        } else {
            n.write_to(&mut self.buf)?;
        }
        self.spill()
    }
    fn spill(&mut self) -> Result<()> {
        if self.buf.len() >= 1 << 16 {
            self.flush()?;
        }
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        self.out.write_all(&self.buf)?;
        self.pos += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
}

/// The key of a node's range: its first entry's key.
enum Key {
    Device(DeviceId),
    Measurement(String),
}

fn new_node(node_type: NodeType) -> MetadataIndexNode {
    let entries = if node_type.is_device_level() {
        NodeEntries::Device(Vec::new())
    } else {
        NodeEntries::Measurement(Vec::new())
    };
    MetadataIndexNode {
        entries,
        end_offset: 0,
        node_type,
    }
}

fn first_key(n: &MetadataIndexNode) -> Option<Key> {
    match &n.entries {
        NodeEntries::Device(v) => v.first().map(|e| Key::Device(e.device.clone())),
        NodeEntries::Measurement(v) => v.first().map(|e| Key::Measurement(e.measurement.clone())),
    }
}

fn add(n: &mut MetadataIndexNode, key: Key, offset: i64) {
    match (&mut n.entries, key) {
        (NodeEntries::Device(v), Key::Device(device)) => v.push(DeviceEntry { device, offset }),
        (NodeEntries::Measurement(v), Key::Measurement(measurement)) => v.push(MeasurementEntry {
            measurement,
            offset,
        }),
        _ => {}
    }
}

/// Java's `generateRootNode`: writes levels of `node_type` nodes over `queue` until one node
/// is left, and returns that root unwritten.
fn build_upper<W: Write>(
    sink: &mut Sink<'_, W>,
    mut queue: VecDeque<MetadataIndexNode>,
    node_type: NodeType,
    degree: usize,
) -> Result<MetadataIndexNode> {
    while queue.len() > 1 {
        let n = queue.len();
        let mut cur = new_node(node_type);
        for _ in 0..n {
            let Some(child) = queue.pop_front() else {
                break;
            };
            if cur.entries.len() >= degree {
                cur.end_offset = sink.pos();
                queue.push_back(std::mem::replace(&mut cur, new_node(node_type)));
            }
            if let Some(k) = first_key(&child) {
                add(&mut cur, k, sink.pos());
            }
            sink.node(&child)?;
        }
        cur.end_offset = sink.pos();
        queue.push_back(cur);
    }
    queue
        .pop_front()
        .ok_or_else(|| Error::invalid("no index nodes to build a root from"))
}

/// Writes `02`, the series metadata, the index nodes, the footer, `L` and `TsFile`.
pub fn write_index<W: Write>(
    out: &mut W,
    pos: u64,
    input: &IndexInput<'_>,
) -> Result<MetadataSummary> {
    write_index_as(out, pos, input, false)
}

/// [`write_index`] in the TsFile v3 form (IoTDB 0.12–1.3): devices sorted and keyed by their
/// path strings under one root, and a v3 footer (`input.schemas` and `input.properties`
/// must be empty).
pub fn write_index_v3<W: Write>(
    out: &mut W,
    pos: u64,
    input: &IndexInput<'_>,
) -> Result<MetadataSummary> {
    write_index_as(out, pos, input, true)
}

fn write_index_as<W: Write>(
    out: &mut W,
    pos: u64,
    input: &IndexInput<'_>,
    v3: bool,
) -> Result<MetadataSummary> {
    let d = input.max_degree;
    if d < 2 {
        return Err(Error::invalid(format!("index degree {d} is below 2")));
    }
    let mut order: Vec<&(DeviceId, Vec<TimeseriesMetadata>)> = input.devices.iter().collect();
    if v3 {
        // Java `String` order of the paths is UTF-16 code-unit order.
        order.sort_by_cached_key(|a| a.0.to_string().encode_utf16().collect::<Vec<u16>>());
    } else {
        order.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let mut sink = Sink {
        out,
        buf: Vec::with_capacity(1 << 16),
        pos,
        v3,
    };
    sink.buf.push(0x02);
    let n = u32::try_from(input.bloom_n).unwrap_or(u32::MAX);
    let mut bloom = BloomFilter::with_capacity(n, input.bloom_error_rate);

    // Series metadata per device, with deep measurement trees written as they complete.
    let mut roots: Vec<(&DeviceId, MetadataIndexNode)> = Vec::with_capacity(order.len());
    for &(device, series) in &order {
        let mut queue = VecDeque::new();
        let mut leaf = new_node(NodeType::LeafMeasurement);
        for (j, tsm) in series.iter().enumerate() {
            if j % d == 0 {
                if leaf.entries.len() >= d {
                    leaf.end_offset = sink.pos();
                    queue.push_back(std::mem::replace(
                        &mut leaf,
                        new_node(NodeType::LeafMeasurement),
                    ));
                }
                add(
                    &mut leaf,
                    Key::Measurement(tsm.measurement_id.clone()),
                    sink.pos(),
                );
            }
            bloom.add_hashed(
                &format!("{device}.{}", tsm.measurement_id),
                input.bloom_hash,
            );
            tsm.write_to(&mut sink.buf)?;
            sink.spill()?;
        }
        leaf.end_offset = sink.pos();
        queue.push_back(leaf);
        roots.push((
            device,
            build_upper(&mut sink, queue, NodeType::InternalMeasurement, d)?,
        ));
    }

    // Device level, table by table.
    let mut table_roots: Vec<(String, MetadataIndexNode)> = Vec::new();
    let mut rest = roots.as_slice();
    while let Some((first, _)) = rest.first() {
        // v3 has one root, named "" here, for every device.
        let table = if v3 { "" } else { first.table_name() };
        let n = rest
            .iter()
            .take_while(|(dev, _)| v3 || dev.table_name() == table)
            .count();
        let (devs, tail) = rest.split_at(n);
        rest = tail;
        let mut queue = VecDeque::new();
        let mut cur = new_node(NodeType::LeafDevice);
        for (dev, root) in devs {
            if cur.entries.len() >= d {
                cur.end_offset = sink.pos();
                queue.push_back(std::mem::replace(&mut cur, new_node(NodeType::LeafDevice)));
            }
            add(&mut cur, Key::Device((*dev).clone()), sink.pos());
            sink.node(root)?;
        }
        cur.end_offset = sink.pos();
        queue.push_back(cur);
        let mut root = build_upper(&mut sink, queue, NodeType::InternalDevice, d)?;
        root.end_offset = sink.pos();
        table_roots.push((table.to_owned(), root));
    }
    table_roots.sort_by(|a, b| java_str_cmp(&a.0, &b.0));

    let meta_offset = pos;
    let footer = TsFileMetadata {
        table_roots,
        schemas: input.schemas.to_vec(),
        meta_offset: meta_offset as i64,
        bloom: (!bloom.bytes().is_empty()).then_some(bloom),
        properties: input.properties.to_vec(),
    };
    let footer_offset = sink.pos() as u64;
    let before = sink.buf.len();
    if v3 {
        v3::write_footer(&footer, &mut sink.buf)?;
    } else {
        footer.write_to(&mut sink.buf)?;
    }
    let footer_len = u32::try_from(sink.buf.len() - before)
        .map_err(|_| Error::invalid("file metadata too large"))?;
    sink.buf.extend_from_slice(&footer_len.to_be_bytes());
    sink.buf.extend_from_slice(MAGIC);
    sink.flush()?;
    Ok(MetadataSummary {
        meta_offset,
        footer_offset,
        footer_len,
        file_len: sink.pos,
    })
}
