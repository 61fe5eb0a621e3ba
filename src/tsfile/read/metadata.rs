//! [`FileMetadata`]: opening a TsFile footer-first (`spec/tsfile.md` §4) and walking its
//! metadata index tree (§8.3, §10) — tables, schemas, properties, devices and series, each
//! child range checked to lie inside the metadata region before it is read.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::rc::Rc;

use crate::cursor::Cursor;
use crate::source::ByteSource;
use crate::tsfile::format::device::java_str_cmp;
use crate::tsfile::format::v3;
use crate::tsfile::format::{
    DeviceId, MetadataIndexNode, NodeEntries, NodeType, TableSchema, TimeseriesMetadata,
    TsFileMetadata,
};
use crate::{Error, Limits, Result};

/// What the query layers (device plans, scans, the non-aligned merge) read an open file
/// through: its bytes, its footer and index, and the limits. They take this rather than the
/// reader above them, so the reader imports them and not the other way round.
#[derive(Debug)]
pub(crate) struct FileParts<'a, S: ?Sized> {
    /// The file's bytes.
    pub source: &'a S,
    /// Its footer and metadata index.
    pub metadata: &'a FileMetadata,
    /// Caps on what it may ask for.
    pub limits: &'a Limits,
    /// The deletions to apply (empty: none).
    pub mods: &'a crate::tsfile::mods::Modifications,
}

pub use crate::tsfile::format::{MAGIC, VERSION};

/// A device found in the index: its id and the byte range of its measurement-level root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceIndex {
    /// The device.
    pub device: DeviceId,
    /// `[start, end)` of the device's measurement root node.
    pub measurement_root: (u64, u64),
}

/// Device-level index nodes already parsed, by byte range (see
/// [`FileMetadata::find_device_in`]); kept for one query's searches.
#[derive(Debug, Default)]
pub(crate) struct NodeCache(HashMap<(u64, u64), Rc<MetadataIndexNode>>);

/// A file's footer, and the means to walk its index.
///
/// ```
/// use colfile::tsfile::FileMetadata;
/// let bytes = std::fs::read("fixtures/tsfile/basic.tsfile")?;
/// let m = FileMetadata::read(&bytes, &colfile::Limits::default())?;
/// assert_eq!(m.tables().collect::<Vec<_>>(), ["weather"]);
/// let devices = m.all_devices(&bytes)?;
/// assert_eq!(devices.len(), 2);
/// let series = m.timeseries(&bytes, &devices[0])?;
/// assert_eq!(series[0].measurement_id, ""); // the aligned time column comes first
/// assert!(m.find_timeseries(&bytes, &devices[0], "temp")?.is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct FileMetadata {
    footer: TsFileMetadata,
    version: u8,
    file_len: u64,
    /// `F - 10 - L`: where the footer starts and the index region ends.
    footer_start: u64,
    limits: Limits,
}

impl FileMetadata {
    /// Checks both magics and the version, locates the footer with `L`, parses it (it must
    /// be exactly `L` bytes), and checks that `meta_offset` points at a `0x02` byte.
    pub fn read<S: ByteSource + ?Sized>(src: &S, limits: &Limits) -> Result<FileMetadata> {
        let file_len = src.len();
        let fail = |msg: String, at: u64| Error::corrupt("tsfile", msg).at_offset(at);
        let version = v3::read_head(src)?;
        // Head, separator, L and tail magic.
        if file_len < 7 + 1 + 4 + 6 {
            return Err(Error::truncated("TsFile", 18, file_len).at_offset(0));
        }
        let mut tail = [0u8; 10];
        src.read_exact_at(file_len - 10, &mut tail)?;
        if &tail[4..] != MAGIC {
            return Err(fail(
                "bad tail magic (the file is incomplete)".into(),
                file_len - 6,
            ));
        }
        let l = i32::from_be_bytes([tail[0], tail[1], tail[2], tail[3]]);
        let l_at = file_len - 10;
        let footer_start = u64::try_from(l)
            .ok()
            .and_then(|l| l_at.checked_sub(l))
            .filter(|&s| s >= 8)
            .ok_or_else(|| {
                fail(
                    format!("file metadata length {l} points outside the file"),
                    l_at,
                )
            })?;
        let n = limits
            .check_alloc("file metadata", l_at - footer_start)
            .map_err(|e| e.at_offset(footer_start))?;
        let bytes = read_range(src, footer_start, n)?;
        let mut c = Cursor::new(&bytes, footer_start);
        let footer = if version == v3::VERSION_V3 {
            v3::read_footer(&mut c, limits)
        } else {
            TsFileMetadata::read(&mut c, limits)
        }
        .map_err(|e| e.in_section("file metadata"))?;
        let meta_offset = u64::try_from(footer.meta_offset)
            .ok()
            .filter(|&o| (7..footer_start).contains(&o))
            .ok_or_else(|| {
                fail(
                    format!("meta_offset {} is outside the file", footer.meta_offset),
                    footer_start,
                )
            })?;
        let mut sep = [0u8; 1];
        src.read_exact_at(meta_offset, &mut sep)?;
        if sep[0] != 0x02 {
            return Err(fail(
                format!(
                    "meta_offset points at 0x{:02x}, not the separator 0x02",
                    sep[0]
                ),
                meta_offset,
            ));
        }
        Ok(FileMetadata {
            footer,
            version,
            file_len,
            footer_start,
            limits: limits.clone(),
        })
    }

    /// The parsed footer.
    pub fn footer(&self) -> &TsFileMetadata {
        &self.footer
    }

    /// The format version byte: 4, or 3 for a v3 file (IoTDB 0.12–1.3), whose devices are
    /// tree paths kept as stored and whose footer has one table root named `""`.
    pub fn version(&self) -> u8 {
        self.version
    }

    /// The file length the footer was found with.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Offset of the `0x02` separator (end of the data section).
    pub fn meta_offset(&self) -> u64 {
        self.footer.meta_offset as u64
    }

    /// Where the footer (`TsFileMetadata`) starts: `F - 10 - L`.
    pub fn footer_start(&self) -> u64 {
        self.footer_start
    }

    /// Table names with an index root, in file order.
    pub fn tables(&self) -> impl Iterator<Item = &str> + '_ {
        self.footer.table_roots.iter().map(|(n, _)| n.as_str())
    }

    /// The schema of `table` (tree-model files have none).
    pub fn table_schema(&self, table: &str) -> Option<&TableSchema> {
        self.footer.schemas.iter().find(|s| s.name == table)
    }

    /// File properties in file order (values are raw bytes, `None` = null).
    pub fn properties(&self) -> &[(String, Option<Vec<u8>>)] {
        &self.footer.properties
    }

    /// Reads the index node at `range`; `device_level` says which entry format it has.
    /// The range must lie strictly inside the metadata region.
    pub fn read_node<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        range: (u64, u64),
        device_level: bool,
    ) -> Result<MetadataIndexNode> {
        let bytes = self.region_bytes(src, range)?;
        let mut c = Cursor::new(&bytes, range.0);
        if device_level && self.version == v3::VERSION_V3 {
            MetadataIndexNode::read_device_level_v3(&mut c, &self.limits)
        } else if device_level {
            MetadataIndexNode::read_device_level(&mut c, &self.limits)
        } else {
            MetadataIndexNode::read_measurement_level(&mut c, &self.limits)
        }
    }

    /// The devices of `table` with their measurement-root ranges, in index order.
    pub fn device_entries<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        table: &str,
    ) -> Result<Vec<DeviceIndex>> {
        let Some((_, root)) = self.footer.table_roots.iter().find(|(n, _)| n == table) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        let mut budget = self.region_len();
        self.collect_devices(src, root, &mut vec![INLINE_ROOT], &mut budget, &mut out)?;
        Ok(out)
    }

    fn collect_devices<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        node: &MetadataIndexNode,
        path: &mut Vec<(u64, u64)>,
        budget: &mut u64,
        out: &mut Vec<DeviceIndex>,
    ) -> Result<()> {
        let NodeEntries::Device(entries) = &node.entries else {
            return Ok(());
        };
        for (i, e) in entries.iter().enumerate() {
            let range = self.child_range(node, i)?;
            spend(budget, range)?;
            match node.node_type {
                NodeType::LeafDevice => out.push(DeviceIndex {
                    device: e.device.clone(),
                    measurement_root: range,
                }),
                _ => {
                    self.check_descent(range, path)?;
                    let child = self.read_node(src, range, true)?;
                    path.push(range);
                    self.collect_devices(src, &child, path, budget, out)?;
                    path.pop();
                }
            }
        }
        Ok(())
    }

    /// The devices of `table` in index order.
    pub fn devices<S: ByteSource + ?Sized>(&self, src: &S, table: &str) -> Result<Vec<DeviceId>> {
        Ok(self
            .device_entries(src, table)?
            .into_iter()
            .map(|d| d.device)
            .collect())
    }

    /// Every device of every table, tables in file order.
    pub fn all_devices<S: ByteSource + ?Sized>(&self, src: &S) -> Result<Vec<DeviceId>> {
        let mut out = Vec::new();
        for t in self.tables() {
            out.extend(self.devices(src, t)?);
        }
        Ok(out)
    }

    /// The measurement-root range of `device`, found by binary search (Java order), with a
    /// linear scan when the ids are not plain ASCII (C++ sorts by UTF-8 bytes).
    pub fn find_device<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        device: &DeviceId,
    ) -> Result<Option<(u64, u64)>> {
        self.find_device_in(src, device, &mut NodeCache::default())
    }

    /// [`find_device`](Self::find_device), reusing the index nodes `cache` holds (and
    /// adding those it reads): the searches for many devices parse each node once.
    pub(crate) fn find_device_in<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        device: &DeviceId,
        cache: &mut NodeCache,
    ) -> Result<Option<(u64, u64)>> {
        let Some(root) = self.footer.table_root(device.table_name()) else {
            return Ok(None);
        };
        let mut child: Option<Rc<MetadataIndexNode>> = None;
        let mut path = vec![INLINE_ROOT];
        loop {
            let node: &MetadataIndexNode = child.as_deref().unwrap_or(root);
            let NodeEntries::Device(entries) = &node.entries else {
                return Ok(None);
            };
            let i = if self.version == v3::VERSION_V3 {
                // v3 sorts whole device strings (Java `String` order).
                let key = device.to_string();
                entries.partition_point(|e| {
                    java_str_cmp(&e.device.to_string(), &key) != Ordering::Greater
                })
            } else {
                entries.partition_point(|e| e.device.cmp(device) != Ordering::Greater)
            };
            let Some(i) = i.checked_sub(1) else {
                return self.scan_for_device(src, device);
            };
            let range = self.child_range(node, i)?;
            if node.node_type == NodeType::LeafDevice {
                return match entries.get(i) {
                    Some(e) if self.same_device(&e.device, device) => Ok(Some(range)),
                    _ => self.scan_for_device(src, device),
                };
            }
            self.check_descent(range, &path)?;
            let next = match cache.0.get(&range) {
                Some(n) => n.clone(),
                None => {
                    let n = Rc::new(self.read_node(src, range, true)?);
                    cache.0.insert(range, n.clone());
                    n
                }
            };
            child = Some(next);
            path.push(range);
        }
    }

    /// v3 devices match by their path string (however the caller segmented it).
    fn same_device(&self, a: &DeviceId, b: &DeviceId) -> bool {
        a == b || (self.version == v3::VERSION_V3 && a.to_string() == b.to_string())
    }

    fn scan_for_device<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        device: &DeviceId,
    ) -> Result<Option<(u64, u64)>> {
        if device.segments().iter().flatten().all(|s| s.is_ascii()) {
            return Ok(None);
        }
        let table = if self.version == v3::VERSION_V3 {
            ""
        } else {
            device.table_name()
        };
        Ok(self
            .device_entries(src, table)?
            .into_iter()
            .find(|d| self.same_device(&d.device, device))
            .map(|d| d.measurement_root))
    }

    /// Every series of `device` in index order (the aligned time column `""` first); empty
    /// when the device is not in the file.
    pub fn timeseries<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        device: &DeviceId,
    ) -> Result<Vec<TimeseriesMetadata>> {
        let Some(root) = self.find_device(src, device)? else {
            return Ok(Vec::new());
        };
        self.timeseries_at(
            src,
            &DeviceIndex {
                device: device.clone(),
                measurement_root: root,
            },
        )
    }

    /// Every series of the device of an entry from [`device_entries`](Self::device_entries):
    /// its measurement tree is read directly, without searching the device index again.
    pub fn timeseries_at<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        entry: &DeviceIndex,
    ) -> Result<Vec<TimeseriesMetadata>> {
        let root = entry.measurement_root;
        let mut out = Vec::new();
        let mut budget = self.region_len();
        spend(&mut budget, root)?;
        let node = self.read_node(src, root, false)?;
        self.collect_series(src, &node, &mut vec![root], &mut budget, &mut out)
            .map_err(|e| e.in_series(|| entry.device.to_string()))?;
        Ok(out)
    }

    fn collect_series<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        node: &MetadataIndexNode,
        path: &mut Vec<(u64, u64)>,
        budget: &mut u64,
        out: &mut Vec<TimeseriesMetadata>,
    ) -> Result<()> {
        for i in 0..node.entries.len() {
            let range = self.child_range(node, i)?;
            spend(budget, range)?;
            if node.node_type == NodeType::LeafMeasurement {
                out.extend(self.read_series_run(src, range)?);
            } else {
                self.check_descent(range, path)?;
                let child = self.read_node(src, range, false)?;
                path.push(range);
                self.collect_series(src, &child, path, budget, out)?;
                path.pop();
            }
        }
        Ok(())
    }

    /// Parses a run of TimeseriesMetadata that must fill `range` exactly.
    fn read_series_run<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        range: (u64, u64),
    ) -> Result<Vec<TimeseriesMetadata>> {
        Ok(self
            .series_run(src, range)?
            .into_iter()
            .map(|(_, t)| t)
            .collect())
    }

    /// Parses the run of TimeseriesMetadata that must fill `range` (a LEAF_MEASUREMENT
    /// entry's range) exactly, with the offset each one starts at.
    pub fn series_run<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        range: (u64, u64),
    ) -> Result<Vec<(u64, TimeseriesMetadata)>> {
        let bytes = self.region_bytes(src, range)?;
        let mut c = Cursor::new(&bytes, range.0);
        let mut out = Vec::new();
        while !c.is_empty() {
            let at = c.offset();
            let ts = TimeseriesMetadata::read(&mut c, &self.limits)?;
            if self.version == v3::VERSION_V3 {
                v3::check_data_type(ts.data_type).map_err(|e| e.at_offset(at))?;
            }
            out.push((at, ts));
        }
        Ok(out)
    }

    /// One series of `device`, or `None`. The Bloom filter is asked first; then the
    /// measurement tree is binary-searched in Java's order (with a linear scan when the
    /// name is not ASCII).
    pub fn find_timeseries<S: ByteSource + ?Sized>(
        &self,
        src: &S,
        device: &DeviceId,
        measurement: &str,
    ) -> Result<Option<TimeseriesMetadata>> {
        if let Some(b) = &self.footer.bloom {
            if !b.may_contain(&format!("{device}.{measurement}")) {
                return Ok(None);
            }
        }
        let series = || format!("{device}.{measurement}");
        let Some(root) = self.find_device(src, device)? else {
            return Ok(None);
        };
        if !measurement.is_ascii() {
            let all = self.timeseries(src, device)?;
            return Ok(all.into_iter().find(|t| t.measurement_id == measurement));
        }
        let mut node = self
            .read_node(src, root, false)
            .map_err(|e| e.in_series(series))?;
        let mut path = vec![root];
        loop {
            let NodeEntries::Measurement(entries) = &node.entries else {
                return Ok(None);
            };
            let i = entries.partition_point(|e| {
                java_str_cmp(&e.measurement, measurement) != Ordering::Greater
            });
            let Some(i) = i.checked_sub(1) else {
                return Ok(None);
            };
            let range = self.child_range(&node, i)?;
            if node.node_type == NodeType::LeafMeasurement {
                let run = self
                    .read_series_run(src, range)
                    .map_err(|e| e.in_series(series))?;
                return Ok(run.into_iter().find(|t| t.measurement_id == measurement));
            }
            self.check_descent(range, &path)
                .map_err(|e| e.in_series(series))?;
            node = self
                .read_node(src, range, false)
                .map_err(|e| e.in_series(series))?;
            path.push(range);
        }
    }

    /// Checks a descent to the child node at `range`; `path` holds the ranges of the nodes
    /// from the root of its tree (a table's device tree, rooted in the footer at
    /// [`INLINE_ROOT`], or a device's measurement tree) down to its parent. A range already on
    /// the path (a cycle) is [`ErrorKind::Corrupt`](crate::ErrorKind); a child more than
    /// [`Limits::max_index_depth`] levels below the root is
    /// [`ErrorKind::LimitExceeded`](crate::ErrorKind).
    pub(crate) fn check_descent(&self, range: (u64, u64), path: &[(u64, u64)]) -> Result<()> {
        if path.contains(&range) {
            return Err(Error::corrupt(
                "tsfile",
                format!(
                    "index cycle: node {}..{} is its own ancestor",
                    range.0, range.1
                ),
            )
            .at_offset(range.0));
        }
        let depth = path.len();
        let max = self.limits.max_index_depth;
        if depth > max {
            return Err(Error::limit("index depth", depth as u64, max as u64).at_offset(range.0));
        }
        Ok(())
    }

    /// Child `i`'s range, checked to lie strictly inside `(meta_offset, footer_start]`.
    pub fn child_range(&self, node: &MetadataIndexNode, i: usize) -> Result<(u64, u64)> {
        let (s, e) = node
            .child_range(i)
            .ok_or_else(|| Error::corrupt("tsfile", "index entry out of range"))?;
        let message = if e <= s {
            let next = if i + 1 < node.entries.len() {
                "the next entry's offset"
            } else {
                "the node's end_offset"
            };
            format!("child offset {s} is not before {next} {e}")
        } else if s <= self.footer.meta_offset || (e as u64) > self.footer_start {
            format!("index child range {s}..{e} is outside the metadata region")
        } else {
            return Ok((s as u64, e as u64));
        };
        Err(Error::corrupt("tsfile", message).at_offset(s.max(0) as u64))
    }

    fn region_len(&self) -> u64 {
        self.footer_start.saturating_sub(self.meta_offset())
    }

    fn region_bytes<'s, S: ByteSource + ?Sized>(
        &self,
        src: &'s S,
        (start, end): (u64, u64),
    ) -> Result<Cow<'s, [u8]>> {
        if start <= self.meta_offset() || end <= start || end > self.footer_start {
            return Err(Error::corrupt(
                "tsfile",
                format!("index range {start}..{end} is outside the metadata region"),
            )
            .at_offset(start));
        }
        let n = self
            .limits
            .check_alloc("index node", end - start)
            .map_err(|e| e.at_offset(start))?;
        read_range(src, start, n)
    }
}

/// The range that stands for a table root in a descent path: the root is inline in the
/// footer, and no child range can be empty or start at 0.
pub(crate) const INLINE_ROOT: (u64, u64) = (0, 0);

/// `n` bytes at `start`, borrowed when the source is in memory.
fn read_range<S: ByteSource + ?Sized>(src: &S, start: u64, n: usize) -> Result<Cow<'_, [u8]>> {
    if let Some(all) = src.as_slice() {
        let s = usize::try_from(start).ok();
        if let Some(b) = s.and_then(|s| all.get(s..s.checked_add(n)?)) {
            return Ok(Cow::Borrowed(b));
        }
        return Err(Error::truncated(
            "input",
            n as u64,
            all.len().saturating_sub(start as usize) as u64,
        )
        .at_offset(start));
    }
    let mut v = vec![0u8; n];
    src.read_exact_at(start, &mut v)?;
    Ok(Cow::Owned(v))
}

/// In a valid index every node and series run is read once and the ranges are disjoint, so
/// a walk reads at most the region's length: more means overlapping or cyclic offsets.
fn spend(budget: &mut u64, (s, e): (u64, u64)) -> Result<()> {
    *budget = budget.checked_sub(e - s).ok_or_else(|| {
        Error::corrupt(
            "tsfile",
            "index ranges overlap (cyclic or repeated offsets)",
        )
        .at_offset(s)
    })?;
    Ok(())
}
