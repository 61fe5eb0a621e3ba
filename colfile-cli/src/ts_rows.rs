//! Rows of one table gathered into column batches for `colfile write --format tsfile
//! --table`: a run of rows of one device (the usual order of input) fills one
//! [`DeviceBatch`] of typed columns, written with `write_batch_owned` when the device
//! changes, a time does not increase or the batch is full. The writer then finds the
//! device and checks the rows once a batch, not once a row.

use std::io::Write;

use colfile::tsfile::format::schema::TableSchema;
use colfile::tsfile::format::{Column, ColumnCategory, DeviceId};
use colfile::tsfile::{DeviceBatch, TsFileWriter, ValueRef};

/// Most rows a batch gathers before it is written.
const BATCH_ROWS: usize = 4096;

/// Where a row's value goes: a tag (its index among the tags) or a field column.
#[derive(Clone, Copy)]
enum Slot {
    Tag(usize),
    Field(usize),
}

/// The batch being gathered, with the input line of its first row.
pub(crate) struct TableRows {
    table: String,
    slots: Vec<Slot>,
    empty: DeviceBatch,
    batch: DeviceBatch,
    first_line: usize,
}

impl TableRows {
    /// Rows of `schema`, each holding a value for every column but the time column, in
    /// schema order.
    pub fn new(schema: &TableSchema) -> colfile::Result<Self> {
        let mut slots = Vec::new();
        let mut empty = DeviceBatch {
            table: schema.name.clone(),
            device: DeviceId::from_table(&schema.name, Vec::<Option<String>>::new())?,
            tags: Vec::new(),
            times: Vec::new(),
            columns: Vec::new(),
        };
        for c in &schema.columns {
            let name = &c.schema.name;
            match c.category {
                ColumnCategory::Time => continue,
                ColumnCategory::Tag => {
                    slots.push(Slot::Tag(empty.tags.len()));
                    empty.tags.push((name.clone(), None));
                }
                _ => {
                    slots.push(Slot::Field(empty.columns.len()));
                    empty.columns.push(Column::new(name, c.schema.data_type)?);
                }
            }
        }
        Ok(TableRows {
            table: schema.name.clone(),
            slots,
            batch: empty_like(&empty),
            empty,
            first_line: 0,
        })
    }

    /// Adds the row of input line `line`, first writing the batch gathered so far when
    /// the row cannot join it. An error names the input line it belongs to.
    pub fn push<W: Write>(
        &mut self,
        w: &mut TsFileWriter<W>,
        line: usize,
        time: i64,
        row: &[ValueRef<'_>],
    ) -> Result<(), (usize, colfile::Error)> {
        if !self.batch.times.is_empty() && !self.joins(time, row) {
            self.write(w)?;
        }
        if self.batch.times.is_empty() {
            self.first_line = line;
            for (slot, v) in self.slots.iter().zip(row) {
                if let (Slot::Tag(k), ValueRef::Binary(b)) = (slot, v) {
                    let tag = String::from_utf8(b.to_vec()).map_err(|_| {
                        let msg = format!("table {}: tag value is not UTF-8", self.table);
                        (line, colfile::Error::schema(msg))
                    })?;
                    if let Some(t) = self.batch.tags.get_mut(*k) {
                        t.1 = Some(tag);
                    }
                }
            }
        }
        self.batch.times.push(time);
        for (slot, v) in self.slots.iter().zip(row) {
            let Slot::Field(j) = *slot else { continue };
            let Some(col) = self.batch.columns.get_mut(j) else {
                continue;
            };
            let present = !matches!(v, ValueRef::Null);
            if present {
                col.values.push(*v).map_err(|e| (line, e))?;
            }
            col.present.push(present);
        }
        if self.batch.times.len() >= BATCH_ROWS {
            self.write(w)?;
        }
        Ok(())
    }

    /// Writes what is gathered.
    pub fn finish<W: Write>(
        &mut self,
        w: &mut TsFileWriter<W>,
    ) -> Result<(), (usize, colfile::Error)> {
        self.write(w)
    }

    /// Whether a row of `time` and `row` belongs to the batch: the same tags, and a later
    /// time than its last.
    fn joins(&self, time: i64, row: &[ValueRef<'_>]) -> bool {
        if self.batch.times.last().is_some_and(|&last| time <= last) {
            return false;
        }
        self.slots.iter().zip(row).all(|(slot, v)| match (slot, v) {
            (Slot::Tag(k), v) => {
                let held = self.batch.tags.get(*k).and_then(|t| t.1.as_deref());
                match (held, v) {
                    (None, ValueRef::Null) => true,
                    (Some(h), ValueRef::Binary(b)) => h.as_bytes() == *b,
                    _ => false,
                }
            }
            (Slot::Field(_), _) => true,
        })
    }

    /// Writes the batch (if it holds rows) and starts an empty one.
    fn write<W: Write>(&mut self, w: &mut TsFileWriter<W>) -> Result<(), (usize, colfile::Error)> {
        if self.batch.times.is_empty() {
            return Ok(());
        }
        let batch = std::mem::replace(&mut self.batch, empty_like(&self.empty));
        w.write_batch_owned(batch).map_err(|e| (self.first_line, e))
    }
}

/// An empty batch shaped like `empty`, with room for a full batch.
fn empty_like(empty: &DeviceBatch) -> DeviceBatch {
    let mut b = empty.clone();
    b.times.reserve(BATCH_ROWS);
    for c in &mut b.columns {
        c.present.reserve(BATCH_ROWS);
    }
    b
}
