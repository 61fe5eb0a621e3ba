//! A scanner for the common shape of a JSON-lines row: one array or object of scalars (null,
//! booleans, numbers kept as their text, strings without escapes), read without building a
//! `serde_json::Value` or allocating per value (feature `json`). Anything else, valid JSON or
//! not, is left to serde_json: the scanner says `None` and never guesses.

/// One scalar of a flat row; numbers and strings borrow the line's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A JSON number exactly as written (e.g. `-1.50E3`; serde_json's `arbitrary_precision`
    /// text spells the same number's exponent its own way, `-1.50e+3`).
    Number(&'a str),
    /// A JSON string's contents (it had no escapes).
    Str(&'a str),
}

/// A flat row: the values of an array, or an object's keys and values, in line order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FlatRow<'a> {
    /// The object's keys (empty for an array).
    pub keys: Vec<&'a str>,
    /// The values.
    pub values: Vec<Scalar<'a>>,
    /// Whether the row was an object.
    pub object: bool,
}

/// Scans the whole of `text` as one JSON scalar, as [`scan_flat_row`] reads each value;
/// `None` for anything else (surrounding whitespace included).
///
/// ```
/// use colfile::json_scan::{scan_scalar, Scalar};
/// assert_eq!(scan_scalar("-1.5e3"), Some(Scalar::Number("-1.5e3")));
/// assert_eq!(scan_scalar("007"), None);
/// ```
#[inline]
pub fn scan_scalar(text: &str) -> Option<Scalar<'_>> {
    let mut s = Scan {
        b: text.as_bytes(),
        text,
        p: 0,
    };
    let v = s.scalar()?;
    (s.p == text.len()).then_some(v)
}

/// Scans `line` as a flat row; `None` for anything else: nested arrays or objects, strings
/// with escapes, invalid JSON, or text after the row (whitespace aside).
///
/// ```
/// use colfile::json_scan::{scan_flat_row, Scalar};
/// let r = scan_flat_row(r#"{"id": 7, "name": "ada", "ok": null}"#).unwrap();
/// assert_eq!(r.keys, ["id", "name", "ok"]);
/// assert_eq!(r.values, [Scalar::Number("7"), Scalar::Str("ada"), Scalar::Null]);
/// assert!(scan_flat_row(r#"[1, [2]]"#).is_none()); // nested: not flat
/// ```
pub fn scan_flat_row(line: &str) -> Option<FlatRow<'_>> {
    let mut row = FlatRow::default();
    row.object = visit_flat_row(line, |key, value| {
        row.keys.extend(key);
        row.values.push(value);
        Some(())
    })?;
    Some(row)
}

/// Scans `line` as [`scan_flat_row`] does, but hands each member to `visit(key, value)` in
/// line order (`key` is `None` in an array) instead of gathering them, so that nothing is
/// allocated. Returns whether the row was an object; `None` where [`scan_flat_row`] says
/// `None` or `visit` does, possibly after some members were visited.
///
/// ```
/// use colfile::json_scan::{visit_flat_row, Scalar};
/// let mut sum = 0;
/// let object = visit_flat_row("[1, 2, 3]", |_, v| {
///     if let Scalar::Number(n) = v {
///         sum += n.parse::<i32>().ok()?;
///     }
///     Some(())
/// });
/// assert_eq!((object, sum), (Some(false), 6));
/// ```
pub fn visit_flat_row<'a>(
    line: &'a str,
    mut visit: impl FnMut(Option<&'a str>, Scalar<'a>) -> Option<()>,
) -> Option<bool> {
    let mut s = Scan {
        b: line.as_bytes(),
        text: line,
        p: 0,
    };
    s.ws();
    let close = match s.next()? {
        b'[' => b']',
        b'{' => b'}',
        _ => return None,
    };
    let object = close == b'}';
    s.ws();
    if s.peek() == Some(close) {
        s.p += 1;
    } else {
        loop {
            let mut key = None;
            if object {
                s.ws();
                let Scalar::Str(k) = s.scalar()? else {
                    return None;
                };
                key = Some(k);
                s.ws();
                s.expect(b':')?;
            }
            s.ws();
            visit(key, s.scalar()?)?;
            s.ws();
            match s.next()? {
                b',' => continue,
                c if c == close => break,
                _ => return None,
            }
        }
    }
    s.ws();
    (s.p == s.b.len()).then_some(object)
}

/// Scans `line` as a flat row of `columns` columns and hands each value to
/// `visit(column, value)`: an array's values by position, an object's by the column
/// `column_of(member_index, key)` names. `None` where [`visit_flat_row`] says `None`, for a
/// value past the last column, a key that names no column, or a column named twice.
/// Returns whether the row was an object, and how many values it had.
///
/// ```
/// use colfile::json_scan::{visit_row_columns, Scalar};
/// let mut got = vec![Scalar::Null; 2];
/// let column_of = |_: usize, k: &str| ["a", "b"].iter().position(|c| *c == k);
/// let row = visit_row_columns(r#"{"b": 1, "a": true}"#, 2, column_of, |i, v| {
///     *got.get_mut(i)? = v;
///     Some(())
/// });
/// assert_eq!(row, Some((true, 2)));
/// assert_eq!(got, [Scalar::Bool(true), Scalar::Number("1")]);
/// assert_eq!(visit_row_columns(r#"{"a": 1, "a": 2}"#, 2, column_of, |_, _| Some(())), None);
/// ```
pub fn visit_row_columns<'a>(
    line: &'a str,
    columns: usize,
    column_of: impl Fn(usize, &str) -> Option<usize>,
    visit: impl FnMut(usize, Scalar<'a>) -> Option<()>,
) -> Option<(bool, usize)> {
    visit_columns(|m| visit_flat_row(line, m), columns, column_of, visit)
}

/// [`visit_row_columns`] of the members `members(m)` hands to `m` (key, or `None` in an
/// array, and value, in row order), returning whether they made an object: rows that are
/// not JSON text, such as a CSV record's cells under its header's names.
///
/// ```
/// use colfile::json_scan::{visit_columns, Scalar};
/// let cells = [("b", Scalar::Number("1")), ("a", Scalar::Null)];
/// let column_of = |_: usize, k: &str| ["a", "b"].iter().position(|c| *c == k);
/// let mut got = Vec::new();
/// let row = visit_columns(
///     |m| cells.iter().try_for_each(|(k, v)| m(Some(k), *v)).map(|_| true),
///     2,
///     column_of,
///     |i, v| Some(got.push((i, v))),
/// );
/// assert_eq!(row, Some((true, 2)));
/// assert_eq!(got, [(1, Scalar::Number("1")), (0, Scalar::Null)]);
/// ```
pub fn visit_columns<'a>(
    members: impl FnOnce(&mut dyn FnMut(Option<&'a str>, Scalar<'a>) -> Option<()>) -> Option<bool>,
    columns: usize,
    column_of: impl Fn(usize, &str) -> Option<usize>,
    mut visit: impl FnMut(usize, Scalar<'a>) -> Option<()>,
) -> Option<(bool, usize)> {
    let mut members_seen = 0;
    // Which columns an object named, in a bit mask for rows of up to 64 columns.
    let (mut seen, mut seen_wide) = (0u64, Vec::new());
    let object = members(&mut |key, value| {
        let i = match key {
            None => members_seen,
            Some(k) => column_of(members_seen, k)?,
        };
        members_seen += 1;
        if i >= columns {
            return None;
        }
        if key.is_some() {
            let first = if columns <= 64 {
                let bit = 1u64 << i;
                let first = seen & bit == 0;
                seen |= bit;
                first
            } else {
                if seen_wide.is_empty() {
                    seen_wide.resize(columns, false);
                }
                !std::mem::replace(seen_wide.get_mut(i)?, true)
            };
            if !first {
                return None;
            }
        }
        visit(i, value)
    })?;
    Some((object, members_seen))
}

struct Scan<'a> {
    b: &'a [u8],
    text: &'a str,
    p: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.p).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.p += 1;
        Some(c)
    }
    fn expect(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.p += 1;
        }
    }
    fn word(&mut self, w: &[u8]) -> Option<()> {
        let end = self.p + w.len();
        (self.b.get(self.p..end)? == w).then(|| self.p = end)
    }
    fn digits(&mut self) -> usize {
        let start = self.p;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.p += 1;
        }
        self.p - start
    }
    #[inline(always)]
    fn scalar(&mut self) -> Option<Scalar<'a>> {
        let start = self.p;
        match self.peek()? {
            b'n' => self.word(b"null").map(|_| Scalar::Null),
            b't' => self.word(b"true").map(|_| Scalar::Bool(true)),
            b'f' => self.word(b"false").map(|_| Scalar::Bool(false)),
            b'"' => {
                self.p += 1;
                let body = self.p;
                // Stops at the closing quote; a backslash or a control character (which
                // JSON forbids unescaped) leaves the line to serde_json.
                loop {
                    match self.next()? {
                        b'"' => break,
                        b'\\' | 0..=0x1f => return None,
                        _ => {}
                    }
                }
                self.text.get(body..self.p - 1).map(Scalar::Str)
            }
            b'-' | b'0'..=b'9' => {
                // JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
                if self.peek() == Some(b'-') {
                    self.p += 1;
                }
                match self.peek()? {
                    b'0' => self.p += 1,
                    b'1'..=b'9' => {
                        self.digits();
                    }
                    _ => return None,
                }
                if self.peek() == Some(b'.') {
                    self.p += 1;
                    if self.digits() == 0 {
                        return None;
                    }
                }
                if matches!(self.peek(), Some(b'e' | b'E')) {
                    self.p += 1;
                    if matches!(self.peek(), Some(b'+' | b'-')) {
                        self.p += 1;
                    }
                    if self.digits() == 0 {
                        return None;
                    }
                }
                self.text.get(start..self.p).map(Scalar::Number)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_rows() {
        let r = scan_flat_row(" [1, -0.50E-3, \"x y\", true, false, null] ").unwrap();
        assert!(!r.object);
        assert_eq!(
            r.values,
            [
                Scalar::Number("1"),
                Scalar::Number("-0.50E-3"),
                Scalar::Str("x y"),
                Scalar::Bool(true),
                Scalar::Bool(false),
                Scalar::Null
            ]
        );
        assert_eq!(scan_flat_row("[]").unwrap().values, []);
        assert_eq!(scan_flat_row("{}").unwrap().keys, [] as [&str; 0]);
        for bad in [
            "",
            "[",
            "[1,]",
            "[01]",
            "[1.]",
            "[1e]",
            "[-]",
            "[+1]",
            "[1] x",
            "{\"a\"}",
            "{\"a\":1,}",
            "[\"a\\\"\"]",
            "[\"\t\"]",
            "[nul]",
            "[[1]]",
            "{\"a\":{}}",
            "1",
            "[1 2]",
            "{1:2}",
            "[NaN]",
            "[1e]",
            "[2E-]",
            "[1e+]",
        ] {
            assert_eq!(scan_flat_row(bad), None, "{bad:?}");
        }
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        /// Flat rows are accepted, and read as serde_json reads them: the same values, and
        /// numbers with the same text.
        #[test]
        fn agrees_with_serde_json(line in proptest::prop_oneof![
            r#"\[ ?((null|true|false|-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,2})?([eE][+-]?[0-9]{1,2})?|\"[a-z é]{0,3}\") ?, ?){0,4}(null|true|false|-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,2})?([eE][+-]?[0-9]{1,2})?|\"[a-z é]{0,3}\") ?\] ?"#,
            r#"\{ ?("[a-z]{0,2}" ?: ?(null|true|false|-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,2})?([eE][+-]?[0-9]{1,2})?|\"[a-z é]{0,3}\") ?, ?){0,4}"[a-z]{0,2}" ?: ?(null|true|false|-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,2})?([eE][+-]?[0-9]{1,2})?|\"[a-z é]{0,3}\") ?\}"#,
        ].prop_map(|s| s)) {
            let row = scan_flat_row(&line);
            proptest::prop_assert!(row.is_some(), "{line}");
            let row = row.unwrap();
            let j: serde_json::Value = serde_json::from_str(&line).unwrap();
            let vals: Vec<&serde_json::Value> = match &j {
                serde_json::Value::Array(a) => a.iter().collect(),
                serde_json::Value::Object(o) => {
                    // Duplicate keys collapse in serde_json: compare only rows without.
                    if o.len() != row.keys.len() {
                        return Ok(());
                    }
                    row.keys.iter().map(|k| &o[*k]).collect()
                }
                _ => unreachable!(),
            };
            proptest::prop_assert_eq!(vals.len(), row.values.len());
            for (j, s) in vals.iter().zip(&row.values) {
                let same = match (j, s) {
                    (serde_json::Value::Null, Scalar::Null) => true,
                    (serde_json::Value::Bool(a), Scalar::Bool(b)) => a == b,
                    // The same text, or the same number with its exponent spelled otherwise.
                    (serde_json::Value::Number(n), Scalar::Number(t)) => {
                        let u = n.to_string();
                        u == *t
                            || (t.contains(['e', 'E'])
                                && u.parse::<f64>().ok() == t.parse::<f64>().ok())
                    }
                    (serde_json::Value::String(a), Scalar::Str(b)) => a == b,
                    _ => false,
                };
                proptest::prop_assert!(same, "{j:?} vs {s:?} in {line}");
            }
        }
    }
}
