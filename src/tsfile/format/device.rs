//! [`DeviceId`]: TsFile v4's segmented device identifier (`StringArrayDeviceID`,
//! `spec/tsfile.md` §5.2, §12). Segment 0 is the table name; in the table model the other
//! segments are the TAG values in schema order, any of which may be null.

use std::cmp::Ordering;
use std::fmt;

use super::varint::{put_uvarint, put_var_bytes};
use crate::cursor::Cursor;
use crate::{Error, Result};

/// A device: a table name and nullable segments after it.
///
/// ```
/// use colfile::tsfile::format::DeviceId;
/// let d = DeviceId::new(vec![Some("tab1".into()), None, Some("d2".into())])?;
/// assert_eq!(d.table_name(), "tab1");
/// assert_eq!(d.to_string(), "tab1.null.d2");
/// let mut bytes = Vec::new();
/// d.write_to(&mut bytes)?;
/// assert_eq!(bytes, [0x03, 0x08, b't', b'a', b'b', b'1', 0x01, 0x04, b'd', b'2']);
///
/// // Tree-model paths split the way Java does.
/// let t = DeviceId::from_tree_path("root.sg1.d2.x")?;
/// assert_eq!(t.segments(), &[Some("root.sg1.d2".to_string()), Some("x".to_string())]);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceId {
    segments: Vec<Option<String>>,
}

impl DeviceId {
    /// A device from its segments. Trailing null segments are removed, as Java does; the first
    /// segment (the table name) must be present.
    pub fn new(mut segments: Vec<Option<String>>) -> Result<Self> {
        while segments.len() > 1 && segments.last().is_some_and(|s| s.is_none()) {
            segments.pop();
        }
        match segments.first() {
            Some(Some(_)) => Ok(DeviceId { segments }),
            _ => Err(Error::invalid(
                "a device id needs a table name as its first segment",
            )),
        }
    }

    /// A table-model device: the table name, then the tag values in schema order.
    pub fn from_table<I, S>(table: &str, tags: I) -> Result<Self>
    where
        I: IntoIterator<Item = Option<S>>,
        S: Into<String>,
    {
        let mut segments = vec![Some(table.to_owned())];
        segments.extend(tags.into_iter().map(|t| t.map(Into::into)));
        Self::new(segments)
    }

    /// Whether this is the table-model device [`from_table`](Self::from_table) makes of
    /// `table` and tags given as bytes (`None` for a null tag), without building it.
    pub(crate) fn is_table_device<'t>(
        &self,
        table: &str,
        mut tags: impl Iterator<Item = Option<&'t [u8]>>,
    ) -> bool {
        let mut segments = self.segments.iter();
        if segments.next().and_then(Option::as_deref) != Some(table) {
            return false;
        }
        // Past the kept segments, only null tags (trailing nulls are dropped).
        tags.all(|t| match segments.next() {
            Some(s) => s.as_deref().map(str::as_bytes) == t,
            None => t.is_none(),
        }) && segments.next().is_none()
    }

    /// A tree-model device from a dotted path such as `root.sg1.d1` (back-quoted nodes may
    /// contain dots). Up to three leading nodes form the table name, as in Java's
    /// `splitDeviceIdString`.
    pub fn from_tree_path(path: &str) -> Result<Self> {
        let nodes = split_path(path)?;
        let k = nodes.len();
        let head = match k {
            1 => 1,
            2..=3 => k - 1,
            _ => 3,
        };
        let (table, rest) = nodes.split_at(head.min(k));
        let mut segments = vec![Some(table.join("."))];
        segments.extend(rest.iter().map(|n| Some(n.clone())));
        Self::new(segments)
    }

    /// The segments, table name first. Trailing nulls read from a file are kept as read.
    pub fn segments(&self) -> &[Option<String>] {
        &self.segments
    }

    /// Segment 0: the table name (for tree devices, the first up-to-three path nodes).
    pub fn table_name(&self) -> &str {
        self.segments
            .first()
            .and_then(|s| s.as_deref())
            .unwrap_or("")
    }

    /// Segment `i` (0 = table name); `None` when null or beyond the stored segments.
    pub fn segment(&self, i: usize) -> Option<&str> {
        self.segments.get(i).and_then(|s| s.as_deref())
    }

    /// The nodes of the device's dotted path (its [`Display`](fmt::Display) form) split on
    /// dots outside back-quotes, back-quotes kept: `root.sg1.d1` gives `root`, `sg1`, `d1`.
    /// These are the path levels of a tree-model device (level 0 is `root`); for a table
    /// device they are the table name's nodes and the tags.
    ///
    /// ```
    /// use colfile::tsfile::format::DeviceId;
    /// let d = DeviceId::from_tree_path("root.sg1.`a.b`.d1")?;
    /// assert_eq!(d.path_nodes(), ["root", "sg1", "`a.b`", "d1"]);
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn path_nodes(&self) -> Vec<String> {
        let path = self.to_string();
        split_path(&path).unwrap_or_else(|_| vec![path])
    }

    /// Appends the wire form: `UVarInt` count then one `VarStr` per segment.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        put_uvarint(out, self.segments.len() as u32);
        for s in &self.segments {
            put_var_bytes(out, s.as_deref().map(str::as_bytes))?;
        }
        Ok(())
    }

    /// Reads the wire form. A count of 0 gives the one-segment id `[""]` (as Java does);
    /// trailing null segments (C++ may write them) are kept so the id reads back as stored.
    pub fn read(c: &mut Cursor<'_>, max_segments: usize) -> Result<Self> {
        let n = c.read_ucount("device id segments", max_segments)?;
        if n == 0 {
            return Ok(DeviceId {
                segments: vec![Some(String::new())],
            });
        }
        // Each segment takes at least one byte: check before allocating.
        c.need("device id segments", n)?;
        let mut segments = Vec::with_capacity(n);
        for _ in 0..n {
            segments.push(c.read_opt_var_str("device id segment")?.map(str::to_owned));
        }
        Ok(DeviceId { segments })
    }

    /// The same device with trailing null segments removed (what a writer stores).
    pub fn normalized(&self) -> DeviceId {
        let mut s = self.segments.clone();
        while s.len() > 1 && s.last().is_some_and(|x| x.is_none()) {
            s.pop();
        }
        DeviceId { segments: s }
    }
}

impl fmt::Display for DeviceId {
    /// Segments joined with `.`, a null segment written `null` (Java's `toString`, which is
    /// also the Bloom filter key).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.segments.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(s.as_deref().unwrap_or("null"))?;
        }
        Ok(())
    }
}

impl Ord for DeviceId {
    /// Java's order: segment by segment, null before any string, strings by UTF-16 code units,
    /// and a prefix before the longer id.
    fn cmp(&self, other: &Self) -> Ordering {
        for (a, b) in self.segments.iter().zip(&other.segments) {
            let o = match (a, b) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(a), Some(b)) => java_str_cmp(a, b),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        self.segments.len().cmp(&other.segments.len())
    }
}

impl PartialOrd for DeviceId {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Java's `String.compareTo`: UTF-16 code-unit order (differs from UTF-8 byte order only for
/// supplementary characters against U+E000..U+FFFF).
pub fn java_str_cmp(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    // UTF-8 byte order is code-point order. At the first differing byte both strings hold a
    // character starting there (or continuing one they share); UTF-16 puts a supplementary
    // character (lead byte F0-F4, a surrogate unit D800-DBFF) before U+E000..U+FFFF (lead
    // byte EE or EF), where code points say after. Every other pair orders as its bytes.
    let Some((&p, &q)) = x.iter().zip(y).find(|(p, q)| p != q) else {
        return x.len().cmp(&y.len());
    };
    let (p_high, q_high) = ((0xEE..=0xEF).contains(&p), (0xEE..=0xEF).contains(&q));
    match (p >= 0xF0, q >= 0xF0) {
        (true, false) if q_high => Ordering::Less,
        (false, true) if p_high => Ordering::Greater,
        _ => p.cmp(&q),
    }
}

/// Splits a tree path on dots outside back-quotes; back-quotes are kept as written.
fn split_path(path: &str) -> Result<Vec<String>> {
    let mut nodes = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in path.chars() {
        match ch {
            '`' => {
                quoted = !quoted;
                cur.push(ch);
            }
            '.' if !quoted => nodes.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    nodes.push(cur);
    if quoted || nodes.iter().any(String::is_empty) {
        return Err(Error::invalid(format!(
            "{path:?} is not a valid device path"
        )));
    }
    Ok(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(s: &[Option<&str>]) -> DeviceId {
        DeviceId::new(s.iter().map(|x| x.map(String::from)).collect()).unwrap()
    }

    #[test]
    fn is_table_device_is_equality_with_from_table() {
        // Every table and tag list of up to three tags from a few values, null included.
        let values = [None, Some("a"), Some("b"), Some("")];
        let mut lists: Vec<Vec<Option<&str>>> = vec![vec![]];
        for _ in 0..3 {
            let longer: Vec<_> = (lists.iter())
                .filter(|l| l.len() == lists.last().map_or(0, Vec::len))
                .flat_map(|l| values.iter().map(move |v| [l.clone(), vec![*v]].concat()))
                .collect();
            lists.extend(longer);
        }
        for table in ["t", "u"] {
            for x in &lists {
                let d = DeviceId::from_table(table, x.iter().copied()).unwrap();
                for other in ["t", "u"] {
                    for y in &lists {
                        let e = DeviceId::from_table(other, y.iter().copied()).unwrap();
                        let tags = y.iter().map(|t| t.map(str::as_bytes));
                        assert_eq!(d.is_table_device(other, tags), d == e, "{d} vs {e}");
                    }
                }
            }
        }
    }

    #[test]
    fn trailing_nulls_trimmed_and_order_is_javas() {
        assert_eq!(dev(&[Some("t"), Some("a"), None, None]).segments().len(), 2);
        assert!(DeviceId::new(vec![None]).is_err());
        let a = dev(&[Some("t"), None, Some("x")]);
        let b = dev(&[Some("t"), Some(""), Some("a")]);
        let c = dev(&[Some("t"), Some("a")]);
        let d = dev(&[Some("t"), Some("a"), Some("b")]);
        assert!(a < b && b < c && c < d);
        // U+FFFD sorts before U+10000 in UTF-8 byte order but after it in UTF-16.
        assert_eq!(java_str_cmp("\u{fffd}", "\u{10000}"), Ordering::Greater);
    }

    proptest::proptest! {
        /// The byte comparison orders strings as their UTF-16 code units do, on strings of
        /// ASCII, two- and three-byte characters on both sides of U+E000, and supplementary
        /// characters.
        #[test]
        fn java_order_is_utf16_order(
            a in "[a-b\u{e9}\u{d7ff}\u{e000}\u{fffd}\u{10000}\u{1f600}]{0,4}",
            b in "[a-b\u{e9}\u{d7ff}\u{e000}\u{fffd}\u{10000}\u{1f600}]{0,4}",
        ) {
            proptest::prop_assert_eq!(java_str_cmp(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
        }
    }

    #[test]
    fn tree_paths() {
        let segs = |p: &str| DeviceId::from_tree_path(p).unwrap().to_string();
        assert_eq!(segs("root.x"), "root.x");
        assert_eq!(
            DeviceId::from_tree_path("root.x").unwrap().segments().len(),
            2
        );
        assert_eq!(
            DeviceId::from_tree_path("root.a.b.c.d")
                .unwrap()
                .segments()
                .len(),
            3
        );
        assert_eq!(
            DeviceId::from_tree_path("root.`a.b`.c")
                .unwrap()
                .table_name(),
            "root.`a.b`"
        );
        assert!(DeviceId::from_tree_path("root..x").is_err());
    }

    #[test]
    fn wire_round_trip_keeps_trailing_nulls_read_from_a_file() {
        let bytes = [0x03, 0x02, b't', 0x01, 0x01];
        let d = DeviceId::read(&mut Cursor::new(&bytes, 0), 100).unwrap();
        assert_eq!(d.segments(), &[Some("t".to_string()), None, None]);
        assert_eq!(d.normalized().segments().len(), 1);
        assert!(DeviceId::read(&mut Cursor::new(&[0x05, 0x00], 0), 100).is_err());
        assert!(DeviceId::read(&mut Cursor::new(&[0x05], 0), 3).is_err());
    }
}
