//! [`DevicePlan`]: what one device's scan reads for a [`Query`] — the selected tags and
//! columns plus those only the filter needs — and the verdicts that skip a whole device (its
//! tags, its series' time and value statistics) before any chunk is read.

use super::chunk_reader::overlaps;
use super::deletions::DeviceDeletions;
use super::explain::Reason;
use super::filter::{test_stats, test_value, Filter, Tri};
use super::metadata::{DeviceIndex, FileParts};
use super::query::Query;
use super::rows::{retain_rows, row_mask};
use crate::Result;
use crate::source::ByteSource;
use crate::tsfile::format::batch::{Column, DeviceBatch};
use crate::tsfile::format::index::TimeseriesMetadata;
use crate::tsfile::format::statistics::Statistics;
use crate::tsfile::format::value::ValueRef;
use crate::tsfile::format::{ColumnCategory, DataType, DeviceId, TableSchema};

/// A chunk's header offset and its statistics, when known.
pub(super) type ChunkRef = (u64, Option<Statistics>);

/// What one device's scan reads.
#[derive(Debug)]
pub(super) struct DevicePlan {
    pub device: DeviceId,
    /// The selected tags and their values.
    pub tags: Vec<(String, Option<String>)>,
    /// Every tag, for the filter.
    pub all_tags: Vec<(String, Option<String>)>,
    /// Columns read: the selected ones, then those only the filter needs.
    pub fields: Vec<(String, DataType)>,
    /// How many of `fields` the batches carry.
    pub n_out: usize,
    /// The aligned time column, if the device is aligned.
    pub time: Option<TimeseriesMetadata>,
    /// Each field's series (`None`: not in this device).
    pub field_series: Vec<Option<TimeseriesMetadata>>,
    /// What the file's deletions hide of this device (`None`: nothing).
    pub deletions: Option<DeviceDeletions>,
}

/// The tags of a table-model device: (name, value) in schema order.
pub(crate) fn device_tags(
    schema: Option<&TableSchema>,
    device: &DeviceId,
) -> Vec<(String, Option<String>)> {
    let tags = schema.map(|s| s.columns.iter()).into_iter().flatten();
    tags.filter(|c| c.category == ColumnCategory::Tag)
        .enumerate()
        .map(|(i, c)| {
            (
                c.schema.name.clone(),
                device.segment(i + 1).map(str::to_owned),
            )
        })
        .collect()
}

/// The filter's verdict on a device from its tags alone (FIELD leaves unknown).
pub(super) fn tag_verdict(f: &Filter, tags: &[(String, Option<String>)]) -> Tri {
    f.eval(&mut |leaf| {
        let c = leaf.leaf_column().unwrap_or_default();
        match tags.iter().find(|(n, _)| n == c) {
            Some((_, v)) => {
                let v = v
                    .as_deref()
                    .map_or(ValueRef::Null, |s| ValueRef::Binary(s.as_bytes()));
                if test_value(leaf, v) {
                    Tri::Yes
                } else {
                    Tri::No
                }
            }
            None => Tri::Maybe,
        }
    })
}

/// Checks `q`'s filter against `schema`'s columns (strictly when the query names a table).
pub(super) fn check_filter(q: &Query, schema: &TableSchema) -> Result<()> {
    let Some(f) = &q.filter else { return Ok(()) };
    let type_of = |c: &str| {
        let col = schema.columns.iter().find(|x| x.schema.name == c)?;
        match col.category {
            ColumnCategory::Tag => Some(DataType::String),
            ColumnCategory::Field => Some(col.schema.data_type),
            _ => None,
        }
    };
    f.check(&type_of, q.table.is_some())
}

/// Plans a fetch window made of the devices it covers, by measurement root, handed to
/// the stream so that they are not made a second time when the devices start.
#[cfg(feature = "async")]
#[derive(Debug, Default)]
pub(crate) struct Prepared(pub(super) Vec<((u64, u64), DevicePlan)>);

impl DevicePlan {
    /// Reads the device's series index and works out the columns.
    pub fn new<S: ByteSource>(
        r: &FileParts<'_, S>,
        entry: &DeviceIndex,
        q: &Query,
    ) -> Result<DevicePlan> {
        let device = &entry.device;
        let series = r.metadata.timeseries_at(r.source, entry)?;
        let schema = r.metadata.table_schema(device.table_name());
        let all_tags = device_tags(schema, device);
        let mut fields: Vec<(String, DataType)> = match schema {
            Some(s) => s
                .columns
                .iter()
                .filter(|c| c.category == ColumnCategory::Field)
                .map(|c| (c.schema.name.clone(), c.schema.data_type))
                .collect(),
            None => series
                .iter()
                .filter(|s| !s.measurement_id.is_empty() && s.data_type != DataType::Vector)
                .map(|s| (s.measurement_id.clone(), s.data_type))
                .collect(),
        };
        let mut tags = all_tags.clone();
        let mut extra = Vec::new();
        if let Some(cols) = &q.columns {
            let order = |n: &String| cols.iter().position(|c| c == n);
            tags.retain(|(n, _)| cols.contains(n));
            tags.sort_by_key(|(n, _)| order(n));
            let (mut sel, rest): (Vec<_>, Vec<_>) =
                fields.into_iter().partition(|(n, _)| cols.contains(n));
            sel.sort_by_key(|(n, _)| order(n));
            fields = sel;
            extra = rest;
        }
        let n_out = fields.len();
        if let Some(f) = &q.filter {
            let type_of = |c: &str| {
                let x = fields.iter().chain(&extra).find(|(n, _)| n == c);
                x.map(|(_, t)| *t).or_else(|| {
                    all_tags
                        .iter()
                        .any(|(n, _)| n == c)
                        .then_some(DataType::String)
                })
            };
            f.check(&type_of, false)?;
            for c in f.columns() {
                if let Some(x) = extra.iter().find(|(n, _)| n == c) {
                    fields.push(x.clone());
                }
            }
        }
        let time = series
            .iter()
            .find(|s| s.measurement_id.is_empty() && s.data_type == DataType::Vector)
            .cloned();
        // A value column (type mask 0x40) without a time column has no rows: a v3 Java
        // writer leaves such a device when all its values were null.
        let usable = |s: &TimeseriesMetadata| time.is_some() || s.timeseries_type & 0x40 == 0;
        let field_series = fields
            .iter()
            .map(|(n, _)| {
                series
                    .iter()
                    .find(|s| &s.measurement_id == n && s.data_type != DataType::Vector)
                    .filter(|s| usable(s))
                    .cloned()
            })
            .collect();
        let deletions = DeviceDeletions::new(r.mods, device, &fields, time.is_some(), &series);
        Ok(DevicePlan {
            device: device.clone(),
            tags,
            all_tags,
            fields,
            n_out,
            time,
            field_series,
            deletions,
        })
    }

    /// Why the whole device can be skipped, if it can: its time range, or the filter on its
    /// series statistics.
    pub fn skip_reason(&self, q: &Query) -> Option<Reason> {
        let (start, end) = q.range();
        if q.has_range() {
            let hit = match &self.time {
                Some(t) => overlaps(&t.statistics, start, end),
                None => self
                    .field_series
                    .iter()
                    .flatten()
                    .any(|s| overlaps(&s.statistics, start, end)),
            };
            if !hit {
                return Some(Reason::Time);
            }
        }
        let f = q.filter.as_ref()?;
        let rows = self.time.as_ref().map(|t| u64::from(t.statistics.count));
        let verdict = self.verdict(f, rows, |j| {
            let series = self.field_series.get(j)?.as_ref()?;
            Some(&series.statistics)
        });
        (verdict == Tri::No).then_some(Reason::Values)
    }

    /// The filter over some rows: tags exact, field `j` judged by `stats(j)`. Always
    /// `Maybe` for a device with deletions: the file's statistics still count deleted points
    /// (a deleted value is null, which a null count would deny).
    pub fn verdict<'a>(
        &self,
        f: &Filter,
        rows: Option<u64>,
        stats: impl Fn(usize) -> Option<&'a Statistics>,
    ) -> Tri {
        if self.deletions.is_some() {
            return Tri::Maybe;
        }
        f.eval(&mut |leaf| {
            let c = leaf.leaf_column().unwrap_or_default();
            match self.fields.iter().position(|(n, _)| n == c) {
                Some(j) => test_stats(leaf, stats(j), rows),
                None if self.all_tags.iter().any(|(n, _)| n == c) => {
                    tag_verdict(leaf, &self.all_tags)
                }
                // Not a column of this device: null in every row.
                None => test_stats(leaf, None, rows),
            }
        })
    }

    /// Whether the filter names a FIELD column of this device.
    pub fn filters_fields(&self, q: &Query) -> bool {
        q.filter.as_ref().is_some_and(|f| {
            f.columns()
                .iter()
                .any(|c| self.fields.iter().any(|(n, _)| n == c))
        })
    }

    /// A batch with no rows and the columns read.
    pub fn empty_batch(&self) -> Result<DeviceBatch> {
        Ok(DeviceBatch {
            table: self.device.table_name().to_owned(),
            device: self.device.clone(),
            tags: self.tags.clone(),
            times: Vec::new(),
            columns: self
                .fields
                .iter()
                .map(|(n, t)| Column::new(n, *t))
                .collect::<Result<_>>()?,
        })
    }

    /// Applies the time range and the filter to a decoded batch, then drops the columns only
    /// the filter needed.
    pub fn finish_batch(&self, batch: &mut DeviceBatch, q: &Query) -> Result<()> {
        if q.has_range() || q.filter.is_some() {
            let keep = row_mask(batch, q.range(), q.filter.as_ref(), &self.all_tags);
            retain_rows(batch, &keep)?;
        }
        batch.columns.truncate(self.n_out);
        Ok(())
    }
}

/// Chunk metadata of a series with statistics filled in (single-chunk series carry theirs
/// in the series statistics).
pub(super) fn chunks_of(s: &TimeseriesMetadata) -> Vec<ChunkRef> {
    let single = s.chunks.len() == 1;
    s.chunks
        .iter()
        .map(|c| {
            let st = match (&c.statistics, single) {
                (Some(st), _) => Some(st.clone()),
                (None, true) => Some(s.statistics.clone()),
                (None, false) => None,
            };
            (c.offset_of_chunk_header as u64, st)
        })
        .collect()
}
