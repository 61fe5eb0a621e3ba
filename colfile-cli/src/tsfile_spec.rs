//! `write --format tsfile --spec FILE`: writes the official oracle's JSON spec format
//! (`oracles/tsfile/README.md`: tables or tree devices, per-column encodings, config, rows,
//! flushes), so a spec can be written by both implementations and the files compared.

use crate::tsfile_cmds::row_of;
use crate::Failure;
use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType, Encoding};
use colfile::tsfile::writer::Profile;
use colfile::tsfile::{TsFileWriter, Value, ValueRef, WriterOptions};
use serde_json::Value as Json;
use std::io::Write;
use std::path::Path;

fn field<'a>(j: &'a Json, k: &str) -> Option<&'a Json> {
    j.get(k).filter(|v| !v.is_null())
}

fn name_of<T>(
    j: &Json,
    k: &str,
    parse: fn(&str) -> colfile::Result<T>,
) -> Result<Option<T>, Failure> {
    match field(j, k).and_then(Json::as_str) {
        Some(s) => Ok(Some(parse(s)?)),
        None => Ok(None),
    }
}

/// Applies the spec's `config`, `properties` and `memory_threshold` on top of `o`.
fn options(spec: &Json, mut o: WriterOptions) -> Result<WriterOptions, Failure> {
    let cfg = field(spec, "config").cloned().unwrap_or(Json::Null);
    let num = |k: &str| field(&cfg, k).and_then(Json::as_u64).map(|v| v as usize);
    if let Some(n) = num("page_max_points") {
        o = o.with_page_max_points(n);
    }
    if let Some(n) = num("page_max_bytes") {
        o = o.with_page_max_bytes(n);
    }
    if let Some(n) = num("max_index_degree") {
        o = o.with_max_index_degree(n);
    }
    if let Some(p) = field(&cfg, "bloom_filter_error_percent").and_then(Json::as_f64) {
        o.bloom_error_rate = p;
    }
    if let Some(e) = name_of(&cfg, "time_encoding", Encoding::from_name)? {
        o.time_encoding = e;
    }
    if let Some(c) = name_of(&cfg, "time_compression", Compression::from_name)? {
        o.time_compression = c;
    }
    if let Some(n) = field(spec, "memory_threshold").and_then(Json::as_u64) {
        o = o.with_memory_threshold(n as usize);
    }
    if let Some(Json::Object(props)) = field(spec, "properties") {
        for (k, v) in props {
            o = o.with_property(k, v.as_str().map(str::as_bytes));
        }
    }
    Ok(o)
}

/// A column's encoding and compression: its own, else the table's per-type default, else
/// the `profile`'s defaults (LZ4).
fn codec_of(
    col: &Json,
    table: &Json,
    data_type: DataType,
    profile: Profile,
) -> Result<(Encoding, Compression), Failure> {
    let enc = match name_of(col, "encoding", Encoding::from_name)? {
        Some(e) => e,
        None => match field(table, "encodings").and_then(|e| e.get(data_type.name())) {
            Some(Json::String(e)) => Encoding::from_name(e)?,
            _ => profile.default_encoding(data_type),
        },
    };
    let comp = name_of(col, "compression", Compression::from_name)?
        .or(name_of(table, "compression", Compression::from_name)?)
        .unwrap_or(Compression::Lz4);
    Ok((enc, comp))
}

fn rows_sorted(t: &Json) -> Vec<&Json> {
    let mut rows: Vec<&Json> = field(t, "rows")
        .and_then(Json::as_array)
        .map(|r| r.iter().collect())
        .unwrap_or_default();
    let time = |r: &Json| match r {
        Json::Array(a) => a.first().and_then(Json::as_i64),
        _ => r.get("time").and_then(Json::as_i64),
    };
    rows.sort_by_key(|r| time(r).unwrap_or(i64::MIN));
    rows
}

/// Writes `path`'s spec to `out` and returns the summary line.
pub fn write_spec<W: Write>(path: &Path, base: WriterOptions, out: W) -> Result<String, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::from(e).context(path))?;
    let spec: Json = serde_json::from_str(&text)
        .map_err(|e| Failure::input(format!("{}: invalid JSON: {e}", path.display())))?;
    let profile = base.profile;
    let mut w = TsFileWriter::new(out, options(&spec, base)?)?;
    let tree = field(&spec, "model").and_then(Json::as_str) == Some("tree");
    let empty = Vec::new();
    let bad = |m: String| Failure::input(format!("{}: {m}", path.display()));
    if tree {
        let devices = field(&spec, "devices")
            .and_then(Json::as_array)
            .unwrap_or(&empty);
        let mut plans = Vec::new();
        for d in devices {
            let name = field(d, "name")
                .and_then(Json::as_str)
                .ok_or_else(|| bad("a device needs a name".into()))?;
            let mut ms = Vec::new();
            for m in field(d, "measurements")
                .and_then(Json::as_array)
                .unwrap_or(&empty)
            {
                let mname = field(m, "name").and_then(Json::as_str).unwrap_or_default();
                let dt = name_of(m, "type", DataType::from_name)?
                    .ok_or_else(|| bad(format!("{name}.{mname} needs a type")))?;
                let (enc, comp) = codec_of(m, &Json::Null, dt, profile)?;
                ms.push(MeasurementSchema::new(mname, dt, enc, comp));
            }
            let aligned = field(d, "aligned").and_then(Json::as_bool).unwrap_or(false);
            w.register_device(name, aligned, ms.clone())?;
            plans.push((name.to_owned(), ms, d));
        }
        for (name, ms, d) in &plans {
            let names: Vec<String> = ms.iter().map(|m| m.name.clone()).collect();
            let types: Vec<DataType> = ms.iter().map(|m| m.data_type).collect();
            let flush_every = field(d, "flush_every").and_then(Json::as_u64).unwrap_or(0);
            for (i, r) in rows_sorted(d).into_iter().enumerate() {
                let (time, row) =
                    row_of(r, &names, &types).map_err(|m| bad(format!("{name}: {m}")))?;
                let refs: Vec<(&str, ValueRef<'_>)> = names
                    .iter()
                    .map(String::as_str)
                    .zip(row.iter().map(Value::as_ref))
                    .filter(|(_, v)| !matches!(v, ValueRef::Null))
                    .collect();
                w.write_record(name, time, &refs)?;
                if flush_every > 0 && (i as u64 + 1) % flush_every == 0 {
                    w.flush()?;
                }
            }
        }
    } else {
        for t in field(&spec, "tables")
            .and_then(Json::as_array)
            .unwrap_or(&empty)
        {
            let tname = field(t, "name")
                .and_then(Json::as_str)
                .ok_or_else(|| bad("a table needs a name".into()))?;
            let mut cols = Vec::new();
            for c in field(t, "columns")
                .and_then(Json::as_array)
                .unwrap_or(&empty)
            {
                let cname = field(c, "name").and_then(Json::as_str).unwrap_or_default();
                let dt = name_of(c, "type", DataType::from_name)?
                    .ok_or_else(|| bad(format!("{tname}.{cname} needs a type")))?;
                let cat = name_of(c, "category", ColumnCategory::from_name)?
                    .unwrap_or(ColumnCategory::Field);
                let (enc, comp) = codec_of(c, t, dt, profile)?;
                let mut col = TableColumn::new(cname, dt, cat);
                if cat == ColumnCategory::Field {
                    col.schema.encoding = enc;
                    col.schema.compression = comp;
                } else {
                    // Tags and attributes are stored PLAIN with the table's compression.
                    col.schema.compression = comp;
                }
                cols.push(col);
            }
            let names: Vec<String> = cols
                .iter()
                .filter(|c| c.category != ColumnCategory::Time)
                .map(|c| c.schema.name.to_lowercase())
                .collect();
            let types: Vec<DataType> = cols
                .iter()
                .filter(|c| c.category != ColumnCategory::Time)
                .map(|c| c.schema.data_type)
                .collect();
            let attrs: Vec<bool> = cols
                .iter()
                .filter(|c| c.category != ColumnCategory::Time)
                .map(|c| c.category == ColumnCategory::Attribute)
                .collect();
            w.register_table(TableSchema::new(tname, cols))?;
            let flush_every = field(t, "flush_every").and_then(Json::as_u64).unwrap_or(0);
            for (i, r) in rows_sorted(t).into_iter().enumerate() {
                let (time, mut row) =
                    row_of(r, &names, &types).map_err(|m| bad(format!("{tname}: {m}")))?;
                // The reference writers keep no attribute values.
                for (v, &a) in row.iter_mut().zip(&attrs) {
                    if a {
                        *v = Value::Null;
                    }
                }
                w.write_row(tname, time, &row)?;
                if flush_every > 0 && (i as u64 + 1) % flush_every == 0 {
                    w.flush()?;
                }
            }
            if field(t, "flush_after")
                .and_then(Json::as_bool)
                .unwrap_or(false)
            {
                w.flush()?;
            }
        }
    }
    let s = w.finish()?;
    Ok(crate::write_cmd::ts_summary(&s))
}
