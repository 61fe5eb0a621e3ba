//! JSON lines parsed for `colfile write --format tsfile`: a batch of lines becomes typed
//! cells on a worker thread, which the writing thread reads back as rows of
//! [`ValueRef`]s, so that no value is allocated on its own.

use crate::json_lines::LineBatch;
use crate::Failure;
use colfile::tsfile::format::DataType;
use colfile::tsfile::tools::json::row_refs_from_json_line;
use colfile::tsfile::{Value, ValueRef};

/// One parsed value: a [`Value`] other than bytes (so it owns no allocation), or a span of
/// its batch's `bytes`.
enum Cell {
    Value(Value),
    Bytes(usize, usize),
}

/// A parsed batch of lines: each row's input line and time, its cells (one per column,
/// row after row), and the bytes of its strings.
pub(crate) struct ParsedRows {
    rows: Vec<(usize, i64)>,
    cells: Vec<Cell>,
    bytes: Vec<u8>,
}

impl ParsedRows {
    /// Gives each row to `each(line, time, values)`, in order; the first failure stops it.
    pub fn each_row(
        &self,
        mut each: impl FnMut(usize, i64, &[ValueRef<'_>]) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let width = self.cells.len().checked_div(self.rows.len()).unwrap_or(0);
        let mut row = Vec::with_capacity(width);
        for (i, &(line, time)) in self.rows.iter().enumerate() {
            let cells = self
                .cells
                .get(i * width..(i + 1) * width)
                .unwrap_or_default();
            row.clear();
            row.extend(cells.iter().map(|c| match *c {
                Cell::Value(ref v) => v.as_ref(),
                Cell::Bytes(start, end) => {
                    ValueRef::Binary(self.bytes.get(start..end).unwrap_or_default())
                }
            }));
            each(line, time, &row)?;
        }
        Ok(())
    }

    fn push(&mut self, line: usize, time: i64, row: &[ValueRef<'_>]) {
        self.rows.push((line, time));
        for v in row {
            self.cells.push(match *v {
                ValueRef::Binary(b) => {
                    let start = self.bytes.len();
                    self.bytes.extend_from_slice(b);
                    Cell::Bytes(start, self.bytes.len())
                }
                other => Cell::Value(other.to_owned()),
            });
        }
    }
}

/// Parses every line of `lines` as a row of `names` (of `types`): flat rows of scalars
/// straight into cells, when no column needs its hex decoded; any other line through
/// `other(line_number, text)`, which says why a line is not a row.
pub(crate) fn parse_rows(
    lines: LineBatch,
    names: &[String],
    types: &[DataType],
    other: &impl Fn(usize, &str) -> Result<(i64, Vec<Value>), Failure>,
) -> Result<ParsedRows, Failure> {
    let borrowable = !types
        .iter()
        .any(|t| matches!(t, DataType::Blob | DataType::Object));
    let mut out = ParsedRows {
        rows: Vec::with_capacity(lines.len()),
        cells: Vec::with_capacity(lines.len() * names.len()),
        bytes: Vec::new(),
    };
    let mut spare = Vec::with_capacity(names.len());
    for (n, text) in lines.lines() {
        let mut row = recycle(std::mem::take(&mut spare));
        let owned;
        let time = match borrowable
            .then(|| row_refs_from_json_line(text, names, types, &mut row))
            .flatten()
        {
            Some(t) => t,
            None => {
                let t;
                (t, owned) = other(n, text)?;
                row.clear();
                row.extend(owned.iter().map(Value::as_ref));
                t
            }
        };
        out.push(n, time, &row);
        spare = recycle(row);
    }
    Ok(out)
}

/// `row` emptied, its room kept for values that borrow other text: a row of values taken
/// from each input line, without an allocation per line. (The standard library collects a
/// `Vec`'s own iterator into the same allocation when the items have the same size.)
fn recycle<'b>(mut row: Vec<ValueRef<'_>>) -> Vec<ValueRef<'b>> {
    row.clear();
    row.into_iter().map(|_| ValueRef::Null).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recycled_row_keeps_its_room() {
        let text = String::from("abc");
        let mut row = Vec::with_capacity(9);
        row.push(ValueRef::Binary(text.as_bytes()));
        let (ptr, cap) = (row.as_ptr() as usize, row.capacity());
        let again: Vec<ValueRef<'static>> = recycle(row);
        drop(text);
        assert!(again.is_empty());
        assert_eq!((again.as_ptr() as usize, again.capacity()), (ptr, cap));
    }
}
