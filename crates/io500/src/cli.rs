//! The harness's command line: `io500 CONFIG [options]`, or `--list`,
//! `--list-mandatory`, `--help` alone.

use crate::plan::Mode;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Help,
    /// `--list` (`mandatory`: `--list-mandatory`).
    List {
        mandatory: bool,
    },
    WithConfig(Options),
}

/// The options after the config file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options {
    pub config: String,
    pub help: bool,
    /// `-v` (counted from 0) or `--verbose=N`: replaces `[global] verbosity`.
    pub verbosity: Option<i32>,
    pub extended: bool,
    pub cleanup: bool,
    pub config_hash: bool,
    pub dry_run: bool,
    pub timestamp: Option<String>,
    /// `--list` after the config: the harness lists and exits with 1.
    pub list: bool,
    pub verify: Option<String>,
}

impl Options {
    pub fn mode(&self) -> Mode {
        if self.extended {
            Mode::Extended
        } else {
            Mode::Standard
        }
    }
}

fn option(o: &mut Options, args: &[String], i: &mut usize) -> Result<bool, String> {
    let a = args[*i].as_str();
    match a {
        "-h" | "--help" => o.help = true,
        "-v" => o.verbosity = Some(o.verbosity.unwrap_or(0) + 1),
        "--mode=standard" => o.extended = false,
        "--mode=extended" => o.extended = true,
        "--cleanup" => o.cleanup = true,
        "--config-hash" => o.config_hash = true,
        "--dry-run" => o.dry_run = true,
        "-l" | "--list" => o.list = true,
        "--verify" => {
            let file = args.get(*i + 1..).and_then(|rest| rest.last());
            let file = file.ok_or("--verify: the result file to check is missing")?;
            o.verify = Some(file.clone());
            return Ok(false);
        }
        _ => return other(o, args, i),
    }
    Ok(true)
}

fn other(o: &mut Options, args: &[String], i: &mut usize) -> Result<bool, String> {
    let a = args[*i].as_str();
    if let Some(level) = a.strip_prefix("--verbose=") {
        let n = level
            .parse()
            .map_err(|_| format!("--verbose={level}: not a number"))?;
        o.verbosity = Some(n);
    } else if let Some(t) = a.strip_prefix("--timestamp=") {
        o.timestamp = Some(t.to_string());
    } else if a == "--timestamp" {
        let t = args.get(*i + 1).filter(|t| !t.is_empty());
        o.timestamp = Some(t.ok_or("--timestamp: the value is missing")?.clone());
        *i += 1;
    } else if a.starts_with("--mode=") {
        return Err(format!("{a}: the mode is standard or extended"));
    } else {
        return Err(format!("unknown option {a}"));
    }
    Ok(true)
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Action, String> {
    let first = args.first().map(String::as_str);
    match first {
        None | Some("-h" | "--help") => return Ok(Action::Help),
        Some("--list-mandatory" | "-lm") => return Ok(Action::List { mandatory: true }),
        Some("-l" | "--list") => return Ok(Action::List { mandatory: false }),
        _ => {}
    }
    let mut o = Options {
        config: args[0].clone(),
        ..Options::default()
    };
    let mut i = 1;
    while i < args.len() {
        if !option(&mut o, args, &mut i)? {
            break;
        }
        i += 1;
    }
    Ok(Action::WithConfig(o))
}

/// The help text (our words, the harness's options).
pub fn help(program: &str) -> String {
    format!(
        "Usage:\n  {program} CONFIG [options]        run the IO500 phases CONFIG describes\n  {program} CONFIG --verify FILE    check a result.txt against CONFIG\n  {program} --list | -l             every config key with its default\n  {program} --list-mandatory | -lm  the same for the standard phases only\n  {program} --help | -h             this text\n\nOptions:\n  --config-hash             print the config's hash\n  --cleanup                 remove what a run left in its data directory (with its --timestamp=)\n  --dry-run                 print each phase's command line, run nothing\n  --mode=standard|extended  which phases run (default: standard)\n  --timestamp=STRING        name of the run's directories (default: the start time)\n  -v                        more output (repeatable)\n  --verbose=LEVEL           output level 1 to 10\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn opts(s: &str) -> Options {
        match parse(&args(s)).unwrap() {
            Action::WithConfig(o) => o,
            a => panic!("{a:?}"),
        }
    }

    #[test]
    fn the_harness_options_parse() {
        assert_eq!(parse(&[]).unwrap(), Action::Help);
        assert_eq!(
            parse(&args("-lm")).unwrap(),
            Action::List { mandatory: true }
        );
        assert_eq!(
            parse(&args("--list")).unwrap(),
            Action::List { mandatory: false }
        );
        let o = opts("c.ini --dry-run --mode=extended --timestamp=T -v -v");
        assert!(o.dry_run && o.extended);
        assert_eq!((o.timestamp.as_deref(), o.verbosity), (Some("T"), Some(2)));
        let o = opts("c.ini --timestamp X --verbose=5 --config-hash");
        assert_eq!((o.timestamp.as_deref(), o.verbosity), (Some("X"), Some(5)));
        assert!(o.config_hash);
        let o = opts("c.ini --verify a b r.txt");
        assert_eq!(o.verify.as_deref(), Some("r.txt"));
    }

    #[test]
    fn bad_options_are_refused_with_the_reason() {
        let e = |s: &str| parse(&args(s)).unwrap_err();
        assert_eq!(e("c.ini --bogus"), "unknown option --bogus");
        assert_eq!(
            e("c.ini --verify"),
            "--verify: the result file to check is missing"
        );
        assert_eq!(e("c.ini --timestamp"), "--timestamp: the value is missing");
        assert_eq!(
            e("c.ini --mode=fast"),
            "--mode=fast: the mode is standard or extended"
        );
        assert_eq!(e("c.ini --verbose=x"), "--verbose=x: not a number");
    }
}
