//! Any text as a `--where` expression: parsing must never panic, and whatever parses must
//! print (Display) as text that parses back to an expression that prints the same.
use colfile::tsfile::Filter;

/// The target body.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(f) = text.parse::<Filter>() else {
        return;
    };
    let printed = f.to_string();
    let again: Filter = printed.parse().expect("Display output parses");
    assert_eq!(again.to_string(), printed);
}
