//! JSON text both formats' dumps share: string literals escaped as serde_json escapes them,
//! and bytes as hex (feature `json`).

/// Appends lowercase hex of `b`.
pub fn push_hex(out: &mut String, b: &[u8]) {
    // A nibble is below 16, so `from_digit` always gives its lowercase digit.
    let digit = |n: u8| char::from_digit(u32::from(n), 16).unwrap_or('0');
    out.reserve(b.len() * 2);
    for &x in b {
        out.push(digit(x >> 4));
        out.push(digit(x & 15));
    }
}

/// Decodes lowercase or uppercase hex.
pub fn parse_hex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    let nib = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    s.as_bytes()
        .chunks_exact(2)
        .map(|p| match *p {
            [hi, lo] => Some(nib(hi)? << 4 | nib(lo)?),
            _ => None,
        })
        .collect()
}

/// Appends `s` as a JSON string literal, escaped as serde_json escapes it.
pub fn write_str(out: &mut String, s: &str) {
    // Nothing to escape (the usual case): the text itself, quoted.
    if !s.bytes().any(|c| c < 0x20 || c == b'"' || c == b'\\') {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    // serde_json's escaping: \" \\ \b \f \n \r \t, other controls as \u00xx.
    if let Ok(j) = serde_json::to_string(s) {
        out.push_str(&j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Plain or not, a string is written as serde_json writes it.
        #[test]
        fn write_str_spells_strings_as_serde_json(s in "(\\PC|[\"\\\\\u{0}-\u{1f}\u{7f}])*") {
            let mut out = String::new();
            write_str(&mut out, &s);
            proptest::prop_assert_eq!(out, serde_json::to_string(&s).unwrap());
        }
    }
}
