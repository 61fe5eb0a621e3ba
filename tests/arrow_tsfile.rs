//! TsFile through Arrow (feature `arrow`): every fixture read as `RecordBatch`es gives the
//! rows of its expected dump; queries give the plain reader's rows in batches no longer than
//! asked; batches written through `TsFileArrowWriter` read back as written (fixed cases, a
//! proptest, the tree model); bad batches and queries fail with the documented error kinds.

use colfile_testkit as common;

#[path = "arrow_tsfile/errors.rs"]
mod errors;
#[path = "arrow_tsfile/fixtures.rs"]
mod fixtures;
#[path = "arrow_tsfile/queries.rs"]
mod queries;
#[path = "arrow_tsfile/tree.rs"]
mod tree;
#[path = "arrow_tsfile/write.rs"]
mod write;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int32Type, Int64Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{ArrowError, DataType as ArrowType, Field, TimeUnit};
use colfile::arrow::{TsFileArrowReader, TSFILE_CATEGORY_KEY, TSFILE_TYPE_KEY};
use colfile::tsfile::format::DataType;
use colfile::tsfile::tools::json::{write_value, FloatStyle};
use colfile::tsfile::{Query, TsFileReader, ValueRef};
use common::tsdump::{canon, ts_fixtures_dir};
use serde_json::Value as Json;

/// A fixture's reader.
pub fn open_fixture(name: &str) -> Arc<TsFileReader<Vec<u8>>> {
    let bytes = std::fs::read(ts_fixtures_dir().join(format!("{name}.tsfile"))).unwrap();
    Arc::new(TsFileReader::open(bytes).unwrap())
}

/// The colfile error inside an Arrow error.
pub fn colfile_error(e: ArrowError) -> colfile::Error {
    match e {
        ArrowError::ExternalError(inner) => *inner.downcast::<colfile::Error>().unwrap(),
        other => panic!("not a colfile error: {other}"),
    }
}

/// Every batch of `query` (batch size `batch_size`).
pub fn read_batches(
    reader: &Arc<TsFileReader<Vec<u8>>>,
    query: Query,
    batch_size: usize,
) -> colfile::Result<Vec<RecordBatch>> {
    let r = TsFileArrowReader::builder(Arc::clone(reader))
        .with_query(query)
        .with_batch_size(batch_size)
        .build()?;
    r.collect::<Result<Vec<_>, _>>().map_err(colfile_error)
}

/// The stored 64-bit value of a timestamp or Int64 array.
pub fn i64_at(a: &dyn Array, row: usize) -> i64 {
    match a.data_type() {
        ArrowType::Int64 => a.as_primitive::<Int64Type>().value(row),
        ArrowType::Timestamp(TimeUnit::Second, _) => {
            a.as_primitive::<TimestampSecondType>().value(row)
        }
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => {
            a.as_primitive::<TimestampMillisecondType>().value(row)
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            a.as_primitive::<TimestampMicrosecondType>().value(row)
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            a.as_primitive::<TimestampNanosecondType>().value(row)
        }
        t => panic!("{t} is not a 64-bit time"),
    }
}

/// Days since 1970-01-01 as `YYYYMMDD`, counted year by year and month by month.
pub fn days_to_date(days: i32) -> i32 {
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let year_len = |y: i64| if leap(y) { 366 } else { 365 };
    let (mut y, mut d) = (1970i64, i64::from(days));
    while d < 0 {
        y -= 1;
        d += year_len(y);
    }
    while d >= year_len(y) {
        d -= year_len(y);
        y += 1;
    }
    let months = [
        31,
        if leap(y) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let mut m = 0;
    while d >= months[m] {
        d -= months[m];
        m += 1;
    }
    (y * 10000 + (m as i64 + 1) * 100 + d + 1) as i32
}

/// The TsFile data type a field says it holds.
pub fn field_type(f: &Field) -> DataType {
    DataType::from_name(&f.metadata()[TSFILE_TYPE_KEY]).unwrap()
}

/// Row `row` of `a` in the dump's JSON form for a `ts` column.
pub fn value_json(a: &dyn Array, row: usize, ts: DataType) -> Json {
    if a.is_null(row) {
        return Json::Null;
    }
    let v = match a.data_type() {
        ArrowType::Boolean => ValueRef::Boolean(a.as_boolean().value(row)),
        ArrowType::Int32 => ValueRef::Int32(a.as_primitive::<Int32Type>().value(row)),
        ArrowType::Int64 | ArrowType::Timestamp(_, _) => ValueRef::Int64(i64_at(a, row)),
        ArrowType::Float32 => ValueRef::Float(a.as_primitive::<Float32Type>().value(row)),
        ArrowType::Float64 => ValueRef::Double(a.as_primitive::<Float64Type>().value(row)),
        ArrowType::Utf8 => ValueRef::Binary(a.as_string::<i32>().value(row).as_bytes()),
        ArrowType::Binary => ValueRef::Binary(a.as_binary::<i32>().value(row)),
        ArrowType::Date32 => {
            ValueRef::Int32(days_to_date(a.as_primitive::<Date32Type>().value(row)))
        }
        t => panic!("unexpected Arrow type {t}"),
    };
    let mut s = String::new();
    write_value(ts, v, FloatStyle::AsDouble, &mut s);
    serde_json::from_str(&s).unwrap()
}

/// The rows of a batch in the oracle dump's form (`table` set: table model).
pub fn batch_rows(batch: &RecordBatch, table: Option<&str>) -> Vec<Json> {
    let schema = batch.schema();
    let time = schema.index_of("time").unwrap();
    let mut out = Vec::new();
    for row in 0..batch.num_rows() {
        let (mut tags, mut fields) = (serde_json::Map::new(), serde_json::Map::new());
        let mut device = None;
        for (f, a) in schema.fields().iter().zip(batch.columns()) {
            let category = f.metadata()[TSFILE_CATEGORY_KEY].as_str();
            let v = value_json(a.as_ref(), row, field_type(f));
            match (category, f.name().as_str()) {
                ("TIME", _) => {}
                ("TAG", "device") if table.is_none() => device = Some(v),
                ("TAG", _) => drop(tags.insert(f.name().clone(), v)),
                _ => drop(fields.insert(f.name().clone(), v)),
            }
        }
        let t = i64_at(batch.column(time).as_ref(), row);
        out.push(match table {
            Some(table) => serde_json::json!({"kind": "row", "table": table, "time": t,
                "tags": tags, "fields": fields}),
            None => serde_json::json!({"kind": "row", "device": device.unwrap(), "time": t,
                "fields": fields}),
        });
    }
    out
}

/// A dump row with its null fields removed (tree-model batches carry every selected
/// device's measurements, null where a device lacks one).
pub fn without_null_fields(mut row: Json) -> Json {
    if let Some(f) = row.get_mut("fields").and_then(Json::as_object_mut) {
        f.retain(|_, v| !v.is_null());
    }
    row
}

/// Canonical text of dump rows, in order.
pub fn canon_rows(rows: &[Json]) -> Vec<String> {
    rows.iter().map(canon).collect()
}
