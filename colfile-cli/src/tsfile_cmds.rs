//! The TsFile side of `cat`, `scan`, `meta`, `schema` and `write`.

use crate::args::{ReadArgs, WriteArgs};
use crate::csv_opts::CsvLine;
use crate::input::Input;
use crate::Failure;
use colfile::rcfile::json::write_str;
use colfile::source::FileSource;
use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType, Encoding};
use colfile::tsfile::tools::json::{from_json, write_tag_members, write_value, FloatStyle};
use colfile::tsfile::writer::Profile;
use colfile::tsfile::{
    DeviceBatch, Query, TsFileReader, TsFileWriter, Value, ValueRef, WriterOptions,
};
use serde_json::Value as Json;
use std::io::Write;

pub(crate) fn query_of(a: &ReadArgs) -> Result<Query, Failure> {
    let mut q = Query::all();
    if let Some(t) = &a.table {
        q = q.table(t);
    }
    if let Some(c) = &a.columns {
        q = q.columns(c.iter().cloned());
    }
    if a.start.is_some() || a.end.is_some() {
        q = q.time_range(a.start.unwrap_or(i64::MIN), a.end.unwrap_or(i64::MAX));
    }
    for (col, value) in &a.tags {
        q = q.tag_eq(col, value);
    }
    if let Some(w) = &a.filter {
        let f: colfile::tsfile::Filter = w
            .parse()
            .map_err(|e: colfile::Error| Failure::usage(format!("--where: {e}")))?;
        q = q.filter(f);
    }
    if let Some(n) = a.offset {
        q = q.offset(n);
    }
    if let Some(n) = a.limit {
        q = q.limit(n);
    }
    Ok(q)
}

fn open(a: &ReadArgs, src: Input) -> Result<TsFileReader<Input>, Failure> {
    crate::ts_open::reader(src, &a.file, &a.limits, a.no_mods)
        .map_err(|e| Failure::from(e).context(&a.file))
}

/// Is this a tree-model file (no table schemas)?
fn is_tree(r: &TsFileReader<Input>) -> bool {
    r.metadata().footer().schemas.is_empty()
}

/// `cat` of one TsFile: prints its rows; returns how many.
pub fn cat(a: &ReadArgs, src: Input) -> Result<u64, Failure> {
    let r = open(a, src)?;
    let q = query_of(a)?;
    let tree = is_tree(&r);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut line = String::new();
    if a.format == "dump" {
        for l in colfile::tsfile::tools::dump::header_lines(&r)
            .map_err(|e| Failure::from(e).context(&a.file))?
        {
            writeln!(out, "{l}")?;
        }
    }
    // CSV: one header, the first batch's columns; every later batch must have the same ones
    // (checked before anything is written, from the file's schemas and device index).
    let mut csv = (a.format == "csv").then(|| a.csv.line_writer());
    if csv.is_some() {
        crate::csv_shape::check_tsfile(&r, &q, a)?;
    }
    let mut header: Option<Vec<String>> = None;
    let mut count = 0u64;
    let mut it = r
        .query(&q)
        .map_err(|e| Failure::from(e).context(&a.file))?
        .planned();
    'outer: for batch in &mut it {
        let b = batch.map_err(|e| Failure::from(e).context(&a.file))?;
        if let Some(csv) = &mut csv {
            let names = batch_columns(&b);
            match &header {
                None => {
                    if a.csv.header && !a.skip_csv_header {
                        write_csv_header(&mut out, csv, tree, &names)?;
                    }
                    header = Some(names.iter().map(|n| n.to_string()).collect());
                }
                Some(h) if h.iter().map(String::as_str).ne(names.iter().copied()) => {
                    return Err(crate::csv_shape::ragged(
                        &a.file,
                        &if tree {
                            b.device.to_string()
                        } else {
                            b.table.clone()
                        },
                        &names.join(","),
                        &h.join(","),
                    ));
                }
                Some(_) => {}
            }
        }
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        let owner = if tree {
            b.device.to_string()
        } else {
            b.table.clone()
        };
        for &t in &b.times {
            if a.limit.is_some_and(|l| count >= l) {
                break 'outer;
            }
            line.clear();
            let values: Vec<ValueRef<'_>> = cursors.iter_mut().map(|c| c.next_value()).collect();
            match (&mut csv, a.format.as_str()) {
                (Some(csv), _) => csv_row(csv, &mut line, &owner, t, &b, &values)?,
                (None, "dump") => {
                    colfile::tsfile::tools::dump::row_line(&mut line, tree, &owner, t, &b, &values)
                }
                _ => json_row(&mut line, tree, &owner, t, &b, &values),
            }
            writeln!(out, "{line}")?;
            count += 1;
        }
    }
    if let (Some(csv), None, true) = (&mut csv, &header, a.csv.header && !a.skip_csv_header) {
        // No rows: the header still names the table's columns when there is one table.
        let schemas = &r.metadata().footer().schemas;
        let table = match &a.table {
            Some(t) => schemas.iter().find(|s| s.name.eq_ignore_ascii_case(t)),
            None if schemas.len() == 1 => schemas.first(),
            None => None,
        };
        // Tags, then fields (as batches order them); with --columns, in its order.
        let cols = table.map(|t| t.columns.as_slice()).unwrap_or_default();
        let of = |cat: ColumnCategory| -> Vec<&str> {
            let named = |n: &String| {
                cols.iter()
                    .find(|c| c.schema.name.eq_ignore_ascii_case(n) && c.category == cat)
                    .map(|c| c.schema.name.as_str())
            };
            match &a.columns {
                Some(cs) => cs.iter().filter_map(named).collect(),
                None => (cols.iter().filter(|c| c.category == cat))
                    .map(|c| c.schema.name.as_str())
                    .collect(),
            }
        };
        let mut names = of(ColumnCategory::Tag);
        names.extend(of(ColumnCategory::Field));
        write_csv_header(&mut out, csv, tree, &names)?;
    }
    out.flush()?;
    if a.explain {
        eprintln!("{}", it.get_ref().explain());
    }
    Ok(count)
}

/// A batch's CSV columns after the owner and time: its tags, then its value columns.
fn batch_columns(b: &DeviceBatch) -> Vec<&str> {
    (b.tags.iter().map(|(n, _)| n.as_str()))
        .chain(b.columns.iter().map(|c| c.name.as_str()))
        .collect()
}

fn write_csv_header(
    out: &mut impl Write,
    csv: &mut CsvLine,
    tree: bool,
    names: &[&str],
) -> Result<(), Failure> {
    let owner = if tree { "device" } else { "table" };
    let mut line = String::new();
    csv.names(&[&[owner, "time"], names].concat(), &mut line)?;
    writeln!(out, "{line}")?;
    Ok(())
}

/// Appends one row as a CSV record: the owner (table or device), the time, the tags, then
/// the values (text as itself, everything else as `cat`'s JSON without quotes).
pub(crate) fn csv_row(
    csv: &mut CsvLine,
    line: &mut String,
    owner: &str,
    t: i64,
    b: &DeviceBatch,
    values: &[ValueRef<'_>],
) -> Result<(), Failure> {
    let mut cells: Vec<Option<String>> = Vec::with_capacity(2 + b.tags.len() + values.len());
    cells.push(Some(owner.to_string()));
    cells.push(Some(t.to_string()));
    cells.extend(b.tags.iter().map(|(_, v)| v.clone()));
    let mut cell = String::new();
    for (c, v) in b.columns.iter().zip(values) {
        cells.push(match (c.data_type, v) {
            (_, ValueRef::Null) => None,
            // Text as itself (write_value would JSON-escape it).
            (DataType::Text | DataType::String, ValueRef::Binary(b)) => {
                Some(String::from_utf8_lossy(b).into_owned())
            }
            // Everything else is a JSON number, literal or a quoted string with nothing to
            // escape (dates, hex, "NaN"): drop the quotes.
            _ => {
                cell.clear();
                write_value(c.data_type, *v, FloatStyle::Shortest, &mut cell);
                let bare = cell.strip_prefix('"').and_then(|c| c.strip_suffix('"'));
                Some(bare.unwrap_or(&cell).to_string())
            }
        });
    }
    csv.record(cells, line)
}

pub(crate) fn json_row(
    line: &mut String,
    tree: bool,
    owner: &str,
    t: i64,
    b: &DeviceBatch,
    values: &[ValueRef<'_>],
) {
    line.push_str(if tree { "{\"device\":" } else { "{\"table\":" });
    write_str(line, owner);
    line.push_str(&format!(",\"time\":{t}"));
    if !b.tags.is_empty() {
        line.push(',');
        write_tag_members(&b.tags, line);
    }
    for (c, v) in b.columns.iter().zip(values) {
        line.push(',');
        write_str(line, &c.name);
        line.push(':');
        write_value(c.data_type, *v, FloatStyle::Shortest, line);
    }
    line.push('}');
}

/// `scan` of one TsFile, with its rows counted on `progress`.
pub fn scan(
    a: &ReadArgs,
    src: Input,
    progress: &mut crate::progress::Progress,
) -> Result<crate::read_cmds::ScanSummary, Failure> {
    let started = std::time::Instant::now();
    let bytes = colfile::source::ByteSource::len(&src);
    let local = matches!(src, Input::File(_));
    let r = open(a, src)?;
    let q = query_of(a)?;
    let ctx = |e: colfile::Error| Failure::from(e).context(&a.file);
    // A local file's devices are read in `--threads` runs, each on its own thread with its
    // own reader (and read-ahead); `--explain` reports one query, so it reads on one.
    let parts = if local && !a.explain {
        r.split_query(&q, a.scan_threads()).map_err(ctx)?
    } else {
        vec![q]
    };
    let count = |r: &TsFileReader<Input>, q: &Query, progress: &mut dyn FnMut(u64)| {
        let (mut rows, mut values) = (0u64, 0u64);
        let mut it = r.query(q).map_err(ctx)?.planned();
        for batch in &mut it {
            let b = batch.map_err(ctx)?;
            rows += b.len() as u64;
            values += b.value_count() as u64;
            progress(b.len() as u64);
        }
        if a.explain {
            eprintln!("{}", it.get_ref().explain());
        }
        Ok::<_, Failure>((rows, values))
    };
    let (first, rest) = parts
        .split_first()
        .ok_or_else(|| Failure::input("no query"))?;
    let (rows, values) = std::thread::scope(|s| {
        let helpers: Vec<_> = rest
            .iter()
            .map(|q| {
                s.spawn(move || {
                    let r = open(a, Input::open(&a.file).map_err(ctx)?)?;
                    count(&r, q, &mut |_| {})
                })
            })
            .collect();
        let mut total = count(&r, first, &mut |n| progress.rows_done(n, None))?;
        for h in helpers {
            let (rows, values) = h
                .join()
                .unwrap_or_else(|_| Err(Failure::input("a scanning thread panicked")))?;
            progress.rows_done(rows, None);
            total = (total.0 + rows, total.1 + values);
        }
        Ok::<_, Failure>(total)
    })?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(crate::read_cmds::ScanSummary {
        rows,
        values,
        bytes,
        seconds,
    })
}

pub fn meta(path: &std::path::Path, src: Input) -> Result<(), Failure> {
    let r = TsFileReader::open(src).map_err(|e| Failure::from(e).context(path))?;
    let j = colfile::tsfile::tools::meta_json::metadata_json(&r, true)
        .map_err(|e| Failure::from(e).context(path))?;
    crate::out_line(format_args!("{j}"))?;
    Ok(())
}

pub fn schema(path: &std::path::Path, src: Input, ddl: bool) -> Result<(), Failure> {
    let r = TsFileReader::open(src).map_err(|e| Failure::from(e).context(path))?;
    if ddl {
        return crate::convert::tsfile_ddl(path, &r.metadata().footer().schemas);
    }
    let j = colfile::tsfile::tools::meta_json::metadata_json(&r, false)
        .map_err(|e| Failure::from(e).context(path))?;
    crate::out_line(format_args!("{j}"))?;
    Ok(())
}

/// One `--schema` column: `name:TYPE:CATEGORY[:ENCODING[:COMPRESSION]]`.
pub(crate) fn parse_column(spec: &str, profile: Profile) -> Result<TableColumn, Failure> {
    let parts: Vec<&str> = spec.split(':').map(str::trim).collect();
    let bad = |m: String| Failure::usage(format!("--schema column {spec:?}: {m}"));
    if !(3..=5).contains(&parts.len()) {
        return Err(bad(
            "want name:TYPE:CATEGORY[:ENCODING[:COMPRESSION]]".into()
        ));
    }
    let data_type = DataType::from_name(parts[1]).map_err(|e| bad(e.to_string()))?;
    let category = ColumnCategory::from_name(parts[2]).map_err(|e| bad(e.to_string()))?;
    let mut c = TableColumn::new(parts[0], data_type, category);
    c.schema.encoding = profile.default_encoding(data_type);
    c.schema.compression = Compression::Lz4;
    if let Some(e) = parts.get(3) {
        c.schema.encoding = Encoding::from_name(e).map_err(|e| bad(e.to_string()))?;
    }
    if let Some(z) = parts.get(4) {
        c.schema.compression = Compression::from_name(z).map_err(|e| bad(e.to_string()))?;
    }
    Ok(c)
}

/// The writer options the command starts from: the library's defaults, with pages encoded on
/// the machine's cores (at most 8; the library itself starts no threads unless asked).
pub(crate) fn base_options() -> WriterOptions {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    WriterOptions::default().with_threads(cores)
}

fn options_of(a: &WriteArgs) -> WriterOptions {
    let mut o = base_options();
    if let Some(n) = a.ts.page_max_points {
        o = o.with_page_max_points(n);
    }
    if let Some(n) = a.ts.page_max_bytes {
        o = o.with_page_max_bytes(n);
    }
    if let Some(n) = a.ts.max_index_degree {
        o = o.with_max_index_degree(n);
    }
    if let Some(n) = a.ts.memory_threshold {
        o = o.with_memory_threshold(n);
    }
    o.role_masks = !a.ts.no_role_masks;
    if a.ts.java_profile {
        o = o.with_profile(Profile::Java);
    }
    for (k, v) in &a.ts.properties {
        o = o.with_property(k, Some(v.as_bytes()));
    }
    o
}

/// Writes a TsFile from `--schema` + `input`, or from an oracle `--spec` file, to `out`;
/// returns the summary line.
pub fn write<W: Write + Send>(
    a: &WriteArgs,
    out: W,
    input: crate::json_lines::RowInput<'_>,
) -> Result<String, Failure> {
    if let Some(spec) = &a.ts.spec {
        return crate::tsfile_spec::write_spec(spec, options_of(a), out);
    }
    if let Some(src) = &a.ts.from {
        return rewrite(src, options_of(a), out);
    }
    let columns: Vec<TableColumn> = a
        .schema
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|c| parse_column(c, options_of(a).profile))
        .collect::<Result<_, _>>()?;
    let mut w = TsFileWriter::new(out, options_of(a))?;
    let mut table_rows = None;
    let (target, names, types): (String, Vec<String>, Vec<DataType>) = if let Some(t) = &a.ts.table
    {
        let schema = TableSchema::new(t, columns.clone());
        table_rows = Some(crate::ts_rows::TableRows::new(&schema)?);
        w.register_table(schema)?;
        let data: Vec<&TableColumn> = columns
            .iter()
            .filter(|c| c.category != ColumnCategory::Time)
            .collect();
        (
            t.clone(),
            data.iter().map(|c| c.schema.name.to_lowercase()).collect(),
            data.iter().map(|c| c.schema.data_type).collect(),
        )
    } else {
        let path = a.ts.device.clone().unwrap_or_default();
        let ms: Vec<MeasurementSchema> = columns.iter().map(|c| c.schema.clone()).collect();
        w.register_device(&path, a.ts.aligned, ms.clone())?;
        (
            path,
            ms.iter().map(|m| m.name.clone()).collect(),
            ms.iter().map(|m| m.data_type).collect(),
        )
    };
    // Rows the scanner does not read are read with serde_json, which also says why a line
    // is not a row.
    let other = |n: usize, line: &str| -> Result<(i64, Vec<Value>), Failure> {
        let at = |m: String| Failure::input(format!("input line {n}: {m}"));
        let j: Json = serde_json::from_str(line).map_err(|e| at(format!("invalid JSON: {e}")))?;
        row_of(&j, &names, &types).map_err(at)
    };
    let failed =
        |(line, e): (usize, colfile::Error)| Failure::input(format!("input line {line}: {e}"));
    let sink = |parsed: crate::ts_ingest::ParsedRows| {
        parsed.each_row(|n, time, row| match &mut table_rows {
            // Gathered into column batches (an error names the line it belongs to).
            Some(rows) => rows.push(&mut w, n, time, row).map_err(failed),
            None => {
                let refs: Vec<(&str, ValueRef<'_>)> = names
                    .iter()
                    .map(String::as_str)
                    .zip(row.iter().copied())
                    .collect();
                w.write_record(&target, time, &refs)
                    .map_err(|e| Failure::input(format!("input line {n}: {e}")))
            }
        })
    };
    use crate::json_lines::RowInput;
    match input {
        // Lines parsed into typed cells on worker threads; rows gathered into batches and
        // written on another, whose pages the writer seals on one more.
        RowInput::Lines(input) => {
            let input = crate::json_lines::open_lines(input, a.input.as_deref())?;
            crate::json_lines::parse_in_order(
                crate::json_lines::line_batches(input),
                crate::json_lines::workers(),
                |lines| crate::ts_ingest::parse_rows(lines, &names, &types, &other),
                sink,
            )?;
        }
        // Records read on this thread, their cells made typed on worker threads.
        RowInput::Cells(reader, cells) => {
            crate::json_lines::parse_in_order(
                crate::json_lines::cell_batches(cells),
                crate::json_lines::workers(),
                |batch| crate::ts_ingest::parse_cells(batch, &*reader, &names, &types, &other),
                sink,
            )?;
        }
    }
    if let Some(rows) = &mut table_rows {
        rows.finish(&mut w).map_err(failed)?;
    }
    let s = w.finish()?;
    Ok(crate::write_cmd::ts_summary(&s))
}

/// Writes every table and tree device of the TsFile `src` again (same schemas, encodings
/// and compressions, `options` for the rest), batch by batch. The summary line's
/// `write_seconds` counts only the time spent in the writer.
fn rewrite<W: Write>(
    src: &std::path::Path,
    options: WriterOptions,
    out: W,
) -> Result<String, Failure> {
    let ctx = |e: colfile::Error| Failure::from(e).context(src);
    let r = TsFileReader::open(FileSource::open(src).map_err(ctx)?).map_err(ctx)?;
    let mut w = TsFileWriter::new(out, options)?;
    let mut writing = std::time::Duration::ZERO;
    for t in &r.metadata().footer().schemas {
        w.register_table(t.clone())?;
    }
    if r.metadata().footer().schemas.is_empty() {
        for d in r.devices(&Query::all()).map_err(ctx)? {
            let series = r.metadata().timeseries(r.source(), &d).map_err(ctx)?;
            let aligned = series.iter().any(|s| s.measurement_id.is_empty());
            let mut ms = Vec::new();
            for s in series.iter().filter(|s| !s.measurement_id.is_empty()) {
                let (enc, comp) = r.series_codec(s).map_err(ctx)?;
                ms.push(MeasurementSchema::new(
                    &s.measurement_id,
                    s.data_type,
                    enc,
                    comp,
                ));
            }
            w.register_device(&d.to_string(), aligned, ms)?;
        }
    }
    for b in r.query(&Query::all()).map_err(ctx)? {
        let b = b.map_err(ctx)?;
        let started = std::time::Instant::now();
        w.write_batch_owned(b)?;
        writing += started.elapsed();
    }
    let started = std::time::Instant::now();
    let s = w.finish()?;
    writing += started.elapsed();
    Ok(format!(
        "{{\"rows\":{},\"devices\":{},\"series\":{},\"chunks\":{},\"bytes\":{},\"write_seconds\":{:.6}}}",
        s.rows, s.devices, s.series, s.chunks, s.bytes, writing.as_secs_f64()
    ))
}

/// A JSON row: `[time, v1, v2, ...]` in column order, or an object with `"time"`.
pub fn row_of(j: &Json, names: &[String], types: &[DataType]) -> Result<(i64, Vec<Value>), String> {
    let time_of = |t: Option<&Json>| {
        t.and_then(Json::as_i64)
            .ok_or("the time must be an integer".to_string())
    };
    match j {
        Json::Array(items) => {
            if items.len() != names.len() + 1 {
                return Err(format!(
                    "{} values for time + {} columns",
                    items.len(),
                    names.len()
                ));
            }
            let time = time_of(items.first())?;
            let row = items[1..]
                .iter()
                .zip(types)
                .zip(names)
                .map(|((v, t), n)| from_json(*t, v).map_err(|e| format!("column {n}: {e}")))
                .collect::<Result<_, _>>()?;
            Ok((time, row))
        }
        Json::Object(m) => {
            let time = time_of(m.get("time"))?;
            for k in m.keys() {
                if k != "time" && !names.iter().any(|n| n.eq_ignore_ascii_case(k)) {
                    return Err(format!("unknown column {k:?}"));
                }
            }
            let row = names
                .iter()
                .zip(types)
                .map(|(n, t)| {
                    let v = m
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(n))
                        .map(|(_, v)| v)
                        .unwrap_or(&Json::Null);
                    from_json(*t, v).map_err(|e| format!("column {n}: {e}"))
                })
                .collect::<Result<_, _>>()?;
            Ok((time, row))
        }
        _ => Err("a row must be an array [time, ...] or an object".into()),
    }
}
