//! RCFile cells read without `--schema`: every column is a `string` of the cell's raw bytes,
//! which need not be text (binary serde numbers, nested values). They are shown as escaped
//! text: valid UTF-8 as it is, any other byte as `\xNN`, and a backslash as `\\`, so the
//! bytes can be told apart and recovered, with a warning on stderr that this is what they
//! are.

use colfile::rcfile::Value;

/// The warning printed once when an RCFile is read without `--schema`.
pub const NO_SCHEMA_WARNING: &str = "colfile: warning: no --schema: printing raw cells as \
     escaped text; pass --schema with the table's Hive columns (e.g. --schema 'a int, b \
     string' or --schema @table.sql) to decode them";

/// Prints [`NO_SCHEMA_WARNING`] on stderr, the first time only (`cat` of several files).
pub fn warn_no_schema() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| eprintln!("{NO_SCHEMA_WARNING}"));
}

/// `bytes` as escaped text (see the module docs).
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// `row` with each string value escaped, into `out`.
pub fn escape_row(row: &[Value], out: &mut Vec<Value>) {
    out.clear();
    out.extend(row.iter().map(|v| match v {
        Value::String(b) => Value::String(escape_bytes(b).into_bytes()),
        other => other.clone(),
    }));
}
