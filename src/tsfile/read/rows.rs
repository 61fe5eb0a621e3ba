//! Row selection inside a [`DeviceBatch`]: the time range and a [`Filter`] evaluated row by
//! row, keeping a subset of rows, cutting a batch in two and joining two of one device.

use super::filter::{matches, Filter};
use crate::tsfile::format::batch::{Column, DeviceBatch};
use crate::tsfile::format::value::ValueRef;
use crate::tsfile::format::values::Values;
use crate::{Error, Result};

/// Which rows of `batch` pass the time range `start..=end` and `filter`. `tags` are the
/// device's tag values (all of them, selected or not); the filter's FIELD columns must be
/// among the batch's columns.
pub fn row_mask(
    batch: &DeviceBatch,
    (start, end): (i64, i64),
    filter: Option<&Filter>,
    tags: &[(String, Option<String>)],
) -> Vec<bool> {
    let mut keep: Vec<bool> = batch
        .times
        .iter()
        .map(|t| (start..=end).contains(t))
        .collect();
    let Some(f) = filter else { return keep };
    let cols = f.columns();
    let mut cursors: Vec<_> = cols
        .iter()
        .map(|c| {
            batch
                .columns
                .iter()
                .find(|x| x.name == *c)
                .map(|x| x.cursor())
        })
        .collect();
    let mut row: Vec<ValueRef<'_>> = vec![ValueRef::Null; cols.len()];
    for k in keep.iter_mut() {
        for (v, c) in row.iter_mut().zip(cursors.iter_mut()) {
            *v = c.as_mut().map_or(ValueRef::Null, |c| c.next_value());
        }
        if !*k {
            continue;
        }
        *k = matches(f, &mut |name| {
            if let Some(i) = cols.iter().position(|c| *c == name) {
                if let (Some(Some(_)), Some(&v)) = (cursors.get(i), row.get(i)) {
                    return v;
                }
            }
            match tags.iter().find(|(n, _)| n == name) {
                Some((_, Some(v))) => ValueRef::Binary(v.as_bytes()),
                _ => ValueRef::Null,
            }
        });
    }
    keep
}

/// A query's offset and limit over a stream of batches: the rows still to skip and those
/// taken so far.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    to_skip: u64,
    limit: Option<u64>,
    taken: u64,
}

impl Window {
    /// Skip `offset` rows, then take at most `limit`.
    pub fn new(offset: u64, limit: Option<u64>) -> Self {
        Window {
            to_skip: offset,
            limit,
            taken: 0,
        }
    }

    /// `b` with the offset and the limit applied; `None` when nothing of it is left.
    pub fn cut(&mut self, mut b: DeviceBatch) -> Result<Option<DeviceBatch>> {
        let len = b.len() as u64;
        if self.to_skip >= len {
            self.to_skip -= len;
            return Ok(None);
        }
        if self.to_skip > 0 {
            let keep: Vec<bool> = (0..len).map(|i| i >= self.to_skip).collect();
            retain_rows(&mut b, &keep)?;
            self.to_skip = 0;
        }
        if let Some(limit) = self.limit {
            let left = limit.saturating_sub(self.taken);
            if (b.len() as u64) > left {
                split_rows(&mut b, left as usize)?;
            }
        }
        self.taken += b.len() as u64;
        Ok((!b.is_empty()).then_some(b))
    }

    /// Whether the limit has been reached.
    pub fn full(&self) -> bool {
        self.limit.is_some_and(|l| self.taken >= l)
    }
}

/// Keeps the rows of `batch` whose flag in `keep` is set.
pub fn retain_rows(batch: &mut DeviceBatch, keep: &[bool]) -> Result<()> {
    if keep.iter().all(|&k| k) {
        return Ok(());
    }
    let mut k = keep.iter();
    batch.times.retain(|_| k.next().copied().unwrap_or(false));
    for col in &mut batch.columns {
        let mut values = Values::for_type(col.data_type)?;
        let mut present = Vec::with_capacity(batch.times.len());
        let mut cur = col.cursor();
        for &k in keep {
            let v = cur.next_value();
            if k {
                let null = matches!(v, ValueRef::Null);
                present.push(!null);
                if !null {
                    values.push(v)?;
                }
            }
        }
        col.values = values;
        col.present = present;
    }
    Ok(())
}

/// Splits `batch` after its first `n` rows: `batch` keeps them, the rest is returned. Each
/// column's values are moved as one slice (no per-value work), so cutting a long chunk into
/// batches costs a copy of what follows each cut.
pub fn split_rows(batch: &mut DeviceBatch, n: usize) -> Result<DeviceBatch> {
    let n = n.min(batch.len());
    let mut tail = DeviceBatch {
        table: batch.table.clone(),
        device: batch.device.clone(),
        tags: batch.tags.clone(),
        times: batch.times.split_off(n),
        columns: Vec::with_capacity(batch.columns.len()),
    };
    for col in &mut batch.columns {
        let (k, present) = if col.present.is_empty() {
            (n.min(col.values.len()), Vec::new())
        } else {
            let head = col.present.get(..n).unwrap_or(&col.present);
            (
                head.iter().filter(|p| **p).count(),
                col.present.split_off(n.min(col.present.len())),
            )
        };
        let mut values = Values::for_type(col.data_type)?;
        values.extend_from(&col.values, k..col.values.len())?;
        col.values.truncate(k);
        tail.columns.push(Column {
            name: col.name.clone(),
            data_type: col.data_type,
            values,
            present,
        });
    }
    Ok(tail)
}

/// The presence flags of `c` over `rows` rows, spelt out (an empty mask means all present).
fn flags(c: &Column, rows: usize) -> Vec<bool> {
    if c.present.is_empty() {
        vec![true; rows]
    } else {
        c.present.clone()
    }
}

/// Appends the rows of `tail` (the same device, later rows, the same columns) to `head`.
pub fn append_rows(head: &mut DeviceBatch, tail: &DeviceBatch) -> Result<()> {
    if head.columns.len() != tail.columns.len() {
        return Err(Error::invalid(
            "batches of one device with different columns",
        ));
    }
    let (n, m) = (head.len(), tail.len());
    for (a, b) in head.columns.iter_mut().zip(&tail.columns) {
        if a.name != b.name || a.data_type != b.data_type {
            return Err(Error::invalid(format!(
                "batches of one device with columns {} and {}",
                a.name, b.name
            )));
        }
        a.values.extend_from(&b.values, 0..b.values.len())?;
        if !(a.present.is_empty() && b.present.is_empty()) {
            let mut p = flags(a, n);
            p.extend(flags(b, m));
            a.present = p;
        }
    }
    head.times.extend_from_slice(&tail.times);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::format::{DataType, DeviceId};

    fn batch(rows: usize) -> DeviceBatch {
        let mut ints = Column::new("i", DataType::Int64).unwrap();
        let mut text = Column::new("s", DataType::String).unwrap();
        for r in 0..rows {
            ints.values.push(ValueRef::Int64(r as i64 * 3)).unwrap();
            if r % 3 != 1 {
                text.values
                    .push(ValueRef::Binary(format!("v{r}").as_bytes()))
                    .unwrap();
            }
            text.present.push(r % 3 != 1);
        }
        DeviceBatch {
            table: "t".into(),
            device: DeviceId::from_table("t", [Some("d")]).unwrap(),
            tags: vec![("tag".into(), Some("d".into()))],
            times: (0..rows as i64).collect(),
            columns: vec![ints, text],
        }
    }

    /// Every row's values, as the cursor yields them.
    fn rows(b: &DeviceBatch) -> Vec<Vec<String>> {
        let mut cursors: Vec<_> = b.columns.iter().map(Column::cursor).collect();
        b.times
            .iter()
            .map(|t| {
                let mut row = vec![t.to_string()];
                row.extend(cursors.iter_mut().map(|c| format!("{:?}", c.next_value())));
                row
            })
            .collect()
    }

    #[test]
    fn split_keeps_every_row_once_in_order() {
        for len in [0usize, 1, 2, 7] {
            for n in 0..=len + 1 {
                let whole = batch(len);
                let mut head = whole.clone();
                let tail = split_rows(&mut head, n).unwrap();
                assert_eq!(head.len(), n.min(len));
                assert_eq!(tail.len(), len - n.min(len));
                let mut joined = rows(&head);
                joined.extend(rows(&tail));
                assert_eq!(joined, rows(&whole), "len {len} split at {n}");
            }
        }
    }

    #[test]
    fn split_then_append_gives_the_batch_back() {
        let whole = batch(7);
        for k in 0..=7 {
            let mut head = whole.clone();
            let tail = split_rows(&mut head, k).unwrap();
            append_rows(&mut head, &tail).unwrap();
            assert_eq!(head, whole, "cut at {k}");
        }
        let mut dense = batch(2);
        dense.columns[1].present.clear();
        dense.columns[1].values = Values::for_type(DataType::String).unwrap();
        dense.columns[1].values.push(ValueRef::Binary(b"a")).unwrap();
        dense.columns[1].values.push(ValueRef::Binary(b"b")).unwrap();
        let sparse = batch(2);
        append_rows(&mut dense, &sparse).unwrap();
        assert_eq!(dense.columns[1].present, [true, true, true, false]);
        let mut other = batch(1);
        other.columns[0].name = "w".into();
        assert!(append_rows(&mut dense, &other).is_err());
        other.columns.pop();
        assert!(append_rows(&mut dense, &other).is_err());
    }
}
