//! Any bytes as one cell of a nested type, through both serdes; what decodes must encode.
#![no_main]
use colfile::rcfile::{HiveType, Serde};
use libfuzzer_sys::fuzz_target;

const TYPES: &[&str] = &[
    "boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "string", "varchar(5)",
    "char(3)", "binary", "date", "timestamp", "decimal(38,10)", "decimal(5,2)", "array<int>",
    "map<string,array<decimal(10,2)>>", "struct<a:int,b:struct<c:string,d:array<timestamp>>>",
    "uniontype<int,string,array<double>>", "map<int,map<string,boolean>>",
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, cell)) = data.split_first() else { return };
    let ty: HiveType = TYPES[sel as usize % TYPES.len()].parse().unwrap();
    for serde in [Serde::text(), Serde::binary()] {
        if let Ok(v) = serde.decode(&ty, cell) {
            let mut out = Vec::new();
            let _ = serde.encode(&ty, &v, &mut out);
        }
    }
});
