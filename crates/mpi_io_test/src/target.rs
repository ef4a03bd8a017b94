//! Target file names: `%r` becomes the world rank, `%h` the host name,
//! `%p` the process id. Any other character after `%`, or a `%` at the end,
//! is refused (there is no `%%`).

/// Expand `template` for one process.
pub fn expand(template: &str, rank: u32, host: &str, pid: u32) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 16);
    let mut chars = template.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('r') => out.push_str(&rank.to_string()),
            Some('h') => out.push_str(host),
            Some('p') => out.push_str(&pid.to_string()),
            Some(x) => return Err(format!("%{x} is not one of %r %h %p")),
            None => return Err("a trailing % is not one of %r %h %p".into()),
        }
    }
    Ok(out)
}

/// The default target when neither `-target` nor `-targets` is given.
pub const DEFAULT_TARGET: &str = "./test_file.out";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_rank_host_pid() {
        assert_eq!(
            expand("/s/f.%r.%h.%p", 3, "n1", 77).unwrap(),
            "/s/f.3.n1.77"
        );
        assert_eq!(expand("plain", 3, "n1", 77).unwrap(), "plain");
        assert!(expand("a%x", 0, "h", 1).unwrap_err().contains("%x"));
        assert!(expand("a%", 0, "h", 1).is_err());
        assert!(expand("a%%", 0, "h", 1).is_err());
    }
}
