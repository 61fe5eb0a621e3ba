//! Columnar batch decoding agrees with value decoding on every column of every Hive fixture
//! (both serdes, every type, nested ones included).

use colfile_testkit as common;

use colfile::rcfile::{ColumnBatch, RcFileReader, Schema, Serde};
use common::*;

#[test]
fn batches_equal_values_on_every_fixture() {
    let mut columns = 0;
    for f in fixtures() {
        let Some(serde_name) = f.dump["serde"].as_str().filter(|s| *s != "raw") else {
            continue;
        };
        let schema: Schema = schema_text(&f.dump).parse().unwrap();
        let props = serde_props(&f.dump);
        let calendar = (serde_name == "binary").then_some("hybrid");
        let serde = Serde::from_options(serde_name, &props, None, calendar).unwrap();
        let bytes = std::fs::read(&f.rc).unwrap();
        let mut r = RcFileReader::new(bytes.as_slice()).unwrap();
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
