//! Batches written through `TsFileArrowWriter` read back through `TsFileArrowReader` as
//! written: every type with nulls, devices interleaved within a batch, several batches, and
//! a proptest over random tables and rows.

use std::collections::HashMap;
use std::sync::Arc;

use super::{batch_rows, canon_rows, read_batches};
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Float32Array, Float64Array, Int32Array,
    Int64Array, RecordBatch, StringArray, TimestampMicrosecondArray, TimestampMillisecondArray,
};
use arrow_schema::{DataType as ArrowType, Field, Schema, TimeUnit};
use colfile::arrow::{TsFileArrowWriter, TSFILE_CATEGORY_KEY, TSFILE_TYPE_KEY};
use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, DataType};
use colfile::tsfile::{Query, TsFileReader, WriterOptions};
use proptest::prelude::*;
use serde_json::Value as Json;

fn meta(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Reads back every row of table `t`, sorted by their canonical text.
fn read_back(bytes: Vec<u8>, table: &str) -> (Arc<Schema>, Vec<String>) {
    let r = Arc::new(TsFileReader::open(bytes).unwrap());
    let batches = read_batches(&r, Query::all().table(table), 5).unwrap();
    let schema = colfile::arrow::TsFileArrowReader::builder(r)
        .schema()
        .unwrap();
    let mut rows: Vec<String> = batches
        .iter()
        .flat_map(|b| canon_rows(&batch_rows(b, Some(table))))
        .collect();
    rows.sort();
    (schema, rows)
}

/// `batch`'s rows in the dump's form, sorted (the batch carries the field metadata).
fn rows_of(batches: &[RecordBatch], table: &str) -> Vec<String> {
    let mut rows: Vec<String> = batches
        .iter()
        .flat_map(|b| canon_rows(&batch_rows(b, Some(table))))
        .collect();
    rows.sort();
    rows
}

/// Every type, nulls in every column, three devices (one with a null tag) interleaved.
fn all_types_batch(t0: i64) -> RecordBatch {
    let tag = meta(&[(TSFILE_CATEGORY_KEY, "TAG"), (TSFILE_TYPE_KEY, "STRING")]);
    let typed = |f: Field, t: &str| {
        let m = meta(&[(TSFILE_CATEGORY_KEY, "FIELD"), (TSFILE_TYPE_KEY, t)]);
        f.with_metadata(m)
    };
    let ms = ArrowType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
    let schema = Schema::new(vec![
        Field::new("time", ms.clone(), false).with_metadata(meta(&[
            (TSFILE_CATEGORY_KEY, "TIME"),
            (TSFILE_TYPE_KEY, "TIMESTAMP"),
        ])),
        Field::new("city", ArrowType::Utf8, true).with_metadata(tag),
        typed(Field::new("b", ArrowType::Boolean, true), "BOOLEAN"),
        typed(Field::new("i", ArrowType::Int32, true), "INT32"),
        typed(Field::new("l", ArrowType::Int64, true), "INT64"),
        typed(Field::new("f", ArrowType::Float32, true), "FLOAT"),
        typed(Field::new("d", ArrowType::Float64, true), "DOUBLE"),
        typed(Field::new("s", ArrowType::Utf8, true), "STRING"),
        typed(Field::new("x", ArrowType::Utf8, true), "TEXT"),
        typed(Field::new("bl", ArrowType::Binary, true), "BLOB"),
        typed(Field::new("dt", ArrowType::Date32, true), "DATE"),
        typed(Field::new("ts", ms, true), "TIMESTAMP"),
    ]);
    let n = 12;
    let on = |i: usize, k: usize| i % k != 1;
    let cities: Vec<Option<&str>> = (0..n)
        .map(|i| [Some("paris"), None, Some("oslo")][i % 3])
        .collect();
    let cols: Vec<ArrayRef> = vec![
        Arc::new(
            TimestampMillisecondArray::from((0..n as i64).map(|i| t0 + i * 10).collect::<Vec<_>>())
                .with_timezone("UTC"),
        ),
        Arc::new(StringArray::from(cities)),
        Arc::new(BooleanArray::from(
            (0..n)
                .map(|i| on(i, 4).then_some(i % 2 == 0))
                .collect::<Vec<_>>(),
        )),
        Arc::new(Int32Array::from(
            (0..n)
                .map(|i| on(i, 5).then_some(i as i32 * -7))
                .collect::<Vec<_>>(),
        )),
        Arc::new(Int64Array::from(
            (0..n)
                .map(|i| on(i, 2).then_some(i64::MAX - i as i64))
                .collect::<Vec<_>>(),
        )),
        Arc::new(Float32Array::from(
            (0..n)
                .map(|i| on(i, 3).then_some(i as f32 / 3.0))
                .collect::<Vec<_>>(),
        )),
        Arc::new(Float64Array::from(
            (0..n)
                .map(|i| on(i, 6).then_some(if i == 4 { f64::NAN } else { i as f64 * 1e300 }))
                .collect::<Vec<_>>(),
        )),
        Arc::new(StringArray::from(
            (0..n)
                .map(|i| on(i, 4).then(|| format!("s{i}é")))
                .collect::<Vec<_>>(),
        )),
        Arc::new(StringArray::from(
            (0..n)
                .map(|i| on(i, 7).then(|| "t".repeat(i)))
                .collect::<Vec<_>>(),
        )),
        Arc::new(BinaryArray::from_iter(
            (0..n).map(|i| on(i, 3).then(|| vec![i as u8, 0, 255])),
        )),
        Arc::new(Date32Array::from(
            (0..n)
                .map(|i| on(i, 5).then_some(i as i32 * 4000 - 20000))
                .collect::<Vec<_>>(),
        )),
        Arc::new(
            TimestampMillisecondArray::from(
                (0..n)
                    .map(|i| on(i, 2).then_some(-(i as i64)))
                    .collect::<Vec<_>>(),
            )
            .with_timezone("UTC"),
        ),
    ];
    RecordBatch::try_new(Arc::new(schema), cols).unwrap()
}

#[test]
fn every_type_round_trips_with_devices_interleaved() {
    let first = all_types_batch(1000);
    let second = all_types_batch(5000);
    let mut w = TsFileArrowWriter::try_new_from_arrow(
        Vec::new(),
        "Weather",
        &first.schema(),
        WriterOptions::default(),
    )
    .unwrap();
    assert_eq!(w.table().unwrap().name, "weather");
    let x = w
        .table()
        .unwrap()
        .columns
        .iter()
        .find(|c| c.schema.name == "x")
        .unwrap();
    assert_eq!(x.schema.data_type, DataType::Text);
    w.write(&first).unwrap();
    w.write(&second).unwrap();
    let (bytes, summary) = w.finish_into_inner().unwrap();
    assert_eq!(summary.rows, 24);
    assert_eq!(summary.devices, 3);
    let (schema, got) = read_back(bytes, "weather");
    // The read-back schema is the written one, timezone and metadata included.
    assert_eq!(schema.fields(), first.schema().fields());
    assert_eq!(got, rows_of(&[first, second], "weather"));
}

#[test]
fn missing_columns_are_null_and_names_match_without_case() {
    let table = TableSchema::new(
        "t",
        vec![
            TableColumn::new("Site", DataType::String, ColumnCategory::Tag),
            TableColumn::new("v", DataType::Int64, ColumnCategory::Field),
            TableColumn::new("w", DataType::Double, ColumnCategory::Field),
        ],
    );
    let schema = Arc::new(Schema::new(vec![
        Field::new(
            "TIME",
            ArrowType::Timestamp(TimeUnit::Microsecond, None),
            false,
        ),
        Field::new("V", ArrowType::Int64, true),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(TimestampMicrosecondArray::from(vec![1, 2, 3])),
            Arc::new(Int64Array::from(vec![Some(1), None, Some(3)])),
        ],
    )
    .unwrap();
    let mut w = TsFileArrowWriter::try_new(Vec::new(), table, WriterOptions::default()).unwrap();
    w.write(&batch).unwrap();
    let (bytes, _) = w.finish_into_inner().unwrap();
    let (_, got) = read_back(bytes, "t");
    let want: Vec<String> = [(1, Json::from(1)), (2, Json::Null), (3, Json::from(3))]
        .iter()
        .map(|(t, v)| {
            crate::common::tsdump::canon(
                &serde_json::json!({"kind": "row", "table": "t", "time": t,
                "tags": {"site": null}, "fields": {"v": v, "w": null}}),
            )
        })
        .collect();
    let mut want = want;
    want.sort();
    assert_eq!(got, want);
}

/// A random column: its TsFile type and category.
/// Rows held over many batches are written a slice of devices at a time at the end: every
/// device still gets one chunk group, the threads do not change the bytes, and every row
/// reads back.
#[test]
fn held_rows_of_many_batches_make_one_chunk_group_per_device() {
    let tag = meta(&[(TSFILE_CATEGORY_KEY, "TAG"), (TSFILE_TYPE_KEY, "STRING")]);
    let field = |t| meta(&[(TSFILE_CATEGORY_KEY, "FIELD"), (TSFILE_TYPE_KEY, t)]);
    let time = meta(&[(TSFILE_CATEGORY_KEY, "TIME"), (TSFILE_TYPE_KEY, "INT64")]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("time", ArrowType::Int64, false).with_metadata(time),
        Field::new("dev", ArrowType::Utf8, true).with_metadata(tag),
        Field::new("v", ArrowType::Int64, true).with_metadata(field("INT64")),
        Field::new("s", ArrowType::Utf8, true).with_metadata(field("STRING")),
    ]));
    // 100 devices, one of them with 18 000 rows (more than a slice alone), in 6 batches;
    // within a batch the devices take turns, so their rows are not runs.
    let mut batches = Vec::new();
    for b in 0..6i64 {
        let (mut t, mut d, mut v, mut s) = (vec![], vec![], vec![], vec![]);
        for k in 0..30i64 {
            for dev in 0..100i64 {
                let n = if dev == 7 { 100 } else { 1 };
                for j in 0..n {
                    let time = (b * 30 + k) * 100 + j;
                    t.push(time);
                    d.push(format!("d{dev}"));
                    v.push((time % 5 != 0).then_some(time * dev));
                    s.push((time % 7 != 0).then(|| format!("s{}", time % 13)));
                }
            }
        }
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(t)),
            Arc::new(StringArray::from(d)),
            Arc::new(Int64Array::from(v)),
            Arc::new(StringArray::from(s)),
        ];
        batches.push(RecordBatch::try_new(schema.clone(), arrays).unwrap());
    }
    let want = rows_of(&batches, "t");
    let mut files = Vec::new();
    for threads in [1, 2, 3] {
        let options = WriterOptions::default().with_threads(threads);
        let mut w =
            TsFileArrowWriter::try_new_from_arrow(Vec::new(), "t", &schema, options).unwrap();
        for b in &batches {
            w.write(b).unwrap();
        }
        let (bytes, summary) = w.finish_into_inner().unwrap();
        assert_eq!(summary.rows as usize, want.len());
        assert_eq!(
            (summary.devices, summary.chunk_groups),
            (100, 100),
            "threads {threads}"
        );
        let r = Arc::new(TsFileReader::open(bytes.clone()).unwrap());
        let got = rows_of(&read_batches(&r, Query::all(), 4096).unwrap(), "t");
        assert_eq!(got, want, "threads {threads}");
        files.push(bytes);
    }
    assert!(
        files.windows(2).all(|w| w[0] == w[1]),
        "the threads change the bytes"
    );
}

fn column() -> impl Strategy<Value = (DataType, bool)> {
    let types = prop::sample::select(crate::common::tsdump::VALUE_TYPES.to_vec());
    (types, any::<bool>())
}

/// An Arrow array of `t` (or a TAG) with one row per seed: null where the seed says, else
/// a value made from the seed's number.
fn array(t: DataType, tag: bool, seeds: &[(bool, i64)]) -> ArrayRef {
    let v = |_: &dyn Fn(i64) -> Option<i64>| seeds.iter().map(|&(null, s)| (!null).then_some(s));
    if tag {
        return Arc::new(StringArray::from(
            v(&Some)
                .map(|x| x.map(|x| x % 3))
                .map(|x| x.map(|x| format!("d{x}")))
                .collect::<Vec<_>>(),
        ));
    }
    match t {
        DataType::Boolean => Arc::new(BooleanArray::from(
            v(&Some).map(|x| x.map(|x| x % 2 == 0)).collect::<Vec<_>>(),
        )),
        DataType::Int32 => Arc::new(Int32Array::from(
            v(&Some).map(|x| x.map(|x| x as i32)).collect::<Vec<_>>(),
        )),
        DataType::Int64 => Arc::new(Int64Array::from(v(&Some).collect::<Vec<_>>())),
        DataType::Float => Arc::new(Float32Array::from(
            v(&Some)
                .map(|x| x.map(|x| f32::from_bits(x as u32)))
                .collect::<Vec<_>>(),
        )),
        DataType::Double => Arc::new(Float64Array::from(
            v(&Some)
                .map(|x| x.map(|x| x as f64 / 7.0))
                .collect::<Vec<_>>(),
        )),
        DataType::Text | DataType::String => Arc::new(StringArray::from(
            v(&Some)
                .map(|x| x.map(|x| format!("{x:x}")))
                .collect::<Vec<_>>(),
        )),
        DataType::Blob => Arc::new(BinaryArray::from_iter(
            v(&Some).map(|x| x.map(|x| x.to_le_bytes().to_vec())),
        )),
        DataType::Date => Arc::new(Date32Array::from(
            v(&Some)
                .map(|x| x.map(|x| (x.rem_euclid(3_000_000) - 719_000) as i32))
                .collect::<Vec<_>>(),
        )),
        DataType::Timestamp => Arc::new(
            TimestampMillisecondArray::from(v(&Some).collect::<Vec<_>>()).with_timezone("UTC"),
        ),
        t => panic!("{t}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn random_tables_round_trip(
        cols in prop::collection::vec(column(), 1..6),
        rows in prop::collection::vec(prop::collection::vec((any::<bool>(), any::<i64>()), 6), 1..60),
        cuts in prop::collection::vec(0usize..60, 0..3),
        batch_size in 1usize..20,
        drop in prop::option::of(0usize..6),
        threads in 1usize..3,
        tiny in any::<bool>(),
    ) {
        let n = rows.len();
        let mut cols = cols;
        cols[0].1 = false; // at least one FIELD column
        let time = meta(&[(TSFILE_CATEGORY_KEY, "TIME"), (TSFILE_TYPE_KEY, "TIMESTAMP")]);
        let ms = ArrowType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
        let mut fields = vec![Field::new("time", ms, false).with_metadata(time)];
        let mut arrays: Vec<ArrayRef> = vec![Arc::new(TimestampMillisecondArray::from((0..n as i64).map(|i| i * 3 - 50).collect::<Vec<_>>()).with_timezone("UTC"))];
        for (k, (t, tag)) in cols.iter().enumerate() {
            let cat = if *tag { "TAG" } else { "FIELD" };
            let ts = if *tag { "STRING" } else { t.name() };
            let m = meta(&[(TSFILE_CATEGORY_KEY, cat), (TSFILE_TYPE_KEY, ts)]);
            let seeds: Vec<(bool, i64)> = rows.iter().map(|r| r[k]).collect();
            let a = array(*t, *tag, &seeds);
            fields.push(Field::new(format!("c{k}"), a.data_type().clone(), true).with_metadata(m));
            arrays.push(a);
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(n)).collect();
        cuts.sort();
        // Every other slice lacks column `drop`: written once with the column left out
        // (`threads`; with `tiny`, rows are written at every batch and chunk groups flushed),
        // once with it all null, one batch at a time.
        let drop = drop.map(|d| 1 + d % cols.len());
        let write = |left_out: bool, options: WriterOptions| {
            let mut w = TsFileArrowWriter::try_new_from_arrow(Vec::new(), "r", &batch.schema(), options).unwrap();
            let mut start = 0;
            for (i, end) in cuts.iter().copied().chain([n]).enumerate() {
                let mut part = batch.slice(start, end - start);
                if let (Some(d), 1) = (drop, i % 2) {
                    part = if left_out {
                        let keep: Vec<usize> = (0..part.num_columns()).filter(|&c| c != d).collect();
                        part.project(&keep).unwrap()
                    } else {
                        let mut arrays = part.columns().to_vec();
                        arrays[d] = arrow_array::new_null_array(arrays[d].data_type(), part.num_rows());
                        RecordBatch::try_new(part.schema(), arrays).unwrap()
                    };
                }
                w.write(&part).unwrap();
                start = end;
            }
            w.finish_into_inner().unwrap()
        };
        let mut options = WriterOptions::default().with_threads(threads);
        if tiny {
            options = options.with_memory_threshold(1);
        }
        let (bytes, summary) = write(true, options);
        let (nulled, _) = write(false, WriterOptions::default().with_memory_threshold(1));
        prop_assert_eq!(summary.rows as usize, n);
        let r = Arc::new(TsFileReader::open(bytes).unwrap());
        let back = read_batches(&r, Query::all(), batch_size).unwrap();
        prop_assert!(back.iter().all(|b| b.num_rows() <= batch_size));
        let (got, want) = (back[0].schema(), batch.schema());
        prop_assert_eq!(got.fields(), want.fields());
        let nulled = read_batches(&Arc::new(TsFileReader::open(nulled).unwrap()), Query::all(), 100).unwrap();
        prop_assert_eq!(rows_of(&back, "r"), rows_of(&nulled, "r"));
        if drop.is_some() {
            return Ok(());
        }
        prop_assert_eq!(rows_of(&back, "r"), rows_of(&[batch], "r"));
    }
}
