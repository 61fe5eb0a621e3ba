//! Parquet and Arrow IPC to and from the text formats (feature `parquet`): a Parquet or
//! Arrow IPC file's rows as the
//! JSON lines or CSV records `cat` prints (through the Hive types of its Arrow schema), and
//! CSV or JSONL rows (typed by `--schema`, or `--out-schema`) gathered into Arrow batches
//! for Parquet's or Arrow IPC's writer.

use super::pipe::{self, SharedProgress};
use super::sources::{HiveLines, Model, Source};
use super::{ConvertArgs, Fmt};
use crate::Failure;
use arrow_array::RecordBatch;
use colfile::arrow::{
    arrow_row_to_hive, arrow_schema_to_hive, hive_rows_to_arrow, hive_schema_to_arrow,
};
use colfile::rcfile::Schema;

/// Rows per Arrow batch handed to Parquet's writer.
const BATCH_ROWS: usize = 8192;

/// A Parquet or Arrow IPC file as a row source.
pub struct ParquetSource {
    reader: super::parquet::Batches,
    batch: Option<RecordBatch>,
    row: usize,
    schema: Schema,
    lines: HiveLines,
    model: Model,
    file: std::path::PathBuf,
    total: u64,
}

impl ParquetSource {
    pub fn open(a: &ConvertArgs, from: Fmt, csv: bool) -> Result<Self, Failure> {
        let total = std::fs::metadata(&a.input)
            .map_err(|e| Failure::from(e).context(&a.input))?
            .len();
        let (arrow, reader) = super::parquet::open(a, from)?;
        let schema =
            arrow_schema_to_hive(&arrow).map_err(|e| Failure::from(e).context(&a.input))?;
        Ok(ParquetSource {
            reader,
            batch: None,
            row: 0,
            model: Model::Hive(schema.clone()),
            lines: HiveLines::new(&schema, csv.then(|| a.read.csv.line_writer())),
            schema,
            file: a.input.clone(),
            total,
        })
    }
}

impl Source for ParquetSource {
    fn next_line(&mut self, line: &mut String) -> Result<bool, Failure> {
        let ctx = |e: colfile::Error| Failure::from(e);
        loop {
            if let Some(b) = &self.batch {
                if self.row < b.num_rows() {
                    let row = arrow_row_to_hive(b, self.row, &self.schema)
                        .map_err(|e| ctx(e).context(&self.file))?;
                    self.row += 1;
                    self.lines.render(&row, line)?;
                    return Ok(true);
                }
            }
            match self.reader.next() {
                None => return Ok(false),
                Some(Err(e)) => return Err(e),
                Some(Ok(b)) => {
                    self.batch = Some(b);
                    self.row = 0;
                }
            }
        }
    }
    fn consumed(&self) -> Option<u64> {
        None
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

/// CSV or JSONL rows from `source` into OUT, a Parquet or Arrow IPC file (`to`).
pub fn text_to_parquet(
    a: &ConvertArgs,
    to: Fmt,
    source: Box<dyn Source>,
    progress: SharedProgress,
) -> Result<(), Failure> {
    let mut rows = pipe::hive_rows(a, source, progress)?;
    let schema = rows.schema.clone();
    let arrow = hive_schema_to_arrow(&schema);
    let batches = std::iter::from_fn(move || {
        let mut chunk = Vec::with_capacity(BATCH_ROWS);
        for r in rows.by_ref().take(BATCH_ROWS) {
            match r {
                Ok(r) => chunk.push(r),
                Err(e) => return Some(Err(e)),
            }
        }
        (!chunk.is_empty()).then(|| hive_rows_to_arrow(&schema, &chunk).map_err(Failure::from))
    });
    let (arrow, mut batches) = super::time_unit::apply(a, arrow, Box::new(batches))?;
    super::parquet::write_batches(a, to, arrow, &mut batches)
}
