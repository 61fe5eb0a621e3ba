//! CSV and JSONL input: lines of a file or stdin; typed by `--schema` when it is a Hive
//! schema (each value read as `write` reads it, printed as `cat` prints it), CSV cells read
//! as JSON by their column's type.

use super::csv::CsvReader;
use super::csv_cells::{cell_value, CellKind, CsvCells};
use super::sources::{model_columns, schema_model, HiveLines, Model, Source};
use super::ConvertArgs;
use crate::json_lines::{CellBatch, CellReader, CellRows};
use crate::Failure;
use colfile::rcfile::{HiveType, Schema};
use colfile::tsfile::format::DataType;
use serde_json::{Map, Value as Json};
use std::io::BufRead;

/// A text input: the file or stdin, with the bytes read so far.
pub(super) struct TextInput {
    pub(super) input: Box<dyn BufRead>,
    pub(super) consumed: u64,
    pub(super) total: Option<u64>,
    pub(super) name: String,
}

impl TextInput {
    fn open(a: &ConvertArgs) -> Result<Self, Failure> {
        let (input, total): (Box<dyn BufRead>, _) = if a.input.as_os_str() == "-" {
            (
                Box::new(std::io::BufReader::with_capacity(1 << 20, std::io::stdin())),
                None,
            )
        } else {
            let f =
                std::fs::File::open(&a.input).map_err(|e| Failure::from(e).context(&a.input))?;
            let len = f.metadata().ok().map(|m| m.len());
            (Box::new(std::io::BufReader::with_capacity(1 << 20, f)), len)
        };
        Ok(TextInput {
            input,
            consumed: 0,
            total,
            name: a.input.display().to_string(),
        })
    }

    /// The next line (without its line break); false at the end.
    pub(super) fn read_line(&mut self, line: &mut String) -> Result<bool, Failure> {
        line.clear();
        let n = self
            .input
            .read_line(line)
            .map_err(|e| Failure::input(format!("{}: {e}", self.name)))?;
        self.consumed += n as u64;
        while line.ends_with(['\n', '\r']) {
            line.pop();
        }
        Ok(n > 0)
    }
}

pub(super) struct JsonlSource {
    hive: Option<HiveRetype>,
    scratch: String,
    text: TextInput,
    /// A line read ahead (the first, for the keys of an untyped input).
    ahead: Option<String>,
    line_no: u64,
    columns: Vec<String>,
    model: Model,
}

impl JsonlSource {
    pub(super) fn open(a: &ConvertArgs, csv: bool) -> Result<Self, Failure> {
        let model = schema_model(a)?;
        let mut s = JsonlSource {
            hive: HiveRetype::of(&model, csv, &a.read.csv),
            scratch: String::new(),
            text: TextInput::open(a)?,
            ahead: None,
            line_no: 0,
            columns: Vec::new(),
            model,
        };
        s.columns = model_columns(&s.model);
        if matches!(s.model, Model::Untyped) {
            let mut first = String::new();
            if s.next_line(&mut first)? {
                if let Ok(Json::Object(m)) = serde_json::from_str::<Json>(&first) {
                    s.columns = m.keys().cloned().collect();
                }
                s.ahead = Some(first);
            }
        }
        Ok(s)
    }
}

impl Source for JsonlSource {
    fn next_line(&mut self, line: &mut String) -> Result<bool, Failure> {
        if let Some(l) = self.ahead.take() {
            *line = l;
            return Ok(true);
        }
        loop {
            if !self.text.read_line(&mut self.scratch)? {
                return Ok(false);
            }
            self.line_no += 1;
            if self.scratch.trim().is_empty() {
                continue;
            }
            let Some(h) = &mut self.hive else {
                std::mem::swap(line, &mut self.scratch);
                return Ok(true);
            };
            let at = |m: String| {
                Failure::input(format!("{}: line {}: {m}", self.text.name, self.line_no))
            };
            let j: Json = serde_json::from_str(&self.scratch)
                .map_err(|e| at(format!("invalid JSON: {e}")))?;
            h.line(&j, line).map_err(at)?;
            return Ok(true);
        }
    }
    fn consumed(&self) -> Option<u64> {
        Some(self.text.consumed)
    }
    fn total(&self) -> Option<u64> {
        self.text.total
    }
    fn columns(&self) -> &[String] {
        &self.columns
    }
    fn model(&self) -> &Model {
        &self.model
    }
    fn csv(&self) -> bool {
        self.hive.as_ref().is_some_and(|h| h.lines.csv())
    }
    fn fixed_keys(&self) -> bool {
        true
    }
}

/// Text rows retyped by a Hive schema, as `cat` prints them: each value read as `write`
/// reads it, then printed as `cat` prints it. (Not `pipe::HiveRows`, which yields the
/// values themselves.)
struct HiveRetype {
    schema: Schema,
    lines: HiveLines,
}

impl HiveRetype {
    fn of(m: &Model, csv: bool, opts: &crate::csv_opts::CsvOptions) -> Option<HiveRetype> {
        match m {
            Model::Hive(s) => Some(HiveRetype {
                schema: s.clone(),
                lines: HiveLines::new(s, csv.then(|| opts.line_writer())),
            }),
            _ => None,
        }
    }

    fn line(&mut self, j: &Json, line: &mut String) -> Result<(), String> {
        let row =
            colfile::rcfile::json::row_from_json(&self.schema, j).map_err(|e| e.to_string())?;
        self.lines.render(&row, line).map_err(|f| f.message)
    }
}

pub(super) struct CsvSource {
    hive: Option<HiveRetype>,
    csv: CsvReader,
    /// The input's header, and the output rows' keys (the schema's columns when typed).
    header: Vec<String>,
    columns: Vec<String>,
    kinds: Vec<CellKind>,
    model: Model,
    /// The records as JSON objects, when the header's names are distinct (a repeated name
    /// keeps one key, which the `Map` path decides).
    plain: Option<CsvCells>,
    /// Records read so far.
    rows: usize,
}

impl CsvSource {
    /// The CSV input of `a`; with `retype`, rows of a Hive `--schema` are read with it and
    /// written as `cat` prints them (CSV when `to_csv`).
    pub(super) fn open(a: &ConvertArgs, to_csv: bool, retype: bool) -> Result<Self, Failure> {
        let model = schema_model(a)?;
        let mut csv = CsvReader::new(TextInput::open(a)?, &a.read.csv);
        let mut header = Vec::new();
        if !a.read.csv.header || !csv.next_record(&mut header)? {
            header = model_columns(&model);
        }
        if header.is_empty() {
            return Err(Failure::usage(format!(
                "{}: --no-header needs --schema to name the CSV columns",
                a.input.display()
            )));
        }
        let kinds: Vec<CellKind> = header
            .iter()
            .map(|n| cell_kind(&model, n))
            .collect::<Result<_, _>>()?;
        let hive = HiveRetype::of(&model, to_csv, &a.read.csv).filter(|_| retype);
        let columns = match &hive {
            Some(h) => h.lines.names().to_vec(),
            None => header.clone(),
        };
        let plain = CsvCells::new(&header, &kinds, a.read.csv.null.as_str());
        Ok(CsvSource {
            plain,
            rows: 0,
            hive,
            csv,
            header,
            columns,
            kinds,
            model,
        })
    }
}

fn cell_kind(m: &Model, name: &str) -> Result<CellKind, Failure> {
    let unknown = || Failure::input(format!("CSV column {name:?} is not in --schema"));
    Ok(match m {
        Model::Untyped => CellKind::Text,
        Model::Hive(s) => {
            let c = s.index_of(name).and_then(|i| s.columns().get(i));
            match c.map(|c| &c.ty).ok_or_else(unknown)? {
                HiveType::String
                | HiveType::Varchar(_)
                | HiveType::Char(_)
                | HiveType::Binary
                | HiveType::Date
                | HiveType::Timestamp => CellKind::Text,
                _ => CellKind::Json,
            }
        }
        Model::Ts { columns, .. } => match name {
            "table" | "device" => CellKind::Text,
            "time" => CellKind::Json,
            _ => {
                let c = columns
                    .iter()
                    .find(|c| c.schema.name.eq_ignore_ascii_case(name))
                    .ok_or_else(unknown)?;
                match c.schema.data_type {
                    DataType::Text
                    | DataType::String
                    | DataType::Blob
                    | DataType::Object
                    | DataType::Date => CellKind::Text,
                    _ => CellKind::Json,
                }
            }
        },
    })
}

/// The records as rows of cells for the TsFile writer, when each is the JSON object of its
/// cells under the header's names (see [`Source::as_cells`]).
impl CellRows for CsvSource {
    fn next_batch(&mut self) -> Result<Option<Box<dyn CellBatch>>, Failure> {
        let Some(run) = self.csv.next_run(self.header.len(), self.rows + 1)? else {
            return Ok(None);
        };
        self.rows += run.len();
        Ok(Some(Box::new(run)))
    }

    fn consumed(&self) -> Option<u64> {
        Some(self.csv.consumed())
    }
}

impl Source for CsvSource {
    fn next_line(&mut self, line: &mut String) -> Result<bool, Failure> {
        if !self.csv.read_row(self.header.len())? {
            return Ok(false);
        }
        if let (None, Some(p)) = (&self.hive, &self.plain) {
            p.write_object(self.csv.fields().iter(), line);
            return Ok(true);
        }
        let mut m = Map::new();
        let cells = self.csv.fields().iter().zip(&self.header).zip(&self.kinds);
        for ((cell, name), kind) in cells {
            m.insert(
                name.clone(),
                cell_value(cell, *kind, self.csv.is_null(cell)),
            );
        }
        let j = Json::Object(m);
        let result = match &mut self.hive {
            Some(h) => h.line(&j, line),
            None => {
                *line = j.to_string();
                Ok(())
            }
        };
        result.map_err(|e| self.csv.error(e))?;
        Ok(true)
    }
    fn consumed(&self) -> Option<u64> {
        Some(self.csv.consumed())
    }
    fn total(&self) -> Option<u64> {
        self.csv.total()
    }
    fn columns(&self) -> &[String] {
        &self.columns
    }
    fn model(&self) -> &Model {
        &self.model
    }
    fn csv(&self) -> bool {
        self.hive.as_ref().is_some_and(|h| h.lines.csv())
    }
    fn fixed_keys(&self) -> bool {
        true
    }

    fn as_cells(&mut self) -> Option<(Box<dyn CellReader>, &mut dyn CellRows)> {
        // Records that are not written as plain objects (Hive-typed, repeated names) are not.
        let reader = self.plain.clone().filter(|_| self.hive.is_none())?;
        Some((Box::new(reader), self))
    }
}
