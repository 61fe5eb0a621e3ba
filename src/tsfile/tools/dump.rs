//! The official oracle's dump format (`tsoracle.py dump`, described in the oracle's README):
//! JSON lines for the schema, the devices, the properties, then one line per row. Used by
//! `colfile cat --format dump` and by the tests that compare with the oracle's expected
//! files, so both sides print exactly the same way.

use super::json::{write_tag_members, write_value, FloatStyle};
use crate::Result;
use crate::json_text::write_str;
use crate::source::ByteSource;
use crate::tsfile::format::DataType;
use crate::tsfile::format::batch::DeviceBatch;
use crate::tsfile::format::schema::TableSchema;
use crate::tsfile::format::value::ValueRef;
use crate::tsfile::read::reader::{Query, TsFileReader};
use serde_json::Value as Json;

/// Appends one row in the dump format: `tree` selects the tree-model form (`device`, no
/// `tags`); `owner` is the table name or the device path.
pub fn row_line(
    line: &mut String,
    tree: bool,
    owner: &str,
    t: i64,
    b: &DeviceBatch,
    values: &[ValueRef<'_>],
) {
    line.push_str("{\"kind\":\"row\",");
    line.push_str(if tree { "\"device\":" } else { "\"table\":" });
    write_str(line, owner);
    line.push_str(&format!(",\"time\":{t}"));
    if !tree {
        line.push_str(",\"tags\":{");
        write_tag_members(&b.tags, line);
        line.push('}');
    }
    line.push_str(",\"fields\":{");
    for (i, (c, v)) in b.columns.iter().zip(values).enumerate() {
        if i > 0 {
            line.push(',');
        }
        write_str(line, &c.name);
        line.push(':');
        match (c.data_type, v) {
            (DataType::Text | DataType::String, ValueRef::Binary(b))
                if std::str::from_utf8(b).is_err() =>
            {
                line.push_str("{\"invalid_utf8_hex\":\"");
                crate::json_text::push_hex(line, b);
                line.push_str("\"}");
            }
            _ => write_value(c.data_type, *v, FloatStyle::AsDouble, line),
        }
    }
    line.push_str("}}");
}

/// The `schema`, `devices` and `properties` lines that open a dump.
pub fn header_lines<S: ByteSource>(r: &TsFileReader<S>) -> Result<Vec<String>> {
    let tree = r.metadata().footer().schemas.is_empty();
    let m = r.metadata();
    let mut lines = Vec::new();
    let devices = r.devices(&Query::all())?;
    if tree {
        let mut devs = Vec::new();
        for d in &devices {
            let mut ms = Vec::new();
            for s in m.timeseries(r.source(), d)? {
                if s.measurement_id.is_empty() {
                    continue;
                }
                let (enc, comp) = r.series_codec(&s)?;
                ms.push(
                    serde_json::json!({"name": s.measurement_id, "type": s.data_type.name(),
                    "encoding": enc.name(), "compression": comp.name()}),
                );
            }
            devs.push((
                d.to_string(),
                serde_json::json!({"name": d.to_string(), "measurements": ms}),
            ));
        }
        devs.sort_by(|a, b| a.0.cmp(&b.0));
        let devs: Vec<Json> = devs.into_iter().map(|(_, j)| j).collect();
        lines.push(serde_json::json!({"kind":"schema","model":"tree","devices":devs}).to_string());
        let mut ids: Vec<Json> = devices
            .iter()
            .map(|d| serde_json::json!({"table": d.table_name(), "segments": d.segments(), "path": d.to_string()}))
            .collect();
        ids.sort_by_key(|j| j["path"].as_str().unwrap_or("").to_owned());
        lines.push(serde_json::json!({"kind":"devices","devices":ids}).to_string());
    } else {
        let mut tables: Vec<&TableSchema> = m.footer().schemas.iter().collect();
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        let tables: Vec<Json> = tables
            .iter()
            .map(|t| {
                serde_json::json!({"name": t.name, "columns": t.columns.iter().map(|c| serde_json::json!({
                    "name": c.schema.name, "type": c.schema.data_type.name(), "category": c.category.name()})).collect::<Vec<_>>()})
            })
            .collect();
        lines
            .push(serde_json::json!({"kind":"schema","model":"table","tables":tables}).to_string());
        let ids: Vec<Json> = devices
            .iter()
            .map(|d| serde_json::json!({"table": d.table_name(), "segments": d.segments()}))
            .collect();
        lines.push(serde_json::json!({"kind":"devices","devices":ids}).to_string());
    }
    let mut props = serde_json::Map::new();
    for (k, v) in m.properties() {
        let v = match v {
            None => Json::Null,
            Some(b) => match std::str::from_utf8(b) {
                Ok(s) => Json::String(s.to_owned()),
                Err(_) => serde_json::json!({"invalid_utf8_hex": hex(b)}),
            },
        };
        props.insert(k.clone(), v);
    }
    lines.push(serde_json::json!({"kind":"properties","properties":props}).to_string());
    Ok(lines)
}

fn hex(b: &[u8]) -> String {
    let mut s = String::new();
    crate::json_text::push_hex(&mut s, b);
    s
}
