//! The backends of IOR 4.1's list that pario does not have, each refused
//! with why (the library it would need) and what to use instead.
//!
//! [`REFUSED`] is the one list: `-a NAME` for any of them ends with
//! [`refusal`]'s one line, `ior -h` names them after the backends pario has,
//! and the README's table of backends is checked against it and
//! [`crate::registry::DESCRIPTORS`] (a test in `registry`).

/// One refused API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The `-a` name, as IOR 4.1 spells it (matching is case-insensitive).
    pub name: &'static str,
    /// The client library IOR's backend is built on.
    pub library: &'static str,
    /// Why pario has no backend for it.
    pub why: &'static str,
    /// What to run instead.
    pub instead: &'static str,
}

/// Every refused API, in the order `ior -h` lists them.
pub const REFUSED: &[Refused] = &[
    Refused {
        name: "HDFS",
        library: "libhdfs",
        why: "no HDFS client library or server to build and test it against",
        instead: "-a POSIX on an HDFS FUSE mount, or -a S3 against an S3 gateway",
    },
    Refused {
        name: "IME",
        library: "DDN's IME client",
        why: "the client is proprietary and cannot be built or tested here",
        instead: "-a POSIX on the IME FUSE mount, or -a S3",
    },
    Refused {
        name: "DFS",
        library: "libdfs and libdaos (DAOS)",
        why: "DAOS is not packaged in Debian and there is no DAOS server to test against",
        instead: "-a POSIX on a dfuse mount of the DAOS container (with DAOS's interception \
                  library for speed), or -a MPIIO through ROMIO's DAOS driver",
    },
    Refused {
        name: "Gfarm",
        library: "libgfarm",
        why: "Gfarm's client library is not packaged in Debian and there is no Gfarm server \
              to test against",
        instead: "-a POSIX on a gfarm2fs FUSE mount",
    },
    Refused {
        name: "CHFS",
        library: "libchfs",
        why: "the CHFS client library and servers are not packaged in Debian",
        instead: "-a POSIX on a chfuse mount of the CHFS file system",
    },
    Refused {
        name: "FINCHFS",
        library: "libfinchfs",
        why: "the FINCHFS client library and servers are not packaged in Debian",
        instead: "-a POSIX on a FUSE mount of the FINCHFS file system",
    },
];

/// The refused API named `api` (case-insensitive).
pub fn find(api: &str) -> Option<&'static Refused> {
    let api = api.trim();
    REFUSED.iter().find(|r| r.name.eq_ignore_ascii_case(api))
}

/// Why `-a api` is refused, naming the library and what to use instead, in
/// one line; `None` for an API that is not on the list.
pub fn refusal(api: &str) -> Option<String> {
    let r = find(api)?;
    Some(format!(
        "-a {}: pario has no {} backend ({}: {}); use {}",
        api.trim(),
        r.name,
        r.library,
        r.why,
        r.instead
    ))
}

/// The refused names, joined by `sep`.
pub fn names(sep: &str) -> String {
    REFUSED.iter().map(|r| r.name).collect::<Vec<_>>().join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_names_the_library_and_an_alternative_in_one_line() {
        for r in REFUSED {
            for spelling in [r.name.to_string(), r.name.to_ascii_lowercase()] {
                let e = refusal(&spelling).unwrap();
                assert!(e.starts_with(&format!("-a {spelling}: pario has no {} backend", r.name)));
                assert!(e.contains(r.library) && e.contains("use -a "), "{e}");
                assert!(!e.contains('\n') && !e.contains("  "), "{e}");
            }
        }
        assert!(refusal("POSIX").is_none());
        assert!(refusal("").is_none());
    }

    #[test]
    fn ior_4_1_backends_pario_lacks_are_all_listed() {
        // Each of IOR 4.1's backends is either one of pario's or refused.
        for api in [
            "DFS", "gfarm", "CHFS", "FINCHFS", "PMDK", "LIBNFS", "HDFS", "IME",
        ] {
            assert!(
                find(api).is_some() != crate::registry::find(api).is_some(),
                "{api}"
            );
        }
        // Those pario has are backends, not refusals.
        const IMPLEMENTED: &[&str] = &["CEPHFS", "PMDK", "LIBNFS"];
        for api in IMPLEMENTED {
            assert!(find(api).is_none(), "{api}");
            assert!(crate::registry::find(api).is_some(), "{api}");
        }
    }

    #[test]
    fn refused_names_are_not_backends() {
        for r in REFUSED {
            assert!(crate::registry::find(r.name).is_none(), "{}", r.name);
        }
    }
}
