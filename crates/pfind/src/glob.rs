//! Shell patterns for `-name`, matched against a whole file name the way
//! GNU find's `-name` does (fnmatch without flags): `*` any run of bytes,
//! `?` one byte, `[...]` one byte of a set (`!` or `^` negates, `a-z`
//! ranges, a leading `]` is literal), `\` quotes the next byte. A leading
//! dot is not special. Names are compared as bytes.

/// One element of a compiled pattern.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Byte(u8),
    AnyOne,
    AnyRun,
    Set {
        negated: bool,
        ranges: Vec<(u8, u8)>,
    },
}

/// A compiled `-name` pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct Glob {
    text: String,
    tokens: Vec<Token>,
}

impl Glob {
    /// Compile `pattern`; an unterminated `[` is taken literally, as
    /// fnmatch does.
    pub fn new(pattern: &str) -> Glob {
        let b = pattern.as_bytes();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let (t, used) = match b[i] {
                b'*' => (Token::AnyRun, 1),
                b'?' => (Token::AnyOne, 1),
                b'\\' if i + 1 < b.len() => (Token::Byte(b[i + 1]), 2),
                b'[' => set(&b[i..]).unwrap_or((Token::Byte(b'['), 1)),
                c => (Token::Byte(c), 1),
            };
            tokens.push(t);
            i += used;
        }
        Glob {
            text: pattern.to_string(),
            tokens,
        }
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the whole of `name` matches.
    pub fn matches(&self, name: &[u8]) -> bool {
        // Greedy with one backtrack point: the latest `*` and where in the
        // name it last resumed (linear for patterns without sets).
        let (mut p, mut n) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while n < name.len() {
            match self.tokens.get(p) {
                Some(Token::AnyRun) => {
                    star = Some((p, n));
                    p += 1;
                }
                Some(t) if one(t, name[n]) => {
                    p += 1;
                    n += 1;
                }
                _ => match star {
                    Some((sp, sn)) => {
                        p = sp + 1;
                        n = sn + 1;
                        star = Some((sp, sn + 1));
                    }
                    None => return false,
                },
            }
        }
        self.tokens[p..].iter().all(|t| *t == Token::AnyRun)
    }
}

/// Whether a single-byte token matches `c`.
fn one(t: &Token, c: u8) -> bool {
    match t {
        Token::Byte(b) => *b == c,
        Token::AnyOne => true,
        Token::AnyRun => false,
        Token::Set { negated, ranges } => {
            ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
        }
    }
}

/// A bracket expression at the start of `b` (which begins with `[`) and the
/// bytes it used; `None` when it has no closing `]`.
fn set(b: &[u8]) -> Option<(Token, usize)> {
    let mut i = 1;
    let negated = matches!(b.get(i), Some(b'!') | Some(b'^'));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *b.get(i)?;
        if c == b']' && !first {
            return Some((Token::Set { negated, ranges }, i + 1));
        }
        first = false;
        let (lo, used) = match c {
            b'\\' => (*b.get(i + 1)?, 2),
            c => (c, 1),
        };
        i += used;
        if b.get(i) == Some(&b'-') && b.get(i + 1).is_some_and(|&h| h != b']') {
            let hi = b[i + 1];
            ranges.push((lo, hi));
            i += 2;
        } else {
            ranges.push((lo, lo));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    fn m(p: &str, n: &str) -> bool {
        Glob::new(p).matches(n.as_bytes())
    }

    #[test]
    fn stars_and_questions_match_whole_names() {
        assert!(m("*01*", "file.mdtest.3.1015"));
        assert!(m("*01*", "01"));
        assert!(!m("*01*", "file.mdtest.3.1105"));
        assert!(m("a*b*c", "aXXbYYbc"));
        assert!(!m("a*b*c", "aXXbYYbcd"));
        assert!(m("?.txt", "a.txt"));
        assert!(!m("?.txt", "ab.txt"));
        assert!(!m("01", "x01"), "a pattern is anchored at both ends");
        assert!(m("*", ".hidden"), "a leading dot is not special");
        assert!(m("", "") && !m("", "a"));
        assert!(m("**", "abc"));
    }

    #[test]
    fn sets_ranges_negation_and_escapes() {
        assert!(m("[abc]x", "bx"));
        assert!(!m("[!abc]x", "bx"));
        assert!(m("[^abc]x", "dx"));
        assert!(m("f[0-9][0-9]", "f42"));
        assert!(!m("f[0-9]", "fa"));
        assert!(m("[]]", "]"));
        assert!(m("[a-]", "-"));
        assert!(m("\\*", "*") && !m("\\*", "a"));
        assert!(m("[", "[") && m("a[b", "a[b"), "an open bracket is literal");
    }
}
