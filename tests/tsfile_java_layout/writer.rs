//! The writer choices of §2's table and §11 under `Profile::Java`, each against the bytes
//! or values the spec gives.

use super::{h, java, read_rows};
use colfile::cursor::Cursor;
use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use colfile::tsfile::format::{
    ChunkHeader, ColumnCategory, Compression, DataType, DeviceId, Encoding, PageHeader,
};
use colfile::tsfile::writer::Profile;
use colfile::tsfile::{TsFileReader, TsFileWriter, Value, WriterOptions};

fn field(name: &str, t: DataType, enc: Encoding, comp: Compression) -> TableColumn {
    TableColumn::new(name, t, ColumnCategory::Field).with_codec(enc, comp)
}

/// A one-table file of `columns` with `rows` (time, values), written with `options`.
fn table_file(
    options: WriterOptions,
    columns: Vec<TableColumn>,
    rows: &[(i64, Vec<Value>)],
) -> Vec<u8> {
    let mut w = TsFileWriter::new(Vec::new(), options).unwrap();
    w.register_table(TableSchema::new("t", columns)).unwrap();
    for (t, row) in rows {
        w.write_row("t", *t, row).unwrap();
    }
    w.finish_into_inner().unwrap().0
}

/// The chunk header at `offset` and its first page's header and stored bytes.
fn first_page(bytes: &[u8], offset: i64) -> (ChunkHeader, PageHeader, Vec<u8>) {
    let at = offset as usize;
    let mut c = Cursor::new(&bytes[at..], at as u64);
    let chunk = ChunkHeader::read(&mut c, 1 << 10).unwrap();
    let page = PageHeader::read(&mut c, chunk.data_type, chunk.marker.is_multi_page()).unwrap();
    let data = c
        .take("page", page.compressed_size as usize)
        .unwrap()
        .to_vec();
    (chunk, page, data)
}

#[test]
fn data_section_of_one_row_as_section_5_and_7_2_give_it() {
    // One row: every TS_2DIFF block holds one value, so `n = 0, w = 0` and Java's
    // `min_delta = MAX` (§7.2); nothing but chunks before the separator (no 0x04 record,
    // §11.1); the default properties in Java's order (§11.1).
    let u = Compression::Uncompressed;
    let columns = vec![
        field("i", DataType::Int32, Encoding::Ts2Diff, u),
        field("l", DataType::Int64, Encoding::Ts2Diff, u),
    ];
    let options = java().with_time_codec(Encoding::Ts2Diff, u);
    let bytes = table_file(
        options,
        columns,
        &[(1000, vec![Value::Int32(42), Value::Int64(43)])],
    );
    let expected = h("00 01 02 74
        85 00 1a 06 00 04  18 18  00000000 00000000 7fffffffffffffff 00000000000003e8
        45 02 69 17 01 00 04  15 15  00000001 80  00000000 00000000 7fffffff 0000002a
        45 02 6c 1f 02 00 04  1d 1d  00000001 80  00000000 00000000 7fffffffffffffff 000000000000002b
        02");
    assert_eq!(&bytes[7..7 + expected.len()], &expected[..]);
    let meta = TsFileReader::open(bytes.clone())
        .unwrap()
        .metadata()
        .meta_offset();
    assert_eq!(meta as usize, 7 + expected.len() - 1);
    let properties = h(r#"06 18 "encryptLevel" 02 "0" 14 "encryptKey" 01
        16 "encryptType" 4a "org.apache.tsfile.encrypt.UNENCRYPTED""#);
    assert!(bytes[..bytes.len() - 10].ends_with(&properties));
}

#[test]
fn role_bits_and_the_multi_chunk_flag() {
    // §11.2: type = (several chunks) | mask, 0x80 for the time column, 0x40 for aligned
    // value columns; non-aligned series and role_masks = false (C++) have none.
    let types = |masks: bool| -> Vec<(String, Vec<u8>)> {
        let mut o = java();
        o.role_masks = masks;
        let mut w = TsFileWriter::new(Vec::new(), o).unwrap();
        let m =
            |n: &str| MeasurementSchema::new(n, DataType::Int64, Encoding::Plain, Compression::Lz4);
        w.register_device("root.sg.al", true, vec![m("v")]).unwrap();
        w.register_device("root.sg.na", false, vec![m("v"), m("w")])
            .unwrap();
        for t in 0..2i64 {
            let v = Value::Int64(t);
            w.write_record("root.sg.al", t, &[("v", v.as_ref())])
                .unwrap();
            let mut na = vec![("v", v.as_ref())];
            if t == 1 {
                na.push(("w", v.as_ref()));
            }
            w.write_record("root.sg.na", t, &na).unwrap();
            w.flush().unwrap();
        }
        let bytes = w.finish_into_inner().unwrap().0;
        let r = TsFileReader::open(bytes.clone()).unwrap();
        ["root.sg.al", "root.sg.na"]
            .iter()
            .map(|p| {
                let id = DeviceId::from_tree_path(p).unwrap();
                let series = r.metadata().timeseries(&bytes[..], &id).unwrap();
                (
                    p.to_string(),
                    series.iter().map(|s| s.timeseries_type).collect(),
                )
            })
            .collect()
    };
    let java_types = [
        ("root.sg.al".to_string(), vec![0x81, 0x41]),
        ("root.sg.na".into(), vec![0x01, 0x00]),
    ];
    assert_eq!(types(true), java_types);
    let cpp_types = [
        ("root.sg.al".to_string(), vec![0x01, 0x01]),
        ("root.sg.na".into(), vec![0x01, 0x00]),
    ];
    assert_eq!(types(false), cpp_types);
}

#[test]
fn all_null_value_column_is_a_bare_chunk_header() {
    // §11.8 / §2 row 20: marker 0x45, data_size 0, and statistics count 0,
    // start Long.MAX_VALUE, end Long.MIN_VALUE, zero INT32 fields.
    let u = Compression::Uncompressed;
    let columns = vec![
        field("f1", DataType::Int64, Encoding::Plain, u),
        field("f2", DataType::Int32, Encoding::Ts2Diff, u),
    ];
    let rows = [
        (1, vec![Value::Int64(5), Value::Null]),
        (2, vec![Value::Int64(6), Value::Null]),
    ];
    let bytes = table_file(java(), columns, &rows);
    let header = h("45 04 66 32 00 01 00 04 02");
    let at = bytes
        .windows(header.len())
        .position(|w| w == header)
        .expect("bare f2 chunk");
    let mut tsm = h("40 04 66 32 01 08 00 7fffffffffffffff 8000000000000000
        00000000 00000000 00000000 00000000 0000000000000000");
    tsm.extend_from_slice(&(at as i64).to_be_bytes());
    assert!(bytes.windows(tsm.len()).any(|w| w == tsm), "f2's TSM");
    let f2: Vec<Value> = read_rows(&bytes)
        .into_iter()
        .map(|(_, _, row)| row[1].1.clone())
        .collect();
    assert_eq!(f2, [Value::Null, Value::Null]);
}

#[test]
fn value_chunks_in_column_order_series_in_name_order() {
    // §11.7 / §2 row 7: chunks follow the schema ("z", "a", "m"), the index sorts them.
    let u = Compression::Uncompressed;
    let columns: Vec<TableColumn> = ["z", "a", "m"]
        .iter()
        .map(|n| field(n, DataType::Int32, Encoding::Plain, u))
        .collect();
    let bytes = table_file(
        java(),
        columns,
        &[(1, vec![Value::Int32(1), Value::Int32(2), Value::Int32(3)])],
    );
    let r = TsFileReader::open(bytes.clone()).unwrap();
    let series = r
        .metadata()
        .timeseries(
            &bytes[..],
            &DeviceId::from_table("t", Vec::<Option<String>>::new()).unwrap(),
        )
        .unwrap();
    let names: Vec<&str> = series.iter().map(|s| s.measurement_id.as_str()).collect();
    assert_eq!(names, ["", "a", "m", "z"]);
    let mut by_offset: Vec<(i64, &str)> = series
        .iter()
        .map(|s| {
            (
                s.chunks[0].offset_of_chunk_header,
                s.measurement_id.as_str(),
            )
        })
        .collect();
    by_offset.sort();
    let in_file: Vec<&str> = by_offset.iter().map(|(_, n)| *n).collect();
    assert_eq!(in_file, ["", "z", "a", "m"]);
}

#[test]
fn table_schemas_in_java_hash_map_order_without_time_columns() {
    // Java keeps table schemas in a HashMap (16 buckets; bucket = (h ^ h >>> 16) & 15 of
    // String.hashCode): "tab1" 0x36333c → 10, "weather" 0x48ec37f4 → 8, "t1" 0xe3d → 13,
    // "tab" 0x1bf95 → 4. Table roots are a TreeMap: by name.
    let names = ["tab1", "weather", "t1", "tab"];
    let file = |options: WriterOptions| {
        let mut w = TsFileWriter::new(Vec::new(), options).unwrap();
        for n in names {
            let mut columns = vec![TableColumn::new(
                "v",
                DataType::Int32,
                ColumnCategory::Field,
            )];
            if n == "weather" {
                columns.insert(
                    0,
                    TableColumn::new("ts", DataType::Timestamp, ColumnCategory::Time),
                );
            }
            w.register_table(TableSchema::new(n, columns)).unwrap();
            w.write_row(n, 1, &[Value::Int32(1)]).unwrap();
        }
        w.finish_into_inner().unwrap().0
    };
    let stored = |bytes: Vec<u8>| {
        let r = TsFileReader::open(bytes).unwrap();
        let footer = r.metadata().footer();
        let schemas: Vec<(String, usize)> = footer
            .schemas
            .iter()
            .map(|s| (s.name.clone(), s.columns.len()))
            .collect();
        let roots: Vec<String> = footer.table_roots.iter().map(|(n, _)| n.clone()).collect();
        (schemas, roots)
    };
    let roots = ["t1", "tab", "tab1", "weather"].map(String::from).to_vec();
    let java_bytes = file(java());
    let portable_bytes = file(WriterOptions::default());
    assert_eq!(read_rows(&java_bytes), read_rows(&portable_bytes));
    let expect = |list: &[(&str, usize)]| {
        list.iter()
            .map(|&(n, c)| (n.to_string(), c))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        stored(java_bytes),
        (
            expect(&[("tab", 1), ("weather", 1), ("tab1", 1), ("t1", 1)]),
            roots.clone()
        )
    );
    assert_eq!(
        stored(portable_bytes),
        (
            expect(&[("t1", 1), ("tab", 1), ("tab1", 1), ("weather", 2)]),
            roots
        )
    );
}

/// A one-page INT64 PLAIN column compressed with `comp`: the stored page and its payload.
fn stored_page(options: WriterOptions, comp: Compression) -> (Vec<u8>, Vec<u8>) {
    let columns = vec![field("v", DataType::Int64, Encoding::Plain, comp)];
    let rows: Vec<(i64, Vec<Value>)> = (0..2000i64)
        .map(|i| (i, vec![Value::Int64(i * i % 977)]))
        .collect();
    let bytes = table_file(options, columns, &rows);
    let r = TsFileReader::open(bytes.clone()).unwrap();
    let id = DeviceId::from_table("t", Vec::<Option<String>>::new()).unwrap();
    let v = r
        .metadata()
        .find_timeseries(&bytes[..], &id, "v")
        .unwrap()
        .unwrap();
    let (chunk, page, data) = first_page(&bytes, v.chunks[0].offset_of_chunk_header);
    assert_eq!(
        (chunk.compression, chunk.marker.is_multi_page()),
        (comp, false)
    );
    let mut codecs = colfile::tsfile::encoding::compression::PageCodecs::new();
    let mut payload = Vec::new();
    codecs
        .decompress(comp, &data, &mut payload, page.uncompressed_size as usize)
        .unwrap();
    (data, payload)
}

#[cfg(feature = "zstd")]
#[test]
fn zstd_pages_at_level_22() {
    // §2 row 13: Java compresses with Zstd.maxCompressionLevel() = 22, C++ with 3.
    assert_eq!(java().zstd_level, 22);
    assert_eq!(WriterOptions::default().zstd_level, 3);
    let at = |level: i32, payload: &[u8]| {
        let mut codecs = colfile::tsfile::encoding::compression::PageCodecs::new();
        codecs.set_level(Compression::Zstd, Some(level)).unwrap();
        let mut out = Vec::new();
        codecs
            .compress(Compression::Zstd, payload, &mut out)
            .unwrap();
        out
    };
    let (java_page, payload) = stored_page(java(), Compression::Zstd);
    assert_ne!(
        at(22, &payload),
        at(3, &payload),
        "the test page must tell the levels apart"
    );
    assert_eq!(java_page, at(22, &payload));
    let (portable_page, _) = stored_page(WriterOptions::default(), Compression::Zstd);
    assert_eq!(portable_page, at(3, &payload));
}

#[cfg(feature = "deflate")]
#[test]
fn gzip_pages_carry_the_jdk_8_header() {
    // §2 row 14: what is written is GZIPOutputStream's header of JDK 8–15 (OS byte 0; JDK 16+
    // write 255, zlib 3): no flags, no mtime, no extra flags.
    let (page, _) = stored_page(java(), Compression::Gzip);
    assert_eq!(&page[..10], &h("1f 8b 08 00 00000000 00 00")[..]);
}

#[test]
fn boolean_defaults_to_rle_under_java_only() {
    // §2 rows 8 and 9.
    let defaults = |p: Profile| {
        [
            DataType::Boolean,
            DataType::Int32,
            DataType::Date,
            DataType::Int64,
            DataType::Timestamp,
            DataType::Float,
            DataType::Double,
            DataType::Text,
            DataType::String,
            DataType::Blob,
        ]
        .map(|t| p.default_encoding(t))
    };
    let (r, t, g, p) = (
        Encoding::Rle,
        Encoding::Ts2Diff,
        Encoding::Gorilla,
        Encoding::Plain,
    );
    assert_eq!(defaults(Profile::Java), [r, t, t, t, t, g, g, p, p, p]);
    assert_eq!(defaults(Profile::Portable), [p, t, t, t, t, g, g, p, p, p]);
}
