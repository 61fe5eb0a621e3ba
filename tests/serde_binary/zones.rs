//! Timestamps in named time zones (Hive 2's `java.sql.Timestamp` rules) and the calendar
//! options.

use super::*;

#[test]
fn named_zone_timestamps() {
    let Ok(ny) = TimeZone::parse("America/New_York") else {
        eprintln!("no tz database; skipping");
        return;
    };
    let s = BinarySerde::new(BinaryOptions::default().with_timestamp_zone(ny.clone()));
    let ty = HiveType::Timestamp;
    // Hive 2 in New York: the stored seconds are the UTC instant.
    let mut out = Vec::new();
    s.encode(&ty, &ts("2021-07-01 00:00:00"), &mut out).unwrap();
    let utc = BinarySerde::default().decode(&ty, &out).unwrap();
    assert_eq!(utc, ts("2021-07-01 04:00:00"));
    assert_eq!(s.decode(&ty, &out).unwrap(), ts("2021-07-01 00:00:00"));
    // Winter: five hours.
    let mut out = Vec::new();
    s.encode(&ty, &ts("2021-01-15 12:00:00.5"), &mut out)
        .unwrap();
    assert_eq!(
        BinarySerde::default().decode(&ty, &out).unwrap(),
        ts("2021-01-15 17:00:00.5")
    );
    // A wall time in the spring-forward gap moves forward by the gap.
    let mut out = Vec::new();
    s.encode(&ty, &ts("2021-03-14 02:30:00"), &mut out).unwrap();
    assert_eq!(s.decode(&ty, &out).unwrap(), ts("2021-03-14 03:30:00"));
    // The repeated hour takes the earlier (daylight) offset.
    let mut out = Vec::new();
    s.encode(&ty, &ts("2021-11-07 01:30:00"), &mut out).unwrap();
    assert_eq!(
        BinarySerde::default().decode(&ty, &out).unwrap(),
        ts("2021-11-07 05:30:00")
    );
    // Before 1883 New York used local mean time (-4:56:02).
    assert_eq!(ny.offset_at(-3_000_000_000), -17_762);
    // Far future: the footer rule.
    let y2100 = Timestamp::from_parts(Date::from_ymd(2100, 7, 1).unwrap(), 0, 0, 0, 0).unwrap();
    assert_eq!(ny.offset_at(y2100.seconds), -4 * 3600);
    assert_eq!(ny.to_string(), "America/New_York");
}

/// `java.sql.Timestamp` in a JVM whose default zone is the named one (Java 17): wall clock →
/// `valueOf(..).getTime()` seconds, as Hive 2.x writes. Covers overlaps (the later instant),
/// gaps (moved forward), the standard offset before 1900 (not local mean time), the hybrid
/// calendar (1582-10-10 is read as 10-20), the date line (Apia) and the footer rule.
const JAVA_VALUE_OF: &[(&str, &str, i64)] = &[
    ("America/New_York", "2021-11-07 01:30:00", 1_636_266_600),
    ("America/New_York", "2021-03-14 02:30:00", 1_615_707_000),
    ("America/New_York", "1850-06-01 12:00:00", -3_773_718_000),
    ("Australia/Sydney", "2021-04-04 02:30:00", 1_617_467_400),
    ("Australia/Sydney", "2021-10-03 02:30:00", 1_633_192_200),
    ("Asia/Kolkata", "1899-12-31 23:45:00", -2_209_009_500),
    ("Asia/Kolkata", "1900-01-01 00:30:00", -2_209_006_800),
    ("Europe/Dublin", "1850-01-01 00:00:00", -3_786_825_600),
    ("Europe/London", "1582-10-10 12:00:00", -12_218_817_600),
    ("Pacific/Apia", "2011-12-30 12:00:00", 1_325_282_400),
    ("America/Santiago", "2040-04-08 00:30:00", 2_217_472_200),
];

/// Seconds → `new java.sql.Timestamp(ms).toString()` (Java 17), as Hive 2.x reads: the
/// standard offset before 1900, the tz database (local mean time where still in use) after.
const JAVA_TO_STRING: &[(&str, i64, &str)] = &[
    ("Asia/Kolkata", -2_208_988_801, "1900-01-01 05:29:59"),
    ("Asia/Kolkata", -2_208_988_800, "1900-01-01 05:21:10"),
    ("Pacific/Apia", -5_000_000_000, "1811-07-24 04:06:40"),
    ("Asia/Shanghai", -1_400_000_000, "1925-08-21 15:06:40"),
    ("Europe/Moscow", -1_500_000_000, "1922-06-21 00:20:00"),
    ("America/New_York", -30_000_000_000, "1019-04-28 13:40:00"),
    ("America/New_York", 4_129_252_200, "2100-11-07 01:30:00"),
];

#[test]
fn hive2_zone_rules_match_java_sql_timestamp() {
    let ty = HiveType::Timestamp;
    let hive2 = |zone: &str| {
        TimeZone::parse(zone)
            .ok()
            .map(|z| BinarySerde::new(BinaryOptions::hive2(z)))
    };
    let raw = |seconds| Value::Timestamp(Timestamp { seconds, nanos: 0 });
    for &(zone, wall, seconds) in JAVA_VALUE_OF {
        let Some(s) = hive2(zone) else { continue };
        let mut cell = Vec::new();
        s.encode(&ty, &ts(wall), &mut cell).unwrap();
        assert_eq!(
            BinarySerde::default().decode(&ty, &cell).unwrap(),
            raw(seconds),
            "{zone} {wall}"
        );
    }
    for &(zone, seconds, wall) in JAVA_TO_STRING {
        let Some(s) = hive2(zone) else { continue };
        let mut cell = Vec::new();
        BinarySerde::default()
            .encode(&ty, &raw(seconds), &mut cell)
            .unwrap();
        assert_eq!(s.decode(&ty, &cell).unwrap(), ts(wall), "{zone} {seconds}");
    }
}

#[test]
fn calendar_options() {
    // 1000-01-01 is stored as day -354280 by Hive 2 (hybrid), -354285 by Hive 3 (proleptic).
    let d = Value::Date(Date::from_ymd(1000, 1, 1).unwrap());
    let mut hybrid = Vec::new();
    hive23().encode(&HiveType::Date, &d, &mut hybrid).unwrap();
    let mut prol = Vec::new();
    BinarySerde::default()
        .encode(&HiveType::Date, &d, &mut prol)
        .unwrap();
    assert_ne!(hybrid, prol);
    assert_eq!(hive23().decode(&HiveType::Date, &hybrid).unwrap(), d);
    assert_eq!(
        BinarySerde::default()
            .decode(&HiveType::Date, &prol)
            .unwrap(),
        d
    );
    assert_eq!(hive23().options().calendar, Calendar::Hybrid);
    let o = BinaryOptions::hive2(TimeZone::Fixed(3600));
    assert_eq!(
        (o.calendar, o.timestamp_zone),
        (Calendar::Hybrid, TimeZone::Fixed(3600))
    );
}
