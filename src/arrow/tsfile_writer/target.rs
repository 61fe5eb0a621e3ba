//! What a [`TsFileArrowWriter`](super::TsFileArrowWriter) writes — one table or tree-model
//! devices — and how a batch's columns map onto it.

use std::collections::HashSet;

use arrow_array::{Array, RecordBatch};

use super::columns::{gather, pick_times};
use crate::arrow::tsfile_types::{arrow_fits, DEVICE_COLUMN, TIME_COLUMN};
use crate::tsfile::format::schema::{MeasurementSchema, TableSchema};
use crate::tsfile::format::{ColumnCategory, DataType, DeviceId};
use crate::tsfile::DeviceBatch;
use crate::{Error, Result};

/// What the writer writes.
#[derive(Debug)]
pub(super) enum Target {
    /// The rows of one registered table (names lower-cased).
    Table(TableSchema),
    /// Tree-model devices, each registered with every measurement when first seen.
    Tree {
        aligned: bool,
        measurements: Vec<MeasurementSchema>,
        registered: HashSet<String>,
    },
}

/// A batch's columns by role: the time column, the columns that name the device (TAG
/// columns in table order, or the one `device` column) and the value columns (FIELD columns
/// in table order, or the measurements), `None` where the batch lacks one.
pub(super) struct Matched<'a> {
    pub time: Option<&'a dyn Array>,
    pub keys: Vec<Option<&'a dyn Array>>,
    pub values: Vec<Option<&'a dyn Array>>,
}

impl Target {
    /// Sorts the batch's columns by role, checking names and types.
    pub(super) fn match_columns<'a>(&self, batch: &'a RecordBatch) -> Result<Matched<'a>> {
        let (n_keys, n_values) = match self {
            Target::Table(t) => {
                let tags = t.tags().count();
                let fields = t
                    .columns
                    .iter()
                    .filter(|c| c.category == ColumnCategory::Field);
                (tags, fields.count())
            }
            Target::Tree { measurements, .. } => (1, measurements.len()),
        };
        let mut m = Matched {
            time: None,
            keys: vec![None; n_keys],
            values: vec![None; n_values],
        };
        let schema = batch.schema_ref();
        for (field, array) in schema.fields().iter().zip(batch.columns()) {
            let name = field.name();
            if name.eq_ignore_ascii_case(TIME_COLUMN) {
                if m.time.replace(array.as_ref()).is_some() {
                    return Err(Error::schema("the batch has two time columns"));
                }
                continue;
            }
            let (slot, want, owner) = self.slot(&mut m, name)?;
            if !arrow_fits(want, field.data_type()) {
                return Err(Error::schema(format!(
                    "column {name} is {want} in {owner} but {} in the batch",
                    field.data_type()
                )));
            }
            if slot.replace(array.as_ref()).is_some() {
                return Err(Error::schema(format!("column {name} appears twice")));
            }
        }
        if let (Target::Tree { .. }, [key]) = (self, m.keys.as_slice()) {
            let device = key.ok_or_else(|| Error::schema("the batch has no device column"))?;
            if let Some(row) = (0..device.len()).find(|&r| device.is_null(r)) {
                return Err(Error::invalid(format!(
                    "the device column is null in row {row}"
                )));
            }
        }
        Ok(m)
    }

    /// Where the batch column `name` goes, the TsFile type it must fit and what it is in.
    fn slot<'m, 'a>(
        &self,
        m: &'m mut Matched<'a>,
        name: &str,
    ) -> Result<(&'m mut Option<&'a dyn Array>, DataType, String)> {
        match self {
            Target::Table(t) => {
                let owner = format!("table {}", t.name);
                let (mut k, mut v) = (0, 0);
                for c in &t.columns {
                    let hit = c.schema.name.eq_ignore_ascii_case(name);
                    match c.category {
                        ColumnCategory::Tag if hit => {
                            let slot = m
                                .keys
                                .get_mut(k)
                                .ok_or_else(|| Error::invalid("tag slot"))?;
                            return Ok((slot, DataType::String, owner));
                        }
                        ColumnCategory::Field if hit => {
                            let slot = m
                                .values
                                .get_mut(v)
                                .ok_or_else(|| Error::invalid("field slot"))?;
                            return Ok((slot, c.schema.data_type, owner));
                        }
                        ColumnCategory::Tag => k += 1,
                        ColumnCategory::Field => v += 1,
                        _ => {}
                    }
                }
                Err(Error::schema(format!(
                    "column {name} is not a TAG or FIELD column of {owner}"
                )))
            }
            Target::Tree { measurements, .. } => {
                if name.eq_ignore_ascii_case(DEVICE_COLUMN) {
                    let slot = m
                        .keys
                        .first_mut()
                        .ok_or_else(|| Error::invalid("device slot"))?;
                    return Ok((slot, DataType::String, "the tree model".into()));
                }
                let i = measurements
                    .iter()
                    .position(|x| x.name == name)
                    .ok_or_else(|| {
                        Error::schema(format!("column {name} is not a measurement of this writer"))
                    })?;
                let dt = measurements
                    .get(i)
                    .map_or(DataType::Unknown, |x| x.data_type);
                let slot = m
                    .values
                    .get_mut(i)
                    .ok_or_else(|| Error::invalid("measurement slot"))?;
                Ok((slot, dt, "the writer's measurements".into()))
            }
        }
    }

    /// The rows `rows` of one device (named by `key`) as a [`DeviceBatch`].
    pub(super) fn device_batch(
        &self,
        key: &[Option<&str>],
        rows: &[usize],
        times: &[i64],
        values: &[Option<&dyn Array>],
    ) -> Result<DeviceBatch> {
        let times = pick_times(times, rows)?;
        let mut columns = Vec::new();
        match self {
            Target::Table(t) => {
                let tags: Vec<(String, Option<String>)> = t
                    .tags()
                    .zip(key)
                    .map(|(c, v)| (c.schema.name.clone(), v.map(str::to_owned)))
                    .collect();
                let fields = t
                    .columns
                    .iter()
                    .filter(|c| c.category == ColumnCategory::Field);
                for (c, a) in fields.zip(values) {
                    if let Some(a) = a {
                        columns.push(gather(&c.schema.name, c.schema.data_type, *a, rows)?);
                    }
                }
                let device =
                    DeviceId::from_table(&t.name, key.iter().map(|v| v.map(str::to_owned)))?;
                Ok(DeviceBatch {
                    table: t.name.clone(),
                    device,
                    tags,
                    times,
                    columns,
                })
            }
            Target::Tree { measurements, .. } => {
                let path = key.first().copied().flatten().unwrap_or_default();
                let device = DeviceId::from_tree_path(path)?;
                for (ms, a) in measurements.iter().zip(values) {
                    if let Some(a) = a {
                        columns.push(gather(&ms.name, ms.data_type, *a, rows)?);
                    }
                }
                Ok(DeviceBatch {
                    table: device.table_name().to_owned(),
                    device,
                    tags: Vec::new(),
                    times,
                    columns,
                })
            }
        }
    }
}
