//! `cat`, `scan`, `meta` and `schema`: the read-side commands.

use crate::args::ReadArgs;
use crate::input::Input;
use crate::Failure;
use colfile::rcfile::{json, Header, HeaderVersion, RcFileReader, RowReader, Schema, Serde};
use colfile::source::ByteSource;
use std::io::Write;
use std::path::Path;

/// Formats the CLI knows by magic bytes.
pub enum Format {
    RcFile,
    TsFile,
}

pub fn open(path: &Path) -> Result<(Input, Format), Failure> {
    let src = Input::open(path).map_err(|e| Failure::from(e).context(path))?;
    let mut magic = [0u8; 6];
    let n = src.len().min(6) as usize;
    src.read_exact_at(0, &mut magic[..n])?;
    match &magic[..n.min(3)] {
        b"RCF" | b"SEQ" => Ok((src, Format::RcFile)),
        _ if &magic[..n] == b"TsFile" => Ok((src, Format::TsFile)),
        _ if n == 0 => Err(Failure::input(format!("{}: file is empty", path.display()))),
        _ => Err(Failure::input(format!(
            "{}: unknown file format: magic bytes {}, expected \"RCF\", \"SEQ\" or \"TsFile\"",
            path.display(),
            colfile::cursor::show_magic(&magic[..n])
        ))),
    }
}

impl Failure {
    pub(crate) fn input(m: impl Into<String>) -> Self {
        Failure {
            code: 1,
            message: m.into(),
        }
    }
    pub(crate) fn context(mut self, path: &Path) -> Self {
        self.message = format!("{}: {}", path.display(), self.message);
        self
    }
}

/// The schema to read with: `--schema`, or `_col0:string,...` for every column of the file.
fn schema_for(arg: Option<&str>, header: &Header) -> Result<Schema, Failure> {
    match arg {
        Some(s) => Ok(s.parse()?),
        None => Ok((0..header.column_count)
            .map(|i| format!("_col{i}:string"))
            .collect::<Vec<_>>()
            .join(",")
            .parse()?),
    }
}

/// The serde from `--serde` (Hive's default for RCFile tables, binary, when absent) and its
/// options.
pub fn serde_for(
    name: Option<&str>,
    props: &[(String, String)],
    time_zone: Option<&str>,
    calendar: Option<&str>,
) -> Result<Serde, Failure> {
    let name = name.unwrap_or("binary");
    Ok(Serde::from_options(name, props, time_zone, calendar)?)
}

fn selected(schema: &Schema, columns: &Option<Vec<String>>) -> Result<Vec<usize>, Failure> {
    let mut idx = match columns {
        Some(names) => schema.indices_of(names)?,
        None => (0..schema.len()).collect(),
    };
    idx.sort_unstable();
    idx.dedup();
    Ok(idx)
}

/// A file opened for `cat` or `scan`: the reader (projected to the selected columns), the
/// schema and serde to decode with, and the selected schema columns.
pub(crate) struct Opened {
    pub(crate) reader: RcFileReader<Input>,
    pub(crate) schema: Schema,
    pub(crate) serde: Serde,
    pub(crate) selected: Vec<usize>,
    pub(crate) bytes: u64,
}

impl Opened {
    /// The selected columns as a schema of their own.
    pub(crate) fn selected_schema(&self) -> Schema {
        Schema::new(
            self.selected
                .iter()
                .filter_map(|&i| self.schema.columns().get(i))
                .cloned()
                .collect(),
        )
    }
}

pub(crate) fn open_rows(a: &ReadArgs, src: Input) -> Result<Opened, Failure> {
    let bytes = src.len();
    let mut reader = RcFileReader::builder(src)
        .with_projection([])
        .with_limits(a.limits.clone())
        .build()
        .map_err(|e| Failure::from(e).context(&a.file))?;
    let schema = schema_for(a.schema.as_deref(), reader.header())?;
    let selected = selected(&schema, &a.columns)?;
    let serde = serde_for(
        a.serde.as_deref(),
        &a.serde_props,
        a.time_zone.as_deref(),
        a.calendar.as_deref(),
    )?;
    reader.set_projection(selected.iter().copied());
    Ok(Opened {
        reader,
        schema,
        serde,
        selected,
        bytes,
    })
}

/// `cat` of one file (`a.file`): prints its rows; returns how many.
pub fn cat_file(a: &ReadArgs) -> Result<u64, Failure> {
    let src = match open(&a.file)? {
        (src, Format::TsFile) => return crate::tsfile_cmds::cat(a, src),
        (src, Format::RcFile) => src,
    };
    if a.format == "dump" {
        return Err(Failure::usage("--format dump is for TsFile files"));
    }
    let o = open_rows(a, src)?;
    let raw = a.schema.is_none();
    if raw {
        crate::raw_text::warn_no_schema();
    }
    let selected = o.selected_schema();
    let csv = (a.format == "csv").then(|| a.csv.line_writer());
    let mut lines = crate::convert::HiveLines::new(&selected, csv);
    if raw {
        lines = lines.escaping_raw_cells();
    }
    let mut rows = RowReader::from_reader(o.reader, o.schema, o.serde, o.selected);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut line = String::new();
    if a.format == "csv" && a.csv.header && !a.skip_csv_header {
        lines.header(&mut line)?;
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    let mut count = 0u64;
    while a.limit.is_none_or(|l| count < l) {
        let Some(row) = rows
            .next_row()
            .map_err(|e| Failure::from(e).context(&a.file))?
        else {
            break;
        };
        lines.render(row, &mut line)?;
        line.push('\n');
        out.write_all(line.as_bytes())?;
        count += 1;
    }
    out.flush()?;
    Ok(count)
}

/// Appends one row as `cat` prints it: a CSV record (`csv`) or a JSON object keyed by
/// `names`. `cell` is scratch space.
pub(crate) fn row_line(
    line: &mut String,
    row: &[colfile::rcfile::Value],
    types: &[colfile::rcfile::HiveType],
    names: &[String],
    csv: Option<&mut crate::csv_opts::CsvLine>,
    cell: &mut String,
) -> Result<(), Failure> {
    use colfile::rcfile::Value;
    if let Some(csv) = csv {
        let cells = row.iter().zip(types).map(|(v, ty)| match v {
            Value::Null => None,
            Value::String(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => {
                cell.clear();
                json::write_value(ty, v, cell);
                let unquoted = cell.strip_prefix('"').and_then(|c| c.strip_suffix('"'));
                Some(
                    unquoted
                        .filter(|_| ty.is_primitive())
                        .unwrap_or(cell)
                        .to_string(),
                )
            }
        });
        return csv.record(cells, line);
    }
    line.push('{');
    for (i, ((v, ty), n)) in row.iter().zip(types).zip(names).enumerate() {
        if i > 0 {
            line.push(',');
        }
        json::write_str(line, n);
        line.push(':');
        json::write_value(ty, v, line);
    }
    line.push('}');
    Ok(())
}

/// What `scan` prints for a file: `{"rows":N,"values":M,"bytes":B,"seconds":S}`.
#[derive(Default, Clone, Copy)]
pub struct ScanSummary {
    pub rows: u64,
    pub values: u64,
    pub bytes: u64,
    pub seconds: f64,
}

impl std::fmt::Display for ScanSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{{\"rows\":{},\"values\":{},\"bytes\":{},\"seconds\":{:.6}}}",
            self.rows, self.values, self.bytes, self.seconds
        )
    }
}

/// Rows `scan` decodes of one column at a time: their values (at most 16 bytes each) stay
/// in a core's cache rather than a whole row group's.
const SCAN_SLICE_ROWS: usize = 8192;

/// `scan` of one file (`a.file`), with its rows counted on `progress`.
pub fn scan_file(
    a: &ReadArgs,
    progress: &mut crate::progress::Progress,
) -> Result<ScanSummary, Failure> {
    let started = std::time::Instant::now();
    let src = match open(&a.file)? {
        (src, Format::TsFile) => return crate::tsfile_cmds::scan(a, src, progress),
        (src, Format::RcFile) => src,
    };
    let Opened {
        mut reader,
        schema,
        serde,
        selected: sel,
        bytes,
    } = open_rows(a, src)?;
    let (mut nrows, mut values) = (0u64, 0u64);
    let types: Vec<_> = sel
        .iter()
        .map(|&i| schema.columns()[i].ty.clone())
        .collect();
    // One batch per column, so each keeps its typed buffers from one row group to the next.
    let mut batches = vec![colfile::rcfile::ColumnBatch::default(); sel.len()];
    let threads = a.scan_threads().clamp(1, sel.len().max(1));
    let mut checksum = 0u64;
    while let Some(g) = reader
        .next_row_group()
        .map_err(|e| Failure::from(e).context(&a.file))?
    {
        nrows += g.num_rows() as u64;
        progress.rows_done(g.num_rows() as u64, Some(g.byte_range().end));
        if a.raw {
            // Touch every cell's bytes without decoding: the container's own speed.
            for &c in &sel {
                if let Some(col) = g.column(c) {
                    for cell in col.cells() {
                        checksum = checksum.wrapping_add(cell.len() as u64);
                        values += 1;
                    }
                }
            }
            continue;
        }
        // Typed decode into columnar batches (no per-value allocation), columns spread over
        // `threads` threads: each takes the next column not yet taken, and decodes it a
        // slice of rows at a time so that its batch stays in cache.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let jobs: Vec<_> = sel
            .iter()
            .zip(&types)
            .zip(batches.iter_mut())
            .map(|((&c, ty), b)| std::sync::Mutex::new((c, ty, b, 0u64)))
            .collect();
        let work = || -> colfile::Result<()> {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else {
                    return Ok(());
                };
                let mut job = job
                    .lock()
                    .map_err(|_| colfile::Error::invalid("a column-decoding thread panicked"))?;
                let (c, ty, batch, decoded) = &mut *job;
                let rows = g.num_rows();
                for start in (0..rows).step_by(SCAN_SLICE_ROWS) {
                    let end = rows.min(start + SCAN_SLICE_ROWS);
                    g.decode_batch_rows(*c, start..end, ty, &serde, batch)?;
                    *decoded += batch.len() as u64;
                }
            }
        };
        std::thread::scope(|s| {
            let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
            let mine = work();
            helpers.into_iter().try_for_each(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(colfile::Error::invalid("a decoding thread panicked")))
            })?;
            mine
        })
        .map_err(|e| Failure::from(e).context(&a.file))?;
        values += jobs
            .into_iter()
            .map(|j| j.into_inner().map_or(0, |(.., n)| n))
            .sum::<u64>();
    }
    std::hint::black_box(checksum);
    Ok(ScanSummary {
        rows: nrows,
        values,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

pub fn meta(path: std::path::PathBuf) -> Result<(), Failure> {
    let src = match open(&path)? {
        (src, Format::TsFile) => return crate::tsfile_cmds::meta(&path, src),
        (src, Format::RcFile) => src,
    };
    let file_len = src.len();
    let mut r = RcFileReader::builder(src)
        .with_projection([])
        .build()
        .map_err(|e| Failure::from(e).context(&path))?;
    let mut groups = String::new();
    let (mut count, mut total) = (0u64, 0u64);
    let mut per_group = Vec::new();
    while let Some(g) = r
        .next_row_group()
        .map_err(|e| Failure::from(e).context(&path))?
    {
        if count > 0 {
            groups.push_str(",\n");
        }
        let mut cols = String::new();
        for (i, l) in g.layout().iter().enumerate() {
            if i > 0 {
                cols.push(',');
            }
            cols.push_str(&format!(
                "{{\"length\":{},\"uncompressed_length\":{},\"cell_lengths_hex\":\"",
                l.on_disk_len, l.plain_len
            ));
            json::push_hex(&mut cols, g.cell_lengths_buffer(i).unwrap_or_default());
            cols.push_str("\"}");
        }
        let range = g.byte_range();
        groups.push_str(&format!(
            "{{\"index\":{},\"offset\":{},\"end\":{},\"sync_before\":{},\"rows\":{},\"record_length\":{},\"key_length\":{},\"compressed_key_length\":{},\"columns\":[{}]}}",
            g.index(), range.start, range.end, g.sync_before(), g.num_rows(), g.record_length(), g.key_length(), g.compressed_key_length(), cols
        ));
        count += 1;
        total += g.num_rows() as u64;
        per_group.push(g.num_rows().to_string());
    }
    let h = r.header();
    let mut meta = String::from("{");
    for (i, (k, v)) in h.metadata.iter().enumerate() {
        if i > 0 {
            meta.push(',');
        }
        json::write_str(&mut meta, k);
        meta.push(':');
        json::write_str(&mut meta, v);
    }
    meta.push('}');
    let codec = match &h.codec_class {
        Some(c) => {
            let mut s = String::new();
            json::write_str(&mut s, c);
            s
        }
        None => "null".into(),
    };
    let mut sync = String::new();
    json::push_hex(&mut sync, &h.sync);
    let (magic, version) = match h.version {
        HeaderVersion::Rcf1 => ("RCF", h.magic[3]),
        _ => (
            if &h.magic[..3] == b"SEQ" {
                "SEQ"
            } else {
                "RCF"
            },
            h.magic[3],
        ),
    };
    crate::out_line(format_args!(
        "{{\"format\":\"rcfile\",\n\"header\":{{\"magic\":\"{magic}\",\"version\":{version},\"compressed\":{},\"codec\":{codec},\"metadata\":{meta},\"column_count\":{},\"header_length\":{},\"sync\":\"{sync}\",\"file_length\":{file_len},\"row_group_count\":{count},\"row_count\":{total},\"rows_per_group\":[{}]}},\n\"row_groups\":[\n{groups}\n]}}",
        h.codec.is_some(),
        h.column_count,
        h.length,
        per_group.join(",")
    ))?;
    Ok(())
}

/// `schema FILE [--format ddl]`: what the file says about its columns, as JSON or as a
/// Hive DDL column list (RCFile: `_col0 string, ...`, the types are not stored).
pub fn schema(path: std::path::PathBuf, ddl: bool) -> Result<(), Failure> {
    let src = match open(&path)? {
        (src, Format::TsFile) => return crate::tsfile_cmds::schema(&path, src, ddl),
        (src, Format::RcFile) => src,
    };
    let r = RcFileReader::builder(src)
        .with_projection([])
        .build()
        .map_err(|e| Failure::from(e).context(&path))?;
    let h = r.header();
    let default = schema_for(None, h)?;
    if ddl {
        return crate::out_line(default.to_hive_ddl());
    }
    let mut s = String::new();
    json::write_str(&mut s, &default.to_string());
    crate::out_line(format_args!(
        "{{\"format\":\"rcfile\",\"column_count\":{},\"types_stored\":false,\"default_schema\":{s},\"note\":\"RCFile stores only the column count; pass --schema with the table's Hive types\"}}",
        h.column_count
    ))?;
    Ok(())
}
