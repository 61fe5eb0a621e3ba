//! What the IoTDB deletion files (`fixtures/bad/mods/`) fail with. `Mark` is the offset
//! the generator recorded: the start of the bad line or of the bad field.

use super::expect::{expect, Expect, Kind::*, Pos::*};

pub fn mods_table() -> Vec<(&'static str, Expect)> {
    // Every error's location names the file; a text error's message names its line, a
    // binary one's its entry.
    let text = |name: &'static str, msg: &'static str| {
        let m = format!("line 2: {msg}").leak();
        (name, expect(Corrupt, m).offset(Mark).file(name))
    };
    let entry = |name: &'static str, n: u32, at: u32, msg: &'static str| {
        let m = format!("entry {n} (at byte {at}): {msg}").leak();
        (name, expect(Corrupt, m).offset(Mark).file(name))
    };
    vec![
        text(
            "text_time_not_a_number.mods",
            "end time \"5O\" is not an integer",
        ),
        text(
            "text_unknown_type.mods",
            "unknown modification type \"INSERTION\"",
        ),
        text(
            "text_too_few_fields.mods",
            "2 fields, a deletion has at least 4",
        ),
        text(
            "text_bad_path_pattern.mods",
            "\"root..sg.`a,b`.**\" is not a valid path pattern",
        ),
        entry(
            "binary_unknown_type.mods2",
            2,
            35,
            "unknown modification type 7",
        ),
        (
            "binary_table_name_huge.mods2",
            expect(
                Limit,
                "table name is 1073741824, above the limit of 1048576",
            )
            .offset(Mark)
            .file("binary_table_name_huge.mods2"),
        ),
        entry("binary_null_table_name.mods2", 1, 0, "table name is null"),
        entry(
            "binary_unknown_predicate_kind.mods2",
            1,
            0,
            "unknown device predicate kind 9",
        ),
        entry(
            "binary_negative_measurement_count.mods2",
            1,
            0,
            "negative measurement count -1",
        ),
    ]
}
