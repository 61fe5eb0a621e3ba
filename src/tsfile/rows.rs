//! Row selection inside a [`DeviceBatch`]: the time range and a [`Filter`] evaluated row by
//! row, keeping a subset of rows, and cutting a batch in two.

use super::batch::DeviceBatch;
use super::column::Values;
use super::filter::{matches, Filter};
use super::value::ValueRef;
use crate::Result;

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

/// Splits `batch` after its first `n` rows: `batch` keeps them, the rest is returned.
pub fn split_rows(batch: &mut DeviceBatch, n: usize) -> Result<DeviceBatch> {
    let len = batch.len();
    let mut tail = batch.clone();
    let head_mask: Vec<bool> = (0..len).map(|i| i < n).collect();
    let tail_mask: Vec<bool> = head_mask.iter().map(|k| !k).collect();
    retain_rows(batch, &head_mask)?;
    retain_rows(&mut tail, &tail_mask)?;
    Ok(tail)
}
