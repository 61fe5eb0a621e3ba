//! IoTDB deletions applied in a scan (`docs/design/tsfile-v3-and-mods.md` §3.3): which of a
//! device's chunks, pages and points the file's [`Modifications`] hide.
//!
//! A non-aligned series loses the points its own deletions cover. An aligned device loses
//! whole rows where its time column (measurement `""`) is deleted, or where every one of its
//! value columns is; elsewhere a deleted value becomes null. Chunks and pages that a deletion
//! covers entirely are skipped unread, and no statistic of a chunk a deletion touches is
//! trusted for a filter's verdict (the file's statistics still count the deleted points).

use crate::tsfile::format::batch::Column;
use crate::tsfile::format::index::TimeseriesMetadata;
use crate::tsfile::format::value::ValueRef;
use crate::tsfile::format::values::Values;
use crate::tsfile::format::DeviceId;
use crate::tsfile::mods::{DeletedRanges, Modifications, TimeRanges};
use crate::Result;

/// The deletions that touch one device, per column read.
#[derive(Debug)]
pub(super) struct DeviceDeletions {
    /// Aligned: the time column's ranges (whole rows).
    rows: DeletedRanges,
    /// Each planned field's ranges, in plan order.
    pub fields: Vec<DeletedRanges>,
    /// Aligned: every value series of the device, with its chunk offsets, for rows whose
    /// every value is deleted.
    values: Vec<(DeletedRanges, Vec<u64>)>,
}

impl DeviceDeletions {
    /// The deletions of `device` for the planned `fields` and, if aligned, for its time
    /// column and every value series in `series`; `None` when nothing of it is deleted.
    pub fn new(
        mods: &Modifications,
        device: &DeviceId,
        fields: &[(String, crate::tsfile::format::DataType)],
        aligned: bool,
        series: &[TimeseriesMetadata],
    ) -> Option<DeviceDeletions> {
        if mods.is_empty() {
            return None;
        }
        let fields: Vec<DeletedRanges> = fields
            .iter()
            .map(|(name, _)| mods.for_series(device, name))
            .collect();
        let (rows, values) = if aligned {
            let values = series
                .iter()
                .filter(|s| !s.measurement_id.is_empty())
                .map(|s| {
                    let offsets = s.chunks.iter().map(|c| c.offset_of_chunk_header as u64);
                    (mods.for_series(device, &s.measurement_id), offsets.collect())
                })
                .collect();
            (mods.for_series(device, ""), values)
        } else {
            (DeletedRanges::default(), Vec::new())
        };
        let touched = !rows.is_empty()
            || fields.iter().any(|f| !f.is_empty())
            || values.iter().any(|(r, _)| !r.is_empty());
        touched.then_some(DeviceDeletions {
            rows,
            fields,
            values,
        })
    }

    /// Aligned: the times whose whole row is gone in time chunk `i` (header at
    /// `time_offset`): the time column's deletions, plus the times where every value series'
    /// chunk `i` is deleted (a series without a chunk `i` has no value there to keep).
    pub fn rows_in_chunk(&self, i: usize, time_offset: u64) -> TimeRanges {
        let rows = self.rows.for_chunk(time_offset);
        let mut every: Option<TimeRanges> = None;
        for (ranges, offsets) in &self.values {
            let Some(&off) = offsets.get(i) else { continue };
            let these = ranges.for_chunk(off);
            let next = match every {
                Some(acc) => acc.intersection(&these),
                None => these,
            };
            if next.is_empty() {
                return rows;
            }
            every = Some(next);
        }
        match every {
            Some(all) => rows.union(&all),
            None => rows,
        }
    }
}

/// Drops the points from index `from` on whose time `deleted` contains.
pub(super) fn drop_points(
    times: &mut Vec<i64>,
    values: &mut Values,
    from: usize,
    deleted: &TimeRanges,
) -> Result<()> {
    let tail = times.get(from..).unwrap_or_default();
    if deleted.is_empty() || !tail.iter().any(|&t| deleted.contains(t)) {
        return Ok(());
    }
    let mut kept = Values::new(values.physical());
    let mut kept_times = Vec::with_capacity(tail.len());
    let mut run: Option<usize> = None;
    for (i, &t) in tail.iter().enumerate() {
        match (deleted.contains(t), run) {
            (false, None) => run = Some(i),
            (true, Some(a)) => {
                kept.extend_from(values, from + a..from + i)?;
                run = None;
            }
            _ => {}
        }
        if !deleted.contains(t) {
            kept_times.push(t);
        }
    }
    if let Some(a) = run {
        kept.extend_from(values, from + a..from + tail.len())?;
    }
    times.truncate(from);
    times.extend(kept_times);
    values.truncate(from);
    values.extend_from(&kept, 0..kept.len())
}

/// Makes null the values of `col` in the rows whose time `deleted` contains.
pub(super) fn null_deleted(col: &mut Column, times: &[i64], deleted: &TimeRanges) -> Result<()> {
    if deleted.is_empty() || !times.iter().any(|&t| deleted.contains(t)) {
        return Ok(());
    }
    let mut values = Values::for_type(col.data_type)?;
    let mut present = Vec::with_capacity(times.len());
    let mut cur = col.cursor();
    for &t in times {
        let v = cur.next_value();
        let keep = !matches!(v, ValueRef::Null) && !deleted.contains(t);
        if keep {
            values.push(v)?;
        }
        present.push(keep);
    }
    col.values = values;
    col.present = present;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::format::DataType;

    #[test]
    fn dropped_points_keep_their_values_in_step() {
        let mut times = vec![1, 2, 3, 4, 5, 6];
        let mut values = Values::Int32(vec![10, 20, 30, 40, 50, 60]);
        let del = TimeRanges::from_ranges([(3, 4), (6, 9)]);
        drop_points(&mut times, &mut values, 1, &del).unwrap();
        assert_eq!(times, [1, 2, 5]);
        assert_eq!(values, Values::Int32(vec![10, 20, 50]));
        // Points before `from` are never touched.
        drop_points(&mut times, &mut values, 2, &TimeRanges::from_ranges([(1, 2)])).unwrap();
        assert_eq!(times, [1, 2, 5]);
    }

    #[test]
    fn nulled_values_leave_the_rows() {
        let mut col = Column::new("s", DataType::Text).unwrap();
        for v in [&b"a"[..], b"c"] {
            col.values.push(ValueRef::Binary(v)).unwrap();
        }
        col.present = vec![true, false, true];
        null_deleted(&mut col, &[1, 2, 3], &TimeRanges::from_ranges([(3, 3)])).unwrap();
        assert_eq!(col.present, [true, false, false]);
        assert_eq!(col.values.len(), 1);
    }

    #[test]
    fn rows_go_when_every_value_column_is_deleted() {
        let series = |name: &str, offsets: &[i64]| TimeseriesMetadata {
            timeseries_type: 1,
            measurement_id: name.into(),
            data_type: DataType::Int32,
            statistics: crate::tsfile::format::Statistics::new(DataType::Int32),
            chunks: offsets
                .iter()
                .map(|&o| crate::tsfile::format::index::ChunkMetadata {
                    offset_of_chunk_header: o,
                    statistics: None,
                })
                .collect(),
        };
        let dev = DeviceId::from_tree_path("root.sg.d1").unwrap();
        let mods = Modifications::new(vec![
            crate::tsfile::mods::Deletion::tree("root.sg.d1.s1".parse().unwrap(), 0, 10),
            crate::tsfile::mods::Deletion::tree("root.sg.d1.s2".parse().unwrap(), 5, 20)
                .with_file_offset(150),
        ]);
        let all = [series("", &[10, 100]), series("s1", &[20, 120]), series("s2", &[30, 140])];
        let fields = [("s1".to_string(), DataType::Int32)];
        let d = DeviceDeletions::new(&mods, &dev, &fields, true, &all).unwrap();
        assert_eq!(d.rows_in_chunk(0, 10).ranges(), &[(5, 10)]);
        assert_eq!(d.rows_in_chunk(1, 100).ranges(), &[(5, 10)]);
        let late = Modifications::new(vec![crate::tsfile::mods::Deletion::tree(
            "root.sg.d1.s2".parse().unwrap(),
            5,
            20,
        )
        .with_file_offset(135)]);
        let d = DeviceDeletions::new(&late, &dev, &fields, true, &all);
        // s2's second chunk (at 140) was written after the deletion: no row loses all.
        assert!(d.unwrap().rows_in_chunk(1, 100).is_empty());
        assert!(DeviceDeletions::new(&Modifications::default(), &dev, &fields, true, &all).is_none());
    }
}
