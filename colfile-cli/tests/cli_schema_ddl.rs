//! `--schema` in Hive DDL form (`a string, b array<int>`), and `--schema @FILE` holding
//! either form or a whole `CREATE TABLE` statement.

use colfile_testkit::fixtures_dir;

#[path = "support/run.rs"]
mod run;
use run::{colfile, stdout, temp_dir};

fn nested() -> String {
    fixtures_dir()
        .join("nested_binary.rc")
        .to_string_lossy()
        .into_owned()
}

const NESTED_FIRST_ROW: &str = r#"{"aa":[[1,2],[],[3]],"m":[["k",[{"p":1,"q":[[1,"one"],[2,"two"]]},null]]],"s":{"a":{"b":{"c":["x","y"]}}},"u":{"tag":3,"value":{"x":0.5}},"mm":[[1,[["t",true],["f",false]]]]}
"#;

#[test]
fn ddl_column_list_reads_like_the_colon_form() {
    let ddl = "aa ARRAY<array<int>>, m map<string, array<struct<p:int,q:map<int,string>>>>, \
               s STRUCT<a:struct<b:struct<c:array<string>>>> COMMENT 'deep', \
               u uniontype<int,string,array<int>,struct<x:double>>, `mm` map<int,map<string,boolean>>";
    let colon = "aa:array<array<int>>,m:map<string,array<struct<p:int,q:map<int,string>>>>,\
                 s:struct<a:struct<b:struct<c:array<string>>>>,\
                 u:uniontype<int,string,array<int>,struct<x:double>>,mm:map<int,map<string,boolean>>";
    let f = nested();
    let a = stdout(&colfile(&["head", &f, "-n", "1", "--schema", ddl]));
    let b = stdout(&colfile(&["head", &f, "-n", "1", "--schema", colon]));
    assert_eq!(a, NESTED_FIRST_ROW);
    assert_eq!(b, NESTED_FIRST_ROW);
}

#[test]
fn schema_from_a_file_with_a_create_table_statement() {
    let dir = temp_dir("ddl-create");
    let sql = dir.join("t.sql");
    std::fs::write(
        &sql,
        "CREATE EXTERNAL TABLE IF NOT EXISTS db.nested (\n\
           aa array<array<int>> COMMENT 'lists',\n\
           m map<string,array<struct<p:int,q:map<int,string>>>>,\n\
           s struct<a:struct<b:struct<c:array<string>>>>,\n\
           u uniontype<int,string,array<int>,struct<x:double>>,\n\
           mm map<int,map<string,boolean>>\n\
         )\n\
         PARTITIONED BY (dt string)\n\
         ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.columnar.LazyBinaryColumnarSerDe'\n\
         STORED AS RCFILE\n\
         LOCATION '/warehouse/nested';\n",
    )
    .unwrap();
    let arg = format!("@{}", sql.display());
    let out = stdout(&colfile(&[
        "cat",
        &nested(),
        "--limit",
        "1",
        "--schema",
        &arg,
    ]));
    assert_eq!(out, NESTED_FIRST_ROW);
    // The colon form from a file, trailing newline and all.
    let colon = dir.join("t.schema");
    std::fs::write(&colon, "aa:array<array<int>>\n").unwrap();
    let arg = format!("@{}", colon.display());
    let out = stdout(&colfile(&[
        "cat",
        &nested(),
        "--limit",
        "1",
        "--columns",
        "aa",
        "--schema",
        &arg,
    ]));
    assert_eq!(out, "{\"aa\":[[1,2],[],[3]]}\n");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn write_takes_ddl_and_cat_reads_it_back() {
    let dir = temp_dir("ddl-write");
    let input = dir.join("in.jsonl");
    std::fs::write(
        &input,
        "{\"id\":1,\"price\":\"12.50\",\"tags\":[\"a\",\"b\"]}\n{\"id\":2,\"price\":null,\"tags\":[]}\n",
    )
    .unwrap();
    let out = dir.join("t.rc");
    let ddl = "id BIGINT, price DECIMAL(10,2), tags ARRAY<VARCHAR(5)>";
    let w = colfile(&[
        "write",
        out.to_str().unwrap(),
        "--schema",
        ddl,
        "--input",
        input.to_str().unwrap(),
    ]);
    stdout(&w);
    let text = stdout(&colfile(&["cat", out.to_str().unwrap(), "--schema", ddl]));
    assert_eq!(
        text,
        "{\"id\":1,\"price\":\"12.50\",\"tags\":[\"a\",\"b\"]}\n{\"id\":2,\"price\":null,\"tags\":[]}\n"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_ddl_is_a_usage_error_naming_the_position() {
    let o = colfile(&["cat", &nested(), "--schema", "aa int,\n  m mapp<int,int>"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "colfile: error: --schema: schema error: Hive DDL: unknown type \"mapp\" at line 2, \
         column 5 (near \"mapp<int,int>\")\n"
    );
    let o = colfile(&["cat", &nested(), "--schema", "@/nonexistent/colfile.sql"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr)
        .starts_with("colfile: error: --schema @/nonexistent/colfile.sql: "));
}

#[test]
fn schema_format_ddl_feeds_back_into_schema_at_file() {
    let basic = colfile_testkit::repo_root().join("fixtures/tsfile/basic.tsfile");
    let basic = basic.to_str().unwrap();
    let ddl = stdout(&colfile(&["schema", basic, "--format", "ddl"]));
    assert_eq!(
        ddl,
        "CREATE TABLE weather (`time` bigint, city string, station string, temp double, \
         count bigint, status string) STORED AS RCFILE;\n"
    );
    // It is the table `convert` makes of the TsFile: read back with it, the rows are the
    // TsFile's.
    let dir = temp_dir("ddl-schema");
    let (sql, rc) = (dir.join("weather.sql"), dir.join("weather.rc"));
    std::fs::write(&sql, &ddl).unwrap();
    stdout(&colfile(&["convert", basic, rc.to_str().unwrap()]));
    let at = format!("@{}", sql.display());
    let row = stdout(&colfile(&[
        "head",
        rc.to_str().unwrap(),
        "-n",
        "1",
        "--schema",
        &at,
    ]));
    assert_eq!(
        row,
        "{\"time\":1700000000000,\"city\":\"beijing\",\"station\":\"d1\",\"temp\":20.5,\
         \"count\":0,\"status\":\"ok\"}\n"
    );
    // An RCFile stores no types; a tree-model TsFile has no tables.
    let rc_ddl = stdout(&colfile(&["schema", &nested(), "--format", "ddl"]));
    assert_eq!(
        rc_ddl,
        "_col0 string, _col1 string, _col2 string, _col3 string, _col4 string\n"
    );
    let tree = colfile_testkit::repo_root().join("fixtures/tsfile/tree_basic.tsfile");
    let o = colfile(&["schema", tree.to_str().unwrap(), "--format", "ddl"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn row_format_serde_of_a_create_table_picks_the_serde() {
    let cols = "aa array<array<int>>, m map<string,array<struct<p:int,q:map<int,string>>>>, \
                s struct<a:struct<b:struct<c:array<string>>>>, \
                u uniontype<int,string,array<int>,struct<x:double>>, mm map<int,map<string,boolean>>";
    let text = fixtures_dir()
        .join("nested_text.rc")
        .to_string_lossy()
        .into_owned();
    // Without a serde, the binary one (Hive's default) cannot read a text-serde file.
    let o = colfile(&["head", &text, "-n", "1", "--schema", cols]);
    assert_eq!(o.status.code(), Some(1));
    // The statement's ColumnarSerDe is the text serde; --serde still wins.
    let dir = temp_dir("ddl-serde");
    let sql = dir.join("t.sql");
    std::fs::write(
        &sql,
        format!(
            "CREATE TABLE t ({cols})\nROW FORMAT SERDE \
             'org.apache.hadoop.hive.serde2.columnar.ColumnarSerDe'\nSTORED AS RCFILE"
        ),
    )
    .unwrap();
    let at = format!("@{}", sql.display());
    assert_eq!(
        stdout(&colfile(&["head", &text, "-n", "1", "--schema", &at])),
        NESTED_FIRST_ROW
    );
    let o = colfile(&[
        "head", &text, "-n", "1", "--schema", &at, "--serde", "binary",
    ]);
    assert_eq!(o.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}
