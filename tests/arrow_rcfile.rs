//! RCFile through Arrow (feature `arrow`): every Hive fixture read as record batches gives
//! the rows of Hive's own dump (converted here from Arrow arrays independently of the
//! library's conversion), projections and splits select what they should, batches respect
//! their size, and batches written with `RcFileArrowWriter` read back equal.

use colfile_testkit as common;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use colfile::arrow::{hive_schema_to_arrow, RcFileArrowReader, RcFileArrowWriter, HIVE_TYPE_KEY};
use colfile::rcfile::{json, Date, Decimal, HiveType, RcFileWriter, Schema, Serde, Timestamp};
use colfile::ErrorKind;
use common::*;
use proptest::prelude::*;
use serde_json::{json as j, Value as Json};

fn serde_of(dump: &Json) -> Serde {
    let name = dump["serde"].as_str().unwrap();
    // Hive 2.3 (the oracle) counts binary days in the hybrid Julian/Gregorian calendar.
    let calendar = (name == "binary").then_some("hybrid");
    Serde::from_options(name, &serde_props(dump), None, calendar).unwrap()
}

fn typed_fixtures() -> Vec<Fixture> {
    fixtures()
        .into_iter()
        .filter(|f| f.dump["serde"].is_string() && f.dump["serde"] != "raw")
        .collect()
}

/// Row `i` of `a` in the dump's JSON shape, written from the Arrow array alone.
fn cell(a: &dyn Array, i: usize) -> Json {
    if a.is_null(i) {
        return Json::Null;
    }
    match a.data_type() {
        DataType::Boolean => j!(a.as_boolean().value(i)),
        DataType::Int8 => j!(a.as_primitive::<Int8Type>().value(i)),
        DataType::Int16 => j!(a.as_primitive::<Int16Type>().value(i)),
        DataType::Int32 => j!(a.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => j!(a.as_primitive::<Int64Type>().value(i)),
        DataType::Float32 => float(f64::from(a.as_primitive::<Float32Type>().value(i))),
        DataType::Float64 => float(a.as_primitive::<Float64Type>().value(i)),
        DataType::Utf8 => j!(a.as_string::<i32>().value(i)),
        DataType::Binary => j!(hex(a.as_binary::<i32>().value(i))),
        DataType::Date32 => j!(Date(a.as_primitive::<Date32Type>().value(i)).to_string()),
        DataType::Timestamp(unit, None) => {
            let (v, per) = match unit {
                TimeUnit::Nanosecond => (a.as_primitive::<TimestampNanosecondType>().value(i), 1),
                TimeUnit::Microsecond => {
                    (a.as_primitive::<TimestampMicrosecondType>().value(i), 1000)
                }
                u => panic!("unit {u:?}"),
            };
            let ns = i128::from(v) * per;
            let t = Timestamp::new(
                (ns.div_euclid(1_000_000_000)) as i64,
                ns.rem_euclid(1_000_000_000) as u32,
            )
            .unwrap();
            j!(t.to_string())
        }
        DataType::Decimal128(_, s) => {
            let d = Decimal::new(a.as_primitive::<Decimal128Type>().value(i), *s as u8).unwrap();
            j!(d.to_string())
        }
        DataType::List(_) => {
            let items = a.as_list::<i32>().value(i);
            Json::Array((0..items.len()).map(|k| cell(items.as_ref(), k)).collect())
        }
        DataType::Map(..) => {
            let e = a.as_map().value(i);
            Json::Array(
                (0..e.len())
                    .map(|k| j!([cell(e.column(0).as_ref(), k), cell(e.column(1).as_ref(), k)]))
                    .collect(),
            )
        }
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let mut o = serde_json::Map::new();
            for (f, c) in fields.iter().zip(s.columns()) {
                o.insert(f.name().clone(), cell(c.as_ref(), i));
            }
            Json::Object(o)
        }
        DataType::Union(..) => {
            let u = a.as_union();
            let id = u.type_id(i);
            j!({"tag": id, "value": cell(u.child(id).as_ref(), u.value_offset(i))})
        }
        t => panic!("unexpected Arrow type {t}"),
    }
}

fn float(x: f64) -> Json {
    match x {
        x if x.is_nan() => j!("NaN"),
        f64::INFINITY => j!("Infinity"),
        f64::NEG_INFINITY => j!("-Infinity"),
        x => j!(x),
    }
}

/// Reads with nanosecond timestamps; where a timestamp lies outside their range (Hive
/// fixtures hold `9999-12-31 23:59:59.999999999`), checks that this is the error and reads
/// with microseconds instead.
fn read_all(bytes: &[u8], schema: &Schema, serde: &Serde, batch: usize) -> Vec<RecordBatch> {
    let read = |unit| {
        RcFileArrowReader::builder(bytes, schema.clone(), serde.clone())
            .with_batch_size(batch)
            .with_timestamp_unit(unit)
            .build()
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
    };
    match read(TimeUnit::Nanosecond) {
        Ok(b) => b,
        Err(arrow_schema::ArrowError::ExternalError(e)) => {
            let e = e.downcast::<colfile::Error>().unwrap();
            assert!(
                matches!(e.kind(), ErrorKind::Unsupported(m) if m.contains("timestamp")),
                "{e}"
            );
            read(TimeUnit::Microsecond).unwrap()
        }
        Err(e) => panic!("{e}"),
    }
}

/// `v` as a microsecond reader gives it (timestamps cut to whole microseconds).
fn in_micros(v: colfile::rcfile::Value, unit: &DataType) -> colfile::rcfile::Value {
    match (v, unit) {
        (colfile::rcfile::Value::Timestamp(t), DataType::Timestamp(TimeUnit::Microsecond, _)) => {
            colfile::rcfile::Value::Timestamp(
                Timestamp::new(t.seconds, t.nanos / 1000 * 1000).unwrap(),
            )
        }
        (v, _) => v,
    }
}

/// Checks `batches` against the dump rows (all columns of `schema`, in order).
fn assert_rows(name: &str, schema: &Schema, batches: &[RecordBatch], want: &[Json]) {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, want.len(), "{name}: row count");
    let mut r = 0;
    for b in batches {
        for i in 0..b.num_rows() {
            for (c, col) in schema.columns().iter().enumerate() {
                let got = cell(b.column(c).as_ref(), i);
                let a = json::from_json(&col.ty, &got).unwrap();
                let e = json::from_json(&col.ty, &want[r][c]).unwrap();
                let e = in_micros(e, b.schema().field(c).data_type());
                if want[r][c].is_null() && got == j!({"tag": 0, "value": null}) {
                    // Arrow unions have no validity of their own: a NULL union is read as
                    // a NULL of member 0 (documented in colfile::arrow).
                    continue;
                }
                assert!(
                    a.same_as(&e),
                    "{name} row {r} col {}: got {got} want {}",
                    col.name,
                    want[r][c]
                );
            }
            r += 1;
        }
    }
}

#[test]
fn every_fixture_reads_as_hive_dumped_it() {
    let mut checked = 0;
    for f in typed_fixtures() {
        let schema: Schema = schema_text(&f.dump).parse().unwrap();
        let bytes = std::fs::read(&f.rc).unwrap();
        let batches = read_all(&bytes, &schema, &serde_of(&f.dump), 100);
        for b in &batches {
            assert!(
                b.num_rows() <= 100 && b.num_rows() > 0,
                "{}: batch size",
                f.name
            );
            assert_eq!(b.schema(), batches[0].schema());
        }
        assert_rows(
            &f.name,
            &schema,
            &batches,
            f.dump["rows"].as_array().unwrap(),
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} typed fixtures");
}

/// The RCFiles other projects wrote (`../shared/fixtures/external/real`, when it is beside
/// the clone) give the row reader's rows through every columnar path: columnar batches of
/// whole groups and of 2-row slices, and Arrow batches of 2 rows. The corrupt one fails on
/// both paths.
#[test]
fn real_rcfiles_read_alike_on_every_path() {
    use colfile::rcfile::{ColumnBatch, RcFileReader};
    let Some(ext) = external_dir() else { return };
    // Rows each holds, and its DDL where the README gives one (else every column a string).
    let files = [
        ("hcat_boolean.rcfile", 2, Some("b:boolean,i:int")),
        (
            "hcat_complex.rcfile",
            2,
            Some("m:map<string,string>,s:struct<num:int,str:string,dbl:double>,a:array<map<string,string>>,i:int"),
        ),
        ("hive_part.rc", 26, None),
        ("hive_rc-file-v0.rc", 1, None),
        ("hive_smb_bucket_input.rc", 7, None),
        ("hive_smbbucket_1.rc", 5, Some("key:int,value:string")),
        ("hive_smbbucket_2.rc", 4, None),
        ("hive_smbbucket_3.rc", 6, None),
        ("impala_rc_tinytable_extra_col.rc", 3, None),
    ];
    let serde = Serde::text();
    for (name, rows, ddl) in files {
        let bytes = std::fs::read(ext.join("real").join(name)).unwrap();
        let mut r = RcFileReader::new(bytes.as_slice()).unwrap();
        let schema: Schema = match ddl {
            Some(d) => d.parse().unwrap(),
            None => (0..r.header().column_count)
                .map(|c| format!("c{c}:string"))
                .collect::<Vec<_>>()
                .join(",")
                .parse()
                .unwrap(),
        };
        let (mut want, mut values) = (Vec::new(), Vec::new());
        let (mut whole, mut part) = (ColumnBatch::default(), ColumnBatch::default());
        while let Some(g) = r.next_row_group().unwrap() {
            let mut group = vec![Vec::new(); g.num_rows()];
            for (c, col) in schema.columns().iter().enumerate() {
                values.clear();
                g.decode_column(c, &col.ty, &serde, &mut values).unwrap();
                g.decode_batch(c, &col.ty, &serde, &mut whole).unwrap();
                for (i, v) in values.iter().enumerate() {
                    if i % 2 == 0 {
                        let end = g.num_rows().min(i + 2);
                        g.decode_batch_rows(c, i..end, &col.ty, &serde, &mut part)
                            .unwrap();
                    }
                    for b in [whole.value(i, &col.ty), part.value(i % 2, &col.ty)] {
                        let b = b.unwrap();
                        assert!(b.same_as(v), "{name} {} row {i}: {b:?} vs {v:?}", col.name);
                    }
                    let mut text = String::new();
                    json::write_value(&col.ty, v, &mut text);
                    group[i].push(serde_json::from_str::<Json>(&text).unwrap());
                }
            }
            want.extend(group.into_iter().map(Json::Array));
        }
        assert_eq!(want.len(), rows, "{name}");
        assert_rows(name, &schema, &read_all(&bytes, &schema, &serde, 2), &want);
    }
    let corrupt = std::fs::read(ext.join("real/hive_archive_corrupt.rc")).unwrap();
    let schema: Schema = "c:string".parse().unwrap();
    let arrow = RcFileArrowReader::builder(corrupt.as_slice(), schema, serde)
        .build()
        .and_then(|r| {
            r.collect::<Result<Vec<_>, _>>()
                .map_err(colfile::Error::from)
        });
    assert!(arrow.is_err());
    let mut r = RcFileReader::new(corrupt.as_slice()).unwrap();
    assert!(r.next_row_group().is_err());
}

/// The reader moves its decode buffers into the arrays and takes them back once the caller
/// drops them, and a dropped reader leaves them to the next one on the thread: batches the
/// caller keeps must never change, and reused buffers must give the same batches.
#[test]
fn kept_batches_stay_intact_while_readers_reuse_buffers() {
    let mut kept = Vec::new();
    for f in typed_fixtures() {
        let schema: Schema = schema_text(&f.dump).parse().unwrap();
        let bytes = std::fs::read(&f.rc).unwrap();
        let serde = serde_of(&f.dump);
        let held = read_all(&bytes, &schema, &serde, 7);
        let unit = held
            .iter()
            .flat_map(|b| b.schema().fields().iter().cloned().collect::<Vec<_>>())
            .find_map(|fl| match fl.data_type() {
                DataType::Timestamp(u, _) => Some(*u),
                _ => None,
            })
            .unwrap_or(TimeUnit::Nanosecond);
        // Each batch dropped before the next: its buffers go back to the reader.
        let reader = RcFileArrowReader::builder(bytes.as_slice(), schema.clone(), serde)
            .with_batch_size(7)
            .with_timestamp_unit(unit)
            .build()
            .unwrap();
        let mut n = 0;
        for (i, b) in reader.enumerate() {
            assert_eq!(b.unwrap(), held[i], "{} batch {i}", f.name);
            n += 1;
        }
        assert_eq!(n, held.len(), "{}", f.name);
        kept.push((f, schema, held));
    }
    for (f, schema, held) in &kept {
        assert_rows(&f.name, schema, held, f.dump["rows"].as_array().unwrap());
    }
}

#[test]
fn schema_carries_hive_types_and_nanosecond_timestamps_by_default() {
    let schema: Schema = "c:char(4),v:varchar(10),ts:timestamp,m:map<int,string>"
        .parse()
        .unwrap();
    let arrow = hive_schema_to_arrow(&schema);
    assert_eq!(arrow.field(0).metadata()[HIVE_TYPE_KEY], "char(4)");
    assert_eq!(arrow.field(1).data_type(), &DataType::Utf8);
    assert_eq!(
        arrow.field(2).data_type(),
        &DataType::Timestamp(TimeUnit::Nanosecond, None)
    );
    let DataType::Map(entries, false) = arrow.field(3).data_type() else {
        panic!("map")
    };
    let DataType::Struct(kv) = entries.data_type() else {
        panic!("entries")
    };
    assert!(!kv[0].is_nullable(), "map keys are not nullable");
    assert_eq!(
        colfile::arrow::arrow_schema_to_hive(&arrow).unwrap(),
        schema,
        "the metadata brings char/varchar back"
    );
}

#[test]
fn projection_reads_only_the_named_columns_in_the_order_asked() {
    let f = typed_fixtures()
        .into_iter()
        .find(|f| f.name == "all_types_binary_snappy")
        .unwrap();
    let schema: Schema = schema_text(&f.dump).parse().unwrap();
    let bytes = std::fs::read(&f.rc).unwrap();
    let reader = RcFileArrowReader::builder(bytes.as_slice(), schema.clone(), serde_of(&f.dump))
        .with_columns(&["st", "i"])
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    let names: Vec<String> = batches[0]
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, ["st", "i"]);
    let want = f.dump["rows"].as_array().unwrap();
    let (st, i) = (
        schema.index_of("st").unwrap(),
        schema.index_of("i").unwrap(),
    );
    let mut r = 0;
    for b in &batches {
        for k in 0..b.num_rows() {
            assert_eq!(cell(b.column(1).as_ref(), k), want[r][i]);
            let got = json::from_json(&schema.columns()[st].ty, &cell(b.column(0).as_ref(), k));
            let exp = json::from_json(&schema.columns()[st].ty, &want[r][st]);
            assert!(got.unwrap().same_as(&exp.unwrap()));
            r += 1;
        }
    }
    assert_eq!(r, want.len());
    // Zero columns still count rows (what `SELECT count(*)` asks for).
    let none = RcFileArrowReader::builder(bytes.as_slice(), schema.clone(), serde_of(&f.dump))
        .with_projection([])
        .build()
        .unwrap();
    let n: usize = none.map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(n, want.len());
    let bad = RcFileArrowReader::builder(bytes.as_slice(), schema, serde_of(&f.dump))
        .with_projection([0, 0])
        .build();
    assert!(matches!(
        bad.unwrap_err().kind(),
        ErrorKind::InvalidArgument(_)
    ));
}

#[test]
fn splits_cover_the_file_once() {
    let f = typed_fixtures()
        .into_iter()
        .find(|f| f.name == "multi_group_text")
        .unwrap();
    let schema: Schema = schema_text(&f.dump).parse().unwrap();
    let bytes = std::fs::read(&f.rc).unwrap();
    let len = bytes.len() as u64;
    let mut ids = Vec::new();
    for k in 0..5 {
        let range = len * k / 5..len * (k + 1) / 5;
        let reader =
            RcFileArrowReader::builder(bytes.as_slice(), schema.clone(), serde_of(&f.dump))
                .with_columns(&["id"])
                .unwrap()
                .with_split(range)
                .build()
                .unwrap();
        for b in reader {
            let b = b.unwrap();
            ids.extend(
                b.column(0)
                    .as_primitive::<Int32Type>()
                    .values()
                    .iter()
                    .copied(),
            );
        }
    }
    let want: Vec<i32> = f.dump["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[0].as_i64().unwrap() as i32)
        .collect();
    assert_eq!(ids, want);
}

#[test]
fn invalid_utf8_is_a_located_error_or_replaced_when_lossy() {
    let schema: Schema = "s:string".parse().unwrap();
    let mut w = RcFileWriter::builder(Vec::new(), 1).build().unwrap();
    w.write_row(&[b"ok".as_slice()]).unwrap();
    w.write_row(&[b"bad \xff".as_slice()]).unwrap();
    let (file, _) = w.finish_into_inner().unwrap();
    let mut r = RcFileArrowReader::builder(file.as_slice(), schema.clone(), Serde::text())
        .build()
        .unwrap();
    let err = r.next().unwrap().unwrap_err();
    let arrow_schema::ArrowError::ExternalError(inner) = err else {
        panic!("{err}")
    };
    let e = inner.downcast::<colfile::Error>().unwrap();
    assert!(matches!(e.kind(), ErrorKind::InvalidArgument(_)), "{e}");
    assert_eq!(e.location().row, Some(1), "{e}");
    assert_eq!(e.location().column, Some(0), "{e}");
    let lossy: Vec<RecordBatch> =
        RcFileArrowReader::builder(file.as_slice(), schema, Serde::text())
            .with_lossy_utf8(true)
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    assert_eq!(
        lossy[0].column(0).as_string::<i32>().value(1),
        "bad \u{fffd}"
    );
}

#[test]
fn far_timestamps_need_a_coarser_unit() {
    let schema: Schema = "t:timestamp".parse().unwrap();
    let mut w = RcFileWriter::builder(Vec::new(), 1).build().unwrap();
    w.write_row(&[b"9999-12-31 23:59:59.999999".as_slice()])
        .unwrap();
    let (file, _) = w.finish_into_inner().unwrap();
    let ns = RcFileArrowReader::builder(file.as_slice(), schema.clone(), Serde::text())
        .build()
        .unwrap()
        .next()
        .unwrap();
    // A defined result: an error naming the value, the column and the row (not a wrapped
    // or clamped timestamp).
    let msg = ns.unwrap_err().to_string();
    for part in ["9999-12-31", "coarser unit", "column 0", "row 0"] {
        assert!(msg.contains(part), "{part:?} missing from: {msg}");
    }
    let us = read_all(&file, &schema, &Serde::text(), 10);
    assert_eq!(
        cell(us[0].column(0).as_ref(), 0),
        j!("9999-12-31 23:59:59.999999")
    );
}

/// Writes `batches` with `serde` and reads them back.
fn round_trip(schema: &Schema, serde: Serde, batches: &[RecordBatch]) -> Vec<RecordBatch> {
    let raw = RcFileWriter::builder(Vec::new(), schema.len())
        .with_row_group_rows(7)
        .build()
        .unwrap();
    let mut w = RcFileArrowWriter::new(raw, schema.clone(), serde.clone());
    for b in batches {
        w.write(b).unwrap();
    }
    let (file, summary) = w.finish_into_inner().unwrap();
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(summary.rows as usize, rows);
    read_all(&file, schema, &serde, 1 << 20)
}

#[test]
fn fixtures_written_from_arrow_read_back_equal() {
    for f in typed_fixtures() {
        let schema: Schema = schema_text(&f.dump).parse().unwrap();
        let bytes = std::fs::read(&f.rc).unwrap();
        let batches = read_all(&bytes, &schema, &serde_of(&f.dump), 64);
        // With the fixture's own serde: each has values the other cannot hold (the text
        // serde cannot tell an array of one NULL from a NULL array; the binary serde, like
        // Hive's, refuses empty binaries).
        let back = round_trip(&schema, serde_of(&f.dump), &batches);
        assert_rows(&f.name, &schema, &back, f.dump["rows"].as_array().unwrap());
    }
}

#[test]
fn writer_matches_columns_by_name_and_refuses_what_it_cannot_write() {
    let schema: Schema = "id:bigint,name:varchar(5),price:decimal(6,2)"
        .parse()
        .unwrap();
    let batch = RecordBatch::try_from_iter([
        (
            "PRICE",
            Arc::new(
                arrow_array::Decimal128Array::from(vec![Some(123_456), None])
                    .with_precision_and_scale(8, 3)
                    .unwrap(),
            ) as ArrayRef,
        ),
        (
            "id",
            Arc::new(arrow_array::Int64Array::from(vec![1, 2])) as ArrayRef,
        ),
    ])
    .unwrap();
    let back = round_trip(&schema, Serde::binary(), std::slice::from_ref(&batch));
    assert_eq!(cell(back[0].column(0).as_ref(), 1), j!(2));
    assert_eq!(
        cell(back[0].column(1).as_ref(), 0),
        Json::Null,
        "absent column"
    );
    assert_eq!(
        cell(back[0].column(2).as_ref(), 0),
        j!("123.46"),
        "rounded to scale 2"
    );

    // The text serde writes a NULL as `\N`, in every row of the absent column.
    let text = round_trip(&schema, Serde::text(), std::slice::from_ref(&batch));
    for row in 0..2 {
        assert_eq!(
            cell(text[0].column(1).as_ref(), row),
            Json::Null,
            "row {row}"
        );
    }

    let raw = RcFileWriter::builder(Vec::new(), 3).build().unwrap();
    let mut w = RcFileArrowWriter::new(raw, schema, Serde::binary());
    let extra = RecordBatch::try_from_iter([(
        "other",
        Arc::new(arrow_array::Int64Array::from(vec![1])) as ArrayRef,
    )])
    .unwrap();
    assert!(matches!(
        w.write(&extra).unwrap_err().kind(),
        ErrorKind::Schema(_)
    ));
    let wrong = RecordBatch::try_from_iter([(
        "id",
        Arc::new(arrow_array::StringArray::from(vec!["x"])) as ArrayRef,
    )])
    .unwrap();
    assert!(matches!(
        w.write(&wrong).unwrap_err().kind(),
        ErrorKind::Schema(_)
    ));
    assert_eq!(
        w.finish().unwrap().rows,
        0,
        "nothing of a refused batch is written"
    );
}

/// A batch large enough for its columns to be encoded on threads is written byte for byte
/// as one thread writes it, and the failure of a bad batch is the same.
#[test]
fn threads_write_what_one_thread_writes() {
    let n = 20_000usize; // 80,000 cells
    let schema: Schema = "id:bigint,name:string,price:decimal(10,2),raw:binary"
        .parse()
        .unwrap();
    let batch = |empty_binary_at: Option<usize>| {
        let ids = (0..n).map(|i| (i % 7 != 0).then_some(i as i64 * 31 - 9_000));
        let names = (0..n).map(|i| (i % 5 != 0).then(|| format!("n{}", i % 97)));
        let prices = (0..n).map(|i| (i % 11 != 0).then_some(i as i128 * 7_919));
        let raw = (0..n).map(|i| {
            let len = if Some(i) == empty_binary_at {
                0
            } else {
                1 + i % 3
            };
            Some(vec![i as u8; len])
        });
        RecordBatch::try_from_iter([
            (
                "id",
                Arc::new(arrow_array::Int64Array::from_iter(ids)) as ArrayRef,
            ),
            ("name", Arc::new(arrow_array::StringArray::from_iter(names))),
            (
                "price",
                Arc::new(
                    arrow_array::Decimal128Array::from_iter(prices)
                        .with_precision_and_scale(10, 2)
                        .unwrap(),
                ),
            ),
            ("raw", Arc::new(arrow_array::BinaryArray::from_iter(raw))),
        ])
        .unwrap()
    };
    let write = |threads: usize, b: &RecordBatch| {
        let mut w = RcFileArrowWriter::builder(Vec::new(), schema.clone(), Serde::binary())
            .with_threads(threads)
            .with_writer(|w| w.with_sync([7; 16]))
            .build()
            .unwrap();
        w.write(b).map(|()| w.finish_into_inner().unwrap().0)
    };
    let good = batch(None);
    let one = write(1, &good).unwrap();
    assert_eq!(write(3, &good).unwrap(), one);
    // Encoded apart (on another thread, into rows that held another batch) and then written:
    // the same file.
    let mut w = RcFileArrowWriter::builder(Vec::new(), schema.clone(), Serde::binary())
        .with_writer(|w| w.with_sync([7; 16]))
        .build()
        .unwrap();
    let encoder = w.encoder().clone();
    let cells = std::thread::scope(|s| {
        s.spawn(|| {
            let mut cells = encoder.encode(&good.slice(100, 1000)).unwrap();
            encoder.encode_into(&good, &mut cells).unwrap();
            cells
        })
        .join()
        .unwrap()
    });
    assert_eq!(cells.len(), n);
    w.write_encoded(&cells).unwrap();
    assert_eq!(w.finish_into_inner().unwrap().0, one);
    let back = read_all(&one, &schema, &Serde::binary(), 1 << 20);
    assert_eq!(back.iter().map(RecordBatch::num_rows).sum::<usize>(), n);
    // The binary serde refuses an empty binary: named by column and row either way.
    let bad = batch(Some(12_345));
    let (e1, e3) = (write(1, &bad).unwrap_err(), write(3, &bad).unwrap_err());
    assert_eq!(e1.to_string(), e3.to_string());
    assert!(e1.to_string().contains("column raw (binary)"), "{e1}");
    assert_eq!(e1.location().row, Some(12_345), "{e1}");
    let mut cells = encoder.encode(&good).unwrap();
    let e = encoder.encode_into(&bad, &mut cells).unwrap_err();
    assert_eq!(e.to_string(), e1.to_string());
    assert_eq!(cells.len(), 0, "rows left after a failed encode");
}

#[test]
fn unsigned_and_zoned_arrow_types_have_no_hive_type() {
    use arrow_schema::{Field, Schema as A};
    for t in [
        DataType::UInt32,
        DataType::Float16,
        DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into())),
        DataType::Decimal128(10, -2),
    ] {
        let s = A::new(vec![Field::new("x", t.clone(), true)]);
        let e = colfile::arrow::arrow_schema_to_hive(&s).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Schema(m) if m.contains("\"x\"")),
            "{t}: {e}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random primitive columns (with NULLs), written from Arrow with either serde and read
    /// back: the arrays are equal.
    #[test]
    fn random_primitive_columns_round_trip(
        ty in arb_primitive_type(),
        values in prop::collection::vec(prop::option::of(any::<u64>()), 0..40),
        binary in any::<bool>(),
    ) {
        let schema = Schema::new(vec![colfile::rcfile::Field { name: "c".into(), ty: ty.clone() }]);
        let serde = if binary { Serde::binary() } else { Serde::text() };
        let array = arrow_column(&ty, &values);
        let batch = RecordBatch::try_new(
            Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new("c", array.data_type().clone(), true)])),
            vec![array.clone()],
        ).unwrap();
        let back = round_trip(&schema, serde, &[batch]);
        let got: Vec<Json> = back.iter().flat_map(|b| (0..b.num_rows()).map(|i| cell(b.column(0).as_ref(), i))).collect();
        let want: Vec<Json> = (0..array.len()).map(|i| cell(array.as_ref(), i)).collect();
        for (g, w) in got.iter().zip(&want) {
            let a = json::from_json(&ty, g).unwrap();
            let b = json::from_json(&ty, w).unwrap();
            prop_assert!(a.same_as(&b), "{ty}: got {g} want {w}");
        }
        prop_assert_eq!(got.len(), want.len());
    }
}

/// An Arrow column of Hive type `ty` from seeds (values kept inside the type's range).
fn arrow_column(ty: &HiveType, seeds: &[Option<u64>]) -> ArrayRef {
    use arrow_array::*;
    fn map<T>(seeds: &[Option<u64>], f: impl Fn(u64) -> T) -> Vec<Option<T>> {
        seeds.iter().map(|s| s.map(&f)).collect()
    }
    match ty {
        HiveType::Boolean => Arc::new(BooleanArray::from(map(seeds, |s| s & 1 == 1))),
        HiveType::TinyInt => Arc::new(Int8Array::from(map(seeds, |s| s as i8))),
        HiveType::SmallInt => Arc::new(Int16Array::from(map(seeds, |s| s as i16))),
        HiveType::Int => Arc::new(Int32Array::from(map(seeds, |s| s as i32))),
        HiveType::BigInt => Arc::new(Int64Array::from(map(seeds, |s| s as i64))),
        HiveType::Float => Arc::new(Float32Array::from(map(seeds, |s| {
            (s % 100_000) as f32 / 8.0
        }))),
        HiveType::Double => Arc::new(Float64Array::from(map(seeds, |s| {
            (s as i64) as f64 / 1024.0
        }))),
        HiveType::String => Arc::new(StringArray::from(map(seeds, |s| format!("v{s}")))),
        HiveType::Varchar(n) | HiveType::Char(n) => {
            let n = *n as usize;
            Arc::new(StringArray::from(
                seeds
                    .iter()
                    .map(|s| s.map(|s| format!("{:width$}", s % 10, width = n)))
                    .collect::<Vec<_>>(),
            ))
        }
        HiveType::Binary => Arc::new(BinaryArray::from(
            seeds
                .iter()
                .map(|s| s.map(|s| s.to_le_bytes().to_vec()))
                .collect::<Vec<_>>()
                .iter()
                .map(|o| o.as_deref())
                .collect::<Vec<_>>(),
        )),
        HiveType::Date => Arc::new(Date32Array::from(map(seeds, |s| {
            (s % 100_000) as i32 - 30_000
        }))),
        HiveType::Timestamp => Arc::new(TimestampMicrosecondArray::from(map(seeds, |s| {
            (s % 4_000_000_000_000_000) as i64 - 1_000_000_000_000_000
        }))),
        HiveType::Decimal { precision, scale } => {
            let max = 10i128.pow(u32::from(*precision)) - 1;
            Arc::new(
                Decimal128Array::from(map(seeds, move |s| (s as i128) % (max + 1)))
                    .with_precision_and_scale(*precision, *scale as i8)
                    .unwrap(),
            )
        }
        t => panic!("not primitive: {t}"),
    }
}
