//! IoTDB `.resource` files: the per-TsFile time index that the server writes when it seals a
//! file (`docs/design/tsfile-v3-and-mods.md` §4). Read here only as far as the time index and
//! the two plan indexes; the tail (mod-file names, pipe and consensus progress) is
//! IoTDB-internal and ignored.
//!
//! The layout was worked out from IoTDB's `TsFileResource.serialize`/`deserialize` and its
//! time-index classes (`V012FileTimeIndex`, 1.x `DeviceTimeIndex` / 2.x `PlainDeviceTimeIndex`,
//! 2.x `ArrayDeviceTimeIndex`):
//!
//! ```text
//! u8 version, u8 kind, index, [int64 max_plan_index, int64 min_plan_index], tail…
//! kind 0: int32 n, n × String32 device, int64 start, int64 end        (file level)
//! kind 1: int32 n, n × (int64 start, int64 end), n × (String32 device, int32 index)
//! kind 3: int32 n, n × (int64 start, int64 end), n × (DeviceId, int32 index)
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use crate::cursor::Cursor;
use crate::tsfile::format::DeviceId;
use crate::{Error, Limits, Result};

const FORMAT: &str = "iotdb resource";

/// Which time index a `.resource` file holds (its second byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeIndexKind {
    /// Type 0, `V012FileTimeIndex` (IoTDB 0.12): a device list and one file-level range.
    FileLevel,
    /// Type 1, `DeviceTimeIndex` (1.x) / `PlainDeviceTimeIndex` (2.x): tree-path strings.
    DevicePaths,
    /// Type 3, `ArrayDeviceTimeIndex` (2.x): TsFile v4 device ids.
    DeviceIds,
}

impl TimeIndexKind {
    /// The type byte on disk.
    pub fn type_byte(self) -> u8 {
        match self {
            TimeIndexKind::FileLevel => 0,
            TimeIndexKind::DevicePaths => 1,
            TimeIndexKind::DeviceIds => 3,
        }
    }
}

/// An inclusive time range `[start, end]`, in the file's timestamp unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimeRange {
    /// First timestamp (inclusive).
    pub start: i64,
    /// Last timestamp (inclusive). A device-level resource's `i64::MIN` (IoTDB's mark of an
    /// unsealed file) is read as `i64::MAX`, so the file is never skipped for it.
    pub end: i64,
}

impl TimeRange {
    /// The range `[start, end]`.
    pub fn new(start: i64, end: i64) -> Self {
        TimeRange { start, end }
    }

    /// Every timestamp.
    pub fn all() -> Self {
        TimeRange::new(i64::MIN, i64::MAX)
    }

    /// Whether the two ranges share at least one timestamp.
    pub fn overlaps(&self, other: &TimeRange) -> bool {
        self.start <= other.end && other.start <= self.end && self.start <= self.end
    }

    /// The smallest range covering both.
    pub fn union(&self, other: &TimeRange) -> TimeRange {
        TimeRange::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A parsed `.resource` file: its time index and plan indexes.
///
/// ```
/// use colfile::tsfile::dataset::{Resource, TimeIndexKind, TimeRange};
/// // version 1, type 1, one device `root.sg.d1` with range [5, 9], index 0, then plan indexes.
/// let mut b = vec![1u8, 1, 0, 0, 0, 1];
/// b.extend(5i64.to_be_bytes());
/// b.extend(9i64.to_be_bytes());
/// b.extend(10i32.to_be_bytes());
/// b.extend(b"root.sg.d1");
/// b.extend(0i32.to_be_bytes());
/// b.extend(7i64.to_be_bytes());
/// b.extend(3i64.to_be_bytes());
/// let r = Resource::parse(&b, "x.tsfile.resource", &colfile::Limits::default())?;
/// assert_eq!(r.kind, TimeIndexKind::DevicePaths);
/// assert_eq!(r.file_range, Some(TimeRange::new(5, 9)));
/// assert_eq!(r.plan_indexes, Some((7, 3)));
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Resource {
    /// The resource format version (1 in every known server).
    pub version: u8,
    /// The time index kind.
    pub kind: TimeIndexKind,
    /// Each device and its range. For [`TimeIndexKind::FileLevel`] every device gets the file
    /// range (the file holds no finer information). Tree paths of type 1 are split as Java
    /// splits them ([`DeviceId::from_tree_path`]) so they compare with TsFile device ids.
    pub devices: BTreeMap<DeviceId, TimeRange>,
    /// The range of the whole file: the union of the device ranges (`None` with no devices).
    pub file_range: Option<TimeRange>,
    /// `(max_plan_index, min_plan_index)` when present.
    pub plan_indexes: Option<(i64, i64)>,
}

impl Resource {
    /// Whether the ranges are per device (types 1 and 3) rather than file level (type 0).
    pub fn is_device_level(&self) -> bool {
        self.kind != TimeIndexKind::FileLevel
    }

    /// Reads and parses `path`.
    pub fn open(path: &Path, limits: &Limits) -> Result<Resource> {
        let bytes = std::fs::read(path)?;
        Self::parse(&bytes, &path.display().to_string(), limits)
    }

    /// Parses a `.resource` file's bytes; every error names `name` (the file's path) as its
    /// file ([`Location::file`](crate::Location)).
    /// Counts are checked against `limits.max_metadata_entries` and against the bytes left,
    /// string lengths against `limits.max_string_len`, before anything is allocated.
    pub fn parse(bytes: &[u8], name: &str, limits: &Limits) -> Result<Resource> {
        let mut c = Cursor::new(bytes, 0);
        Self::parse_cursor(&mut c, limits).map_err(|e| e.in_section("resource").in_file(name))
    }

    fn parse_cursor(c: &mut Cursor<'_>, limits: &Limits) -> Result<Resource> {
        let version = c.read_u8()?;
        let at = c.offset();
        let kind = match c.read_u8()? {
            0 => TimeIndexKind::FileLevel,
            1 => TimeIndexKind::DevicePaths,
            3 => TimeIndexKind::DeviceIds,
            t => {
                return Err(Error::unsupported(format!(
                    "time index type {t} at byte {at} (known: 0, 1, 3)"
                ))
                .at_offset(at))
            }
        };
        let devices = match kind {
            TimeIndexKind::FileLevel => read_file_level(c, limits)?,
            _ => read_device_level(c, kind, limits)?,
        };
        let file_range = devices.values().copied().reduce(|a, b| a.union(&b));
        let plan_indexes = if c.remaining() >= 16 {
            Some((c.read_i64_be()?, c.read_i64_be()?))
        } else {
            None
        };
        Ok(Resource {
            version,
            kind,
            devices,
            file_range,
            plan_indexes,
        })
    }
}

/// Reads an `int32` count, refusing negatives, counts above the limit and counts that need
/// more than the bytes left (`min_each` bytes per entry).
fn read_count(c: &mut Cursor<'_>, limits: &Limits, min_each: usize) -> Result<usize> {
    let at = c.offset();
    let n = c.read_i32_be()?;
    let Ok(n) = usize::try_from(n) else {
        return Err(Error::corrupt(FORMAT, format!("negative device count {n}")).at_offset(at));
    };
    if n > limits.max_metadata_entries {
        return Err(Error::limit(
            "resource device count",
            n as u64,
            limits.max_metadata_entries as u64,
        )
        .at_offset(at));
    }
    c.need("resource devices", n.saturating_mul(min_each))?;
    Ok(n)
}

fn read_path(c: &mut Cursor<'_>, limits: &Limits) -> Result<DeviceId> {
    let at = c.offset();
    let len = c.read_i32_be()?;
    if len as i64 > limits.max_string_len as i64 {
        return Err(Error::limit(
            "resource device path",
            len as u64,
            limits.max_string_len as u64,
        )
        .at_offset(at));
    }
    let Ok(len) = usize::try_from(len) else {
        return Err(Error::corrupt(FORMAT, "device path is null".to_string()).at_offset(at));
    };
    let bytes = c.take("resource device path", len)?;
    let path = std::str::from_utf8(bytes).map_err(|_| {
        Error::corrupt(FORMAT, "device path is not UTF-8".to_string()).at_offset(at)
    })?;
    DeviceId::from_tree_path(path)
        .map_err(|e| Error::corrupt(FORMAT, format!("device path {path:?}: {e}")).at_offset(at))
}

fn read_file_level(c: &mut Cursor<'_>, limits: &Limits) -> Result<BTreeMap<DeviceId, TimeRange>> {
    let n = read_count(c, limits, 4)?;
    let mut devices = Vec::with_capacity(n);
    for _ in 0..n {
        devices.push(read_path(c, limits)?);
    }
    let range = TimeRange::new(c.read_i64_be()?, c.read_i64_be()?);
    Ok(devices.into_iter().map(|d| (d, range)).collect())
}

fn read_device_level(
    c: &mut Cursor<'_>,
    kind: TimeIndexKind,
    limits: &Limits,
) -> Result<BTreeMap<DeviceId, TimeRange>> {
    // 16 bytes of times and at least 5 of name and index per device.
    let n = read_count(c, limits, 21)?;
    let mut ranges = Vec::with_capacity(n);
    for _ in 0..n {
        let start = c.read_i64_be()?;
        // `i64::MIN` is IoTDB's "not known yet" (an unsealed file): the device may hold any
        // later time, so the range must not let a reader skip it.
        let end = match c.read_i64_be()? {
            i64::MIN => i64::MAX,
            end => end,
        };
        ranges.push(TimeRange::new(start, end));
    }
    let mut devices = BTreeMap::new();
    for _ in 0..n {
        let at = c.offset();
        let device = match kind {
            TimeIndexKind::DeviceIds => {
                let max = limits.max_string_len.min(limits.max_columns);
                DeviceId::read(c, max)?
            }
            _ => read_path(c, limits)?,
        };
        let index = c.read_i32_be()?;
        let range = usize::try_from(index)
            .ok()
            .and_then(|i| ranges.get(i))
            .ok_or_else(|| {
                Error::corrupt(
                    FORMAT,
                    format!("device {device} has index {index}, outside 0..{n}"),
                )
                .at_offset(at)
            })?;
        if devices.insert(device.clone(), *range).is_some() {
            return Err(
                Error::corrupt(FORMAT, format!("device {device} is listed twice")).at_offset(at),
            );
        }
    }
    Ok(devices)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(kind: u8, n: i32) -> Vec<u8> {
        let mut b = vec![1, kind];
        b.extend(n.to_be_bytes());
        b
    }

    #[test]
    fn unknown_type_is_unsupported_and_named() {
        let e = Resource::parse(&[1, 2, 0, 0, 0, 0], "f.resource", &Limits::default()).unwrap_err();
        assert!(matches!(e.kind(), crate::ErrorKind::Unsupported(m) if m.contains("type 2")));
        assert_eq!(e.location().offset, Some(1));
    }

    #[test]
    fn huge_count_is_refused_before_allocating() {
        let e = Resource::parse(&header(3, i32::MAX), "f", &Limits::default()).unwrap_err();
        assert!(matches!(e.kind(), crate::ErrorKind::LimitExceeded { .. }));
        let e = Resource::parse(&header(1, 1000), "f", &Limits::default()).unwrap_err();
        assert!(matches!(e.kind(), crate::ErrorKind::Truncated { .. }));
    }

    #[test]
    fn index_out_of_range_is_corrupt() {
        let mut b = header(1, 1);
        b.extend(1i64.to_be_bytes());
        b.extend(2i64.to_be_bytes());
        b.extend(4i32.to_be_bytes());
        b.extend(b"root");
        b.extend(5i32.to_be_bytes());
        let e = Resource::parse(&b, "f.resource", &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("f.resource"), "{e}");
        assert_eq!(e.location().offset, Some(22));
    }

    #[test]
    fn file_level_gives_every_device_the_file_range() {
        let mut b = header(0, 2);
        for d in ["root.a.d1", "root.a.d2"] {
            b.extend((d.len() as i32).to_be_bytes());
            b.extend(d.as_bytes());
        }
        b.extend(3i64.to_be_bytes());
        b.extend(8i64.to_be_bytes());
        let r = Resource::parse(&b, "f", &Limits::default()).unwrap();
        assert!(!r.is_device_level());
        assert_eq!(r.devices.len(), 2);
        assert_eq!(r.file_range, Some(TimeRange::new(3, 8)));
        assert_eq!(r.plan_indexes, None);
    }

    #[test]
    fn an_unknown_end_never_skips_the_device() {
        let mut b = header(1, 1);
        b.extend(4i64.to_be_bytes());
        b.extend(i64::MIN.to_be_bytes());
        b.extend(4i32.to_be_bytes());
        b.extend(b"root");
        b.extend(0i32.to_be_bytes());
        let r = Resource::parse(&b, "f", &Limits::default()).unwrap();
        assert_eq!(r.file_range, Some(TimeRange::new(4, i64::MAX)));
    }
}
