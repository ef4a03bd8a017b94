//! Value parsers for options: sizes, counts, numbers, booleans, packet
//! types; every error names the option and the value as written.

use super::*;

pub(super) fn nonempty<'a>(option: &str, v: &'a str) -> Result<&'a str, OptionError> {
    let t = v.trim();
    if t.is_empty() {
        Err(OptionError::invalid(option, v, "empty value"))
    } else {
        Ok(t)
    }
}

pub(super) fn parse_bytes(option: &str, v: &str) -> Result<u64, OptionError> {
    parse_size(v).map_err(|e| OptionError::from_size(option, v, e))
}

/// Counts (`-s`, `-i`) accept size suffixes as IOR does (`-s 1k` = 1024).
pub(super) fn parse_count(option: &str, v: &str) -> Result<u64, OptionError> {
    parse_bytes(option, v)
}

pub(super) fn parse_u64(option: &str, v: &str) -> Result<u64, OptionError> {
    let t = v.trim();
    if t.starts_with('-') && t.len() > 1 {
        return Err(OptionError::invalid(option, v, "must not be negative"));
    }
    t.parse::<u64>()
        .map_err(|_| OptionError::invalid(option, v, "expected a whole number"))
}

pub(super) fn parse_u8(option: &str, v: &str) -> Result<u8, OptionError> {
    let n = parse_u64(option, v)?;
    u8::try_from(n).map_err(|_| OptionError::invalid(option, v, "must be at most 255"))
}

pub(super) fn parse_i64(option: &str, v: &str) -> Result<i64, OptionError> {
    v.trim()
        .parse::<i64>()
        .map_err(|_| OptionError::invalid(option, v, "expected a whole number"))
}

pub(super) fn parse_seconds_f64(option: &str, v: &str) -> Result<f64, OptionError> {
    let x: f64 = v
        .trim()
        .parse()
        .map_err(|_| OptionError::invalid(option, v, "expected a number of seconds"))?;
    if !x.is_finite() || x < 0.0 {
        return Err(OptionError::invalid(
            option,
            v,
            "must be a finite, non-negative number of seconds",
        ));
    }
    Ok(x)
}

pub(super) fn parse_num_tasks(option: &str, v: &str) -> Result<i64, OptionError> {
    let n = parse_i64(option, v)?;
    match n {
        -1 | 0 => Ok(0),
        n if n < 0 => Err(OptionError::invalid(
            option,
            v,
            "must not be negative (0 or -1 mean all tasks)",
        )),
        n => Ok(n),
    }
}

/// `0/1`, `true/false`, `yes/no`, any case.
pub(super) fn parse_bool(option: &str, v: &str) -> Result<bool, OptionError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        _ => Err(OptionError::invalid(
            option,
            v,
            "expected 0 or 1 (or true/false, yes/no)",
        )),
    }
}

pub(super) fn parse_packet_type(option: &str, v: &str) -> Result<DataPacketType, OptionError> {
    DataPacketType::parse(v).ok_or_else(|| {
        OptionError::invalid(
            option,
            v,
            "expected offset, incompressible, timestamp or random (or o, i, t, r)",
        )
    })
}

pub(super) fn set_api(p: &mut IorParams, v: &str) -> Result<(), OptionError> {
    let t = v.trim();
    let kind = Api::from_name(t).ok_or_else(|| match registry::refusal(t) {
        Some(why) => OptionError::Invalid(why),
        None => OptionError::UnknownApi(t.to_string()),
    })?;
    p.api = t.to_string();
    p.api_kind = kind;
    Ok(())
}

pub(super) fn set_memory_per_node(
    p: &mut IorParams,
    option: &str,
    v: &str,
) -> Result<(), OptionError> {
    let m = parse_size_or_percent(v).map_err(|e| OptionError::from_size(option, v, e))?;
    p.memory_per_node = Some(m);
    p.memory_per_task = 0;
    Ok(())
}
