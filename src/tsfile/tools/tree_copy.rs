//! [`copy_tree`]: every device of a tree-model file, read by [`TsFileReader`] (v3 or v4),
//! written again through [`TsFileWriter`] — how `colfile convert` turns a v3 file into v4.
//! Devices keep their paths, alignment, measurements, types and compressions, and their
//! encodings unless the official C++ reader cannot read one ([`TreeCopyOptions`]).

use std::io::Write;

use crate::source::ByteSource;
use crate::tsfile::format::schema::MeasurementSchema;
use crate::tsfile::format::{DataType, Encoding, ValueRef};
use crate::tsfile::writer::{cpp_reads, default_encoding};
use crate::tsfile::{Query, TsFileReader, TsFileWriter};
use crate::{Error, Result};

/// What [`copy_tree`] copied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeCopySummary {
    /// Devices registered in the output.
    pub devices: u64,
    /// Rows written.
    pub rows: u64,
    /// Series written with another encoding: (`device.measurement`, stored, written).
    pub reencoded: Vec<(String, Encoding, Encoding)>,
}

/// How [`copy_tree_with`] copies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeCopyOptions {
    /// Keep every series' encoding, even one the official C++ 2.5 reader cannot read
    /// ([`cpp_reads`]); Java reads them all. Default `false`: such a series is written with
    /// the portable default for its type ([`default_encoding`]), so that every reader
    /// returns the same rows.
    pub keep_encodings: bool,
}

impl TreeCopyOptions {
    /// These options keeping (or not) every encoding.
    pub fn with_keep_encodings(mut self, keep: bool) -> Self {
        self.keep_encodings = keep;
        self
    }
}

/// Copies every device of the tree-model file `r` into `w` (which the caller finishes) with
/// default [`TreeCopyOptions`]. A device without rows is registered but, having no data,
/// is not in the output file.
///
/// Errors: `r` is a table-model file; a device path the writer refuses; read errors.
pub fn copy_tree<S: ByteSource, W: Write>(
    r: &TsFileReader<S>,
    w: &mut TsFileWriter<W>,
) -> Result<TreeCopySummary> {
    copy_tree_with(r, w, TreeCopyOptions::default())
}

/// [`copy_tree`] with `options`.
pub fn copy_tree_with<S: ByteSource, W: Write>(
    r: &TsFileReader<S>,
    w: &mut TsFileWriter<W>,
    options: TreeCopyOptions,
) -> Result<TreeCopySummary> {
    let m = r.metadata();
    if !m.footer().schemas.is_empty() {
        return Err(Error::invalid(
            "a table-model file: copy_tree copies tree-model devices only",
        ));
    }
    let mut sum = TreeCopySummary::default();
    for device in m.all_devices(r.source())? {
        let series = m.timeseries(r.source(), &device)?;
        let aligned = series
            .iter()
            .any(|s| s.data_type == DataType::Vector || s.timeseries_type & 0x40 != 0);
        let mut ms = Vec::new();
        for s in series.iter().filter(|s| s.data_type != DataType::Vector) {
            let (mut encoding, compression) = r.series_codec(s)?;
            if !options.keep_encodings && !cpp_reads(encoding, s.data_type) {
                let to = default_encoding(s.data_type);
                let name = format!("{device}.{}", s.measurement_id);
                sum.reencoded.push((name, encoding, to));
                encoding = to;
            }
            ms.push(MeasurementSchema::new(
                &s.measurement_id,
                s.data_type,
                encoding,
                compression,
            ));
        }
        let path = device.to_string();
        w.register_device(&path, aligned, ms)?;
        sum.devices += 1;
        for b in r.query(&Query::all().device(device.clone()))? {
            let b = b?;
            let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
            let mut rec: Vec<(&str, ValueRef<'_>)> = Vec::with_capacity(cursors.len());
            for &t in &b.times {
                rec.clear();
                for (c, k) in b.columns.iter().zip(cursors.iter_mut()) {
                    let v = k.next_value();
                    if !matches!(v, ValueRef::Null) {
                        rec.push((c.name.as_str(), v));
                    }
                }
                w.write_record(&path, t, &rec)?;
                sum.rows += 1;
            }
        }
    }
    Ok(sum)
}
