//! Lossy float encodings and statistics: TS_2DIFF and RLE keep `max_point_number` decimals
//! of FLOAT/DOUBLE values while the writer's statistics (ours and Java's) hold the values as
//! written. A filter must still find every decoded value that matches: chunks and pages are
//! never skipped on such a difference.

use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType, Encoding};
use colfile::tsfile::{Filter, Query, TsFileReader, TsFileWriter, Value, WriterOptions};

fn file(encoding: Encoding, data_type: DataType) -> (Vec<u8>, Vec<(i64, f64)>) {
    let schema = TableSchema::new(
        "t",
        vec![
            TableColumn::new("id", DataType::String, ColumnCategory::Tag),
            TableColumn::new("f", data_type, ColumnCategory::Field)
                .with_codec(encoding, Compression::Uncompressed),
        ],
    );
    let mut out = Vec::new();
    let mut w =
        TsFileWriter::new(&mut out, WriterOptions::default().with_page_max_points(4)).unwrap();
    w.register_table(schema).unwrap();
    let mut rows = Vec::new();
    for t in 0..40i64 {
        // Three decimals or more: the encodings keep two.
        let v = 400.0 + t as f64 + 0.84375;
        let value = match data_type {
            DataType::Float => Value::Float(v as f32),
            _ => Value::Double(v),
        };
        w.write_row("t", t, &[Value::string("a"), value]).unwrap();
        rows.push((t, v));
    }
    w.finish().unwrap();
    (out, rows)
}

fn decoded(r: &TsFileReader<&[u8]>, q: &Query) -> Vec<(i64, f64)> {
    let mut out = Vec::new();
    for b in r.query(q).unwrap() {
        let b = b.unwrap();
        let col = &b.columns[0];
        let mut cur = col.cursor();
        for &t in &b.times {
            let v = match cur.next_value() {
                colfile::tsfile::ValueRef::Float(x) => f64::from(x),
                colfile::tsfile::ValueRef::Double(x) => x,
                other => panic!("{other:?}"),
            };
            out.push((t, v));
        }
    }
    out
}

#[test]
fn filters_find_rounded_values_that_statistics_do_not_hold() {
    for encoding in [Encoding::Ts2Diff, Encoding::Rle] {
        for data_type in [DataType::Float, DataType::Double] {
            let (bytes, _) = file(encoding, data_type);
            let r = TsFileReader::open(bytes.as_slice()).unwrap();
            let all = decoded(&r, &Query::all().table("t").columns(["f"]));
            assert_eq!(all.len(), 40);
            // Each decoded value, compared exactly, must find its row (and only rows with it).
            for &(t, v) in &all {
                let value = match data_type {
                    DataType::Float => Value::Float(v as f32),
                    _ => Value::Double(v),
                };
                for f in [
                    Filter::eq("f", value.clone()),
                    Filter::le("f", value.clone()),
                ] {
                    let q = Query::all().table("t").columns(["f"]).filter(f.clone());
                    let got = decoded(&r, &q);
                    let want: Vec<(i64, f64)> = all
                        .iter()
                        .copied()
                        .filter(|&(_, x)| match &f {
                            Filter::Cmp {
                                op: colfile::tsfile::CmpOp::Eq,
                                ..
                            } => x == v,
                            _ => x <= v,
                        })
                        .collect();
                    assert_eq!(got, want, "{encoding:?} {data_type:?} at {t}: {f:?}");
                }
            }
        }
    }
}
