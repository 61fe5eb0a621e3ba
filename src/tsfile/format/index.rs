//! The indexed metadata region (`spec/tsfile.md` §8.2, §8.3): [`TimeseriesMetadata`] with its
//! [`ChunkMetadata`] list, and [`MetadataIndexNode`]s whose entry format comes from context.

use super::device::DeviceId;
use super::statistics::Statistics;
use super::types::DataType;
use super::varint::{put_uvarint, put_var_bytes, uvarint_len};
use crate::cursor::Cursor;
use crate::{Error, Limits, Result};

/// Where one chunk of a series starts, with its statistics when the series has several chunks.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkMetadata {
    /// Offset of the chunk header's marker byte.
    pub offset_of_chunk_header: i64,
    /// The chunk's statistics; `None` for a single-chunk series (they equal the series').
    pub statistics: Option<Statistics>,
}

/// One series' metadata: type byte, name, data type, statistics and chunk list.
///
/// ```
/// use colfile::tsfile::format::{ChunkMetadata, DataType, Statistics, TimeseriesMetadata};
/// use colfile::cursor::Cursor;
/// let tsm = TimeseriesMetadata {
///     timeseries_type: 0x80,
///     measurement_id: String::new(),
///     data_type: DataType::Vector,
///     statistics: Statistics::new(DataType::Vector),
///     chunks: vec![ChunkMetadata { offset_of_chunk_header: 7, statistics: None }],
/// };
/// let mut b = Vec::new();
/// tsm.write_to(&mut b)?;
/// let back = TimeseriesMetadata::read(&mut Cursor::new(&b, 0), &colfile::Limits::default())?;
/// assert_eq!(back, tsm);
/// assert!(!back.is_multi_chunk());
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TimeseriesMetadata {
    /// Low 6 bits: 0 = one chunk, 1 = several; Java also ORs 0x80 (time) / 0x40 (value).
    pub timeseries_type: u8,
    /// Measurement name (`""` for the aligned time column).
    pub measurement_id: String,
    /// Data type (`VECTOR` for the time column).
    pub data_type: DataType,
    /// Statistics of the whole series.
    pub statistics: Statistics,
    /// The chunks in file order.
    pub chunks: Vec<ChunkMetadata>,
}

impl TimeseriesMetadata {
    /// True when chunk metadata carry their own statistics (`type & 0x3F != 0`).
    pub fn is_multi_chunk(&self) -> bool {
        self.timeseries_type & 0x3f != 0
    }

    /// The statistics of chunk `i`: its own, or the series' for a single-chunk series.
    pub fn chunk_statistics(&self, i: usize) -> Option<&Statistics> {
        let c = self.chunks.get(i)?;
        c.statistics.as_ref().or(Some(&self.statistics))
    }

    /// Parses one TimeseriesMetadata; the chunk list must be exactly its declared byte length.
    pub fn read(c: &mut Cursor<'_>, limits: &Limits) -> Result<TimeseriesMetadata> {
        let start = c.offset();
        let timeseries_type = c.read_u8()?;
        let name_at = c.offset();
        let measurement_id = c.read_var_str("measurement id")?;
        if measurement_id.len() > limits.max_string_len {
            return Err(Error::limit(
                "measurement id",
                measurement_id.len() as u64,
                limits.max_string_len as u64,
            )
            .at_offset(name_at));
        }
        let measurement_id = measurement_id.to_owned();
        let type_at = c.offset();
        let data_type = DataType::from_code(c.read_u8()?).map_err(|e| e.at_offset(type_at))?;
        let list_size = c.read_uvarint()? as usize;
        let statistics = Statistics::read(c, data_type)?;
        let list_at = c.offset();
        let list = c.take("chunk metadata list", list_size)?;
        let mut lc = Cursor::new(list, list_at);
        let multi = timeseries_type & 0x3f != 0;
        let mut chunks = Vec::new();
        while !lc.is_empty() {
            if chunks.len() >= limits.max_metadata_entries {
                return Err(Error::limit(
                    "chunks of a series",
                    chunks.len() as u64 + 1,
                    limits.max_metadata_entries as u64,
                )
                .at_offset(lc.offset()));
            }
            let offset_of_chunk_header = lc.read_i64_be()?;
            let statistics = if multi {
                Some(Statistics::read(&mut lc, data_type)?)
            } else {
                None
            };
            chunks.push(ChunkMetadata {
                offset_of_chunk_header,
                statistics,
            });
        }
        if chunks.is_empty() {
            return Err(
                Error::corrupt("tsfile", "timeseries metadata without chunks").at_offset(start),
            );
        }
        Ok(TimeseriesMetadata {
            timeseries_type,
            measurement_id,
            data_type,
            statistics,
            chunks,
        })
    }

    /// Appends the wire form. Errors: a multi-chunk series whose chunk lacks statistics.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        let mut list = Vec::with_capacity(self.chunks.len() * 8);
        for ch in &self.chunks {
            list.extend_from_slice(&ch.offset_of_chunk_header.to_be_bytes());
            if self.is_multi_chunk() {
                let s = ch.statistics.as_ref().ok_or_else(|| {
                    Error::invalid("a multi-chunk series needs statistics for every chunk")
                })?;
                s.write_to(&mut list)?;
            }
        }
        let n = u32::try_from(list.len())
            .map_err(|_| Error::invalid("chunk metadata list too long"))?;
        out.push(self.timeseries_type);
        put_var_bytes(out, Some(self.measurement_id.as_bytes()))?;
        out.push(self.data_type.code());
        out.reserve(uvarint_len(n) + list.len());
        put_uvarint(out, n);
        self.statistics.write_to(out)?;
        out.extend_from_slice(&list);
        Ok(())
    }
}

/// The kind of a [`MetadataIndexNode`] (its trailing byte).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NodeType {
    /// 0: entries point at device-level child nodes.
    InternalDevice,
    /// 1: entries point at each device's measurement-level root.
    LeafDevice,
    /// 2: entries point at measurement-level child nodes.
    InternalMeasurement,
    /// 3: entries point at runs of TimeseriesMetadata.
    LeafMeasurement,
}

impl NodeType {
    /// The stored byte.
    pub fn code(self) -> u8 {
        match self {
            NodeType::InternalDevice => 0,
            NodeType::LeafDevice => 1,
            NodeType::InternalMeasurement => 2,
            NodeType::LeafMeasurement => 3,
        }
    }

    /// The type for a stored byte.
    pub fn from_code(code: u8) -> Result<NodeType> {
        Ok(match code {
            0 => NodeType::InternalDevice,
            1 => NodeType::LeafDevice,
            2 => NodeType::InternalMeasurement,
            3 => NodeType::LeafMeasurement,
            _ => {
                return Err(Error::corrupt(
                    "tsfile",
                    format!("unknown index node type {code}"),
                ))
            }
        })
    }

    /// True for the two device-level types.
    pub fn is_device_level(self) -> bool {
        matches!(self, NodeType::InternalDevice | NodeType::LeafDevice)
    }

    /// Java's name, e.g. `LEAF_DEVICE`.
    pub fn name(self) -> &'static str {
        match self {
            NodeType::InternalDevice => "INTERNAL_DEVICE",
            NodeType::LeafDevice => "LEAF_DEVICE",
            NodeType::InternalMeasurement => "INTERNAL_MEASUREMENT",
            NodeType::LeafMeasurement => "LEAF_MEASUREMENT",
        }
    }
}

/// A device-level entry: the first device of the child's range and the child's offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceEntry {
    /// Smallest device in the range.
    pub device: DeviceId,
    /// Offset of the child node (or, under a leaf, of the device's measurement root).
    pub offset: i64,
}

/// A measurement-level entry: the first measurement of the range and its offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeasurementEntry {
    /// Smallest measurement id in the range.
    pub measurement: String,
    /// Offset of the child node or of the first TimeseriesMetadata.
    pub offset: i64,
}

/// A node's entries; the format is decided by the level being read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeEntries {
    /// Device-level entries.
    Device(Vec<DeviceEntry>),
    /// Measurement-level entries.
    Measurement(Vec<MeasurementEntry>),
}

impl NodeEntries {
    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            NodeEntries::Device(v) => v.len(),
            NodeEntries::Measurement(v) => v.len(),
        }
    }

    /// True without entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Offset of entry `i`.
    pub fn offset(&self, i: usize) -> Option<i64> {
        match self {
            NodeEntries::Device(v) => v.get(i).map(|e| e.offset),
            NodeEntries::Measurement(v) => v.get(i).map(|e| e.offset),
        }
    }
}

/// A node of the metadata index tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataIndexNode {
    /// The children, in key order.
    pub entries: NodeEntries,
    /// End of the last child's range.
    pub end_offset: i64,
    /// The stored type, consistent with the entries' level.
    pub node_type: NodeType,
}

impl MetadataIndexNode {
    /// Reads a device-level node (a table root, or a child of an INTERNAL_DEVICE entry).
    pub fn read_device_level(c: &mut Cursor<'_>, limits: &Limits) -> Result<MetadataIndexNode> {
        Self::read(c, limits, true, false)
    }

    /// Reads a v3 device-level node: its entry keys are whole device strings (`VarStr`).
    pub fn read_device_level_v3(c: &mut Cursor<'_>, limits: &Limits) -> Result<MetadataIndexNode> {
        Self::read(c, limits, true, true)
    }

    /// Reads a measurement-level node (below a LEAF_DEVICE or INTERNAL_MEASUREMENT entry).
    pub fn read_measurement_level(
        c: &mut Cursor<'_>,
        limits: &Limits,
    ) -> Result<MetadataIndexNode> {
        Self::read(c, limits, false, false)
    }

    fn read(
        c: &mut Cursor<'_>,
        limits: &Limits,
        device_level: bool,
        v3: bool,
    ) -> Result<MetadataIndexNode> {
        let start = c.offset();
        let n = c.read_ucount("index node entries", limits.max_metadata_entries)?;
        // Each entry takes at least 9 bytes.
        c.need("index node entries", n.saturating_mul(9))?;
        let entries = if device_level {
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let device = if v3 {
                    super::v3::read_device(c, limits)?
                } else {
                    DeviceId::read(c, limits.max_columns)?
                };
                v.push(DeviceEntry {
                    device,
                    offset: c.read_i64_be()?,
                });
            }
            NodeEntries::Device(v)
        } else {
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let at = c.offset();
                let m = c.read_var_str("index measurement")?;
                if m.len() > limits.max_string_len {
                    return Err(Error::limit(
                        "index measurement",
                        m.len() as u64,
                        limits.max_string_len as u64,
                    )
                    .at_offset(at));
                }
                v.push(MeasurementEntry {
                    measurement: m.to_owned(),
                    offset: c.read_i64_be()?,
                });
            }
            NodeEntries::Measurement(v)
        };
        let end_offset = c.read_i64_be()?;
        let type_at = c.offset();
        let node_type = NodeType::from_code(c.read_u8()?).map_err(|e| e.at_offset(type_at))?;
        if node_type.is_device_level() != device_level {
            return Err(Error::corrupt(
                "tsfile",
                format!(
                    "index node of type {} where a {}-level node belongs",
                    node_type.name(),
                    if device_level {
                        "device"
                    } else {
                        "measurement"
                    }
                ),
            )
            .at_offset(start));
        }
        if entries.is_empty() {
            return Err(Error::corrupt("tsfile", "index node without entries").at_offset(start));
        }
        Ok(MetadataIndexNode {
            entries,
            end_offset,
            node_type,
        })
    }

    /// Appends the wire form.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        put_uvarint(out, self.entries.len() as u32);
        match &self.entries {
            NodeEntries::Device(v) => {
                for e in v {
                    e.device.write_to(out)?;
                    out.extend_from_slice(&e.offset.to_be_bytes());
                }
            }
            NodeEntries::Measurement(v) => {
                for e in v {
                    put_var_bytes(out, Some(e.measurement.as_bytes()))?;
                    out.extend_from_slice(&e.offset.to_be_bytes());
                }
            }
        }
        out.extend_from_slice(&self.end_offset.to_be_bytes());
        out.push(self.node_type.code());
        Ok(())
    }

    /// The byte range `[start, end)` of child `i`: up to the next entry's offset, or
    /// `end_offset` for the last.
    pub fn child_range(&self, i: usize) -> Option<(i64, i64)> {
        let start = self.entries.offset(i)?;
        let end = self.entries.offset(i + 1).unwrap_or(self.end_offset);
        Some((start, end))
    }

    /// Where each entry starts when the node is stored at `start`, as
    /// [`write_to`](Self::write_to) lays it out (the entry count comes first).
    ///
    /// ```
    /// use colfile::tsfile::format::{MeasurementEntry, MetadataIndexNode, NodeEntries, NodeType};
    /// let e = |m: &str, offset| MeasurementEntry { measurement: m.into(), offset };
    /// let node = MetadataIndexNode {
    ///     entries: NodeEntries::Measurement(vec![e("a", 10), e("bc", 40)]),
    ///     end_offset: 90,
    ///     node_type: NodeType::LeafMeasurement,
    /// };
    /// // count (1 byte), then "a" (1 + 1 bytes) and its offset (8 bytes).
    /// assert_eq!(node.entry_offsets(100), [101, 111]);
    /// ```
    pub fn entry_offsets(&self, start: u64) -> Vec<u64> {
        let mut at = start + uvarint_len(self.entries.len() as u32) as u64;
        let mut out = Vec::with_capacity(self.entries.len());
        let mut key = Vec::new();
        // Records the entry whose key is in `key`, then empties it for the next one.
        let mut next = |key: &mut Vec<u8>| {
            out.push(at);
            at += key.len() as u64 + 8;
            key.clear();
        };
        // A key that was parsed always serialises again; on error the length is a guess.
        match &self.entries {
            NodeEntries::Device(v) => {
                for e in v {
                    let _ = e.device.write_to(&mut key);
                    next(&mut key);
                }
            }
            NodeEntries::Measurement(v) => {
                for e in v {
                    let _ = put_var_bytes(&mut key, Some(e.measurement.as_bytes()));
                    next(&mut key);
                }
            }
        }
        out
    }
}
