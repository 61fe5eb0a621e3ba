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
    // serde_json's escaping: \" \\ \b \f \n \r \t, other controls as \u00xx.
    if let Ok(j) = serde_json::to_string(s) {
        out.push_str(&j);
    }
}
