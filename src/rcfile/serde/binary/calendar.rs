//! Calendars for binary dates and timestamps.
//!
//! [`crate::rcfile::Date`] and [`crate::rcfile::Timestamp`] count days in the proleptic
//! Gregorian calendar. Hive 2.x and older wrote binary day and second counts through
//! `java.sql.Date`/`java.sql.Timestamp`, which use the *hybrid* calendar: Julian before
//! 1582-10-15, Gregorian from then on. The stored numbers are real day counts, but a
//! calendar date such as `1000-01-01` maps to a different count in each calendar. Rebasing
//! keeps the calendar fields (year, month, day) and changes the count, which is what Hive 3.1+
//! and Spark 3+ do when they read legacy files.
//!
//! ```
//! use colfile::rcfile::serde::binary::calendar::{hybrid_to_proleptic, proleptic_to_hybrid};
//! use colfile::rcfile::Date;
//! // Julian 0001-01-01 is two days before proleptic Gregorian 0001-01-01.
//! let proleptic = Date::from_ymd(1, 1, 1).unwrap().days() as i64;
//! assert_eq!(proleptic_to_hybrid(proleptic), -719_164);
//! assert_eq!(hybrid_to_proleptic(-719_164), proleptic);
//! // From the cutover on the two calendars agree.
//! assert_eq!(hybrid_to_proleptic(0), 0);
//! ```

use crate::rcfile::value::{civil_from_days, days_from_civil};

/// Which calendar the day numbers in a binary file follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Calendar {
    /// Proleptic Gregorian for all dates: Hive 3.1+, Spark 3+, Trino. The stored counts are
    /// used as they are.
    #[default]
    Proleptic,
    /// Julian before 1582-10-15, Gregorian after (`java.util.GregorianCalendar`): Hive 2.x and
    /// older. Day counts before the cutover are rebased so that the calendar fields survive.
    /// The binary serde then also applies `java.util.TimeZone`'s zone rules to timestamps
    /// (see [`TimeZone`](super::TimeZone)), as `java.sql.Timestamp` does.
    Hybrid,
}

/// Day number of 1582-10-15, the first Gregorian day of the hybrid calendar (identical in both
/// calendars from this day on).
pub const GREGORIAN_CUTOVER_DAY: i64 = -141_427;

/// Julian Day Number of 1970-01-01.
const JDN_EPOCH: i64 = 2_440_588;

/// Day number (days since 1970-01-01) of the Julian calendar date `y-m-d`. Out-of-range fields
/// roll over the way a lenient `GregorianCalendar` does (Julian 1500-02-30 = 1500-03-01).
pub fn julian_days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let a = (14 - m as i64).div_euclid(12);
    let yy = y + 4800 - a;
    let mm = m as i64 + 12 * a - 3;
    let jdn = d as i64 + (153 * mm + 2).div_euclid(5) + 365 * yy + yy.div_euclid(4) - 32_083;
    jdn - JDN_EPOCH
}

/// The Julian calendar (year, month, day) of a day number.
pub fn julian_civil_from_days(days: i64) -> (i64, u32, u32) {
    let c = days + JDN_EPOCH + 32_082;
    let d = (4 * c + 3).div_euclid(1461);
    let e = c - (1461 * d).div_euclid(4);
    let m = (5 * e + 2).div_euclid(153);
    let day = (e - (153 * m + 2).div_euclid(5) + 1) as u32;
    let month = (m + 3 - 12 * m.div_euclid(10)) as u32;
    let year = d - 4800 + m.div_euclid(10);
    (year, month, day)
}

/// Rebases a hybrid-calendar day count (as Hive 2.x stores it) to the proleptic Gregorian
/// count of the same calendar date. Identity from 1582-10-15 on. A Julian leap day that the
/// Gregorian calendar lacks (1500-02-29) becomes March 1st.
#[inline]
pub fn hybrid_to_proleptic(days: i64) -> i64 {
    relabel(days, julian_civil_from_days, days_from_civil)
}

/// Rebases a proleptic Gregorian day count to the hybrid-calendar count of the same calendar
/// date, as `java.sql.Date.valueOf` computes it. Identity from 1582-10-15 on; the ten dates
/// 1582-10-05..14 that the hybrid calendar skips are read as Julian dates, so they land ten
/// days later (1582-10-10 → 1582-10-20), as a lenient `GregorianCalendar` does.
#[inline]
pub fn proleptic_to_hybrid(days: i64) -> i64 {
    relabel(days, civil_from_days, julian_days_from_civil)
}

/// Before the cutover: the calendar fields of `days` in one calendar, counted in the other.
#[inline]
fn relabel(days: i64, fields: fn(i64) -> (i64, u32, u32), count: fn(i64, u32, u32) -> i64) -> i64 {
    if days >= GREGORIAN_CUTOVER_DAY {
        return days;
    }
    let (y, m, d) = fields(days);
    count(y, m, d)
}

impl std::str::FromStr for Calendar {
    type Err = crate::Error;
    /// `"proleptic"` (also `"gregorian"`) or `"hybrid"` (also `"julian"`), any case.
    fn from_str(s: &str) -> crate::Result<Calendar> {
        match s.trim().to_ascii_lowercase().as_str() {
            "proleptic" | "gregorian" => Ok(Calendar::Proleptic),
            "hybrid" | "julian" => Ok(Calendar::Hybrid),
            _ => Err(crate::Error::invalid(format!(
                "unknown calendar {s:?} (proleptic or hybrid)"
            ))),
        }
    }
}

impl Calendar {
    /// Stored day count → proleptic day count.
    #[inline]
    pub fn days_to_proleptic(self, days: i64) -> i64 {
        match self {
            Calendar::Proleptic => days,
            Calendar::Hybrid => hybrid_to_proleptic(days),
        }
    }
    /// Proleptic day count → stored day count.
    #[inline]
    pub fn days_from_proleptic(self, days: i64) -> i64 {
        match self {
            Calendar::Proleptic => days,
            Calendar::Hybrid => proleptic_to_hybrid(days),
        }
    }
    /// Stored local seconds → proleptic local seconds (only the date part is rebased).
    #[inline]
    pub fn seconds_to_proleptic(self, seconds: i64) -> i64 {
        self.rebase_seconds(seconds, Calendar::days_to_proleptic)
    }
    /// Proleptic local seconds → stored local seconds.
    #[inline]
    pub fn seconds_from_proleptic(self, seconds: i64) -> i64 {
        self.rebase_seconds(seconds, Calendar::days_from_proleptic)
    }
    fn rebase_seconds(self, seconds: i64, f: fn(Calendar, i64) -> i64) -> i64 {
        if self == Calendar::Proleptic || seconds >= GREGORIAN_CUTOVER_DAY * 86_400 {
            return seconds;
        }
        let days = seconds.div_euclid(86_400);
        let sod = seconds.rem_euclid(86_400);
        f(self, days).saturating_mul(86_400).saturating_add(sod)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn julian_round_trip() {
        for z in (-3_000_000..100_000).step_by(331) {
            let (y, m, d) = julian_civil_from_days(z);
            assert_eq!(julian_days_from_civil(y, m, d), z, "{z} {y}-{m}-{d}");
        }
    }

    #[test]
    fn known_days() {
        // Julian 1582-10-04 is the day before Gregorian 1582-10-15.
        assert_eq!(
            julian_days_from_civil(1582, 10, 4),
            GREGORIAN_CUTOVER_DAY - 1
        );
        assert_eq!(days_from_civil(1582, 10, 15), GREGORIAN_CUTOVER_DAY);
        // From calendar_hybrid_binary: the days Hive 2.3 stored for these dates.
        let cases = [
            ((1, 1, 1), -719_164),
            ((100, 3, 1), -682_945),
            ((1000, 1, 1), -354_280),
            ((1582, 10, 4), -141_428),
            ((1582, 10, 15), -141_427),
            ((1582, 10, 20), -141_422),
            ((1600, 2, 29), -135_081),
            ((1752, 9, 14), -79_366),
            ((1899, 12, 31), -25_568),
        ];
        for ((y, m, d), stored) in cases {
            let p = days_from_civil(y, m, d);
            assert_eq!(proleptic_to_hybrid(p), stored, "{y}-{m}-{d}");
            assert_eq!(hybrid_to_proleptic(stored), p, "{y}-{m}-{d}");
        }
        // The skipped dates land ten days later.
        assert_eq!(
            proleptic_to_hybrid(days_from_civil(1582, 10, 10)),
            days_from_civil(1582, 10, 20)
        );
        // A Julian-only leap day becomes March 1st.
        assert_eq!(
            hybrid_to_proleptic(julian_days_from_civil(1500, 2, 29)),
            days_from_civil(1500, 3, 1)
        );
    }

    #[test]
    fn seconds() {
        let c = Calendar::Hybrid;
        let s = days_from_civil(1000, 1, 1) * 86_400 + 43_200;
        assert_eq!(c.seconds_to_proleptic(c.seconds_from_proleptic(s)), s);
        assert_eq!(c.seconds_from_proleptic(s), -354_280 * 86_400 + 43_200);
        assert_eq!(Calendar::Proleptic.seconds_from_proleptic(s), s);
        // Extremes saturate instead of overflowing.
        assert!(c.seconds_from_proleptic(i64::MIN) < 0);
        assert!(c.seconds_to_proleptic(i64::MIN) < 0);
    }

    #[test]
    fn names() {
        assert_eq!("Hybrid".parse::<Calendar>().unwrap(), Calendar::Hybrid);
        assert_eq!(
            "proleptic".parse::<Calendar>().unwrap(),
            Calendar::Proleptic
        );
        assert!("lunar".parse::<Calendar>().is_err());
    }
}
