//! [`Query`]: what a [`TsFileReader`](crate::tsfile::TsFileReader) scan returns — a table or some
//! devices, some columns, a time range, a [`Filter`] on TAG and FIELD columns, an offset, a
//! limit and a batch size.

use super::filter::{CmpOp, Filter};
use crate::tsfile::format::value::Value;
use crate::tsfile::format::{ColumnCategory, DeviceId, TableSchema};
use crate::{Error, Result};

/// A query, built step by step; every restriction narrows the result.
///
/// ```
/// use colfile::tsfile::{Filter, Query, TsFileReader, Value};
/// let bytes = std::fs::read("fixtures/tsfile/basic.tsfile")?;
/// let reader = TsFileReader::open(bytes.as_slice())?;
/// let q = Query::all()
///     .table("weather")
///     .columns(["temp"])
///     .tag_eq("city", "beijing")
///     .filter(Filter::gt("temp", Value::Double(21.0)))
///     .time_range(1_700_000_000_000, 1_700_000_004_000)
///     .limit(2);
/// let mut rows = 0;
/// let mut iter = reader.query(&q)?;
/// for batch in &mut iter {
///     rows += batch?.len();
/// }
/// assert_eq!(rows, 2);
/// assert_eq!(iter.explain().rows_returned, 2);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub(crate) table: Option<String>,
    pub(crate) columns: Option<Vec<String>>,
    pub(crate) start: Option<i64>,
    pub(crate) end: Option<i64>,
    pub(crate) devices: Option<Vec<DeviceId>>,
    pub(crate) filter: Option<Filter>,
    pub(crate) offset: u64,
    pub(crate) limit: Option<u64>,
    pub(crate) batch_size: Option<usize>,
}

impl Query {
    /// Everything.
    pub fn all() -> Self {
        Query::default()
    }
    /// Only devices of `table` (matched without regard to letter case).
    pub fn table(mut self, table: &str) -> Self {
        self.table = Some(table.to_lowercase());
        self
    }
    /// Only these TAG/FIELD columns (tree model: measurements), in this order.
    pub fn columns<I: IntoIterator<Item = S>, S: Into<String>>(mut self, columns: I) -> Self {
        self.columns = Some(
            columns
                .into_iter()
                .map(|c| c.into().to_lowercase())
                .collect(),
        );
        self
    }
    /// Only rows with `start <= time <= end`.
    pub fn time_range(mut self, start: i64, end: i64) -> Self {
        self.start = Some(start);
        self.end = Some(end);
        self
    }
    /// Only this device (repeatable: any of the devices given). Its table must still match
    /// [`table`](Self::table) if one is set. The device is found by searching the index,
    /// after asking the Bloom filter.
    pub fn device(mut self, device: DeviceId) -> Self {
        self.devices.get_or_insert_with(Vec::new).push(device);
        self
    }
    /// Only the series at a tree-model path such as `root.sg1.d1.s1`: its device (as
    /// [`device`](Self::device)) and its measurement (added to [`columns`](Self::columns)).
    ///
    /// Errors: a path without a measurement node.
    pub fn series(mut self, path: &str) -> Result<Self> {
        let (device, measurement) = split_last_node(path)
            .ok_or_else(|| Error::invalid(format!("series path {path:?} has no measurement")))?;
        self = self.device(DeviceId::from_tree_path(device)?);
        let cols = self.columns.get_or_insert_with(Vec::new);
        if !cols.iter().any(|c| c == measurement) {
            cols.push(measurement.to_owned());
        }
        Ok(self)
    }
    /// Only rows passing `filter` (AND-ed with any filter already set). It may name any TAG
    /// or FIELD column of the table, selected or not.
    pub fn filter(mut self, filter: Filter) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(f) => f.and(filter),
            None => filter,
        });
        self
    }
    /// Only devices whose TAG `column` equals `value`.
    pub fn tag_eq(self, column: &str, value: &str) -> Self {
        self.filter(Filter::eq(column, Value::string(value)))
    }
    /// Only devices whose TAG `column` is null.
    pub fn tag_is_null(self, column: &str) -> Self {
        self.filter(Filter::is_null(column))
    }
    /// Skips the first `n` rows of the result.
    pub fn offset(mut self, n: u64) -> Self {
        self.offset = n;
        self
    }
    /// Returns at most `n` rows, and stops reading once it has them.
    pub fn limit(mut self, n: u64) -> Self {
        self.limit = Some(n);
        self
    }
    /// Batches of `n` rows (`n` ≥ 1): a device's rows are cut at `n` and joined across
    /// chunks and pages up to `n`, so a batch is shorter only where a device's rows end (or
    /// the limit, or before an error). By default a batch is what the scan decoded at once
    /// (about a chunk's or a page's rows).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = Some(n.max(1));
        self
    }

    /// The inclusive time range (open ends are `i64::MIN` / `i64::MAX`).
    pub(crate) fn range(&self) -> (i64, i64) {
        (self.start.unwrap_or(i64::MIN), self.end.unwrap_or(i64::MAX))
    }

    /// Whether the time range excludes anything.
    pub(crate) fn has_range(&self) -> bool {
        let (s, e) = self.range();
        s > i64::MIN || e < i64::MAX
    }

    /// The one device of `schema`'s table the filter allows, when it is a conjunction
    /// fixing every tag with `=` or `is null` (and no null tag is trailing, since a stored
    /// id may keep those).
    pub(crate) fn fixed_device(&self, schema: &TableSchema) -> Option<DeviceId> {
        let mut fixed: Vec<(&str, Option<&[u8]>)> = Vec::new();
        let mut stack = vec![self.filter.as_ref()?];
        while let Some(f) = stack.pop() {
            match f {
                Filter::And(a, b) => stack.extend([&**a, &**b]),
                Filter::Cmp {
                    column,
                    op: CmpOp::Eq,
                    value: Value::Binary(v),
                } => fixed.push((column, Some(v))),
                Filter::IsNull(c) => fixed.push((c, None)),
                _ => {}
            }
        }
        let mut tags = Vec::new();
        for c in &schema.columns {
            if c.category != ColumnCategory::Tag {
                continue;
            }
            let (_, v) = fixed.iter().find(|(n, _)| *n == c.schema.name)?;
            tags.push(match v {
                Some(b) => Some(std::str::from_utf8(b).ok()?.to_owned()),
                None => None,
            });
        }
        if tags.last().is_some_and(Option::is_none) {
            return None;
        }
        DeviceId::from_table(&schema.name, tags).ok()
    }
}

/// `(device, measurement)` of a dotted path; a back-quoted last node may hold dots.
fn split_last_node(path: &str) -> Option<(&str, &str)> {
    if let Some(inner) = path.strip_suffix('`') {
        let open = inner.rfind('`')?;
        let device = inner[..open].strip_suffix('.')?;
        return Some((device, &inner[open + 1..]));
    }
    let (d, m) = path.rsplit_once('.')?;
    (!d.is_empty() && !m.is_empty()).then_some((d, m))
}
