//! A CSV record as the JSON object of its row: each cell's JSON value by its column's kind
//! ([`CellKind`]), written as the object's text, or handed over as plain scalars for the
//! TsFile writer to read without that text.

use crate::json_lines::CellReader;
use colfile::json_scan::Scalar;
use colfile::tsfile::format::DataType;
use colfile::tsfile::tools::json::from_scalar_ref;
use colfile::tsfile::ValueRef;
use serde_json::Value as Json;

/// How a CSV cell of a column reads as JSON.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum CellKind {
    /// The cell's text is the value (strings, dates, timestamps, hex).
    Text,
    /// The cell is JSON (numbers, booleans, complex values), or else text (`NaN`).
    Json,
}

/// The cells of records under a header of distinct names, read as JSON objects.
#[derive(Clone)]
pub(super) struct CsvCells {
    names: Vec<String>,
    /// Each name as a JSON string.
    keys: Vec<String>,
    kinds: Vec<CellKind>,
    /// The text of a null cell (`--null`).
    null: String,
}

impl CsvCells {
    /// Cells of columns `names` (of `kinds`); `None` when a name repeats (the object then
    /// keeps one of them, which serde_json's `Map` decides).
    pub(super) fn new(names: &[String], kinds: &[CellKind], null: &str) -> Option<Self> {
        let distinct = names.iter().collect::<std::collections::HashSet<_>>().len();
        (distinct == names.len()).then(|| CsvCells {
            names: names.to_vec(),
            keys: names
                .iter()
                .map(|h| Json::String(h.clone()).to_string())
                .collect(),
            kinds: kinds.to_vec(),
            null: null.to_string(),
        })
    }

    /// The record's JSON object line, written straight as text: keys in header order, each
    /// cell as [`cell_json`] spells it.
    pub(super) fn write_object<'c>(&self, cells: impl Iterator<Item = &'c str>, line: &mut String) {
        line.clear();
        line.push('{');
        for (((cell, key), kind), i) in cells.zip(&self.keys).zip(&self.kinds).zip(0..) {
            if i > 0 {
                line.push(',');
            }
            line.push_str(key);
            line.push(':');
            cell_json(cell, *kind, cell == self.null, line);
        }
        line.push('}');
    }
}

impl CellReader for CsvCells {
    fn members<'s>(
        &'s self,
        cells: &[&'s str],
        m: &mut dyn FnMut(&'s str, Scalar<'s>) -> Option<()>,
    ) -> Option<()> {
        for ((cell, name), kind) in cells.iter().zip(&self.names).zip(&self.kinds) {
            m(name, plain_scalar(cell, *kind, *cell == self.null)?)?;
        }
        Some(())
    }

    fn json_line(&self, cells: &[&str], line: &mut String) {
        self.write_object(cells.iter().copied(), line);
    }

    fn names(&self) -> &[String] {
        &self.names
    }

    #[inline]
    fn ts_value<'s>(&self, i: usize, cell: &'s str, data_type: DataType) -> Option<ValueRef<'s>> {
        let kind = *self.kinds.get(i)?;
        from_scalar_ref(data_type, plain_scalar(cell, kind, cell == self.null)?)
    }
}

/// A CSV cell as a JSON value: null for the null marker; a text column's cell as a string;
/// another column's cell as the JSON value it spells if it spells one that is not a
/// string, else as a string.
pub(super) fn cell_value(cell: &str, kind: CellKind, null: bool) -> Json {
    match kind {
        _ if null => Json::Null,
        CellKind::Text => Json::String(cell.to_owned()),
        CellKind::Json => match serde_json::from_str::<Json>(cell) {
            Ok(j) if !j.is_string() => j,
            _ => Json::String(cell.to_owned()),
        },
    }
}

/// Appends the JSON text of [`cell_value`] without building it where the text is plain: a
/// number, `true`, `false` or `null` copied as it is (it reads back as the same value; `-0`,
/// which serde_json spells `0`, is not plain), a text cell as a string.
fn cell_json(cell: &str, kind: CellKind, null: bool, out: &mut String) {
    match plain_scalar(cell, kind, null) {
        Some(Scalar::Null) => out.push_str("null"),
        Some(Scalar::Str(s)) => colfile::json_text::write_str(out, s),
        Some(_) => out.push_str(cell),
        None => out.push_str(&cell_value(cell, kind, null).to_string()),
    }
}

/// The JSON scalar [`cell_value`] is, where [`cell_json`] need not build it: null for the
/// null marker, a text cell's string, or a number, `true`, `false` or `null` written as
/// it reads (not `-0`, which serde_json spells `0`); `None` for any other cell.
#[inline]
fn plain_scalar(cell: &str, kind: CellKind, null: bool) -> Option<Scalar<'_>> {
    if null {
        return Some(Scalar::Null);
    }
    if kind == CellKind::Text {
        return Some(Scalar::Str(cell));
    }
    match colfile::json_scan::scan_scalar(cell)? {
        s @ (Scalar::Number(_) | Scalar::Bool(_) | Scalar::Null) if cell != "-0" => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_spelled_as_the_map_path_spells_them_or_read_back_the_same() {
        let cells = [
            "",
            "0",
            "-0",
            "-0.0",
            "7",
            "-12",
            "007",
            "1.",
            ".5",
            "20.30",
            "1e3",
            "1E+03",
            "-2.5e-7",
            "12345678901234567890123",
            "true",
            "false",
            "null",
            "NaN",
            "inf",
            "x",
            "a\"b",
            "c\\d",
            "tab\there",
            "é",
            " 1",
            "1 ",
            "[1,2]",
            "{\"a\":1}",
            "\"q\"",
            "0x10",
            "+1",
            "--1",
        ];
        for cell in cells {
            for kind in [CellKind::Text, CellKind::Json] {
                for null in [false, true] {
                    let mut fast = String::new();
                    cell_json(cell, kind, null, &mut fast);
                    let slow = cell_value(cell, kind, null).to_string();
                    let (f, s): (Json, Json) = (
                        serde_json::from_str(&fast).unwrap(),
                        serde_json::from_str(&slow).unwrap(),
                    );
                    let same = f == s
                        || f.as_f64()
                            .zip(s.as_f64())
                            .is_some_and(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "{cell:?}: {fast} vs {slow}");
                    // A plain scalar is what the text reads as.
                    match plain_scalar(cell, kind, null) {
                        Some(Scalar::Str(s)) => assert_eq!(f, Json::String(s.into())),
                        Some(p) => assert_eq!(colfile::json_scan::scan_scalar(&fast), Some(p)),
                        None => assert_eq!((kind, null), (CellKind::Json, false), "{cell:?}"),
                    }
                }
            }
        }
    }
}
