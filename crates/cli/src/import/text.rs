//! Reading upstream logs: line prefixes added by launchers, `key : value`
//! lines, sizes as IOR prints them, shell-quoted command lines, and the
//! content-derived run ids that make imports idempotent.

/// The line without a launcher's rank prefix: `srun -l`'s `0: ` / `0000: `
/// (any run of digits and a colon) and Open MPI's `[1,0]<stdout>:`.
pub fn strip_prefix(line: &str) -> &str {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix('[') {
        if let Some(end) = rest.find(">:") {
            let tag = &rest[..end];
            if tag.contains("]<") && tag.starts_with(|c: char| c.is_ascii_digit()) {
                let after = &rest[end + 2..];
                return after.strip_prefix(' ').unwrap_or(after);
            }
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=6).contains(&digits) && t.as_bytes().get(digits) == Some(&b':') {
        let after = &t[digits + 1..];
        // "12:30" would be a time, not a prefix: a prefix is followed by a
        // space or the end of the line.
        if after.is_empty() || after.starts_with([' ', '\t']) {
            return after.strip_prefix(' ').unwrap_or(after);
        }
    }
    line
}

/// The text's lines, prefixes stripped, carriage returns removed.
pub fn clean_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| strip_prefix(l.trim_end_matches('\r')).to_string())
        .collect()
}

/// `key : value` (IOR 3.2+ and 4: `%-20s: %s`; IOR 3.0: `Began: ...`).
pub fn kv_colon(line: &str) -> Option<(&str, &str)> {
    let (k, v) = line.split_once(':')?;
    let k = k.trim();
    if k.is_empty() || k.len() > 48 {
        return None;
    }
    Some((k, v.trim()))
}

/// IOR 3.0's `key = value` lines of its "Summary:" block.
pub fn kv_equals(line: &str) -> Option<(&str, &str)> {
    let (k, v) = line.split_once('=')?;
    let k = k.trim();
    if k.is_empty() || k.len() > 48 {
        return None;
    }
    Some((k, v.trim()))
}

/// A size as IOR prints it: "262144 bytes", "1 MiB", "4 GiB", "2.50 MiB",
/// "1048576", or with a decimal unit ("1 MB").
pub fn parse_size(s: &str) -> Option<u64> {
    let mut w = s.split_whitespace();
    let num: f64 = w.next()?.parse().ok()?;
    let unit = w.next().unwrap_or("bytes").to_ascii_lowercase();
    let mult: f64 = match unit.as_str() {
        "b" | "byte" | "bytes" => 1.0,
        "kib" => 1024.0,
        "mib" => 1048576.0,
        "gib" => 1073741824.0,
        "tib" => 1099511627776.0,
        "pib" => 1125899906842624.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => return None,
    };
    let v = (num * mult).round();
    (0.0..1.8e19).contains(&v).then_some(v as u64)
}

/// Split a command line as a POSIX shell would (quotes and backslashes; no
/// expansions). mdtest 4 prints each argument single-quoted.
pub fn shell_split(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                in_word = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                cur.push(e);
                            }
                        }
                        d => cur.push(d),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(e) = chars.next() {
                    cur.push(e);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// FNV-1a (64 bits) of `bytes` from the offset basis `basis`.
fn fnv1a(basis: u64, bytes: &[u8]) -> u64 {
    let mut h = basis;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The run id of an imported run: `imp-` and 32 hex digits computed from
/// the format and the text of the run (two FNV-1a hashes), so importing the
/// same output twice gives the same id, and the database keeps it once.
pub fn content_id(format: &str, text: &str) -> String {
    let mut data = Vec::with_capacity(format.len() + 1 + text.len());
    data.extend_from_slice(format.as_bytes());
    data.push(0);
    data.extend_from_slice(text.as_bytes());
    format!(
        "imp-{:016x}{:016x}",
        fnv1a(0xcbf2_9ce4_8422_2325, &data),
        fnv1a(0x8422_2325_cbf2_9ce4, &data)
    )
}

/// The first number in `s` ("1600 (16 per node)" → 1600).
pub fn leading_u64(s: &str) -> Option<u64> {
    let d: String = s
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    d.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launcher_prefixes_are_stripped() {
        assert_eq!(strip_prefix("0000: IOR-3.0.0: MPI"), "IOR-3.0.0: MPI");
        assert_eq!(
            strip_prefix("00: SUMMARY: (of 5 iterations)"),
            "SUMMARY: (of 5 iterations)"
        );
        assert_eq!(
            strip_prefix("0:    Directory creation"),
            "   Directory creation"
        );
        assert_eq!(strip_prefix("0000:"), "");
        assert_eq!(strip_prefix("[1,0]<stdout>: write 10 20"), "write 10 20");
        assert_eq!(
            strip_prefix("12:30:05 not a prefix"),
            "12:30:05 not a prefix"
        );
        assert_eq!(strip_prefix("write     5620"), "write     5620");
        assert_eq!(strip_prefix("Began: Tue May"), "Began: Tue May");
    }

    #[test]
    fn sizes_and_words() {
        assert_eq!(parse_size("262144 bytes"), Some(262144));
        assert_eq!(parse_size("1 MiB"), Some(1 << 20));
        assert_eq!(parse_size("4 GiB"), Some(4 << 30));
        assert_eq!(parse_size("2.50 MiB"), Some(2_621_440));
        assert_eq!(parse_size("1048576"), Some(1 << 20));
        assert_eq!(parse_size("6400 GiB"), Some(6400 << 30));
        assert_eq!(parse_size("a lot"), None);
        assert_eq!(
            shell_split("mdtest '-d' '/scratch/md a' -n 5 \"x y\" a\\ b"),
            ["mdtest", "-d", "/scratch/md a", "-n", "5", "x y", "a b"]
        );
        assert_eq!(
            kv_colon("Began               : Fri Nov 20 22:51:06 2026"),
            Some(("Began", "Fri Nov 20 22:51:06 2026"))
        );
        assert_eq!(
            kv_equals("ordering inter file= no tasks offsets"),
            Some(("ordering inter file", "no tasks offsets"))
        );
        assert_eq!(leading_u64("1600 (16 per node)"), Some(1600));
    }

    #[test]
    fn ids_depend_on_content_only() {
        let a = content_id("ior-text", "x");
        assert_eq!(a, content_id("ior-text", "x"));
        assert_ne!(a, content_id("ior-text", "y"));
        assert_ne!(a, content_id("ior-json", "x"));
        assert_eq!(a.len(), 4 + 32);
        assert!(pario_store::check_run_id(&a).is_ok());
    }
}
