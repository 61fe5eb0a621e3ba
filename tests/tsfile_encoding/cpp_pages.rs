//! Pages of the C++-written `enc_*` fixture files, decoded and compared with their
//! `.expected.jsonl` values.

use super::*;

/// (file, column, type, encoding, page payload offset, payload length): every value page of
/// the first chunk group (device d1) of the UNCOMPRESSED `enc_*` fixtures, from
/// `tsraw.py FILE --json --pages`.
#[rustfmt::skip]
const PAGES: &[(&str, &str, DataType, Encoding, usize, usize)] = &[
    ("enc_plain", "v_blob", DataType::Blob, Encoding::Plain, 337, 1814),
    ("enc_plain", "v_blob", DataType::Blob, Encoding::Plain, 2173, 1691),
    ("enc_plain", "v_blob", DataType::Blob, Encoding::Plain, 3886, 1261),
    ("enc_plain", "v_boolean", DataType::Boolean, Encoding::Plain, 5195, 277),
    ("enc_plain", "v_boolean", DataType::Boolean, Encoding::Plain, 5504, 280),
    ("enc_plain", "v_boolean", DataType::Boolean, Encoding::Plain, 5816, 211),
    ("enc_plain", "v_date", DataType::Date, Encoding::Plain, 6086, 1012),
    ("enc_plain", "v_date", DataType::Date, Encoding::Plain, 7144, 1004),
    ("enc_plain", "v_date", DataType::Date, Encoding::Plain, 8194, 744),
    ("enc_plain", "v_double", DataType::Double, Encoding::Plain, 9015, 2020),
    ("enc_plain", "v_double", DataType::Double, Encoding::Plain, 11097, 1988),
    ("enc_plain", "v_double", DataType::Double, Encoding::Plain, 13147, 1468),
    ("enc_plain", "v_float", DataType::Float, Encoding::Plain, 14675, 1012),
    ("enc_plain", "v_float", DataType::Float, Encoding::Plain, 15733, 1004),
    ("enc_plain", "v_float", DataType::Float, Encoding::Plain, 16783, 740),
    ("enc_plain", "v_int32", DataType::Int32, Encoding::Plain, 17583, 591),
    ("enc_plain", "v_int32", DataType::Int32, Encoding::Plain, 18220, 525),
    ("enc_plain", "v_int32", DataType::Int32, Encoding::Plain, 18791, 299),
    ("enc_plain", "v_int64", DataType::Int64, Encoding::Plain, 19166, 2012),
    ("enc_plain", "v_int64", DataType::Int64, Encoding::Plain, 21240, 1948),
    ("enc_plain", "v_int64", DataType::Int64, Encoding::Plain, 23250, 1460),
    ("enc_plain", "v_string", DataType::String, Encoding::Plain, 24791, 4573),
    ("enc_plain", "v_string", DataType::String, Encoding::Plain, 29430, 6468),
    ("enc_plain", "v_string", DataType::String, Encoding::Plain, 36160, 3387),
    ("enc_plain", "v_text", DataType::Text, Encoding::Plain, 39596, 5185),
    ("enc_plain", "v_text", DataType::Text, Encoding::Plain, 44835, 4508),
    ("enc_plain", "v_text", DataType::Text, Encoding::Plain, 49587, 3938),
    ("enc_plain", "v_timestamp", DataType::Timestamp, Encoding::Plain, 53605, 1948),
    ("enc_plain", "v_timestamp", DataType::Timestamp, Encoding::Plain, 55615, 2036),
    ("enc_plain", "v_timestamp", DataType::Timestamp, Encoding::Plain, 57713, 1476),
    ("enc_ts_2diff", "v_date", DataType::Date, Encoding::Ts2Diff, 364, 922),
    ("enc_ts_2diff", "v_date", DataType::Date, Encoding::Ts2Diff, 1332, 889),
    ("enc_ts_2diff", "v_date", DataType::Date, Encoding::Ts2Diff, 2267, 667),
    ("enc_ts_2diff", "v_double", DataType::Double, Encoding::Ts2Diff, 3011, 743),
    ("enc_ts_2diff", "v_double", DataType::Double, Encoding::Ts2Diff, 3816, 754),
    ("enc_ts_2diff", "v_double", DataType::Double, Encoding::Ts2Diff, 4632, 559),
    ("enc_ts_2diff", "v_float", DataType::Float, Encoding::Ts2Diff, 5251, 735),
    ("enc_ts_2diff", "v_float", DataType::Float, Encoding::Ts2Diff, 6032, 740),
    ("enc_ts_2diff", "v_float", DataType::Float, Encoding::Ts2Diff, 6818, 532),
    ("enc_ts_2diff", "v_int32", DataType::Int32, Encoding::Ts2Diff, 7410, 1011),
    ("enc_ts_2diff", "v_int32", DataType::Int32, Encoding::Ts2Diff, 8467, 690),
    ("enc_ts_2diff", "v_int32", DataType::Int32, Encoding::Ts2Diff, 9203, 306),
    ("enc_ts_2diff", "v_int64", DataType::Int64, Encoding::Ts2Diff, 9585, 2006),
    ("enc_ts_2diff", "v_int64", DataType::Int64, Encoding::Ts2Diff, 11653, 1150),
    ("enc_ts_2diff", "v_int64", DataType::Int64, Encoding::Ts2Diff, 12865, 387),
    ("enc_ts_2diff", "v_timestamp", DataType::Timestamp, Encoding::Ts2Diff, 13332, 1272),
    ("enc_ts_2diff", "v_timestamp", DataType::Timestamp, Encoding::Ts2Diff, 14666, 430),
    ("enc_ts_2diff", "v_timestamp", DataType::Timestamp, Encoding::Ts2Diff, 15158, 291),
    ("enc_rle", "v_date", DataType::Date, Encoding::Rle, 359, 878),
    ("enc_rle", "v_date", DataType::Date, Encoding::Rle, 1283, 878),
    ("enc_rle", "v_date", DataType::Date, Encoding::Rle, 2207, 654),
    ("enc_rle", "v_int32", DataType::Int32, Encoding::Rle, 2921, 1033),
    ("enc_rle", "v_int32", DataType::Int32, Encoding::Rle, 4000, 1033),
    ("enc_rle", "v_int32", DataType::Int32, Encoding::Rle, 5079, 769),
    ("enc_rle", "v_int64", DataType::Int64, Encoding::Rle, 5924, 2025),
    ("enc_rle", "v_int64", DataType::Int64, Encoding::Rle, 8011, 1961),
    ("enc_rle", "v_int64", DataType::Int64, Encoding::Rle, 10034, 1441),
    ("enc_rle", "v_timestamp", DataType::Timestamp, Encoding::Rle, 11555, 2025),
    ("enc_rle", "v_timestamp", DataType::Timestamp, Encoding::Rle, 13642, 1271),
    ("enc_rle", "v_timestamp", DataType::Timestamp, Encoding::Rle, 14975, 935),
    ("enc_gorilla", "v_date", DataType::Date, Encoding::Gorilla, 363, 681),
    ("enc_gorilla", "v_date", DataType::Date, Encoding::Gorilla, 1090, 632),
    ("enc_gorilla", "v_date", DataType::Date, Encoding::Gorilla, 1768, 410),
    ("enc_gorilla", "v_double", DataType::Double, Encoding::Gorilla, 2255, 1535),
    ("enc_gorilla", "v_double", DataType::Double, Encoding::Gorilla, 3852, 1537),
    ("enc_gorilla", "v_double", DataType::Double, Encoding::Gorilla, 5451, 996),
    ("enc_gorilla", "v_float", DataType::Float, Encoding::Gorilla, 6507, 801),
    ("enc_gorilla", "v_float", DataType::Float, Encoding::Gorilla, 7354, 792),
    ("enc_gorilla", "v_float", DataType::Float, Encoding::Gorilla, 8192, 530),
    ("enc_gorilla", "v_int32", DataType::Int32, Encoding::Gorilla, 8782, 901),
    ("enc_gorilla", "v_int32", DataType::Int32, Encoding::Gorilla, 9729, 853),
    ("enc_gorilla", "v_int32", DataType::Int32, Encoding::Gorilla, 10628, 576),
    ("enc_gorilla", "v_int64", DataType::Int64, Encoding::Gorilla, 11280, 1743),
    ("enc_gorilla", "v_int64", DataType::Int64, Encoding::Gorilla, 13085, 1066),
    ("enc_gorilla", "v_int64", DataType::Int64, Encoding::Gorilla, 14213, 1085),
    ("enc_gorilla", "v_timestamp", DataType::Timestamp, Encoding::Gorilla, 15378, 1905),
    ("enc_gorilla", "v_timestamp", DataType::Timestamp, Encoding::Gorilla, 17345, 649),
    ("enc_gorilla", "v_timestamp", DataType::Timestamp, Encoding::Gorilla, 18056, 477),
    ("enc_dictionary", "v_string", DataType::String, Encoding::Dictionary, 388, 1156),
    ("enc_dictionary", "v_string", DataType::String, Encoding::Dictionary, 1610, 1149),
    ("enc_dictionary", "v_string", DataType::String, Encoding::Dictionary, 2839, 882),
    ("enc_dictionary", "v_text", DataType::Text, Encoding::Dictionary, 3966, 1128),
    ("enc_dictionary", "v_text", DataType::Text, Encoding::Dictionary, 5150, 1114),
    ("enc_dictionary", "v_text", DataType::Text, Encoding::Dictionary, 6312, 868),
];

fn json_matches(t: DataType, got: &Values, i: usize, want: &serde_json::Value) -> bool {
    let same = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || a == b;
    match got {
        Values::Boolean(v) => want.as_bool() == Some(v[i]),
        Values::Int32(v) if t == DataType::Date => {
            let d = want.as_str().unwrap().replace('-', "");
            d.parse::<i32>().unwrap() == v[i]
        }
        Values::Int32(v) => want.as_i64() == Some(v[i] as i64),
        Values::Int64(v) => want.as_i64() == Some(v[i]),
        Values::Float(v) => same(v[i] as f64, json_f64(want)),
        Values::Double(v) => same(v[i], json_f64(want)),
        Values::Binary(v) => {
            let s = want.as_str().unwrap();
            let b = v.get(i).unwrap();
            if t == DataType::Blob {
                let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
                h == s
            } else {
                b == s.as_bytes()
            }
        }
    }
}

fn show(v: &Values, i: usize) -> String {
    match v {
        Values::Boolean(v) => format!("{}", v[i]),
        Values::Int32(v) => format!("{}", v[i]),
        Values::Int64(v) => format!("{}", v[i]),
        Values::Float(v) => format!("{:?}", v[i]),
        Values::Double(v) => format!("{:?}", v[i]),
        Values::Binary(v) => format!("{:?}", v.get(i)),
    }
}

#[test]
fn cpp_fixture_pages_decode_to_expected_values() {
    let mut files = std::collections::HashMap::new();
    let mut next_row: std::collections::HashMap<(&str, &str), usize> = Default::default();
    let mut reencoded_same = 0usize;
    for &(file, column, t, e, off, len) in PAGES {
        let data = files
            .entry(file)
            .or_insert_with(|| (fixture(file), d1_rows(file)));
        let (bytes, rows) = (&data.0, &data.1);
        let page = page(bytes, off, len);
        let (positions, present, count, stream) =
            (page.positions, &page.present, page.count, page.stream);
        let mut got = Values::for_type(t).unwrap();
        decode_exact(e, t, stream, count, &mut got)
            .unwrap_or_else(|err| panic!("{file} {column} page @{off}: {err}"));
        let start = next_row.entry((file, column)).or_insert(0);
        let mut k = 0;
        for (p, &is) in present.iter().enumerate() {
            let want = &rows[*start + p]["fields"][column];
            if !is {
                assert!(
                    want.is_null(),
                    "{file} {column} row {}: null in bitmap, {want} expected",
                    *start + p
                );
                continue;
            }
            assert!(
                json_matches(t, &got, k, want),
                "{file} {column} row {}: got {}, want {want}",
                *start + p,
                show(&got, k)
            );
            k += 1;
        }
        *start += positions;
        // Re-encoding reproduces the C++ bytes wherever C++ and Java agree: everything but
        // RLE (the C++ encoder only bit-packs, never writes runs) and GORILLA pages holding
        // sentinel values (C++ stores them as data; our encoder refuses integer sentinels
        // and stores the canonical NaN as another NaN).
        let mut o = EncodeOptions::default();
        o.max_point_number = 2;
        let mut again = Vec::new();
        match encode(e, t, &got, &o, &mut again) {
            Err(err) => {
                assert_eq!(e, Encoding::Gorilla, "{file} {column}: {err}");
                assert!(matches!(err.kind(), ErrorKind::InvalidArgument(_)));
            }
            Ok(()) if e == Encoding::Rle => {}
            // GORILLA stores the canonical NaN (the sentinel) as another NaN.
            Ok(()) if e == Encoding::Gorilla && has_nan(&got) => {}
            Ok(()) => {
                assert!(
                    again == stream,
                    "{file} {column} {e} page @{off} re-encodes differently"
                );
                reencoded_same += 1;
            }
        }
    }
    assert!(reencoded_same >= 60, "{reencoded_same}");
    eprintln!(
        "{reencoded_same} of {} fixture pages re-encode byte-identically",
        PAGES.len()
    );
}

/// Walks an RLE stream's run headers; true when every run is bit-packed.
fn only_bit_packed(stream: &[u8]) -> bool {
    let mut c = colfile::cursor::Cursor::new(stream, 0);
    let body_len = c.read_uvarint().unwrap() as usize;
    let body = c.take("body", body_len).unwrap();
    let width = body[0] as usize;
    let mut c = colfile::cursor::Cursor::new(&body[1..], 0);
    while !c.is_empty() {
        let h = c.read_uvarint().unwrap();
        if h & 1 == 0 {
            return false;
        }
        c.read_u8().unwrap();
        c.take("groups", (h >> 1) as usize * width).unwrap();
    }
    true
}

proptest! {
    /// Without run-length runs (the C++ form) RLE streams hold bit-packed runs only and still
    /// decode to the same values; with them (Java) long repeats become runs.
    #[test]
    fn rle_without_runs_is_bit_packed_only(
        runs in proptest::collection::vec((any::<i32>(), 1usize..40), 1..20),
    ) {
        let values: Vec<i32> = runs.iter().flat_map(|&(v, n)| std::iter::repeat_n(v, n)).collect();
        let v = Values::Int32(values.clone());
        for java in [false, true] {
            let mut out = Vec::new();
            encode(Encoding::Rle, DataType::Int32, &v, &EncodeOptions::default().with_rle_runs(java), &mut out).unwrap();
            let mut back = Values::Int32(Vec::new());
            decode(Encoding::Rle, DataType::Int32, &out, values.len(), &mut back).unwrap();
            prop_assert_eq!(&back, &v);
            if !java {
                prop_assert!(only_bit_packed(&out));
            } else if runs.iter().any(|&(_, n)| n >= 24) {
                prop_assert!(!only_bit_packed(&out));
            }
        }
    }
}

proptest! {
    /// ZIGZAG round trips every INT32/INT64 value and reads several packages back to back;
    /// a package whose count does not match its bytes is an error.
    #[test]
    fn zigzag_round_trips(a in proptest::collection::vec(any::<i32>(), 1..300), b in proptest::collection::vec(any::<i64>(), 1..300)) {
        for (t, v) in [(DataType::Int32, Values::Int32(a.clone())), (DataType::Int64, Values::Int64(b.clone()))] {
            let mut out = Vec::new();
            encode(Encoding::Zigzag, t, &v, &EncodeOptions::default(), &mut out).unwrap();
            let once = out.clone();
            out.extend_from_slice(&once);
            let mut back = Values::for_type(t).unwrap();
            decode(Encoding::Zigzag, t, &out, 2 * v.len(), &mut back).unwrap();
            prop_assert_eq!(back.len(), 2 * v.len());
            let mut bad = once.clone();
            bad[1] = bad[1].wrapping_add(1) & 0x7f;
            let mut sink = Values::for_type(t).unwrap();
            if bad != once {
                prop_assert!(decode(Encoding::Zigzag, t, &bad, 1 << 20, &mut sink).is_err());
            }
        }
    }
}

#[test]
fn zigzag_bytes() {
    let mut out = Vec::new();
    encode(
        Encoding::Zigzag,
        DataType::Int32,
        &Values::Int32(vec![0, -1, 1, i32::MIN]),
        &EncodeOptions::default(),
        &mut out,
    )
    .unwrap();
    // byte_len 8, count 4, then 00 01 02 ff ff ff ff 0f
    assert_eq!(out, [8, 4, 0x00, 0x01, 0x02, 0xff, 0xff, 0xff, 0xff, 0x0f]);
}

proptest! {
    /// The typed time-stream paths give the same bytes and values as the generic ones.
    #[test]
    fn typed_ts2diff_paths_match_the_generic_ones(v in proptest::collection::vec(any::<i64>(), 0..400)) {
        let mut typed = Vec::new();
        colfile::tsfile::encoding::encode_ts2diff_i64(&v, &mut typed);
        let mut generic = Vec::new();
        encode(Encoding::Ts2Diff, DataType::Int64, &Values::Int64(v.clone()), &EncodeOptions::default(), &mut generic).unwrap();
        prop_assert_eq!(&typed, &generic);
        let mut back = Vec::new();
        colfile::tsfile::encoding::decode_ts2diff_i64(&typed, v.len(), &mut back).unwrap();
        prop_assert_eq!(back, v);
    }
}
