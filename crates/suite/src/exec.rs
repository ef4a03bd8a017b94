//! Running a suite inside one MPI job: MPI is initialised once (through
//! `pario_comm`), every step's command line is checked before anything
//! runs, then each repetition of each step runs in-process through its
//! registered front end's `run_in` (`pario_frontend::contract`) on the
//! job's communicator, kept as its own
//! run tagged `suite=`, `suite_run=`, `step=`, `rep=` (plus the user's
//! tags). A suite run has an id; `--resume ID` finds the steps of that id
//! already kept (exit status 0) and does not run them again; a kept step
//! run with another command line, rank count or node layout refuses the
//! resume (exit 2), since its figures would be averaged with this run's. At the end rank 0 reads the records back, applies the run rules
//! and prints the suite's table.
//!
//! Every decision that changes what the ranks do (the suite run id, what
//! is done already, a step's status) is made once and broadcast, so all
//! ranks make the same collective calls.

use crate::model::{Registry, StepTool, Suite, SuiteError};
use crate::plan::{self, Plan, PlannedStep, Ranks};
use crate::render::{self, Format};
use crate::table::{self, StepRun};
use crate::{rules, EXIT_BAD_INPUT, EXIT_INVALID, EXIT_OK};
use pario_comm::mpi_comm::MpiWorld;
use pario_comm::{Comm, ReduceOp};
use pario_engine::interrupt::Interrupt;
use pario_frontend::{Console, Settings};
use pario_results::RunRecord;
use pario_store::{KeepTarget, RunFilter, Store};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// One line on stderr in a single write. Under mpirun the ranks' and the
/// launcher's stderr are forwarded interleaved, and a line written in
/// pieces (`eprintln!` writes its format's pieces one by one) can be split
/// by another process's text.
pub fn say(line: &str) {
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("{line}\n").as_bytes());
}

/// `pario suite run`'s options.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// A shipped suite's name or a file.
    pub target: String,
    /// `--set name=value`.
    pub sets: Vec<(String, String)>,
    /// `--tag key=value`: put on every step run.
    pub tags: Vec<(String, String)>,
    pub dry_run: bool,
    /// `--resume ID`.
    pub resume: Option<String>,
    pub format: Format,
    /// `--baseline key=value`.
    pub baseline: Option<(String, String)>,
    /// `--results-dir` and `--db` (else `PARIO_RESULTS_DIR`, `PARIO_DB`).
    pub results_dir: Option<std::path::PathBuf>,
    pub db: Option<String>,
}

/// The front ends' own checks of a step's command line.
pub fn check(tool: StepTool, args: &[String], ranks: Ranks) -> Result<(), String> {
    tool.0.check(args, ranks.ranks)
}

/// Load and resolve a suite for `ranks` (no MPI, no storage), its steps
/// naming the front ends of `registry`.
pub fn prepare(
    opts: &RunOptions,
    ranks: Ranks,
    registry: Registry,
) -> Result<(Suite, Plan), SuiteError> {
    let suite = crate::shipped::load_with(&opts.target, registry)?;
    let plan = plan::plan(&suite, &opts.sets, ranks, &check)?;
    Ok((suite, plan))
}

/// Run the suite as `opts` says on pario's front ends
/// ([`pario_registry::FRONT_ENDS`]); the exit status (the same on every
/// rank).
pub fn run(opts: &RunOptions) -> i32 {
    let Some(world) = MpiWorld::init() else {
        say("pario suite: MPI could not be initialised");
        return EXIT_INVALID;
    };
    // Before anything else is exchanged: every rank runs this build.
    if let Some(code) = pario_frontend::check_launch(world.world(), "pario suite") {
        drop(world);
        return code;
    }
    let settings = Settings {
        interrupt: Interrupt::register(),
        ..Settings::from_env()
    };
    let code = run_on(world.world(), opts, pario_registry::FRONT_ENDS, settings);
    drop(world);
    code
}

/// Refuse a `pario suite run` command line (bad `--set`, `--tag`, ...)
/// inside the MPI job, so that one rank, not every rank, says why.
/// The world is dropped only after rank 0 has said it: its drop waits for
/// every rank, so none exits non-zero (and has mpirun end the job) before
/// the line is out.
pub fn refuse(msg: &str) -> i32 {
    let world = MpiWorld::init();
    if world.as_ref().is_none_or(|w| w.world().rank() == 0) {
        say(&format!("pario suite: {msg}"));
    }
    drop(world);
    EXIT_BAD_INPUT
}

/// Collective: run the suite as `opts` says on `world`, its steps naming
/// the front ends of `registry` (a test adds its own), with the
/// environment's `settings` (SIGINT/SIGTERM registered by the caller);
/// the exit status, the same on every rank.
pub fn run_on(
    world: &dyn Comm,
    opts: &RunOptions,
    registry: Registry,
    mut settings: Settings,
) -> i32 {
    let rank0 = world.rank() == 0;
    let layout = world.node_layout();
    let ranks = Ranks {
        ranks: world.size(),
        per_node: layout.tasks_per_node.max(1),
    };
    let Some((suite, plan)) = prepare_agreed(world, opts, ranks, registry) else {
        return EXIT_BAD_INPUT;
    };
    if opts.dry_run {
        if rank0 {
            print!("{}", dry_run_text(&suite, &plan, ranks));
        }
        return EXIT_OK;
    }
    if let Err(code) = dirs_exist(world, &suite, &plan) {
        return code;
    }
    if let Some(dir) = &opts.results_dir {
        settings.keep.results_dir = Ok(dir.clone());
    }
    if let Some(db) = &opts.db {
        settings.keep.db = pario_store::resolve_db_url(Some(db))
            .map(Some)
            .map_err(|e| e.to_string());
    }
    // Once the database times out for one step, the later steps keep their
    // records as files only (rank 0 says so once, see `run_steps`).
    settings.keep.give_up = Some(pario_store::GiveUp::default());
    let suite_run = match &opts.resume {
        Some(id) => id.clone(),
        None => new_id(world),
    };
    let here = Layout {
        ranks: ranks.ranks,
        nodes: layout.num_nodes,
        per_node: layout.tasks_per_node,
    };
    let found = if rank0 {
        match &opts.resume {
            Some(id) => done_steps(&settings.keep, &suite, &plan, id, here),
            None => Ok(BTreeMap::new()),
        }
    } else {
        Ok(BTreeMap::new())
    };
    let found = match agree(world, found) {
        Ok(f) => f,
        Err(e) => {
            if rank0 {
                say(&format!("pario suite: --resume {suite_run}: {e}"));
            }
            return EXIT_BAD_INPUT;
        }
    };
    let job = Job {
        world,
        suite: &suite,
        opts,
        settings: &settings,
        suite_run: &suite_run,
    };
    let runs = match job.run_steps(&plan, &found.0) {
        Ok(runs) => runs,
        Err(stopped) => return stopped,
    };
    let code = if rank0 {
        job.finish(&plan, runs, &found.1, ranks.ranks)
    } else {
        0
    };
    world.broadcast_u64(0, code as u64) as i32
}

/// Every rank checks the suite's `kind = "dir"` parameters (a directory
/// may be node-local); all go on only if all found them. Rank 0 names the
/// parameter and path.
fn dirs_exist(world: &dyn Comm, suite: &Suite, plan: &Plan) -> Result<(), i32> {
    let missing = plan::missing_dir(suite, plan);
    let any = world.all_reduce_u64(&[u64::from(missing.is_some())], ReduceOp::Max)[0];
    if any == 0 {
        return Ok(());
    }
    if world.rank() == 0 {
        let why = missing.unwrap_or_else(|| {
            "a directory parameter does not exist on another rank's node (nothing was run)"
                .to_string()
        });
        say(&format!("pario suite: {}: {why}", suite.file));
    }
    Err(EXIT_BAD_INPUT)
}

/// [`prepare`] on every rank (each reads the file): `None` unless every
/// rank could; rank 0 says why.
fn prepare_agreed(
    world: &dyn Comm,
    opts: &RunOptions,
    ranks: Ranks,
    registry: Registry,
) -> Option<(Suite, Plan)> {
    let rank0 = world.rank() == 0;
    let prepared = prepare(opts, ranks, registry);
    // Every rank read the file itself: all go on only if all could.
    let failed = world.all_reduce_u64(&[u64::from(prepared.is_err())], ReduceOp::Max)[0];
    match prepared {
        Ok(p) if failed == 0 => Some(p),
        Ok(_) => {
            if rank0 {
                say(&format!(
                    "pario suite: {}: another rank could not read or check the suite",
                    opts.target
                ));
            }
            None
        }
        Err(e) => {
            if rank0 {
                say(&format!("pario suite: {e}"));
            }
            None
        }
    }
}

/// A new suite run id (rank 0's, broadcast).
fn new_id(world: &dyn Comm) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    pario_frontend::context::new_run_id(world, now)
}

/// What resume found: (step, rep) -> run id, and rank 0's records of them.
type Found = (BTreeMap<(String, u32), String>, BTreeMap<String, RunRecord>);

/// Rank 0's lookup broadcast: the done (step, rep) and their ids, or the error.
fn agree(
    world: &dyn Comm,
    found: Result<BTreeMap<(String, u32), RunRecord>, String>,
) -> Result<Found, String> {
    let ids: Result<Vec<(String, u32, String)>, String> = found
        .as_ref()
        .map(|m| {
            m.iter()
                .map(|((s, r), rec)| (s.clone(), *r, rec.run_id.clone()))
                .collect()
        })
        .map_err(|e| e.clone());
    let mut bytes = if world.rank() == 0 {
        serde_json::to_vec(&ids).unwrap_or_default()
    } else {
        Vec::new()
    };
    world.broadcast_bytes(0, &mut bytes);
    let ids: Result<Vec<(String, u32, String)>, String> =
        serde_json::from_slice(&bytes).unwrap_or_else(|e| Err(format!("internal: {e}")));
    let ids = ids?;
    let records = found
        .unwrap_or_default()
        .into_values()
        .map(|r| (r.run_id.clone(), r))
        .collect();
    Ok((
        ids.into_iter().map(|(s, r, id)| ((s, r), id)).collect(),
        records,
    ))
}

/// One suite run in progress.
struct Job<'a> {
    world: &'a dyn Comm,
    suite: &'a Suite,
    opts: &'a RunOptions,
    settings: &'a Settings,
    suite_run: &'a str,
}

impl Job<'_> {
    /// Every repetition of every step, in order. `Err(status)`: the suite
    /// was interrupted (130/143) and stops.
    fn run_steps(
        &self,
        plan: &Plan,
        done: &BTreeMap<(String, u32), String>,
    ) -> Result<Vec<StepRun>, i32> {
        let rank0 = self.world.rank() == 0;
        if rank0 {
            self.say(&format!(
                "pario suite: {} as suite run {} (an interrupted run resumes with --resume {})\n",
                self.suite.name, self.suite_run, self.suite_run
            ));
        }
        let mut runs = Vec::new();
        let mut failed: BTreeSet<String> = BTreeSet::new();
        let mut said_db = false;
        for p in &plan.steps {
            let step = &self.suite.steps[p.index];
            let blocked = step.after.iter().find(|(a, _)| failed.contains(a));
            for rep in 1..=p.repetitions {
                let mut run = StepRun {
                    step: p.name.clone(),
                    rep,
                    run_id: None,
                    exit_status: 0,
                    resumed: false,
                    reasons: Vec::new(),
                    record: None,
                };
                if let Some(id) = done.get(&(p.name.clone(), rep)) {
                    run.run_id = Some(id.clone());
                    run.resumed = true;
                    if rank0 {
                        self.say(&format!(
                            "pario suite: step {} rep {rep}: kept earlier as {id}, not run again\n",
                            p.name
                        ));
                    }
                } else if let Some((a, _)) = blocked {
                    run.exit_status = EXIT_INVALID;
                    run.reasons
                        .push(format!("not run: step {a}, which it runs after, failed"));
                } else if let Err(e) = self.write_file(p) {
                    run.exit_status = EXIT_INVALID;
                    run.reasons.push(e);
                    failed.insert(p.name.clone());
                } else {
                    let (status, id) = self.run_one(p, rep);
                    run.exit_status = status;
                    run.run_id = id;
                    if status == 130 || status == 143 {
                        if rank0 {
                            say(&format!(
                                "pario suite: interrupted in step {} rep {rep}; resume with: pario suite run {} --resume {}",
                                p.name, self.opts.target, self.suite_run
                            ));
                        }
                        return Err(status);
                    }
                    if status != 0 && status != 3 {
                        failed.insert(p.name.clone());
                    }
                    if rank0 && !said_db && db_given_up(&self.settings.keep) {
                        said_db = true;
                        say("pario suite: the results database timed out; the remaining steps' \
                             records are kept as JSON files only (`pario db sync` loads them later)");
                    }
                }
                runs.push(run);
            }
        }
        Ok(runs)
    }

    /// Collective: rank 0 writes the step's file (an io500 config.ini made
    /// from the parameters) before the step runs; `Err`: the one-line
    /// reason, on every rank.
    fn write_file(&self, p: &PlannedStep) -> Result<(), String> {
        let Some(f) = &p.file else { return Ok(()) };
        let rank0 = self.world.rank() == 0;
        let wrote = if rank0 {
            std::fs::write(&f.path, &f.text).map_err(|e| {
                format!(
                    "step {}: file {}: {e} (the step did not run)",
                    p.name, f.path
                )
            })
        } else {
            Ok(())
        };
        let bad = self
            .world
            .all_reduce_u64(&[u64::from(wrote.is_err())], ReduceOp::Max)[0];
        if bad == 0 {
            return Ok(());
        }
        let why = wrote.err().unwrap_or_default();
        if rank0 {
            say(&format!("pario suite: {why}"));
        }
        Err(why)
    }

    /// Run one repetition of a step in-process; (status agreed by all ranks, run id).
    fn run_one(&self, p: &PlannedStep, rep: u32) -> (i32, Option<String>) {
        let rank0 = self.world.rank() == 0;
        if rank0 {
            self.say(&format!(
                "\npario suite: step {} rep {rep} of {}: {}\n",
                p.name,
                p.repetitions,
                pario_store::display_command_line(&p.argv)
            ));
        }
        let settings = Settings {
            tags_env: Some(self.tags_text(&p.name, rep)),
            run_id: None,
            ..self.settings.clone()
        };
        let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
        let mut err2 = std::io::stderr();
        let out: &mut dyn Write = if self.opts.format == Format::Text {
            &mut out
        } else {
            &mut err2
        };
        let console = Console::new(p.tool.name(), out, &mut err);
        let (status, id) = p.tool.0.run_in(self.world, &p.argv, &settings, &console);
        let status = self
            .world
            .all_reduce_u64(&[status.max(0) as u64], ReduceOp::Max)[0] as i32;
        (status, id)
    }

    /// PARIO_TAGS, then `--tag`, then the suite's own tags (later wins).
    fn tags_text(&self, step: &str, rep: u32) -> String {
        let mut parts: Vec<String> = self.settings.tags_env.iter().cloned().collect();
        parts.extend(self.opts.tags.iter().map(|(k, v)| format!("{k}={v}")));
        parts.push(format!("{}={}", crate::TAG_SUITE, self.suite.name));
        parts.push(format!("{}={}", crate::TAG_SUITE_RUN, self.suite_run));
        parts.push(format!("{}={step}", crate::TAG_STEP));
        parts.push(format!("{}={rep}", crate::TAG_REP));
        parts.join(",")
    }

    /// Where the steps' text goes: stdout, unless the table is asked for
    /// in a machine format (then stderr, so stdout holds only the table).
    fn say(&self, s: &str) {
        if self.opts.format == Format::Text {
            print!("{s}");
            let _ = std::io::stdout().flush();
        } else {
            eprint!("{s}");
        }
    }

    /// Rank 0: records, rules, table, baseline; the exit status.
    fn finish(
        &self,
        plan: &Plan,
        mut runs: Vec<StepRun>,
        earlier: &BTreeMap<String, RunRecord>,
        ranks: u32,
    ) -> i32 {
        for r in &mut runs {
            let Some(id) = r.run_id.clone() else {
                if r.exit_status != 0 && r.reasons.is_empty() {
                    r.reasons.push(format!(
                        "the step ended with exit status {} and kept no run",
                        r.exit_status
                    ));
                }
                continue;
            };
            let record = earlier
                .get(&id)
                .cloned()
                .or_else(|| read_record(&self.settings.keep, &id));
            match &record {
                Some(rec) => {
                    let step = self.suite.steps.iter().find(|s| s.name == r.step);
                    let min = plan
                        .steps
                        .iter()
                        .find(|p| p.name == r.step)
                        .and_then(|p| p.min_write_seconds);
                    if let Some(s) = step {
                        r.reasons.extend(rules::violations(
                            rec,
                            &s.rules,
                            min,
                            plan.allow_cached_reads,
                        ));
                    }
                }
                None => r
                    .reasons
                    .push(format!("run {id} is not in the results store")),
            }
            r.record = record;
        }
        let mut report = table::build(self.suite, self.suite_run, ranks, runs);
        if let Some((k, v)) = &self.opts.baseline {
            let tag = format!("{k}={v}");
            let baseline = |step: &str| {
                let tags = vec![
                    (crate::TAG_SUITE.to_string(), self.suite.name.clone()),
                    (crate::TAG_STEP.to_string(), step.to_string()),
                    (k.clone(), v.clone()),
                ];
                let tool = self
                    .suite
                    .steps
                    .iter()
                    .find(|s| s.name == step)
                    .map(|s| s.tool);
                kept_runs(&self.settings.keep, &tags)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|r| tool.is_some_and(|t| of_tool(r, t)))
                    .filter(|r| {
                        r.tags.get(crate::TAG_SUITE_RUN).map(String::as_str) != Some(self.suite_run)
                    })
                    .filter(|r| r.exit_status == 0 && !r.interrupted)
                    .collect()
            };
            table::compare(&mut report, self.suite, &tag, &baseline);
        }
        let text = render::render(&report, self.opts.format);
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
        if report.valid && !report.regression {
            EXIT_OK
        } else {
            EXIT_INVALID
        }
    }
}

/// `--dry-run`: the parameters and every resolved command line.
pub fn dry_run_text(suite: &Suite, plan: &Plan, ranks: Ranks) -> String {
    let mut s = format!(
        "suite {} ({}) on {} rank(s), {} per node: every command line checked, nothing run\n\nparameters:\n",
        suite.name, suite.file, ranks.ranks, ranks.per_node
    );
    for (k, v) in &plan.values {
        s.push_str(&format!("  {k} = {v}\n"));
    }
    s.push_str("\nsteps, in order:\n");
    for p in &plan.steps {
        for rep in 1..=p.repetitions {
            s.push_str(&format!(
                "  {} rep {rep}/{}: {}\n",
                p.name,
                p.repetitions,
                pario_store::display_command_line(&p.argv)
            ));
        }
        if let Some(f) = &p.file {
            s.push_str(&format!("    before it, writes {}:\n", f.path));
            for line in f.text.lines() {
                s.push_str(format!("      {line}").trim_end());
                s.push('\n');
            }
        }
    }
    s
}

/// A kept record by id: the JSON file, else the database.
pub fn read_record(keep: &KeepTarget, id: &str) -> Option<RunRecord> {
    if let Ok(dir) = &keep.results_dir {
        if let Ok(path) = pario_store::record_path(dir, id) {
            if let Ok(r) = pario_store::read_record_json(&path) {
                return Some(r);
            }
        }
    }
    let mut db = open_db(keep)?;
    db.get_run(id).ok().flatten()
}

/// Whether the database timed out for an earlier step of this suite run.
fn db_given_up(keep: &KeepTarget) -> bool {
    keep.give_up
        .as_ref()
        .is_some_and(pario_store::GiveUp::given_up)
}

fn open_db(keep: &KeepTarget) -> Option<pario_store::DbStore> {
    if db_given_up(keep) {
        return None;
    }
    let url = keep.db.as_ref().ok()?.as_ref()?;
    let o = pario_store::OpenOptions::from_env().ok()?.reader();
    pario_store::DbStore::open_with(url, &o).ok()
}

/// Kept runs carrying every tag of `tags`: from the database when there
/// is one, else by reading the results directory.
pub fn kept_runs(keep: &KeepTarget, tags: &[(String, String)]) -> Result<Vec<RunRecord>, String> {
    if let Some(mut db) = open_db(keep) {
        let filter = RunFilter {
            tags: tags.to_vec(),
            ..RunFilter::default()
        };
        if let Ok(list) = db.list_runs(&filter) {
            return Ok(list
                .iter()
                .filter_map(|s| {
                    read_record(keep, &s.run_id).or_else(|| db.get_run(&s.run_id).ok().flatten())
                })
                .collect());
        }
    }
    let dir = keep.results_dir.as_ref().map_err(|e| e.clone())?;
    let files = pario_store::record_files(dir).map_err(|e| e.to_string())?;
    Ok(files
        .iter()
        .filter_map(|f| pario_store::read_record_json(f).ok())
        .filter(|r| tags.iter().all(|(k, v)| r.tags.get(k) == Some(v)))
        .collect())
}

/// Whether `r` is a run of the step's own tool: an io500 step's phases are
/// kept as runs of their own tools (ior, mdtest, pfind) with the step's
/// tags; the step's run is the io500 record.
fn of_tool(r: &RunRecord, tool: StepTool) -> bool {
    r.tool
        .as_ref()
        .is_none_or(|t| *t == tool.0.descriptor().tool)
}

/// The ranks and nodes of a run: what a resumed suite run must share with
/// the repetitions it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub ranks: u32,
    pub nodes: u32,
    pub per_node: u32,
}

/// Why kept run `r` of (step, rep) cannot be averaged with this run's
/// repetitions: another command line, rank count or node layout.
pub fn resume_mismatch(r: &RunRecord, argv: &[String], here: Layout) -> Option<String> {
    let at = format!(
        "step {} rep {} (run {})",
        r.tags.get(crate::TAG_STEP).map_or("?", String::as_str),
        r.tags.get(crate::TAG_REP).map_or("?", String::as_str),
        r.run_id
    );
    let s = &r.system;
    // Kept command lines are masked (secrets): compare masked with masked.
    let argv = pario_results::secrets::mask_args(argv);
    if r.command_line != argv {
        return Some(format!(
            "{at} was kept with another command line ({}), this run's is {}",
            pario_store::display_command_line(&r.command_line),
            pario_store::display_command_line(&argv)
        ));
    }
    if s.num_tasks != here.ranks {
        return Some(format!(
            "{at} was kept with {} rank(s), this run has {}",
            s.num_tasks, here.ranks
        ));
    }
    if (s.num_nodes, s.tasks_per_node) != (here.nodes, here.per_node) {
        return Some(format!(
            "{at} was kept on {} node(s) with {} rank(s) per node, this run has {} node(s) with {}",
            s.num_nodes, s.tasks_per_node, here.nodes, here.per_node
        ));
    }
    None
}

/// Rank 0, `--resume ID`: the (step, rep) already kept under suite run
/// `id` with exit status 0 (newest first wins). A kept repetition run with
/// another command line, rank count or node layout refuses the resume:
/// its figures would be averaged with ones measured differently.
fn done_steps(
    keep: &KeepTarget,
    suite: &Suite,
    plan: &Plan,
    id: &str,
    here: Layout,
) -> Result<BTreeMap<(String, u32), RunRecord>, String> {
    let tags = [(crate::TAG_SUITE_RUN.to_string(), id.to_string())];
    let mut kept = kept_runs(keep, &tags)?;
    if kept.is_empty() {
        return Err(
            "no step of that suite run is kept (nothing to resume: run the suite anew)".into(),
        );
    }
    if let Some(other) = kept
        .iter()
        .find_map(|r| r.tags.get(crate::TAG_SUITE).filter(|s| **s != suite.name))
    {
        return Err(format!(
            "that suite run is of suite {other}, not {}",
            suite.name
        ));
    }
    kept.sort_by(|a, b| b.began.total_cmp(&a.began));
    let mut done = BTreeMap::new();
    for r in kept {
        let step = r.tags.get(crate::TAG_STEP).cloned().unwrap_or_default();
        let Some(rep) = r
            .tags
            .get(crate::TAG_REP)
            .and_then(|x| x.parse::<u32>().ok())
        else {
            continue;
        };
        let Some(p) = plan.steps.iter().find(|p| p.name == step) else {
            continue;
        };
        if !of_tool(&r, p.tool) {
            continue;
        }
        if done.contains_key(&(step.clone(), rep)) || r.exit_status != 0 || r.interrupted {
            continue;
        }
        if let Some(why) = resume_mismatch(&r, &p.argv, here) {
            return Err(format!(
                "{why}: resume with the same settings, ranks and nodes, or run the suite anew"
            ));
        }
        done.insert((step, rep), r);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2-rank repetition is not kept for a 1-rank resume, nor one of
    /// another layout or command line; each refusal names what differs.
    #[test]
    fn a_resume_refuses_repetitions_measured_differently() {
        let argv: Vec<String> = ["ior", "-w"].iter().map(|s| s.to_string()).collect();
        let mut r = RunRecord {
            run_id: "r1".into(),
            command_line: argv.clone(),
            ..RunRecord::default()
        };
        r.tags.insert(crate::TAG_STEP.into(), "w".into());
        r.tags.insert(crate::TAG_REP.into(), "1".into());
        (
            r.system.num_tasks,
            r.system.num_nodes,
            r.system.tasks_per_node,
        ) = (2, 1, 2);
        let two = Layout {
            ranks: 2,
            nodes: 1,
            per_node: 2,
        };
        assert_eq!(resume_mismatch(&r, &argv, two), None);
        let one = Layout {
            ranks: 1,
            nodes: 1,
            per_node: 1,
        };
        let why = resume_mismatch(&r, &argv, one).unwrap();
        assert!(
            why.contains("step w rep 1 (run r1) was kept with 2 rank(s), this run has 1"),
            "{why}"
        );
        let spread = Layout {
            ranks: 2,
            nodes: 2,
            per_node: 1,
        };
        let why = resume_mismatch(&r, &argv, spread).unwrap();
        assert!(why.contains("1 node(s) with 2 rank(s) per node"), "{why}");
        let other: Vec<String> = ["ior", "-r"].iter().map(|s| s.to_string()).collect();
        let why = resume_mismatch(&r, &other, two).unwrap();
        assert!(why.contains("another command line (ior -w)"), "{why}");
    }
}
