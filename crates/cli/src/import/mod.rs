//! `pario import`: upstream output made comparable. This module (not a
//! crate: only `pario` uses it) turns IOR's text (3.0 to 4.x), JSON and CSV
//! summaries and mdtest's text (1.8 to 4.x) into [`RunRecord`]s.
//!
//! - [`text`]: launcher prefixes (`srun -l`'s `0000: `), `key : value`
//!   lines, sizes, quoted command lines, content-derived run ids;
//! - [`ior`]: IOR text, JSON and CSV;
//! - [`mdtest`]: mdtest text and the workload of an mdtest command line.
//!
//! Run ids are derived from the content (`imp-<hash>`), so importing the
//! same file twice stores its runs once. A file may hold several runs (job
//! logs often do); each becomes a record. A file that only says "Writing
//! output to X" (IOR with `summaryFile`) is followed to X when it sits
//! beside it.

pub mod ior;
pub mod mdtest;
pub mod text;

use pario_results::RunRecord;
use std::path::{Path, PathBuf};

/// The formats `pario import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Decide from the content.
    Auto,
    IorText,
    IorJson,
    IorCsv,
    MdtestText,
    /// LANL MPI-IO Test's text output (parsed by pario-mpi-io-test).
    MpiIoTestText,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::IorText => "ior-text",
            Format::IorJson => "ior-json",
            Format::IorCsv => "ior-csv",
            Format::MdtestText => "mdtest-text",
            Format::MpiIoTestText => "mpi-io-test-text",
        }
    }
}

/// Why a file could not be imported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("not recognised as IOR or mdtest output: {0}")]
    NotRecognised(String),
    #[error("malformed: {0}")]
    Malformed(String),
    #[error("no results: {0}")]
    NoResults(String),
    #[error("{0}")]
    Io(String),
}

/// The format of `text`, or `None`.
pub fn detect(text: &str) -> Option<Format> {
    let t = text.trim_start();
    if t.starts_with('{') && t.contains("\"tests\"") {
        return Some(Format::IorJson);
    }
    let lines = text::clean_lines(text);
    let first = lines.iter().find(|l| !l.trim().is_empty())?;
    if first.trim_start().starts_with("access,bw(MiB/s)") {
        return Some(Format::IorCsv);
    }
    if ior::looks_like_text(&lines) {
        return Some(Format::IorText);
    }
    if mdtest::looks_like(&lines) {
        return Some(Format::MdtestText);
    }
    if pario_mpi_io_test::import::looks_like(&lines.join("\n")) {
        return Some(Format::MpiIoTestText);
    }
    None
}

/// "Writing output to FILE" with nothing else: where the results went.
fn pointer(text: &str) -> Option<String> {
    let lines: Vec<String> = text::clean_lines(text)
        .into_iter()
        .filter(|l| !l.trim().is_empty())
        .collect();
    match lines.as_slice() {
        [only] => only
            .trim()
            .strip_prefix("Writing output to ")
            .map(|f| f.trim().to_string()),
        _ => None,
    }
}

/// The tag that marks an imported run as suspect; its value says why.
pub const SUSPECT_TAG: &str = "pario.suspect";

/// Why a log's numbers may not be trusted: NUL bytes (a truncated or
/// overwritten file) or NaN/inf values. `None` when it looks sound.
pub fn suspicion(text: &str) -> Option<String> {
    let mut why = Vec::new();
    let nuls = text.bytes().filter(|&b| b == 0).count();
    if nuls > 0 {
        why.push(format!("{nuls} NUL byte(s) in the log"));
    }
    let non_finite = text
        .split(|c: char| c.is_whitespace() || ",;:\"'[]{}()=".contains(c))
        .filter(|w| {
            let w = w.trim_start_matches(['+', '-']).to_ascii_lowercase();
            matches!(w.as_str(), "nan" | "inf" | "infinity")
        })
        .count();
    if non_finite > 0 {
        why.push(format!("{non_finite} NaN/inf value(s) in the log"));
    }
    (!why.is_empty()).then(|| why.join(", "))
}

/// Parse `text` in `format` (`source` names it in the records). A log that
/// holds NUL bytes or NaN/inf numbers is imported, flagged: the tag
/// [`SUSPECT_TAG`] (shown by `pario runs`, selectable with `--tag`) and a
/// warning in the record say why.
///
/// So is a record whose numbers cannot be right, whatever the format
/// ([`implausible`]: no task count, negative or impossible figures), and an
/// MPI-IO Test log cut short ([`truncated_mpi_io_test`]).
pub fn parse(text: &str, format: Format, source: &str) -> Result<Vec<RunRecord>, ImportError> {
    let mut records = parse_unflagged(text, format, source)?;
    let mut in_text: Vec<String> = suspicion(text).into_iter().collect();
    if matches!(format, Format::Auto | Format::MpiIoTestText) {
        in_text.extend(truncated_mpi_io_test(text));
    }
    for r in &mut records {
        let mut why = in_text.clone();
        why.extend(implausible(r));
        if why.is_empty() {
            continue;
        }
        let why = why.join(", ");
        r.tags.insert(SUSPECT_TAG.into(), why.clone());
        r.warnings.push(format!(
            "suspect: {why}: check these numbers before trusting them"
        ));
    }
    Ok(records)
}

/// Bytes per second above which a bandwidth cannot be a measurement
/// (1 EiB/s, some 10^5 times the fastest file systems of 2026).
pub const MAX_PLAUSIBLE_BANDWIDTH: f64 = (1u64 << 60) as f64;

/// Operations per second above which a rate cannot be a measurement.
pub const MAX_PLAUSIBLE_RATE: f64 = 1e15;

/// Why an imported record's numbers cannot be right (empty when they may
/// be): no task count (a JSON summary whose numbers are arrays or strings
/// gives 0), a negative time or rate, an infinite or impossible bandwidth
/// or rate. NaN stands for "not given" and is not judged here.
pub fn implausible(r: &RunRecord) -> Vec<String> {
    let mut why = Vec::new();
    let tasks = r
        .tests
        .iter()
        .map(|t| t.workload.num_tasks)
        .chain([r.system.num_tasks])
        .max()
        .unwrap_or(0);
    if tasks == 0 {
        why.push("no task count (0 tasks)".to_string());
    }
    let phases = || r.tests.iter().flat_map(|t| &t.phases);
    let negative = phases().any(|p| {
        [
            p.open_time,
            p.xfer_time,
            p.close_time,
            p.total_time,
            p.bandwidth,
            p.iops,
            p.latency,
        ]
        .iter()
        .any(|&x| x < 0.0)
    });
    if negative {
        why.push("negative time(s) or rate(s)".to_string());
    }
    if phases().any(|p| p.bandwidth.is_infinite() || p.bandwidth > MAX_PLAUSIBLE_BANDWIDTH) {
        why.push("a bandwidth above 1 EiB/s".to_string());
    }
    if phases().any(|p| p.iops.is_infinite() || p.iops > MAX_PLAUSIBLE_RATE) {
        why.push("a rate above 10^15 operations/s".to_string());
    }
    why
}

/// An MPI-IO Test log cut short: a phase that started ("=== MPI write
/// [...] Starting") without its "=== Completed MPI-IO ..." line.
pub fn truncated_mpi_io_test(text: &str) -> Option<String> {
    let started = text.matches("] Starting ...").count();
    let completed = text.matches("=== Completed MPI-IO ").count();
    (pario_mpi_io_test::import::looks_like(text) && completed < started).then(|| {
        format!(
            "truncated MPI-IO Test log ({} of {started} phase(s) completed)",
            completed
        )
    })
}

fn parse_unflagged(
    text: &str,
    format: Format,
    source: &str,
) -> Result<Vec<RunRecord>, ImportError> {
    let format = match format {
        Format::Auto => detect(text).ok_or_else(|| {
            ImportError::NotRecognised(
                "no IOR header, IOR JSON/CSV summary or mdtest header found".into(),
            )
        })?,
        f => f,
    };
    match format {
        Format::IorText => ior::import_text(text, source),
        Format::IorJson => {
            let run = ior::parse_json(text)?;
            Ok(vec![ior::build(run, "ior-json", text, source)])
        }
        Format::IorCsv => {
            let lines = text::clean_lines(text);
            let run = ior::parse_csv(&lines)?;
            Ok(vec![ior::build(run, "ior-csv", text, source)])
        }
        Format::MdtestText => mdtest::import_text(text, source),
        Format::MpiIoTestText => {
            let lines = text::clean_lines(text).join("\n");
            pario_mpi_io_test::import::parse_text(&lines, source)
                .map(|r| vec![r])
                .map_err(ImportError::Malformed)
        }
        Format::Auto => unreachable!("resolved above"),
    }
}

/// What importing one file gave.
#[derive(Debug)]
pub struct FileImport {
    pub path: PathBuf,
    /// The file the results were read from (differs when followed).
    pub read_from: PathBuf,
    pub result: Result<Vec<RunRecord>, ImportError>,
}

/// Read and parse one file, following a "Writing output to X" pointer.
pub fn import_file(path: &Path, format: Format) -> FileImport {
    let read = |p: &Path| {
        // Only regular files: a FIFO without a writer would block for ever.
        pario_results::special::read_regular_to_string(p)
            .map_err(|e| ImportError::Io(format!("{}: {e}", p.display())))
    };
    let text = match read(path) {
        Ok(t) => t,
        Err(e) => {
            return FileImport {
                path: path.to_path_buf(),
                read_from: path.to_path_buf(),
                result: Err(e),
            }
        }
    };
    let mut from = path.to_path_buf();
    let mut body = text;
    if let Some(target) = pointer(&body) {
        let dir = path.parent().unwrap_or(Path::new("."));
        let t = dir.join(&target);
        match read(&t) {
            Ok(b) => {
                body = b;
                from = t;
            }
            Err(_) => {
                return FileImport {
                    path: path.to_path_buf(),
                    read_from: from,
                    result: Err(ImportError::NoResults(format!(
                        "IOR wrote its summary to '{target}', which is not beside this file: import that file"
                    ))),
                }
            }
        }
    }
    let name = from
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut result = parse(&body, format, &name);
    // Output without dates (IOR's CSV summary): the file's time stands in.
    if let Ok(records) = &mut result {
        let mtime = std::fs::metadata(&from)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs_f64());
        for r in records.iter_mut() {
            if !r.began.is_finite() {
                if let Some(t) = mtime {
                    // The file was written when the run ended.
                    let took: f64 = r
                        .tests
                        .iter()
                        .flat_map(|t| &t.phases)
                        .map(|p| p.total_time)
                        .filter(|x| x.is_finite())
                        .sum();
                    r.began = t - took;
                    r.finished = t;
                    r.warnings.push(
                        "the output gives no start time: the file's modification time stands in"
                            .into(),
                    );
                }
            }
            if !r.finished.is_finite() {
                r.finished = r.began;
            }
        }
    }
    FileImport {
        path: path.to_path_buf(),
        read_from: from,
        result,
    }
}
