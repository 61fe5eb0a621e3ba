//! CSV through the `csv` crate: `--delimiter`, `--quote`, `--no-header` and `--null` on
//! `cat`, `head` and `convert` (input and output); CSV shapes that cannot be written fail
//! before any output; RCFiles read without `--schema` show their raw cells as escaped text.

use colfile_testkit::{fixtures_dir, repo_root};

#[path = "support/run.rs"]
mod run;
use run::{colfile, stdout, temp_dir};

fn rc(name: &str) -> String {
    fixtures_dir()
        .join(format!("{name}.rc"))
        .to_string_lossy()
        .into_owned()
}

fn ts(name: &str) -> String {
    repo_root()
        .join(format!("fixtures/tsfile/{name}.tsfile"))
        .to_string_lossy()
        .into_owned()
}

const SEMI: &str = "id;name;price\n1;\"a;b\";1.5\n2;\"say \"\"hi\"\"\";NULL\n3;;2\n";
const SEMI_SCHEMA: &str = "id int, name string, price double";

#[test]
fn semicolon_separated_file_converts() {
    let dir = temp_dir("csv-semi");
    let input = dir.join("in.csv");
    std::fs::write(&input, SEMI).unwrap();
    let inp = input.to_str().unwrap();
    let opts = [
        "--delimiter",
        ";",
        "--null",
        "NULL",
        "--schema",
        SEMI_SCHEMA,
    ];
    // To JSON lines: the quoted `;` and the doubled quote read back; NULL is null, an
    // empty cell an empty string.
    let jsonl = dir.join("out.jsonl");
    let mut args = vec!["convert", inp, jsonl.to_str().unwrap()];
    args.extend(opts);
    stdout(&colfile(&args));
    assert_eq!(
        std::fs::read_to_string(&jsonl).unwrap(),
        "{\"id\":1,\"name\":\"a;b\",\"price\":1.5}\n\
         {\"id\":2,\"name\":\"say \\\"hi\\\"\",\"price\":null}\n\
         {\"id\":3,\"name\":\"\",\"price\":2.0}\n"
    );
    // To CSV with the same options: the same text, numbers as cat prints them.
    let mut args = vec!["convert", inp, "-", "--to", "csv"];
    args.extend(opts);
    assert_eq!(
        stdout(&colfile(&args)),
        "id;name;price\n1;\"a;b\";1.5\n2;\"say \"\"hi\"\"\";NULL\n3;;2.0\n"
    );
    // JSON lines to tab-separated CSV with ' quotes and \N for null.
    let args = [
        "convert",
        jsonl.to_str().unwrap(),
        "-",
        "--to",
        "csv",
        "--delimiter",
        "tab",
        "--quote",
        "'",
        "--null",
        "\\N",
    ];
    assert_eq!(
        stdout(&colfile(&args)),
        "id\tname\tprice\n1\ta;b\t1.5\n2\tsay \"hi\"\t\\N\n3\t\t2.0\n"
    );
    // --no-header: the columns come from --schema and the first line is data.
    let body = dir.join("body.csv");
    std::fs::write(&body, SEMI.split_once('\n').unwrap().1).unwrap();
    let mut args = vec!["convert", body.to_str().unwrap(), "-", "--to", "jsonl"];
    args.extend(opts);
    args.push("--no-header");
    assert_eq!(
        stdout(&colfile(&args)),
        std::fs::read_to_string(&jsonl).unwrap()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn cat_and_head_take_the_csv_options() {
    let schema = "s string, vc varchar(8), c char(3), bin binary, arrs array<string>, \
                  ms map<string,string>";
    let f = rc("strings_text");
    let base = [
        "--schema",
        schema,
        "--serde",
        "text",
        "--format",
        "csv",
        "--delimiter",
        "\\t",
        "--null",
        "\\N",
    ];
    let mut args = vec!["head", f.as_str(), "-n", "4"];
    args.extend(base);
    let text = stdout(&colfile(&args));
    assert_eq!(
        text,
        "s\tvc\tc\tbin\tarrs\tms\n\
         \t\t   \t\t[]\t\"[[\"\"\"\",\"\"\"\"]]\"\n\
         \\N\t\\N\t\\N \t5c4e\t\\N\t[]\n \t \t   \t20\t\"[\"\" \"\",\"\" \"\"]\"\t\"[[\"\" \"\",\"\" \"\"]]\"\n\
         \"tab\tnew\nline\rcr\"\t\"a\tb\"\t\"\n  \"\t0a0d09\t\"[\"\"\\t\"\",\"\"\\n\"\"]\"\t\"[[\"\"\\r\"\",\"\"\\n\"\"]]\"\n"
    );
    // cat --limit is head; --no-header drops the first line; --quote changes the quote.
    let mut args = vec!["cat", f.as_str(), "--limit", "4", "--no-header"];
    args.extend(base);
    assert_eq!(stdout(&colfile(&args)), text.split_once('\n').unwrap().1);
    let mut args = vec!["cat", f.as_str(), "--limit", "3", "--quote", "'"];
    args.extend(base);
    assert_eq!(
        stdout(&colfile(&args)).lines().nth(3).unwrap(),
        " \t \t   \t20\t[\" \",\" \"]\t[[\" \",\" \"]]"
    );
}

#[test]
fn bad_csv_options_are_usage_errors() {
    for (flag, value, want) in [
        (
            "--delimiter",
            "ab",
            "colfile: error: --delimiter wants one ASCII character (or tab, comma, semicolon, \
             pipe, space), got \"ab\"\n",
        ),
        (
            "--quote",
            ",",
            "colfile: error: --delimiter and --quote must be different characters\n",
        ),
    ] {
        let o = colfile(&["cat", &rc("strings_text"), flag, value]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&o.stderr), want);
    }
    // Checked once all are read: a quote that is the default delimiter is fine when the
    // delimiter changes after it.
    let o = colfile(&[
        "head",
        &rc("multi_group_text"),
        "-n",
        "1",
        "--serde",
        "text",
        "--format",
        "csv",
        "--quote",
        ",",
        "--delimiter",
        ";",
        "--no-header",
    ]);
    assert_eq!(stdout(&o), "0;same;0;row-0000\n");
}

#[test]
fn shapes_csv_cannot_hold_fail_before_any_output() {
    let cases = [
        (
            "tree_basic",
            "root.sg1.d1 has columns s_b,s_d,s_f,s_i32,s_i64,s_t but the CSV header has s \
             (from root.x)",
        ),
        (
            "multi_table",
            "power has columns region,meter,kwh,pulses,note but the CSV header has \
             plant,temp,on (from plant)",
        ),
    ];
    for (name, what) in cases {
        let f = ts(name);
        let o = colfile(&["cat", &f, "--format", "csv"]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        assert!(
            o.stdout.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!(
                "colfile: error: {f}: {what}: one CSV cannot hold both; pick one table or \
                 column set (--table, --columns), or use --format jsonl\n"
            )
        );
    }
    // One device's columns, or one table: fine.
    let one = stdout(&colfile(&[
        "head",
        &ts("tree_basic"),
        "--format",
        "csv",
        "--columns",
        "s",
        "-n",
        "2",
    ]));
    assert_eq!(one, "device,time,s\nroot.x,1,1\nroot.x,2,2\n");
}

#[test]
fn rcfile_without_schema_prints_escaped_raw_cells_and_warns_once() {
    let o = colfile(&["cat", &rc("nested_binary")]);
    let text = stdout(&o);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "colfile: warning: no --schema: printing raw cells as escaped text; pass --schema \
         with the table's Hive columns (e.g. --schema 'a int, b string' or --schema \
         @table.sql) to decode them\n"
    );
    let lines: Vec<&str> = text.lines().collect();
    // The union's double 0.5 is 3f e0 00..: 0xe0 is no UTF-8, so it shows as \xe0 (a JSON
    // string holding a backslash), never as U+FFFD.
    assert!(
        lines[0].contains(r#""_col3":"\u0003\u0000\u0000\u0000\t\u0001?\\xe0\u0000"#),
        "{}",
        lines[0]
    );
    assert!(!text.contains('\u{fffd}'));
    assert_eq!(
        lines[1],
        r#"{"_col0":"\u0000","_col1":"\u0000","_col2":"\u0001\u0000\u0000\u0000\u000b\u0001\u0000\u0000\u0000\u0006\u0001\u0000\u0000\u0000\u0001\u0000","_col3":"\u0000*","_col4":"\u0000"}"#
    );
    // Several files: still one warning.
    let o = colfile(&["cat", &rc("nested_binary"), &rc("nested_binary")]);
    assert_eq!(stdout(&o).lines().count(), 2 * lines.len());
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
    // A backslash in a cell is doubled, so `\x` text and an escaped byte differ.
    let o = colfile(&[
        "head",
        &rc("strings_binary"),
        "-n",
        "2",
        "--columns",
        "_col0",
    ]);
    assert_eq!(stdout(&o), "{\"_col0\":\"\"}\n{\"_col0\":\"\\\\\\\\N\"}\n");
}
