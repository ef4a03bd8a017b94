//! Which backends exist, what each offers, and how to create one.
//!
//! Every backend describes itself once, in its own file, with a
//! [`BackendDescriptor`]: its `-a` name, its module options (`--posix.odirect`
//! and the IOR 3 letters and directives that set them), the [`Features`] the
//! front ends check, whether this build has it, and its constructor.
//! [`DESCRIPTORS`] lists them; the front ends derive their option tables,
//! their help and their checks from it. Adding a backend means one file and
//! one line here.

use crate::faulty::{FaultPlan, FaultyBackend};
use crate::{Backend, ModuleOptions};

/// Every backend, in the order help and messages list them.
pub const DESCRIPTORS: &[&BackendDescriptor] = &[
    &crate::posix::DESCRIPTOR,
    &crate::dummy::DESCRIPTOR,
    &crate::mpiio::DESCRIPTOR,
    &crate::hdf5::DESCRIPTOR,
    &crate::ncmpi::DESCRIPTOR,
    &crate::mmap::DESCRIPTOR,
    &crate::uring::DESCRIPTOR,
    &crate::aio::DESCRIPTOR,
    &crate::rados::DESCRIPTOR,
    &crate::cephfs::DESCRIPTOR,
    &crate::s3::DESCRIPTOR,
    &crate::s3::EMC_DESCRIPTOR,
    &crate::pmdk::DESCRIPTOR,
    &crate::libnfs::DESCRIPTOR,
];

/// How a module option's value is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// No value (true), or an explicit 0/1.
    Flag,
    /// A non-negative integer (size suffixes accepted, as IOR does).
    UInt,
    /// A signed integer.
    Int,
    /// A byte size.
    Size,
    /// A string.
    Text,
}

/// One `--<module>.<key>` option of a backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// Canonical spelling (matching is case-insensitive).
    pub key: &'static str,
    pub kind: OptionKind,
    /// One line for `ior -h`.
    pub help: &'static str,
    /// IOR 3's short letter for it (`-B` for `--posix.odirect`).
    pub letter: Option<char>,
    /// IOR 3's directive for it (`useO_DIRECT`), also a `-O` name and deck
    /// key: setting either sets the other.
    pub directive: Option<&'static str>,
    /// Set by the front end from the test (mmap's `random-offset` from
    /// `-z`), not by the user: neither listed nor accepted on command lines.
    pub internal: bool,
    /// What the option does that the front ends' advisor must know (a flag
    /// that opens files with O_DIRECT, ...), when on.
    pub effect: Option<Effect>,
}

/// What a flag option does, for the front ends that must know it without
/// knowing the backend (the advisor: no "served from the page cache" for
/// a run that bypassed it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Files are opened with O_DIRECT: transfers bypass the page cache.
    DirectIo,
    /// Only rank 0 is slowed (a test backend's delays): a slow rank 0 is
    /// what the run asked for.
    SlowsRankZero,
}

impl OptionSpec {
    pub const fn new(key: &'static str, kind: OptionKind, help: &'static str) -> OptionSpec {
        OptionSpec {
            key,
            kind,
            help,
            letter: None,
            directive: None,
            internal: false,
            effect: None,
        }
    }
    /// The IOR 3 directive that also sets this option.
    pub const fn directive(mut self, name: &'static str) -> OptionSpec {
        self.directive = Some(name);
        self
    }
    /// The IOR 3 short letter that also sets this option.
    pub const fn letter(mut self, c: char) -> OptionSpec {
        self.letter = Some(c);
        self
    }
    /// An option the front end sets from the test, never the user.
    pub const fn internal(mut self) -> OptionSpec {
        self.internal = true;
        self
    }
    /// What this flag does when on (see [`Effect`]).
    pub const fn effect(mut self, effect: Effect) -> OptionSpec {
        self.effect = Some(effect);
        self
    }
}

/// What a backend supports, for the front ends' checks (known before the
/// backend is created; [`crate::Capabilities`] adds what depends on options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// Transfers at random offsets (IOR's `-z`).
    pub random_offsets: bool,
    /// One file per process (IOR's `-F`).
    pub file_per_process: bool,
    /// Collective transfers (IOR's `-c`).
    pub collective: bool,
    /// MPI-IO hints (`showHints`, `hintsFileName`).
    pub hints: bool,
    /// Several transfers in flight per file.
    pub queue: bool,
    /// Direct I/O with aligned buffers, offsets and sizes.
    pub direct_io: bool,
    /// Smallest transfer size in bytes.
    pub min_transfer: u64,
    /// No real I/O: nothing to verify, no directory needed.
    pub fake: bool,
    /// Needs MPI initialised in the process.
    pub needs_mpi: bool,
    /// Names are object names in a store (RADOS, S3) or paths on a server
    /// (LIBNFS), not local paths: the front ends check no local directory
    /// for them.
    pub object_store: bool,
    /// Files and directories can be renamed (mdtest's rename phase).
    pub rename: bool,
    /// The client library caches file data in each process (not the
    /// node's page cache): what the advisor says of a read after a write.
    pub client_cache: Option<ClientCache>,
    /// One file shared by every rank (IOR without `-F`); PMDK maps a file
    /// per process only.
    pub shared_file: bool,
    /// mdtest and md-workbench may use it (upstream's `enable_mdtest`).
    pub mdtest: bool,
}

/// A cache of file data inside each process's client library (libcephfs's
/// object cacher), which neither O_DIRECT nor a memory hog reaches and
/// which another process (another rank's client) does not share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientCache {
    /// What it is, for messages ("libcephfs's client cache (client_oc)").
    pub what: &'static str,
    /// Its default size per process, in bytes.
    pub bytes: u64,
    /// How to turn it off.
    pub off: &'static str,
}

impl Features {
    /// A local-file backend: random offsets and files per process, nothing more.
    pub const LOCAL: Features = Features {
        random_offsets: true,
        file_per_process: true,
        collective: false,
        hints: false,
        queue: false,
        direct_io: false,
        min_transfer: 1,
        fake: false,
        needs_mpi: false,
        object_store: false,
        rename: true,
        client_cache: None,
        shared_file: true,
        mdtest: true,
    };
}

/// What a constructor gets: every module option given, and the rank.
pub struct Setup<'a> {
    pub options: &'a [(String, String, Option<String>)],
    pub rank: u32,
}

impl Setup<'_> {
    /// The options given to `module` (keys lower-cased).
    pub fn module(&self, module: &str) -> ModuleOptions {
        self.options
            .iter()
            .filter(|(m, _, _)| m.eq_ignore_ascii_case(module))
            .map(|(_, k, v)| (k.to_ascii_lowercase(), v.clone()))
            .collect()
    }
}

/// A created backend plus notes to report at -v (options accepted but not
/// applied) and warnings the front ends always print (S3_EMC's
/// extensions that are not supported).
pub struct Created {
    pub backend: Box<dyn Backend>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

impl Created {
    pub fn new(backend: impl Backend + 'static, notes: Vec<String>) -> Created {
        Created {
            backend: Box::new(backend),
            notes,
            warnings: Vec::new(),
        }
    }
    /// The same, with warnings to print at any verbosity.
    pub fn warn(mut self, warnings: Vec<String>) -> Created {
        self.warnings = warnings;
        self
    }
}

/// One backend, described once.
pub struct BackendDescriptor {
    /// The `-a` name (matched case-insensitively).
    pub name: &'static str,
    /// The module name of its options (`--posix.*`).
    pub module: &'static str,
    /// One line for help.
    pub summary: &'static str,
    pub options: &'static [OptionSpec],
    /// Other modules whose options it reads too (AIO reads `--posix.*`).
    pub reads: &'static [&'static str],
    pub features: Features,
    /// Whether this build has it.
    pub built: bool,
    /// Why this build lacks it and what to do (when `built` is false).
    pub missing: &'static str,
    /// Check the options without creating anything (parse time).
    pub check: fn(&Setup<'_>) -> Result<(), String>,
    /// Create the backend (run time).
    pub create: fn(&Setup<'_>) -> Result<Created, String>,
}

impl std::fmt::Debug for BackendDescriptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackendDescriptor")
            .field("name", &self.name)
            .field("built", &self.built)
            .finish()
    }
}

impl PartialEq for BackendDescriptor {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for BackendDescriptor {}

impl BackendDescriptor {
    /// Whether options of `module` concern this backend.
    pub fn uses_module(&self, module: &str) -> bool {
        self.module.eq_ignore_ascii_case(module)
            || self.reads.iter().any(|m| m.eq_ignore_ascii_case(module))
    }
    /// The options a user may give (internal ones left out).
    pub fn user_options(&self) -> impl Iterator<Item = &'static OptionSpec> {
        self.options.iter().filter(|o| !o.internal)
    }
    /// The flag, of its own module or one it reads, that has `effect` on
    /// this backend, as `--module.key` (`--uring.odirect`), if any.
    pub fn option_with(&self, effect: Effect) -> Option<String> {
        self.modules().find_map(|d| {
            d.options
                .iter()
                .find(|o| o.effect == Some(effect))
                .map(|o| format!("--{}.{}", d.module, o.key))
        })
    }
    /// Whether `options` (module, key, value: every one given) turn
    /// `effect` on for this backend: a flag marked with it, of a module
    /// this backend reads, given and not set to 0.
    pub fn in_effect(&self, effect: Effect, options: &[(String, String, Option<String>)]) -> bool {
        self.modules().any(|d| {
            d.options
                .iter()
                .filter(|o| o.effect == Some(effect))
                .any(|o| {
                    options.iter().any(|(m, k, v)| {
                        m.eq_ignore_ascii_case(d.module)
                            && k.eq_ignore_ascii_case(o.key)
                            && crate::posix::flag_value(m, k, v.as_deref()) == Ok(true)
                    })
                })
        })
    }
    /// This backend's descriptor, then those of the modules it reads.
    fn modules(&self) -> impl Iterator<Item = &BackendDescriptor> {
        std::iter::once(self).chain(self.reads.iter().filter_map(|m| find_module(m)))
    }
}

/// The descriptor named `api` (case-insensitive, surrounding blanks ignored).
pub fn find(api: &str) -> Option<&'static BackendDescriptor> {
    DESCRIPTORS
        .iter()
        .copied()
        .find(|d| d.name.eq_ignore_ascii_case(api.trim()))
}

/// The descriptor whose options are `--module.*`.
pub fn find_module(module: &str) -> Option<&'static BackendDescriptor> {
    DESCRIPTORS
        .iter()
        .copied()
        .find(|d| d.module.eq_ignore_ascii_case(module))
}

/// The API names, and whether this build has each.
pub fn available_apis() -> Vec<(&'static str, bool)> {
    DESCRIPTORS.iter().map(|d| (d.name, d.built)).collect()
}

/// Every API name, joined by `sep`.
pub fn api_names(sep: &str) -> String {
    DESCRIPTORS
        .iter()
        .map(|d| d.name)
        .collect::<Vec<_>>()
        .join(sep)
}

/// Why an API of IOR's list pario has no backend for (HDFS, IME, DFS,
/// CEPHFS, ...: [`crate::refused::REFUSED`]) is refused, with the library it
/// would need and what to use instead; `None` for other names.
pub fn refusal(api: &str) -> Option<String> {
    crate::refused::refusal(api)
}

/// Why `tool` (mdtest, md-workbench) refuses `-a api`: a backend whose
/// descriptor says it is for ior only (upstream's `enable_mdtest` false);
/// `None` for every other name.
pub fn tool_refusal(tool: &str, api: &str) -> Option<String> {
    let d = find(api).filter(|d| !d.features.mdtest)?;
    Some(format!(
        "-a {}: {tool} cannot use the {} backend, which is for ior only (as in IOR 4.1, \
         which does not enable it for mdtest); use -a POSIX",
        api.trim(),
        d.name,
    ))
}

fn lookup(api: &str) -> Result<&'static BackendDescriptor, String> {
    if let Some(why) = refusal(api) {
        return Err(why);
    }
    let d =
        find(api).ok_or_else(|| format!("-a {api}: unknown API (known: {})", api_names(", ")))?;
    if !d.built {
        let built: Vec<&str> = DESCRIPTORS
            .iter()
            .filter(|d| d.built)
            .map(|d| d.name)
            .collect();
        return Err(format!(
            "-a {api}: this build of pario has no {} backend: {} (built: {})",
            d.name,
            d.missing,
            built.join(", ")
        ));
    }
    Ok(d)
}

/// Check the options `api` reads without creating the backend: the refusal
/// a run would give, at parse time. APIs this build lacks are not refused
/// here (their options are checked all the same).
pub fn check_options(
    api: &str,
    options: &[(String, String, Option<String>)],
) -> Result<(), String> {
    match find(api) {
        Some(d) => (d.check)(&Setup { options, rank: 0 }),
        None => Err(refusal(api)
            .unwrap_or_else(|| format!("-a {api}: unknown API (known: {})", api_names(", ")))),
    }
}

/// Create the backend for `api` (case-insensitive). `options` holds every
/// `--module.key[=value]` given; options of other modules are ignored here
/// (the front end reports them at -v). `rank` selects fault injection and
/// rank-dependent options.
pub fn create_backend(
    api: &str,
    options: &[(String, String, Option<String>)],
    rank: u32,
) -> Result<Created, String> {
    let d = lookup(api)?;
    if d.features.needs_mpi && !pario_comm::mpiio::is_ready() {
        return Err(format!(
            "-a {api}: {} needs MPI, which is not initialised in this process",
            d.name
        ));
    }
    let Created {
        backend,
        notes,
        warnings,
    } = (d.create)(&Setup { options, rank })?;
    let backend = match FaultPlan::from_env(rank)? {
        Some(plan) => Box::new(FaultyBackend::new(backend, plan)) as Box<dyn Backend>,
        None => backend,
    };
    Ok(Created {
        backend,
        notes,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table of backends, as the descriptors and the refused
    /// list make it.
    fn readme_table() -> String {
        let mut t = String::from("| `-a` | backend |\n|---|---|\n");
        for d in DESCRIPTORS {
            t.push_str(&format!("| `{}` | {} |\n", d.name, d.summary));
        }
        for r in crate::refused::REFUSED {
            t.push_str(&format!(
                "| `{}` | refused ({}: {}); use {} |\n",
                r.name, r.library, r.why, r.instead
            ));
        }
        t
    }

    #[test]
    fn the_readme_table_of_backends_follows_from_the_descriptors() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let want = readme_table();
        assert!(
            readme.contains(&want),
            "README.md's table of backends differs from the descriptors; it should read:\n{want}"
        );
    }

    #[test]
    fn names_modules_and_keys_are_unique() {
        for (i, d) in DESCRIPTORS.iter().enumerate() {
            for e in &DESCRIPTORS[i + 1..] {
                assert!(!d.name.eq_ignore_ascii_case(e.name), "{}", d.name);
                assert!(!d.module.eq_ignore_ascii_case(e.module), "{}", d.module);
            }
            for (j, o) in d.options.iter().enumerate() {
                assert!(
                    !d.options[j + 1..]
                        .iter()
                        .any(|p| p.key.eq_ignore_ascii_case(o.key)),
                    "--{}.{}",
                    d.module,
                    o.key
                );
            }
            for m in d.reads {
                assert!(find_module(m).is_some(), "{} reads {m}", d.name);
            }
        }
    }

    #[test]
    fn direct_io_is_known_from_the_options_each_backend_reads() {
        let opt = |m: &str, k: &str, v: Option<&str>| {
            (m.to_string(), k.to_string(), v.map(str::to_string))
        };
        let uring = find("URING").unwrap();
        let posix = find("POSIX").unwrap();
        let aio = find("AIO").unwrap();
        // Every backend with direct I/O names the flag that turns it on.
        for d in DESCRIPTORS.iter().filter(|d| d.features.direct_io) {
            assert!(d.option_with(Effect::DirectIo).is_some(), "{}", d.name);
        }
        assert_eq!(
            uring.option_with(Effect::DirectIo).as_deref(),
            Some("--uring.odirect")
        );
        assert_eq!(
            aio.option_with(Effect::DirectIo).as_deref(),
            Some("--posix.odirect")
        );
        assert_eq!(find("MMAP").unwrap().option_with(Effect::DirectIo), None);
        let on = [
            opt("uring", "ODirect", None),
            opt("uring", "depth", Some("32")),
        ];
        assert!(uring.in_effect(Effect::DirectIo, &on));
        // Another backend's flag, or the flag set to 0, is not in effect.
        assert!(!posix.in_effect(Effect::DirectIo, &on));
        assert!(!uring.in_effect(Effect::DirectIo, &[opt("posix", "odirect", None)]));
        assert!(!uring.in_effect(Effect::DirectIo, &[opt("uring", "odirect", Some("0"))]));
        // AIO reads the POSIX module's options.
        assert!(aio.in_effect(Effect::DirectIo, &[opt("posix", "odirect", Some("1"))]));
        let dummy = find("DUMMY").unwrap();
        assert!(dummy.in_effect(
            Effect::SlowsRankZero,
            &[opt("dummy", "delay-only-rank0", None)]
        ));
    }

    #[test]
    fn backends_for_ior_only_are_refused_by_the_metadata_tools() {
        let e = tool_refusal("mdtest", "pmdk").unwrap();
        assert!(
            e.starts_with("-a pmdk: mdtest cannot use the PMDK backend"),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
        for d in DESCRIPTORS {
            let refused = tool_refusal("md-workbench", d.name).is_some();
            assert_eq!(refused, !d.features.mdtest, "{}", d.name);
        }
        assert!(tool_refusal("mdtest", "LIBNFS").is_none());
        assert!(tool_refusal("mdtest", "NOSUCH").is_none());
    }

    #[test]
    fn unknown_and_missing_backends_are_one_line_refusals() {
        let e = create_backend("GPFS_X", &[], 0).err().unwrap();
        assert!(
            e.contains("-a GPFS_X: unknown API") && e.contains("POSIX"),
            "{e}"
        );
        for d in DESCRIPTORS.iter().filter(|d| !d.built) {
            let e = create_backend(d.name, &[], 0).err().unwrap();
            assert!(
                e.contains("this build of pario has no") && !e.contains('\n'),
                "{e}"
            );
            assert!(e.contains(d.missing), "{e}");
        }
        assert!(find(" posix ").is_some() && find_module("MPIIO").is_some());
    }
}
