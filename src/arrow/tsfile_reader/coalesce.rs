//! Joining and cutting [`DeviceBatch`]es of one device, so that Arrow batches are full: the
//! plain reader returns a chunk's (or a page's) rows at a time, often fewer than the batch
//! size asked for.

use crate::tsfile::{Column, DeviceBatch, Values};
use crate::{Error, Result};

/// How many of a column's packed values belong to its first `rows` rows.
fn values_in(c: &Column, rows: usize) -> usize {
    if c.present.is_empty() {
        rows
    } else {
        c.present.iter().take(rows).filter(|&&p| p).count()
    }
}

/// The presence flags of `c` over `rows` rows, spelt out.
fn flags(c: &Column, rows: usize) -> Vec<bool> {
    if c.present.is_empty() {
        vec![true; rows]
    } else {
        c.present.clone()
    }
}

/// Appends the rows of `tail` (the same device, later rows, the same columns) to `head`.
pub(super) fn append(head: &mut DeviceBatch, tail: &DeviceBatch) -> Result<()> {
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

/// Cuts `batch` after its first `rows` rows: `batch` keeps them, the rest is returned.
pub(super) fn split(batch: &mut DeviceBatch, rows: usize) -> Result<DeviceBatch> {
    let rows = rows.min(batch.len());
    let times = batch.times.split_off(rows);
    let mut columns = Vec::with_capacity(batch.columns.len());
    for c in &mut batch.columns {
        let k = values_in(c, rows);
        let total = c.values.len();
        let mut head = Values::for_type(c.data_type)?;
        let mut tail = Values::for_type(c.data_type)?;
        head.extend_from(&c.values, 0..k)?;
        tail.extend_from(&c.values, k..total)?;
        let present = if c.present.is_empty() {
            Vec::new()
        } else {
            c.present.split_off(rows.min(c.present.len()))
        };
        c.values = head;
        columns.push(Column {
            name: c.name.clone(),
            data_type: c.data_type,
            values: tail,
            present,
        });
    }
    Ok(DeviceBatch {
        table: batch.table.clone(),
        device: batch.device.clone(),
        tags: batch.tags.clone(),
        times,
        columns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::format::{DataType, DeviceId};

    fn batch(times: Vec<i64>, values: Vec<i64>, present: Vec<bool>) -> DeviceBatch {
        DeviceBatch {
            table: "t".into(),
            device: DeviceId::from_table("t", [Some("a")]).unwrap(),
            tags: vec![("k".into(), Some("a".into()))],
            times,
            columns: vec![Column {
                name: "v".into(),
                data_type: DataType::Int64,
                values: Values::Int64(values),
                present,
            }],
        }
    }

    #[test]
    fn split_then_append_gives_the_batch_back() {
        let whole = batch(
            vec![1, 2, 3, 4],
            vec![10, 40],
            vec![true, false, false, true],
        );
        for k in 0..=4 {
            let mut head = whole.clone();
            let tail = split(&mut head, k).unwrap();
            assert_eq!((head.len(), tail.len()), (k, 4 - k));
            append(&mut head, &tail).unwrap();
            assert_eq!(head, whole, "cut at {k}");
        }
        let mut dense = batch(vec![1, 2], vec![5, 6], vec![]);
        let tail = split(&mut dense, 1).unwrap();
        assert_eq!(tail.columns[0].values, Values::Int64(vec![6]));
        assert!(tail.columns[0].present.is_empty());
        let mut sparse = batch(vec![3], vec![], vec![false]);
        append(&mut dense, &tail).unwrap();
        append(&mut dense, &sparse.clone()).unwrap();
        assert_eq!(dense.columns[0].present, [true, true, false]);
        sparse.columns[0].name = "w".into();
        assert!(append(&mut dense, &sparse).is_err());
    }
}
