//! Rows parsed for `colfile write --format tsfile`: a batch of JSON lines (on a worker
//! thread) or of named text cells (CSV records) becomes typed cells, which the writing
//! thread reads back as rows of [`ValueRef`]s, so that no value is allocated on its own.

use crate::json_lines::{recycle, CellBatch, CellReader, LineBatch};
use crate::Failure;
use colfile::tsfile::format::DataType;
use colfile::tsfile::tools::json::{
    row_from_json_line, row_refs_from_json_line, row_refs_from_members, FixedKeys,
};
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

    fn with_capacity(rows: usize, width: usize) -> Self {
        ParsedRows {
            rows: Vec::with_capacity(rows),
            cells: Vec::with_capacity(rows * width),
            bytes: Vec::new(),
        }
    }

    /// Adds row `n`: `row` at time `fast`, or where `fast` is `None`, the row `other()` reads.
    fn push_row(
        &mut self,
        n: usize,
        fast: Option<i64>,
        row: &[ValueRef<'_>],
        other: impl FnOnce() -> Result<(i64, Vec<Value>), Failure>,
    ) -> Result<(), Failure> {
        match fast {
            Some(time) => self.push(n, time, row),
            None => {
                let (time, owned) = other()?;
                let row: Vec<ValueRef<'_>> = owned.iter().map(Value::as_ref).collect();
                self.push(n, time, &row);
            }
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
/// straight into cells (borrowed from the line when no column needs its hex decoded); any
/// other line through `other(line_number, text)` (serde_json), which says why a line is not
/// a row.
pub(crate) fn parse_rows(
    lines: LineBatch,
    names: &[String],
    types: &[DataType],
    other: &impl Fn(usize, &str) -> Result<(i64, Vec<Value>), Failure>,
) -> Result<ParsedRows, Failure> {
    let borrowable = borrowable(types);
    let mut out = ParsedRows::with_capacity(lines.len(), names.len());
    let mut spare = Vec::with_capacity(names.len());
    for (n, text) in lines.lines()? {
        let mut row = recycle(std::mem::take(&mut spare), || ValueRef::Null);
        let fast = borrowable.then(|| row_refs_from_json_line(text, names, types, &mut row));
        // Where the borrowing reader was tried, the owning one refuses the line too.
        let scan = !borrowable;
        out.push_row(n, fast.flatten(), &row, || {
            owned_row(n, text, scan, names, types, other)
        })?;
        spare = recycle(row, || ValueRef::Null);
    }
    Ok(out)
}

/// Parses every row of `batch` as a row of `names` (of `types`) as `reader` reads its
/// cells: rows of plain scalars straight into cells, when no column needs its hex decoded;
/// any other row through its JSON text (the scanner, then `other(row_number, text)`).
pub(crate) fn parse_cells(
    batch: Box<dyn CellBatch>,
    reader: &dyn CellReader,
    names: &[String],
    types: &[DataType],
    other: &impl Fn(usize, &str) -> Result<(i64, Vec<Value>), Failure>,
) -> Result<ParsedRows, Failure> {
    let borrowable = borrowable(types);
    // Every row's cells come under the same names: their columns are found once.
    let keys = FixedKeys::new(reader.names(), names, types);
    let mut out = ParsedRows::with_capacity(batch.len(), names.len());
    let mut spare = Vec::with_capacity(names.len());
    let mut text = String::new();
    batch.for_each_row(&mut |n, cells| {
        let mut row = recycle(std::mem::take(&mut spare), || ValueRef::Null);
        let fast = borrowable.then(|| match &keys {
            Some(k) => k.row_refs(
                |i, t| reader.ts_value(i, cells.get(i).copied()?, t),
                &mut row,
            ),
            None => row_refs_from_members(|m| reader.members(cells, m), names, types, &mut row),
        });
        out.push_row(n, fast.flatten(), &row, || {
            reader.json_line(cells, &mut text);
            owned_row(n, &text, true, names, types, other)
        })?;
        spare = recycle(row, || ValueRef::Null);
        Ok(())
    })?;
    Ok(out)
}

/// The row of the JSON `text` of row `n`: the scanner's (BLOB hex decoded) where `scan` and
/// it reads the text, else `other`'s.
fn owned_row(
    n: usize,
    text: &str,
    scan: bool,
    names: &[String],
    types: &[DataType],
    other: &impl Fn(usize, &str) -> Result<(i64, Vec<Value>), Failure>,
) -> Result<(i64, Vec<Value>), Failure> {
    match scan
        .then(|| row_from_json_line(text, names, types))
        .flatten()
    {
        Some(row) => Ok(row),
        None => other(n, text),
    }
}

/// Whether rows of `types` can borrow every value from their text: no column's bytes are
/// decoded from hex.
fn borrowable(types: &[DataType]) -> bool {
    !types
        .iter()
        .any(|t| matches!(t, DataType::Blob | DataType::Object))
}
