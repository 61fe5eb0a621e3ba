//! Writing: Arrow record batches (a pyarrow table or record-batch reader, anything with
//! `__arrow_c_stream__`) into a TsFile table, tree-model devices, or an RCFile. The file is
//! written beside its final name and renamed into place once complete and synced, so a
//! failed write leaves nothing behind and a finished one survives a crash.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::ffi_stream::ArrowArrayStreamReader;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{Field, Schema, SchemaRef};
use colfile::arrow::{
    arrow_schema_to_hive, arrow_schema_to_tsfile, RcFileArrowWriter, TsFileArrowWriter,
    TSFILE_CATEGORY_KEY,
};
use colfile::rcfile::{HadoopCodec, Schema as HiveSchema, Serde};
use colfile::tsfile::{Compression, Encoding, WriterOptions};
use colfile::{Error, Result};

/// A file being written at a temporary name beside `path`.
struct Staged {
    path: PathBuf,
    temp: PathBuf,
}

impl Staged {
    fn create(path: &Path) -> Result<(Staged, BufWriter<File>)> {
        let name = path
            .file_name()
            .ok_or_else(|| Error::invalid(format!("{}: not a file name", path.display())))?;
        let temp = path.with_file_name(format!(".{}.colfile-partial", name.to_string_lossy()));
        let file = File::create(&temp).map_err(|e| Error::from(e).in_file(&temp))?;
        let staged = Staged {
            path: path.to_path_buf(),
            temp,
        };
        Ok((staged, BufWriter::with_capacity(1 << 20, file)))
    }

    /// Moves the finished file to its name.
    fn commit(self) -> Result<()> {
        std::fs::rename(&self.temp, &self.path).map_err(|e| Error::from(e).in_file(&self.path))?;
        std::mem::forget(self);
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.temp);
    }
}

/// `schema` with `time_column` named `time` and the `tags` marked as TAG columns.
fn tsfile_schema(schema: &Schema, time_column: &str, tags: &[String]) -> Result<SchemaRef> {
    let mut found = tags
        .iter()
        .map(|t| (t.to_lowercase(), false))
        .collect::<HashMap<_, _>>();
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let name = f.name().to_lowercase();
            let mut f = f.as_ref().clone();
            if name == time_column.to_lowercase() {
                f = f.with_name("time");
            } else if let Some(seen) = found.get_mut(&name) {
                *seen = true;
                let mut meta = f.metadata().clone();
                meta.insert(TSFILE_CATEGORY_KEY.to_string(), "TAG".to_string());
                f = f.with_metadata(meta);
            }
            f
        })
        .collect();
    if let Some((missing, _)) = found.iter().find(|(_, seen)| !**seen) {
        return Err(Error::invalid(format!(
            "tag column {missing:?} is not in the data"
        )));
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// The options of a TsFile write.
pub struct TsWrite {
    pub table: Option<String>,
    pub tags: Vec<String>,
    pub time_column: String,
    pub encodings: HashMap<String, String>,
    pub compression: Option<String>,
    pub aligned: bool,
    /// Threads that encode chunks.
    pub threads: usize,
}

/// What a write did: rows and bytes (and TsFile devices / RCFile row groups).
pub type Summary = Vec<(&'static str, u64)>;

/// Writes `data` into a new TsFile at `path`.
pub fn write_tsfile(path: &Path, data: ArrowArrayStreamReader, w: TsWrite) -> Result<Summary> {
    let schema = tsfile_schema(&data.schema(), &w.time_column, &w.tags)?;
    let compression = w
        .compression
        .as_deref()
        .map(Compression::from_name)
        .transpose()?;
    let (staged, out) = Staged::create(path)?;
    let options = WriterOptions::default().with_threads(w.threads);
    let mut writer = match &w.table {
        Some(name) => {
            let mut table = arrow_schema_to_tsfile(name, &schema)?;
            for c in &mut table.columns {
                if let Some(z) = compression {
                    c.schema.compression = z;
                }
                if let Some(e) = w.encodings.get(&c.schema.name) {
                    c.schema.encoding = Encoding::from_name(e)?;
                }
            }
            if let Some(unknown) = w.encodings.keys().find(|k| table.column(k).is_none()) {
                return Err(Error::invalid(format!("encodings: no column {unknown:?}")));
            }
            TsFileArrowWriter::try_new(out, table, options)?
        }
        None => {
            if !w.encodings.is_empty() || compression.is_some() {
                return Err(Error::invalid(
                    "encodings and compression apply to table-model writes (give table=...)",
                ));
            }
            TsFileArrowWriter::try_new_tree(out, &schema, w.aligned, options)?
        }
    };
    for batch in data {
        let batch = batch.map_err(Error::from)?;
        let batch =
            RecordBatch::try_new(schema.clone(), batch.columns().to_vec()).map_err(Error::from)?;
        writer.write(&batch)?;
    }
    let s = writer.finish_sync()?;
    staged.commit()?;
    Ok(vec![
        ("rows", s.rows),
        ("devices", s.devices),
        ("chunk_groups", s.chunk_groups),
        ("bytes", s.bytes),
    ])
}

/// The options of an RCFile write.
pub struct RcWrite {
    pub schema: Option<HiveSchema>,
    pub serde: Serde,
    pub codec: Option<String>,
    /// Threads that encode a large batch's columns.
    pub threads: usize,
}

/// Writes `data` into a new RCFile at `path`.
pub fn write_rcfile(path: &Path, data: ArrowArrayStreamReader, w: RcWrite) -> Result<Summary> {
    let schema = match w.schema {
        Some(s) => s,
        None => arrow_schema_to_hive(&data.schema())?,
    };
    let codec = match w.codec.as_deref() {
        None | Some("none") => None,
        Some(name) => Some(
            HadoopCodec::from_short_name(name)
                .map_err(|e| Error::invalid(format!("codec: {e}")))?,
        ),
    };
    let (staged, out) = Staged::create(path)?;
    let mut writer = RcFileArrowWriter::builder(out, schema, w.serde)
        .with_codec(codec)
        .with_threads(w.threads)
        .build()?;
    for batch in data {
        writer.write(&batch.map_err(Error::from)?)?;
    }
    let s = writer.finish_sync()?;
    staged.commit()?;
    Ok(vec![
        ("rows", s.rows),
        ("row_groups", s.row_groups),
        ("bytes", s.bytes),
    ])
}
