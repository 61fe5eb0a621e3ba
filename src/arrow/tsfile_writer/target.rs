//! What a [`TsFileArrowWriter`](super::TsFileArrowWriter) writes — one table or tree-model
//! devices — and how a batch's columns map onto it.

use std::collections::HashSet;

use arrow_array::{Array, ArrayRef, RecordBatch};

use super::columns::{check_dates, gather, gather_times};
use super::pending::{Device, Held, Rows};
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
    pub time: Option<&'a ArrayRef>,
    pub keys: Vec<Option<&'a ArrayRef>>,
    pub values: Vec<Option<&'a ArrayRef>>,
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
                if m.time.replace(array).is_some() {
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
            if slot.replace(array).is_some() {
                return Err(Error::schema(format!("column {name} appears twice")));
            }
        }
        if let (Target::Tree { .. }, [key]) = (self, m.keys.as_slice()) {
            let device = key.ok_or_else(|| Error::schema("the batch has no device column"))?;
            let nulls = device.logical_nulls().filter(|n| n.null_count() > 0);
            if let Some(row) = nulls.and_then(|n| n.iter().position(|valid| !valid)) {
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
    ) -> Result<(&'m mut Option<&'a ArrayRef>, DataType, String)> {
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

    /// The device a row of key `key` (TAG values, or the device path) belongs to.
    pub(super) fn device_id(&self, key: &[Option<&str>]) -> Result<DeviceId> {
        match self {
            Target::Table(t) => {
                DeviceId::from_table(&t.name, key.iter().map(|v| v.map(str::to_owned)))
            }
            Target::Tree { .. } => {
                DeviceId::from_tree_path(key.first().copied().flatten().unwrap_or_default())
            }
        }
    }

    /// The value columns (FIELD columns in table order, or the measurements): name and type.
    fn value_columns(&self) -> Vec<(&str, DataType)> {
        match self {
            Target::Table(t) => (t.columns.iter())
                .filter(|c| c.category == ColumnCategory::Field)
                .map(|c| (c.schema.name.as_str(), c.schema.data_type))
                .collect(),
            Target::Tree { measurements, .. } => (measurements.iter())
                .map(|m| (m.name.as_str(), m.data_type))
                .collect(),
        }
    }

    /// Checks the values a batch's columns hold (its DATE values are within years 0–9999),
    /// so that writing it later cannot fail on them.
    pub(super) fn check_values(&self, values: &[Option<&ArrayRef>]) -> Result<()> {
        for ((name, dt), a) in self.value_columns().into_iter().zip(values) {
            if let (DataType::Date, Some(a)) = (dt, a) {
                check_dates(name, a.as_ref())?;
            }
        }
        Ok(())
    }

    /// The held rows of `device` as one [`DeviceBatch`].
    pub(super) fn device_batch(&self, device: &Device, held: &[Held]) -> Result<DeviceBatch> {
        let gone = || Error::invalid("held batch vanished");
        let batches = (device.parts.iter())
            .map(|(b, rows)| Ok((held.get(*b).ok_or_else(gone)?, rows)))
            .collect::<Result<Vec<_>>>()?;
        let time_parts: Vec<(&dyn Array, &Rows)> =
            batches.iter().map(|(h, r)| (h.time.as_ref(), *r)).collect();
        let times = gather_times(&time_parts)?;
        let mut columns = Vec::new();
        for (j, (name, dt)) in self.value_columns().into_iter().enumerate() {
            let parts: Vec<(Option<&dyn Array>, &Rows)> = (batches.iter())
                .map(|(h, r)| (h.values.get(j).and_then(|a| a.as_deref()), *r))
                .collect();
            columns.extend(gather(name, dt, &parts)?);
        }
        let (table, tags) = match self {
            Target::Table(t) => {
                let tags = (t.tags().zip(&device.key))
                    .map(|(c, v)| (c.schema.name.clone(), v.clone()))
                    .collect();
                (t.name.clone(), tags)
            }
            Target::Tree { .. } => (device.id.table_name().to_owned(), Vec::new()),
        };
        Ok(DeviceBatch {
            table,
            device: device.id.clone(),
            tags,
            times,
            columns,
        })
    }
}
