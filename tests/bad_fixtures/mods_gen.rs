//! The IoTDB deletion-file damages of `fixtures/bad/mods/`, made from the shipped
//! `fixtures/mods/deletions.tsfile.mods` (text, two lines) and `.mods2` (binary, one table
//! deletion). Offsets are found in the source: a text line's start, or a field of the binary
//! entry found by walking its layout
//! (`u8 type, i64 start, i64 end, VarStr table, predicate, VarInt n, VarStr column[n]`).
//! Nothing here damages the last line or entry by cutting it: a torn tail is ignored, not an
//! error.

use super::gen::{Case, Made};
use colfile::tsfile::format::varint::put_varint;

const TEXT: &str = "deletions.tsfile.mods";
const BINARY: &str = "deletions.tsfile.mods2";

pub fn cases() -> Vec<Case> {
    let c = |file, source, make| Case { file, source, make };
    vec![
        c("text_time_not_a_number.mods", TEXT, text_time_not_a_number),
        c("text_unknown_type.mods", TEXT, text_unknown_type),
        c("text_too_few_fields.mods", TEXT, text_too_few_fields),
        c("text_bad_path_pattern.mods", TEXT, text_bad_path_pattern),
        c("binary_unknown_type.mods2", BINARY, binary_unknown_type),
        c(
            "binary_table_name_huge.mods2",
            BINARY,
            binary_table_name_huge,
        ),
        c(
            "binary_null_table_name.mods2",
            BINARY,
            binary_null_table_name,
        ),
        c(
            "binary_unknown_predicate_kind.mods2",
            BINARY,
            binary_unknown_predicate,
        ),
        c(
            "binary_negative_measurement_count.mods2",
            BINARY,
            binary_negative_count,
        ),
    ]
}

/// The source's second line replaced by `line` (terminated); the mark is its start.
fn second_line(b: &[u8], line: &str) -> Made {
    let first = b.iter().position(|&c| c == b'\n').unwrap() + 1;
    assert!(b.ends_with(b"\n") && b[first..b.len() - 1].starts_with(b"DELETION,"));
    let mut out = b[..first].to_vec();
    out.extend_from_slice(line.as_bytes());
    out.push(b'\n');
    Made::at(out, first as u64)
}

/// The second line's text, with `from` replaced by `to` (which must occur once).
fn edit_second_line(b: &[u8], from: &str, to: &str) -> Made {
    let text = std::str::from_utf8(b).unwrap();
    let line = text.lines().nth(1).unwrap();
    assert_eq!(line.matches(from).count(), 1, "{from:?} in {line:?}");
    second_line(b, &line.replace(from, to))
}

/// The end time of the second line is `5O` (a letter O).
fn text_time_not_a_number(b: Vec<u8>) -> Made {
    edit_second_line(&b, ",0,50", ",0,5O")
}

/// The second line's type is `INSERTION`.
fn text_unknown_type(b: Vec<u8>) -> Made {
    edit_second_line(&b, "DELETION,", "INSERTION,")
}

/// The second line keeps only its type and path.
fn text_too_few_fields(b: Vec<u8>) -> Made {
    second_line(&b, "DELETION,root.sg.d1.s1")
}

/// The second line's path has an empty node.
fn text_bad_path_pattern(b: Vec<u8>) -> Made {
    edit_second_line(&b, "root.sg.", "root..sg.")
}

/// The offsets of the source entry's fields: (table name, device predicate, measurement
/// count), checked against the bytes the README describes.
fn fields(b: &[u8]) -> (usize, usize, usize) {
    assert_eq!(b[0], 0, "a table deletion");
    let table = 17;
    assert_eq!(&b[table..table + 2], b"\x02t");
    let pred = table + 2;
    // And of 2: Segment("a", 1), DeviceId ["t", "a"].
    let and = b"\x03\x04\x02\x02a\x02\x01\x02\x02t\x02a";
    assert_eq!(&b[pred..pred + and.len()], and);
    let count = pred + and.len();
    assert_eq!(&b[count..], b"\x02\x04s1");
    (table, pred, count)
}

/// The entry twice, the second with type 7.
fn binary_unknown_type(b: Vec<u8>) -> Made {
    fields(&b);
    let mut out = b.clone();
    out.extend_from_slice(&b);
    out[b.len()] = 7;
    Made::at(out, b.len() as u64)
}

/// The table name's length set to 2^30 (above `Limits::max_string_len`, 1 MiB).
fn binary_table_name_huge(b: Vec<u8>) -> Made {
    let (table, ..) = fields(&b);
    let mut out = b[..table].to_vec();
    put_varint(&mut out, 1 << 30);
    out.extend_from_slice(&b[table + 1..]);
    Made::at(out, table as u64)
}

/// The table name's length set to -1 (null).
fn binary_null_table_name(mut b: Vec<u8>) -> Made {
    let (table, ..) = fields(&b);
    b[table] = 0x01;
    Made::at(b, table as u64)
}

/// The first predicate inside the And (the Segment one) has kind 9.
fn binary_unknown_predicate(mut b: Vec<u8>) -> Made {
    let (_, pred, _) = fields(&b);
    let inner = pred + 2;
    b[inner] = 9;
    Made::at(b, inner as u64)
}

/// The measurement count set to -1.
fn binary_negative_count(mut b: Vec<u8>) -> Made {
    let (.., count) = fields(&b);
    b[count] = 0x01;
    Made::at(b, count as u64)
}
