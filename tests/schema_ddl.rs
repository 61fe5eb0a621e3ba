//! `Schema::from_hive_ddl` / `to_hive_ddl` / `parse_any`: Hive DDL column lists and
//! `CREATE TABLE` statements, and the round trip of any schema through the DDL text.

use colfile::rcfile::{Field, HiveType, Schema};
use proptest::prelude::*;

fn ddl(text: &str) -> Schema {
    Schema::from_hive_ddl(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn column_list_with_every_type_form() {
    let s = ddl(
        "a string, b array<int>, c struct<x:int,y:map<string,double>>, \
         d DECIMAL(10,2), e Varchar(20), f char(3), g uniontype<int, string>, \
         `h h` BIGINT COMMENT 'the h, with a '' quote', i struct<`p q`:boolean COMMENT 'x'>, \
         j decimal, k double precision, l timestamp, m binary, n date",
    );
    assert_eq!(
        s.to_string(),
        "a:string,b:array<int>,c:struct<x:int,y:map<string,double>>,d:decimal(10,2),\
         e:varchar(20),f:char(3),g:uniontype<int,string>,h h:bigint,i:struct<p q:boolean>,\
         j:decimal(10,0),k:double,l:timestamp,m:binary,n:date"
    );
    assert_eq!(
        s.to_hive_ddl(),
        "a string, b array<int>, c struct<x:int,y:map<string,double>>, d decimal(10,2), \
         e varchar(20), f char(3), g uniontype<int,string>, `h h` bigint, \
         i struct<`p q`:boolean>, j decimal(10,0), k double, l timestamp, m binary, n date"
    );
}

#[test]
fn create_table_statement() {
    let text = "-- the orders table\n\
        CREATE EXTERNAL TABLE IF NOT EXISTS sales.`orders` (\n\
          id BIGINT COMMENT 'order id',\n\
          items ARRAY<STRUCT<sku:STRING, qty:INT>>,\n\
          total DECIMAL(12,2)\n\
        )\n\
        PARTITIONED BY (dt STRING)\n\
        ROW FORMAT SERDE 'org.apache.hadoop.hive.serde2.columnar.LazyBinaryColumnarSerDe'\n\
        STORED AS RCFILE\n\
        LOCATION 'hdfs:///warehouse/orders'\n\
        TBLPROPERTIES ('a'='b');\n";
    assert_eq!(
        ddl(text).to_string(),
        "id:bigint,items:array<struct<sku:string,qty:int>>,total:decimal(12,2)"
    );
    assert_eq!(
        ddl("create table t (x int)").to_string(),
        "x:int",
        "lower case, no database"
    );
}

#[test]
fn errors_name_the_position() {
    let cases = [
        (
            "a string, b arrray<int>",
            "Hive DDL: unknown type \"arrray\" at line 1, column 13 (near \"arrray<int>\")",
        ),
        (
            "a int,\nb map<int>",
            "Hive DDL: expected ',' at line 2, column 10 (near \">\")",
        ),
        (
            "a decimal(40,1)",
            "Hive DDL: decimal precision must be 1..=38 and scale <= precision at line 1, \
             column 3 (near \"decimal(40,1)\")",
        ),
        (
            "CREATE TABLE t a int",
            "Hive DDL: expected '(' at line 1, column 16 (near \"a int\")",
        ),
        (
            "`a int",
            "Hive DDL: a backquoted name is not closed at line 1, column 2 (near \"a int\")",
        ),
        (
            "a int b int",
            "Hive DDL: unexpected text after the column list at line 1, column 7 (near \"b int\")",
        ),
    ];
    for (text, want) in cases {
        let e = Schema::from_hive_ddl(text).expect_err(text);
        assert!(e.to_string().ends_with(want), "{text}: {e}");
    }
}

#[test]
fn parse_any_tells_the_forms_apart() {
    let colon = Schema::parse_any("a:int, b:struct<x:string>").unwrap();
    assert_eq!(
        colon,
        Schema::parse_any("a INT, b STRUCT<x:STRING>").unwrap()
    );
    assert_eq!(
        colon,
        Schema::parse_any("create table t (a int, b struct<x:string>)").unwrap()
    );
    assert_eq!(
        Schema::parse_any("`a:b` int").unwrap().columns()[0].name,
        "a:b"
    );
    assert_eq!(
        Schema::parse_any("my col:int").unwrap().columns()[0].name,
        "my col"
    );
    assert!(
        Schema::parse_any("a int,").is_ok(),
        "a trailing comma ends the list"
    );
    assert!(Schema::parse_any("a").is_err());
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_]{0,6}",
        "[A-Za-z0-9 `:,<>()'\"-]{1,8}",
        "\\PC{1,4}",
    ]
}

fn hive_type() -> impl Strategy<Value = HiveType> {
    colfile_testkit::arb_primitive_type().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| HiveType::Array(Box::new(t))),
            (inner.clone(), inner.clone())
                .prop_map(|(k, v)| HiveType::Map(Box::new(k), Box::new(v))),
            prop::collection::vec((name(), inner.clone()), 0..4).prop_map(|fs| {
                HiveType::Struct(
                    fs.into_iter()
                        .map(|(name, ty)| Field { name, ty })
                        .collect(),
                )
            }),
            prop::collection::vec(inner, 1..4).prop_map(HiveType::Union),
        ]
    })
}

fn schema() -> impl Strategy<Value = Schema> {
    prop::collection::vec((name(), hive_type()), 0..6).prop_map(|cs| {
        Schema::new(
            cs.into_iter()
                .map(|(name, ty)| Field { name, ty })
                .collect(),
        )
    })
}

proptest! {
    #[test]
    fn ddl_round_trip(s in schema()) {
        let text = s.to_hive_ddl();
        let back = Schema::from_hive_ddl(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&back, &s, "{}", text);
        let create = format!("CREATE TABLE t ({text}) STORED AS RCFILE");
        prop_assert_eq!(&Schema::from_hive_ddl(&create).unwrap(), &s);
    }
}

#[test]
fn reserved_words_and_odd_names_are_backquoted() {
    let s = ddl("`time` bigint, `on` boolean, `a``b` int, ok string");
    assert_eq!(s.to_string(), "time:bigint,on:boolean,a`b:int,ok:string");
    assert_eq!(
        s.to_hive_ddl(),
        "`time` bigint, `on` boolean, `a``b` int, ok string"
    );
    assert_eq!(colfile::rcfile::schema::quote_hive_name("TABLE"), "`TABLE`");
}

#[test]
fn row_format_serde_is_found_after_the_columns() {
    let binary = "org.apache.hadoop.hive.serde2.columnar.LazyBinaryColumnarSerDe";
    let text = format!(
        "CREATE TABLE t (a int COMMENT 'ROW FORMAT SERDE \"x\"', b string)\n\
         PARTITIONED BY (dt string) ROW FORMAT SERDE '{binary}'\n\
         WITH SERDEPROPERTIES ('k'='v') STORED AS RCFILE TBLPROPERTIES ('row'='format')"
    );
    assert_eq!(Schema::hive_ddl_serde(&text).as_deref(), Some(binary));
    assert_eq!(
        Schema::hive_ddl_serde("CREATE TABLE t (a int) STORED AS RCFILE"),
        None
    );
    assert_eq!(Schema::hive_ddl_serde("a int, b string"), None);
}
