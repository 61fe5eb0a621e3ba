//! [`TsFileWriter::write_batch`] and [`TsFileWriter::write_batch_owned`]: columnar batches,
//! each checked whole (device, column types and lengths, time order) before any of its rows
//! is buffered.

use super::chunk::ColumnCodec;
use super::group::Group;
use super::{new_state, TsFileWriter};
use crate::tsfile::format::DeviceId;
use crate::tsfile::format::{Column, DeviceBatch};
use crate::{Error, Result};
use std::io::Write;

/// Where a checked, non-empty batch goes.
struct Target {
    device: DeviceId,
    /// For each column of the device's group, the index of the batch column that fills it
    /// (`None`: null in every row).
    columns: Vec<Option<usize>>,
}

impl<W: Write> TsFileWriter<W> {
    /// Writes a batch of rows column by column: `batch.table` names a registered table (the
    /// device comes from `batch.tags` by tag name; missing tags are null) or
    /// `batch.device` a registered tree device. Columns are matched to the schema's FIELD
    /// columns (tree: measurements) by name; absent ones are null. This is the fast path:
    /// values are appended to open pages without going through rows, and the
    /// [`DeviceBatch`]es a [`TsFileReader`](crate::tsfile::TsFileReader) returns can be
    /// written back as they are.
    ///
    /// Errors (nothing of the batch is written): an unknown table or device, a column of the
    /// wrong type or length, or times that do not increase from the device's last time.
    pub fn write_batch(&mut self, batch: &DeviceBatch) -> Result<()> {
        let Some(target) = self.target(batch)? else {
            return Ok(());
        };
        let columns: Vec<Option<&Column>> = (target.columns.iter())
            .map(|i| i.and_then(|i| batch.columns.get(i)))
            .collect();
        let (limits, work) = (self.page_limits(), &mut self.work);
        self.devices
            .get_mut(&target.device)
            .ok_or_else(|| Error::invalid("device vanished"))?
            .group
            .push_columns(&batch.times, &columns, limits, work)?;
        self.rows_written(
            &target.device,
            batch.times.last().copied(),
            batch.times.len(),
        )
    }

    /// [`write_batch`](Self::write_batch), taking the batch: when the device's open page is
    /// empty and the whole batch fits in one page, its buffers become the page's (no copy,
    /// no new memory); otherwise its rows are copied as `write_batch` does. The output is
    /// byte-identical to `write_batch`'s unless the memory threshold flushes chunk groups
    /// before [`finish`](Self::finish): it counts the adopted buffers' capacity, so those
    /// flushes may come at other rows (the rows written are the same).
    pub fn write_batch_owned(&mut self, batch: DeviceBatch) -> Result<()> {
        let Some(target) = self.target(&batch)? else {
            return Ok(());
        };
        let mut pool: Vec<Option<Column>> = batch.columns.into_iter().map(Some).collect();
        let columns: Vec<Option<Column>> = (target.columns.iter())
            .map(|i| i.and_then(|i| pool.get_mut(i).and_then(Option::take)))
            .collect();
        let last = batch.times.last().copied();
        let n = batch.times.len();
        let (limits, work) = (self.page_limits(), &mut self.work);
        self.devices
            .get_mut(&target.device)
            .ok_or_else(|| Error::invalid("device vanished"))?
            .group
            .push_columns_owned(batch.times, columns, limits, work)?;
        self.rows_written(&target.device, last, n)
    }

    /// Checks `batch` against the registered tables and devices and its own shape, and
    /// creates the device's state on first sight. `None` for a batch without rows.
    fn target(&mut self, batch: &DeviceBatch) -> Result<Option<Target>> {
        self.check()?;
        let key = batch.table.to_lowercase();
        let (device, codecs, aligned): (DeviceId, Vec<(String, ColumnCodec)>, bool) =
            if let Some(info) = self.tables.get(&key) {
                let tags = info.tags.iter().map(|&i| {
                    let name = &info.schema.columns.get(i)?.schema.name;
                    batch
                        .tags
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case(name))
                        .and_then(|(_, v)| v.clone())
                });
                let device = DeviceId::from_table(&key, tags)?;
                // Codecs are needed only to create the device's state.
                let codecs = if self.devices.contains_key(&device) {
                    Vec::new()
                } else {
                    info.codecs.clone()
                };
                (device, codecs, true)
            } else if let Some(dev) = (self.tree.get(&batch.device.to_string()))
                .filter(|d| d.id == batch.device)
                // Registered under another spelling of the same path: look through them all.
                .or_else(|| self.tree.values().find(|d| d.id == batch.device))
            {
                let codecs: Vec<(String, ColumnCodec)> = dev
                    .measurements
                    .iter()
                    .map(|m| Ok((m.name.clone(), self.column_codec(m)?)))
                    .collect::<Result<_>>()?;
                (dev.id.clone(), codecs, dev.aligned)
            } else {
                return Err(Error::invalid(format!(
                    "neither table {} nor device {} is registered",
                    batch.table, batch.device
                )));
            };
        let n = batch.times.len();
        let schema_columns: Vec<(&str, &ColumnCodec)> = match self.tables.get(&key) {
            Some(info) => info.codecs.iter().map(|(n, c)| (n.as_str(), c)).collect(),
            None => codecs.iter().map(|(n, c)| (n.as_str(), c)).collect(),
        };
        let mut columns = Vec::with_capacity(schema_columns.len());
        for (name, codec) in schema_columns {
            let found = batch
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name));
            if let Some(c) = found.and_then(|i| batch.columns.get(i)) {
                if c.data_type.physical()? != codec.data_type.physical()? {
                    return Err(Error::schema(format!(
                        "column {name} is {} but the batch holds {}",
                        codec.data_type, c.data_type
                    )));
                }
                c.rows_present(n)?;
            }
            columns.push(found);
        }
        // Every pair checked without an early exit, so that the loop vectorises.
        let increasing = (batch.times.iter().zip(batch.times.iter().skip(1)))
            .fold(true, |ok, (a, b)| ok & (a < b));
        if !increasing {
            return Err(Error::invalid(format!(
                "device {device}: batch times do not increase"
            )));
        }
        if n == 0 {
            return Ok(None);
        }
        let last_time = self.devices.get(&device).and_then(|d| d.last_time);
        if let (Some(last), Some(&first)) = (last_time, batch.times.first()) {
            if first <= last {
                return Err(Error::invalid(format!(
                    "device {device}: time {first} is not after the last time written, {last}"
                )));
            }
        }
        self.ensure_device(&device, |w| {
            let group = if aligned {
                Group::aligned(w.time_codec(true), &codecs)?
            } else {
                Group::non_aligned(w.time_codec(false), &codecs)?
            };
            Ok(new_state(group, &codecs, aligned, w.options.role_masks))
        })?;
        Ok(Some(Target { device, columns }))
    }

    /// Books `n` rows written to `device`, the last at time `last`.
    fn rows_written(&mut self, device: &DeviceId, last: Option<i64>, n: usize) -> Result<()> {
        if let Some(state) = self.devices.get_mut(device) {
            state.last_time = last;
        }
        self.rows += n as u64;
        self.rows_since_check += n as u64;
        self.check_memory()
    }
}
