//! Running one phase for real, collectively on every rank: the ior and
//! mdtest front ends in-process on the communicator with the phase's
//! argument vector, each kept as a pario run tagged with the IO500 run
//! and the phase, its figures read back from that record; pfind on the
//! same communicator; the timestamp file.

use crate::commands::PhaseCommand;
use crate::figures::{self, Figures};
use crate::output::Note;
use crate::plan::Context;
use crate::validity;
use pario_comm::Comm;
use pario_frontend::contract::Registered;
use pario_frontend::{Console, Settings};
use pario_results::RunRecord;
use std::path::Path;

/// What a phase leaves: its figures, its own output (the per-phase
/// `.txt` file, rank 0), and why it could not run to its end.
#[derive(Debug, Default)]
pub struct Ran {
    pub figures: Figures,
    pub stdout: Option<String>,
    pub failed: Option<String>,
}

/// Where the phases run and are kept.
pub struct Env<'a, 'w> {
    pub comm: &'a dyn Comm,
    /// The io500 run's settings (its id fixed).
    pub settings: &'a Settings,
    /// The io500 run id, tagged on every phase's run.
    pub run_id: &'a str,
    /// io500's own console: each phase's stderr goes there.
    pub console: &'a Console<'w>,
}

impl Env<'_, '_> {
    /// The settings of a phase's run: a new id, the tags of the io500 run
    /// and the phase added to the environment's.
    pub fn phase_settings(&self, phase: &str) -> Settings {
        let tags = format!("io500_run={},io500_phase={phase}", self.run_id);
        let tags_env = match self.settings.tags_env.as_deref() {
            Some(t) if !t.trim().is_empty() => format!("{t},{tags}"),
            _ => tags,
        };
        Settings {
            tags_env: Some(tags_env),
            run_id: None,
            ..self.settings.clone()
        }
    }

    fn root(&self) -> bool {
        self.comm.rank() == 0
    }
}

/// How ior runs inside io500: its front end on the contract, like the
/// other benchmarks.
fn run_ior(
    comm: &dyn Comm,
    argv: &[String],
    settings: &Settings,
    console: &Console<'_>,
) -> (i32, Option<String>) {
    let fe: &dyn Registered = &pario_ior::front::FRONT_END;
    fe.run_in(comm, argv, settings, console)
}

/// ior's words for a run on `nodes` nodes: pario's ior refuses a `-Q`
/// (nodes to shift by with `-C`) of 2 or more that is not below the node
/// count, where IOR takes it modulo the ranks (ior-rnd4K-easy-read's
/// `-C -Q 2` on one or two nodes); such a `-Q` becomes the largest pario
/// takes (1 on one node). The `exe` line keeps the harness's words; the
/// phase's pario run records the words that ran.
pub fn ior_words(mut argv: Vec<String>, nodes: u64) -> Vec<String> {
    let at = argv.iter().position(|w| w == "-Q");
    if let Some(v) = at.and_then(|i| argv.get_mut(i + 1)) {
        let q: u64 = v.parse().unwrap_or(0);
        if q > 1 && q >= nodes {
            *v = nodes.saturating_sub(1).max(1).to_string();
        }
    }
    argv
}

/// Whether the phase and its family (`ior-easy` for every ior-easy phase)
/// are set to run.
pub fn enabled(ctx: &Context, phase: &str) -> bool {
    let family = match phase {
        "ior-rnd4K-easy-read" => "ior-easy",
        p => p.rsplit_once('-').map_or(p, |(f, _)| f),
    };
    ctx.cfg.flag(phase, "run") != Some(false) && ctx.cfg.flag(family, "run") != Some(false)
}

/// Collective: run the benchmark of an ior, mdtest or md-workbench phase
/// with `cmd`'s words (program name first, `./` dropped) and read its
/// figures back.
pub fn benchmark(env: &Env, ctx: &Context, phase: &str, cmd: &PhaseCommand) -> Ran {
    let mut argv = cmd.argv.clone();
    if let Some(first) = argv.first_mut() {
        *first = first.trim_start_matches("./").to_string();
    }
    let settings = env.phase_settings(phase);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let kind = Kind::of(phase);
    if kind == Kind::Ior {
        argv = ior_words(argv, u64::from(env.comm.node_layout().num_nodes));
    }
    let (status, id) = {
        let console = Console::new(kind.program(), &mut out, &mut err);
        match kind {
            Kind::Ior => run_ior(env.comm, &argv, &settings, &console),
            Kind::Mdtest => {
                let fe: &dyn Registered = &pario_mdtest::front::FRONT_END;
                fe.run_in(env.comm, &argv, &settings, &console)
            }
            Kind::MdWorkbench => {
                let fe: &dyn Registered = &pario_md_workbench::front::FRONT_END;
                fe.run_in(env.comm, &argv, &settings, &console)
            }
        }
    };
    if !env.root() {
        return Ran::default();
    }
    env.console.err(&String::from_utf8_lossy(&err));
    let mut ran = Ran {
        stdout: Some(String::from_utf8_lossy(&out).into_owned()),
        ..Ran::default()
    };
    if status != 0 {
        ran.failed = Some(format!("{} exited with status {status}", argv[0]));
    }
    let record = id
        .ok_or_else(|| "no run was made".to_string())
        .and_then(|id| read_back(&settings, &id));
    ran.figures = match record {
        Ok(r) => match kind {
            Kind::Ior => figures::ior(&r, phase, ctx.stonewall, ctx.verbosity),
            Kind::Mdtest => {
                let bytes = if phase.starts_with("mdtest-hard") {
                    3901
                } else {
                    0
                };
                figures::mdtest(&r, phase, ctx.verbosity, bytes)
            }
            Kind::MdWorkbench => figures::mdworkbench(&r, phase),
        },
        Err(e) => Figures {
            score: 0.0,
            notes: vec![Note::Invalid(format!(
                "The figures of the phase could not be read back: {e}"
            ))],
        },
    };
    ran
}

/// The benchmark a phase runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ior,
    Mdtest,
    MdWorkbench,
}

impl Kind {
    fn of(phase: &str) -> Kind {
        if phase.starts_with("ior-") {
            Kind::Ior
        } else if phase.starts_with("mdworkbench-") {
            Kind::MdWorkbench
        } else {
            Kind::Mdtest
        }
    }

    fn program(self) -> &'static str {
        match self {
            Kind::Ior => "ior",
            Kind::Mdtest => "mdtest",
            Kind::MdWorkbench => "md-workbench",
        }
    }
}

/// The record kept under `id` where `settings` keep runs.
fn read_back(settings: &Settings, id: &str) -> Result<RunRecord, String> {
    let dir = settings.keep.results_dir.as_ref().map_err(|e| e.clone())?;
    pario_store::read_record_json(&dir.join(format!("{id}.json"))).map_err(|e| e.to_string())
}

/// Rank 0: the timestamp file, empty (find's `-newer` reference).
pub fn timestamp(ctx: &Context) -> Ran {
    let path = Path::new(&ctx.resdir).join("timestampfile");
    let mut ran = Ran::default();
    if ctx.verbosity > 1 {
        let file = format!("{}/timestampfile", ctx.resdir);
        ran.figures.notes.push(Note::pair("timestamp-file", file));
    }
    if let Err(e) = crate::dry_run::write(&path, "") {
        ran.failed = Some(e);
    }
    ran
}

/// Rank 0's verdict for every rank: `Err` when rank 0's `r` is one.
pub fn agree(comm: &dyn Comm, r: Result<(), String>) -> Result<(), String> {
    let mut b = match (comm.rank(), &r) {
        (0, Ok(())) => vec![0u8],
        (0, Err(e)) => [&[1u8][..], e.as_bytes()].concat(),
        _ => Vec::new(),
    };
    comm.broadcast_bytes(0, &mut b);
    match b.split_first() {
        Some((0, _)) => Ok(()),
        Some((_, e)) => Err(String::from_utf8_lossy(e).into_owned()),
        None => Err("rank 0's verdict did not arrive".into()),
    }
}

/// Collective: the find phase with pfind on the ranks `nproc` names (all
/// by default); rank 0 writes `find.csv` and notes the counts.
pub fn find(env: &Env, ctx: &Context, phase: &str, cmd: &PhaseCommand) -> Ran {
    let mut ran = Ran::default();
    let stamp = Path::new(&ctx.resdir).join("timestampfile");
    let newer = cmd.argv.iter().any(|w| w == "-newer");
    let present = if env.root() && newer && !stamp.is_file() {
        Err(format!(
            "timestamp file {}: missing before {phase}",
            stamp.display()
        ))
    } else {
        Ok(())
    };
    if let Err(e) = agree(env.comm, present) {
        ran.failed = Some(e);
        return ran;
    }
    let nproc = ctx.cfg.uint(phase, "nproc").filter(|&n| n != u32::MAX);
    let inside = nproc.is_none_or(|n| env.comm.rank() < n);
    let Some(sub) = env.comm.split(inside.then_some(0)) else {
        env.comm.barrier();
        return ran;
    };
    let result = crate::find_phase::run(env, sub.as_ref(), phase, &cmd.argv);
    env.comm.barrier();
    match result {
        Err(e) => ran.failed = Some(e),
        Ok(r) if env.root() => {
            let csv = pario_pfind::render::csv(&r);
            let file = Path::new(&ctx.resdir).join(format!("{phase}.csv"));
            if let Err(e) = crate::dry_run::write(&file, &csv) {
                ran.failed = Some(e);
            }
            let f = &mut ran.figures;
            f.notes
                .extend(validity::find_found(r.totals.found).map(Note::Invalid));
            f.notes.push(Note::pair("found", r.totals.found));
            f.notes.push(Note::pair("total-files", r.totals.total));
            f.score = r.rate() / 1000.0;
        }
        Ok(_) => {}
    }
    ran
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::plan::Mode;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn a_q_pario_refuses_becomes_the_largest_it_takes() {
        let rnd = words("ior -r -C -Q 2 -z -z");
        assert_eq!(ior_words(rnd.clone(), 1), words("ior -r -C -Q 1 -z -z"));
        assert_eq!(ior_words(rnd.clone(), 2), words("ior -r -C -Q 1 -z -z"));
        assert_eq!(ior_words(rnd.clone(), 3), rnd);
        let easy = words("ior -w -C -Q 1 -F");
        assert_eq!(ior_words(easy.clone(), 1), easy);
    }

    #[test]
    fn a_phase_runs_when_it_and_its_family_are_on() {
        let mut cfg = Config::defaults();
        cfg.set("ior-easy", "run", Some("FALSE"));
        cfg.set("mdtest-hard-read", "run", Some("FALSE"));
        let ctx = Context::new(&cfg, 2, Mode::Standard, "T");
        assert!(!enabled(&ctx, "ior-easy-write"));
        assert!(!enabled(&ctx, "ior-rnd4K-easy-read"));
        assert!(enabled(&ctx, "ior-hard-write"));
        assert!(!enabled(&ctx, "mdtest-hard-read"));
        assert!(enabled(&ctx, "mdtest-hard-stat"));
    }

    #[test]
    fn a_phase_run_is_tagged_with_the_io500_run_and_the_phase() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings {
            tags_env: Some("site=x".into()),
            run_id: Some("R0".into()),
            ..Settings::results_dir_only(dir.path().to_path_buf())
        };
        let comm = pario_comm::LocalComm::new();
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let console = Console::new("io500", &mut o, &mut e);
        let env = Env {
            comm: &comm,
            settings: &settings,
            run_id: "R0",
            console: &console,
        };
        let s = env.phase_settings("find");
        assert_eq!(s.run_id, None);
        assert_eq!(
            s.tags_env.as_deref(),
            Some("site=x,io500_run=R0,io500_phase=find")
        );
    }
}
