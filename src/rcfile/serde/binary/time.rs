//! Binary timestamps: the `TimestampWritable` layout, and [`TimeZone`], the zone a binary
//! timestamp's UTC seconds are converted through.

use super::tzif::{ZoneRules, MAX_TZIF_BYTES};
use crate::cursor::Cursor;
use crate::rcfile::hadoop::{decode_vlong, write_vlong};
use crate::{Error, Result};
use std::fmt;
use std::sync::Arc;

/// The time zone of binary timestamps.
///
/// A binary timestamp stores seconds since 1970-01-01 UTC. Hive 2.x computed them from the
/// wall clock in the writer JVM's zone; Hive 3.1+ treats the wall clock as UTC. Reading
/// converts the stored instant to a wall clock in this zone; writing interprets the wall clock
/// in this zone. Two sets of rules exist, and the binary serde picks them with its
/// [`Calendar`](super::Calendar): `java.time`'s ([`TimeZone::utc_to_local`],
/// [`TimeZone::local_to_utc`]) with the proleptic calendar, and those of `java.util.TimeZone`
/// behind `java.sql.Timestamp` ([`TimeZone::legacy_utc_to_local`],
/// [`TimeZone::legacy_local_to_utc`]) with the hybrid calendar of Hive ≤ 2.x. They differ
/// only for wall times that occur twice (earlier vs later instant) and before 1900.
///
/// ```
/// use colfile::rcfile::serde::binary::TimeZone;
/// assert_eq!(TimeZone::parse("UTC").unwrap(), TimeZone::Utc);
/// assert_eq!(TimeZone::parse("+05:30").unwrap(), TimeZone::Fixed(19_800));
/// assert_eq!(TimeZone::parse("-08").unwrap().to_string(), "-08:00");
/// if let Ok(ny) = TimeZone::parse("America/New_York") {
///     // 2021-07-01 00:00 EDT is 04:00 UTC.
///     assert_eq!(ny.local_to_utc(1_625_097_600), 1_625_097_600 + 4 * 3600);
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TimeZone {
    /// UTC: stored seconds are the wall clock (Hive 3.1+ semantics).
    #[default]
    Utc,
    /// A fixed offset, in seconds east of UTC.
    Fixed(i32),
    /// A zone from the tz database, with its transitions.
    Named(Arc<ZoneRules>),
}

/// Where [`TimeZone::named`] looks for zone files unless `TZDIR` is set.
pub const DEFAULT_TZDIR: &str = "/usr/share/zoneinfo";

/// Longest accepted zone name.
const MAX_ZONE_NAME: usize = 255;

impl TimeZone {
    /// Parses `UTC` (also `Z`, `GMT`, `UCT`, `Etc/UTC`, `Etc/GMT`), a fixed offset
    /// (`+05:30`, `-0800`, `+05`, optionally after `UTC`/`GMT`), or an IANA name such as
    /// `America/New_York`, loaded with [`TimeZone::named`].
    pub fn parse(s: &str) -> Result<TimeZone> {
        let t = s.trim();
        if matches!(
            t,
            "UTC" | "Z" | "GMT" | "UCT" | "Etc/UTC" | "Etc/GMT" | "Universal" | "Zulu"
        ) {
            return Ok(TimeZone::Utc);
        }
        let off = t
            .strip_prefix("UTC")
            .or_else(|| t.strip_prefix("GMT"))
            .unwrap_or(t);
        if off.starts_with(['+', '-']) {
            return parse_offset(off).map(TimeZone::Fixed).ok_or_else(|| {
                Error::invalid(format!("invalid UTC offset {s:?} (want ±HH[:MM[:SS]])"))
            });
        }
        TimeZone::named(t)
    }

    /// Loads the zone `name` from the tz database (`$TZDIR` or [`DEFAULT_TZDIR`]).
    pub fn named(name: &str) -> Result<TimeZone> {
        if !valid_zone_name(name) {
            return Err(Error::invalid(format!("invalid time zone name {name:?}")));
        }
        let dir = std::env::var_os("TZDIR").unwrap_or_else(|| DEFAULT_TZDIR.into());
        let path = std::path::Path::new(&dir).join(name);
        let bytes = read_bounded(&path).map_err(|e| {
            Error::invalid(format!(
                "unknown time zone {name:?}: cannot read {}: {e}",
                path.display()
            ))
        })?;
        TimeZone::from_tzif(name, &bytes)
    }

    /// A named zone from the bytes of a TZif file.
    pub fn from_tzif(name: &str, bytes: &[u8]) -> Result<TimeZone> {
        Ok(TimeZone::Named(Arc::new(ZoneRules::from_tzif(
            name, bytes,
        )?)))
    }

    /// Offset in seconds east of UTC at the UTC instant `utc`.
    #[inline]
    pub fn offset_at(&self, utc: i64) -> i32 {
        match self {
            TimeZone::Utc => 0,
            TimeZone::Fixed(o) => *o,
            TimeZone::Named(z) => z.offset_at(utc),
        }
    }

    /// Wall-clock seconds of the UTC instant `utc` (`java.time` rules: the tz database
    /// throughout, local mean time before a zone's first transition).
    #[inline]
    pub fn utc_to_local(&self, utc: i64) -> i64 {
        utc.saturating_add(i64::from(self.offset_at(utc)))
    }

    /// UTC instant of the wall-clock seconds `local` (`java.time` rules: in an overlap the
    /// earlier offset, i.e. the earlier instant; in a gap moved forward by the gap).
    #[inline]
    pub fn local_to_utc(&self, local: i64) -> i64 {
        match self {
            TimeZone::Utc => local,
            TimeZone::Fixed(o) => local.saturating_sub(i64::from(*o)),
            TimeZone::Named(z) => z.local_to_utc(local),
        }
    }

    /// Wall-clock seconds of the UTC instant `utc` as `java.util.TimeZone` computes them
    /// (`java.sql.Timestamp`, Hive ≤ 2.x): like [`TimeZone::utc_to_local`] from
    /// 1900-01-01T00:00Z on, the zone's standard offset before.
    #[inline]
    pub fn legacy_utc_to_local(&self, utc: i64) -> i64 {
        let off = match self {
            TimeZone::Named(z) => z.legacy_offset_at(utc),
            other => other.offset_at(utc),
        };
        utc.saturating_add(i64::from(off))
    }

    /// UTC instant of the wall-clock seconds `local` as `java.sql.Timestamp.valueOf` computes
    /// it: a time that occurs twice takes the offset after the transition (the later
    /// instant), a time in a gap is moved forward by the gap, and before 1900 the zone's
    /// standard offset applies.
    #[inline]
    pub fn legacy_local_to_utc(&self, local: i64) -> i64 {
        match self {
            TimeZone::Named(z) => z.legacy_local_to_utc(local),
            other => other.local_to_utc(local),
        }
    }
}

impl fmt::Display for TimeZone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeZone::Utc => f.write_str("UTC"),
            TimeZone::Fixed(o) => {
                let sign = if *o < 0 { '-' } else { '+' };
                let a = o.unsigned_abs();
                write!(f, "{sign}{:02}:{:02}", a / 3600, a / 60 % 60)?;
                if a % 60 != 0 {
                    write!(f, ":{:02}", a % 60)?;
                }
                Ok(())
            }
            TimeZone::Named(z) => f.write_str(z.name()),
        }
    }
}

fn valid_zone_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_ZONE_NAME
        && name.split('/').all(|c| {
            !c.is_empty()
                && c != "."
                && c != ".."
                && c.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'.'))
        })
}

fn read_bounded(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_TZIF_BYTES as u64 + 1)
        .read_to_end(&mut out)?;
    Ok(out)
}

/// `±HH[:MM[:SS]]` or `±HHMM[SS]`, at most 18 hours, as seconds east.
fn parse_offset(s: &str) -> Option<i32> {
    let (neg, rest) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => return None,
    };
    let parts: Vec<&str> = if rest.contains(':') {
        rest.split(':').collect()
    } else if rest.len() > 2 && rest.len() % 2 == 0 {
        rest.as_bytes()
            .chunks(2)
            .map(|c| std::str::from_utf8(c).unwrap_or("x"))
            .collect()
    } else {
        vec![rest]
    };
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut secs: i32 = 0;
    for (i, (p, unit)) in parts.iter().zip([3600, 60, 1]).enumerate() {
        if p.is_empty() || p.len() > 2 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let v: i32 = p.parse().ok()?;
        if i > 0 && v > 59 {
            return None;
        }
        secs += v * unit;
    }
    (secs <= 18 * 3600).then_some(if neg { -secs } else { secs })
}

/// Flag bit of the first int: a VInt follows.
const HAS_MORE: u32 = 0x8000_0000;

/// Nanoseconds with their decimal digits reversed (`123_000_000` → `321`), as
/// `TimestampWritable` stores them.
#[inline]
fn reverse_nanos(nanos: u32) -> i64 {
    let mut n = nanos;
    let mut r: i64 = 0;
    for _ in 0..9 {
        r = r * 10 + i64::from(n % 10);
        n /= 10;
    }
    r
}

/// Digits of 0..=999 reversed as three digits (`12` = "012" → "210" = 210).
#[allow(clippy::indexing_slicing)] // in bounds: evaluated at compile time, i < 1000
const REVERSE3: [u16; 1000] = {
    let mut t = [0u16; 1000];
    let mut i = 0;
    while i < 1000 {
        t[i] = ((i % 10) * 100 + (i / 10 % 10) * 10 + i / 100) as u16;
        i += 1;
    }
    t
};

/// The inverse of [`reverse_nanos`] for a stored value `v` (0..=999_999_999): reverse its
/// digits and scale by 10^(9 − digits), which is reversing it as a zero-padded nine-digit
/// number, done three digits at a time.
#[inline]
fn unreverse_nanos(v: u32) -> u32 {
    let rev3 = |x: u32| u32::from(REVERSE3.get(x as usize).copied().unwrap_or(0));
    rev3(v % 1000) * 1_000_000 + rev3(v / 1000 % 1000) * 1000 + rev3(v / 1_000_000)
}

fn corrupt(msg: impl Into<String>) -> Error {
    Error::corrupt("lazybinary", msg)
}

/// Reads one `TimestampWritable` value: `(seconds, nanos)` as stored (UTC seconds).
pub(crate) fn read_timestamp(c: &mut Cursor<'_>) -> Result<(i64, u32)> {
    let first = c.read_i32_be()? as u32;
    let low = i64::from(first & !HAS_MORE);
    if first & HAS_MORE == 0 {
        return Ok((low, 0));
    }
    let at = c.offset();
    let n1 = c.read_vint()?;
    if !(-1_000_000_000..=999_999_999).contains(&n1) {
        return Err(corrupt(format!("timestamp nanosecond field {n1} out of range")).at_offset(at));
    }
    let (rev, high) = if n1 < 0 {
        let at = c.offset();
        let high = c.read_vlong()?;
        if !(-(1i64 << 32)..(1i64 << 32)).contains(&high) {
            return Err(
                corrupt(format!("timestamp high seconds {high} out of range")).at_offset(at),
            );
        }
        ((-(n1 + 1)) as u32, high)
    } else {
        (n1 as u32, 0)
    };
    Ok((low | (high << 31), unreverse_nanos(rev)))
}

/// [`read_timestamp`] of a cell that starts `rest` and is `len` bytes long, without a cursor;
/// `rest` may go on past the cell (multi-byte VInts are then read with one 8-byte load).
/// `None` exactly where [`read_timestamp`] fails.
#[inline]
pub(crate) fn read_timestamp_fast(rest: &[u8], len: usize) -> Option<(i64, u32)> {
    if len < 4 {
        return None;
    }
    let first = u32::from_be_bytes(rest.get(..4)?.try_into().ok()?);
    let low = i64::from(first & !HAS_MORE);
    if first & HAS_MORE == 0 {
        return Some((low, 0));
    }
    let (n1, k) = decode_vlong(rest.get(4..)?)?;
    let mut used = 4 + k;
    if !(-1_000_000_000..=999_999_999).contains(&n1) {
        return None;
    }
    let (rev, high) = if n1 < 0 {
        let (high, k) = decode_vlong(rest.get(used..)?)?;
        used += k;
        if !(-(1i64 << 32)..(1i64 << 32)).contains(&high) {
            return None;
        }
        ((-(n1 + 1)) as u32, high)
    } else {
        (n1 as u32, 0)
    };
    (used <= len).then(|| (low | (high << 31), unreverse_nanos(rev)))
}

/// Appends one `TimestampWritable` value for stored (UTC) seconds and nanos.
pub(crate) fn write_timestamp(out: &mut Vec<u8>, seconds: i64, nanos: u32) {
    let rev = reverse_nanos(nanos);
    let high = !(0..=i64::from(i32::MAX)).contains(&seconds);
    let mut first = (seconds & 0x7FFF_FFFF) as u32;
    if rev != 0 || high {
        first |= HAS_MORE;
    }
    out.extend_from_slice(&first.to_be_bytes());
    if high {
        write_vlong(out, -rev - 1);
        write_vlong(out, seconds >> 31);
    } else if rev != 0 {
        write_vlong(out, rev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanos_digits() {
        for (n, r) in [
            (123_000_000, 321),
            (100_000_000, 1),
            (1, 100_000_000),
            (10, 10_000_000),
            (0, 0),
        ] {
            assert_eq!(reverse_nanos(n), r);
            assert_eq!(unreverse_nanos(r as u32), n);
        }
        assert_eq!(unreverse_nanos(999_999_999), 999_999_999);
        // The digit loop this replaced.
        let by_loop = |v: u32| {
            let (mut digits, mut r, mut n) = (0, 0u32, v);
            while n > 0 {
                r = r * 10 + n % 10;
                n /= 10;
                digits += 1;
            }
            r * 10u32.pow(9 - digits)
        };
        for v in (0..1_000_000_000).step_by(9973).chain(0..20_000) {
            assert_eq!(unreverse_nanos(v), by_loop(v), "{v}");
        }
    }

    #[test]
    fn fast_timestamp_agrees() {
        let mut cells: Vec<Vec<u8>> = Vec::new();
        for (s, n) in [
            (0i64, 0u32),
            (1_700_000_000, 123_456_789),
            (-1, 5),
            (1 << 40, 999_999_999),
            (-(1 << 40), 0),
            (i64::from(i32::MAX), 1),
        ] {
            let mut c = Vec::new();
            write_timestamp(&mut c, s, n);
            cells.push(c);
        }
        for c in cells.clone() {
            for cut in 0..c.len() {
                cells.push(c[..cut].to_vec());
            }
            let mut longer = c.clone();
            longer.extend_from_slice(&[0xFF; 12]);
            cells.push(longer);
        }
        cells.push(vec![0x80, 0, 0, 0, 0x8C, 0x7F, 0xFF, 0xFF, 0xFF]); // nanos out of range
        for c in &cells {
            let slow = read_timestamp(&mut Cursor::new(c, 0)).ok();
            assert_eq!(read_timestamp_fast(c, c.len()), slow, "{c:02x?}");
            for pad in [16, 22] {
                let mut padded = c.clone();
                padded.extend_from_slice(&vec![0x8F; pad]);
                assert_eq!(read_timestamp_fast(&padded, c.len()), slow, "{c:02x?}");
            }
        }
    }

    proptest::proptest! {
        /// Any bytes, read as a cell of any length with anything after it: the fast reader
        /// (whatever bytes follow the cell) agrees with the cursor reader.
        #[test]
        fn fast_timestamp_agrees_on_any_bytes(
            seconds: i64,
            nanos in 0u32..1_000_000_000,
            noise in proptest::collection::vec(proptest::num::u8::ANY, 0..30),
            cut in 0usize..30,
            flip in 0usize..30,
        ) {
            let mut c = Vec::new();
            write_timestamp(&mut c, seconds >> (seconds & 31), nanos);
            if flip < c.len() {
                c[flip] ^= noise.first().copied().unwrap_or(0x80);
            }
            let len = cut.min(c.len());
            c.extend_from_slice(&noise);
            let slow = read_timestamp(&mut Cursor::new(&c[..len], 0)).ok();
            proptest::prop_assert_eq!(read_timestamp_fast(&c, len), slow);
        }
    }

    #[test]
    fn offsets() {
        assert_eq!(parse_offset("+05:30"), Some(19_800));
        assert_eq!(parse_offset("-0800"), Some(-28_800));
        assert_eq!(parse_offset("+01:02:03"), Some(3723));
        assert_eq!(parse_offset("+010203"), Some(3723));
        for bad in [
            "+",
            "+5:",
            "+05:60",
            "+19",
            "05",
            "+1a",
            "+05:30:00:00",
            "+123",
        ] {
            assert_eq!(parse_offset(bad), None, "{bad}");
        }
        assert_eq!(TimeZone::parse("UTC+01:00").unwrap(), TimeZone::Fixed(3600));
        assert_eq!(TimeZone::Fixed(-3723).to_string(), "-01:02:03");
        assert!(TimeZone::parse("../etc/passwd").is_err());
        assert!(TimeZone::parse("/etc/passwd").is_err());
        assert!(TimeZone::parse("No/Such_Zone").is_err());
    }

    #[test]
    fn fixed_zone_conversion() {
        let z = TimeZone::Fixed(-3600);
        assert_eq!(z.utc_to_local(3600), 0);
        assert_eq!(z.local_to_utc(0), 3600);
        assert_eq!(z.utc_to_local(i64::MIN), i64::MIN);
    }
}
