//! Any bytes as an IoTDB `.resource` file: parsing must never panic, and what parses must be
//! self-consistent (the file range covers every device range; the ranges of a device-level
//! index are per device).
use colfile::tsfile::dataset::{FileRanges, Resource, TimeRange};
use colfile::Limits;

/// The target body.
pub fn run(data: &[u8]) {
    let limits = Limits::default().with_max_columns(1000);
    let Ok(r) = Resource::parse(data, "fuzz.tsfile.resource", &limits) else {
        return;
    };
    let ranges = FileRanges::from_resource(&r);
    assert_eq!(ranges.file_range.is_some(), !r.devices.is_empty());
    if let Some(file) = r.file_range {
        for (d, range) in &r.devices {
            assert_eq!(file.union(range), file, "{d}");
            let _ = ranges.may_contain(Some(d), TimeRange::all());
        }
    }
}
