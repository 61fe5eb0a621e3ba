//! Planner statistics of a TsFile table from its files' indexes, without reading data:
//! rows per device (the aligned time column's count), the time range, and per column the
//! null count and the min/max that TsFile keeps for it.
//!
//! DataFusion answers `count(*)`, `count(col)`, `min()` and `max()` from `Exact` statistics
//! without reading a row, so they are `Exact` only when the table trusts its files'
//! statistics ([`TsFileOptions::trust_statistics`](super::TsFileOptions)), and then only
//! what holds for every row: row counts of aligned devices, integer and string extremes,
//! tag values (from the device ids). Non-aligned (tree) devices, whose series may have
//! different timestamps, give inexact row counts; FLOAT and DOUBLE extremes are inexact
//! (TsFile and SQL order NaN differently). Otherwise every figure is `Inexact`: a guide for
//! the planner, never an answer.

use arrow_schema::{DataType, Schema, TimeUnit};
use colfile::arrow::TSFILE_CATEGORY_KEY;
use colfile::tsfile::format::statistics::StatValues;
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, Statistics};
use datafusion::scalar::ScalarValue;

use super::OpenFile;

/// Running statistics of one column.
#[derive(Clone, Default)]
struct Acc {
    nulls: Option<usize>,
    min: Option<ScalarValue>,
    max: Option<ScalarValue>,
    exact: bool,
    /// False once a value of a type without usable extremes was seen.
    usable: bool,
}

impl Acc {
    fn new() -> Self {
        Acc {
            nulls: Some(0),
            exact: true,
            usable: true,
            ..Acc::default()
        }
    }
    fn see(&mut self, min: ScalarValue, max: ScalarValue, exact: bool) {
        self.exact &= exact;
        self.min = Some(match self.min.take() {
            Some(m) if m.partial_cmp(&min).is_some_and(|o| o.is_le()) => m,
            _ => min,
        });
        self.max = Some(match self.max.take() {
            Some(m) if m.partial_cmp(&max).is_some_and(|o| o.is_ge()) => m,
            _ => max,
        });
    }
    fn done(self, trust: bool) -> ColumnStatistics {
        let p = |v: Option<ScalarValue>, exact| match v {
            Some(v) if exact && trust => Precision::Exact(v),
            Some(v) => Precision::Inexact(v),
            None => Precision::Absent,
        };
        let mut c = ColumnStatistics::new_unknown();
        c.null_count = match self.nulls {
            Some(n) if trust => Precision::Exact(n),
            Some(n) => Precision::Inexact(n),
            None => Precision::Absent,
        };
        if self.usable {
            c.min_value = p(self.min, self.exact);
            c.max_value = p(self.max, self.exact);
        }
        c
    }
}

/// Statistics of `schema`'s columns over every device of `files` that the table holds; exact
/// where they hold for every row only if `trust`.
pub(crate) fn table_statistics(
    files: &[std::sync::Arc<OpenFile>],
    schema: &Schema,
    trust: bool,
) -> colfile::Result<Statistics> {
    let mut rows = 0usize;
    let mut rows_exact = true;
    let mut bytes = 0usize;
    let mut acc: Vec<Acc> = schema.fields().iter().map(|_| Acc::new()).collect();
    let tags: Vec<usize> = (0..schema.fields().len())
        .filter(|&i| {
            schema
                .field(i)
                .metadata()
                .get(TSFILE_CATEGORY_KEY)
                .map(String::as_str)
                == Some("TAG")
        })
        .collect();
    let time = schema.index_of("time").ok();
    let unit = match time.map(|i| schema.field(i).data_type()) {
        Some(DataType::Timestamp(u, _)) => *u,
        _ => TimeUnit::Millisecond,
    };
    for f in files {
        bytes = bytes.saturating_add(usize::try_from(f.file.len).unwrap_or(usize::MAX));
        let meta = f.reader.metadata();
        for device in &f.devices {
            let series = meta.timeseries(f.reader.source(), device)?;
            let aligned = series.iter().find(|s| s.measurement_id.is_empty());
            let device_rows = match aligned {
                Some(t) => t.statistics.count as usize,
                None => {
                    rows_exact = false;
                    series
                        .iter()
                        .map(|s| s.statistics.count as usize)
                        .max()
                        .unwrap_or(0)
                }
            };
            rows = rows.saturating_add(device_rows);
            if let (Some(i), Some(s)) = (time, series.first()) {
                let (lo, hi) = series.iter().fold((i64::MAX, i64::MIN), |(a, b), s| {
                    (a.min(s.statistics.start_time), b.max(s.statistics.end_time))
                });
                if lo <= hi && s.statistics.count > 0 {
                    if let Some(a) = acc.get_mut(i) {
                        a.see(timestamp(lo, unit), timestamp(hi, unit), true);
                    }
                }
            }
            for (k, &i) in tags.iter().enumerate() {
                let Some(a) = acc.get_mut(i) else { continue };
                match device.segment(k + 1) {
                    Some(v) => a.see(ScalarValue::from(v), ScalarValue::from(v), true),
                    None => a.nulls = a.nulls.map(|n| n + device_rows),
                }
            }
            for (i, field) in schema.fields().iter().enumerate() {
                let category = field.metadata().get(TSFILE_CATEGORY_KEY);
                if category.map(String::as_str) != Some("FIELD") {
                    continue;
                }
                let Some(a) = acc.get_mut(i) else { continue };
                let s = series
                    .iter()
                    .find(|s| s.measurement_id.eq_ignore_ascii_case(field.name()));
                let count = s.map_or(0, |s| s.statistics.count as usize);
                a.nulls = match (a.nulls, aligned) {
                    (Some(n), Some(_)) => Some(n + device_rows.saturating_sub(count)),
                    _ => None,
                };
                let Some(s) = s.filter(|s| s.statistics.count > 0) else {
                    continue;
                };
                match (&s.statistics.values, field.data_type()) {
                    (StatValues::Int32(n), DataType::Int32) => {
                        a.see(ScalarValue::from(n.min), ScalarValue::from(n.max), true)
                    }
                    (StatValues::Int64(n), DataType::Int64) => {
                        a.see(ScalarValue::from(n.min), ScalarValue::from(n.max), true)
                    }
                    (StatValues::Float(n), DataType::Float32) => {
                        a.see(ScalarValue::from(n.min), ScalarValue::from(n.max), false)
                    }
                    (StatValues::Double(n), DataType::Float64) => {
                        a.see(ScalarValue::from(n.min), ScalarValue::from(n.max), false)
                    }
                    (StatValues::String { min, max, .. }, DataType::Utf8) => {
                        match (std::str::from_utf8(min), std::str::from_utf8(max)) {
                            (Ok(lo), Ok(hi)) => {
                                a.see(ScalarValue::from(lo), ScalarValue::from(hi), true)
                            }
                            _ => a.usable = false,
                        }
                    }
                    // Other types keep no extremes we can use: the column has none.
                    _ => a.usable = false,
                }
            }
        }
    }
    let mut out = Statistics::new_unknown(schema);
    out.num_rows = if rows_exact && trust {
        Precision::Exact(rows)
    } else {
        Precision::Inexact(rows)
    };
    out.total_byte_size = Precision::Inexact(bytes);
    out.column_statistics = acc.into_iter().map(|a| a.done(trust)).collect();
    Ok(out)
}

fn timestamp(v: i64, unit: TimeUnit) -> ScalarValue {
    let tz = Some("UTC".into());
    match unit {
        TimeUnit::Second => ScalarValue::TimestampSecond(Some(v), tz),
        TimeUnit::Millisecond => ScalarValue::TimestampMillisecond(Some(v), tz),
        TimeUnit::Microsecond => ScalarValue::TimestampMicrosecond(Some(v), tz),
        TimeUnit::Nanosecond => ScalarValue::TimestampNanosecond(Some(v), tz),
    }
}
