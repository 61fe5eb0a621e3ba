//! [`DeviceBatch`]: what the reader returns and the writer's batch path takes — consecutive
//! rows of one device, column by column. Each [`Column`] keeps its non-null values packed in a [`Values`] run plus a
//! presence mask, the shape that Arrow arrays (values + validity) are built from.

use super::value::ValueRef;
use super::values::Values;
use crate::tsfile::format::{DataType, DeviceId};

/// One column of a batch.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Column (measurement) name.
    pub name: String,
    /// Data type.
    pub data_type: DataType,
    /// The non-null values, in row order.
    pub values: Values,
    /// One flag per row: whether the row has a value. Empty means "every row has one".
    pub present: Vec<bool>,
}

impl Column {
    /// An empty column.
    pub fn new(name: &str, data_type: DataType) -> crate::Result<Self> {
        Ok(Column {
            name: name.to_owned(),
            data_type,
            values: Values::for_type(data_type)?,
            present: Vec::new(),
        })
    }

    /// Number of non-null values.
    pub fn value_count(&self) -> usize {
        self.values.len()
    }

    /// How many of `rows` rows have a value, checking that the presence mask covers exactly
    /// `rows` rows (or is empty: every row) and that there is one value per set flag.
    pub(crate) fn rows_present(&self, rows: usize) -> crate::Result<usize> {
        let name = &self.name;
        let set = if self.present.is_empty() {
            rows
        } else if self.present.len() == rows {
            count_set(&self.present)
        } else {
            return Err(crate::Error::invalid(format!(
                "column {name}: {} presence flags for {rows} rows",
                self.present.len()
            )));
        };
        if set != self.values.len() {
            return Err(crate::Error::invalid(format!(
                "column {name}: {set} rows present but {} values",
                self.values.len()
            )));
        }
        Ok(set)
    }

    /// A cursor that yields this column's value row by row.
    pub fn cursor(&self) -> ColumnCursor<'_> {
        ColumnCursor {
            column: self,
            row: 0,
            next_value: 0,
        }
    }
}

/// Walks a [`Column`] row by row (see [`Column::cursor`]).
#[derive(Debug)]
pub struct ColumnCursor<'a> {
    column: &'a Column,
    row: usize,
    next_value: usize,
}

impl<'a> ColumnCursor<'a> {
    /// The next row's value ([`ValueRef::Null`] when absent or past the end).
    pub fn next_value(&mut self) -> ValueRef<'a> {
        let present = self.column.present.is_empty()
            || self.column.present.get(self.row).copied().unwrap_or(false);
        self.row += 1;
        if !present {
            return ValueRef::Null;
        }
        let v = self.column.values.get(self.next_value);
        self.next_value += 1;
        v.unwrap_or(ValueRef::Null)
    }
}

/// Rows of one device, in time order.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceBatch {
    /// The table (segment 0 of the device id; for tree devices the path prefix).
    pub table: String,
    /// The device.
    pub device: DeviceId,
    /// The selected TAG columns and this device's value of each (constant over the batch;
    /// `None` for a null tag).
    pub tags: Vec<(String, Option<String>)>,
    /// One timestamp per row.
    pub times: Vec<i64>,
    /// The selected FIELD columns (tree model: measurements), in the order asked for.
    pub columns: Vec<Column>,
}

impl DeviceBatch {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.times.len()
    }
    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
    /// Number of non-null values over all columns.
    pub fn value_count(&self) -> usize {
        self.columns.iter().map(Column::value_count).sum()
    }
}

/// How many flags are set (a branch-free sum, which vectorises).
pub(crate) fn count_set(flags: &[bool]) -> usize {
    flags.iter().map(|&b| usize::from(b)).sum()
}
