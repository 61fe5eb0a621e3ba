//! TsFile queries: results equal a brute-force filter over a full scan for random predicates,
//! and read a small fraction of a large file's bytes for one device or a narrow time range.
//! (Results against the official library's goldens go through the CLI:
//! colfile-cli/tests/tsfile_query_cli.rs.)

use colfile_testkit as common;

use colfile::source::ByteSource;
use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, DataType, DeviceId};
use colfile::tsfile::writer::default_encoding;
use colfile::tsfile::{
    CmpOp, DeviceBatch, Filter, Query, TsFileReader, TsFileWriter, Value, WriterOptions,
};
use common::tsdump::{canon, parse_lines, ts_fixtures_dir};
use proptest::prelude::*;
use serde_json::Value as Json;
use std::sync::atomic::{AtomicU64, Ordering};

#[test]
fn filters_on_unknown_or_mistyped_columns_are_errors() {
    let bytes = std::fs::read(ts_fixtures_dir().join("basic.tsfile")).unwrap();
    let r = TsFileReader::open(bytes.as_slice()).unwrap();
    let q = Query::all().table("weather");
    for f in [
        Filter::eq("nope", Value::string("x")),
        Filter::eq("temp", Value::string("x")),
        Filter::lt("city", Value::Int64(3)),
    ] {
        let e = r.query(&q.clone().filter(f.clone())).unwrap_err();
        assert!(e.to_string().contains("filter"), "{f}: {e}");
    }
}

/// Tree model: device and series queries equal the official full dump restricted the same way.
#[test]
fn tree_device_and_series_queries_equal_the_official_dump() {
    let dir = ts_fixtures_dir();
    let bytes = std::fs::read(dir.join("tree_basic.tsfile")).unwrap();
    let expected =
        parse_lines(&std::fs::read_to_string(dir.join("tree_basic.expected.jsonl")).unwrap());
    let r = TsFileReader::open(bytes.as_slice()).unwrap();
    let rows = |device: &str, cols: Option<&[&str]>, (s, e): (i64, i64)| -> Vec<String> {
        let mut v: Vec<String> = expected
            .iter()
            .filter(|l| l["kind"] == "row" && l["device"] == device)
            .filter(|l| (s..=e).contains(&l["time"].as_i64().unwrap()))
            .filter_map(|l| {
                let f = l["fields"].as_object().unwrap();
                let kept: serde_json::Map<String, Json> = f
                    .iter()
                    .filter(|(k, _)| cols.is_none_or(|c| c.contains(&k.as_str())))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                kept.values()
                    .any(|v| !v.is_null())
                    .then(|| format!("{}|{}|{}", device, l["time"], canon(&Json::Object(kept))))
            })
            .collect();
        v.sort();
        v
    };
    let devices: Vec<String> = r
        .devices(&Query::all())
        .unwrap()
        .iter()
        .map(|d| d.to_string())
        .collect();
    assert_eq!(devices.len(), 4);
    for d in &devices {
        let series = r
            .metadata()
            .timeseries(r.source(), &DeviceId::from_tree_path(d).unwrap());
        let first = series.unwrap()[0].measurement_id.clone();
        for (range, cols) in [
            ((i64::MIN, i64::MAX), None),
            ((20, 150), None),
            ((i64::MIN, i64::MAX), Some(vec![first.as_str()])),
        ] {
            let mut q = Query::all().time_range(range.0, range.1);
            q = match &cols {
                Some(c) => q.series(&format!("{d}.{}", c[0])).unwrap(),
                None => q.device(DeviceId::from_tree_path(d).unwrap()),
            };
            let ours = tree_rows(&r, &q);
            assert_eq!(
                ours,
                rows(d, cols.as_deref(), range),
                "{d} {range:?} {cols:?}"
            );
        }
    }
    // A filter on a measurement some devices lack: there it is null, so `not >` holds.
    let q = Query::all().filter(Filter::gt("s_i32", Value::Int64(5)).negate());
    let mut want: Vec<String> = devices
        .iter()
        .flat_map(|d| rows(d, None, (i64::MIN, i64::MAX)))
        .filter(|line| {
            let j: Json = serde_json::from_str(line.rsplit('|').next().unwrap()).unwrap();
            j["s_i32"].as_i64().is_none_or(|v| v <= 5)
        })
        .collect();
    want.sort();
    assert_eq!(tree_rows(&r, &q), want);
    // A device that is not there is skipped by the Bloom filter or the index.
    let q = Query::all().device(DeviceId::from_tree_path("root.sg1.nope").unwrap());
    let ex = r.explain(&q).unwrap();
    assert_eq!((ex.devices.considered, ex.devices.skipped_total()), (1, 1));
}

#[test]
fn named_non_aligned_devices_are_found_whatever_the_columns() {
    // A non-aligned device has no time series of its own: the Bloom filter must not be
    // asked for one (it once was, and every such device was skipped).
    let bytes = std::fs::read(ts_fixtures_dir().join("tree_basic.tsfile")).unwrap();
    let r = TsFileReader::open(bytes.as_slice()).unwrap();
    for path in ["root.sg1.d1", "root.sg2.a.b.c", "root.x"] {
        let d = DeviceId::from_tree_path(path).unwrap();
        for q in [
            Query::all().device(d.clone()),
            Query::all().columns(Vec::<String>::new()).device(d.clone()),
        ] {
            assert_eq!(
                r.devices(&q).unwrap(),
                std::slice::from_ref(&d),
                "{path}: {q:?}"
            );
        }
    }
}

fn tree_rows<S: ByteSource>(r: &TsFileReader<S>, q: &Query) -> Vec<String> {
    let mut out = Vec::new();
    for b in r.query(q).unwrap() {
        let b = b.unwrap();
        let mut line = String::new();
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            let mut m = serde_json::Map::new();
            for (c, cur) in b.columns.iter().zip(cursors.iter_mut()) {
                line.clear();
                colfile::tsfile::tools::json::write_value(
                    c.data_type,
                    cur.next_value(),
                    colfile::tsfile::tools::json::FloatStyle::Shortest,
                    &mut line,
                );
                m.insert(c.name.clone(), serde_json::from_str(&line).unwrap());
            }
            out.push(format!("{}|{t}|{}", b.device, canon(&Json::Object(m))));
        }
    }
    out.sort();
    out
}

// ---------------------------------------------------------------------------------------
// Against a brute-force filter over a full scan

/// One row: device, time, then one value per column of `COLUMNS` (tags first).
type Row = (String, i64, Vec<Value>);

const COLUMNS: [(&str, DataType, ColumnCategory); 7] = [
    ("site", DataType::String, ColumnCategory::Tag),
    ("unit", DataType::String, ColumnCategory::Tag),
    ("i", DataType::Int32, ColumnCategory::Field),
    ("l", DataType::Int64, ColumnCategory::Field),
    ("d", DataType::Double, ColumnCategory::Field),
    ("s", DataType::String, ColumnCategory::Field),
    ("b", DataType::Boolean, ColumnCategory::Field),
];

/// A table of 6 devices (one with a null tag), 7-point pages, a flush every 40 rows, with
/// nulls and values drawn from small ranges so that filters hit and miss.
fn small_file() -> (Vec<u8>, Vec<Row>) {
    let schema = TableSchema::new(
        "t",
        COLUMNS
            .iter()
            .map(|(n, t, c)| {
                let col = TableColumn::new(n, *t, *c);
                match c {
                    ColumnCategory::Tag => col,
                    _ => col.with_codec(
                        default_encoding(*t),
                        colfile::tsfile::format::Compression::Lz4,
                    ),
                }
            })
            .collect(),
    );
    let opts = WriterOptions::default().with_page_max_points(7);
    let mut w = TsFileWriter::new(Vec::new(), opts).unwrap();
    w.register_table(schema).unwrap();
    let devices = [
        ("a", Some("x")),
        ("a", Some("y")),
        ("b", Some("x")),
        ("b", None),
        ("c", Some("z")),
        ("d", Some("x")),
    ];
    let mut rows = Vec::new();
    let mut seed = 7u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as i64
    };
    for t in 0..160i64 {
        for (k, (site, unit)) in devices.iter().enumerate() {
            // Device k has rows in its own part of time too, so time pruning hits devices.
            if k == 5 && t < 100 {
                continue;
            }
            let null = |n: &mut dyn FnMut() -> i64| n() % 5 == 0;
            let mut vals = vec![Value::string(site), unit.map_or(Value::Null, Value::string)];
            let base = (t / 40) * 10 + k as i64;
            vals.push(if null(&mut next) {
                Value::Null
            } else {
                Value::Int32((base + next() % 5) as i32)
            });
            vals.push(if null(&mut next) {
                Value::Null
            } else {
                Value::Int64(base * 3 + next() % 7)
            });
            vals.push(if null(&mut next) {
                Value::Null
            } else {
                Value::Double((next() % 100) as f64 / 4.0)
            });
            vals.push(if null(&mut next) {
                Value::Null
            } else {
                Value::string(["p", "q", "r"][(next() % 3) as usize])
            });
            vals.push(if k == 2 {
                Value::Null
            } else {
                Value::Boolean(next() % 3 == 0)
            });
            w.write_row("t", t * 10, &vals).unwrap();
            let dev = DeviceId::from_table("t", [Some(*site), *unit])
                .unwrap()
                .to_string();
            rows.push((dev, t * 10, vals));
        }
        if t % 40 == 39 {
            w.flush().unwrap();
        }
    }
    let (bytes, _) = w.finish_into_inner().unwrap();
    (bytes, rows)
}

/// The test's own evaluation of a filter on one row (nulls fail every comparison).
fn brute(f: &Filter, row: &[Value]) -> bool {
    let value = |c: &str| &row[COLUMNS.iter().position(|x| x.0 == c).unwrap()];
    let num = |v: &Value| match v {
        Value::Int32(x) => Some(*x as f64),
        Value::Int64(x) => Some(*x as f64),
        Value::Double(x) => Some(*x),
        _ => None,
    };
    match f {
        Filter::And(a, b) => brute(a, row) && brute(b, row),
        Filter::Or(a, b) => brute(a, row) || brute(b, row),
        Filter::Not(a) => !brute(a, row),
        Filter::IsNull(c) => value(c).is_null(),
        Filter::Cmp {
            column,
            op,
            value: lit,
        } => {
            let v = value(column);
            let ord = match (v, lit) {
                (Value::Null, _) => return false,
                (Value::Binary(a), Value::Binary(b)) => a.cmp(b),
                (Value::Boolean(a), Value::Boolean(b)) => a.cmp(b),
                (a, b) => num(a).unwrap().partial_cmp(&num(b).unwrap()).unwrap(),
            };
            match op {
                CmpOp::Eq => ord.is_eq(),
                CmpOp::Ne => ord.is_ne(),
                CmpOp::Lt => ord.is_lt(),
                CmpOp::Le => ord.is_le(),
                CmpOp::Gt => ord.is_gt(),
                CmpOp::Ge => ord.is_ge(),
            }
        }
    }
}

fn leaf() -> impl Strategy<Value = Filter> {
    let op = prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Ne),
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge)
    ];
    prop_oneof![
        (
            op.clone(),
            prop::sample::select(vec!["a", "b", "c", "d", "bb", ""])
        )
            .prop_map(|(o, v)| Filter::cmp("site", o, Value::string(v))),
        (op.clone(), prop::sample::select(vec!["x", "y", "z"])).prop_map(|(o, v)| Filter::cmp(
            "unit",
            o,
            Value::string(v)
        )),
        (op.clone(), -2i32..50).prop_map(|(o, v)| Filter::cmp("i", o, Value::Int32(v))),
        (op.clone(), -2i64..150).prop_map(|(o, v)| Filter::cmp("l", o, Value::Int64(v))),
        (op.clone(), -1.0f64..26.0).prop_map(|(o, v)| Filter::cmp("d", o, Value::Double(v))),
        (op.clone(), prop::sample::select(vec!["p", "q", "r", "s"]))
            .prop_map(|(o, v)| Filter::cmp("s", o, Value::string(v))),
        (op, any::<bool>()).prop_map(|(o, v)| Filter::cmp("b", o, Value::Boolean(v))),
        prop::sample::select(vec!["site", "unit", "i", "l", "d", "s", "b"])
            .prop_map(Filter::is_null),
    ]
}

fn filter() -> impl Strategy<Value = Filter> {
    leaf().prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.and(b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.or(b)),
            inner.prop_map(Filter::negate),
        ]
    })
}

/// Rows of a query as (device, time, values of `cols`).
fn query_rows<S: ByteSource>(
    r: &TsFileReader<S>,
    q: &Query,
    cols: &[&str],
) -> Vec<(String, i64, Vec<Value>)> {
    let mut out = Vec::new();
    for b in r.query(q).unwrap() {
        let b: DeviceBatch = b.unwrap();
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            let fields: Vec<Value> = cursors
                .iter_mut()
                .map(|c| c.next_value().to_owned())
                .collect();
            let vals = cols
                .iter()
                .map(|c| match b.tags.iter().find(|(n, _)| n == c) {
                    Some((_, v)) => v.as_deref().map_or(Value::Null, Value::string),
                    None => fields[b.columns.iter().position(|x| x.name == *c).unwrap()].clone(),
                })
                .collect();
            out.push((b.device.to_string(), t, vals));
        }
    }
    out
}

fn project(row: &Row, cols: &[&str]) -> (String, i64, Vec<Value>) {
    let vals = cols
        .iter()
        .map(|c| row.2[COLUMNS.iter().position(|x| x.0 == *c).unwrap()].clone())
        .collect();
    (row.0.clone(), row.1, vals)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn queries_equal_a_brute_force_filter(
        f in prop::option::of(filter()),
        range in prop::option::of((0i64..1700, 0i64..600)),
        cols in prop::sample::subsequence(vec!["site", "unit", "i", "l", "d", "s", "b"], 1..=7),
        offset in prop::option::of(0u64..300),
        limit in prop::option::of(0u64..300),
        batch in prop::option::of(1usize..50),
    ) {
        thread_local!(static FILE: (Vec<u8>, Vec<Row>) = small_file());
        FILE.with(|(bytes, rows)| {
            let r = TsFileReader::open(bytes.as_slice()).unwrap();
            let mut q = Query::all().table("t").columns(cols.iter().copied());
            let (start, end) = range.map_or((i64::MIN, i64::MAX), |(s, n)| (s, s + n));
            if range.is_some() {
                q = q.time_range(start, end);
            }
            if let Some(f) = &f {
                q = q.filter(f.clone());
            }
            let mut want: Vec<_> = rows
                .iter()
                .filter(|row| (start..=end).contains(&row.1))
                .filter(|row| f.as_ref().is_none_or(|f| brute(f, &row.2)))
                .map(|row| project(row, &cols))
                .collect();
            // Device order, then time: the order a scan returns.
            let order: Vec<String> = r.devices(&Query::all()).unwrap().iter().map(|d| d.to_string()).collect();
            want.sort_by_key(|(d, t, _)| (order.iter().position(|x| x == d), *t));
            let got = query_rows(&r, &q, &cols);
            prop_assert_eq!(&got, &want);

            // Offset, limit and batch size cut the same sequence.
            if let Some(n) = offset { q = q.offset(n); }
            if let Some(n) = limit { q = q.limit(n); }
            if let Some(n) = batch { q = q.batch_size(n); }
            let from = (offset.unwrap_or(0) as usize).min(want.len());
            let to = limit.map_or(want.len(), |l| (from + l as usize).min(want.len()));
            let mut it = r.query(&q).unwrap();
            let mut cut = Vec::new();
            let mut devices = Vec::new();
            for b in &mut it {
                let b = b.unwrap();
                if let Some(n) = batch { prop_assert!(b.len() <= n && !b.is_empty()); }
                cut.push(b.len());
                devices.push(b.device.clone());
            }
            // Full batches: one is short only where its device's rows end.
            if let Some(n) = batch {
                for k in 1..cut.len() {
                    prop_assert!(cut[k - 1] == n || devices[k - 1] != devices[k], "{cut:?}");
                }
            }
            prop_assert_eq!(cut.iter().sum::<usize>(), to - from);
            prop_assert_eq!(it.explain().rows_returned as usize, to - from);
            prop_assert_eq!(&query_rows(&r, &q, &cols), &want[from..to].to_vec());
            Ok(())
        })?;
    }
}

// ---------------------------------------------------------------------------------------
// Bytes read

/// A source that counts the bytes read through it (and never lends its slice, so every
/// read is counted).
struct Counting<'a> {
    bytes: &'a [u8],
    read: AtomicU64,
}

impl ByteSource for Counting<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> colfile::Result<()> {
        self.read.fetch_add(buf.len() as u64, Ordering::Relaxed);
        self.bytes.read_exact_at(offset, buf)
    }
}

/// A fleet table: `devices` devices (two tags), `rows` rows each one second apart, a flush
/// every `flush_every` rows, INT64 and DOUBLE fields.
fn fleet(devices: usize, rows: i64, flush_every: i64, page_points: usize) -> Vec<u8> {
    let cols = vec![
        TableColumn::new("region", DataType::String, ColumnCategory::Tag),
        TableColumn::new("dev", DataType::String, ColumnCategory::Tag),
        TableColumn::new("v", DataType::Int64, ColumnCategory::Field).with_codec(
            default_encoding(DataType::Int64),
            colfile::tsfile::format::Compression::Lz4,
        ),
        TableColumn::new("d", DataType::Double, ColumnCategory::Field).with_codec(
            default_encoding(DataType::Double),
            colfile::tsfile::format::Compression::Lz4,
        ),
    ];
    let opts = WriterOptions::default().with_page_max_points(page_points);
    let mut w = TsFileWriter::new(Vec::new(), opts).unwrap();
    w.register_table(TableSchema::new("fleet", cols)).unwrap();
    let names: Vec<(String, String)> = (0..devices)
        .map(|i| (format!("r{}", i % 10), format!("dev{i:04}")))
        .collect();
    for t in 0..rows {
        for (i, (region, dev)) in names.iter().enumerate() {
            let x = (t * 7919 + i as i64 * 104729) % 1000;
            let row = [
                Value::string(region),
                Value::string(dev),
                Value::Int64(x),
                Value::Double(x as f64 * 0.37 + (t % 13) as f64),
            ];
            w.write_row("fleet", 1_700_000_000_000 + t * 1000, &row)
                .unwrap();
        }
        if (t + 1) % flush_every == 0 {
            w.flush().unwrap();
        }
    }
    w.finish_into_inner().unwrap().0
}

fn bytes_read(file: &[u8], q: &Query) -> (u64, usize, colfile::tsfile::Explain) {
    let src = Counting {
        bytes: file,
        read: AtomicU64::new(0),
    };
    let r = TsFileReader::open(&src).unwrap();
    let mut it = r.query(q).unwrap();
    let mut rows = 0;
    for b in &mut it {
        rows += b.unwrap().len();
    }
    let ex = it.explain().clone();
    (src.read.load(Ordering::Relaxed), rows, ex)
}

#[test]
fn one_device_of_a_thousand_reads_under_five_percent() {
    let file = fleet(1000, 60, 20, 1000);
    let total = file.len() as u64;
    // Every tag fixed: the device is found by searching the index.
    let q = Query::all()
        .table("fleet")
        .tag_eq("region", "r7")
        .tag_eq("dev", "dev0417");
    let (read, rows, ex) = bytes_read(&file, &q);
    assert_eq!(rows, 60);
    assert!(read * 20 < total, "read {read} of {total} bytes\n{ex}");
    // One tag fixed: the device index is walked, 999 devices dropped by their tags.
    let q = Query::all().table("fleet").tag_eq("dev", "dev0417");
    let (read, rows, ex) = bytes_read(&file, &q);
    assert_eq!(rows, 60);
    assert_eq!(ex.devices.skipped_total(), 999);
    assert!(read * 20 < total, "read {read} of {total} bytes\n{ex}");
    // The whole file, for scale.
    let (read, rows, _) = bytes_read(&file, &Query::all());
    assert_eq!(rows, 60_000);
    assert!(read >= total / 2);
}

#[test]
fn a_narrow_time_range_reads_under_five_percent() {
    // A long history: 4 devices x 40 000 s, a chunk group every 8 000 s, 800-point pages.
    let file = fleet(4, 40_000, 8_000, 800);
    let total = file.len() as u64;
    let (s, e) = (
        1_700_000_000_000 + 21_000_000,
        1_700_000_000_000 + 21_099_000,
    );
    let q = Query::all().table("fleet").time_range(s, e);
    let (read, rows, ex) = bytes_read(&file, &q);
    assert_eq!(rows, 4 * 100);
    assert!(
        ex.chunks.skipped_total() > 0 && ex.pages.skipped_total() > 0,
        "{ex}"
    );
    assert!(read * 20 < total, "read {read} of {total} bytes\n{ex}");
    // A value filter that no page can pass reads no payload at all.
    let q = Query::all()
        .table("fleet")
        .filter(Filter::gt("v", Value::Int64(5000)));
    let (read, rows, ex) = bytes_read(&file, &q);
    assert_eq!(rows, 0);
    assert!(read * 100 < total, "read {read} of {total} bytes\n{ex}");
}

/// Damaged files give errors, never panics, on the paths that read page headers one at a
/// time and pair only some pages.
#[test]
fn pruned_reads_of_damaged_files_fail_cleanly() {
    let mut seed = 99u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for name in ["multi_page", "multi_chunk", "nulls", "tree_encodings"] {
        let good = std::fs::read(ts_fixtures_dir().join(format!("{name}.tsfile"))).unwrap();
        let r = TsFileReader::open(good.as_slice()).unwrap();
        let meta = r.metadata().meta_offset() as usize;
        for _ in 0..100 {
            let mut bad = good.clone();
            for _ in 0..1 + next() % 3 {
                let at = 7 + next() % (meta - 7);
                bad[at] ^= 1 << (next() % 8);
            }
            let Ok(r) = TsFileReader::open(bad.as_slice()) else {
                continue;
            };
            for q in [
                Query::all().time_range(3000, 3500).batch_size(17),
                Query::all().time_range(1_700_000_000_200, 1_700_000_001_900),
                Query::all().filter(Filter::gt("v", Value::Int64(1500))),
                Query::all()
                    .time_range(1_700_000_000_500, 1_700_000_001_700)
                    .filter(Filter::lt("d", Value::Double(30.0)).or(Filter::is_null("s"))),
            ] {
                if let Ok(it) = r.query(&q) {
                    for b in it {
                        if b.is_err() {
                            break;
                        }
                    }
                }
            }
        }
    }
}

/// `split_query`'s parts, read one after another, give the whole query's batches (same rows,
/// same order) on every fixture and every readable TsFile of other writers, for the whole
/// file and for a query with a time range; a query with a limit stays one part.
#[test]
fn split_queries_read_in_turn_equal_the_whole_query() {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(ts_fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    if let Some(ext) = common::external_dir() {
        files.extend(
            std::fs::read_dir(ext.join("real"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
    }
    files.retain(|p| p.extension().is_some_and(|e| e == "tsfile"));
    files.sort();
    let batches = |r: &TsFileReader<Vec<u8>>, q: &Query| -> Result<Vec<String>, String> {
        let it = r.query(q).map_err(|e| e.to_string())?;
        it.map(|b| b.map(|b| format!("{b:?}")).map_err(|e| e.to_string()))
            .collect()
    };
    let mut split_files = 0;
    for path in &files {
        let Ok(r) = TsFileReader::open(std::fs::read(path).unwrap()) else {
            continue; // not readable at all (pre-v1 files): nothing to split
        };
        for q in [Query::all(), Query::all().time_range(0, 1_700_000_000_000)] {
            let Ok(whole) = batches(&r, &q) else { continue };
            for n in [2, 3, 64] {
                let parts = r.split_query(&q, n).unwrap();
                assert!(parts.len() <= n, "{}", path.display());
                split_files += usize::from(parts.len() > 1);
                let mut joined = Vec::new();
                for p in &parts {
                    joined.extend(batches(&r, p).unwrap());
                }
                assert_eq!(joined, whole, "{} in {n} parts", path.display());
            }
        }
        let limited = r.split_query(&Query::all().limit(5), 4).unwrap();
        assert_eq!(limited.len(), 1);
    }
    assert!(split_files > 10, "only {split_files} splits");
}
