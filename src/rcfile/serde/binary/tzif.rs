//! A small, bounded, panic-free reader for TZif time-zone files (RFC 8536, versions 1–4) as
//! found in the system tz database (`/usr/share/zoneinfo`), with the POSIX `TZ` rule of the
//! version 2+ footer for instants after the last listed transition.
//!
//! [`ZoneRules`] answers the two questions binary timestamps need, the UTC offset at an
//! instant and the instant of a wall-clock time, in two flavours:
//!
//! - `java.time`'s ([`ZoneRules::offset_at`], [`ZoneRules::local_to_utc`]): the whole tz
//!   history (local mean time before the first transition); a wall time that occurs twice
//!   takes the earlier offset, one in a gap moves forward by the gap;
//! - `java.util.TimeZone`'s, behind `java.sql.Timestamp` and so Hive ≤ 2.x
//!   ([`ZoneRules::legacy_offset_at`], [`ZoneRules::legacy_local_to_utc`]): the zone's
//!   standard offset before 1900-01-01T00:00Z, and a repeated wall time takes the offset after
//!   the transition (the later instant). Checked against Java 17 for 16 zones.
//!
//! Leap-second records (the `right/` zones) are skipped: offsets are POSIX seconds.

use crate::rcfile::value::{civil_from_days, days_from_civil};
use crate::{Error, Result};

/// Largest TZif file accepted (real ones are below 100 KiB).
pub const MAX_TZIF_BYTES: usize = 1 << 20;

/// Offsets are within ±26 hours (RFC 8536 allows −2^31 < utoff, but real zones stay below
/// ±25:59:59 as POSIX `TZ` strings do); wall-clock searches look this far either side.
const SEARCH_WINDOW: i64 = 26 * 3600;

/// `java.util.TimeZone` knows transitions from 1900-01-01T00:00Z on.
pub const JAVA_UTIL_TABLE_START: i64 = -2_208_988_800;

/// Footer-rule transitions are listed in the table from the last one in the file (or from
/// 1900 when the file lists none) to 2200.
const PRECOMPUTED_FROM: i64 = -2_208_988_800;
const PRECOMPUTED_UNTIL: i64 = 7_258_118_400;

/// Years outside this range use the standard offset of the footer rule.
const RULE_YEAR_LIMIT: i64 = 1_000_000_000;

/// The rules of one named zone: transitions from a TZif file plus its footer rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneRules {
    name: String,
    /// Transition instants (UTC seconds), strictly ascending.
    times: Vec<i64>,
    /// Offset (seconds east of UTC) in effect from `times[i]` on.
    offsets: Vec<i32>,
    /// Offset before the first transition (time type 0).
    initial: i32,
    /// The zone's current standard offset: what `java.util.TimeZone` applies before 1900.
    raw: i32,
    /// The footer rule, used after the last transition.
    rule: Option<PosixRule>,
}

fn bad(name: &str, msg: impl std::fmt::Display) -> Error {
    Error::corrupt("tzif", format!("time zone file {name:?}: {msg}"))
}

/// A bounded big-endian reader over the TZif bytes.
struct Bytes<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        let s = self.take(4)?;
        Some(u32::from_be_bytes(s.try_into().ok()?))
    }
}

struct Header {
    version: u8,
    isutcnt: usize,
    isstdcnt: usize,
    leapcnt: usize,
    timecnt: usize,
    typecnt: usize,
    charcnt: usize,
}

fn header(b: &mut Bytes<'_>) -> Option<Header> {
    let magic = b.take(4)?;
    if magic != b"TZif" {
        return None;
    }
    let version = *b.take(16)?.first()?;
    let mut c = [0usize; 6];
    for x in &mut c {
        *x = b.u32()? as usize;
    }
    Some(Header {
        version,
        isutcnt: c[0],
        isstdcnt: c[1],
        leapcnt: c[2],
        timecnt: c[3],
        typecnt: c[4],
        charcnt: c[5],
    })
}

/// Reads one data block (`time_size` = 4 for v1, 8 for v2+).
fn data_block(name: &str, b: &mut Bytes<'_>, h: &Header, time_size: usize) -> Result<Block> {
    let trunc = || bad(name, "truncated data block");
    // Every count is checked against the bytes that remain before anything is allocated.
    let need = h
        .timecnt
        .checked_mul(time_size + 1)
        .and_then(|n| n.checked_add(h.typecnt.checked_mul(6)?))
        .and_then(|n| n.checked_add(h.charcnt))
        .and_then(|n| n.checked_add(h.leapcnt.checked_mul(time_size + 4)?))
        .and_then(|n| n.checked_add(h.isstdcnt))
        .and_then(|n| n.checked_add(h.isutcnt))
        .ok_or_else(trunc)?;
    if need > b.buf.len().saturating_sub(b.pos) {
        return Err(trunc());
    }
    if h.typecnt == 0 || h.typecnt > 256 {
        return Err(bad(name, format!("{} local time types", h.typecnt)));
    }
    let raw_times = b.take(h.timecnt * time_size).ok_or_else(trunc)?;
    let idx = b.take(h.timecnt).ok_or_else(trunc)?;
    let types = b.take(h.typecnt * 6).ok_or_else(trunc)?;
    b.take(h.charcnt + h.leapcnt * (time_size + 4) + h.isstdcnt + h.isutcnt)
        .ok_or_else(trunc)?;

    let utoffs: Vec<i32> = types
        .chunks_exact(6)
        // Each 6-byte entry starts with its 4-byte offset, so none is skipped.
        .filter_map(|t| t.first_chunk().copied().map(i32::from_be_bytes))
        .collect();
    if utoffs.iter().any(|&o| i64::from(o).abs() > 7 * 24 * 3600) {
        return Err(bad(name, "UTC offset out of range"));
    }
    let mut times = Vec::with_capacity(h.timecnt);
    for t in raw_times.chunks_exact(time_size) {
        let v = match *t {
            [a, b2, c, d] => i64::from(i32::from_be_bytes([a, b2, c, d])),
            [a, b2, c, d, e, f, g, hh] => i64::from_be_bytes([a, b2, c, d, e, f, g, hh]),
            _ => return Err(trunc()),
        };
        if times.last().is_some_and(|&p| p >= v) {
            return Err(bad(name, "transition times are not ascending"));
        }
        times.push(v);
    }
    let mut offsets = Vec::with_capacity(h.timecnt);
    for &i in idx {
        offsets.push(
            *utoffs
                .get(i as usize)
                .ok_or_else(|| bad(name, "bad time type index"))?,
        );
    }
    // The standard offset of the last transition to standard time (isdst = 0).
    let is_std = |i: u8| types.get(i as usize * 6 + 4) == Some(&0);
    let standard = idx
        .iter()
        .rev()
        .find(|&&i| is_std(i))
        .and_then(|&i| utoffs.get(i as usize))
        .copied();
    let initial = utoffs.first().copied().unwrap_or(0);
    Ok(Block {
        times,
        offsets,
        initial,
        standard: standard.unwrap_or(initial),
    })
}

/// What one TZif data block holds.
struct Block {
    times: Vec<i64>,
    offsets: Vec<i32>,
    initial: i32,
    standard: i32,
}

impl ZoneRules {
    /// Parses TZif bytes (versions 1 to 4). `name` is kept for display and error messages.
    ///
    /// ```
    /// use colfile::rcfile::serde::binary::tzif::ZoneRules;
    /// assert!(ZoneRules::from_tzif("bad", b"not a tzif file").is_err());
    /// ```
    pub fn from_tzif(name: &str, bytes: &[u8]) -> Result<ZoneRules> {
        if bytes.len() > MAX_TZIF_BYTES {
            return Err(Error::limit(
                "TZif file bytes",
                bytes.len() as u64,
                MAX_TZIF_BYTES as u64,
            ));
        }
        let mut b = Bytes { buf: bytes, pos: 0 };
        let h1 = header(&mut b).ok_or_else(|| bad(name, "not a TZif file"))?;
        let v1 = data_block(name, &mut b, &h1, 4)?;
        if h1.version < b'2' {
            return Ok(ZoneRules::new(name, v1, None));
        }
        let h2 = header(&mut b).ok_or_else(|| bad(name, "missing version 2 header"))?;
        let block = data_block(name, &mut b, &h2, 8)?;
        let footer = bytes.get(b.pos..).unwrap_or_default();
        let rule = match footer.strip_prefix(b"\n") {
            Some(rest) => {
                let end = rest
                    .iter()
                    .position(|&c| c == b'\n')
                    .ok_or_else(|| bad(name, "unterminated footer"))?;
                let tz = std::str::from_utf8(rest.get(..end).unwrap_or_default())
                    .map_err(|_| bad(name, "footer is not UTF-8"))?;
                if tz.is_empty() {
                    None
                } else {
                    Some(
                        PosixRule::parse(tz)
                            .ok_or_else(|| bad(name, format!("unsupported TZ rule {tz:?}")))?,
                    )
                }
            }
            None => None,
        };
        Ok(ZoneRules::new(name, block, rule))
    }

    fn new(name: &str, b: Block, rule: Option<PosixRule>) -> ZoneRules {
        // Java's raw offset is the standard one; with negative DST (Europe/Dublin's footer
        // calls winter time daylight) Java's rearguard data has the smaller one.
        let raw = match rule {
            Some(PosixRule {
                std,
                dst: Some((dst, ..)),
            }) => std.min(dst),
            Some(PosixRule { std, dst: None }) => std,
            None => b.standard,
        };
        let mut z = ZoneRules {
            name: name.to_string(),
            times: b.times,
            offsets: b.offsets,
            initial: b.initial,
            raw,
            rule,
        };
        z.extend_with_rule();
        z
    }

    /// Lists the footer rule's transitions up to [`PRECOMPUTED_UNTIL`], so that common
    /// instants are a binary search (the rule is still evaluated beyond).
    fn extend_with_rule(&mut self) {
        let Some(rule) = self.rule else { return };
        if rule.dst.is_none() {
            return;
        }
        let from = self.times.last().copied().unwrap_or(PRECOMPUTED_FROM);
        let mut buf = [(0i64, 0i32); RULE_BUF];
        let mut t = from;
        while t < PRECOMPUTED_UNTIL {
            // A window of about a year (the rule yields at least two transitions a year).
            let hi = t.saturating_add(300 * 86_400);
            let n = rule.transitions_near(t, hi, &mut buf);
            for &(at, off) in buf.iter().take(n) {
                let last_off = self.offsets.last().copied().unwrap_or(self.initial);
                let after_last = self.times.last().is_none_or(|&l| at > l);
                if at > t && at <= hi && after_last && off != last_off {
                    self.times.push(at);
                    self.offsets.push(off);
                }
            }
            t = hi;
        }
    }

    /// The zone's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Offset in seconds east of UTC at the instant `utc` (seconds since the epoch).
    pub fn offset_at(&self, utc: i64) -> i32 {
        let n = self.times.partition_point(|&t| t <= utc);
        if n == 0 {
            // A file that lists no transitions: its rule applies throughout.
            return match (&self.rule, self.times.is_empty()) {
                (Some(rule), true) => rule.offset_at(utc),
                _ => self.initial,
            };
        }
        match (&self.rule, n == self.times.len()) {
            (Some(rule), true) => rule.offset_at(utc),
            _ => self.offsets.get(n - 1).copied().unwrap_or(self.initial),
        }
    }

    /// Calls `f(instant, offset_after)` for each transition in `(lo, hi]`, in order, listed
    /// ones first and then those of the footer rule.
    fn for_each_transition(&self, lo: i64, hi: i64, mut f: impl FnMut(i64, i32)) {
        let start = self.times.partition_point(|&t| t <= lo);
        for (t, o) in self.times.iter().zip(&self.offsets).skip(start) {
            if *t > hi {
                return;
            }
            f(*t, *o);
        }
        let last = self.times.last().copied().unwrap_or(i64::MIN);
        if let Some(rule) = &self.rule {
            let mut buf = [(0i64, 0i32); RULE_BUF];
            let n = rule.transitions_near(lo, hi, &mut buf);
            for &(t, o) in buf.iter().take(n) {
                if t > lo && t <= hi && t > last {
                    f(t, o);
                }
            }
        }
    }

    /// The UTC instant of the wall-clock time `local` (seconds since the epoch as if UTC).
    /// In an overlap the earlier offset (the one before the transition) wins; in a gap the
    /// offset before the transition is used, which moves the time forward by the gap.
    pub fn local_to_utc(&self, local: i64) -> i64 {
        let lo = local.saturating_sub(SEARCH_WINDOW);
        let hi = local.saturating_add(SEARCH_WINDOW);
        // Segments of constant offset covering [lo, hi]: (start, offset); each ends where the
        // next starts.
        let mut segs = [(lo, self.offset_at(lo)); 1 + RULE_BUF * 2];
        let mut n = 1;
        self.for_each_transition(lo, hi, |t, o| {
            if let Some(slot) = segs.get_mut(n) {
                *slot = (t, o);
                n += 1;
            }
        });
        let segs: &[(i64, i32)] = segs.get(..n).unwrap_or(segs.as_slice());
        // A valid reading: the instant falls in the segment whose offset produced it.
        for (i, &(start, off)) in segs.iter().enumerate() {
            let end = segs.get(i + 1).map_or(i64::MAX, |s| s.0);
            let u = local.saturating_sub(i64::from(off));
            if u >= start && u < end {
                return u;
            }
        }
        // A gap: the transition that skipped `local`; use the offset before it.
        for w in segs.windows(2) {
            let &[(_, before), (t, after)] = w else {
                continue;
            };
            if after > before
                && local.saturating_sub(i64::from(before)) >= t
                && local.saturating_sub(i64::from(after)) < t
            {
                return local.saturating_sub(i64::from(before));
            }
        }
        // `segs` always holds the segment starting at `lo`.
        segs.first()
            .map_or(local, |&(_, off)| local.saturating_sub(i64::from(off)))
    }

    /// The offset `java.util.TimeZone` (and so `java.sql.Timestamp`, Hive ≤ 2.x) uses at the
    /// instant `utc`: the tz database from 1900-01-01T00:00Z on, the zone's current standard
    /// offset before (Java keeps no earlier history).
    pub fn legacy_offset_at(&self, utc: i64) -> i32 {
        if utc < JAVA_UTIL_TABLE_START {
            self.raw
        } else {
            self.offset_at(utc)
        }
    }

    /// The UTC instant `java.sql.Timestamp.valueOf` gives the wall-clock time `local`: the
    /// offset of the last transition whose new wall clock has started by `local`. So a time
    /// that occurs twice takes the offset after the transition (standard time after a
    /// daylight-saving end, the later instant), and a time in a gap takes the offset before
    /// it (moved forward by the gap).
    pub fn legacy_local_to_utc(&self, local: i64) -> i64 {
        let lo = local.saturating_sub(SEARCH_WINDOW);
        let hi = local.saturating_add(SEARCH_WINDOW);
        let mut off = self.legacy_offset_at(lo);
        let mut visit = |t: i64, o: i32| {
            if t.saturating_add(i64::from(o)) <= local {
                off = o;
            }
        };
        // Java's table starts with the offset in effect on 1900-01-01T00:00Z.
        if JAVA_UTIL_TABLE_START > lo && JAVA_UTIL_TABLE_START <= hi {
            visit(JAVA_UTIL_TABLE_START, self.offset_at(JAVA_UTIL_TABLE_START));
        }
        self.for_each_transition(lo, hi, |t, o| {
            if t > JAVA_UTIL_TABLE_START {
                visit(t, o)
            }
        });
        local.saturating_sub(i64::from(off))
    }
}

/// Capacity for footer-rule transitions generated around one instant (two per year, four
/// years).
const RULE_BUF: usize = 8;

/// When a rule transition happens: a day of the year and a local time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuleDay {
    /// `Jn`: day 1..=365, February 29 never counted.
    Julian1(u16),
    /// `n`: day 0..=365, February 29 counted in leap years.
    Julian0(u16),
    /// `Mm.w.d`: day `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
    MonthWeekDay(u8, u8, u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RuleDate {
    day: RuleDay,
    /// Seconds after local midnight (−167 h..=167 h in TZif v3).
    time: i32,
}

/// A POSIX `TZ` rule such as `EST5EDT,M3.2.0,M11.1.0` (offsets stored as seconds east).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PosixRule {
    std: i32,
    dst: Option<(i32, RuleDate, RuleDate)>,
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn num(&mut self, max: u32) -> Option<u32> {
        let start = self.i;
        let mut v: u32 = 0;
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            v = v.checked_mul(10)?.checked_add(u32::from(c - b'0'))?;
            self.i += 1;
        }
        (self.i > start && v <= max).then_some(v)
    }
    fn name(&mut self) -> Option<()> {
        if self.eat(b'<') {
            while self.peek()? != b'>' {
                self.i += 1;
            }
            self.i += 1;
            return Some(());
        }
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        (self.i - start >= 3).then_some(())
    }
    /// `[+-]hh[:mm[:ss]]` as signed seconds.
    fn hms(&mut self, max_hours: u32) -> Option<i32> {
        let neg = if self.eat(b'-') {
            true
        } else {
            self.eat(b'+');
            false
        };
        let h = self.num(max_hours)?;
        let mut secs = h * 3600;
        if self.eat(b':') {
            secs += self.num(59)? * 60;
            if self.eat(b':') {
                secs += self.num(59)?;
            }
        }
        let secs = secs as i32;
        Some(if neg { -secs } else { secs })
    }
    fn date(&mut self) -> Option<RuleDate> {
        let day = if self.eat(b'J') {
            RuleDay::Julian1(self.num(365).filter(|&n| n >= 1)? as u16)
        } else if self.eat(b'M') {
            let m = self.num(12).filter(|&m| m >= 1)?;
            if !self.eat(b'.') {
                return None;
            }
            let w = self.num(5).filter(|&w| w >= 1)?;
            if !self.eat(b'.') {
                return None;
            }
            let d = self.num(6)?;
            RuleDay::MonthWeekDay(m as u8, w as u8, d as u8)
        } else {
            RuleDay::Julian0(self.num(365)? as u16)
        };
        let time = if self.eat(b'/') { self.hms(167)? } else { 7200 };
        Some(RuleDate { day, time })
    }
}

impl PosixRule {
    fn parse(s: &str) -> Option<PosixRule> {
        let mut p = P {
            s: s.as_bytes(),
            i: 0,
        };
        p.name()?;
        // POSIX offsets are hours *west* of UTC.
        let std = -p.hms(24)?;
        if p.peek().is_none() {
            return Some(PosixRule { std, dst: None });
        }
        p.name()?;
        let dst_off = match p.peek() {
            Some(b',') | None => std + 3600,
            _ => -p.hms(24)?,
        };
        let (start, end) = if p.eat(b',') {
            let a = p.date()?;
            if !p.eat(b',') {
                return None;
            }
            (a, p.date()?)
        } else {
            // No rule given: the US rules, as glibc assumes.
            let us = |m, w| RuleDate {
                day: RuleDay::MonthWeekDay(m, w, 0),
                time: 7200,
            };
            (us(3, 2), us(11, 1))
        };
        if p.peek().is_some() {
            return None;
        }
        Some(PosixRule {
            std,
            dst: Some((dst_off, start, end)),
        })
    }

    /// Fills `out` with the transitions `(instant, offset after)` of the years around
    /// `[lo, hi]`, sorted; returns how many.
    fn transitions_near(&self, lo: i64, hi: i64, out: &mut [(i64, i32); RULE_BUF]) -> usize {
        let Some((dst, start, end)) = self.dst else {
            return 0;
        };
        let year_of =
            |t: i64| civil_from_days(t.saturating_add(i64::from(self.std)).div_euclid(86_400)).0;
        let (y0, y1) = (year_of(lo) - 1, year_of(hi) + 1);
        if y0 < -RULE_YEAR_LIMIT || y1 > RULE_YEAR_LIMIT {
            return 0;
        }
        let mut n = 0;
        for y in y0..=y1 {
            // DST starts at a standard-time wall clock and ends at a daylight one.
            for (date, before, after) in [(start, self.std, dst), (end, dst, self.std)] {
                if let Some(slot) = out.get_mut(n) {
                    *slot = (rule_local_seconds(y, date) - i64::from(before), after);
                    n += 1;
                }
            }
        }
        // A stable sort: at equal instants the later rule wins, as listed.
        if let Some(used) = out.get_mut(..n) {
            used.sort_by_key(|&(t, _)| t);
        }
        n
    }

    fn offset_at(&self, utc: i64) -> i32 {
        let mut buf = [(0i64, 0i32); RULE_BUF];
        let n = self.transitions_near(utc, utc, &mut buf);
        buf.iter()
            .take(n)
            .rev()
            .find(|(t, _)| *t <= utc)
            .map_or(self.std, |&(_, o)| o)
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Local seconds (as if UTC) of a rule date in year `y`.
fn rule_local_seconds(y: i64, date: RuleDate) -> i64 {
    let jan1 = days_from_civil(y, 1, 1);
    let day = match date.day {
        RuleDay::Julian1(n) => {
            let n = i64::from(n) - 1;
            jan1 + n + i64::from(is_leap(y) && n >= 59)
        }
        RuleDay::Julian0(n) => jan1 + i64::from(n),
        RuleDay::MonthWeekDay(m, w, d) => {
            let first = days_from_civil(y, u32::from(m), 1);
            let next = if m == 12 {
                days_from_civil(y + 1, 1, 1)
            } else {
                days_from_civil(y, u32::from(m) + 1, 1)
            };
            // 1970-01-01 was a Thursday (4).
            let wd_first = (first + 4).rem_euclid(7);
            let mut day = first + (i64::from(d) - wd_first).rem_euclid(7) + 7 * (i64::from(w) - 1);
            while day >= next {
                day -= 7;
            }
            day
        }
    };
    day * 86_400 + i64::from(date.time)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TZif v2 file built by hand: one transition at 1000 to offset +3600, footer rule.
    fn sample(footer: &str) -> Vec<u8> {
        let mut v = Vec::new();
        let head = |v: &mut Vec<u8>, timecnt: u32, typecnt: u32, charcnt: u32| {
            v.extend_from_slice(b"TZif2");
            v.extend_from_slice(&[0; 15]);
            for c in [0, 0, 0, timecnt, typecnt, charcnt] {
                v.extend_from_slice(&u32::to_be_bytes(c));
            }
        };
        head(&mut v, 1, 2, 4);
        v.extend_from_slice(&1000i32.to_be_bytes());
        v.push(1);
        v.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0x0e, 0x10, 1, 0]);
        v.extend_from_slice(b"AB\0\0");
        head(&mut v, 1, 2, 4);
        v.extend_from_slice(&1000i64.to_be_bytes());
        v.push(1);
        v.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0x0e, 0x10, 1, 0]);
        v.extend_from_slice(b"AB\0\0");
        v.push(b'\n');
        v.extend_from_slice(footer.as_bytes());
        v.push(b'\n');
        v
    }

    #[test]
    fn hand_made_file() {
        let z = ZoneRules::from_tzif("X", &sample("")).unwrap();
        assert_eq!(z.offset_at(999), 0);
        assert_eq!(z.offset_at(1000), 3600);
        assert_eq!(z.local_to_utc(5000), 1400);
        // Local 1000..4600 is a gap: shifted forward by an hour.
        assert_eq!(z.local_to_utc(2000), 2000);
        // Every truncation fails cleanly.
        let full = sample("EST5EDT,M3.2.0,M11.1.0");
        for n in 0..full.len() {
            let _ = ZoneRules::from_tzif("X", &full[..n]);
        }
    }

    #[test]
    fn posix_rules() {
        let r = PosixRule::parse("EST5EDT,M3.2.0,M11.1.0").unwrap();
        assert_eq!(r.std, -5 * 3600);
        // 2021-03-14 07:00 UTC = 02:00 EST, DST starts; 2021-11-07 06:00 UTC ends it.
        let start = days_from_civil(2021, 3, 14) * 86_400 + 7 * 3600;
        let end = days_from_civil(2021, 11, 7) * 86_400 + 6 * 3600;
        assert_eq!(r.offset_at(start - 1), -5 * 3600);
        assert_eq!(r.offset_at(start), -4 * 3600);
        assert_eq!(r.offset_at(end - 1), -4 * 3600);
        assert_eq!(r.offset_at(end), -5 * 3600);
        let south = PosixRule::parse("<-03>3<-02>,M10.1.0/0,M3.3.0/0").unwrap();
        assert_eq!(
            south.offset_at(days_from_civil(2030, 1, 1) * 86_400),
            -2 * 3600
        );
        assert_eq!(
            south.offset_at(days_from_civil(2030, 6, 1) * 86_400),
            -3 * 3600
        );
        assert_eq!(PosixRule::parse("<+0530>-5:30").unwrap().std, 19_800);
        let all_year = PosixRule::parse("EST5EDT,0/0,J365/25").unwrap();
        assert_eq!(
            all_year.offset_at(days_from_civil(2030, 7, 1) * 86_400),
            -4 * 3600
        );
        assert_eq!(
            all_year.offset_at(days_from_civil(2031, 1, 1) * 86_400 + 5 * 3600),
            -4 * 3600
        );
        for bad in [
            "",
            "E5",
            "EST",
            "EST5EDT,M3",
            "EST5EDT,M13.1.0,M1.1.0",
            "EST5x",
        ] {
            assert!(PosixRule::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(r.offset_at(i64::MAX), r.std);
        assert_eq!(r.offset_at(i64::MIN), r.std);
    }

    #[test]
    fn footer_rule_used_after_table() {
        let z = ZoneRules::from_tzif("X", &sample("EST5EDT,M3.2.0,M11.1.0")).unwrap();
        let summer = days_from_civil(2021, 7, 1) * 86_400;
        assert_eq!(z.offset_at(summer), -4 * 3600);
        assert_eq!(z.local_to_utc(summer), summer + 4 * 3600);
        // 2021-11-07 01:30 happens twice: the earlier (EDT) reading wins.
        let amb = days_from_civil(2021, 11, 7) * 86_400 + 5400;
        assert_eq!(z.local_to_utc(amb), amb + 4 * 3600);
        // 2021-03-14 02:30 does not exist: read with EST, i.e. 03:30 EDT.
        let gap = days_from_civil(2021, 3, 14) * 86_400 + 9000;
        assert_eq!(z.local_to_utc(gap), gap + 5 * 3600);
        assert_eq!(z.local_to_utc(i64::MAX), i64::MAX);
        let _ = z.local_to_utc(i64::MIN);
    }
}
