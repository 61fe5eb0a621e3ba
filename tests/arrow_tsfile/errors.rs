//! Bad batches and queries: each fails with its documented error kind, and a batch that
//! fails leaves nothing of itself in the file.

use std::sync::Arc;

use super::{batch_rows, canon_rows, open_fixture, read_batches};
use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use colfile::arrow::{arrow_schema_to_tsfile, TsFileArrowReader, TsFileArrowWriter};
use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, DataType};
use colfile::tsfile::{Query, TsFileReader, WriterOptions};
use colfile::ErrorKind;

fn table() -> TableSchema {
    TableSchema::new(
        "t",
        vec![
            TableColumn::new("dev", DataType::String, ColumnCategory::Tag),
            TableColumn::new("v", DataType::Double, ColumnCategory::Field),
        ],
    )
}

/// A batch of `(name, array)` columns.
fn batch(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = cols
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
        .collect();
    let arrays = cols.into_iter().map(|(_, a)| a).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
}

fn times(v: Vec<Option<i64>>) -> ArrayRef {
    Arc::new(Int64Array::from(v))
}

fn devs(v: Vec<&str>) -> ArrayRef {
    Arc::new(StringArray::from(v))
}

fn values(n: usize) -> ArrayRef {
    Arc::new(Float64Array::from(
        (0..n).map(|i| i as f64).collect::<Vec<_>>(),
    ))
}

fn writer() -> TsFileArrowWriter<Vec<u8>> {
    TsFileArrowWriter::try_new(Vec::new(), table(), WriterOptions::default()).unwrap()
}

#[test]
fn bad_batches_fail_with_their_kind() {
    let t = || times(vec![Some(1), Some(2)]);
    let wrong_type = batch(vec![
        ("time", t()),
        ("v", Arc::new(Int64Array::from(vec![1, 2]))),
    ]);
    let e = writer().write(&wrong_type).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Schema(m) if m.contains("column v")),
        "{e}"
    );

    let extra = batch(vec![("time", t()), ("v", values(2)), ("nope", values(2))]);
    let e = writer().write(&extra).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Schema(m) if m.contains("nope")),
        "{e}"
    );

    let e = writer().write(&batch(vec![("v", values(2))])).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Schema(_)), "{e}");

    let null_time = batch(vec![("time", times(vec![Some(1), None])), ("v", values(2))]);
    let e = writer().write(&null_time).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::InvalidArgument(m) if m.contains("row 1")),
        "{e}"
    );

    let text_time = batch(vec![("time", devs(vec!["1", "2"])), ("v", values(2))]);
    let e = writer().write(&text_time).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Schema(_)), "{e}");

    let down = batch(vec![
        ("time", times(vec![Some(2), Some(1)])),
        ("v", values(2)),
    ]);
    let e = writer().write(&down).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidArgument(_)), "{e}");

    // Equal times of two devices are fine; of one device they are not.
    let two = batch(vec![
        ("time", t()),
        ("dev", devs(vec!["a", "b"])),
        ("v", values(2)),
    ]);
    let mut w = writer();
    w.write(&two).unwrap();
    let e = w.write(&two).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidArgument(_)), "{e}");

    let e = arrow_schema_to_tsfile(
        "t",
        &Schema::new(vec![Field::new("u", ArrowType::UInt8, true)]),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Schema(m) if m.contains('u')),
        "{e}"
    );
}

#[test]
fn a_failed_batch_writes_nothing() {
    let mut w = writer();
    let ok = batch(vec![
        ("time", times(vec![Some(10)])),
        ("dev", devs(vec!["b"])),
        ("v", values(1)),
    ]);
    w.write(&ok).unwrap();
    // Device a is fine, device b goes back in time: neither is written.
    let bad = batch(vec![
        ("time", times(vec![Some(20), Some(5), Some(21)])),
        ("dev", devs(vec!["a", "b", "a"])),
        ("v", values(3)),
    ]);
    let e = w.write(&bad).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::InvalidArgument(m) if m.contains("t.b")),
        "{e}"
    );
    // The writer goes on: device a may still start at 20.
    let later = batch(vec![
        ("time", times(vec![Some(20)])),
        ("dev", devs(vec!["a"])),
        ("v", values(1)),
    ]);
    w.write(&later).unwrap();
    let (bytes, summary) = w.finish_into_inner().unwrap();
    assert_eq!(summary.rows, 2);
    let r = Arc::new(TsFileReader::open(bytes).unwrap());
    let back = read_batches(&r, Query::all(), 100).unwrap();
    let got: Vec<String> = back
        .iter()
        .flat_map(|b| canon_rows(&batch_rows(b, Some("t"))))
        .collect();
    assert_eq!(got.len(), 2, "{got:?}");
}

#[test]
fn bad_queries_fail_with_their_kind() {
    let multi = open_fixture("multi_table");
    let e = TsFileArrowReader::builder(Arc::clone(&multi))
        .build()
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidArgument(_)), "{e}");
    for t in &multi.metadata().footer().schemas {
        assert!(e.to_string().contains(&t.name), "{e}");
    }
    let basic = open_fixture("basic");
    let b = TsFileArrowReader::builder(Arc::clone(&basic)).with_query(Query::all().table("nope"));
    assert!(matches!(
        b.schema().unwrap_err().kind(),
        ErrorKind::InvalidArgument(_)
    ));
    let b =
        TsFileArrowReader::builder(Arc::clone(&basic)).with_query(Query::all().columns(["nope"]));
    assert!(matches!(
        b.build().unwrap_err().kind(),
        ErrorKind::Schema(_)
    ));
    let f = colfile::tsfile::Filter::lt("city", colfile::tsfile::Value::Int64(3));
    let b = TsFileArrowReader::builder(basic).with_query(Query::all().filter(f));
    assert!(b.build().is_err());
    let tree = open_fixture("tree_basic");
    let b = TsFileArrowReader::builder(tree).with_query(Query::all().columns(["nope"]));
    assert!(matches!(
        b.build().unwrap_err().kind(),
        ErrorKind::Schema(_)
    ));
}

#[test]
fn a_measurement_with_two_types_is_an_error_naming_both() {
    use colfile::tsfile::format::schema::MeasurementSchema;
    use colfile::tsfile::format::{Compression, Encoding};
    use colfile::tsfile::{TsFileWriter, ValueRef};
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).unwrap();
    for (path, t, v) in [
        ("root.a.d1", DataType::Int32, ValueRef::Int32(1)),
        ("root.a.d2", DataType::Double, ValueRef::Double(1.5)),
    ] {
        let m = MeasurementSchema::new("m", t, Encoding::Plain, Compression::Uncompressed);
        w.register_device(path, false, vec![m]).unwrap();
        w.write_record(path, 1, &[("m", v)]).unwrap();
    }
    let r = Arc::new(TsFileReader::open(w.finish_into_inner().unwrap().0).unwrap());
    let e = TsFileArrowReader::builder(Arc::clone(&r))
        .build()
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Schema(_)), "{e}");
    let text = e.to_string();
    assert!(text.contains("INT32") && text.contains("DOUBLE"), "{e}");
    // Each device alone reads.
    for d in ["root.a.d1", "root.a.d2"] {
        let q = Query::all().device(colfile::tsfile::format::DeviceId::from_tree_path(d).unwrap());
        assert_eq!(read_batches(&r, q, 10).unwrap().len(), 1);
    }
}
