//! What the accepted options that have no effect in this build turn into at
//! run time: a warning (always shown, on stderr) or a note (shown at `-v`).
//!
//! - File-system specific options (Lustre striping, GPFS hints, BeeGFS
//!   targets; as directives or `--posix.<fs>.*`) are warnings: when the test
//!   directory is not on that file system (statfs type `lustre`, `gpfs`,
//!   `beegfs`) the warning says so; when it is, it says that this build has
//!   no interface to apply them. They are never passed to the backend.
//! - GPU buffers (accepted only with `--allow-cpu-fallback`, see
//!   [`crate::options::ALLOW_CPU_FALLBACK`]) and `dualMount` are warnings
//!   (not supported).
//! - `collective` (`-c`) with a backend without collective I/O (POSIX, ...)
//!   and `uniqueDir` (`-u`) without `-F` are warnings: IOR accepts both
//!   silently, and sites' scripts pass them, but they change nothing.
//! - Options of a backend that is not selected, or not built (IOR 3's
//!   backend directives and letters, `--<module>.*` of another module) are
//!   notes: they change nothing for the selected backend. Which backend
//!   takes which option comes from the backends' descriptors
//!   ([`pario_backends::registry`]).
//!
//! `warningAsErrors` turns the warnings into an error before any I/O.

use crate::options::IorParams;
use pario_backends::registry::{self, BackendDescriptor};

/// How loudly to report an [`Advice`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Always shown (stderr), an error under `warningAsErrors`.
    Warning,
    /// Shown at verbose ≥ 1 (stderr).
    Note,
}

/// One remark about an option that has no effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Advice {
    pub level: Level,
    pub text: String,
}

/// File systems with their own options, as statfs/mount names them.
const FILE_SYSTEMS: [(&str, &str); 3] =
    [("lustre", "Lustre"), ("gpfs", "GPFS"), ("beegfs", "BeeGFS")];

/// True for module option keys that belong to a file system
/// (`--posix.lustre.stripecount`: never passed to the backend, [`advise`]
/// reports them), whichever backend's module names them.
pub fn is_fs_module_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    FILE_SYSTEMS
        .iter()
        .any(|(fs, _)| k.starts_with(&format!("{fs}.")))
}

/// The advice for one test. `fs_type` is the type of the file system that
/// holds the test directory ("" when unknown).
pub fn advise(p: &IorParams, fs_type: &str) -> Vec<Advice> {
    let mut out: Vec<Advice> = fs_options_given(p)
        .into_iter()
        .map(|(fs, name)| warning(fs_option_warning(fs, &name, fs_type)))
        .collect();
    out.extend(without_effect(p).into_iter().map(warning));
    out.extend(other_backends(p).into_iter().map(note));
    out.extend(ignored(p).into_iter().map(note));
    out
}

/// An [`Advice`] at [`Level::Warning`].
fn warning(text: String) -> Advice {
    Advice {
        level: Level::Warning,
        text,
    }
}

/// An [`Advice`] at [`Level::Note`].
fn note(text: String) -> Advice {
    Advice {
        level: Level::Note,
        text,
    }
}

/// The file-system specific options given, as (file system, name as the
/// user wrote it): the directives, then the `--posix.<fs>.*` options.
fn fs_options_given(p: &IorParams) -> Vec<(&'static str, String)> {
    let mut fs_opts: Vec<(&'static str, String)> = Vec::new();
    // `--posix.lustre.stripecount` also sets lustreStripeCount: name it once,
    // as the user wrote it.
    let module_keys: Vec<String> = p
        .module_options
        .iter()
        .filter(|(_, k, _)| is_fs_module_key(k))
        .map(|(_, k, _)| k.to_ascii_lowercase().replace('.', ""))
        .collect();
    let mut fs_opt = |fs: &'static str, name: &str, given: bool| {
        if given && !module_keys.contains(&name.to_ascii_lowercase()) {
            fs_opts.push((fs, name.to_string()));
        }
    };
    // The file systems' IOR 3 directives, in the descriptors' order.
    for (_, o) in crate::options::module_options() {
        let Some(name) = o.directive.filter(|_| is_fs_module_key(o.key)) else {
            continue;
        };
        let k = o.key.to_ascii_lowercase();
        if let Some((fs, _)) = FILE_SYSTEMS.iter().find(|(fs, _)| k.starts_with(fs)) {
            fs_opt(fs, name, p.directive_on(name));
        }
    }
    for (module, key, _) in &p.module_options {
        if is_fs_module_key(key) {
            let k = key.to_ascii_lowercase();
            if let Some((fs, _)) = FILE_SYSTEMS.iter().find(|(fs, _)| k.starts_with(fs)) {
                fs_opts.push((fs, format!("--{module}.{key}")));
            }
        }
    }
    fs_opts
}

/// The warning about option `name` of file system `fs` when the test
/// directory is on `fs_type`: not applied (on that file system) or ignored
/// (on another).
fn fs_option_warning(fs: &str, name: &str, fs_type: &str) -> String {
    let pretty = FILE_SYSTEMS
        .iter()
        .find(|(f, _)| *f == fs)
        .map_or(fs, |(_, p)| p);
    let on = if fs_type.is_empty() {
        "a file system of unknown type".to_string()
    } else {
        fs_type.to_string()
    };
    if fs_type.eq_ignore_ascii_case(fs) {
        format!(
            "{name}: the test directory is on {pretty}, but this build has no {pretty} \
             interface to apply it: not applied (set it on the directory with the \
             file system's own tools)"
        )
    } else {
        format!("{name}: the test directory is on {on}, not {pretty}: ignored")
    }
}

/// Warnings about options that are accepted but change nothing here: GPU
/// buffers, `dualMount`, `collective` without collective I/O, `uniqueDir`
/// without `-F`.
fn without_effect(p: &IorParams) -> Vec<String> {
    let mut out = Vec::new();
    // Not supported at all.
    if p.allocate_buffer_on_gpu || p.gpu_direct || p.gpu_id != 0 {
        out.push(
            "allocateBufferOnGPU/GPUid/gpuDirect: this build has no GPU support; buffers stay \
             in CPU memory"
                .to_string(),
        );
    }
    if p.layout.dual_mount {
        out.push(
            "dualMount: per-socket mount points are not supported; the test file name is used \
             as given"
                .to_string(),
        );
    }
    out.extend(collective_without_collective_io(p));
    if p.layout.unique_dir && !p.layout.file_per_proc {
        out.push(
            "uniqueDir (-u): a directory per task needs file per process (-F); with one shared \
             file it has no effect"
                .to_string(),
        );
    }
    out
}

/// Notes about options this build ignores: `debug` and `dryRun`.
fn ignored(p: &IorParams) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(d) = &p.output.debug {
        out.push(format!(
            "debug={d}: there is no debug mode in this build: ignored"
        ));
    }
    if p.dry_run {
        out.push(format!(
            "dryRun: no I/O is done; the {} backend stands in for the selected one",
            crate::options::Api::dry_run_stand_in()
        ));
    }
    out
}

/// Why an option of `backends` does nothing with `p`'s backend, or None
/// when the selected backend is one of them.
fn not_selected(p: &IorParams, backends: &[&BackendDescriptor]) -> Option<String> {
    let api = p.api.to_ascii_uppercase();
    if backends.iter().any(|b| b.name == p.api_kind.name()) {
        return None;
    }
    let names: Vec<&str> = backends.iter().map(|b| b.name).collect();
    let names = names.join("/");
    Some(if backends.iter().any(|b| b.built) {
        format!("for -a {names}, not the selected -a {api}")
    } else {
        format!("for -a {names}, which this build does not have yet")
    })
}

/// The warning about `collective` (`-c`) with a backend without collective
/// I/O, if given. IOR accepts `-c` with any backend and says nothing; a
/// warning here, since the user asked for collective I/O and gets
/// independent I/O.
fn collective_without_collective_io(p: &IorParams) -> Option<String> {
    if !p.collective {
        return None;
    }
    let takers: Vec<&BackendDescriptor> = registry::DESCRIPTORS
        .iter()
        .copied()
        .filter(|d| d.features.collective)
        .collect();
    not_selected(p, &takers)
        .map(|why| format!("collective (-c): collective I/O is {why}: independent I/O is used"))
}

/// Notes on options given for backends other than the selected one: IOR 3
/// directives (and their letters) of backend options, and `--<module>.*`
/// options of modules the selected backend does not read.
fn other_backends(p: &IorParams) -> Vec<String> {
    let mut out = Vec::new();
    let api = p.api.to_ascii_uppercase();
    // Each directive once, in the descriptors' order, with every backend
    // that takes it (through its own module or one it reads).
    let mut seen: Vec<&str> = Vec::new();
    for (_, o) in crate::options::module_options() {
        let Some(name) = o.directive else { continue };
        if is_fs_module_key(o.key) || seen.contains(&name) || !p.directive_on(name) {
            continue;
        }
        seen.push(name);
        let takers: Vec<&BackendDescriptor> = registry::DESCRIPTORS
            .iter()
            .copied()
            .filter(|d| {
                let modules = std::iter::once(d.module).chain(d.reads.iter().copied());
                modules
                    .filter_map(registry::find_module)
                    .any(|m| m.options.iter().any(|x| x.directive == Some(name)))
            })
            .collect();
        if let Some(why) = not_selected(p, &takers) {
            out.push(format!("{name}: an option {why}: ignored"));
        }
    }
    let selected = p.api_kind.descriptor();
    for (module, key, _) in &p.module_options {
        if is_fs_module_key(key) {
            continue;
        }
        let Some(owner) = registry::find_module(module) else {
            continue;
        };
        if !selected.uses_module(module) {
            let why = if owner.built {
                format!("not the selected -a {api}")
            } else {
                "which this build does not have yet".to_string()
            };
            out.push(format!(
                "--{module}.{key}: an option of the {} backend, {why}: ignored",
                owner.name
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::parse_command_line;

    fn params(s: &str) -> IorParams {
        let args: Vec<String> = s.split_whitespace().map(str::to_string).collect();
        parse_command_line(&args).unwrap().tests.remove(0)
    }

    fn texts(a: &[Advice], level: Level) -> Vec<String> {
        a.iter()
            .filter(|x| x.level == level)
            .map(|x| x.text.clone())
            .collect()
    }

    #[test]
    fn plain_runs_get_no_advice() {
        assert!(advise(&params("-w -t 1m -b 4m"), "ext4").is_empty());
    }

    #[test]
    fn file_system_options_warn_unless_on_that_file_system() {
        let p = params("-O lustreStripeCount=4 --posix.beegfs.ChunkSize=1m");
        let w = texts(&advise(&p, "ext4"), Level::Warning);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("lustreStripeCount: the test directory is on ext4, not Lustre"));
        assert!(w[1].contains("--posix.beegfs.ChunkSize") && w[1].contains("not BeeGFS"));
        let w = texts(&advise(&p, "lustre"), Level::Warning);
        assert!(w[0].contains("is on Lustre, but this build has no Lustre interface"));
        assert!(is_fs_module_key("lustre.pool") && !is_fs_module_key("odirect"));
    }

    #[test]
    fn other_backends_options_are_notes() {
        let p = params("-c -O showHints=1 --dummy.delay-xfer=10 --mpiio.useFileView");
        let n = texts(&advise(&p, "ext4"), Level::Note);
        // Whether MPIIO is built decides the end of the sentence.
        assert!(
            n.iter()
                .any(|t| t.starts_with("showHints: an option for -a MPIIO/HDF5/NCMPI, ")),
            "{n:?}"
        );
        let w = texts(&advise(&p, "ext4"), Level::Warning);
        assert!(w.iter().any(|t| t.starts_with("collective (-c):")), "{w:?}");
        assert!(
            n.iter().any(|t| t.starts_with(
                "--dummy.delay-xfer: an option of the DUMMY backend, not the selected -a POSIX"
            )),
            "{n:?}"
        );
        assert!(
            n.iter()
                .any(|t| t.starts_with("--mpiio.useFileView: an option of the MPIIO backend, ")),
            "{n:?}"
        );
        let m = params("-a mpiio -O showHints=1");
        assert!(
            advise(&m, "").is_empty(),
            "MPIIO's own options: {:?}",
            advise(&m, "")
        );
        assert_eq!(w.len(), 1, "{w:?}");
        let d = params("-a dummy --dummy.delay-xfer=10");
        assert!(advise(&d, "").is_empty());
    }

    #[test]
    fn unique_dir_without_file_per_process_warns() {
        let w = texts(&advise(&params("-w -u"), "ext4"), Level::Warning);
        assert!(w.len() == 1 && w[0].contains("-F"), "{w:?}");
        assert!(advise(&params("-w -u -F"), "ext4").is_empty());
    }

    #[test]
    fn unsupported_features_warn() {
        let p = params("--allocateBufferOnGPU -O dualMount=1 --allow-cpu-fallback");
        assert_eq!(texts(&advise(&p, "xfs"), Level::Warning).len(), 2);
    }

    #[test]
    fn advice_comes_in_a_fixed_order_with_its_levels() {
        let p = IorParams {
            backend_directives: vec![
                ("lustreStripeCount", Some("4".into())),
                ("gpfsHintAccess", None),
            ],
            module_options: vec![("posix".into(), "beegfs.ChunkSize".into(), Some("1m".into()))],
            gpu_id: 1,
            collective: true,
            dry_run: true,
            layout: crate::options::Layout {
                dual_mount: true,
                unique_dir: true,
                ..Default::default()
            },
            output: crate::options::Output {
                debug: Some("x".into()),
                ..Default::default()
            },
            ..IorParams::default()
        };
        let got: Vec<(Level, String)> = advise(&p, "lustre")
            .into_iter()
            .map(|a| (a.level, a.text.split(':').next().unwrap_or("").to_string()))
            .collect();
        let w = |s: &str| (Level::Warning, s.to_string());
        let n = |s: &str| (Level::Note, s.to_string());
        assert_eq!(
            got,
            vec![
                w("lustreStripeCount"),
                w("gpfsHintAccess"),
                w("--posix.beegfs.ChunkSize"),
                w("allocateBufferOnGPU/GPUid/gpuDirect"),
                w("dualMount"),
                w("collective (-c)"),
                w("uniqueDir (-u)"),
                n("debug=x"),
                n("dryRun"),
            ]
        );
        let texts: Vec<String> = advise(&p, "lustre").into_iter().map(|a| a.text).collect();
        assert!(texts[0].contains("is on Lustre, but this build has no Lustre interface"));
        assert!(texts[1].contains("is on lustre, not GPFS: ignored"));
        let unknown = advise(&p, "");
        assert!(unknown[0]
            .text
            .contains("on a file system of unknown type, not Lustre"));
    }
}
