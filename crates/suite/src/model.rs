//! A suite file: TOML read with `toml` and serde into a [`Suite`], with the
//! line of every value kept (from toml's byte spans) so that every later
//! refusal can name the file, the line and the reason ([`SuiteError`]).
//!
//! ```toml
//! name = "tiny"
//! description = "one write, one read"
//! [params]
//! dir = { help = "where the files go", kind = "dir" }  # no default: --set dir=... is needed;
//!                                            # kind = "dir": it must be an existing directory
//! block = "4m"                               # a default
//! [[step]]
//! name = "write"
//! tool = "ior"
//! args = "-w -k -F -t 1m -b ${block} -o ${dir}/f"
//! rules = { min_write_seconds = 0 }
//! figure = [{ op = "write", row = "write", unit = "MiB/s" }]
//! ```
//!
//! A step may carry `file = { path = "...", text = "..." }`, written before
//! it runs when its command line names `path` ([`StepFile`]); a step of
//! tool `io500` takes its table and score from its run (see `io500_rules`).

use pario_frontend::contract::Registered;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use toml::Spanned;

/// A refusal: file, line (when one is to blame) and reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteError {
    pub file: String,
    pub line: Option<usize>,
    pub reason: String,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

/// The front end a step runs: one of a registry's
/// ([`pario_registry::FRONT_ENDS`], or a test's own list), found by its
/// name or an alias (`mpi_io_test.x`).
#[derive(Clone, Copy)]
pub struct StepTool(pub &'static dyn Registered);

impl StepTool {
    /// The front end `s` names in `registry`.
    pub fn parse(s: &str, registry: Registry) -> Option<StepTool> {
        pario_registry::find(registry, s).map(StepTool)
    }

    /// Its name (the program name of the step's command line).
    pub fn name(self) -> &'static str {
        self.0.descriptor().name
    }

    /// The io500 front end: its step's table and score are the io500
    /// run's own (`[RESULT]` and `[SCORE ]` lines), not figures.
    pub fn is_io500(self) -> bool {
        self.0.descriptor().tool == pario_io500::front::IO500
    }
}

impl fmt::Debug for StepTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StepTool({})", self.name())
    }
}

impl PartialEq for StepTool {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

/// The front ends a suite's steps may name.
pub type Registry = &'static [&'static dyn Registered];

/// A value written as a number or as text with `${param}` in it
/// (repetitions, minimum times), resolved with the parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub text: String,
    pub line: usize,
}

/// A parameter of the suite: `--set name=value` overrides the default; one
/// without a default must be set.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub default: Option<String>,
    pub help: String,
    pub line: usize,
    /// `kind = "dir"`: the value names a directory that must exist before
    /// the first step runs (checked by `pario suite run`, not by a dry run).
    pub kind: Option<ParamKind>,
}

/// What a parameter's value must be, checked before anything runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An existing directory.
    Dir,
}

/// The run rules of a step: a step that breaks one is invalid, with the reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// A write phase shorter than this many seconds is invalid.
    pub min_write_seconds: Option<Setting>,
    /// A stonewalled read that stopped before its deadline (end of file) is invalid.
    pub read_until_stonewall: bool,
    /// Verification errors make the step invalid (default true).
    pub no_verification_errors: bool,
    /// A read the page cache served ("page-cache-read" advisory) is invalid (default true).
    pub no_cache_reads: bool,
}

/// One number of the suite's table: `op` of the step's runs, in `unit`, at
/// (`row`, `column`); `score` puts it in the IO500-style score ("bw": a
/// bandwidth in GiB/s, "md": a metadata rate in kIOPS).
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub source: Source,
    pub row: String,
    pub column: String,
    pub unit: crate::table::Unit,
    pub score: Option<ScoreKind>,
    pub line: usize,
}

/// Where a figure's number comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The mean of this operation's phases over the run's iterations.
    Op(pario_results::Operation),
    /// The `[RESULT]` line of this io500 phase (the io500 record's notes):
    /// the tables of io500 steps, made from their runs.
    Io500(String),
}

/// Which geometric mean of the score a figure enters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreKind {
    Bandwidth,
    Metadata,
}

/// A file a step writes before it runs (an io500 config.ini made from the
/// suite's parameters): `path` and `text` with `${param}`. It is written
/// only when the step's command line names `path`, and only inside a
/// `kind = "dir"` parameter's directory (checked by the plan).
#[derive(Clone, Debug, PartialEq)]
pub struct StepFile {
    pub path: Setting,
    pub text: Setting,
}

/// One step: a tool, its command line (with `${param}`), repetitions,
/// the steps it runs after, its rules and figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub name: String,
    pub line: usize,
    pub tool: StepTool,
    pub args: String,
    pub args_line: usize,
    pub repetitions: Setting,
    pub after: Vec<(String, usize)>,
    pub rules: Rules,
    pub figures: Vec<Figure>,
    pub file: Option<StepFile>,
}

/// A parsed suite file.
#[derive(Clone, Debug, PartialEq)]
pub struct Suite {
    pub name: String,
    pub description: String,
    /// What errors name: the path, or `suite:NAME` for a shipped one.
    pub file: String,
    /// The file's text (`pario suite show`).
    pub text: String,
    pub params: Vec<Param>,
    /// Percent below the baseline that is a regression (`--baseline`).
    pub tolerance: f64,
    /// `allow_cached_reads`: whether reads served from memory (a run with a
    /// page-cache-read or memory-file-system advisory) are wanted; `true`,
    /// `false` (the default) or `"${param}"`, resolved by the plan.
    pub allow_cached_reads: Option<Setting>,
    pub steps: Vec<Step>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    name: Option<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    params: BTreeMap<String, Spanned<toml::Value>>,
    tolerance: Option<Spanned<f64>>,
    allow_cached_reads: Option<Spanned<toml::Value>>,
    #[serde(default, rename = "step")]
    steps: Vec<Spanned<RawStep>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    name: Spanned<String>,
    tool: Spanned<String>,
    args: Spanned<String>,
    repetitions: Option<Spanned<toml::Value>>,
    #[serde(default)]
    after: Vec<Spanned<String>>,
    #[serde(default)]
    rules: RawRules,
    #[serde(default, rename = "figure")]
    figures: Vec<Spanned<RawFigure>>,
    file: Option<Spanned<RawFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    path: Spanned<String>,
    text: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRules {
    min_write_seconds: Option<Spanned<toml::Value>>,
    #[serde(default)]
    read_until_stonewall: bool,
    #[serde(default = "yes")]
    no_verification_errors: bool,
    #[serde(default = "yes")]
    no_cache_reads: bool,
}

impl Default for RawRules {
    fn default() -> Self {
        RawRules {
            min_write_seconds: None,
            read_until_stonewall: false,
            no_verification_errors: true,
            no_cache_reads: true,
        }
    }
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFigure {
    op: Spanned<String>,
    row: String,
    column: Option<String>,
    unit: Spanned<String>,
    score: Option<Spanned<String>>,
}

/// Byte offsets to 1-based line numbers.
struct Lines<'a>(&'a str);

impl Lines<'_> {
    fn at(&self, offset: usize) -> usize {
        let end = offset.min(self.0.len());
        self.0.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }
}

/// Parse `text` read from `file` (the name errors give), its steps naming
/// pario's front ends ([`pario_registry::FRONT_ENDS`]).
pub fn parse(file: &str, text: &str) -> Result<Suite, SuiteError> {
    parse_with(file, text, pario_registry::FRONT_ENDS)
}

/// [`parse`], its steps naming the front ends of `registry`.
pub fn parse_with(file: &str, text: &str, registry: Registry) -> Result<Suite, SuiteError> {
    let lines = Lines(text);
    let err = |line: Option<usize>, reason: String| SuiteError {
        file: file.to_string(),
        line,
        reason,
    };
    let raw: RawSuite = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| lines.at(s.start));
        err(line, e.message().trim().to_string())
    })?;
    let name = raw.name.clone().unwrap_or_else(|| stem(file));
    let mut params = Vec::new();
    for (pname, value) in &raw.params {
        params.push(
            param(pname, value, &lines).map_err(|r| err(Some(lines.at(value.span().start)), r))?,
        );
    }
    let tolerance = match &raw.tolerance {
        Some(t) if !(t.get_ref() > &0.0 && t.get_ref() < &100.0) => {
            return Err(err(
                Some(lines.at(t.span().start)),
                format!(
                    "tolerance = {}: a percentage above 0 and below 100",
                    t.get_ref()
                ),
            ))
        }
        Some(t) => *t.get_ref(),
        None => 5.0,
    };
    let allow_cached_reads = match &raw.allow_cached_reads {
        None => None,
        Some(v) => Some(match v.get_ref() {
            toml::Value::Boolean(b) => Setting {
                text: b.to_string(),
                line: lines.at(v.span().start),
            },
            _ => setting(v, "allow_cached_reads", &lines).map_err(|(l, r)| err(Some(l), r))?,
        }),
    };
    let mut steps = Vec::new();
    for s in &raw.steps {
        steps.push(step(s, &lines, registry).map_err(|(l, r)| err(Some(l), r))?);
    }
    if steps.is_empty() {
        return Err(err(None, "the suite has no [[step]]".into()));
    }
    io500_rules(&steps).map_err(|(l, r)| err(Some(l), r))?;
    Ok(Suite {
        name,
        description: raw.description,
        file: file.to_string(),
        text: text.to_string(),
        params,
        tolerance,
        allow_cached_reads,
        steps,
    })
}

fn stem(file: &str) -> String {
    std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_string())
}

fn scalar(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn param(name: &str, v: &Spanned<toml::Value>, lines: &Lines<'_>) -> Result<Param, String> {
    if !valid_name(name) {
        return Err(format!(
            "parameter {name:?}: names are letters, digits and '_'"
        ));
    }
    let line = lines.at(v.span().start);
    if let Some(default) = scalar(v.get_ref()) {
        return Ok(Param {
            name: name.to_string(),
            default: Some(default),
            help: String::new(),
            line,
            kind: None,
        });
    }
    let toml::Value::Table(t) = v.get_ref() else {
        return Err(format!(
            "parameter {name}: a value, or {{ default = ..., help = \"...\" }}"
        ));
    };
    if let Some(k) = t
        .keys()
        .find(|k| !["default", "help", "kind"].contains(&k.as_str()))
    {
        return Err(format!(
            "parameter {name}: unknown key {k:?} (default, help, kind)"
        ));
    }
    let kind = match t.get("kind") {
        None => None,
        Some(toml::Value::String(k)) if k == "dir" => Some(ParamKind::Dir),
        Some(other) => {
            let shown = match other {
                toml::Value::String(k) => format!("{k:?}"),
                v => format!("{v:?}"),
            };
            return Err(format!(
                "parameter {name}: kind {shown}: the only kind is \"dir\" (an existing directory)"
            ));
        }
    };
    let default = match t.get("default") {
        None => None,
        Some(d) => Some(scalar(d).ok_or(format!("parameter {name}: the default must be a value"))?),
    };
    let help = t
        .get("help")
        .and_then(|h| h.as_str())
        .unwrap_or("")
        .to_string();
    Ok(Param {
        name: name.to_string(),
        default,
        help,
        line,
        kind,
    })
}

/// Parameter and step names: letters, digits, '_' and '-' (steps).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn setting(
    v: &Spanned<toml::Value>,
    what: &str,
    lines: &Lines<'_>,
) -> Result<Setting, (usize, String)> {
    let line = lines.at(v.span().start);
    match v.get_ref() {
        toml::Value::String(s) => Ok(Setting {
            text: s.clone(),
            line,
        }),
        toml::Value::Integer(i) => Ok(Setting {
            text: i.to_string(),
            line,
        }),
        toml::Value::Float(f) => Ok(Setting {
            text: f.to_string(),
            line,
        }),
        _ => Err((line, format!("{what}: a value or a \"${{parameter}}\""))),
    }
}

fn step(
    s: &Spanned<RawStep>,
    lines: &Lines<'_>,
    registry: Registry,
) -> Result<Step, (usize, String)> {
    let r = s.get_ref();
    let line = lines.at(r.name.span().start);
    let name = r.name.get_ref().clone();
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !ok {
        return Err((
            line,
            format!("step name {name:?}: letters, digits, '-' and '_'"),
        ));
    }
    let tool = StepTool::parse(r.tool.get_ref(), registry).ok_or_else(|| {
        (
            lines.at(r.tool.span().start),
            format!(
                "step {name}: unknown tool {:?} (one of: {})",
                r.tool.get_ref(),
                pario_registry::names(registry).join(", ")
            ),
        )
    })?;
    let repetitions = match &r.repetitions {
        Some(v) => setting(v, &format!("step {name}: repetitions"), lines)?,
        None => Setting {
            text: "1".into(),
            line,
        },
    };
    let min_write_seconds = match &r.rules.min_write_seconds {
        Some(v) => Some(setting(
            v,
            &format!("step {name}: min_write_seconds"),
            lines,
        )?),
        None => None,
    };
    let mut figures = Vec::new();
    for f in &r.figures {
        figures.push(figure(&name, f, lines)?);
    }
    Ok(Step {
        name,
        line,
        tool,
        args: r.args.get_ref().clone(),
        args_line: lines.at(r.args.span().start),
        repetitions,
        after: r
            .after
            .iter()
            .map(|a| (a.get_ref().clone(), lines.at(a.span().start)))
            .collect(),
        file: r.file.as_ref().map(|f| step_file(f.get_ref(), lines)),
        rules: Rules {
            min_write_seconds,
            read_until_stonewall: r.rules.read_until_stonewall,
            no_verification_errors: r.rules.no_verification_errors,
            no_cache_reads: r.rules.no_cache_reads,
        },
        figures,
    })
}

fn step_file(f: &RawFile, lines: &Lines<'_>) -> StepFile {
    let setting = |v: &Spanned<String>| Setting {
        text: v.get_ref().clone(),
        line: lines.at(v.span().start),
    };
    StepFile {
        path: setting(&f.path),
        text: setting(&f.text),
    }
}

fn figure(
    step: &str,
    f: &Spanned<RawFigure>,
    lines: &Lines<'_>,
) -> Result<Figure, (usize, String)> {
    let r = f.get_ref();
    let line = lines.at(f.span().start);
    let op_text = r.op.get_ref().replace('-', "_");
    let op: pario_results::Operation = serde_json::from_value(serde_json::Value::String(op_text))
        .map_err(|_| {
        (
            lines.at(r.op.span().start),
            format!(
                "step {step}: figure op {:?}: not an operation (write, read, file-create, \
                     file-stat, file-read, file-remove, dir-create, ...)",
                r.op.get_ref()
            ),
        )
    })?;
    let unit = crate::table::Unit::parse(r.unit.get_ref()).ok_or_else(|| {
        (
            lines.at(r.unit.span().start),
            format!(
                "step {step}: figure unit {:?}: one of {}",
                r.unit.get_ref(),
                crate::table::Unit::NAMES.join(", ")
            ),
        )
    })?;
    let score = match &r.score {
        None => None,
        Some(s) => Some(score_kind(step, s, unit, lines)?),
    };
    Ok(Figure {
        source: Source::Op(op),
        row: r.row.clone(),
        column: r.column.clone().unwrap_or_else(|| "value".to_string()),
        unit,
        score,
        line,
    })
}

fn score_kind(
    step: &str,
    s: &Spanned<String>,
    unit: crate::table::Unit,
    lines: &Lines<'_>,
) -> Result<ScoreKind, (usize, String)> {
    use crate::table::Unit;
    let line = lines.at(s.span().start);
    match (s.get_ref().as_str(), unit) {
        ("bw", Unit::GiBs) => Ok(ScoreKind::Bandwidth),
        ("md", Unit::KIops) => Ok(ScoreKind::Metadata),
        ("bw", _) | ("md", _) => Err((
            line,
            format!("step {step}: a score figure is in GiB/s (bw) or kIOPS (md)"),
        )),
        (other, _) => Err((
            line,
            format!("step {step}: score {other:?}: \"bw\" or \"md\""),
        )),
    }
}

/// An io500 step's table and score are the io500 run's: such a step takes
/// no figure and no minimum write time (the run holds its write phases to
/// its stonewall itself), a suite has at most one, and no other step of
/// it carries a score.
fn io500_rules(steps: &[Step]) -> Result<(), (usize, String)> {
    let Some(io) = steps.iter().find(|s| s.tool.is_io500()) else {
        return Ok(());
    };
    if let Some(f) = io.figures.first() {
        return Err((
            f.line,
            format!(
                "step {}: an io500 step takes no figure (its table is the io500 run's \
                 [RESULT] and [SCORE ] lines)",
                io.name
            ),
        ));
    }
    if let Some(m) = &io.rules.min_write_seconds {
        return Err((
            m.line,
            format!(
                "step {}: min_write_seconds: an io500 run holds its write phases to its \
                 [debug] stonewall-time itself",
                io.name
            ),
        ));
    }
    if let Some(other) = steps.iter().filter(|s| s.tool.is_io500()).nth(1) {
        return Err((
            other.line,
            format!(
                "step {}: a second io500 step (the suite's score is step {}'s)",
                other.name, io.name
            ),
        ));
    }
    let scored = steps
        .iter()
        .flat_map(|s| s.figures.iter().map(move |f| (s, f)));
    if let Some((s, f)) = scored.into_iter().find(|(_, f)| f.score.is_some()) {
        return Err((
            f.line,
            format!(
                "step {}: score: the suite's score is the io500 run's (step {})",
                s.name, io.name
            ),
        ));
    }
    Ok(())
}
