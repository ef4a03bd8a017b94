//! The harness's INI line rules, shared by the config reader and by
//! `--verify`'s reading of result.txt.
//!
//! A line is a section header `[name]` (letters, digits, `_`, `-`), a
//! pair `key = value` (key: letters, digits, `_`, `.`, `-`), or a blank or
//! comment line (`#` or `;` first). A comment may follow a header or a value
//! only after white space; the value ends at the first `#` or `;` and loses
//! its surrounding white space. Anything else is "unexpected content".

/// What one line of an INI file is.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    Section(&'a str),
    /// A pair whose value may be empty (the harness ignores those).
    Pair(&'a str, &'a str),
    Blank,
    Other,
}

/// POSIX `[[:space:]]`.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

fn skip_space(s: &str) -> &str {
    s.trim_start_matches(is_space)
}

/// The longest prefix of `s` made of `ok` characters, and the rest.
fn take_while(s: &str, ok: impl Fn(char) -> bool) -> (&str, &str) {
    let end = s.find(|c| !ok(c)).unwrap_or(s.len());
    s.split_at(end)
}

/// Whether what follows a header or a value is acceptable: white space
/// only, or white space then a comment that starts after a space.
fn tail_ok(rest: &str) -> bool {
    let body = skip_space(rest);
    body.is_empty() || (body.len() < rest.len() && body.starts_with(['#', ';']))
}

fn section(line: &str) -> Option<&str> {
    let s = skip_space(line).strip_prefix('[')?;
    let (name, rest) = take_while(skip_space(s), |c| {
        c.is_ascii_alphanumeric() || c == '_' || c == '-'
    });
    let rest = skip_space(rest).strip_prefix(']')?;
    (!name.is_empty() && tail_ok(rest)).then_some(name)
}

fn pair(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = take_while(skip_space(line), |c| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
    });
    let rest = skip_space(rest).strip_prefix('=')?;
    if key.is_empty() {
        return None;
    }
    let value = match rest.find(['#', ';']) {
        None => rest,
        Some(p) => {
            if !rest[..p].ends_with(is_space) {
                return None;
            }
            &rest[..p]
        }
    };
    let value = skip_space(value).trim_end_matches([' ', '\t', '\r']);
    Some((key, value))
}

/// Classifies one line (without its newline).
pub fn classify(line: &str) -> Line<'_> {
    if let Some(name) = section(line) {
        return Line::Section(name);
    }
    if let Some((k, v)) = pair(line) {
        return Line::Pair(k, v);
    }
    let body = skip_space(line);
    if body.is_empty() || body.starts_with(['#', ';']) {
        Line::Blank
    } else {
        Line::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_classify_as_the_harness_reads_them() {
        let cases: &[(&str, Line)] = &[
            ("[global]", Line::Section("global")),
            (" \t[ global ] ", Line::Section("global")),
            ("[global] # note", Line::Section("global")),
            ("[global]# note", Line::Other),
            ("[glo bal]", Line::Other),
            ("[]", Line::Other),
            ("datadir = /x", Line::Pair("datadir", "/x")),
            ("datadir=/x", Line::Pair("datadir", "/x")),
            ("  a.b-c_d \t= v w \t\r", Line::Pair("a.b-c_d", "v w")),
            ("k = v ; c", Line::Pair("k", "v")),
            ("k = v\t# c", Line::Pair("k", "v")),
            ("k = v#c", Line::Other),
            ("k =#c", Line::Other),
            ("k = #c", Line::Pair("k", "")),
            ("k = ", Line::Pair("k", "")),
            ("api = S3 --x=y", Line::Pair("api", "S3 --x=y")),
            (
                "cmd = bash -c \"echo 3 > /p\"",
                Line::Pair("cmd", "bash -c \"echo 3 > /p\""),
            ),
            ("= v", Line::Other),
            ("k v", Line::Other),
            ("", Line::Blank),
            (" \r", Line::Blank),
            ("; comment", Line::Blank),
            ("  # comment", Line::Blank),
        ];
        for (line, want) in cases {
            assert_eq!(&classify(line), want, "{line:?}");
        }
    }
}
