//! Validation of parsed [`Options`] against the rank count, in the
//! original's order and with its messages, plus the checks it lacks
//! (combinations that crash or hang it are refused here). The result is a
//! [`Config`]: everything a rank needs to run, already resolved.

use crate::options::{BadInput, Op, Options};
use pario_plan::mpi_io_test::Spec;

pub use pario_plan::mpi_io_test::TestType;

/// A validated run description.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub opts: Options,
    pub ty: TestType,
    /// Ranks.
    pub n: u32,
    /// I/O ranks (types 3/4), files (type 5), N otherwise.
    pub m: u32,
    pub k: u64,
    pub s: u64,
    /// Circular buffer bytes (S unless aggregating).
    pub c: u64,
    pub strided: bool,
    /// Per-host aggregator counts when `-host` is given (types 3/4).
    pub host_quota: Option<Vec<u32>>,
    /// Elements checked per object after a read (0 = none).
    pub check: u64,
    /// `-targets` file tokens, when given.
    pub targets: Option<Vec<String>>,
    pub page: u64,
}

impl Config {
    pub fn write_phase(&self) -> bool {
        self.opts.op != Op::Read
    }
    pub fn read_phase(&self) -> bool {
        self.opts.op != Op::Write && !self.opts.nofile
    }
    pub fn file_io(&self) -> bool {
        !self.opts.nofile
    }
    /// Doubles per object.
    pub fn b(&self) -> u64 {
        self.s / 8
    }
    /// Ranks whose data is moved (N, or N−M with `-norsend`).
    pub fn np(&self) -> u32 {
        if self.ty.aggregated() && self.opts.norsend {
            self.n - self.m
        } else {
            self.n
        }
    }
    /// Number of files written.
    pub fn files(&self) -> u32 {
        if self.ty.shared_file() {
            1
        } else {
            self.m
        }
    }
    /// The hints given to every open and delete (`-dio` adds two).
    pub fn hints(&self) -> Vec<(String, String)> {
        self.spec().hints()
    }

    /// What the engine's phases need of the configuration.
    pub fn spec(&self) -> Spec {
        let o = &self.opts;
        Spec {
            ty: self.ty,
            n: self.n,
            m: self.m,
            k: self.k,
            s: self.s,
            c: self.c,
            strided: self.strided,
            check: self.check,
            page: self.page,
            touch: o.touch,
            ahead: o.ahead,
            barrier: o.barrier,
            bopen: o.bopen,
            collective: o.collective,
            preallocate: o.preallocate,
            sync: o.sync,
            dio: o.dio,
            hints: o.hints.clone(),
            nofile: o.nofile,
            norsend: o.norsend,
        }
    }
}

fn err(s: String) -> BadInput {
    BadInput(format!("[RANK 0] ERROR: {s}"))
}

/// Check `o` for a run on `n` ranks with pages of `page` bytes; `targets`
/// holds the tokens of the `-targets` file when one was given.
pub fn validate(
    o: &Options,
    n: u32,
    page: u64,
    targets: Option<Vec<String>>,
) -> Result<Config, BadInput> {
    let k = o.nobj;
    if k == 0 {
        return Err(err(format!(
            "Illegal number of objects({k}) to write to/read from file."
        )));
    }
    let Some(s) = o.size else {
        return Err(err(
            "-size is missing: give the object size in bytes (a multiple of 8).".into(),
        ));
    };
    if !s.is_multiple_of(8) {
        return Err(err(format!(
            "Object size ({s}) must be a multiple of 8 (sizeof(double))."
        )));
    }
    if o.strided != 0 && o.strided != 1 {
        return Err(err(format!(
            "Illegal strided option ({}); must be 0 (non-strided) or 1 (Strided).",
            o.strided
        )));
    }
    if s <= 1 || s > u64::from(u32::MAX) {
        return Err(err(format!(
            "Illegal object size ({s}); must be greater than one and less than UINT_MAX ({}).",
            u32::MAX
        )));
    }
    let (ty, m, c) = per_type(o, n, k, s)?;
    if m == 0 || m > n {
        return Err(err(format!(
            "Illegal number of I/O processors specified ({m}); must be between 0 and {n}."
        )));
    }
    if o.dio {
        if ty.aggregated() && !c.is_multiple_of(page) {
            return Err(err(format!("For direct I/O the circular buffer size (-csize) must be a multiple of the system page size {page}.")));
        }
        if !ty.aggregated() && !(k * s).is_multiple_of(page) {
            return Err(err(format!("For direct I/O the number of objects * buffer size ( {k} * {s}) must be a multiple of the system page size {page}.")));
        }
    }
    if !(1..=3).contains(&o.touch) {
        return Err(err(format!("Invalid touch option ({}).", o.touch)));
    }
    check_targets(o, ty, n, m, targets.as_deref())?;
    check_hints(&o.hints)?;
    let host_quota = check_hosts(o, ty)?;
    let b = s / 8;
    let check = match o.chkdata {
        c if c <= 0 => 0,
        3 => b,
        c => (c as u64).min(b),
    };
    Ok(Config {
        opts: o.clone(),
        ty,
        n,
        m,
        k,
        s,
        c,
        strided: o.strided == 1,
        host_quota,
        check,
        targets,
        page,
    })
}

fn per_type(o: &Options, n: u32, k: u64, s: u64) -> Result<(TestType, u32, u64), BadInput> {
    let m_given = o
        .num_io
        .as_ref()
        .map(|l| l.iter().map(|&x| u64::from(x)).sum::<u64>());
    let m = m_given.map(|v| u32::try_from(v).unwrap_or(u32::MAX));
    match o.test_type {
        Some(t @ (1 | 2)) => {
            if let Some(m) = m.filter(|&m| m != n) {
                return Err(err(format!(
                    "Test N->(N or 1), but number of I/O processors specified as {m}."
                )));
            }
            if o.nofile || o.norsend {
                return Err(err(
                    "Test N->(N or 1), the -nofile and -norsend options are not allowed.".into(),
                ));
            }
            let ty = if t == 1 {
                TestType::NToN
            } else {
                TestType::NToOne
            };
            Ok((ty, n, s))
        }
        Some(t @ (3 | 4)) => {
            let Some(m) = m else {
                return Err(err(
                    "Test N->M->(M or 1), but number of I/O processors (M) not specified.".into(),
                ));
            };
            let Some(c) = o.csize else {
                return Err(err(format!(
                    "-csize is missing: test type {t} needs the circular buffer size."
                )));
            };
            if c == 0 || c > i32::MAX as u64 {
                return Err(err(format!(
                    "Circular buffer size must be greater than zero and less than INT_MAX ({}).",
                    i32::MAX
                )));
            }
            if !c.is_multiple_of(s * k) {
                return Err(err(format!("A multiple of objects (-size * -nobj = {}) must fit into one circular buffer of size {c}.", s * k)));
            }
            if o.strided == 1 {
                return Err(err(
                    "strided writes are not implemented for aggregation yet.".into(),
                ));
            }
            if o.barrier {
                return Err(err("-barrier cannot be used with aggregation (types 3 and 4): only I/O processes write, so a barrier before each write cannot match (the original hangs).".into()));
            }
            let ty = if t == 3 {
                TestType::AggToM
            } else {
                TestType::AggToOne
            };
            Ok((ty, m, c))
        }
        Some(5) => {
            let m = m.unwrap_or(0);
            if m == 0 || m > n {
                return Err(err(format!("Invalid number of files to write to ({m}) (-num_io option) for the N processor to M files (type 5) job.")));
            }
            Ok((TestType::NToMFiles, m, s))
        }
        None => Err(err(
            "-type is missing: give the test type, 1 to 5 (see -help).".into(),
        )),
        Some(other) => Err(err(format!(
            "Unknown I/O test number {other}. Valid tests values are 1 - 5."
        ))),
    }
}

fn check_targets(
    o: &Options,
    ty: TestType,
    n: u32,
    m: u32,
    tokens: Option<&[String]>,
) -> Result<(), BadInput> {
    if o.target.is_some() && o.targets.is_some() {
        return Err(err("Both -target and -targets flags were supplied.Please specify only one target file name source.".into()));
    }
    if o.targets.is_some() && ty.shared_file() {
        return Err(err(format!(
            "Specifying a targets file can only be used with test types 1, 3, and 5; not {}.",
            ty.number()
        )));
    }
    if o.targets.is_none() && ty == TestType::NToMFiles {
        return Err(err("Specifying a targets file must be used with test type 5. Please specify a targets file.".into()));
    }
    if let Some(t) = &o.target {
        crate::target::expand(t, 0, "h", 1)
            .map_err(|e| err(format!("Problem expanding file name {t}: {e}.")))?;
    }
    if let (Some(path), Some(tokens)) = (&o.targets, tokens) {
        let need = match ty {
            TestType::NToN => n,
            TestType::NToMFiles => m,
            // Type 3 needs one per aggregator rank; checked once roles are known.
            _ => 1,
        };
        if (tokens.len() as u64) < u64::from(need) {
            return Err(err(format!(
                "-targets {path}: {} names, but this run needs {need}.",
                tokens.len()
            )));
        }
        for t in tokens {
            crate::target::expand(t, 0, "h", 1).map_err(|e| {
                err(format!(
                    "Problem expanding file name {t} (from -targets {path}): {e}."
                ))
            })?;
            if ty == TestType::NToMFiles && t.contains("%r") {
                return Err(err(format!("-targets {path}: {t}: type 5 opens each file on a group of processes, so its name cannot contain %r.")));
            }
        }
    }
    Ok(())
}

/// The most distinct hint keys a run may give. MPI libraries keep an
/// info object's keys in a list that every set and get walks (Open MPI's
/// `opal_info`), so each open costs time quadratic in their number: 8,000
/// keys take seconds, 32,000 minutes. Real hint sets have a few dozen.
pub const MAX_HINT_KEYS: usize = 1024;

/// Keys and values MPI_Info accepts (at most 255 and 1023 characters in
/// Open MPI and MPICH; no NUL), so that a bad hint is bad input, not an
/// open failure on every rank; and at most [`MAX_HINT_KEYS`] keys (the
/// pairs are already one per key, see `options::parse`).
fn check_hints(hints: &[(String, String)]) -> Result<(), BadInput> {
    if hints.len() > MAX_HINT_KEYS {
        return Err(err(format!(
            "-hints: {} distinct keys; at most {MAX_HINT_KEYS} (the MPI library walks its \
             list of hints for each one, so an open would take time quadratic in their number).",
            hints.len()
        )));
    }
    for (k, v) in hints {
        if k.is_empty() || k.len() > 254 || k.contains('\0') {
            return Err(err(format!(
                "-hints: key '{k}' must have 1 to 254 characters."
            )));
        }
        if v.len() > 1023 || v.contains('\0') {
            return Err(err(format!(
                "-hints: the value of '{k}' must have at most 1023 characters."
            )));
        }
    }
    Ok(())
}

fn check_hosts(o: &Options, ty: TestType) -> Result<Option<Vec<u32>>, BadInput> {
    let (Some(hosts), true) = (&o.host, ty.aggregated()) else {
        return Ok(None);
    };
    if hosts.is_empty() {
        return Err(err("-host: empty host list.".into()));
    }
    for (i, h) in hosts.iter().enumerate() {
        if hosts[..i].contains(h) {
            return Err(err(format!("-host: host {h} is listed twice.")));
        }
    }
    let quota = o.num_io.clone().unwrap_or_default();
    if quota.len() != hosts.len() {
        return Err(err(format!(
            "-host names {} hosts but -num_io gives {} counts; give one count per host.",
            hosts.len(),
            quota.len()
        )));
    }
    Ok(Some(quota))
}

/// Whitespace-separated tokens of a `-targets` file.
pub fn read_targets(path: &str) -> Result<Vec<String>, BadInput> {
    let text = pario_results::special::read_regular_to_string(std::path::Path::new(path)).map_err(
        |e| {
            err(format!(
                "Unable to open file {path}: {e}. Problem reading targets file {path}."
            ))
        },
    )?;
    Ok(text.split_whitespace().map(String::from).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::parse;

    fn check(line: &str, n: u32, targets: Option<Vec<String>>) -> Result<Config, BadInput> {
        let mut args = Vec::new();
        // "-num_io 2+2" stands for the quoted list "2 2".
        for w in line.split_whitespace() {
            args.push(w.replace('+', " "));
        }
        validate(&parse(&args)?, n, 4096, targets)
    }

    /// Every bad combination: a one-line message containing the word given.
    #[test]
    fn bad_input_table() {
        let names = |k: usize| Some((0..k).map(|i| format!("f{i}")).collect::<Vec<_>>());
        let table: &[(&str, u32, Option<Vec<String>>, &str)] = &[
            (
                "-type 1 -size 8 -nobj 0",
                2,
                None,
                "Illegal number of objects",
            ),
            ("-type 1 -size 12", 2, None, "multiple of 8"),
            ("-type 1 -size 8 -strided 2", 2, None, "strided option"),
            ("-type 1", 2, None, "-size is missing"),
            ("-type 1 -size 0", 2, None, "Illegal object size (0)"),
            ("-type 1 -size 8G", 2, None, "UINT_MAX"),
            ("-type 6 -size 8", 2, None, "Unknown I/O test number 6"),
            ("-size 8", 2, None, "-type is missing"),
            ("-type 0 -size 8", 2, None, "Unknown I/O test number 0"),
            ("-type 2 -size 8 -num_io 3", 2, None, "specified as 3"),
            ("-type 1 -size 8 -nofile", 2, None, "-nofile and -norsend"),
            ("-type 2 -size 8 -norsend", 2, None, "-nofile and -norsend"),
            ("-type 3 -size 8", 2, None, "(M) not specified"),
            ("-type 3 -size 8 -num_io 1", 2, None, "-csize is missing"),
            (
                "-type 3 -size 8 -num_io 1 -csize 0",
                2,
                None,
                "Circular buffer size",
            ),
            (
                "-type 4 -size 8 -nobj 2 -num_io 1 -csize 24",
                2,
                None,
                "must fit into one circular buffer",
            ),
            (
                "-type 3 -size 8 -num_io 1 -csize 8 -strided 1",
                2,
                None,
                "strided writes",
            ),
            (
                "-type 4 -size 8 -num_io 1 -csize 8 -barrier",
                2,
                None,
                "-barrier",
            ),
            (
                "-type 3 -size 8 -num_io 3 -csize 8",
                2,
                None,
                "Illegal number of I/O processors specified (3)",
            ),
            (
                "-type 4 -size 8 -num_io 0 -csize 8",
                2,
                None,
                "Illegal number of I/O processors specified (0)",
            ),
            (
                "-type 5 -size 8 -num_io 3 -targets t",
                2,
                names(3),
                "type 5",
            ),
            (
                "-type 5 -size 8 -num_io 1",
                2,
                None,
                "must be used with test type 5",
            ),
            ("-type 2 -size 8 -targets t", 2, names(2), "not 2"),
            (
                "-type 1 -size 8 -target a -targets t",
                2,
                names(2),
                "Both -target",
            ),
            ("-type 1 -size 8 -targets t", 3, names(2), "needs 3"),
            (
                "-type 5 -size 8 -num_io 2 -targets t",
                4,
                Some(vec!["a%r".into(), "b".into()]),
                "%r",
            ),
            (
                "-type 1 -size 8 -target x%x",
                2,
                None,
                "Problem expanding file name x%x",
            ),
            ("-type 1 -size 8 -target x%", 2, None, "Problem expanding"),
            (
                "-type 1 -size 8 -touch 4",
                2,
                None,
                "Invalid touch option (4)",
            ),
            (
                "-type 1 -size 8 -hints kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk 1",
                2,
                None,
                "1 to 254 characters",
            ),
            (
                "-type 1 -size 8 -touch 0",
                2,
                None,
                "Invalid touch option (0)",
            ),
            ("-type 1 -size 8 -dio", 2, None, "page size 4096"),
            (
                "-type 3 -size 8 -num_io 1 -csize 8 -dio",
                2,
                None,
                "circular buffer size (-csize)",
            ),
            (
                "-type 3 -size 8 -num_io 1+1 -csize 8 -host a+a",
                4,
                None,
                "listed twice",
            ),
            (
                "-type 3 -size 8 -num_io 1 -csize 8 -host a+b",
                4,
                None,
                "one count per host",
            ),
        ];
        for (line, n, targets, word) in table {
            let e = check(line, *n, targets.clone()).expect_err(line);
            assert!(e.0.contains(word), "{line}: {e}");
            assert!(
                e.0.starts_with("[RANK 0] ERROR: ") && !e.0.contains('\n'),
                "{e}"
            );
        }
    }

    #[test]
    fn hint_keys_are_counted_once_and_bounded() {
        let with_hints = |pairs: &mut dyn Iterator<Item = (String, String)>| {
            let mut a: Vec<String> = "-type 1 -size 8 -hints"
                .split(' ')
                .map(String::from)
                .collect();
            for (k, v) in pairs {
                a.push(k);
                a.push(v);
            }
            validate(&crate::options::parse(&a).unwrap(), 1, 4096, None)
        };
        // 100,000 pairs over 10 keys: 10 hints.
        let c = with_hints(&mut (0..100_000).map(|i| (format!("k{}", i % 10), i.to_string())));
        assert_eq!(c.unwrap().hints().len(), 10);
        let c = with_hints(&mut (0..MAX_HINT_KEYS).map(|i| (format!("k{i}"), "1".into())));
        assert_eq!(c.unwrap().hints().len(), MAX_HINT_KEYS);
        let e = with_hints(&mut (0..=MAX_HINT_KEYS).map(|i| (format!("k{i}"), "1".into())));
        let e = e.unwrap_err().0;
        assert!(
            e.contains("-hints: 1025 distinct keys; at most 1024"),
            "{e}"
        );
    }

    #[test]
    fn good_input_resolves() {
        let c = check("-type 2 -size 64 -nobj 3", 4, None).unwrap();
        assert_eq!(
            (c.ty, c.m, c.c, c.check, c.files()),
            (TestType::NToOne, 4, 64, 1, 1)
        );
        let c = check(
            "-type 3 -size 8 -nobj 2 -num_io 1+1 -csize 32 -host a+b -chkdata 3 -norsend",
            4,
            None,
        )
        .unwrap();
        assert_eq!((c.m, c.c, c.check, c.np(), c.files()), (2, 32, 1, 2, 2));
        assert_eq!(c.host_quota, Some(vec![1, 1]));
        let c = check(
            "-type 5 -size 8 -num_io 2 -targets t -chkdata 9 -nofile",
            4,
            Some(vec!["a".into(), "b".into()]),
        )
        .unwrap();
        assert_eq!((c.m, c.check, c.read_phase()), (2, 1, false));
        let c = check("-type 1 -size 4K -dio -hints a b", 1, None).unwrap();
        assert_eq!(c.hints().len(), 3);
    }
}
