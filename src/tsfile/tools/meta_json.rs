//! The JSON that `colfile meta` and `colfile schema` print for a TsFile: the footer's
//! tables, schemas, properties and Bloom filter, and (for `meta`) every device with its
//! series, their chunks and statistics.

use super::json::{write_value, FloatStyle};
use crate::Result;
use crate::json_text::push_hex;
use crate::source::ByteSource;
use crate::tsfile::format::statistics::{StatValues, Statistics};
use crate::tsfile::format::value::ValueRef;
use crate::tsfile::format::{DataType, DeviceId};
use crate::tsfile::read::reader::TsFileReader;
use serde_json::{json, Map, Value as Json};

/// Statistics as a JSON object: `count`, `start_time`, `end_time` and the typed fields
/// (values in [`write_value`]'s forms; BLOB and time statistics have none).
pub fn statistics_json(s: &Statistics, data_type: DataType) -> Json {
    let mut m = Map::new();
    m.insert("count".into(), json!(s.count));
    m.insert("start_time".into(), json!(s.start_time));
    m.insert("end_time".into(), json!(s.end_time));
    let mut put = |k: &str, v: ValueRef<'_>| {
        let mut t = String::new();
        write_value(data_type, v, FloatStyle::Shortest, &mut t);
        m.insert(k.into(), serde_json::from_str(&t).unwrap_or(Json::Null));
    };
    match &s.values {
        StatValues::Boolean { first, last, sum } => {
            put("first", ValueRef::Boolean(*first));
            put("last", ValueRef::Boolean(*last));
            put("sum", ValueRef::Int64(*sum));
        }
        StatValues::Int32(n) => {
            for (k, v) in [
                ("min", n.min),
                ("max", n.max),
                ("first", n.first),
                ("last", n.last),
            ] {
                put(k, ValueRef::Int32(v));
            }
            m.insert("sum".into(), json!(n.sum));
        }
        StatValues::Int64(n) => {
            for (k, v) in [
                ("min", n.min),
                ("max", n.max),
                ("first", n.first),
                ("last", n.last),
            ] {
                put(k, ValueRef::Int64(v));
            }
            put_f64(&mut m, n.sum);
        }
        StatValues::Float(n) => {
            for (k, v) in [
                ("min", n.min),
                ("max", n.max),
                ("first", n.first),
                ("last", n.last),
            ] {
                put(k, ValueRef::Float(v));
            }
            put_f64(&mut m, n.sum);
        }
        StatValues::Double(n) => {
            for (k, v) in [
                ("min", n.min),
                ("max", n.max),
                ("first", n.first),
                ("last", n.last),
            ] {
                put(k, ValueRef::Double(v));
            }
            put_f64(&mut m, n.sum);
        }
        StatValues::Text { first, last } => {
            put("first", ValueRef::Binary(first));
            put("last", ValueRef::Binary(last));
        }
        StatValues::String {
            first,
            last,
            min,
            max,
        } => {
            put("first", ValueRef::Binary(first));
            put("last", ValueRef::Binary(last));
            put("min", ValueRef::Binary(min));
            put("max", ValueRef::Binary(max));
        }
        _ => {}
    }
    Json::Object(m)
}

fn put_f64(m: &mut Map<String, Json>, v: f64) {
    let mut t = String::new();
    write_value(
        DataType::Double,
        ValueRef::Double(v),
        FloatStyle::Shortest,
        &mut t,
    );
    m.insert("sum".into(), serde_json::from_str(&t).unwrap_or(Json::Null));
}

/// Sets `j[key] = value` when `j` is an object (the `json!({...})` values here always are);
/// unlike `j[key] = value` it cannot panic.
pub(crate) fn set_key(j: &mut Json, key: &str, value: Json) {
    if let Some(o) = j.as_object_mut() {
        o.insert(key.to_owned(), value);
    }
}

fn device_json(d: &DeviceId) -> Json {
    json!({"device": d.to_string(), "table": d.table_name(), "segments": d.segments()})
}

/// The footer as JSON; with `full`, also every device's series, chunks and statistics
/// (this walks the whole index).
pub fn metadata_json<S: ByteSource>(r: &TsFileReader<S>, full: bool) -> Result<Json> {
    let m = r.metadata();
    let footer = m.footer();
    let tree = footer.schemas.is_empty();
    let tables: Vec<Json> = footer
        .schemas
        .iter()
        .map(|t| {
            json!({"name": t.name, "columns": t.columns.iter().map(|c| json!({
                "name": c.schema.name, "type": c.schema.data_type.name(),
                "category": c.category.name(), "encoding": c.schema.encoding.name(),
                "compression": c.schema.compression.name(),
                "properties": c.schema.props.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
            })).collect::<Vec<_>>()})
        })
        .collect();
    let mut props = Map::new();
    for (k, v) in &footer.properties {
        props.insert(
            k.clone(),
            match v {
                None => Json::Null,
                Some(b) => match std::str::from_utf8(b) {
                    Ok(s) => json!(s),
                    Err(_) => {
                        let mut h = String::new();
                        push_hex(&mut h, b);
                        json!({ "hex": h })
                    }
                },
            },
        );
    }
    let mut out = Map::new();
    out.insert("format".into(), json!("tsfile"));
    out.insert("version".into(), json!(m.version()));
    out.insert("model".into(), json!(if tree { "tree" } else { "table" }));
    out.insert("file_length".into(), json!(r.source().len()));
    out.insert("meta_offset".into(), json!(footer.meta_offset));
    out.insert("tables".into(), Json::Array(tables));
    out.insert(
        "index_roots".into(),
        Json::Array(
            footer
                .table_roots
                .iter()
                .map(|(t, n)| json!({"table": t, "type": n.node_type.name(), "entries": n.entries.len(), "end_offset": n.end_offset}))
                .collect(),
        ),
    );
    out.insert(
        "bloom_filter".into(),
        match &footer.bloom {
            Some(b) => json!({"bits": b.bit_count(), "hash_functions": b.hash_count()}),
            None => Json::Null,
        },
    );
    out.insert("properties".into(), Json::Object(props));
    let devices = r.devices(&crate::tsfile::Query::all())?;
    let mut devs = Vec::new();
    for d in &devices {
        let mut dj = device_json(d);
        let mut series = Vec::new();
        for s in m.timeseries(r.source(), d)? {
            let mut sj = json!({"measurement": s.measurement_id, "type": s.data_type.name(),
                "chunks": s.chunks.len()});
            if let Ok((enc, comp)) = r.series_codec(&s) {
                set_key(&mut sj, "encoding", json!(enc.name()));
                set_key(&mut sj, "compression", json!(comp.name()));
            }
            if full {
                set_key(&mut sj, "timeseries_type", json!(s.timeseries_type));
                let stats = statistics_json(&s.statistics, s.data_type);
                set_key(&mut sj, "statistics", stats);
                let offsets: Vec<i64> = s.chunks.iter().map(|c| c.offset_of_chunk_header).collect();
                set_key(&mut sj, "chunk_offsets", json!(offsets));
                if s.chunks.len() > 1 {
                    let stats = (s.chunks.iter())
                        .filter_map(|c| c.statistics.as_ref())
                        .map(|st| statistics_json(st, s.data_type));
                    set_key(&mut sj, "chunk_statistics", Json::Array(stats.collect()));
                }
            }
            series.push(sj);
        }
        set_key(&mut dj, "series", Json::Array(series));
        devs.push(dj);
    }
    out.insert("devices".into(), Json::Array(devs));
    Ok(Json::Object(out))
}
