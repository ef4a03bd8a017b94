//! The command line of `mpi_io_test`, parsed with the original's grammar:
//! single-dash options compared exactly, a value-taking option consumes the
//! next token whatever it looks like, the last occurrence wins, `-hints`
//! accumulates `key value` pairs.
//!
//! Unlike the original we refuse what it silently ignores or misreads:
//! unknown options, a missing value, numbers with trailing garbage, size
//! suffixes it does not know. `-setup FILE` is read first (see [`expand_setup`])
//! and the command line then overrides it.

use std::fmt;

/// Which phases run (`-op`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Op {
    #[default]
    Both,
    Read,
    Write,
}

/// Options as given, before validation against the rank count.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub test_type: Option<i64>,
    pub collective: bool,
    pub num_io: Option<Vec<u32>>,
    pub nobj: u64,
    pub strided: i64,
    pub size: Option<u64>,
    pub csize: Option<u64>,
    pub target: Option<String>,
    pub targets: Option<String>,
    pub deletefile: bool,
    pub touch: i64,
    pub sync: bool,
    pub sleep: u64,
    pub barrier: bool,
    pub bopen: bool,
    pub chkdata: i64,
    /// `-preallocate` in bytes; None = no preallocation (-1).
    pub preallocate: Option<u64>,
    pub ahead: u32,
    pub host: Option<Vec<String>>,
    pub lhosts: bool,
    pub dio: bool,
    pub hints: Vec<(String, String)>,
    pub op: Op,
    pub nofile: bool,
    pub norsend: bool,
    pub output: Option<String>,
    pub errout: Option<String>,
    pub verbose: bool,
    pub help: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            test_type: None,
            collective: false,
            num_io: None,
            nobj: 1,
            strided: 0,
            size: None,
            csize: None,
            target: None,
            targets: None,
            deletefile: false,
            touch: 1,
            sync: false,
            sleep: 0,
            barrier: false,
            bopen: false,
            chkdata: 1,
            preallocate: None,
            ahead: 0,
            host: None,
            lhosts: false,
            dio: false,
            hints: Vec::new(),
            op: Op::Both,
            nofile: false,
            norsend: false,
            output: None,
            errout: None,
            verbose: false,
            help: false,
        }
    }
}

/// A command line that cannot be run: one line naming the option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn bad(s: impl Into<String>) -> BadInput {
    BadInput(s.into())
}

/// Options that take no value.
const FLAGS: &[&str] = &[
    "-collective",
    "-deletefile",
    "-sync",
    "-barrier",
    "-bopen",
    "-lhosts",
    "-dio",
    "-nofile",
    "-norsend",
    "-verbose",
    "-help",
];

/// Options that take exactly one value.
const VALUED: &[&str] = &[
    "-type",
    "-num_io",
    "-nobj",
    "-strided",
    "-size",
    "-csize",
    "-target",
    "-targets",
    "-touch",
    "-sleep",
    "-chkdata",
    "-preallocate",
    "-ahead",
    "-host",
    "-op",
    "-output",
    "-errout",
    "-setup",
];

/// Parse the tokens after the program name (with any `-setup` file already
/// expanded by [`expand_setup`]).
pub fn parse(args: &[String]) -> Result<Options, BadInput> {
    let mut o = Options::default();
    let mut i = 0;
    while i < args.len() {
        let opt = args[i].as_str();
        i += 1;
        if opt == "-hints" {
            i = parse_hints(args, i, &mut o.hints)?;
            continue;
        }
        if FLAGS.contains(&opt) {
            set_flag(&mut o, opt);
            continue;
        }
        if !VALUED.contains(&opt) {
            return Err(bad(format!(
                "[RANK 0] ERROR: Unknown option '{opt}' (run with -help for the list)."
            )));
        }
        let Some(v) = args.get(i) else {
            return Err(bad(format!("[RANK 0] ERROR: Option {opt} needs a value.")));
        };
        i += 1;
        set_value(&mut o, opt, v)?;
    }
    o.hints = last_value_per_key(std::mem::take(&mut o.hints));
    Ok(o)
}

/// The hints with each key once, where it first appears, holding its last
/// value (what MPI_Info_set makes of repeated keys). One pass with an index
/// by key: linear in the number of pairs, so that a setup file with tens of
/// thousands of pairs costs no more than reading it.
fn last_value_per_key(hints: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut at: std::collections::HashMap<String, usize> =
        std::collections::HashMap::with_capacity(hints.len());
    let mut out: Vec<(String, String)> = Vec::with_capacity(hints.len());
    for (k, v) in hints {
        match at.get(&k) {
            Some(&i) => out[i].1 = v,
            None => {
                at.insert(k.clone(), out.len());
                out.push((k, v));
            }
        }
    }
    out
}

fn set_flag(o: &mut Options, opt: &str) {
    let f = match opt {
        "-collective" => &mut o.collective,
        "-deletefile" => &mut o.deletefile,
        "-sync" => &mut o.sync,
        "-barrier" => &mut o.barrier,
        "-bopen" => &mut o.bopen,
        "-lhosts" => &mut o.lhosts,
        "-dio" => &mut o.dio,
        "-nofile" => &mut o.nofile,
        "-norsend" => &mut o.norsend,
        "-verbose" => &mut o.verbose,
        _ => &mut o.help,
    };
    *f = true;
}

fn set_value(o: &mut Options, opt: &str, v: &str) -> Result<(), BadInput> {
    match opt {
        "-type" => o.test_type = Some(int(opt, v)?),
        "-num_io" => o.num_io = Some(int_list(opt, v)?),
        "-nobj" => o.nobj = unsigned(opt, v)?,
        "-strided" => o.strided = int(opt, v)?,
        "-size" => o.size = Some(size(opt, v)?),
        "-csize" => o.csize = Some(size(opt, v)?),
        "-target" => o.target = Some(v.to_string()),
        "-targets" => o.targets = Some(v.to_string()),
        "-touch" => o.touch = int(opt, v)?,
        "-sleep" => o.sleep = unsigned(opt, v)?,
        "-chkdata" => {
            o.chkdata = i64::try_from(unsigned(opt, v)?)
                .map_err(|_| bad(format!("[RANK 0] ERROR: -chkdata {v}: too large.")))?
        }
        "-preallocate" => {
            o.preallocate = if v.trim() == "-1" {
                None
            } else {
                Some(size(opt, v)?)
            }
        }
        "-ahead" => {
            o.ahead = u32::try_from(unsigned(opt, v)?)
                .map_err(|_| bad(format!("[RANK 0] ERROR: -ahead {v}: too large.")))?
        }
        "-host" => o.host = Some(v.split(' ').filter(|h| !h.is_empty()).map(String::from).collect()),
        "-op" => {
            o.op = match v {
                "read" => Op::Read,
                "write" => Op::Write,
                _ => return Err(bad(format!(
                    "[RANK 0] ERROR: Operation {v} is not supported. Only recognized operation is read or write."
                ))),
            }
        }
        "-output" => o.output = Some(v.to_string()),
        "-errout" => o.errout = Some(v.to_string()),
        _ => return Err(bad("[RANK 0] ERROR: -setup may only be given on the command line.")),
    }
    Ok(())
}

/// `-hints k v k v ...`: pairs while the next token does not start with
/// `-` (a value may). Returns the index after the last pair.
fn parse_hints(
    args: &[String],
    mut i: usize,
    hints: &mut Vec<(String, String)>,
) -> Result<usize, BadInput> {
    let start = i;
    while i < args.len() && !args[i].starts_with('-') {
        let Some(v) = args.get(i + 1) else {
            return Err(bad(format!(
                "[RANK 0] ERROR: -hints: key '{}' has no value.",
                args[i]
            )));
        };
        hints.push((args[i].clone(), v.clone()));
        i += 2;
    }
    if i == start {
        return Err(bad("[RANK 0] ERROR: Option -hints needs key value pairs."));
    }
    Ok(i)
}

fn int(opt: &str, v: &str) -> Result<i64, BadInput> {
    v.trim()
        .parse::<i64>()
        .map_err(|_| bad(format!("[RANK 0] ERROR: {opt} {v}: not a whole number.")))
}

fn unsigned(opt: &str, v: &str) -> Result<u64, BadInput> {
    v.trim().parse::<u64>().map_err(|_| {
        bad(format!(
            "[RANK 0] ERROR: {opt} {v}: not a non-negative whole number."
        ))
    })
}

fn int_list(opt: &str, v: &str) -> Result<Vec<u32>, BadInput> {
    let items: Vec<&str> = v.split(' ').filter(|t| !t.is_empty()).collect();
    if items.is_empty() {
        return Err(bad(format!("[RANK 0] ERROR: {opt} \"{v}\": empty list.")));
    }
    items
        .iter()
        .map(|t| {
            t.parse::<u32>().map_err(|_| {
                bad(format!(
                    "[RANK 0] ERROR: {opt} \"{v}\": '{t}' is not a non-negative whole number."
                ))
            })
        })
        .collect()
}

/// A size expression (`-size`, `-csize`, `-preallocate`): digits, then
/// optionally one of w (2), b (512), K (1024), M (2^20), G (2^30),
/// KB (1000), MB (10^6), GB (10^9). Case-sensitive, like dd.
pub fn parse_size_expr(s: &str) -> Result<u64, String> {
    const SUFFIXES: &[(&str, u64)] = &[
        ("KB", 1000),
        ("MB", 1_000_000),
        ("GB", 1_000_000_000),
        ("w", 2),
        ("b", 512),
        ("K", 1024),
        ("M", 1 << 20),
        ("G", 1 << 30),
    ];
    let t = s.trim();
    let (digits, mult) = SUFFIXES
        .iter()
        .find_map(|(suf, m)| t.strip_suffix(suf).map(|d| (d, *m)))
        .unwrap_or((t, 1));
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "Unknown multiplicative suffix or not a number in '{s}' (digits, then w b K M G KB MB GB)"
        ));
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("'{s}' is too large"))
}

fn size(opt: &str, v: &str) -> Result<u64, BadInput> {
    parse_size_expr(v).map_err(|e| bad(format!("[RANK 0] ERROR: {opt}: {e}.")))
}

/// Split a `-setup` file into tokens: whitespace separates, `#` starts a
/// comment to the end of the line, double quotes group a value that holds
/// blanks (`-num_io "2 2"`).
pub fn tokenize_setup(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if let Some(col) = line.find('\0') {
            return Err(format!(
                "line {}: a NUL byte (column {}): not a text file",
                n + 1,
                col + 1
            ));
        }
        let mut cur = String::new();
        let mut have = false;
        let mut quoted = false;
        for ch in line.chars() {
            match ch {
                '"' => {
                    quoted = !quoted;
                    have = true;
                }
                '#' if !quoted => break,
                c if c.is_whitespace() && !quoted => {
                    if have {
                        out.push(std::mem::take(&mut cur));
                        have = false;
                    }
                }
                c => {
                    cur.push(c);
                    have = true;
                }
            }
        }
        if quoted {
            return Err(format!("line {}: unterminated double quote", n + 1));
        }
        if have {
            out.push(cur);
        }
    }
    Ok(out)
}

/// Replace `-setup FILE` by nothing and put the file's tokens in front of
/// the command line, so that options given on the command line override the
/// file's (last one wins) and `-hints` pairs from both accumulate.
pub fn expand_setup(
    args: &[String],
    read: impl Fn(&str) -> std::io::Result<String>,
) -> Result<Vec<String>, BadInput> {
    let mut setup: Option<&str> = None;
    let mut rest = Vec::with_capacity(args.len());
    let mut i = 0;
    while i < args.len() {
        if args[i] == "-setup" {
            let Some(f) = args.get(i + 1) else {
                return Err(bad("[RANK 0] ERROR: Option -setup needs a value."));
            };
            setup = Some(f);
            i += 2;
            continue;
        }
        // A value-taking option's value is never an option name.
        if VALUED.contains(&args[i].as_str()) && i + 1 < args.len() {
            rest.push(args[i].clone());
            rest.push(args[i + 1].clone());
            i += 2;
            continue;
        }
        rest.push(args[i].clone());
        i += 1;
    }
    let Some(file) = setup else { return Ok(rest) };
    let text =
        read(file).map_err(|e| bad(format!("[RANK 0] ERROR: -setup {file}: cannot read: {e}.")))?;
    let mut tokens =
        tokenize_setup(&text).map_err(|e| bad(format!("[RANK 0] ERROR: -setup {file}: {e}.")))?;
    if tokens.iter().any(|t| t == "-setup") {
        return Err(bad(format!(
            "[RANK 0] ERROR: -setup {file}: a setup file cannot name another setup file."
        )));
    }
    tokens.extend(rest);
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn size_multipliers_are_exact() {
        for (s, v) in [
            ("64", 64),
            ("3w", 6),
            ("2b", 1024),
            ("1K", 1024),
            ("1M", 1 << 20),
            ("1G", 1 << 30),
            ("2KB", 2000),
            ("3MB", 3_000_000),
            ("1GB", 1_000_000_000),
        ] {
            assert_eq!(parse_size_expr(s), Ok(v), "{s}");
        }
        for s in ["", "K", "1k", "1m", "512B", "1.5K", "3K2", "-8", "KB", "1x"] {
            assert!(parse_size_expr(s).is_err(), "{s}");
        }
    }

    #[test]
    fn documented_example_parses() {
        let mut a = argv("-type 4 -nobj 3 -size 131072 -csize 393216 -num_io");
        a.push("6".into());
        a.extend(argv("-target /scratch/u/test_file_t2 -touch 2 -dio -hints striping_factor 4 cb_nodes 6 -output ./out.txt -errout ./err.txt -deletefile"));
        let o = parse(&a).unwrap();
        assert_eq!(o.test_type, Some(4));
        assert_eq!(o.num_io, Some(vec![6]));
        assert_eq!(o.csize, Some(393216));
        assert_eq!(
            o.hints,
            vec![
                ("striping_factor".into(), "4".into()),
                ("cb_nodes".into(), "6".into())
            ]
        );
        assert!(o.dio && o.deletefile);
        assert_eq!(o.output.as_deref(), Some("./out.txt"));
    }

    #[test]
    fn last_occurrence_wins_and_hints_accumulate() {
        let o = parse(&argv(
            "-size 8 -size 16 -hints a 1 -op read -op write -hints b -2 -nobj 2",
        ))
        .unwrap();
        assert_eq!(o.size, Some(16));
        assert_eq!(o.op, Op::Write);
        assert_eq!(o.nobj, 2);
        assert_eq!(o.hints.len(), 2);
        assert_eq!(o.hints[1], ("b".into(), "-2".into()));
        let o = parse(&["-num_io".into(), "2 3".into(), "-host".into(), "a b".into()]).unwrap();
        assert_eq!(o.num_io, Some(vec![2, 3]));
        assert_eq!(o.host, Some(vec!["a".into(), "b".into()]));
        assert_eq!(parse(&argv("-preallocate -1")).unwrap().preallocate, None);
        assert_eq!(
            parse(&argv("-preallocate 1M")).unwrap().preallocate,
            Some(1 << 20)
        );
    }

    #[test]
    fn bad_tokens_are_refused_with_the_option_named() {
        for (line, word) in [
            ("-type 1 -bogus", "-bogus"),
            ("-type", "-type"),
            ("-type 2x", "-type"),
            ("-size 1k", "-size"),
            ("-nobj -1", "-nobj"),
            ("-op both", "both"),
            ("-hints a", "'a'"),
            ("-hints -type 1", "-hints"),
            ("-sleep -3", "-sleep"),
            ("-ahead -1", "-ahead"),
            ("-chkdata -1", "-chkdata -1"),
        ] {
            let e = parse(&argv(line)).unwrap_err();
            assert!(e.0.contains(word), "{line}: {e}");
            assert!(!e.0.contains('\n'));
        }
        assert!(parse(&["-num_io".into(), "2 x".into()]).is_err());
        assert!(parse(&["-num_io".into(), "".into()]).is_err());
    }

    #[test]
    fn setup_file_comes_first_and_the_command_line_overrides() {
        let file =
            "# master settings\n-type 2 -size 1M  # object size\n-num_io \"2 2\"\n-hints a 1\n";
        let a = expand_setup(&argv("-setup f -size 8 -hints b 2"), |name| {
            assert_eq!(name, "f");
            Ok(file.to_string())
        })
        .unwrap();
        let o = parse(&a).unwrap();
        assert_eq!(o.test_type, Some(2));
        assert_eq!(o.size, Some(8));
        assert_eq!(o.num_io, Some(vec![2, 2]));
        assert_eq!(o.hints.len(), 2);
        // "-target -setup" keeps -setup as the value of -target
        let a = expand_setup(&argv("-target -setup"), |_| unreachable!()).unwrap();
        assert_eq!(a, argv("-target -setup"));
        assert!(expand_setup(&argv("-setup"), |_| unreachable!()).is_err());
        assert!(expand_setup(&argv("-setup f"), |_| Ok("-setup g".into())).is_err());
        assert!(expand_setup(&argv("-setup f"), |_| Ok("-num_io \"2".into())).is_err());
        let e =
            expand_setup(&argv("-setup /nonexistent"), |p| std::fs::read_to_string(p)).unwrap_err();
        assert!(e.0.contains("/nonexistent"));
    }

    #[test]
    fn a_nul_byte_in_a_setup_file_is_named_with_file_and_line() {
        let e = expand_setup(
            &argv("-setup f.txt"),
            |_| Ok("-type 1\n-size 8K\0\n".into()),
        )
        .unwrap_err();
        assert!(e.0.contains("-setup f.txt: line 2: a NUL byte"), "{e}");
        assert!(!e.0.contains("suffix"), "{e}");
    }

    #[test]
    fn repeated_hint_keys_keep_their_first_place_and_last_value() {
        let o = parse(&argv("-hints a 1 b 2 a 3 -type 1 -hints c 4 b 5")).unwrap();
        assert_eq!(
            o.hints,
            vec![
                ("a".into(), "3".into()),
                ("b".into(), "5".into()),
                ("c".into(), "4".into())
            ]
        );
    }

    #[test]
    fn a_hundred_thousand_hint_pairs_parse_in_one_pass() {
        // 100,000 pairs over 50,000 keys, each given twice: every key kept
        // once, in order, with its second value. (A pass per pair over the
        // pairs kept, as before, would take minutes here; the test checks
        // the result, the linear algorithm is in last_value_per_key.)
        let mut a = vec!["-hints".to_string()];
        for round in 0..2 {
            for k in 0..50_000 {
                a.push(format!("k{k}"));
                a.push(format!("{round}"));
            }
        }
        let o = parse(&a).unwrap();
        assert_eq!(o.hints.len(), 50_000);
        assert_eq!(o.hints[0], ("k0".into(), "1".into()));
        assert_eq!(o.hints[49_999], ("k49999".into(), "1".into()));
        assert!(o
            .hints
            .iter()
            .enumerate()
            .all(|(i, (k, v))| *k == format!("k{i}") && v == "1"));
    }
}
