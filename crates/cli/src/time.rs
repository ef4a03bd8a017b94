//! Dates without a date library: civil dates to and from seconds since the
//! epoch (UTC, proleptic Gregorian; H. Hinnant's days-from-civil algorithm),
//! the formats upstream logs print, and the `--since`/`--until` syntax.

/// Days since 1970-01-01 of a civil date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date (year, month, day) of a day number.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Seconds since the epoch of a UTC date and time; `None` when out of range.
pub fn epoch(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: f64) -> Option<f64> {
    if !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || !(0.0..61.0).contains(&s)
    {
        return None;
    }
    Some(days_from_civil(y, mo, d) as f64 * 86_400.0 + (h * 3600 + mi * 60) as f64 + s)
}

/// "2026-11-20 22:51:06" (UTC) for seconds since the epoch.
pub fn format_utc(t: f64) -> String {
    if !t.is_finite() {
        return "-".into();
    }
    let secs = t.floor() as i64;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let r = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        r / 3600,
        (r / 60) % 60,
        r % 60
    )
}

fn month(name: &str) -> Option<u32> {
    const M: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let n = name.get(..3)?.to_ascii_lowercase();
    M.iter().position(|m| *m == n).map(|i| i as u32 + 1)
}

fn hms(s: &str) -> Option<(u32, u32, f64)> {
    let mut it = s.split(':');
    let h = it.next()?.parse().ok()?;
    let m = it.next()?.parse().ok()?;
    let sec = it.next().map_or(Some(0.0), |x| x.parse().ok())?;
    Some((h, m, sec))
}

/// A ctime(3) date as IOR prints it, "Fri Nov 20 22:51:06 2026", taken as
/// UTC (logs do not say their time zone).
pub fn parse_ctime(s: &str) -> Option<f64> {
    let w: Vec<&str> = s.split_whitespace().collect();
    if w.len() < 5 {
        return None;
    }
    let (mo, d, (h, mi, sec), y) = (
        month(w[1])?,
        w[2].parse().ok()?,
        hms(w[3])?,
        w[4].parse().ok()?,
    );
    epoch(y, mo, d, h, mi, sec)
}

/// mdtest's "11/20/2026 22:51:40" (month/day/year), as UTC.
pub fn parse_mdtest_date(s: &str) -> Option<f64> {
    let mut w = s.split_whitespace();
    let date = w.next()?;
    let time = w.next()?;
    let mut p = date.split('/');
    let mo = p.next()?.parse().ok()?;
    let d = p.next()?.parse().ok()?;
    let y = p.next()?.parse().ok()?;
    let (h, mi, sec) = hms(time)?;
    epoch(y, mo, d, h, mi, sec)
}

/// Latest accepted time: 9999-12-31 23:59:59 UTC.
const MAX_EPOCH: f64 = 253_402_300_799.0;

/// `--since`/`--until`: "2026-11-20", "2026-11-20T22:51[:06]" or
/// "2026-11-20 22:51" (UTC; the date must exist), a number of seconds
/// since the epoch (0 to year 9999), or an age "7d" / "12h" / "30m" before
/// `now` (a leading '-', "-7d", means the same: 7 days ago).
pub fn parse_when(s: &str, now: f64) -> Result<f64, String> {
    let t = s.trim();
    let bad = || {
        format!("'{s}': expected YYYY-MM-DD[THH:MM[:SS]] (UTC), seconds since the epoch, or an age like 7d, 12h, 30m")
    };
    if let Some(unit) = t.chars().last().filter(|c| "dhm".contains(*c)) {
        let n = &t[..t.len() - 1];
        let n = n.strip_prefix('-').unwrap_or(n);
        if let Ok(n) = n.parse::<f64>() {
            let mult = match unit {
                'd' => 86_400.0,
                'h' => 3600.0,
                _ => 60.0,
            };
            let when = now - n * mult;
            if !n.is_finite() || !(0.0..=MAX_EPOCH).contains(&when) || n < 0.0 {
                return Err(format!(
                    "'{s}': the age reaches before 1970 or is not a number"
                ));
            }
            return Ok(when);
        }
    }
    if let Ok(v) = t.parse::<f64>() {
        if !(0.0..=MAX_EPOCH).contains(&v) {
            return Err(format!(
                "'{s}': seconds since the epoch must be from 0 to {MAX_EPOCH:.0} (year 9999)"
            ));
        }
        return Ok(v);
    }
    let (date, time) = match t.split_once(['T', ' ']) {
        Some((d, tm)) => (d, Some(tm)),
        None => (t, None),
    };
    let mut p = date.split('-');
    let y: i64 = p.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let mo: u32 = p.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let d: u32 = p.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let (h, mi, sec) = match time {
        Some(tm) => hms(tm.trim_end_matches('Z')).ok_or_else(bad)?,
        None => (0, 0, 0.0),
    };
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&mo) || days_in_month(y, mo) < d {
        return Err(format!(
            "'{s}': no such date (year 1970-9999, a real day of the month)"
        ));
    }
    epoch(y, mo, d, h, mi, sec).ok_or_else(bad)
}

/// Days of month `mo` (1-12) of year `y`.
fn days_in_month(y: i64, mo: u32) -> u32 {
    let next = if mo == 12 {
        days_from_civil(y + 1, 1, 1)
    } else {
        days_from_civil(y, mo + 1, 1)
    };
    (next - days_from_civil(y, mo, 1)) as u32
}

/// Seconds since the epoch, now.
pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for z in [-719_468i64, -1, 0, 1, 10_957, 20_000, 2_932_896] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn upstream_dates() {
        let t = parse_ctime("Fri Nov 20 22:51:06 2026").unwrap();
        assert_eq!(format_utc(t), "2026-11-20 22:51:06");
        let t = parse_ctime("Tue May 19 18:23:17 2015").unwrap();
        assert_eq!(format_utc(t), "2015-05-19 18:23:17");
        let t = parse_mdtest_date("05/18/2015 13:42:16").unwrap();
        assert_eq!(format_utc(t), "2015-05-18 13:42:16");
        assert!(parse_ctime("nonsense").is_none());
        assert!(parse_mdtest_date("13/40/2015 10:00:00").is_none());
    }

    #[test]
    fn since_and_until() {
        let now = 1_000_000.0;
        assert_eq!(parse_when("2d", now).unwrap(), now - 172_800.0);
        assert_eq!(parse_when("30m", now).unwrap(), now - 1800.0);
        assert_eq!(parse_when("1700000000", now).unwrap(), 1.7e9);
        assert_eq!(
            format_utc(parse_when("2026-11-20", now).unwrap()),
            "2026-11-20 00:00:00"
        );
        assert_eq!(
            format_utc(parse_when("2026-11-20T22:51", now).unwrap()),
            "2026-11-20 22:51:00"
        );
        assert!(parse_when("yesterday", now).is_err());
        assert!(parse_when("2026-13-01", now).is_err());
        // An age with a sign is still an age.
        assert_eq!(parse_when("-2d", now).unwrap(), now - 172_800.0);
        // Dates that do not exist, numbers out of any range.
        for bad in [
            "2026-02-30",
            "2025-02-29",
            "2026-04-31",
            "99999999999999999999",
            "-5",
            "1e300",
            "NaN",
            "99999999d",
        ] {
            let e = parse_when(bad, 1.8e9).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
        assert!(parse_when("2024-02-29", now).is_ok());
    }
}
