//! What counts as a secret, and how it is masked: the one rule used by
//! the run record (environment and command line), the database, `pario
//! show`, IOR's `-vvv` environment dump and MPI-IO Test's environment block.
//!
//! - A *name* is secret ([`is_secret_name`]) when it contains one of
//!   [`SECRET_NAME_MARKERS`] (any case, anywhere: `UCX_PWD`,
//!   `OMPI_MCA_session_cookie`, `PARIO_SIGNING_CERT`, `HDF5_JWT`, ...) or
//!   has `PIN` as a whole word (`SLURM_API_PIN`). Exceptions: the shell's
//!   `PWD` and `OLDPWD` (a directory), and Intel MPI's process pinning
//!   controls `I_MPI_PIN*`.
//! - A *value* is masked ([`mask_value`]) wherever it holds a credential,
//!   whatever the name: the password of a `scheme://user:pw@host` URL
//!   (`user:***@host`), the value of a secret-named `name=value` pair
//!   (query strings, libpq strings, `--option=value`), the word after
//!   `Bearer`, token-shaped words (GitHub `ghp_`/`github_pat_`..., GitLab
//!   `glpat-`, Slack `xox?-`, AWS access key ids `AKIA`/`ASIA`, JWTs
//!   `eyJ...`.`...`), and a whole value holding a PEM private key.
//!
//! What is masked becomes [`MASK`]; the rest of the value is kept, so a
//! record still says which endpoint or setting was used.

/// What a masked secret reads as.
pub const MASK: &str = "***";

/// Parts of a name that mark it as secret (upper case; matched anywhere
/// in the upper-cased name). PASS covers PASSWORD and PASSWD, CRED covers
/// CREDS and CREDENTIAL, CERT covers CERTIFICATE.
pub const SECRET_NAME_MARKERS: &[&str] = &[
    "PASS", "PWD", "AUTH", "PRIVATE", "CRED", "KEY", "SECRET", "TOKEN", "COOKIE", "CERT", "JWT",
    "BEARER",
];

/// Words that mark a name as secret only as a whole word (between `_`,
/// `.`, `-` or the ends), since as parts they are common (PINNED).
const SECRET_NAME_WORDS: &[&str] = &["PIN"];

/// Names that contain a marker but hold no secret.
const NOT_SECRET_NAMES: &[&str] = &["PWD", "OLDPWD"];

/// Prefixes of names that contain a marker word but hold no secret
/// (Intel MPI's process pinning: I_MPI_PIN, I_MPI_PIN_DOMAIN, ...).
const NOT_SECRET_PREFIXES: &[&str] = &["I_MPI_PIN"];

/// True when a variable, option or parameter named `name` may hold a
/// secret. Leading dashes are ignored (`--s3.secret-key` is `s3.secret-key`).
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.trim().trim_start_matches('-').to_ascii_uppercase();
    if NOT_SECRET_NAMES.contains(&upper.as_str()) {
        return false;
    }
    if SECRET_NAME_MARKERS.iter().any(|m| upper.contains(m)) {
        return true;
    }
    !NOT_SECRET_PREFIXES.iter().any(|p| upper.starts_with(p))
        && upper
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| SECRET_NAME_WORDS.contains(&w))
}

/// `value` with every credential in it replaced by [`MASK`] (see the
/// module's rules); unchanged when there is nothing to hide.
pub fn mask_value(value: &str) -> String {
    if value.contains("-----BEGIN") && value.contains("PRIVATE KEY") {
        return MASK.to_string();
    }
    let v = mask_assignments(value);
    let v = mask_url_passwords(&v);
    mask_token_shapes(&v)
}

/// The value of environment variable `name` as it may be shown or kept:
/// all of it masked when the name is secret, else [`mask_value`].
pub fn mask_env(name: &str, value: &str) -> String {
    if is_secret_name(name) {
        MASK.to_string()
    } else {
        mask_value(value)
    }
}

/// A command line as it may be shown or kept: every word through
/// [`mask_value`] (`--s3.endpoint=http://u:***@host`,
/// `--s3.secret-key=***`), and the word after a secret-named long option
/// given apart (`--s3.secret-key KEY`) masked.
pub fn mask_args(argv: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut hide_next = false;
    for a in argv {
        if hide_next && !a.starts_with('-') {
            out.push(MASK.to_string());
            hide_next = false;
            continue;
        }
        hide_next = a.starts_with("--") && !a.contains('=') && is_secret_name(a);
        out.push(mask_value(a));
    }
    out
}

/// Separators before a name in `name=value` and after an unquoted value.
fn is_name_sep(c: u8) -> bool {
    c.is_ascii_whitespace() || b"&;,?\"'(){}[]".contains(&c)
}

fn is_value_end(c: u8) -> bool {
    c.is_ascii_whitespace() || b"&;\"'".contains(&c)
}

/// Values of secret-named `name=value` pairs masked (quoted values too).
fn mask_assignments(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'=' {
            i += 1;
            continue;
        }
        let start = b[..i]
            .iter()
            .rposition(|&c| is_name_sep(c))
            .map_or(0, |p| p + 1);
        if start == i || !is_secret_name(&s[start..i]) {
            i += 1;
            continue;
        }
        let v = i + 1;
        let end = match b.get(v) {
            Some(&q) if q == b'\'' || q == b'"' => b[v + 1..]
                .iter()
                .position(|&c| c == q)
                .map_or(b.len(), |p| v + 1 + p + 1),
            _ => b[v..]
                .iter()
                .position(|&c| is_value_end(c))
                .map_or(b.len(), |p| v + p),
        };
        out.push_str(&s[copied..v]);
        if end > v {
            out.push_str(MASK);
        }
        copied = end;
        i = end.max(v);
    }
    out.push_str(&s[copied..]);
    out
}

/// The password of every `scheme://user:pw@host` in `s` masked; the
/// userinfo runs to the last `@` before the URL ends (whitespace or a
/// quote), so passwords holding `/`, `@` or `:` are masked whole.
fn mask_url_passwords(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find("://") {
        let (head, tail) = rest.split_at(p + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .unwrap_or(tail.len());
        let url = &tail[..end];
        match url
            .rfind('@')
            .and_then(|at| url[..at].find(':').map(|c| (c, at)))
        {
            Some((colon, at)) => {
                out.push_str(&url[..=colon]);
                out.push_str(MASK);
                out.push_str(&url[at..]);
            }
            None => out.push_str(url),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'
}

/// Prefixes of well-known API tokens, each followed by at least 16
/// token characters.
const TOKEN_PREFIXES: &[&str] = &[
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxr-",
    "xoxs-",
    "xoxe-",
    "sk_live_",
    "rk_live_",
    "npm_",
];

/// True for a word shaped like a credential.
pub fn looks_like_token(w: &str) -> bool {
    let prefixed = TOKEN_PREFIXES.iter().any(|p| {
        w.strip_prefix(p).is_some_and(|t| {
            t.len() >= 16
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
    });
    let aws = w.len() == 20
        && (w.starts_with("AKIA") || w.starts_with("ASIA"))
        && w.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    prefixed || aws || is_jwt(w)
}

/// `eyJ<header>.<payload>.<signature>`: three base64url parts.
fn is_jwt(w: &str) -> bool {
    let parts: Vec<&str> = w.trim_end_matches('.').split('.').collect();
    w.starts_with("eyJ")
        && parts.len() == 3
        && parts[0].len() >= 10
        && parts[1].len() >= 4
        && parts.iter().all(|p| {
            p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// Token-shaped words, and the word after `Bearer`, masked.
fn mask_token_shapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut after_bearer = false;
    while !rest.is_empty() {
        let start = rest.find(is_token_char).unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        if rest.is_empty() {
            break;
        }
        let end = rest.find(|c| !is_token_char(c)).unwrap_or(rest.len());
        let word = &rest[..end];
        if (after_bearer || looks_like_token(word)) && word != MASK {
            out.push_str(MASK);
        } else {
            out.push_str(word);
        }
        after_bearer = word.eq_ignore_ascii_case("bearer");
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_any_secret_word_are_secret() {
        for n in [
            "UCX_PWD",
            "OMPI_MCA_session_cookie",
            "PARIO_SIGNING_CERT",
            "HDF5_JWT",
            "SLURM_API_PIN",
            "SLURM_BEARER",
            "SESSION_COOKIE",
            "OMPI_MCA_auth_token",
            "AWS_SECRET_ACCESS_KEY",
            "PGPASSWORD",
            "pario_api_key",
            "--s3.secret-key",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in [
            "PWD",
            "OLDPWD",
            "OMPI_MCA_btl",
            "I_MPI_PIN_DOMAIN",
            "I_MPI_PIN",
            "UCX_RNDV_PINNED",
            "SLURM_JOB_ID",
            "--s3.endpoint",
        ] {
            assert!(!is_secret_name(n), "{n}");
        }
    }

    #[test]
    fn token_shaped_values_are_masked_under_any_name() {
        for (v, secret) in [
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_"),
            ("github_pat_11ABCDEFG0123456789_abcdefghij", "github_pat_"),
            ("xoxb-1234567890-1234567890123-abcdefghijkl", "xoxb-"),
            ("AKIAIOSFODNN7EXAMPLE", "AKIA"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX3Rlc3Q",
                "eyJ",
            ),
            ("Bearer abc.def-123", "abc.def"),
            ("x=1 password=hunter2 y=2", "hunter2"),
            ("host=db password='a b c' user=u", "a b c"),
            ("http://u:pw@host:9000/b?token=t0k", "pw@"),
            ("http://u:pw@host:9000/b?token=t0k", "t0k"),
            ("-----BEGIN PRIVATE KEY-----\nMIIE...", "MIIE"),
        ] {
            let m = mask_value(v);
            assert!(!m.contains(secret), "{v} -> {m}");
            assert!(m.contains(MASK), "{v} -> {m}");
        }
        assert_eq!(mask_value("http://u:pw@host/x"), "http://u:***@host/x");
        assert_eq!(mask_value("http://u:p@s/s@host"), "http://u:***@host");
        assert_eq!(
            mask_value("x=1 password=hunter2 y=2"),
            "x=1 password=*** y=2"
        );
        for plain in [
            "self,vader",
            "/scratch/run-01",
            "http://host:9000/bucket",
            "enable",
            "ghp_short",
            "AKIA",
            "eyJ",
            "1.2.3",
        ] {
            assert_eq!(mask_value(plain), plain);
        }
    }

    #[test]
    fn command_lines_keep_their_shape_without_the_secrets() {
        let argv: Vec<String> = [
            "ior",
            "--s3.endpoint=http://u:pw@host",
            "--s3.secret-key",
            "hunter2",
            "-O",
            "summaryFile=x",
            "--s3.access-key=AKIAIOSFODNN7EXAMPLE",
            "-w",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            mask_args(&argv),
            [
                "ior",
                "--s3.endpoint=http://u:***@host",
                "--s3.secret-key",
                "***",
                "-O",
                "summaryFile=x",
                "--s3.access-key=***",
                "-w"
            ]
        );
        assert_eq!(mask_env("UCX_PWD", "x"), MASK);
        assert_eq!(mask_env("OMPI_MCA_btl", "self"), "self");
    }
}
