//! What the fuzz targets found, as readable tests (the minimized inputs themselves are under
//! `fuzz/corpus/<target>/` and replayed by `tests/fuzz_corpus.rs`).

use colfile::tsfile::format::schema::MeasurementSchema;
use colfile::tsfile::format::{Compression, DataType, Encoding};
use colfile::tsfile::{verify, VerifyOptions};
use colfile::tsfile::{Query, TsFileReader, TsFileWriter, ValueRef, WriterOptions};

/// tsfile_roundtrip: with a PLAIN time encoding, non-aligned tree devices got PLAIN time
/// streams, which no reader can read (nothing records that encoding; readers assume
/// TS_2DIFF). Aligned time chunks keep the encoding asked for.
#[test]
fn non_aligned_time_streams_are_ts2diff_whatever_the_time_encoding() {
    let options = WriterOptions::default().with_time_codec(Encoding::Plain, Compression::Lz4);
    let mut w = TsFileWriter::new(Vec::new(), options).unwrap();
    let m = || {
        vec![MeasurementSchema::new(
            "s0",
            DataType::Text,
            Encoding::Plain,
            Compression::Lz4,
        )]
    };
    w.register_device("root.sg.d0", false, m()).unwrap();
    w.register_device("root.sg.d1", true, m()).unwrap();
    for (i, path) in ["root.sg.d0", "root.sg.d1"].into_iter().enumerate() {
        let t = 7_460_869_560_212_652_032 + i as i64;
        w.write_record(path, t, &[("s0", ValueRef::Binary(b""))])
            .unwrap();
    }
    let bytes = w.finish_into_inner().unwrap().0;
    let report = verify(&bytes, &VerifyOptions::default()).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    let r = TsFileReader::open(bytes).unwrap();
    let mut rows = Vec::new();
    for b in r.query(&Query::all()).unwrap() {
        let b = b.unwrap();
        rows.extend(b.times.iter().map(|t| (b.device.to_string(), *t)));
    }
    assert_eq!(
        rows,
        [
            ("root.sg.d0".to_string(), 7_460_869_560_212_652_032),
            ("root.sg.d1".to_string(), 7_460_869_560_212_652_033)
        ]
    );
}

/// tsfile_filter: Display wrote strings with Rust's escapes (`"\0"`, `\"`), which the
/// `--where` grammar does not have, columns bare even when they need quotes, and one
/// parenthesis per `and`/`or`, so long chains printed deeper than the parser takes.
#[test]
fn filters_print_as_text_that_parses_back_to_them() {
    use colfile::tsfile::Filter;
    let chain = (0..100).map(|i| format!("c{i} = {i}")).collect::<Vec<_>>();
    let cases = [
        "\0\0\0\0<\0\0\0\0\0\0\0\0tim".to_string(),
        r#"s = 'it''s "quoted" \n \0'"#.to_string(),
        "'two words' = 1 and 'not' is null and '' = ''".to_string(),
        "x = -0.0 or y > 1e300 or z < 2.5 or w = nan".to_string(),
        "not (a = 1 and (b = 2 or c = 3)) and d between 1 and 2".to_string(),
        chain.join(" and "),
        chain.join(" or "),
    ];
    for text in &cases {
        let f: Filter = text.parse().unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let printed = f.to_string();
        let again: Filter = printed
            .parse()
            .unwrap_or_else(|e| panic!("{printed:?}: {e}"));
        assert_eq!(again.to_string(), printed, "{text:?}");
        if !text.contains("nan") {
            assert_eq!(again, f, "{text:?} printed as {printed:?}");
        }
    }
    let f: Filter = "a = 1 and b = 2 or not c = 'x'".parse().unwrap();
    assert_eq!(f.to_string(), "a = 1 and b = 2 or not c = 'x'");
}

/// `serde_cells` (text serde): Hive reads `yyyy-mm-dd hh:mm:ss` leniently, so an hour count
/// of 377 777 777 carries into the year 45121; Hive writes that year as five digits, and a
/// five-digit year does not read back (NULL), as in `java.sql.Timestamp.valueOf`. Both
/// halves are Hive's behaviour, so the value reads, writes, and reads back as NULL.
#[test]
fn lenient_text_timestamps_past_year_9999_read_back_as_null() {
    use colfile::rcfile::{HiveType, Serde, Value};
    let ty = HiveType::Timestamp;
    let s = Serde::text();
    let v = s.decode(&ty, b"2024-11-02 0377777777:04:05.12").unwrap();
    let Value::Timestamp(t) = v else {
        panic!("{v:?}")
    };
    assert_eq!(t.to_string(), "45121-07-10 17:04:05.12");
    let mut out = Vec::new();
    s.encode(&ty, &v, &mut out).unwrap();
    assert_eq!(out, b"45121-07-10 17:04:05.12");
    assert_eq!(s.decode(&ty, &out).unwrap(), Value::Null);
}
