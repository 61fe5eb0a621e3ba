//! Property tests of the shared primitives: Hadoop VLong and Text round-trip, sizes agree
//! with the bytes written, and arbitrary bytes never make a decoder panic.

use colfile::cursor::Cursor;
use colfile::rcfile::hadoop::{decode_vlong, vlong_size, write_text, write_vlong};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn vlong_round_trips(v in any::<i64>()) {
        let mut out = Vec::new();
        write_vlong(&mut out, v);
        prop_assert_eq!(out.len(), vlong_size(v));
        prop_assert_eq!(decode_vlong(&out), Some((v, out.len())));
        // Every strict prefix is "needs more bytes", never a wrong value.
        for n in 0..out.len() {
            prop_assert_eq!(decode_vlong(&out[..n]), None);
        }
        let mut c = Cursor::new(&out, 10);
        prop_assert_eq!(c.read_vlong().unwrap(), v);
        prop_assert!(c.is_empty());
    }

    #[test]
    fn vint_range_is_enforced(v in any::<i64>()) {
        let mut out = Vec::new();
        write_vlong(&mut out, v);
        let r = Cursor::new(&out, 0).read_vint();
        prop_assert_eq!(r.is_ok(), i32::try_from(v).is_ok());
    }

    #[test]
    fn text_round_trips(s in ".{0,300}") {
        let mut out = Vec::new();
        write_text(&mut out, s.as_bytes());
        let mut c = Cursor::new(&out, 0);
        prop_assert_eq!(c.read_text("t", 1 << 20).unwrap(), s.as_str());
        prop_assert!(c.is_empty());
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..32)) {
        let mut c = Cursor::new(&b, 0);
        while !c.is_empty() {
            if c.read_vlong().is_err() {
                break;
            }
        }
        let _ = Cursor::new(&b, 0).read_text("t", 16);
        let _ = Cursor::new(&b, 0).read_len("n", 8);
    }
}

#[test]
fn text_rejects_bad_utf8_and_long_strings() {
    let mut out = Vec::new();
    write_text(&mut out, &[0xff, 0xfe]);
    let e = Cursor::new(&out, 100)
        .read_text("class name", 10)
        .unwrap_err();
    assert!(e.to_string().contains("not UTF-8"), "{e}");
    assert_eq!(e.location().offset, Some(101));
    let mut out = Vec::new();
    write_text(&mut out, b"abcdefghijk");
    let e = Cursor::new(&out, 0)
        .read_text("class name", 10)
        .unwrap_err();
    assert!(
        matches!(e.kind(), colfile::ErrorKind::LimitExceeded { .. }),
        "{e}"
    );
}
