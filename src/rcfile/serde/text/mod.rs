//! `ColumnarSerDe`: the text cell encoding (Hive's LazySimpleSerDe rules), byte-compatible with
//! Hive 2.3.
//!
//! Each RCFile cell holds one column value rendered as text, starting at nesting level 1:
//!
//! - NULL, at any level, is the null sequence (`\N` by default).
//! - Primitives are text: `true`/`false`, decimal integers, Java's `Float.toString` /
//!   `Double.toString`, decimals padded to the column scale, dates `yyyy-MM-dd`, timestamps
//!   `yyyy-MM-dd HH:mm:ss[.fffffffff]` without trailing zeros, binary as Base64, strings as
//!   raw bytes (char padded to its length).
//! - An array at level L joins its elements (level L+1) with separator L; a map joins entries
//!   with separator L and puts separator L+1 between key and value (both at level L+2); a
//!   struct joins its fields (level L+1) with separator L; a union is its tag, separator L,
//!   and its value at level L+1. Separators are `\001`, `\002`, `\003`, ... (8 levels by
//!   default, 24 or 154 with Hive's extended nesting properties); a type nested deeper than
//!   the configured levels is an error, as it is in Hive.
//! - With `escape.delim` set, string, varchar and char values have the escape byte written
//!   before each separator byte and before the escape byte itself (and CR/LF become escape +
//!   `r`/`n` with `serialization.escape.crlf`); other types are never escaped.
//!
//! Reading follows Hive exactly, including its leniency: a primitive that does not parse is
//! NULL (never an error); an empty cell is `""` for string types and empty for binary, arrays
//! and maps, but NULL for numbers, dates and timestamps; integers accept a `.digits` tail;
//! decimals are rounded half-up to the column scale and are NULL when they overflow its
//! precision; dates and timestamps are parsed like `java.sql.Date/Timestamp.valueOf`, with
//! the same lenient normalization in the hybrid Julian/Gregorian calendar (`2020-02-30` is
//! `2020-03-01`, `1582-10-10` is `1582-10-20`); varchar and char are decoded as Java decodes
//! UTF-8 (malformed bytes become U+FFFD), truncated to their length, and char is padded;
//! binary is lenient Base64 (commons-codec), else the raw bytes. Map entries whose key is
//! NULL are dropped, and of duplicate keys the first one wins. Struct fields missing at the
//! end are NULL and extra ones are ignored.
//!
//! Known differences from Hive, all on malformed input: a union cell without a separator or
//! with a bad tag is NULL here (Hive throws); with `hive.lazysimple.extended_boolean_literal`
//! an unrecognized boolean is NULL here, where Hive repeats the previous row's value. Text
//! cannot distinguish some values (Hive has the same ambiguities): a top-level `[NULL]` array
//! is written as the null sequence and reads back as NULL; `[""]` reads back as `[]`; a string
//! equal to the null sequence reads back as NULL unless escaping is on.

mod bytes;
mod datetime;
mod decode;
mod encode;
mod scalar;

use crate::rcfile::{HiveType, Value};
use crate::{Error, Result};
use std::fmt;

/// How many nesting levels have a separator (Hive's `LazySerDeParameters`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NestingLevels {
    /// 8 separators, `\001` to `\010` (Hive's default).
    #[default]
    Legacy,
    /// 24 separators (`hive.serialization.extend.nesting.levels=true`): the 8 above, then
    /// `\013`, `\016`..`\032`, `\034`, `\035` (skipping TAB, LF, FF, CR and ESC).
    Extended,
    /// 154 separators (`hive.serialization.extend.additional.nesting.levels=true`): the 24
    /// above, then `\036`, `\037` and the bytes 0x80..=0xFF.
    ExtendedAdditional,
}

impl NestingLevels {
    /// Number of separators (nesting levels, counting the unused field level 0).
    pub fn count(self) -> usize {
        match self {
            NestingLevels::Legacy => 8,
            NestingLevels::Extended => 24,
            NestingLevels::ExtendedAdditional => 154,
        }
    }
}

/// The text serde's settings, with Hive's defaults; build them from table properties with
/// [`TextOptions::from_properties`].
///
/// ```
/// use colfile::rcfile::serde::TextOptions;
/// let o = TextOptions::from_properties([
///     ("serialization.null.format", "NULL"),
///     ("colelction.delim", ","),
///     ("mapkey.delim", "61"), // a decimal byte value: '='
///     ("escape.delim", "\\"),
/// ])
/// .unwrap();
/// assert_eq!(o.null_sequence, b"NULL");
/// assert_eq!(&o.separators()[..4], b"\x01,=\x04");
/// assert_eq!(o.escape, Some(b'\\'));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TextOptions {
    /// The NULL marker at every level (`serialization.null.format`, default `\N`).
    pub null_sequence: Vec<u8>,
    /// Separator 0 (`field.delim`, falling back to `serialization.format`; default `\001`).
    /// RCFile stores columns apart, so it only matters for escaping.
    pub field_delim: u8,
    /// Separator 1 (default `\002`): `collection.delim` (Hive 3+), else the misspelled
    /// `colelction.delim` that Hive 2 reads and writes (Hive 2.3 ignores `collection.delim`;
    /// when both are set this follows Hive 3).
    pub collection_delim: u8,
    /// Separator 2 (`mapkey.delim`, default `\003`).
    pub mapkey_delim: u8,
    /// How many separator levels exist.
    pub nesting: NestingLevels,
    /// The escape byte (`escape.delim`); `None` disables escaping.
    pub escape: Option<u8>,
    /// With escaping, write CR and LF as escape + `r` / `n` (`serialization.escape.crlf`).
    pub escape_crlf: bool,
    /// The last field of a struct takes all remaining bytes, separators included
    /// (`serialization.last.column.takes.rest`).
    pub last_column_takes_rest: bool,
    /// Booleans also read from `T`/`F`/`1`/`0` (`hive.lazysimple.extended_boolean_literal`,
    /// a job setting in Hive, accepted here as a property).
    pub extended_boolean_literal: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            null_sequence: b"\\N".to_vec(),
            field_delim: 1,
            collection_delim: 2,
            mapkey_delim: 3,
            nesting: NestingLevels::Legacy,
            escape: None,
            escape_crlf: false,
            last_column_takes_rest: false,
            extended_boolean_literal: false,
        }
    }
}

impl TextOptions {
    /// Options from Hive table/serde properties; unknown keys (column lists, comments, ...)
    /// are ignored. A delimiter is a decimal byte value when it parses as one (`"9"` is TAB,
    /// `"-1"` is 0xFF), else its first character, as `LazyUtils.getByte` does.
    ///
    /// Fails with [`crate::ErrorKind::Unsupported`] for `timestamp.formats`, which this crate
    /// does not implement (Hive would parse timestamps in those patterns; silently reading
    /// them as NULL would lose data).
    pub fn from_properties<'a>(
        props: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<TextOptions> {
        let mut o = TextOptions::default();
        let (mut field, mut format, mut collection, mut colelction) = (None, None, None, None);
        for (k, v) in props {
            match k {
                "serialization.null.format" => o.null_sequence = v.as_bytes().to_vec(),
                "field.delim" => field = Some(v),
                "serialization.format" => format = Some(v),
                "collection.delim" => collection = Some(v),
                "colelction.delim" => colelction = Some(v),
                "mapkey.delim" => o.mapkey_delim = hive_byte(Some(v), 3),
                "escape.delim" => o.escape = Some(hive_byte(Some(v), b'\\')),
                "serialization.escape.crlf" => o.escape_crlf = v.eq_ignore_ascii_case("true"),
                "serialization.last.column.takes.rest" => {
                    o.last_column_takes_rest = v.eq_ignore_ascii_case("true")
                }
                "hive.serialization.extend.nesting.levels"
                    if v.eq_ignore_ascii_case("true") && o.nesting == NestingLevels::Legacy =>
                {
                    o.nesting = NestingLevels::Extended
                }
                "hive.serialization.extend.additional.nesting.levels"
                    if v.eq_ignore_ascii_case("true") =>
                {
                    o.nesting = NestingLevels::ExtendedAdditional
                }
                "hive.lazysimple.extended_boolean_literal" => {
                    o.extended_boolean_literal = v.trim().eq_ignore_ascii_case("true")
                }
                "timestamp.formats" if !v.trim().is_empty() => {
                    return Err(Error::unsupported(format!(
                        "serde property timestamp.formats={v:?}: custom timestamp patterns are not supported"
                    )))
                }
                _ => {}
            }
        }
        o.field_delim = hive_byte(field.or(format), 1);
        o.collection_delim = hive_byte(collection.or(colelction), 2);
        Ok(o)
    }

    /// The separator of every nesting level (index = level).
    pub fn separators(&self) -> Vec<u8> {
        let mut seps = vec![self.field_delim, self.collection_delim, self.mapkey_delim];
        seps.extend(
            (4u8..=8)
                .chain([11])
                .chain(14..=26)
                .chain(28..=31)
                .chain(0x80..=0xff),
        );
        seps.truncate(self.nesting.count());
        seps
    }
}

/// `LazyUtils.getByte`: a decimal byte (`Byte.parseByte`), else the low byte of the first
/// UTF-16 unit; the default when absent or empty.
fn hive_byte(v: Option<&str>, default: u8) -> u8 {
    let Some(v) = v.filter(|v| !v.is_empty()) else {
        return default;
    };
    let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(b) = v.parse::<i8>() {
            return b as u8;
        }
    }
    let mut units = [0u16; 2];
    v.chars()
        .next()
        .and_then(|c| c.encode_utf16(&mut units).first().map(|&u| u as u8))
        .unwrap_or(default)
}

/// The text serde (`ColumnarSerDe`).
///
/// ```
/// use colfile::rcfile::serde::{TextOptions, TextSerde};
/// use colfile::rcfile::{Decimal, HiveType, Value};
///
/// let serde = TextSerde::new(TextOptions::default());
/// let ty: HiveType = "map<string,array<decimal(5,2)>>".parse().unwrap();
/// let v = Value::Map(vec![(
///     Value::string("k"),
///     Value::Array(vec![Value::Decimal(Decimal::parse("1.5").unwrap()), Value::Null]),
/// )]);
/// let mut cell = Vec::new();
/// serde.encode(&ty, &v, &mut cell).unwrap();
/// assert_eq!(cell, b"k\x031.50\x04\\N");
/// let back = serde.decode(&ty, &cell).unwrap();
/// assert_eq!(serde.decode(&ty, b"k\x031.5\x04\\N").unwrap(), back);
/// assert_eq!(serde.decode(&HiveType::Int, b"12.9").unwrap(), Value::Int(12));
/// assert_eq!(serde.decode(&HiveType::Int, b"twelve").unwrap(), Value::Null);
/// ```
#[derive(Clone)]
pub struct TextSerde {
    opts: TextOptions,
    seps: Vec<u8>,
    /// Bit set of the bytes of string values that get the escape byte in front (empty
    /// without escaping).
    needs_escape: [u64; 4],
}

impl fmt::Debug for TextSerde {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TextSerde")
            .field("options", &self.opts)
            .finish()
    }
}

impl TextSerde {
    /// A text serde with these options.
    pub fn new(opts: TextOptions) -> Self {
        let seps = opts.separators();
        let mut needs_escape = [0u64; 4];
        if let Some(e) = opts.escape {
            let crlf: &[u8] = if opts.escape_crlf { b"\r\n" } else { b"" };
            for &b in seps.iter().chain(crlf).chain([&e]) {
                // b / 64 < 4 for any byte.
                if let Some(word) = needs_escape.get_mut(usize::from(b / 64)) {
                    *word |= 1 << (b % 64);
                }
            }
        }
        TextSerde {
            opts,
            seps,
            needs_escape,
        }
    }

    /// The options this serde was made with.
    pub fn options(&self) -> &TextOptions {
        &self.opts
    }

    /// Decodes one cell of type `ty`. Bytes that do not parse give NULLs, as in Hive; the
    /// only error is a type nested deeper than the separator levels allow.
    pub fn decode(&self, ty: &HiveType, cell: &[u8]) -> Result<Value> {
        if cell == self.opts.null_sequence.as_slice() {
            return Ok(Value::Null);
        }
        if !ty.is_primitive() {
            self.check_levels(ty, 1)?;
        }
        Ok(self.value(ty, cell, 1))
    }

    /// Appends the cell bytes of `v` (of type `ty`) to `out`, byte for byte as Hive writes
    /// them. Fails when the value does not match the type or the type is nested too deeply.
    pub fn encode(&self, ty: &HiveType, v: &Value, out: &mut Vec<u8>) -> Result<()> {
        if !ty.is_primitive() {
            self.check_levels(ty, 1)?;
        }
        self.write(ty, v, 1, out)
    }

    /// Checks that every complex type inside `ty` (at `level`) has its separators.
    fn check_levels(&self, ty: &HiveType, level: usize) -> Result<()> {
        let needed = match ty {
            HiveType::Map(..) => level + 1,
            _ if ty.is_primitive() => return Ok(()),
            _ => level,
        };
        if needed >= self.seps.len() {
            return Err(Error::schema(format!(
                "type {ty} at nesting level {level} needs separator {needed}, but only {} are configured; set hive.serialization.extend.nesting.levels (24) or hive.serialization.extend.additional.nesting.levels (154)",
                self.seps.len()
            )));
        }
        match ty {
            HiveType::Array(t) => self.check_levels(t, level + 1),
            HiveType::Map(k, v) => {
                self.check_levels(k, level + 2)?;
                self.check_levels(v, level + 2)
            }
            HiveType::Struct(fields) => fields
                .iter()
                .try_for_each(|f| self.check_levels(&f.ty, level + 1)),
            HiveType::Union(members) => members
                .iter()
                .try_for_each(|t| self.check_levels(t, level + 1)),
            _ => Ok(()),
        }
    }

    /// True when `b` in a string value is written with the escape byte in front.
    fn needs_escape(&self, b: u8) -> bool {
        // b / 64 < 4 for any byte.
        (self.needs_escape.get(usize::from(b / 64))).is_some_and(|w| w & (1 << (b % 64)) != 0)
    }

    /// The separator of `level` (always present once [`Self::check_levels`] passed).
    fn sep(&self, level: usize) -> Option<u8> {
        self.seps.get(level).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_tables() {
        let o = TextOptions::default();
        assert_eq!(o.separators(), b"\x01\x02\x03\x04\x05\x06\x07\x08");
        let mut e = o.clone();
        e.nesting = NestingLevels::Extended;
        let s = e.separators();
        assert_eq!(s.len(), 24);
        assert_eq!(
            &s[8..],
            b"\x0b\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1c\x1d"
        );
        e.nesting = NestingLevels::ExtendedAdditional;
        let s = e.separators();
        assert_eq!(s.len(), 154);
        assert_eq!(&s[24..27], b"\x1e\x1f\x80");
        assert_eq!(s[153], 0xff);
    }

    #[test]
    fn hive_get_byte() {
        assert_eq!(hive_byte(Some("9"), 0), 9);
        assert_eq!(hive_byte(Some("-1"), 0), 0xff);
        assert_eq!(hive_byte(Some("+44"), 0), 44);
        assert_eq!(hive_byte(Some("200"), 0), b'2');
        assert_eq!(hive_byte(Some(","), 0), b',');
        assert_eq!(hive_byte(Some("é"), 0), 0xe9);
        assert_eq!(hive_byte(Some(""), 7), 7);
        assert_eq!(hive_byte(None, 7), 7);
    }

    #[test]
    fn properties() {
        let o = TextOptions::from_properties([
            ("serialization.format", "9"),
            ("collection.delim", "|"),
            ("colelction.delim", ","),
            (
                "hive.serialization.extend.additional.nesting.levels",
                "TRUE",
            ),
            ("hive.serialization.extend.nesting.levels", "true"),
            ("serialization.escape.crlf", "true"),
            ("escape.delim", ""),
            ("serialization.last.column.takes.rest", "true"),
            ("hive.lazysimple.extended_boolean_literal", " True "),
            ("columns", "a,b"),
        ])
        .unwrap();
        assert_eq!(o.field_delim, 9);
        assert_eq!(o.collection_delim, b'|');
        assert_eq!(o.nesting, NestingLevels::ExtendedAdditional);
        assert_eq!(o.escape, Some(b'\\'));
        assert!(o.escape_crlf && o.last_column_takes_rest && o.extended_boolean_literal);
        let o = TextOptions::from_properties([("field.delim", "a"), ("serialization.format", "1")])
            .unwrap();
        assert_eq!(o.field_delim, b'a');
        assert!(TextOptions::from_properties([("timestamp.formats", "yyyy")]).is_err());
    }

    #[test]
    fn nesting_limits() {
        let s = TextSerde::new(TextOptions::default());
        let deep = |n: usize| -> HiveType {
            let mut t = HiveType::Int;
            for _ in 0..n {
                t = HiveType::Array(Box::new(t));
            }
            t
        };
        assert!(s.decode(&deep(7), b"1").is_ok());
        assert!(s.decode(&deep(8), b"1").is_err());
        let m: HiveType = "array<array<array<array<array<map<int,int>>>>>>"
            .parse()
            .unwrap();
        assert!(s.check_levels(&m, 1).is_ok()); // the map sits at level 6 and needs 7
        let m: HiveType = "array<array<array<array<array<array<map<int,int>>>>>>>"
            .parse()
            .unwrap();
        assert!(s.encode(&m, &Value::Null, &mut Vec::new()).is_err());
        let o = TextOptions {
            nesting: NestingLevels::Extended,
            ..Default::default()
        };
        assert!(TextSerde::new(o).decode(&deep(23), b"").is_ok());
    }
}
