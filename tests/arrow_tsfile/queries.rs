//! Queries through `TsFileArrowReader` give the plain reader's rows for the same `Query`, in
//! the same order, in batches no longer than the batch size; time units and lossy text.

use std::sync::Arc;

use super::{batch_rows, canon_rows, open_fixture, read_batches, without_null_fields};
use arrow_array::RecordBatchReader;
use arrow_schema::{DataType as ArrowType, TimeUnit};
use colfile::arrow::TsFileArrowReader;
use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, DataType};
use colfile::tsfile::tools::dump::row_line;
use colfile::tsfile::{Filter, Query, TsFileReader, TsFileWriter, Value, WriterOptions};
use serde_json::Value as Json;

/// The plain reader's rows for `q`, in the dump's form, and each row's device.
fn plain_rows(reader: &TsFileReader<Vec<u8>>, q: &Query, tree: bool) -> (Vec<Json>, Vec<String>) {
    let (mut out, mut devices) = (Vec::new(), Vec::new());
    for b in reader.query(q).unwrap() {
        let b = b.unwrap();
        let owner = if tree {
            b.device.to_string()
        } else {
            b.table.clone()
        };
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            let values: Vec<_> = cursors.iter_mut().map(|c| c.next_value()).collect();
            let mut line = String::new();
            row_line(&mut line, tree, &owner, t, &b, &values);
            out.push(serde_json::from_str(&line).unwrap());
            devices.push(b.device.to_string());
        }
    }
    (out, devices)
}

/// Checks that `q` reads the same rows both ways, in batches of one device each, of
/// `batch_size` rows except for a device's last one; returns the number of rows.
fn same_rows(fixture: &str, q: Query, batch_size: usize) -> usize {
    let reader = open_fixture(fixture);
    let tree = reader.metadata().footer().schemas.is_empty();
    let table = (!tree).then(|| reader.metadata().footer().schemas[0].name.clone());
    let batches = read_batches(&reader, q.clone(), batch_size).unwrap();
    let (mut want, devices) = plain_rows(&reader, &q, tree);
    let mut got = Vec::new();
    for b in &batches {
        let n = b.num_rows();
        assert!(n >= 1 && n <= batch_size, "{fixture}: {n} rows");
        // The rows are the plain reader's, in order (checked below): their devices are
        // that reader's.
        let (start, end) = (got.len(), got.len() + n);
        let device = &devices[start];
        assert!(
            devices[start..end].iter().all(|d| d == device),
            "{fixture}: two devices"
        );
        if devices.get(end) == Some(device) {
            assert_eq!(
                n, batch_size,
                "{fixture}: short batch in the middle of {device}"
            );
        }
        got.extend(batch_rows(b, table.as_deref()));
    }
    if tree {
        got = got.into_iter().map(without_null_fields).collect();
        want = want.into_iter().map(without_null_fields).collect();
    }
    assert_eq!(canon_rows(&got), canon_rows(&want), "{fixture}: {q:?}");
    got.len()
}

#[test]
fn table_queries_equal_the_plain_reader() {
    let t0 = 1_700_000_000_000i64;
    assert_eq!(same_rows("basic", Query::all(), 4), 10);
    assert_eq!(
        same_rows("basic", Query::all().columns(["status", "temp"]), 3),
        10
    );
    let beijing = same_rows(
        "basic",
        Query::all().columns(["temp"]).tag_eq("city", "beijing"),
        2,
    );
    assert!(beijing > 0 && beijing < 10);
    let range = same_rows("basic", Query::all().time_range(t0 + 1000, t0 + 3000), 100);
    assert!(range > 0 && range < 10);
    let warm = same_rows(
        "basic",
        Query::all().filter(Filter::gt("temp", Value::Double(21.0))),
        5,
    );
    assert!(warm > 0 && warm < 10);
    assert_eq!(same_rows("basic", Query::all().offset(3).limit(4), 3), 4);
    assert_eq!(same_rows("many_devices", Query::all().limit(50), 7), 50);
    assert_eq!(same_rows("many_devices", Query::all(), 1000), 600);
    assert_eq!(same_rows("multi_chunk", Query::all(), 128), 3000);
    assert_eq!(
        same_rows("multi_chunk", Query::all().offset(1000).limit(333), 100),
        333
    );
    assert!(same_rows("tags_nulls", Query::all().tag_is_null("a"), 5) > 0);
    assert_eq!(same_rows("types_all", Query::all(), 17), 360);
    assert_eq!(same_rows("nulls", Query::all(), 64), 402);
}

#[test]
fn tree_queries_equal_the_plain_reader() {
    assert_eq!(same_rows("tree_basic", Query::all(), 50), 292);
    let sg1 = same_rows("tree_basic", Query::all().table("root.sg1"), 9);
    assert!(sg1 > 0 && sg1 < 292);
    let one = Query::all().series("root.sg1.d1.s_i64").unwrap();
    assert!(same_rows("tree_basic", one, 10) > 0);
    let q = Query::all().filter(Filter::gt("s_i32", Value::Int64(5)));
    assert!(same_rows("tree_basic", q, 10) > 0);
    assert_eq!(same_rows("tree_encodings", Query::all(), 256), 3000);
}

#[test]
fn the_schema_follows_the_query() {
    let reader = open_fixture("basic");
    let b = TsFileArrowReader::builder(Arc::clone(&reader))
        .with_query(Query::all().columns(["TEMP", "city"]));
    let names: Vec<String> = b
        .schema()
        .unwrap()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    // Table order, not the query's.
    assert_eq!(names, ["time", "city", "temp"]);
    let r = b.build().unwrap();
    assert_eq!(r.schema().fields().len(), 3);
    let rows: usize = r.map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 10);

    let tree = open_fixture("tree_basic");
    let q = Query::all()
        .table("root.sg1")
        .columns(["temperature", "s_b"]);
    let s = TsFileArrowReader::builder(tree)
        .with_query(q)
        .schema()
        .unwrap();
    let fields: Vec<(String, ArrowType)> = s
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let ts = ArrowType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
    let want = [
        ("device", ArrowType::Utf8),
        ("time", ts),
        ("temperature", ArrowType::Float64),
        ("s_b", ArrowType::Boolean),
    ];
    assert_eq!(fields, want.map(|(n, t)| (n.to_owned(), t)));
}

#[test]
fn explain_counts_the_rows_returned() {
    let reader = open_fixture("many_devices");
    let q = Query::all().tag_eq(reader_tag(&reader).as_str(), "nope");
    let mut r = TsFileArrowReader::builder(Arc::clone(&reader))
        .with_query(q)
        .build()
        .unwrap();
    assert!(r.next().is_none());
    assert_eq!(r.explain().rows_returned, 0);
    let mut r = TsFileArrowReader::builder(reader)
        .with_batch_size(10)
        .build()
        .unwrap();
    let n: usize = (&mut r).map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(r.explain().rows_returned, n as u64);
}

/// The first TAG column of the file's table.
fn reader_tag(r: &TsFileReader<Vec<u8>>) -> String {
    let s = &r.metadata().footer().schemas[0];
    s.tags().next().unwrap().schema.name.clone()
}

/// A one-table file with a DATE, a TIMESTAMP and a STRING column, from rows.
fn small_file(rows: &[(i64, Value, Value, Value)]) -> Arc<TsFileReader<Vec<u8>>> {
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).unwrap();
    w.register_table(TableSchema::new(
        "t",
        vec![
            TableColumn::new("d", DataType::Date, ColumnCategory::Field),
            TableColumn::new("ts", DataType::Timestamp, ColumnCategory::Field),
            TableColumn::new("s", DataType::String, ColumnCategory::Field),
        ],
    ))
    .unwrap();
    for (t, d, ts, s) in rows {
        w.write_row("t", *t, &[d.clone(), ts.clone(), s.clone()])
            .unwrap();
    }
    Arc::new(TsFileReader::open(w.finish_into_inner().unwrap().0).unwrap())
}

#[test]
fn times_keep_their_stored_value_in_every_unit() {
    let r = small_file(&[(
        7,
        Value::Int32(19700102),
        Value::Int64(-5),
        Value::string("x"),
    )]);
    for unit in [
        TimeUnit::Second,
        TimeUnit::Millisecond,
        TimeUnit::Microsecond,
        TimeUnit::Nanosecond,
    ] {
        let mut it = TsFileArrowReader::builder(Arc::clone(&r))
            .with_time_unit(unit)
            .build()
            .unwrap();
        let b = it.next().unwrap().unwrap();
        let ts = ArrowType::Timestamp(unit, Some("UTC".into()));
        assert_eq!(b.schema().field(0).data_type(), &ts);
        assert_eq!(b.schema().field(2).data_type(), &ts);
        assert_eq!(super::i64_at(b.column(0).as_ref(), 0), 7);
        assert_eq!(super::i64_at(b.column(2).as_ref(), 0), -5);
        let d = b
            .column(1)
            .as_any()
            .downcast_ref::<arrow_array::Date32Array>()
            .unwrap();
        assert_eq!(d.value(0), 1);
    }
}

#[test]
fn text_that_is_not_utf8_is_an_error_or_replaced() {
    let bad = Value::Binary(vec![b'a', 0xff]);
    let r = small_file(&[
        (1, Value::Null, Value::Null, Value::string("ok")),
        (2, Value::Null, Value::Null, bad),
    ]);
    let mut it = TsFileArrowReader::builder(Arc::clone(&r)).build().unwrap();
    let e = super::colfile_error(it.next().unwrap().unwrap_err());
    assert!(
        matches!(e.kind(), colfile::ErrorKind::Corrupt { .. }),
        "{e}"
    );
    assert_eq!(e.location().row, Some(1));
    assert!(e.to_string().contains("column s"), "{e}");
    let b = TsFileArrowReader::builder(r)
        .with_lossy_utf8(true)
        .build()
        .unwrap()
        .next();
    let b = b.unwrap().unwrap();
    let s = b
        .column(3)
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .unwrap();
    assert_eq!((s.value(0), s.value(1)), ("ok", "a\u{fffd}"));
}

#[test]
fn an_impossible_date_is_an_error_naming_column_and_row() {
    let r = small_file(&[
        (1, Value::Int32(20240229), Value::Null, Value::Null),
        (2, Value::Null, Value::Null, Value::Null),
        (3, Value::Int32(20230229), Value::Null, Value::Null),
    ]);
    let mut it = TsFileArrowReader::builder(r).build().unwrap();
    let e = super::colfile_error(it.next().unwrap().unwrap_err());
    assert!(
        matches!(e.kind(), colfile::ErrorKind::Corrupt { .. }),
        "{e}"
    );
    assert_eq!(e.location().row, Some(2));
    assert!(e.to_string().contains("column d"), "{e}");
    assert_eq!(e.location().series.as_deref(), Some("t.d"));
}

#[test]
fn readers_and_writers_can_move_to_another_thread() {
    fn is_send<T: Send>(_: &T) {}
    let reader = TsFileArrowReader::builder(open_fixture("basic"))
        .build()
        .unwrap();
    is_send(&reader);
    let rows = std::thread::spawn(move || reader.map(|b| b.unwrap().num_rows()).sum::<usize>());
    assert_eq!(rows.join().unwrap(), 10);
    let table = TableSchema::new("t", vec![]);
    let w = colfile::arrow::TsFileArrowWriter::try_new(Vec::new(), table, WriterOptions::default());
    is_send(&w.unwrap());
}
