//! `TsFileWriter::write_batch` and `write_batch_owned`: random batches (several per device,
//! devices interleaved, nulls, absent columns, batches longer than a page, byte-limit page
//! cuts, flushes under a small memory threshold) read back as written on both paths, and
//! give the same bytes when no flush comes before `finish`.

use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType, DeviceId, Encoding};
use colfile::tsfile::{
    Column, DeviceBatch, Query, TsFileReader, TsFileWriter, Value, ValueRef, WriterOptions,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

const FIELDS: [(&str, DataType, Encoding); 4] = [
    ("a", DataType::Int64, Encoding::Ts2Diff),
    ("b", DataType::Double, Encoding::Gorilla),
    ("c", DataType::String, Encoding::Plain),
    ("d", DataType::Boolean, Encoding::Plain),
];

/// How one column of a batch is given.
#[derive(Clone, Debug)]
enum Shape {
    Absent,
    Dense,
    /// One presence flag per row, cycled.
    Sparse(Vec<bool>),
}

#[derive(Clone, Debug)]
struct Spec {
    device: u8,
    rows: usize,
    shapes: Vec<Shape>,
}

fn arb_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        1 => Just(Shape::Absent),
        3 => Just(Shape::Dense),
        2 => prop::collection::vec(any::<bool>(), 1..9).prop_map(Shape::Sparse),
    ]
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    (
        0u8..4,
        prop_oneof![3 => 0usize..200, 1 => 200usize..1500],
        prop::collection::vec(arb_shape(), FIELDS.len()),
    )
        .prop_map(|(device, rows, shapes)| Spec {
            device,
            rows,
            shapes,
        })
}

fn value(field: usize, device: u8, t: i64) -> Value {
    match field {
        0 => Value::Int64(t * 3 - i64::from(device)),
        1 => Value::Double((t as f64).sin() * 100.0),
        2 => Value::Binary(format!("s{}", t % 7).into_bytes()),
        _ => Value::Boolean(t % 3 == 0),
    }
}

/// Every row by (device, time): one value per field, null where absent.
type Rows = BTreeMap<(String, i64), Vec<Value>>;

/// The batches, and every value they hold by (device, time, field).
fn batches(specs: &[Spec]) -> (Vec<DeviceBatch>, Rows) {
    let mut next_time: BTreeMap<u8, i64> = BTreeMap::new();
    let mut expected = BTreeMap::new();
    let mut out = Vec::new();
    for s in specs {
        let tag = format!("dev{}", s.device);
        let device = DeviceId::from_table("t", [Some(tag.as_str())]).expect("device");
        let start = *next_time.entry(s.device).or_insert(1);
        let times: Vec<i64> = (start..start + s.rows as i64).collect();
        next_time.insert(s.device, start + s.rows as i64 + 5);
        let mut columns = Vec::new();
        let mut rows: Vec<Vec<Value>> = vec![vec![Value::Null; FIELDS.len()]; s.rows];
        for (f, ((name, ty, _), shape)) in FIELDS.iter().zip(&s.shapes).enumerate() {
            let mut c = Column::new(name, *ty).expect("column");
            let present: Vec<bool> = match shape {
                Shape::Absent => continue,
                Shape::Dense => vec![true; s.rows],
                Shape::Sparse(p) => (0..s.rows).map(|i| p[i % p.len()]).collect(),
            };
            for ((&t, &here), row) in times.iter().zip(&present).zip(&mut rows) {
                if here {
                    let v = value(f, s.device, t);
                    c.values.push(v.as_ref()).expect("push");
                    row[f] = v;
                }
            }
            if matches!(shape, Shape::Sparse(_)) {
                c.present = present;
            }
            columns.push(c);
        }
        for (&t, row) in times.iter().zip(rows) {
            expected.insert((device.to_string(), t), row);
        }
        out.push(DeviceBatch {
            table: "t".into(),
            device,
            tags: vec![("id".into(), Some(tag))],
            times,
            columns,
        });
    }
    (out, expected)
}

fn writer(options: &WriterOptions) -> TsFileWriter<Vec<u8>> {
    let mut w = TsFileWriter::new(Vec::new(), options.clone()).expect("writer");
    let mut cols = vec![TableColumn::new(
        "id",
        DataType::String,
        ColumnCategory::Tag,
    )];
    for (name, ty, enc) in FIELDS {
        cols.push(
            TableColumn::new(name, ty, ColumnCategory::Field).with_codec(enc, Compression::Lz4),
        );
    }
    w.register_table(TableSchema::new("t", cols))
        .expect("table");
    w
}

fn read_all(bytes: Vec<u8>) -> Rows {
    let r = TsFileReader::open(bytes).expect("open");
    let mut out = BTreeMap::new();
    for b in r.query(&Query::all()).expect("query") {
        let b = b.expect("batch");
        let mut row_of = BTreeMap::new();
        for &t in &b.times {
            row_of.insert(t, vec![Value::Null; FIELDS.len()]);
        }
        for c in &b.columns {
            let f = FIELDS
                .iter()
                .position(|(n, ..)| *n == c.name)
                .expect("field");
            let mut cur = c.cursor();
            for &t in &b.times {
                let v = cur.next_value();
                if v != ValueRef::Null {
                    row_of.get_mut(&t).expect("row")[f] = v.to_owned();
                }
            }
        }
        for (t, row) in row_of {
            out.insert((b.device.to_string(), t), row);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn owned_and_borrowed_batches_write_the_same_file(
        specs in prop::collection::vec(arb_spec(), 1..12),
        max_points in prop_oneof![Just(10_000usize), 50usize..400],
        max_bytes in prop_oneof![Just(64 * 1024usize), 500usize..6000],
        threshold in prop_oneof![Just(128usize << 20), 4_000usize..40_000],
    ) {
        let options = WriterOptions::default()
            .with_page_max_points(max_points)
            .with_page_max_bytes(max_bytes)
            .with_memory_threshold(threshold);
        let (batches, expected) = batches(&specs);
        let mut borrowed = writer(&options);
        for b in &batches {
            borrowed.write_batch(b).expect("write_batch");
        }
        let mut owned = writer(&options);
        for b in batches.clone() {
            owned.write_batch_owned(b).expect("write_batch_owned");
        }
        let (a, sa) = borrowed.finish_into_inner().expect("finish");
        let (b, sb) = owned.finish_into_inner().expect("finish");
        prop_assert_eq!(sa.rows, sb.rows);
        // Adopted buffers bring their own capacity, which the memory threshold counts, so
        // under a small threshold the two may flush chunk groups at different rows.
        if threshold == 128 << 20 {
            prop_assert!(a == b, "the two paths wrote different bytes");
        }
        prop_assert_eq!(read_all(b), expected.clone());
        prop_assert_eq!(read_all(a), expected);
    }
}

/// A batch that repeats a device's last time is refused on the owned path too, and the
/// device stays writable.
#[test]
fn owned_batch_out_of_order_is_refused() {
    let options = WriterOptions::default();
    let spec = |rows| Spec {
        device: 1,
        rows,
        shapes: vec![Shape::Dense; FIELDS.len()],
    };
    let (mut bs, _) = batches(&[spec(10)]);
    let mut w = writer(&options);
    let first = bs.remove(0);
    let again = first.clone();
    w.write_batch_owned(first).expect("first");
    let err = w.write_batch_owned(again).expect_err("same times again");
    assert!(err.to_string().contains("not after the last time"), "{err}");
    let (bs, _) = batches(&[spec(10), spec(5)]);
    let later = bs.into_iter().nth(1).expect("second batch");
    w.write_batch_owned(later).expect("later rows");
    let (bytes, summary) = w.finish_into_inner().expect("finish");
    assert_eq!(summary.rows, 15);
    assert_eq!(read_all(bytes).len(), 15);
}

/// A batch whose presence mask or value count does not match its rows is refused whole, on
/// both paths, and the writer stays usable.
#[test]
fn misshapen_batches_are_refused() {
    let dense = Spec {
        device: 2,
        rows: 4,
        shapes: vec![Shape::Dense; FIELDS.len()],
    };
    let (good, _) = batches(std::slice::from_ref(&dense));
    let mut short_mask = good[0].clone();
    short_mask.columns[0].present = vec![true; 3];
    let mut extra_value = good[0].clone();
    extra_value.columns[1]
        .values
        .push(ValueRef::Double(1.0))
        .expect("push");
    for (bad, says) in [
        (short_mask, "3 presence flags for 4 rows"),
        (extra_value, "4 rows present but 5 values"),
    ] {
        let mut w = writer(&WriterOptions::default());
        let e = w.write_batch(&bad).expect_err("borrowed");
        assert!(e.to_string().contains(says), "{e}");
        let e = w.write_batch_owned(bad).expect_err("owned");
        assert!(e.to_string().contains(says), "{e}");
        w.write_batch_owned(good[0].clone())
            .expect("a good batch after");
        let (bytes, summary) = w.finish_into_inner().expect("finish");
        assert_eq!(summary.rows, 4);
        assert_eq!(read_all(bytes).len(), 4);
    }
}
