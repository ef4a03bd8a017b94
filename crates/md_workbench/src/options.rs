//! md-workbench's command line: upstream's options (short and long
//! spellings, `-o=DIR` and `-o DIR` alike), backend module options
//! (`--posix.odirect`), pario's `--tag`, and the refusals.

use pario_signature::PacketType;

/// The version printed in the header (upstream's release with pario's).
pub const VERSION: &str = concat!("4.1.0+pario-", env!("CARGO_PKG_VERSION"));

/// A bad command line: one line naming the option and the reason.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionError(pub String);

/// Everything the command line sets; defaults are upstream's.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub offset: u32,
    pub api: String,
    pub per_iteration: u64,
    pub latency_prefix: Option<String>,
    pub precreate: u64,
    pub dsets: u32,
    /// `-G`: -1 (the default) takes the start time.
    pub seed: i64,
    pub prefix: String,
    pub quiet: bool,
    pub object_size: u64,
    pub iterations: u32,
    pub waiting_factor: f64,
    pub adaptive_waiting: bool,
    pub run_precreate: bool,
    pub run_benchmark: bool,
    pub run_cleanup: bool,
    pub stonewall_seconds: u64,
    pub wear_out: bool,
    pub verify_read: bool,
    pub packet: PacketType,
    pub start_item: u64,
    pub detailed: bool,
    pub read_only: bool,
    pub ignore_precreate_errors: bool,
    pub process_reports: bool,
    pub verbose: u8,
    pub run_info_file: String,
    pub module_options: Vec<(String, String, Option<String>)>,
    pub tags: Vec<(String, String)>,
    pub help: bool,
    pub version: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            offset: 1,
            api: "POSIX".into(),
            per_iteration: 1000,
            latency_prefix: None,
            precreate: 3000,
            dsets: 10,
            seed: -1,
            prefix: "./out".into(),
            quiet: false,
            object_size: 3901,
            iterations: 3,
            waiting_factor: 0.0,
            adaptive_waiting: false,
            run_precreate: false,
            run_benchmark: false,
            run_cleanup: false,
            stonewall_seconds: 0,
            wear_out: false,
            verify_read: false,
            packet: PacketType::Timestamp,
            start_item: 0,
            detailed: false,
            read_only: false,
            ignore_precreate_errors: false,
            process_reports: false,
            verbose: 0,
            run_info_file: "md-workbench.status".into(),
            module_options: Vec::new(),
            tags: Vec::new(),
            help: false,
            version: false,
        }
    }
}

/// Flags: (short, long).
const FLAGS: &[(Option<char>, &str)] = &[
    (Some('q'), "quiet"),
    (Some('T'), "adaptive-waiting"),
    (Some('1'), "run-precreate"),
    (Some('2'), "run-benchmark"),
    (Some('3'), "run-cleanup"),
    (Some('W'), "stonewall-wear-out"),
    (Some('X'), "verify-read"),
    (None, "print-detailed-stats"),
    (None, "read-only"),
    (None, "ignore-precreate-errors"),
    (None, "process-reports"),
    (Some('v'), "verbose"),
    (Some('h'), "help"),
    (None, "version"),
    (None, "latency-all"),
    (None, "gpuDirect"),
];

/// Options with a value: (short, long).
const VALUED: &[(Option<char>, &str)] = &[
    (Some('O'), "offset"),
    (Some('a'), "api"),
    (Some('I'), "obj-per-proc"),
    (Some('L'), "latency"),
    (Some('P'), "precreate-per-set"),
    (Some('D'), "data-sets"),
    (Some('G'), "G"),
    (Some('o'), "o"),
    (Some('S'), "object-size"),
    (Some('R'), "iterations"),
    (Some('t'), "waiting-time"),
    (Some('w'), "stonewall-timer"),
    (None, "dataPacketType"),
    (None, "start-item"),
    (None, "run-info-file"),
    (None, "tag"),
    (None, "allocateBufferOnGPU"),
    (None, "GPUid"),
];

fn bad(s: String) -> OptionError {
    OptionError(s)
}

/// Parse the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Options, OptionError> {
    let mut o = Options::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if let Some(flags) = combined_flags(arg) {
            for f in flags {
                flag(&mut o, &f)?;
            }
            continue;
        }
        let (name, inline, shown) = split(arg)?;
        if let Some((module, key)) = name.split_once('.') {
            if module.is_empty() || key.is_empty() {
                return Err(bad(format!("{arg}: expected --<module>.<option>")));
            }
            o.module_options
                .push((module.to_string(), key.to_string(), inline));
            continue;
        }
        if FLAGS.iter().any(|(s, l)| *l == name || short_is(*s, &name)) {
            if inline.is_some() {
                return Err(bad(format!("{shown}: takes no value")));
            }
            flag(&mut o, &long_of(FLAGS, &name))?;
            continue;
        }
        if !VALUED
            .iter()
            .any(|(s, l)| *l == name || short_is(*s, &name))
        {
            return Err(bad(format!("{shown}: unknown option")));
        }
        let value = match inline {
            Some(v) => v,
            None if i < args.len() => {
                i += 1;
                args[i - 1].clone()
            }
            None => return Err(bad(format!("{shown}: needs a value"))),
        };
        valued(&mut o, &long_of(VALUED, &name), &shown, &value)?;
    }
    o.finish()
}

/// `-vv`, `-12`: several short flags in one argument (long names).
fn combined_flags(arg: &str) -> Option<Vec<String>> {
    let body = arg
        .strip_prefix('-')
        .filter(|b| b.len() > 1 && !b.starts_with('-'))?;
    body.chars()
        .map(|c| {
            FLAGS
                .iter()
                .find(|(s, _)| *s == Some(c))
                .map(|(_, l)| l.to_string())
        })
        .collect()
}

fn short_is(s: Option<char>, name: &str) -> bool {
    s.is_some_and(|c| name.len() == c.len_utf8() && name.starts_with(c))
}

fn long_of(table: &[(Option<char>, &str)], name: &str) -> String {
    table
        .iter()
        .find(|(s, l)| *l == name || short_is(*s, name))
        .map(|(_, l)| l.to_string())
        .unwrap_or_default()
}

/// `--name[=v]` → ("name", v); `-x[=v]`, `-xVALUE` → ("x", v); also the
/// spelling to show in messages.
fn split(arg: &str) -> Result<(String, Option<String>, String), OptionError> {
    if let Some(long) = arg.strip_prefix("--") {
        let (n, v) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (long, None),
        };
        return Ok((n.to_string(), v, format!("--{n}")));
    }
    let Some(short) = arg.strip_prefix('-').filter(|s| !s.is_empty()) else {
        return Err(bad(format!(
            "{arg}: unexpected argument (options start with -)"
        )));
    };
    let mut chars = short.chars();
    let c = chars.next().unwrap_or('-');
    let rest = chars.as_str();
    let v = if rest.is_empty() {
        None
    } else {
        Some(rest.strip_prefix('=').unwrap_or(rest).to_string())
    };
    Ok((c.to_string(), v, format!("-{c}")))
}

fn flag(o: &mut Options, long: &str) -> Result<(), OptionError> {
    match long {
        "quiet" => o.quiet = true,
        "adaptive-waiting" => o.adaptive_waiting = true,
        "run-precreate" => o.run_precreate = true,
        "run-benchmark" => o.run_benchmark = true,
        "run-cleanup" => o.run_cleanup = true,
        "stonewall-wear-out" => o.wear_out = true,
        "verify-read" => o.verify_read = true,
        "print-detailed-stats" => o.detailed = true,
        "read-only" => o.read_only = true,
        "ignore-precreate-errors" => o.ignore_precreate_errors = true,
        "process-reports" => o.process_reports = true,
        "verbose" => o.verbose = o.verbose.saturating_add(1),
        "help" => o.help = true,
        "version" => o.version = true,
        "latency-all" => {
            return Err(bad(
                "--latency-all: not supported: it keeps every operation time of \
                 every rank in rank 0's memory; pario keeps fixed-size histograms \
                 (the percentiles are printed and recorded) and -L writes rank 0's times"
                    .into(),
            ))
        }
        _ => return Err(gpu(long)),
    }
    Ok(())
}

fn gpu(long: &str) -> OptionError {
    bad(format!(
        "--{long}: this build has no GPU support (buffers are in CPU memory)"
    ))
}

fn valued(o: &mut Options, long: &str, shown: &str, v: &str) -> Result<(), OptionError> {
    match long {
        "offset" => o.offset = number(shown, v)?,
        "api" => o.api = v.to_string(),
        "obj-per-proc" => o.per_iteration = number(shown, v)?,
        "latency" => o.latency_prefix = Some(nonempty(shown, v)?),
        "precreate-per-set" => o.precreate = number(shown, v)?,
        "data-sets" => o.dsets = number(shown, v)?,
        "G" => {
            o.seed = v
                .trim()
                .parse::<i64>()
                .map_err(|_| bad(format!("{shown} {v}: expected an integer")))?
        }
        "o" => o.prefix = nonempty(shown, v)?,
        "object-size" => o.object_size = size(shown, v)?,
        "iterations" => o.iterations = number(shown, v)?,
        "waiting-time" => o.waiting_factor = factor(shown, v)?,
        "stonewall-timer" => o.stonewall_seconds = number(shown, v)?,
        "dataPacketType" => {
            o.packet = PacketType::parse(v).map_err(|e| bad(format!("{shown}: {e}")))?
        }
        "start-item" => o.start_item = number(shown, v)?,
        "run-info-file" => o.run_info_file = nonempty(shown, v)?,
        "tag" => {
            let t = pario_store::parse_tag(v).map_err(|e| bad(format!("--tag: {e}")))?;
            if t.1.is_empty() {
                return Err(bad(format!(
                    "--tag {v}: the label's value is empty (write key=value)"
                )));
            }
            o.tags.push(t);
        }
        _ => return Err(gpu(long)),
    }
    Ok(())
}

/// The integer types of the counts, with their largest value (named
/// when a count is out of range).
trait Count: std::str::FromStr {
    const MAX: u64;
}
impl Count for u32 {
    const MAX: u64 = u32::MAX as u64;
}
impl Count for u64 {
    const MAX: u64 = u64::MAX;
}

fn number<T: Count>(shown: &str, v: &str) -> Result<T, OptionError> {
    let t = v.trim();
    t.parse::<T>().map_err(|_| {
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            bad(format!("{shown} {v}: out of range: at most {}", T::MAX))
        } else {
            bad(format!("{shown} {v}: expected a non-negative integer"))
        }
    })
}

fn nonempty(shown: &str, v: &str) -> Result<String, OptionError> {
    if v.is_empty() {
        return Err(bad(format!("{shown}: the value is empty")));
    }
    Ok(v.to_string())
}

/// A byte count with an optional k/m/g suffix (binary).
fn size(shown: &str, v: &str) -> Result<u64, OptionError> {
    let t = v.trim();
    let (digits, mult) = match t.chars().last().map(|c| c.to_ascii_lowercase()) {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| {
            bad(format!(
                "{shown} {v}: expected a size in bytes (k, m, g allowed)"
            ))
        })
}

fn factor(shown: &str, v: &str) -> Result<f64, OptionError> {
    match v.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f >= 0.0 => Ok(f),
        _ => Err(bad(format!("{shown} {v}: expected a non-negative number"))),
    }
}

impl Options {
    /// Consistency checks and the implied phases.
    fn finish(mut self) -> Result<Options, OptionError> {
        if !(self.run_precreate || self.run_benchmark || self.run_cleanup) {
            (self.run_precreate, self.run_benchmark, self.run_cleanup) = (true, true, true);
        }
        if self.dsets == 0 {
            return Err(bad(
                "-D 0: at least one data set per process is needed".into()
            ));
        }
        if self.wear_out && self.stonewall_seconds == 0 {
            return Err(bad(
                "-W: the wear-out needs a stonewall timer (-w SECONDS)".into()
            ));
        }
        if self.object_size > 1 << 30 {
            return Err(bad(format!(
                "-S {}: objects larger than 1 GiB are not supported (one buffer per rank)",
                self.object_size
            )));
        }
        if let Some(e) =
            pario_backends::registry::tool_refusal("md-workbench", &self.api).or_else(|| {
                pario_backends::registry::check_options(&self.api, &self.module_options).err()
            })
        {
            return Err(bad(e));
        }
        Ok(self)
    }

    /// "123", "1", "23", ...: the phases that run.
    pub fn phases(&self) -> String {
        [
            (self.run_precreate, '1'),
            (self.run_benchmark, '2'),
            (self.run_cleanup, '3'),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, c)| *c)
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Options, OptionError> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn defaults_are_upstreams() {
        let o = p(&[]).unwrap();
        assert_eq!(
            (o.dsets, o.precreate, o.per_iteration, o.iterations),
            (10, 3000, 1000, 3)
        );
        assert_eq!((o.object_size, o.offset, o.seed), (3901, 1, -1));
        assert_eq!((o.prefix.as_str(), o.api.as_str()), ("./out", "POSIX"));
        assert_eq!(o.phases(), "123");
        assert_eq!(o.run_info_file, "md-workbench.status");
    }

    #[test]
    fn the_io500_command_lines_parse() {
        let base = [
            "--dataPacketType=t",
            "--process-reports",
            "-a",
            "POSIX",
            "-o=/d/mdworkbench",
            "-t=0.000000",
            "-O=1",
            "--run-info-file=/r/mdworkbench.status",
            "-D=10",
            "-G=12345",
            "-P=20",
            "-I=20",
        ];
        let mut a: Vec<&str> = base.to_vec();
        a.extend(["-2", "-R=2", "-X"]);
        let o = p(&a).unwrap();
        assert_eq!(o.phases(), "2");
        assert!(o.process_reports && o.verify_read);
        assert_eq!(
            (o.dsets, o.precreate, o.per_iteration, o.iterations),
            (10, 20, 20, 2)
        );
        assert_eq!(
            (o.prefix.as_str(), o.seed, o.waiting_factor),
            ("/d/mdworkbench", 12345, 0.0)
        );
        assert_eq!(o.run_info_file, "/r/mdworkbench.status");
        let mut a: Vec<&str> = base.to_vec();
        a.push("-1");
        assert_eq!(p(&a).unwrap().phases(), "1");
    }

    #[test]
    fn spellings_long_short_attached() {
        let o = p(&[
            "--data-sets",
            "3",
            "-P5",
            "--obj-per-proc=7",
            "-S",
            "4k",
            "-w",
            "2",
            "-W",
        ])
        .unwrap();
        assert_eq!(
            (o.dsets, o.precreate, o.per_iteration, o.object_size),
            (3, 5, 7, 4096)
        );
        assert!(o.wear_out && o.stonewall_seconds == 2);
        assert_eq!(p(&["-vv", "-12"]).unwrap().phases(), "12");
        let o = p(&["-v", "-v", "--posix.odirect", "--tag", "b=1", "-L", "lat"]).unwrap();
        assert_eq!(o.verbose, 2);
        assert_eq!(o.module_options[0].1, "odirect");
        assert_eq!(o.tags, vec![("b".to_string(), "1".to_string())]);
        assert_eq!(o.latency_prefix.as_deref(), Some("lat"));
        assert_eq!(
            p(&["--dataPacketType=i"]).unwrap().packet,
            PacketType::Incompressible
        );
    }

    #[test]
    fn bad_input_names_the_option() {
        for (args, needle) in [
            (vec!["-Z"], "-Z: unknown option"),
            (vec!["--nope"], "--nope: unknown option"),
            (vec!["-S", "12q"], "-S 12q"),
            (vec!["-S", "-5"], "-S -5"),
            (vec!["-D", "0"], "-D 0"),
            (
                vec!["-D", "99999999999"],
                "-D 99999999999: out of range: at most 4294967295",
            ),
            (
                vec!["-P", "99999999999999999999"],
                "-P 99999999999999999999: out of range: at most 18446744073709551615",
            ),
            (vec!["-I", "x"], "-I x"),
            (vec!["-t", "-1"], "-t -1"),
            (vec!["-o"], "-o: needs a value"),
            (vec!["-W"], "-W: the wear-out"),
            (vec!["--latency-all"], "--latency-all: not supported"),
            (vec!["--gpuDirect"], "--gpuDirect: this build has no GPU"),
            (vec!["--allocateBufferOnGPU=1"], "--allocateBufferOnGPU"),
            (vec!["--dataPacketType=z"], "--dataPacketType"),
            (vec!["-a", "NOSUCH"], "NOSUCH"),
            (vec!["-q=1"], "-q: takes no value"),
            (vec!["stray"], "stray: unexpected argument"),
        ] {
            let e = p(&args).unwrap_err().0;
            assert!(e.contains(needle), "{args:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
