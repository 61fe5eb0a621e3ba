//! Arrow IPC in and out of `convert` (feature `parquet`): the file format (`.arrow`,
//! `.feather`, magic `ARROW1`) and the stream format (`.arrows`), through the arrow-ipc
//! crate's readers and writers. The batches are `colfile::arrow`'s, exactly as Parquet gets
//! them, with the schema's field metadata kept (a TsFile's categories, a Hive type).

use super::parquet::SendBatches;
use super::ConvertArgs;
use crate::Failure;
use arrow_array::RecordBatch;
use arrow_ipc::reader::{FileReader, StreamReader};
use arrow_ipc::writer::{FileWriter, StreamWriter};
use arrow_schema::{ArrowError, SchemaRef};
use std::io::{BufReader, BufWriter, Write};

/// The batches of the IPC file (`stream == false`) or stream at `a.input`.
pub fn open(a: &ConvertArgs, stream: bool) -> Result<(SchemaRef, SendBatches), Failure> {
    let path = a.input.clone();
    let bad = move |e: ArrowError| Failure::input(format!("{}: {e}", path.display()));
    let f = std::fs::File::open(&a.input).map_err(|e| Failure::from(e).context(&a.input))?;
    let f = BufReader::with_capacity(1 << 20, f);
    if stream {
        let r = StreamReader::try_new(f, None).map_err(&bad)?;
        let schema = r.schema();
        Ok((schema, Box::new(r.map(move |b| b.map_err(&bad)))))
    } else {
        let r = FileReader::try_new(f, None).map_err(&bad)?;
        let schema = r.schema();
        Ok((schema, Box::new(r.map(move |b| b.map_err(&bad)))))
    }
}

/// Writes `batches` to `out` as an IPC file or stream; returns the summary line.
pub fn write(
    a: &ConvertArgs,
    schema: SchemaRef,
    batches: &mut dyn Iterator<Item = Result<RecordBatch, Failure>>,
    out: BufWriter<std::fs::File>,
    stream: bool,
) -> Result<String, Failure> {
    let bad = |e: ArrowError| Failure::input(format!("{}: {e}", a.output.display()));
    let mut rows = 0u64;
    let mut feed = |write: &mut dyn FnMut(&RecordBatch) -> Result<(), ArrowError>| {
        for b in &mut *batches {
            let b = b?;
            rows += b.num_rows() as u64;
            write(&b).map_err(bad)?;
        }
        Ok::<(), Failure>(())
    };
    let mut out = if stream {
        let mut w = StreamWriter::try_new(out, &schema).map_err(bad)?;
        feed(&mut |b| w.write(b))?;
        w.finish().map_err(bad)?;
        w.into_inner().map_err(bad)?
    } else {
        let mut w = FileWriter::try_new(out, &schema).map_err(bad)?;
        feed(&mut |b| w.write(b))?;
        w.finish().map_err(bad)?;
        w.into_inner().map_err(bad)?
    };
    out.flush()?;
    if a.fsync {
        out.get_ref().sync_all()?;
    }
    let bytes = out.get_ref().metadata().map(|m| m.len()).unwrap_or(0);
    Ok(format!("{{\"rows\":{rows},\"bytes\":{bytes}}}"))
}
