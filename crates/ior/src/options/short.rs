//! Short options (`-w`, `-t 4k`, `-vvv`, `-Fi3`...) and the dispatch of
//! each command-line word to the short, long or `--tag` parser.

use super::*;

pub(super) enum Action {
    Help,
    Deck(String),
}

/// How a short option letter behaves.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ShortKind {
    Flag,
    Value,
}

pub(super) fn short_kind(c: char) -> Option<ShortKind> {
    match c {
        'a' | 'A' | 'b' | 'd' | 'D' | 'f' | 'G' | 'i' | 'j' | 'l' | 'M' | 'N' | 'o' | 'O' | 'Q'
        | 's' | 't' | 'T' | 'X' => Some(ShortKind::Value),
        'c' | 'C' | 'e' | 'E' | 'F' | 'g' | 'h' | 'k' | 'K' | 'm' | 'q' | 'r' | 'R' | 'u' | 'v'
        | 'w' | 'W' | 'x' | 'y' | 'Y' | 'z' | 'Z' => Some(ShortKind::Flag),
        _ => backend_letter(c).map(|(_, o)| match o.kind {
            OptionKind::Flag => ShortKind::Flag,
            _ => ShortKind::Value,
        }),
    }
}

/// The backend option IOR 3's letter `c` stands for (`-B` is
/// `--posix.odirect`), from the backends' descriptors, with its module.
pub fn backend_letter(c: char) -> Option<(&'static str, &'static OptionSpec)> {
    module_options().find(|(_, o)| o.letter == Some(c))
}

/// Sets what backend letter `c` stands for: its IOR 3 directive, with
/// `value` (None: the flag was given).
pub(super) fn apply_backend_letter(
    p: &mut IorParams,
    c: char,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let name = format!("-{c}");
    let spec = backend_letter(c)
        .and_then(|(_, o)| o.directive)
        .and_then(find_directive)
        .ok_or_else(|| OptionError::UnknownOption(name.clone()))?;
    apply_directive_spec(p, spec, &name, value)
}

/// Parses the argument at `args[i]` (and its value); returns words used.
pub(super) fn parse_argument(
    args: &[String],
    i: usize,
    p: &mut IorParams,
) -> Result<(usize, Vec<Action>), OptionError> {
    let tok = args[i].as_str();
    if let Some(long) = tok.strip_prefix("--") {
        return parse_long(args, i, long, p);
    }
    let Some(body) = tok.strip_prefix('-').filter(|b| !b.is_empty()) else {
        let hint = if tok.starts_with('-') {
            String::new()
        } else {
            format!(" (ior takes no positional arguments; did you mean -o {tok}?)")
        };
        return Err(OptionError::Usage(format!(
            "unexpected argument '{tok}'{hint}"
        )));
    };
    let mut chars = body.chars();
    let first = chars.next().unwrap_or('-');
    let rest = chars.as_str();
    match short_kind(first) {
        None => Err(OptionError::UnknownOption(format!("-{first}"))),
        Some(ShortKind::Value) => {
            let name = format!("-{first}");
            let (value, used) = if rest.is_empty() {
                (next_value(args, i, &name)?, 2)
            } else {
                (rest.strip_prefix('=').unwrap_or(rest), 1)
            };
            let action = apply_short_value(p, first, &name, value)?;
            Ok((used, action.into_iter().collect()))
        }
        Some(ShortKind::Flag) => {
            let mut actions = Vec::new();
            if let Some(v) = rest.strip_prefix('=') {
                actions.extend(set_short_flag(p, first, v)?);
                return Ok((1, actions));
            }
            actions.extend(apply_short_flag(p, first));
            for c in rest.chars() {
                match short_kind(c) {
                    Some(ShortKind::Flag) => actions.extend(apply_short_flag(p, c)),
                    Some(ShortKind::Value) => {
                        return Err(OptionError::Usage(format!(
                            "in '{tok}', -{c} takes a value and cannot follow other letters; \
                             write it separately (e.g. -{first} -{c} VALUE)"
                        )))
                    }
                    None => {
                        return Err(OptionError::Usage(format!(
                            "unknown option -{c} in '{tok}'"
                        )));
                    }
                }
            }
            Ok((1, actions))
        }
    }
}

/// The word after `args[i]`, as the value of option `name`.
pub(super) fn next_value<'a>(
    args: &'a [String],
    i: usize,
    name: &str,
) -> Result<&'a str, OptionError> {
    let Some(next) = args.get(i + 1) else {
        return Err(OptionError::MissingValue {
            option: name.to_string(),
            hint: String::new(),
        });
    };
    // A following option is not a value, but negative numbers are (-X -13).
    let looks_like_option = next.len() > 1
        && next.starts_with('-')
        && !next[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if looks_like_option {
        let hint = if name == "-l" {
            " (offset, incompressible, timestamp or random; IOR 2/3.0's flag -l \
             storeFileOffset is now -O storeFileOffset=1)"
                .to_string()
        } else {
            format!(" (found option '{next}' instead)")
        };
        return Err(OptionError::MissingValue {
            option: name.to_string(),
            hint,
        });
    }
    Ok(next.as_str())
}

pub(super) fn apply_short_value(
    p: &mut IorParams,
    c: char,
    name: &str,
    v: &str,
) -> Result<Option<Action>, OptionError> {
    match c {
        'a' => set_api(p, v)?,
        'A' => p.ref_num = parse_i64(name, v)?,
        'b' => p.block_size = parse_bytes(name, v)?,
        'd' => p.inter_test_delay = parse_seconds_f64(name, v)?,
        'D' => p.deadline_for_stonewalling = parse_u64(name, v)?,
        'f' => {
            if v.trim().is_empty() {
                return Err(OptionError::MissingValue {
                    option: name.to_string(),
                    hint: String::new(),
                });
            }
            return Ok(Some(Action::Deck(v.to_string())));
        }
        'G' => p.set_timestamp_signature = parse_i64(name, v)?,
        'i' => p.repetitions = parse_count(name, v)?,
        'j' => p.outlier_threshold = parse_u64(name, v)?,
        'l' => p.data_packet_type = parse_packet_type(name, v)?,
        'M' => set_memory_per_node(p, name, v)?,
        'N' => p.num_tasks = parse_num_tasks(name, v)?,
        'o' => p.test_file = nonempty(name, v)?.to_string(),
        'O' => apply_directive_list(p, v)?,
        'Q' => p.task_per_node_offset = parse_u64(name, v)?,
        's' => p.segment_count = parse_count(name, v)?,
        't' => p.transfer_size = parse_bytes(name, v)?,
        'T' => p.max_time_duration = parse_u64(name, v)?,
        'X' => p.reorder_tasks_random_seed = parse_i64(name, v)?,
        _ => apply_backend_letter(p, c, Some(v))?,
    }
    Ok(None)
}

/// One occurrence of a flag letter.
pub(super) fn apply_short_flag(p: &mut IorParams, c: char) -> Option<Action> {
    match c {
        'c' => p.collective = true,
        'C' => p.reorder_tasks = true,
        'e' => p.fsync = true,
        'E' => p.use_existing_test_file = true,
        'F' => p.file_per_proc = true,
        'g' => p.intra_test_barriers = true,
        'h' => return Some(Action::Help),
        'k' => p.keep_file = true,
        'K' => p.keep_file_with_error = true,
        'm' => p.multi_file = true,
        'q' => p.quit_on_error = true,
        'r' => p.read_file = true,
        'R' => p.check_read = true,
        'u' => p.unique_dir = true,
        'v' => p.verbose = p.verbose.saturating_add(1),
        'w' => p.write_file = true,
        'W' => p.check_write = true,
        'x' => p.single_xfer_attempt = true,
        'y' => p.dual_mount = true,
        'Y' => p.fsync_per_write = true,
        'z' => p.random_offset = p.random_offset.saturating_add(1),
        'Z' => p.reorder_tasks_random = p.reorder_tasks_random.saturating_add(1),
        // A backend's flag letter (`-B`, `-H`, ...): its directive, set to
        // true, which cannot fail.
        _ => {
            if let Err(e) = apply_backend_letter(p, c, None) {
                debug_assert!(false, "-{c}: {e}");
            }
        }
    }
    None
}

/// A flag letter with an explicit value: `-v=3`, `-w=0`.
pub(super) fn set_short_flag(
    p: &mut IorParams,
    c: char,
    v: &str,
) -> Result<Option<Action>, OptionError> {
    let name = format!("-{c}");
    match c {
        'v' => p.verbose = parse_u8(&name, v)?,
        'z' => p.random_offset = parse_u8(&name, v)?,
        'Z' => p.reorder_tasks_random = parse_u8(&name, v)?,
        'h' => {
            if parse_bool(&name, v)? {
                return Ok(Some(Action::Help));
            }
        }
        c if backend_letter(c).is_some() => apply_backend_letter(p, c, Some(v))?,
        _ => {
            let on = parse_bool(&name, v)?;
            let field: &mut bool = match c {
                'c' => &mut p.collective,
                'C' => &mut p.reorder_tasks,
                'e' => &mut p.fsync,
                'E' => &mut p.use_existing_test_file,
                'F' => &mut p.file_per_proc,
                'g' => &mut p.intra_test_barriers,
                'k' => &mut p.keep_file,
                'K' => &mut p.keep_file_with_error,
                'm' => &mut p.multi_file,
                'q' => &mut p.quit_on_error,
                'r' => &mut p.read_file,
                'R' => &mut p.check_read,
                'u' => &mut p.unique_dir,
                'w' => &mut p.write_file,
                'W' => &mut p.check_write,
                'x' => &mut p.single_xfer_attempt,
                'y' => &mut p.dual_mount,
                'Y' => &mut p.fsync_per_write,
                _ => return Err(OptionError::UnknownOption(name)),
            };
            *field = on;
        }
    }
    Ok(None)
}
