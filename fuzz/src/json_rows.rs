//! Any bytes as a JSON-lines row for `write`: the flat-row scanner and both formats' row
//! readers (borrowing and owning), which must not panic, must agree with each other, and
//! must read only lines that serde_json reads as an array or object.
use colfile::json_scan::scan_flat_row;
use colfile::rcfile::{json as rc_json, Schema};
use colfile::tsfile::format::DataType;
use colfile::tsfile::tools::json::{row_from_json_line, row_refs_from_json_line};

/// The target body.
pub fn run(data: &[u8]) {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let flat = scan_flat_row(line);
    if flat.is_some() {
        let j: serde_json::Value = serde_json::from_str(line).expect("a flat row is JSON");
        assert!(j.is_array() || j.is_object(), "{line:?}");
    }
    let names = ["a", "b", "c", "d"].map(String::from);
    let types = [
        DataType::Int64,
        DataType::Double,
        DataType::String,
        DataType::Boolean,
    ];
    let owned = row_from_json_line(line, &names, &types);
    let mut refs = Vec::new();
    let time = row_refs_from_json_line(line, &names, &types, &mut refs);
    assert_eq!(owned.as_ref().map(|r| r.0), time, "{line:?}");
    if let Some((_, row)) = &owned {
        assert!(flat.is_some(), "{line:?}");
        let back: Vec<_> = refs.iter().map(|v| v.to_owned()).collect();
        assert_eq!(format!("{row:?}"), format!("{back:?}"), "{line:?}");
    }
    let schema: Schema = "a:bigint,b:double,c:string,d:timestamp,e:decimal(5,2)"
        .parse()
        .expect("a schema");
    if rc_json::row_from_json_line(&schema, line).is_some() {
        assert!(flat.is_some(), "{line:?}");
    }
}
