//! Columnar batch decoding agrees with value decoding on every column of every Hive fixture
//! (both serdes, every type, nested ones included).

mod common;

use colfile::rcfile::{ColumnBatch, Reader, Schema, Serde};
use common::*;

#[test]
fn batches_equal_values_on_every_fixture() {
    let mut columns = 0;
    for f in fixtures() {
        let Some(serde_name) = f.dump["serde"].as_str().filter(|s| *s != "raw") else {
            continue;
        };
        let schema: Schema = f.dump["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                format!(
                    "{}:{}",
                    c["name"].as_str().unwrap(),
                    c["type"].as_str().unwrap()
                )
            })
            .collect::<Vec<_>>()
            .join(",")
            .parse()
            .unwrap();
        let props: Vec<(String, String)> = f.dump["serde_properties"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let calendar = (serde_name == "binary").then_some("hybrid");
        let serde = Serde::from_options(serde_name, &props, None, calendar).unwrap();
        let bytes = std::fs::read(&f.rc).unwrap();
        let mut r = Reader::new(bytes.as_slice()).unwrap();
        let mut batch = ColumnBatch::default();
        let mut values = Vec::new();
        while let Some(g) = r.next_row_group().unwrap() {
            for (c, col) in schema.columns().iter().enumerate() {
                g.decode_batch(c, &col.ty, &serde, &mut batch).unwrap();
                values.clear();
                g.decode_column(c, &col.ty, &serde, &mut values).unwrap();
                assert_eq!(batch.len(), values.len());
                for (i, v) in values.iter().enumerate() {
                    let b = batch.value(i, &col.ty).unwrap();
                    assert!(
                        b.same_as(v),
                        "{} col {} row {i}: batch {b:?} vs value {v:?}",
                        f.name,
                        col.name
                    );
                }
                columns += 1;
            }
        }
    }
    assert!(columns > 500, "{columns}");
}
