//! Number, size and date formatting shared by the renderers.
//!
//! Every helper reproduces one of IOR 4.1's printf conventions so that the
//! text renderers can stay declarative: the table cell rule (left-justified
//! width 10, precision chosen by magnitude), the base-two "human readable"
//! size of the Options block, the file-system capacity line, and the
//! `ctime(3)`-style date ("Fri Nov 20 22:51:06 2026").
//!
//! Dates are rendered in the local time zone through `localtime_r(3)` (the
//! only `unsafe` here, at the FFI boundary); when the C library cannot
//! convert a time, UTC is used instead. With `TZ` unset glibc uses
//! /etc/localtime, and UTC when that is missing too.

use serde_json::Value;

pub const KIBIBYTE: f64 = 1024.0;
pub const MEBIBYTE_U64: u64 = 1 << 20;
pub const GIBIBYTE_U64: u64 = 1 << 30;
pub const TEBIBYTE_U64: u64 = 1 << 40;

/// One cell of IOR's result table: the value left-justified in width 10
/// followed by `append`. Six decimals below 1, two below 3600, none above;
/// a negative (or non-finite) value prints as a dash placeholder.
pub fn table_cell(value: f64, append: &str) -> String {
    if !value.is_finite() || value < 0.0 {
        return format!("   -      {append}");
    }
    let precision = if value < 1.0 {
        6
    } else if value < 3600.0 {
        2
    } else {
        0
    };
    format!("{value:<10.precision$}{append}")
}

/// A duration with an SI prefix and three significant digits: "850 ns",
/// "12.3 us", "4.56 ms", "1.20 s" (ASCII "us", for logs and parsers); a
/// non-finite or negative value prints as "-".
pub fn si_seconds(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "-".to_string();
    }
    let (v, unit) = if secs >= 1.0 || secs == 0.0 {
        (secs, "s")
    } else if secs >= 1e-3 {
        (secs * 1e3, "ms")
    } else if secs >= 1e-6 {
        (secs * 1e6, "us")
    } else {
        (secs * 1e9, "ns")
    };
    let precision = if v >= 100.0 || v == 0.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.precision$} {unit}")
}

/// IOR's base-two human-readable size: "4 MiB", "1.50 GiB", "262144 bytes".
/// Whole multiples of TiB/GiB/MiB print as integers, other values of at
/// least 1 MiB with two decimals in the largest unit not above them, and
/// anything below 1 MiB in bytes (there is no KiB step).
pub fn human_size(bytes: u64) -> String {
    for (unit, name) in [
        (TEBIBYTE_U64, "TiB"),
        (GIBIBYTE_U64, "GiB"),
        (MEBIBYTE_U64, "MiB"),
    ] {
        if bytes >= unit {
            // `is_multiple_of` needs Rust 1.87; the workspace supports 1.80.
            #[allow(clippy::manual_is_multiple_of)]
            return if bytes % unit == 0 {
                format!("{} {name}", bytes / unit)
            } else {
                format!("{:.2} {name}", bytes as f64 / unit as f64)
            };
        }
    }
    format!("{bytes} bytes")
}

/// File-system capacity as IOR shows it: "23.5 GiB", or TiB above 1024 GiB.
pub fn fs_capacity(bytes: u64) -> String {
    let gib = bytes as f64 / GIBIBYTE_U64 as f64;
    if gib > 1024.0 {
        format!("{:.1} TiB", bytes as f64 / TEBIBYTE_U64 as f64)
    } else {
        format!("{gib:.1} GiB")
    }
}

/// Inode count in units of 2^20, as IOR shows it: "2.9 Mi".
pub fn fs_inodes(count: u64) -> String {
    format!("{:.1} Mi", count as f64 / MEBIBYTE_U64 as f64)
}

/// A 0..1 fraction as IOR's "%2.1f%%" percentage ("0.0%", "83.2%").
pub fn percent(fraction: f64) -> String {
    let p = if fraction.is_finite() {
        fraction * 100.0
    } else {
        0.0
    };
    format!("{p:>2.1}%")
}

/// One "key : value" line of IOR's text blocks (key left-justified in 20).
pub fn key_val(key: &str, value: &str) -> String {
    format!("{key:<20}: {value}\n")
}

/// A parameter value as IOR's text blocks print it: strings bare, integers
/// as integers, booleans as 0/1, null as nothing.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.to_string()
            } else if let Some(u) = n.as_u64() {
                u.to_string()
            } else {
                let f = n.as_f64().unwrap_or(0.0);
                if f.fract() == 0.0 && f.abs() < 9.0e15 {
                    format!("{}", f as i64)
                } else {
                    f.to_string()
                }
            }
        }
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Broken-down civil time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CivilTime {
    pub year: i64,
    /// 0..=11
    pub month: usize,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// 0 = Sunday
    pub weekday: usize,
    /// Seconds east of UTC.
    pub utc_offset: i64,
}

impl CivilTime {
    /// `ctime(3)` layout without the trailing newline: the day of month is
    /// right-aligned in width 2 ("Fri Nov  6 09:05:01 2026").
    pub fn ctime(&self) -> String {
        format!(
            "{} {} {:>2} {:02}:{:02}:{:02} {}",
            WEEKDAYS[self.weekday % 7],
            MONTHS[self.month % 12],
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.year
        )
    }
}

/// Civil time in UTC of `epoch` seconds (fractions are truncated toward
/// minus infinity, like `time_t`).
pub fn utc_civil(epoch: f64) -> CivilTime {
    let secs = if epoch.is_finite() {
        epoch.floor() as i64
    } else {
        0
    };
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // Days-to-civil (proleptic Gregorian), after H. Hinnant's algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as usize;
    let year = yoe + era * 400 + i64::from(month <= 2);
    CivilTime {
        year,
        month: month - 1,
        day,
        hour: (sod / 3600) as u32,
        minute: (sod % 3600 / 60) as u32,
        second: (sod % 60) as u32,
        weekday: (days + 4).rem_euclid(7) as usize,
        utc_offset: 0,
    }
}

/// Civil time in the local time zone, or UTC when the conversion fails.
pub fn local_civil(epoch: f64) -> CivilTime {
    let secs = if epoch.is_finite() {
        epoch.floor() as i64
    } else {
        0
    };
    // time_t is 32 bits on some targets: out-of-range times fall back to UTC.
    #[allow(clippy::useless_conversion)]
    let t: libc::time_t = match secs.try_into() {
        Ok(t) => t,
        Err(_) => return utc_civil(epoch),
    };
    // SAFETY: `libc::tm` is a plain C struct of integers and (on glibc) one
    // `*const c_char`; the all-zero bit pattern is a valid value for it.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers refer to live, properly aligned locals for the
    // duration of the call; localtime_r is the re-entrant variant and writes
    // only into `tm`.
    let res = unsafe { libc::localtime_r(&t, &mut tm) };
    if res.is_null() {
        return utc_civil(epoch);
    }
    CivilTime {
        year: i64::from(tm.tm_year) + 1900,
        month: usize::try_from(tm.tm_mon).unwrap_or(0) % 12,
        day: u32::try_from(tm.tm_mday).unwrap_or(1),
        hour: u32::try_from(tm.tm_hour).unwrap_or(0),
        minute: u32::try_from(tm.tm_min).unwrap_or(0),
        second: u32::try_from(tm.tm_sec).unwrap_or(0),
        weekday: usize::try_from(tm.tm_wday).unwrap_or(0) % 7,
        // c_long: 32 bits on some targets.
        #[allow(clippy::useless_conversion)]
        utc_offset: i64::from(tm.tm_gmtoff),
    }
}

/// IOR's date string ("Fri Nov 20 22:51:06 2026") in local time.
pub fn ctime_local(epoch: f64) -> String {
    local_civil(epoch).ctime()
}

/// IOR's date string in UTC.
pub fn ctime_utc(epoch: f64) -> String {
    utc_civil(epoch).ctime()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_seconds_picks_the_prefix_and_three_digits() {
        assert_eq!(si_seconds(8.5e-7), "850 ns");
        assert_eq!(si_seconds(1.234e-5), "12.3 us");
        assert_eq!(si_seconds(0.004561), "4.56 ms");
        assert_eq!(si_seconds(1.2), "1.20 s");
        assert_eq!(si_seconds(250.0), "250 s");
        assert_eq!(si_seconds(0.0), "0 s");
        assert_eq!(si_seconds(f64::NAN), "-");
        assert_eq!(si_seconds(-1.0), "-");
    }

    #[test]
    fn table_cells_follow_the_magnitude_rule() {
        assert_eq!(table_cell(0.000354, " "), "0.000354   ");
        assert_eq!(table_cell(1024.0, " "), "1024.00    ");
        assert_eq!(table_cell(5620.04, " "), "5620       ");
        assert_eq!(table_cell(4096.0, " "), "4096       ");
        assert_eq!(table_cell(3599.999, " "), "3600.00    ");
        assert_eq!(table_cell(-1.0, " "), "   -       ");
        assert_eq!(table_cell(f64::NAN, "  "), "   -        ");
        assert_eq!(table_cell(1854476.0, " "), "1854476    ");
        assert_eq!(table_cell(12345678901.0, " "), "12345678901 ");
    }

    #[test]
    fn human_sizes_match_ior() {
        assert_eq!(human_size(1 << 20), "1 MiB");
        assert_eq!(human_size(4 << 20), "4 MiB");
        assert_eq!(human_size(1 << 30), "1 GiB");
        assert_eq!(human_size(2 << 30), "2 GiB");
        assert_eq!(human_size(262_144), "262144 bytes");
        assert_eq!(human_size(40_960), "40960 bytes");
        assert_eq!(human_size(3 << 19), "1.50 MiB");
        assert_eq!(human_size(3 << 40), "3 TiB");
        assert_eq!(human_size(0), "0 bytes");
    }

    #[test]
    fn fs_figures() {
        assert_eq!(fs_capacity(25_232_932_864), "23.5 GiB");
        assert_eq!(fs_capacity(0), "0.0 GiB");
        assert_eq!(fs_capacity(2 << 40), "2.0 TiB");
        assert_eq!(fs_inodes(3_040_870), "2.9 Mi");
        assert_eq!(percent(0.0), "0.0%");
        assert_eq!(percent(0.832), "83.2%");
    }

    #[test]
    fn utc_dates_render_like_ctime() {
        // `date -u -d @1795215066`
        assert_eq!(ctime_utc(1_795_215_066.9), "Fri Nov 20 22:51:06 2026");
        assert_eq!(ctime_utc(0.0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime_utc(951_782_400.0), "Tue Feb 29 00:00:00 2000");
        assert_eq!(ctime_utc(-1.0), "Wed Dec 31 23:59:59 1969");
    }

    #[test]
    fn local_date_is_utc_shifted_by_the_reported_offset() {
        let t = 1_795_215_066.0;
        let local = local_civil(t);
        assert_eq!(
            local.ctime(),
            utc_civil(t + local.utc_offset as f64).ctime()
        );
    }

    #[test]
    fn values_print_like_ior() {
        assert_eq!(value_text(&serde_json::json!(3)), "3");
        assert_eq!(value_text(&serde_json::json!(true)), "1");
        assert_eq!(value_text(&serde_json::json!("POSIX")), "POSIX");
        assert_eq!(value_text(&Value::Null), "");
        assert_eq!(value_text(&serde_json::json!(2.0)), "2");
        assert_eq!(value_text(&serde_json::json!(0.5)), "0.5");
    }
}

/// The stderr report of failed data verification, shared by the front ends:
/// `tool: label: N unit(s) failed data verification`, then one indented line
/// per detail.
pub fn verify_error_report(
    tool: &str,
    label: &str,
    count: u64,
    unit: &str,
    details: &[String],
) -> String {
    let mut s = format!("{tool}: {label}: {count} {unit}(s) failed data verification\n");
    for d in details {
        s.push_str(&format!("{tool}:   {d}\n"));
    }
    s
}

#[cfg(test)]
mod verify_report_tests {
    use super::verify_error_report;

    #[test]
    fn report_names_tool_operation_count_and_details() {
        let s = verify_error_report("ior", "read", 2, "transfer", &["f: offset 8".into()]);
        assert_eq!(
            s,
            "ior: read: 2 transfer(s) failed data verification\nior:   f: offset 8\n"
        );
    }
}
