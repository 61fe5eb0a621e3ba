//! Parquet in and out (feature `parquet`): Arrow record batches from colfile's RCFile and
//! TsFile readers (or a Parquet or Arrow IPC file, arrow_ipc.rs) into a Parquet or Arrow IPC
//! file (or colfile's RCFile and TsFile writers), through the parquet crate's `ArrowWriter` and `ParquetRecordBatchReader`;
//! CSV and JSONL go through `parquet_rows`.
//! Types follow `colfile::arrow`'s mappings; Parquet keeps the Arrow schema with its field
//! metadata, so a TsFile's categories and a Hive schema's types survive a round trip.

use super::pipe::SharedProgress;
use super::{ConvertArgs, Fmt};
use crate::input::Input;
use crate::Failure;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::SchemaRef;
use colfile::arrow::{
    arrow_schema_to_hive, arrow_schema_to_tsfile, RcFileArrowReader, RcFileArrowWriter,
    TsFileArrowReader, TsFileArrowWriter,
};
use colfile::compress::HadoopCodec;
use colfile::rcfile::EncodedRows;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::io::{BufWriter, Write};
use std::sync::Arc;

/// A source of record batches.
pub(super) type Batches = Box<dyn Iterator<Item = Result<RecordBatch, Failure>>>;
/// [`Batches`] that a thread of their own can read.
pub(super) type SendBatches = Box<dyn Iterator<Item = Result<RecordBatch, Failure>> + Send>;

fn bad_input(a: &ConvertArgs) -> impl Fn(String) -> Failure + '_ {
    move |m| Failure::input(format!("{}: {m}", a.input.display()))
}

pub fn convert(
    a: &ConvertArgs,
    from: Fmt,
    to: Fmt,
    progress: SharedProgress,
) -> Result<(), Failure> {
    if to.is_text() {
        let source = super::parquet_rows::ParquetSource::open(a, from, to == Fmt::Csv)?;
        return super::pipe::run(a, Box::new(source), to, progress);
    }
    if from.is_text() {
        let source = super::sources::open(a, from, to)?;
        return super::parquet_rows::text_to_parquet(a, to, source, progress);
    }
    // Batches do not say how far into the input they are: rows only.
    progress.borrow_mut().set_total(None);
    let (schema, batches) = open(a, from)?;
    let (schema, batches) = super::time_unit::apply(a, schema, read_ahead(batches))?;
    let mut batches = batches.inspect(move |b| {
        if let Ok(b) = b {
            progress.borrow_mut().rows_done(b.num_rows() as u64, None);
        }
    });
    write_batches(a, to, schema, &mut batches)
}

/// Writes `batches` as OUT in format `to` (under a temporary name, renamed at the end).
pub(super) fn write_batches(
    a: &ConvertArgs,
    to: Fmt,
    schema: SchemaRef,
    batches: &mut dyn Iterator<Item = Result<RecordBatch, Failure>>,
) -> Result<(), Failure> {
    crate::write_cmd::atomically(&a.output, a.fsync, |file| {
        let out = BufWriter::with_capacity(1 << 20, file);
        match to {
            Fmt::Parquet => write_parquet(a, schema, batches, out),
            Fmt::Arrow => super::arrow_ipc::write(a, schema, batches, out, false),
            Fmt::ArrowStream => super::arrow_ipc::write(a, schema, batches, out, true),
            Fmt::RcFile => write_rcfile(a, &schema, batches, out),
            Fmt::TsFile => write_tsfile(a, &schema, batches, out),
            _ => Err(Failure::usage("unsupported output")),
        }
    })
}

/// Batches read on a thread of their own, up to two ahead of their consumer: decoding the
/// input (Parquet pages, IPC buffers, RCFile or TsFile columns) overlaps encoding the output.
fn read_ahead(batches: SendBatches) -> Batches {
    let (tx, rx) = std::sync::mpsc::sync_channel(2);
    let reader = std::thread::spawn(move || {
        for b in batches {
            let failed = b.is_err();
            // A consumer that stopped (on its own failure) drops the receiver.
            if tx.send(b).is_err() || failed {
                break;
            }
        }
    });
    let mut reader = Some(reader);
    Box::new(std::iter::from_fn(move || match rx.recv() {
        Ok(b) => Some(b),
        // The reader is done; its panic, if it had one, is a failure here.
        Err(_) => match reader.take().map(std::thread::JoinHandle::join) {
            Some(Err(_)) => Some(Err(Failure::input("the thread reading the input failed"))),
            _ => None,
        },
    }))
}

/// The input's Arrow schema and batches.
pub(super) fn open(a: &ConvertArgs, from: Fmt) -> Result<(SchemaRef, SendBatches), Failure> {
    let ctx = |e: colfile::Error| Failure::from(e).context(&a.input);
    let path = a.input.clone();
    let arrow_err =
        move |e: arrow_schema::ArrowError| Failure::input(format!("{}: {e}", path.display()));
    match from {
        Fmt::RcFile => {
            let src = Input::open(&a.input).map_err(ctx)?;
            let o = crate::read_cmds::open_rows(&a.read, src)?;
            let names: Vec<&str> = o
                .selected
                .iter()
                .filter_map(|&i| o.schema.columns().get(i))
                .map(|c| c.name.as_str())
                .collect();
            let src = Input::open(&a.input).map_err(ctx)?;
            let mut b = RcFileArrowReader::builder(src, o.schema.clone(), o.serde.clone())
                .with_columns(&names)
                .map_err(ctx)?;
            if let Some(u) = &a.timestamp_unit {
                // Read in the unit asked for: dates beyond the nanosecond range fit.
                b = b.with_timestamp_unit(super::time_unit::unit_of(u)?);
            }
            let r = b.build().map_err(ctx)?;
            let schema = r.schema();
            Ok((schema, Box::new(r.map(move |b| b.map_err(&arrow_err)))))
        }
        Fmt::TsFile => {
            let src = Input::open(&a.input).map_err(ctx)?;
            let reader = crate::ts_open::reader(src, &a.input, &a.read.limits, a.read.no_mods);
            let reader = Arc::new(reader.map_err(ctx)?);
            let mut q = crate::tsfile_cmds::query_of(&a.read)?;
            if let Some(t) = &a.read.table {
                q = q.table(t);
            }
            let r = TsFileArrowReader::builder(reader)
                .with_query(q)
                .build()
                .map_err(ctx)?;
            let schema = r.schema();
            Ok((schema, Box::new(r.map(move |b| b.map_err(&arrow_err)))))
        }
        Fmt::Parquet => {
            let f =
                std::fs::File::open(&a.input).map_err(|e| Failure::from(e).context(&a.input))?;
            let b = ParquetRecordBatchReaderBuilder::try_new(f)
                .map_err(|e| bad_input(a)(e.to_string()))?;
            let r = b.build().map_err(|e| bad_input(a)(e.to_string()))?;
            let schema = r.schema();
            Ok((schema, Box::new(r.map(move |b| b.map_err(&arrow_err)))))
        }
        Fmt::Arrow => super::arrow_ipc::open(a, false),
        Fmt::ArrowStream => super::arrow_ipc::open(a, true),
        _ => Err(Failure::usage("unsupported input")),
    }
}

fn parquet_codec(name: Option<&str>) -> Result<Compression, Failure> {
    Ok(match name.unwrap_or("snappy") {
        "none" => Compression::UNCOMPRESSED,
        "snappy" => Compression::SNAPPY,
        "gzip" => Compression::GZIP(Default::default()),
        "lz4" => Compression::LZ4_RAW,
        "zstd" => Compression::ZSTD(Default::default()),
        other => {
            return Err(Failure::usage(format!(
                "--codec {other:?}: Parquet output takes none, snappy, gzip, lz4 or zstd"
            )))
        }
    })
}

fn write_parquet(
    a: &ConvertArgs,
    schema: SchemaRef,
    batches: &mut dyn Iterator<Item = Result<RecordBatch, Failure>>,
    out: BufWriter<std::fs::File>,
) -> Result<String, Failure> {
    let pq =
        |e: parquet::errors::ParquetError| Failure::input(format!("{}: {e}", a.output.display()));
    let mut props = WriterProperties::builder().set_compression(parquet_codec(a.codec.as_deref())?);
    if let Some(n) = a.row_group_rows {
        props = props.set_max_row_group_row_count(Some(n.max(1)));
    }
    for f in schema.fields() {
        if has_union(f.data_type()) {
            return Err(Failure::usage(format!(
                "column {}: Parquet has no union type",
                f.name()
            )));
        }
    }
    let mut w = ArrowWriter::try_new(out, schema, Some(props.build())).map_err(pq)?;
    let mut rows = 0u64;
    for b in batches {
        let b = b?;
        rows += b.num_rows() as u64;
        w.write(&b).map_err(pq)?;
    }
    let mut out = w.into_inner().map_err(pq)?;
    out.flush()?;
    if a.fsync {
        out.get_ref().sync_all()?;
    }
    let bytes = out.get_ref().metadata().map(|m| m.len()).unwrap_or(0);
    Ok(format!("{{\"rows\":{rows},\"bytes\":{bytes}}}"))
}

/// Whether `t` holds a union anywhere (the parquet crate cannot write one).
fn has_union(t: &arrow_schema::DataType) -> bool {
    use arrow_schema::DataType as T;
    match t {
        T::Union(..) => true,
        T::List(f) | T::LargeList(f) | T::FixedSizeList(f, _) | T::Map(f, _) => {
            has_union(f.data_type())
        }
        T::Struct(fs) => fs.iter().any(|f| has_union(f.data_type())),
        T::Dictionary(_, v) => has_union(v),
        _ => false,
    }
}

fn write_rcfile(
    a: &ConvertArgs,
    schema: &SchemaRef,
    batches: &mut dyn Iterator<Item = Result<RecordBatch, Failure>>,
    out: BufWriter<std::fs::File>,
) -> Result<String, Failure> {
    let hive = match &a.out_schema {
        Some(s) => s.parse()?,
        None => arrow_schema_to_hive(schema)?,
    };
    let serde = crate::read_cmds::serde_for(
        a.out_serde.as_deref().or(a.read.serde.as_deref()),
        &a.read.serde_props,
        a.read.time_zone.as_deref(),
        a.read.calendar.as_deref(),
    )?;
    let codec = match a.codec.as_deref().unwrap_or("none") {
        "none" => None,
        other => Some(HadoopCodec::from_short_name(other)?),
    };
    let (rows, bytes, sync) = (a.row_group_rows, a.row_group_bytes, a.sync);
    let mut w = RcFileArrowWriter::builder(out, hive, serde)
        .with_codec(codec)
        .with_writer(|b| crate::write_cmd::row_groups(b, rows, bytes, sync))
        .build()?;
    // Whole batches encoded on one thread per core while the writer appends the batches
    // before them (in order) on another; written batches' buffers go back to the encoders.
    let encoder = w.encoder().clone();
    let spare: std::sync::Mutex<Vec<EncodedRows>> = Default::default();
    let take = || spare.lock().ok().and_then(|mut v| v.pop());
    crate::json_lines::parse_in_order(
        || batches.next().transpose(),
        crate::json_lines::workers(),
        |batch: RecordBatch| {
            let mut cells = take().unwrap_or_else(|| EncodedRows::new(0));
            encoder.encode_into(&batch, &mut cells)?;
            Ok(cells)
        },
        |cells| {
            w.write_encoded(&cells)?;
            if let Ok(mut v) = spare.lock() {
                v.push(cells);
            }
            Ok(())
        },
    )?;
    let s = if a.fsync {
        w.finish_sync()?
    } else {
        w.finish()?
    };
    Ok(crate::write_cmd::rc_summary(&s))
}

fn write_tsfile(
    a: &ConvertArgs,
    schema: &SchemaRef,
    batches: &mut dyn Iterator<Item = Result<RecordBatch, Failure>>,
    out: BufWriter<std::fs::File>,
) -> Result<String, Failure> {
    let name = super::sources::table_name(a);
    let table = arrow_schema_to_tsfile(&name, schema)?;
    let mut w = TsFileArrowWriter::try_new(out, table, super::ts_options(a))?;
    for batch in batches {
        w.write(&batch?)?;
    }
    let s = if a.fsync {
        w.finish_sync()?
    } else {
        w.finish()?
    };
    Ok(crate::write_cmd::ts_summary(&s))
}
