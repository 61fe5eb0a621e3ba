//! The physical layout of a TsFile, shared by the sketch, verify and recover tools: the data
//! section read front to back from the head (`spec/tsfile.md` §5.8) — chunk groups, chunks
//! and page headers with their offsets — and the metadata index tree walked from the footer
//! (§10) — every index node and TimeseriesMetadata with the range it occupies.
//!
//! The scan never trusts the footer, so it also works on a file cut off mid-write: it stops
//! at the first record that is incomplete or invalid and says where and why.

use crate::cursor::Cursor;
use crate::source::ByteSource;
use crate::tsfile::format::{
    ChunkHeader, DeviceId, Marker, MetadataIndexNode, NodeEntries, NodeType, PageHeader,
    TimeseriesMetadata,
};
use crate::tsfile::format::v3;
use crate::tsfile::read::chunk_reader::RawChunk;
use crate::tsfile::read::metadata::{FileMetadata, INLINE_ROOT};
use crate::{Error, ErrorKind, Limits, Result};

/// One page header of a chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct PageLayout {
    /// Page index within its chunk, from 0.
    pub index: u32,
    /// Offset of the page header.
    pub offset: u64,
    /// Offset of the stored payload (`compressed_size` bytes; none for an empty page).
    pub data_offset: u64,
    /// The parsed header.
    pub header: PageHeader,
}

impl PageLayout {
    /// Offset just past the payload.
    pub fn end(&self) -> u64 {
        let n = if self.header.is_empty() {
            0
        } else {
            self.header.compressed_size as u64
        };
        self.data_offset + n
    }
}

/// One chunk: its header and page headers.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkLayout {
    /// Offset of the chunk header's marker byte.
    pub offset: u64,
    /// Offset of the first page header (just after the chunk header).
    pub body_offset: u64,
    /// The chunk header.
    pub header: ChunkHeader,
    /// The pages in order.
    pub pages: Vec<PageLayout>,
}

impl ChunkLayout {
    /// Offset just past the chunk's pages.
    pub fn end(&self) -> u64 {
        self.body_offset + self.header.data_size as u64
    }
}

/// A chunk group: its header and chunks.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkGroupLayout {
    /// Offset of the `0x00` marker.
    pub offset: u64,
    /// The device of the group header.
    pub device: DeviceId,
    /// The chunks that parsed completely, in file order.
    pub chunks: Vec<ChunkLayout>,
    /// Where the next record starts, once its marker has been read: only then is the group
    /// known to be complete (a cut right after a chunk may have lost the group's later
    /// chunks, as Java's `selfCheck` also assumes).
    pub end: Option<u64>,
}

/// An operation index range record (`0x04`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperationRange {
    /// Offset of the marker.
    pub offset: u64,
    /// Smallest plan index.
    pub min: i64,
    /// Largest plan index.
    pub max: i64,
}

/// Why a scan ended before the separator.
#[derive(Debug)]
pub struct ScanStop {
    /// Where the record that could not be read starts.
    pub offset: u64,
    /// What was wrong with it (located as precisely as the parser could).
    pub error: Error,
}

/// The data section as a front-to-back scan found it.
#[derive(Debug)]
pub struct DataLayout {
    /// The version byte.
    pub version: u8,
    /// Chunk groups in file order; only the last may be incomplete (`end == None`).
    pub groups: Vec<ChunkGroupLayout>,
    /// Operation index ranges in file order.
    pub operation_ranges: Vec<OperationRange>,
    /// Offset of the `0x02` separator, when the scan reached it.
    pub separator: Option<u64>,
    /// Everything before this offset is complete records (a recovered file keeps exactly
    /// these bytes).
    pub complete_end: u64,
    /// Why the scan ended early; `None` when it reached the separator.
    pub stop: Option<ScanStop>,
}

impl DataLayout {
    /// The chunk groups known to be complete.
    pub fn complete_groups(&self) -> impl Iterator<Item = &ChunkGroupLayout> + '_ {
        self.groups.iter().filter(|g| g.end.is_some())
    }
}

/// Scans the data section of `src` from offset 7 (see [`scan_data_with`]).
///
/// ```
/// use colfile::tsfile::tools::layout::scan_data;
/// let bytes = std::fs::read("fixtures/tsfile/basic.tsfile")?;
/// let data = scan_data(&bytes, &colfile::Limits::default())?;
/// assert_eq!(data.groups.len(), 2);
/// assert_eq!(data.groups[0].chunks[0].offset, 28); // the aligned time chunk
/// assert_eq!(data.separator, Some(333));
/// // Cut inside the second group: only the first is complete.
/// let cut = scan_data(&bytes[..200], &colfile::Limits::default())?;
/// assert_eq!(cut.complete_groups().count(), 1);
/// assert_eq!(cut.complete_end, 158);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scan_data<S: ByteSource + ?Sized>(src: &S, limits: &Limits) -> Result<DataLayout> {
    scan_data_with(src, limits, |_, _, _| Ok(()))
}

/// Scans the data section record by record (`spec/tsfile.md` §5.8), calling `on_chunk` with
/// the chunk group's index and device and each chunk read whole. The scan stops at the separator, or at the
/// first record that is cut off or does not parse, or when `on_chunk` fails; that record
/// and its chunk group are not complete and [`DataLayout::stop`] says why.
///
/// Errors: only a head that is not `TsFile` + version 4, and I/O errors.
pub fn scan_data_with<S, F>(src: &S, limits: &Limits, mut on_chunk: F) -> Result<DataLayout>
where
    S: ByteSource + ?Sized,
    F: FnMut(usize, &DeviceId, &RawChunk) -> Result<()>,
{
    let len = src.len();
    let version = v3::read_head(src)?;
    let mut data = DataLayout {
        version,
        groups: Vec::new(),
        operation_ranges: Vec::new(),
        separator: None,
        complete_end: 7,
        stop: None,
    };
    let mut pos = 7u64;
    let stop = loop {
        if pos >= len {
            break Error::truncated("data section (no separator)", 1, 0).at_offset(pos);
        }
        let mut m = [0u8; 1];
        src.read_exact_at(pos, &mut m)?;
        let marker = match Marker::from_code(m[0]) {
            Ok(Marker::Version) => {
                break Error::corrupt(
                    "tsfile",
                    format!("deprecated version record (0x03) in a v{} file", data.version),
                )
                    .at_offset(pos)
            }
            Ok(mk) => mk,
            Err(e) => break e.at_offset(pos),
        };
        if !marker.is_chunk() {
            // A new top-level record: whatever came before is complete.
            if let Some(g) = data.groups.last_mut().filter(|g| g.end.is_none()) {
                g.end = Some(pos);
            }
            data.complete_end = pos;
        }
        match step(src, limits, pos, marker, &mut data, &mut on_chunk) {
            Ok(Some(next)) => pos = next,
            Ok(None) => return Ok(data),
            Err(e) if matches!(e.kind(), ErrorKind::Io(_)) => return Err(e),
            Err(e) => break e,
        }
    };
    data.stop = Some(ScanStop {
        offset: pos,
        error: stop,
    });
    Ok(data)
}

/// Reads the record at `pos`; returns where the next starts (`None` at the separator).
fn step<S, F>(
    src: &S,
    limits: &Limits,
    pos: u64,
    marker: Marker,
    data: &mut DataLayout,
    on_chunk: &mut F,
) -> Result<Option<u64>>
where
    S: ByteSource + ?Sized,
    F: FnMut(usize, &DeviceId, &RawChunk) -> Result<()>,
{
    match marker {
        Marker::Separator => {
            data.separator = Some(pos);
            Ok(None)
        }
        Marker::ChunkGroupHeader => {
            let (device, next) = read_device(src, pos + 1, limits, data.version)?;
            data.groups.push(ChunkGroupLayout {
                offset: pos,
                device,
                chunks: Vec::new(),
                end: None,
            });
            Ok(Some(next))
        }
        Marker::OperationIndexRange => {
            let mut b = [0u8; 16];
            if src.len() - pos < 17 {
                return Err(
                    Error::truncated("operation index range", 17, src.len() - pos).at_offset(pos),
                );
            }
            src.read_exact_at(pos + 1, &mut b)?;
            let mut c = Cursor::new(&b, pos + 1);
            data.operation_ranges.push(OperationRange {
                offset: pos,
                min: c.read_i64_be()?,
                max: c.read_i64_be()?,
            });
            data.complete_end = pos + 17;
            Ok(Some(pos + 17))
        }
        _ => {
            let index = data.groups.len().saturating_sub(1);
            let Some(group) = data.groups.last_mut().filter(|g| g.end.is_none()) else {
                return Err(
                    Error::corrupt("tsfile", "chunk outside any chunk group").at_offset(pos)
                );
            };
            let chunk = RawChunk::read(src, pos, limits).map_err(|e| e.in_chunk(pos))?;
            let mut pages = Vec::new();
            let mut next = chunk.body_offset;
            chunk
                .for_each_page(|p| {
                    pages.push(PageLayout {
                        index: p.index,
                        offset: next,
                        data_offset: p.offset,
                        header: p.header.clone(),
                    });
                    next = p.offset + p.data.len() as u64;
                    Ok(())
                })
                .map_err(|e| e.in_chunk(pos))?;
            on_chunk(index, &group.device, &chunk).map_err(|e| e.in_chunk(pos))?;
            let layout = ChunkLayout {
                offset: pos,
                body_offset: chunk.body_offset,
                header: chunk.header,
                pages,
            };
            let end = layout.end();
            group.chunks.push(layout);
            Ok(Some(end))
        }
    }
}

/// Parses a DeviceID at `at`, reading a window that grows while the id is cut off by it.
fn read_device<S: ByteSource + ?Sized>(
    src: &S,
    at: u64,
    limits: &Limits,
    version: u8,
) -> Result<(DeviceId, u64)> {
    let avail = src.len().saturating_sub(at);
    let cap = avail.min(limits.max_alloc_bytes as u64);
    let mut want = cap.min(256);
    loop {
        let mut buf = vec![0u8; want as usize];
        src.read_exact_at(at, &mut buf)?;
        let mut c = Cursor::new(&buf, at);
        let read = if version == v3::VERSION_V3 {
            v3::read_device(&mut c, limits)
        } else {
            DeviceId::read(&mut c, limits.max_columns)
        };
        match read {
            Ok(d) => return Ok((d, c.offset())),
            Err(e) if matches!(e.kind(), ErrorKind::Truncated { .. }) && want < cap => {
                want = (want * 16).min(cap);
            }
            Err(e) => return Err(e.in_section("chunk group header")),
        }
    }
}

/// An index node and where it lies.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeLayout {
    /// The table whose tree holds the node.
    pub table: String,
    /// `[start, end)` of the node; `None` for a table root, which lies inside the footer.
    pub range: Option<(u64, u64)>,
    /// Depth below the table root (0).
    pub depth: usize,
    /// The device whose measurement tree holds the node (`None` at device level).
    pub device: Option<DeviceId>,
    /// The entry that points at the node: (index of the parent in [`IndexLayout::nodes`],
    /// entry index within it); `None` for a table root.
    pub parent: Option<(usize, usize)>,
    /// The parsed node.
    pub node: MetadataIndexNode,
}

/// A TimeseriesMetadata and where it lies.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesLayout {
    /// `[start, end)` of the entry.
    pub range: (u64, u64),
    /// The table whose tree holds it.
    pub table: String,
    /// The device it belongs to (the LEAF_DEVICE entry above it).
    pub device: DeviceId,
    /// The LEAF_MEASUREMENT entry whose run holds it: (index of the node in
    /// [`IndexLayout::nodes`], entry index within it).
    pub parent: (usize, usize),
    /// The parsed entry.
    pub metadata: TimeseriesMetadata,
}

/// The index tree in walk order (tables in footer order, entries in key order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexLayout {
    /// Every node, parents before children.
    pub nodes: Vec<NodeLayout>,
    /// Every TimeseriesMetadata.
    pub series: Vec<SeriesLayout>,
}

/// Walks every table's index tree from the footer. Each child range is checked to lie in
/// the metadata region, and the ranges walked may not add up to more than the region (so
/// cyclic or overlapping offsets end the walk with an error instead of looping); a node that
/// is its own ancestor is corrupt, and a tree deeper than
/// [`Limits::max_index_depth`](crate::Limits::max_index_depth) a limit error.
///
/// ```
/// use colfile::tsfile::tools::layout::index_layout;
/// use colfile::tsfile::FileMetadata;
/// let bytes = std::fs::read("fixtures/tsfile/basic.tsfile")?;
/// let meta = FileMetadata::read(&bytes, &colfile::Limits::default())?;
/// let index = index_layout(&bytes, &meta)?;
/// assert_eq!(index.series.len(), 8); // 2 devices x (time column + 3 fields)
/// assert_eq!(index.series[0].range.0, 334); // just after the separator
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn index_layout<S: ByteSource + ?Sized>(src: &S, meta: &FileMetadata) -> Result<IndexLayout> {
    let mut w = Walk {
        src,
        meta,
        budget: meta.footer_start().saturating_sub(meta.meta_offset()),
        out: IndexLayout::default(),
    };
    for (table, root) in &meta.footer().table_roots {
        w.out.nodes.push(NodeLayout {
            table: table.clone(),
            range: None,
            depth: 0,
            device: None,
            parent: None,
            node: root.clone(),
        });
        let mut path = vec![INLINE_ROOT];
        w.node(table, w.out.nodes.len() - 1, root, &mut path, None)?;
    }
    Ok(w.out)
}

struct Walk<'a, S: ?Sized> {
    src: &'a S,
    meta: &'a FileMetadata,
    budget: u64,
    out: IndexLayout,
}

impl<S: ByteSource + ?Sized> Walk<'_, S> {
    /// Walks the children of `node`, which is `self.out.nodes[this]`.
    fn node(
        &mut self,
        table: &str,
        this: usize,
        node: &MetadataIndexNode,
        path: &mut Vec<(u64, u64)>,
        device: Option<&DeviceId>,
    ) -> Result<()> {
        // Callers push the node first, so `this` is there; its range never changes.
        let (depth, this_range) = match self.out.nodes.get(this) {
            Some(n) => (n.depth, n.range),
            None => return Err(Error::invalid(format!("index node {this} is not recorded"))),
        };
        for i in 0..node.entries.len() {
            let range = self.meta.child_range(node, i).map_err(|e| {
                let (s, what) = match this_range {
                    Some((s, _)) => (s, format!("node at byte {s}")),
                    None => (self.meta.footer_start(), "root (in the footer)".to_owned()),
                };
                let msg = match e.kind() {
                    ErrorKind::Corrupt { message, .. } => message.clone(),
                    k => k.to_string(),
                };
                Error::corrupt(
                    "tsfile",
                    format!(
                        "entry {i} of the {} {what} of table {table}: {msg}",
                        node.node_type.name()
                    ),
                )
                .at_offset(s)
            })?;
            self.budget = self.budget.checked_sub(range.1 - range.0).ok_or_else(|| {
                Error::corrupt(
                    "tsfile",
                    "index ranges overlap (cyclic or repeated offsets)",
                )
                .at_offset(range.0)
            })?;
            let (child_device, device_level) = match (&node.entries, node.node_type) {
                (NodeEntries::Device(v), NodeType::LeafDevice) => {
                    (v.get(i).map(|e| e.device.clone()), false)
                }
                (NodeEntries::Device(_), _) => (None, true),
                _ => (device.cloned(), false),
            };
            if node.node_type == NodeType::LeafMeasurement {
                let Some(dev) = device else { continue };
                let run = self.meta.series_run(self.src, range)?;
                let ends: Vec<u64> = run.iter().skip(1).map(|(o, _)| *o).collect();
                for (k, (at, tsm)) in run.into_iter().enumerate() {
                    self.out.series.push(SeriesLayout {
                        range: (at, ends.get(k).copied().unwrap_or(range.1)),
                        table: table.to_owned(),
                        device: dev.clone(),
                        parent: (this, i),
                        metadata: tsm,
                    });
                }
                continue;
            }
            // A LEAF_DEVICE entry points at the root of the device's measurement tree.
            let mut measurement_tree = Vec::new();
            let tree = if node.node_type == NodeType::LeafDevice {
                &mut measurement_tree
            } else {
                &mut *path
            };
            self.meta.check_descent(range, tree)?;
            let child = self.meta.read_node(self.src, range, device_level)?;
            self.out.nodes.push(NodeLayout {
                table: table.to_owned(),
                range: Some(range),
                depth: depth + 1,
                device: child_device.clone(),
                parent: Some((this, i)),
                node: child.clone(),
            });
            let child_at = self.out.nodes.len() - 1;
            tree.push(range);
            self.node(table, child_at, &child, tree, child_device.as_ref())?;
            tree.pop();
        }
        Ok(())
    }
}
