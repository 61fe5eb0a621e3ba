//! `Profile::Java` against the bytes `spec/tsfile.md` works out: §14's file byte for byte,
//! the Bloom filter (§9), the index tree (§10), the writer choices of §2 and §11, and
//! Java-profile files of both models read back exactly.

#[path = "tsfile_java_layout/index.rs"]
mod index;
#[path = "tsfile_java_layout/writer.rs"]
mod writer;

use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType, DeviceId, Encoding};
use colfile::tsfile::writer::Profile;
use colfile::tsfile::{Query, TsFileReader, TsFileWriter, Value, WriterOptions};

/// Bytes in the spec's notation: hex digits (spaces ignored) and `"quoted"` ASCII.
fn h(spec: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut parts = spec.split('"');
    while let Some(hex) = parts.next() {
        let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        assert!(digits.len() % 2 == 0, "odd hex run {hex:?}");
        for pair in digits.chunks(2) {
            let s = std::str::from_utf8(pair).unwrap();
            out.push(u8::from_str_radix(s, 16).unwrap_or_else(|_| panic!("bad hex {s:?}")));
        }
        if let Some(text) = parts.next() {
            out.extend_from_slice(text.as_bytes());
        }
    }
    out
}

/// The writer options of every Java-profile file here.
fn java() -> WriterOptions {
    WriterOptions::default().with_profile(Profile::Java)
}

/// Every row the reader returns, in reader order: (device, time, (column, value)…).
type Rows = Vec<(String, i64, Vec<(String, Value)>)>;

fn read_rows(bytes: &[u8]) -> Rows {
    let r = TsFileReader::open(bytes.to_vec()).expect("open");
    let mut out = Vec::new();
    for b in r.query(&Query::all()).expect("query") {
        let b = b.expect("batch");
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            let row = b
                .columns
                .iter()
                .zip(&mut cursors)
                .map(|(c, cur)| (c.name.clone(), cur.next_value().to_owned()))
                .collect();
            out.push((b.device.to_string(), t, row));
        }
    }
    out
}

/// §14's table `tab`: TAGs `a`, `b` (TEXT), FIELDs `f1` INT64 and `f2` BOOLEAN, every
/// column with Java's default encoding for its type and UNCOMPRESSED.
fn section_14_schema() -> TableSchema {
    let col = |name: &str, t: DataType, cat: ColumnCategory| {
        TableColumn::new(name, t, cat)
            .with_codec(Profile::Java.default_encoding(t), Compression::Uncompressed)
    };
    TableSchema::new(
        "tab",
        vec![
            col("a", DataType::Text, ColumnCategory::Tag),
            col("b", DataType::Text, ColumnCategory::Tag),
            col("f1", DataType::Int64, ColumnCategory::Field),
            col("f2", DataType::Boolean, ColumnCategory::Field),
        ],
    )
}

/// §14's rows: device ("tab", null, "x"), times 1000, 1010, …, 1090; `f1` = row number on odd
/// rows, null on even ones; `f2` = row is odd.
fn section_14_rows() -> Vec<(i64, Vec<Value>)> {
    (0..10i64)
        .map(|i| {
            let f1 = if i % 2 == 1 {
                Value::Int64(i)
            } else {
                Value::Null
            };
            let row = vec![
                Value::Null,
                Value::string("x"),
                f1,
                Value::Boolean(i % 2 == 1),
            ];
            (1000 + 10 * i, row)
        })
        .collect()
}

fn section_14_file(options: WriterOptions) -> Vec<u8> {
    let options = options
        .with_time_codec(Encoding::Ts2Diff, Compression::Uncompressed)
        .with_property("k", Some(&[0xff, 0x00]));
    let mut w = TsFileWriter::new(Vec::new(), options).unwrap();
    w.register_table(section_14_schema()).unwrap();
    for (t, row) in section_14_rows() {
        w.write_row("tab", t, &row).unwrap();
    }
    w.finish_into_inner().unwrap().0
}

/// §14's listing, line by line, with the offsets it gives where it gives one. Its elisions are filled from its
/// own descriptions: the TSM statistics ("stats{5,1010,1090,min 1,max 9,first 1,last 9,sum
/// 25.0}", "stats{10,…,first 0,last 1,sum 5}", §8.1 layouts) and the 32 Bloom bytes, which
/// are §9.3 applied to the three paths "tab.null.x.", "tab.null.x.f1", "tab.null.x.f2" with
/// m = 256, k = 5 (bits 29 54 91 95 110 125 126 147 151 163 177 183 229 249 255, worked out
/// with a separate script written from the spec, not with this crate).
const SECTION_14: &[(Option<usize>, &str)] = &[
    (Some(0x000), r#"54 73 46 69 6c 65 04"#),
    (Some(0x007), "00 03 06 74 61 62 01 02 78"),
    (Some(0x010), "85 00 1a 06 00 04"),
    (Some(0x016), "18 18"),
    (
        Some(0x018),
        "00000009 00000000 000000000000000a 00000000000003e8",
    ),
    (Some(0x030), "45 04 66 31 20 02 00 04"),
    (Some(0x038), "1e 1e"),
    (Some(0x03a), "0000000a 55 40"),
    (
        Some(0x040),
        "00000004 00000000 0000000000000002 0000000000000001",
    ),
    (Some(0x058), "45 04 66 32 0e 00 00 02"),
    (Some(0x060), "0c 0c 0000000a ff c0"),
    (Some(0x068), "05 01 05 02 55 40"),
    (Some(0x06e), "02"),
    (
        Some(0x06f),
        "80 00 06 08 0a 00000000000003e8 0000000000000442 0000000000000010",
    ),
    (
        None,
        "40 04 66 31 02 08 05 00000000000003f2 0000000000000442
         0000000000000001 0000000000000009 0000000000000001 0000000000000009
         4039000000000000 0000000000000030",
    ),
    (
        None,
        "40 04 66 32 00 08 0a 00000000000003e8 0000000000000442 00 01 0000000000000005
         0000000000000058",
    ),
    (Some(0x0fc), "01 00 000000000000006f 00000000000000fc 03"),
    (Some(0x10f), "01 06 74 61 62"),
    (
        None,
        "01 03 06 74 61 62 01 02 78 00000000000000fc 000000000000010f 01",
    ),
    (None, "01 06 74 61 62 04"),
    (None, "00000001 61 05 00 00 00000000 00000000"),
    (None, "00000001 62 05 00 00 00000000 00000000"),
    (None, "00000002 66 31 02 04 00 00000000 00000001"),
    (None, "00000002 66 32 00 02 00 00000000 00000001"),
    (None, "000000000000006e"),
    (
        None,
        "20 00000020 00004000 00000088 00400060 00008800 08008200 00000000 20000082
         80 02 05",
    ),
    (
        None,
        r#"08 18 "encryptLevel" 02 30 14 "encryptKey" 01 16 "encryptType"
           4a "org.apache.tsfile.encrypt.UNENCRYPTED" 02 6b 04 ff 00"#,
    ),
    (Some(0x1f5), "000000e6"),
    (Some(0x1f9), r#""TsFile""#),
];

fn section_14_bytes() -> Vec<u8> {
    let mut bytes = Vec::new();
    for &(offset, line) in SECTION_14 {
        if let Some(offset) = offset {
            assert_eq!(bytes.len(), offset, "transcription drifts before {line:?}");
        }
        bytes.extend(h(line));
    }
    assert_eq!(bytes.len(), 511, "§14: 511 bytes");
    bytes
}

#[test]
fn section_14_file_byte_for_byte() {
    // The spec's encodings are Java's defaults: TEXT PLAIN, INT64 TS_2DIFF, BOOLEAN RLE.
    let schema = section_14_schema();
    let encodings: Vec<Encoding> = schema.columns.iter().map(|c| c.schema.encoding).collect();
    assert_eq!(
        encodings,
        [
            Encoding::Plain,
            Encoding::Plain,
            Encoding::Ts2Diff,
            Encoding::Rle
        ]
    );
    let ours = section_14_file(java());
    let spec = section_14_bytes();
    if let Some(at) = ours.iter().zip(&spec).position(|(a, b)| a != b) {
        panic!("first difference at {at:#x}: ours {:02x?}", &ours[at..]);
    }
    assert_eq!(ours, spec);
}

#[test]
fn section_14_file_reads_back() {
    let rows = read_rows(&section_14_bytes());
    let expected: Rows = section_14_rows()
        .into_iter()
        .map(|(t, row)| {
            let fields = vec![
                ("f1".to_string(), row[2].clone()),
                ("f2".into(), row[3].clone()),
            ];
            ("tab.null.x".to_string(), t, fields)
        })
        .collect();
    assert_eq!(rows, expected);
    let r = TsFileReader::open(section_14_bytes()).unwrap();
    assert_eq!(
        r.metadata().properties().last(),
        Some(&("k".to_string(), Some(vec![0xff, 0x00])))
    );
}

/// `rows` by device and time, each row's columns by name.
fn sorted(mut rows: Rows) -> Rows {
    for (_, _, row) in &mut rows {
        row.sort_by(|a, b| a.0.cmp(&b.0));
    }
    rows.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    rows
}

/// A tree-model file under both profiles: an aligned and a non-aligned device, columns with
/// the profile's default encodings, runs long enough for RLE run-length runs.
fn tree_file(profile: Profile) -> (Vec<u8>, Rows) {
    let ms = |names: &[(&str, DataType)]| -> Vec<MeasurementSchema> {
        names
            .iter()
            .map(|&(n, t)| {
                MeasurementSchema::new(n, t, profile.default_encoding(t), Compression::Lz4)
            })
            .collect()
    };
    let aligned = [
        ("on", DataType::Boolean),
        ("n", DataType::Int32),
        ("x", DataType::Double),
    ];
    let plain = [("on", DataType::Boolean), ("s", DataType::Text)];
    let mut w =
        TsFileWriter::new(Vec::new(), WriterOptions::default().with_profile(profile)).unwrap();
    w.register_device("root.sg.al", true, ms(&aligned)).unwrap();
    w.register_device("root.sg.na", false, ms(&plain)).unwrap();
    let mut expected = Vec::new();
    for i in 0..300i64 {
        let t = 1_700_000_000_000 + i * 1000;
        let on = Value::Boolean((i / 40) % 2 == 0);
        let n = if i % 7 == 0 {
            Value::Null
        } else {
            Value::Int32((i / 30) as i32)
        };
        let x = Value::Double(i as f64 / 4.0);
        let s = Value::string(&format!("s{}", i % 3));
        let al = [("on", on.clone()), ("n", n), ("x", x)];
        let na = [("on", on), ("s", s)];
        for (dev, vals) in [("root.sg.al", &al[..]), ("root.sg.na", &na[..])] {
            let refs: Vec<_> = vals.iter().map(|(n, v)| (*n, v.as_ref())).collect();
            w.write_record(dev, t, &refs).unwrap();
            let row = vals
                .iter()
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect();
            expected.push((dev.to_string(), t, row));
        }
    }
    (w.finish_into_inner().unwrap().0, sorted(expected))
}

#[test]
fn tree_files_read_back_under_both_profiles() {
    let (java_bytes, expected) = tree_file(Profile::Java);
    let (portable_bytes, same) = tree_file(Profile::Portable);
    assert_eq!(expected, same);
    // BOOLEAN is RLE with run-length runs under Java, PLAIN otherwise: the files differ.
    assert_ne!(java_bytes, portable_bytes);
    for bytes in [&java_bytes, &portable_bytes] {
        let rows = sorted(read_rows(bytes));
        assert_eq!(rows.len(), expected.len());
        for (got, want) in rows.iter().zip(&expected) {
            assert_eq!(got, want);
        }
    }
    for (bytes, encoding) in [
        (java_bytes, Encoding::Rle),
        (portable_bytes, Encoding::Plain),
    ] {
        let r = TsFileReader::open(bytes).unwrap();
        let device = DeviceId::from_tree_path("root.sg.na").unwrap();
        let on = r.metadata().find_timeseries(r.source(), &device, "on");
        let (enc, _) = r.series_codec(&on.unwrap().unwrap()).unwrap();
        assert_eq!(enc, encoding);
    }
}
