//! From a [`Suite`] and the `--set` values to the resolved [`Plan`]: every
//! `${param}` replaced, repetitions and minimum times numbers, the steps in
//! an order that respects `after` (file order otherwise), each command line
//! split into words and checked by its own front end's parser. Nothing here
//! touches storage or MPI; every refusal names the file and line.

use crate::model::{Step, StepTool, Suite, SuiteError};
use std::collections::BTreeMap;

/// Parameters every suite has, set by the run itself.
pub const BUILTINS: [&str; 2] = ["ranks", "ranks_per_node"];

/// What the run knows about its ranks (for `${ranks}` and the checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ranks {
    pub ranks: u32,
    pub per_node: u32,
}

/// One step ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedStep {
    /// Index into `Suite::steps`.
    pub index: usize,
    pub name: String,
    pub tool: StepTool,
    /// Program name first.
    pub argv: Vec<String>,
    pub repetitions: u32,
    pub min_write_seconds: Option<f64>,
    /// The step's `file`, resolved, when its command line names it: rank 0
    /// writes it before the step runs.
    pub file: Option<PlannedFile>,
}

/// A file a step writes before it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedFile {
    pub path: String,
    pub text: String,
}

/// The resolved suite: steps in run order, and the parameter values used.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub steps: Vec<PlannedStep>,
    pub values: BTreeMap<String, String>,
    /// The suite's `allow_cached_reads`, resolved (default false).
    pub allow_cached_reads: bool,
}

/// Front-end check of one command line: `Err` holds the refusal.
pub type Checker<'a> = &'a dyn Fn(StepTool, &[String], Ranks) -> Result<(), String>;

/// Resolve `suite` with `sets` (`--set name=value`) for `ranks`, checking
/// every step's command line with `check`.
pub fn plan(
    suite: &Suite,
    sets: &[(String, String)],
    ranks: Ranks,
    check: Checker<'_>,
) -> Result<Plan, SuiteError> {
    let err = |line: Option<usize>, reason: String| SuiteError {
        file: suite.file.clone(),
        line,
        reason,
    };
    let values = values(suite, sets, ranks).map_err(|(l, r)| err(l, r))?;
    let order = order(suite).map_err(|(l, r)| err(Some(l), r))?;
    let mut steps = Vec::new();
    for index in order {
        let s = &suite.steps[index];
        let p = resolve_step(s, index, &values).map_err(|(l, r)| err(Some(l), r))?;
        inside_a_dir(suite, &values, s, p.file.as_ref()).map_err(|(l, r)| err(Some(l), r))?;
        io500_config(s, p.file.as_ref()).map_err(|(l, r)| err(Some(l), r))?;
        check(s.tool, &p.argv[1..], ranks).map_err(|e| {
            err(
                Some(s.args_line),
                format!(
                    "step {}: {} refuses the command line: {e}",
                    s.name,
                    s.tool.name()
                ),
            )
        })?;
        steps.push(p);
    }
    let allow_cached_reads = match &suite.allow_cached_reads {
        None => false,
        Some(a) => {
            let t = substitute(&a.text, &values).map_err(|e| err(Some(a.line), e))?;
            match t.trim() {
                "true" | "yes" | "1" => true,
                "false" | "no" | "0" => false,
                other => {
                    return Err(err(
                        Some(a.line),
                        format!("allow_cached_reads {other:?}: true or false"),
                    ))
                }
            }
        }
    };
    Ok(Plan {
        steps,
        values,
        allow_cached_reads,
    })
}

/// The first parameter declared `kind = "dir"` whose value is not an
/// existing directory, as a refusal naming the parameter and the path
/// (`pario suite run` checks this before the first step; a dry run does not).
pub fn missing_dir(suite: &Suite, plan: &Plan) -> Option<String> {
    suite
        .params
        .iter()
        .filter(|p| p.kind == Some(crate::model::ParamKind::Dir))
        .find_map(|p| {
            let v = plan.values.get(&p.name)?;
            let why = match std::fs::metadata(v) {
                Ok(m) if m.is_dir() => return None,
                Ok(_) => "not a directory",
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => "no such directory",
                Err(_) => "cannot be read",
            };
            Some(format!(
                "parameter {} = {v}: {why} (it must exist before the suite runs; nothing was run)",
                p.name
            ))
        })
}

/// A step's file must lie inside a `kind = "dir"` parameter's directory
/// (no `..`): a suite writes nowhere else.
fn inside_a_dir(
    suite: &Suite,
    values: &BTreeMap<String, String>,
    s: &Step,
    file: Option<&PlannedFile>,
) -> Result<(), (usize, String)> {
    use std::path::{Component, Path};
    let (Some(f), Some(setting)) = (file, s.file.as_ref()) else {
        return Ok(());
    };
    let path = Path::new(&f.path);
    let climbs = path.components().any(|c| c == Component::ParentDir);
    let inside = suite
        .params
        .iter()
        .filter(|p| p.kind == Some(crate::model::ParamKind::Dir))
        .filter_map(|p| values.get(&p.name))
        .any(|d| !d.is_empty() && path.starts_with(d) && path != Path::new(d));
    if inside && !climbs {
        return Ok(());
    }
    Err((
        setting.path.line,
        format!(
            "step {}: file {}: not inside a directory parameter (kind = \"dir\"); \
             a suite writes its files only there",
            s.name, f.path
        ),
    ))
}

/// The config an io500 step writes is read as the io500 program will read
/// it: a bad value (`--set hard_segments=many`) is refused before anything
/// runs, naming the file's line.
fn io500_config(s: &Step, file: Option<&PlannedFile>) -> Result<(), (usize, String)> {
    let (Some(f), Some(setting)) = (file, s.file.as_ref()) else {
        return Ok(());
    };
    if !s.tool.is_io500() {
        return Ok(());
    }
    pario_io500::config::Config::parse(&f.text, &f.path)
        .map(|_| ())
        .map_err(|e| {
            (
                setting.text.line,
                format!("step {}: the io500 config it writes: {e}", s.name),
            )
        })
}

/// The value of every parameter: `--set`, else the default; built-ins.
fn values(
    suite: &Suite,
    sets: &[(String, String)],
    ranks: Ranks,
) -> Result<BTreeMap<String, String>, (Option<usize>, String)> {
    let mut v = BTreeMap::new();
    v.insert("ranks".to_string(), ranks.ranks.to_string());
    v.insert("ranks_per_node".to_string(), ranks.per_node.to_string());
    for (k, _) in sets {
        if BUILTINS.contains(&k.as_str()) {
            return Err((
                None,
                format!("--set {k}: set by the run itself (the rank count)"),
            ));
        }
        if !suite.params.iter().any(|p| &p.name == k) {
            let known: Vec<&str> = suite.params.iter().map(|p| p.name.as_str()).collect();
            return Err((
                None,
                format!(
                    "--set {k}: the suite has no parameter {k} (it has: {})",
                    known.join(", ")
                ),
            ));
        }
    }
    let mut raw: Vec<(&str, String, usize)> = Vec::new();
    for p in &suite.params {
        if BUILTINS.contains(&p.name.as_str()) {
            return Err((
                Some(p.line),
                format!("parameter {}: a built-in name", p.name),
            ));
        }
        let set = sets
            .iter()
            .rev()
            .find(|(k, _)| k == &p.name)
            .map(|(_, v)| v.clone());
        match set.or_else(|| p.default.clone()) {
            Some(val) => raw.push((p.name.as_str(), val, p.line)),
            None => {
                let help = if p.help.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", p.help)
                };
                return Err((
                    Some(p.line),
                    format!(
                        "parameter {} has no default: give --set {}=VALUE{help}",
                        p.name, p.name
                    ),
                ));
            }
        }
    }
    resolve_params(&mut v, raw)?;
    Ok(v)
}

/// The `${name}`s of `text` (names, in order; none when unterminated).
fn references(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else { break };
        out.push(&after[..end]);
        rest = &after[end + 1..];
    }
    out
}

/// Values may use the built-ins and other parameters
/// (`config = "${dir}/io500.ini"`): each is resolved once every parameter
/// it names is; a name the suite does not declare, or a cycle, is refused
/// on the line of the parameter that has it.
fn resolve_params(
    v: &mut BTreeMap<String, String>,
    mut raw: Vec<(&str, String, usize)>,
) -> Result<(), (Option<usize>, String)> {
    while !raw.is_empty() {
        let ready = raw.iter().position(|(_, val, _)| {
            references(val)
                .iter()
                .all(|r| v.contains_key(*r) || !raw.iter().any(|(n, _, _)| n == r))
        });
        let Some(i) = ready else {
            let (name, _, line) = &raw[0];
            return Err((
                Some(*line),
                format!("parameter {name}: its value depends on a cycle of ${{...}} references"),
            ));
        };
        let (name, val, line) = raw.remove(i);
        let val =
            substitute(&val, v).map_err(|e| (Some(line), format!("parameter {name}: {e}")))?;
        v.insert(name.to_string(), val);
    }
    Ok(())
}

/// Replace every `${name}` in `text`; an unknown name is refused.
pub fn substitute(text: &str, values: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("unterminated \"${{\" in {text:?}"))?;
        let name = &after[..end];
        match values.get(name) {
            Some(v) => out.push_str(v),
            None => {
                let mut known: Vec<&str> = values.keys().map(|k| k.as_str()).collect();
                known.sort_unstable();
                return Err(format!(
                    "unknown parameter ${{{name}}} (declared: {})",
                    known.join(", ")
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn resolve_step(
    s: &Step,
    index: usize,
    values: &BTreeMap<String, String>,
) -> Result<PlannedStep, (usize, String)> {
    let at = |line: usize| move |e: String| (line, format!("step {}: {e}", s.name));
    // Words first, then parameters: a value with blanks stays one word.
    let mut argv = vec![s.tool.name().to_string()];
    for word in split_words(&s.args).map_err(at(s.args_line))? {
        argv.push(substitute(&word, values).map_err(at(s.args_line))?);
    }
    let reps_text = substitute(&s.repetitions.text, values).map_err(at(s.repetitions.line))?;
    let repetitions = match reps_text.trim().parse::<u32>() {
        Ok(n) if n >= 1 => n,
        _ => {
            return Err(at(s.repetitions.line)(format!(
                "repetitions {reps_text:?}: a whole number from 1"
            )))
        }
    };
    let min_write_seconds = match &s.rules.min_write_seconds {
        None => None,
        Some(m) => {
            let t = substitute(&m.text, values).map_err(at(m.line))?;
            match t.trim().parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Some(x),
                _ => {
                    return Err(at(m.line)(format!(
                        "min_write_seconds {t:?}: seconds, 0 or more"
                    )))
                }
            }
        }
    };
    let file = match &s.file {
        None => None,
        Some(f) => Some(PlannedFile {
            path: substitute(&f.path.text, values).map_err(at(f.path.line))?,
            text: substitute(&f.text.text, values).map_err(at(f.text.line))?,
        }),
    };
    let file = file.filter(|f| argv[1..].contains(&f.path));
    Ok(PlannedStep {
        file,
        index,
        name: s.name.clone(),
        tool: s.tool,
        argv,
        repetitions,
        min_write_seconds,
    })
}

/// Shell-like words: blanks separate, '...' and "..." quote, \ escapes.
pub fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur: Option<String> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(cur.take()),
            '\'' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => w.push(x),
                        None => return Err(format!("unterminated ' in {s:?}")),
                    }
                }
            }
            '"' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => w.push(chars.next().ok_or(format!("trailing \\ in {s:?}"))?),
                        Some(x) => w.push(x),
                        None => return Err(format!("unterminated \" in {s:?}")),
                    }
                }
            }
            '\\' => {
                let x = chars.next().ok_or(format!("trailing \\ in {s:?}"))?;
                cur.get_or_insert_with(String::new).push(x);
            }
            c => cur.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(cur);
    Ok(words)
}

/// Step indices in run order: a step after every step its `after` names,
/// otherwise in file order. Unknown names, duplicates and cycles refused.
pub fn order(suite: &Suite) -> Result<Vec<usize>, (usize, String)> {
    let mut index = BTreeMap::new();
    for (i, s) in suite.steps.iter().enumerate() {
        if index.insert(s.name.as_str(), i).is_some() {
            return Err((
                s.line,
                format!("step {}: a second step of that name", s.name),
            ));
        }
    }
    let mut deps: Vec<Vec<usize>> = Vec::new();
    for s in &suite.steps {
        let mut d = Vec::new();
        for (a, line) in &s.after {
            match index.get(a.as_str()) {
                Some(&j) => d.push(j),
                None => {
                    return Err((
                        *line,
                        format!("step {}: after {a:?}: no step of that name", s.name),
                    ))
                }
            }
        }
        deps.push(d);
    }
    let mut done = vec![false; suite.steps.len()];
    let mut out = Vec::new();
    while out.len() < suite.steps.len() {
        let next = (0..suite.steps.len()).find(|&i| !done[i] && deps[i].iter().all(|&j| done[j]));
        match next {
            Some(i) => {
                done[i] = true;
                out.push(i);
            }
            None => return Err(cycle(suite, &deps, &done)),
        }
    }
    Ok(out)
}

/// Name the steps of a cycle among those not done.
fn cycle(suite: &Suite, deps: &[Vec<usize>], done: &[bool]) -> (usize, String) {
    // Walk "after" edges from the first blocked step until a step repeats.
    let mut at = (0..done.len()).find(|&i| !done[i]).unwrap_or(0);
    let mut path = vec![at];
    while let Some(&next) = deps[at].iter().find(|&&j| !done[j]) {
        if let Some(pos) = path.iter().position(|&p| p == next) {
            path.drain(..pos);
            path.push(next);
            break;
        }
        path.push(next);
        at = next;
    }
    let names: Vec<&str> = path.iter().map(|&i| suite.steps[i].name.as_str()).collect();
    let first = &suite.steps[path[0]];
    (
        first.line,
        format!("a cycle in \"after\": {}", names.join(" after ")),
    )
}
