//! The rows of `convert`'s input, one JSON object line each as `cat` prints them (or its CSV
//! record, for CSV output): RCFile and TsFile through `cat`'s own row code; CSV and JSONL in
//! text.rs.

use super::{ConvertArgs, Fmt};
use crate::csv_opts::CsvLine;
use crate::input::Input;
use crate::Failure;
use colfile::rcfile::{HiveType, RowReader, Schema, Value};
use colfile::tsfile::format::schema::TableColumn;
use colfile::tsfile::format::ColumnCategory;
use colfile::tsfile::writer::Profile;
use colfile::tsfile::{DeviceBatch, Query, QueryStream, TsFileReader, ValueRef};
use std::collections::VecDeque;
use std::sync::Arc;

/// What the rows hold, for deriving the output's schema.
pub enum Model {
    /// Columns of these Hive types, keyed by name.
    Hive(Schema),
    /// A TsFile table: `"table"`, `"time"` and these (non-time) columns; `all`: every
    /// column of the input's table (attributes too, which rows do not show), for a TsFile
    /// output of the whole table.
    Ts {
        table: String,
        columns: Vec<TableColumn>,
        all: Option<Vec<TableColumn>>,
    },
    /// Unknown types (JSONL or CSV without `--schema`, tree-model or several TsFile tables).
    Untyped,
}

pub trait Source {
    /// The next row as a JSON object (no line break) in `line`; false at the end.
    fn next_line(&mut self, line: &mut String) -> Result<bool, Failure>;
    /// Input bytes consumed so far, when known.
    fn consumed(&self) -> Option<u64>;
    /// The input's size in bytes, when known.
    fn total(&self) -> Option<u64>;
    /// The rows' keys in order (the CSV header).
    fn columns(&self) -> &[String];
    fn model(&self) -> &Model;
    /// Whether `next_line` gives CSV records (`cat --format csv`'s) instead of JSON.
    fn csv(&self) -> bool;
    /// Whether every line has exactly the keys of [`columns`](Self::columns).
    fn fixed_keys(&self) -> bool {
        false
    }
    /// The rows as named cells that the TsFile writer reads without their JSON text, and
    /// how their cells read, where the source has them (CSV records, each line the object
    /// of its cells).
    fn as_cells(
        &mut self,
    ) -> Option<(
        Box<dyn crate::json_lines::CellReader>,
        &mut dyn crate::json_lines::CellRows,
    )> {
        None
    }
}

/// Hive rows as `cat` prints them: a JSON object line, or a CSV record.
pub struct HiveLines {
    names: Vec<String>,
    types: Vec<HiveType>,
    csv: Option<CsvLine>,
    cell: String,
    /// Raw cells (no `--schema`): string values shown as escaped text.
    raw: Option<Vec<Value>>,
}

impl HiveLines {
    /// Lines of rows of `schema`'s columns, as CSV records when `csv` is given.
    pub fn new(schema: &Schema, csv: Option<CsvLine>) -> Self {
        HiveLines {
            names: schema.columns().iter().map(|c| c.name.clone()).collect(),
            types: schema.columns().iter().map(|c| c.ty.clone()).collect(),
            csv,
            cell: String::new(),
            raw: None,
        }
    }
    /// Shows string cells as escaped text (see [`crate::raw_text`]): for the raw cells of an
    /// RCFile read without `--schema`.
    pub fn escaping_raw_cells(mut self) -> Self {
        self.raw = Some(Vec::new());
        self
    }
    /// `row` as a line (no line break), replacing what `line` held.
    pub fn render(&mut self, row: &[Value], line: &mut String) -> Result<(), Failure> {
        line.clear();
        let row = match &mut self.raw {
            Some(escaped) => {
                crate::raw_text::escape_row(row, escaped);
                escaped.as_slice()
            }
            None => row,
        };
        crate::read_cmds::row_line(
            line,
            row,
            &self.types,
            &self.names,
            self.csv.as_mut(),
            &mut self.cell,
        )
    }
    /// The CSV header line (no line break), replacing what `line` held.
    pub fn header(&mut self, line: &mut String) -> Result<(), Failure> {
        line.clear();
        match &mut self.csv {
            Some(csv) => csv.names(&self.names, line),
            None => Ok(()),
        }
    }
    /// The column names (the CSV header).
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// Whether lines are CSV records.
    pub fn csv(&self) -> bool {
        self.csv.is_some()
    }
}

pub fn open(a: &ConvertArgs, from: Fmt, to: Fmt) -> Result<Box<dyn Source>, Failure> {
    // Typed rows go out as CSV through `cat`'s own CSV code.
    let csv = to == Fmt::Csv;
    Ok(match from {
        Fmt::RcFile => Box::new(RcSource::open(a, csv)?),
        Fmt::TsFile => Box::new(TsSource::open(a, to)?),
        Fmt::Jsonl => Box::new(super::text::JsonlSource::open(a, csv)?),
        // Records into an RCFile of the input's own types need no retyping on the way: the
        // writer reads each object with that schema, as the retyping would.
        Fmt::Csv => {
            let retype = !(to == Fmt::RcFile && a.out_schema.is_none());
            Box::new(super::text::CsvSource::open(a, csv, retype)?)
        }
        Fmt::Parquet | Fmt::Arrow | Fmt::ArrowStream => {
            return Err(Failure::usage(
                "Parquet and Arrow input need the parquet feature",
            ))
        }
    })
}

/// The `--schema` of a CSV or JSONL input: TsFile's `name:TYPE:CATEGORY[...]` syntax when
/// every column parses as that, else a Hive schema.
pub fn model_of_schema(s: &str, table: String) -> Result<Model, Failure> {
    let ts: Result<Vec<TableColumn>, Failure> = s
        .split(',')
        .filter(|c| !c.trim().is_empty())
        .map(|c| crate::tsfile_cmds::parse_column(c, Profile::Portable))
        .collect();
    if let Ok(cols) = ts {
        return Ok(Model::Ts {
            table,
            columns: cols
                .into_iter()
                .filter(|c| c.category != ColumnCategory::Time)
                .collect(),
            all: None,
        });
    }
    let schema: Schema = s
        .parse()
        .map_err(|e: colfile::Error| Failure::usage(format!("--schema: {e}")))?;
    Ok(Model::Hive(schema))
}

/// Names of a model's row keys.
pub(super) fn model_columns(m: &Model) -> Vec<String> {
    match m {
        Model::Hive(s) => s.columns().iter().map(|c| c.name.clone()).collect(),
        Model::Ts { columns, .. } => ["table", "time"]
            .into_iter()
            .map(String::from)
            .chain(columns.iter().map(|c| c.schema.name.clone()))
            .collect(),
        Model::Untyped => Vec::new(),
    }
}

struct RcSource {
    rows: RowReader<Input>,
    lines: HiveLines,
    total: u64,
    file: std::path::PathBuf,
    model: Model,
}

impl RcSource {
    fn open(a: &ConvertArgs, csv: bool) -> Result<Self, Failure> {
        let src = Input::open(&a.input).map_err(|e| Failure::from(e).context(&a.input))?;
        let o = crate::read_cmds::open_rows(&a.read, src)?;
        let selected = o.selected_schema();
        let total = o.bytes;
        let mut lines = HiveLines::new(&selected, csv.then(|| a.read.csv.line_writer()));
        if a.read.schema.is_none() {
            crate::raw_text::warn_no_schema();
            lines = lines.escaping_raw_cells();
        }
        Ok(RcSource {
            rows: RowReader::from_reader(o.reader, o.schema, o.serde, o.selected),
            lines,
            total,
            file: a.input.clone(),
            model: Model::Hive(selected),
        })
    }
}

impl Source for RcSource {
    fn next_line(&mut self, line: &mut String) -> Result<bool, Failure> {
        let row = self
            .rows
            .next_row()
            .map_err(|e| Failure::from(e).context(&self.file))?;
        let Some(row) = row else {
            return Ok(false);
        };
        self.lines.render(row, line)?;
        Ok(true)
    }
    fn consumed(&self) -> Option<u64> {
        Some(self.rows.reader().position())
    }
    fn total(&self) -> Option<u64> {
        Some(self.total)
    }
    fn columns(&self) -> &[String] {
        self.lines.names()
    }
    fn model(&self) -> &Model {
        &self.model
    }
    fn csv(&self) -> bool {
        self.lines.csv()
    }
}

type SharedReader = Arc<TsFileReader<Input>>;

struct TsSource {
    stream: QueryStream<SharedReader>,
    tree: bool,
    lines: VecDeque<String>,
    columns: Vec<String>,
    model: Model,
    file: std::path::PathBuf,
    csv: Option<CsvLine>,
}

impl TsSource {
    fn open(a: &ConvertArgs, to: Fmt) -> Result<Self, Failure> {
        let ctx = |e: colfile::Error| Failure::from(e).context(&a.input);
        let src = Input::open(&a.input).map_err(ctx)?;
        let reader = crate::ts_open::reader(src, &a.input, &a.read.limits, a.read.no_mods);
        let reader: SharedReader = Arc::new(reader.map_err(ctx)?);
        let schemas = reader.metadata().footer().schemas.clone();
        let tree = schemas.is_empty();
        let table = match &a.read.table {
            Some(t) => Some(
                schemas
                    .iter()
                    .find(|s| s.name.eq_ignore_ascii_case(t))
                    .ok_or_else(|| {
                        Failure::usage(format!("{}: no table {t:?}", a.input.display()))
                    })?
                    .clone(),
            ),
            None if schemas.len() == 1 => schemas.first().cloned(),
            None => None,
        };
        if table.is_none() && to != Fmt::Jsonl {
            let what = if tree {
                "is a tree-model file".to_string()
            } else {
                let names: Vec<&str> = schemas.iter().map(|s| s.name.as_str()).collect();
                format!("has tables {}: pick one with --table", names.join(", "))
            };
            return Err(Failure::usage(format!(
                "{}: {what} (only --to jsonl takes every device)",
                a.input.display()
            )));
        }
        let mut q: Query = crate::tsfile_cmds::query_of(&a.read)?;
        if let Some(t) = &table {
            q = q.table(&t.name);
        }
        let stream = reader.query_shared(&q).map_err(ctx)?;
        let mut s = TsSource {
            stream,
            tree,
            lines: VecDeque::new(),
            columns: Vec::new(),
            model: Model::Untyped,
            file: a.input.clone(),
            csv: (to == Fmt::Csv && table.is_some()).then(|| a.read.csv.line_writer()),
        };
        // The rows' columns are the first batch's (the query's projection, in its order).
        let first = s.next_batch()?;
        if let Some(t) = table {
            let columns: Vec<TableColumn> = match &first {
                Some(b) => b
                    .tags
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .chain(b.columns.iter().map(|c| c.name.as_str()))
                    .filter_map(|n| {
                        t.columns
                            .iter()
                            .find(|c| c.schema.name.eq_ignore_ascii_case(n))
                    })
                    .cloned()
                    .collect(),
                None => t
                    .columns
                    .iter()
                    .filter(|c| c.category != ColumnCategory::Time)
                    .filter(|c| {
                        a.read.columns.as_ref().is_none_or(|sel| {
                            sel.iter().any(|n| n.eq_ignore_ascii_case(&c.schema.name))
                        })
                    })
                    .cloned()
                    .collect(),
            };
            let whole = a.read.columns.is_none();
            s.model = Model::Ts {
                table: t.name.clone(),
                columns,
                all: whole.then(|| {
                    t.columns
                        .iter()
                        .filter(|c| c.category != ColumnCategory::Time)
                        .cloned()
                        .collect()
                }),
            };
            s.columns = model_columns(&s.model);
        }
        if let Some(b) = first {
            s.push_lines(&b)?;
        }
        Ok(s)
    }

    fn next_batch(&mut self) -> Result<Option<DeviceBatch>, Failure> {
        match self.stream.next() {
            Some(b) => Ok(Some(b.map_err(|e| Failure::from(e).context(&self.file))?)),
            None => Ok(None),
        }
    }

    /// The batch's rows as `cat` prints them.
    fn push_lines(&mut self, b: &DeviceBatch) -> Result<(), Failure> {
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        let owner = if self.tree {
            b.device.to_string()
        } else {
            b.table.clone()
        };
        for &t in &b.times {
            let values: Vec<ValueRef<'_>> = cursors.iter_mut().map(|c| c.next_value()).collect();
            let mut line = String::new();
            match &mut self.csv {
                Some(csv) => crate::tsfile_cmds::csv_row(csv, &mut line, &owner, t, b, &values)?,
                None => crate::tsfile_cmds::json_row(&mut line, self.tree, &owner, t, b, &values),
            }
            self.lines.push_back(line);
        }
        Ok(())
    }
}

impl Source for TsSource {
    fn next_line(&mut self, line: &mut String) -> Result<bool, Failure> {
        while self.lines.is_empty() {
            match self.next_batch()? {
                Some(b) => self.push_lines(&b)?,
                None => return Ok(false),
            }
        }
        match self.lines.pop_front() {
            Some(l) => {
                *line = l;
                Ok(true)
            }
            None => Ok(false),
        }
    }
    fn consumed(&self) -> Option<u64> {
        None
    }
    /// Batches do not say where in the file they are: no percentage.
    fn total(&self) -> Option<u64> {
        None
    }
    fn columns(&self) -> &[String] {
        &self.columns
    }
    fn model(&self) -> &Model {
        &self.model
    }
    fn csv(&self) -> bool {
        self.csv.is_some()
    }
}

/// The table name of a TsFile model given by `--schema`: `--table`, else the output's file
/// stem.
pub fn table_name(a: &ConvertArgs) -> String {
    a.read.table.clone().unwrap_or_else(|| {
        a.output
            .file_stem()
            .and_then(|s| s.to_str())
            .filter(|s| *s != "-")
            .unwrap_or("t")
            .to_lowercase()
    })
}

pub(super) fn schema_model(a: &ConvertArgs) -> Result<Model, Failure> {
    match a.read.schema.as_deref().or(a.out_schema.as_deref()) {
        Some(s) => model_of_schema(s, table_name(a)),
        None => Ok(Model::Untyped),
    }
}
