//! What rank 0 of `io500` does for each action; the binary adds MPI.

use crate::cli::{self, Action, Options};
use crate::config::Config;
use crate::dry_run;
use crate::hash;
use crate::plan::{clock, default_timestamp, Context};
use crate::verify;
use pario_results::special::read_regular;

/// Exit statuses.
pub const EXIT_OK: i32 = 0;
/// A failed `--verify` (as the harness's).
pub const EXIT_FAILED: i32 = 1;
/// Bad command line or config, or an action not implemented yet.
pub const EXIT_USAGE: i32 = 2;

/// The version written to result.txt (and hashed into the score hash).
pub const VERSION: &str = concat!("pario-io500-", env!("CARGO_PKG_VERSION"));

/// Now, in epoch seconds.
pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The config file's text and its parsed config.
pub fn load(file: &str) -> Result<(String, Config), String> {
    let bytes =
        read_regular(std::path::Path::new(file)).map_err(|e| format!("config file {file}: {e}"))?;
    let text =
        String::from_utf8(bytes).map_err(|_| format!("config file {file}: not UTF-8 text"))?;
    let cfg = Config::parse(&text, file).map_err(|e| e.to_string())?;
    Ok((text, cfg))
}

/// Refuses a find phase's external script that is missing or not
/// executable.
pub fn external_scripts(ctx: &Context) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    for phase in ["find", "find-easy", "find-hard"] {
        let runs = ctx.cfg.flag(phase, "run") == Some(true);
        let script = ctx.cfg.get(phase, "external-script");
        let (Some(script), true) = (script, runs) else {
            continue;
        };
        let meta = std::fs::metadata(script)
            .map_err(|e| format!("[{phase}] external-script {script}: {e}"))?;
        if meta.permissions().mode() & 0o100 == 0 {
            return Err(format!(
                "[{phase}] external-script {script}: not executable"
            ));
        }
    }
    Ok(())
}

fn dry_run(o: &Options, text: &str, cfg: &Config, ranks: u32) -> Result<String, String> {
    let stamp = o
        .timestamp
        .clone()
        .unwrap_or_else(|| default_timestamp(now()));
    let mut ctx = Context::new(cfg, ranks, o.mode(), &stamp);
    if let Some(v) = o.verbosity {
        ctx.verbosity = v;
    }
    external_scripts(&ctx)?;
    let results = dry_run::dry_run(&ctx, VERSION, &clock(now()))?;
    let rendered = results.render();
    dry_run::write_files(&ctx.resdir, text, cfg, &rendered)?;
    Ok(rendered.stdout)
}

fn with_config(o: &Options) -> Result<(String, i32), String> {
    let (_, cfg) = load(&o.config)?;
    if o.help {
        return Ok((cli::help("io500"), EXIT_OK));
    }
    if let Some(file) = &o.verify {
        let result = read_regular(std::path::Path::new(file))
            .map_err(|e| format!("--verify {file}: {e}"))?;
        let result = String::from_utf8_lossy(&result);
        let v = verify::verify(&cfg, &result).map_err(|e| format!("--verify {file}: {e}"))?;
        let code = if v.valid { EXIT_OK } else { EXIT_FAILED };
        return Ok((verify::report(&v), code));
    }
    if o.config_hash {
        return Ok((
            format!("{:<15} = {}\n", "config-hash", hash::hex(cfg.hash())),
            EXIT_OK,
        ));
    }
    if o.list {
        return Ok((crate::table::render_list(false), EXIT_FAILED));
    }
    Err("a real run is collective: run it through the io500 front end".into())
}

/// Runs `args` (after the program name) for `ranks` ranks: the text to
/// print and the exit status, or a one-line error (printed to stderr by
/// the caller) and its status.
pub fn run(args: &[String], ranks: u32) -> Result<(String, i32), (String, i32)> {
    act(cli::parse(args).map_err(|e| (e, EXIT_USAGE))?, ranks)
}

/// What rank 0 does for `action` (anything but a real run and
/// `--cleanup`): the text to print and the exit status, or a one-line
/// error and its status.
pub fn act(action: Action, ranks: u32) -> Result<(String, i32), (String, i32)> {
    let usage = |e: String| (e, EXIT_USAGE);
    match action {
        Action::Help => Ok((cli::help("io500"), EXIT_OK)),
        Action::List { mandatory } => Ok((crate::table::render_list(mandatory), EXIT_OK)),
        Action::WithConfig(o) if o.dry_run && o.verify.is_none() && !o.config_hash && !o.help => {
            let (text, cfg) = load(&o.config).map_err(usage)?;
            let out = dry_run(&o, &text, &cfg, ranks).map_err(usage)?;
            Ok((out, EXIT_OK))
        }
        Action::WithConfig(o) => {
            let failed = if o.verify.is_some() {
                EXIT_FAILED
            } else {
                EXIT_USAGE
            };
            with_config(&o).map_err(|e| (e, failed))
        }
    }
}

/// Whether `action` is a real run (or `--cleanup`): the phases, not rank
/// 0 alone.
pub fn runs_phases(action: &Action) -> Option<&Options> {
    match action {
        Action::WithConfig(o)
            if !o.dry_run && o.verify.is_none() && !o.config_hash && !o.help && !o.list =>
        {
            Some(o)
        }
        _ => None,
    }
}
