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
        'f' | 'O' => Some(ShortKind::Value),
        'h' => Some(ShortKind::Flag),
        _ => letter_directive(c).map(|d| match d.kind.is_flag_like() {
            true => ShortKind::Flag,
            false => ShortKind::Value,
        }),
    }
}

/// The option of the table letter `c` stands for: the directive with that
/// letter, or the IOR 3 directive of the backend option with that letter
/// (`-B` is `useO_DIRECT`, `--posix.odirect`), from the descriptors.
pub(super) fn letter_directive(c: char) -> Option<&'static DirectiveSpec> {
    DIRECTIVES.iter().find(|d| d.letter == Some(c)).or_else(|| {
        backend_letter(c)
            .and_then(|(_, o)| o.directive)
            .and_then(find_directive)
    })
}

/// The backend option IOR 3's letter `c` stands for (`-B` is
/// `--posix.odirect`), from the backends' descriptors, with its module.
pub fn backend_letter(c: char) -> Option<(&'static str, &'static OptionSpec)> {
    module_options().find(|(_, o)| o.letter == Some(c))
}

/// Sets the option of letter `c` (named `name`, e.g. `-b`) from `value`
/// (None: the flag was given without one).
fn apply_letter(p: &mut IorParams, c: char, value: Option<&str>) -> Result<(), OptionError> {
    let name = format!("-{c}");
    let spec = letter_directive(c).ok_or_else(|| OptionError::UnknownOption(name.clone()))?;
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
            actions.extend(apply_short_flag(p, first)?);
            for c in rest.chars() {
                match short_kind(c) {
                    Some(ShortKind::Flag) => actions.extend(apply_short_flag(p, c)?),
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
        'f' => {
            if v.trim().is_empty() {
                return Err(OptionError::MissingValue {
                    option: name.to_string(),
                    hint: String::new(),
                });
            }
            return Ok(Some(Action::Deck(v.to_string())));
        }
        'O' => apply_directive_list(p, v)?,
        _ => apply_letter(p, c, Some(v))?,
    }
    Ok(None)
}

/// One occurrence of a flag letter (`-v` counts up).
pub(super) fn apply_short_flag(p: &mut IorParams, c: char) -> Result<Option<Action>, OptionError> {
    if c == 'h' {
        return Ok(Some(Action::Help));
    }
    apply_letter(p, c, None)?;
    Ok(None)
}

/// A flag letter with an explicit value: `-v=3`, `-w=0`.
pub(super) fn set_short_flag(
    p: &mut IorParams,
    c: char,
    v: &str,
) -> Result<Option<Action>, OptionError> {
    if c == 'h' {
        let on = parse_bool("-h", v)?;
        return Ok(on.then_some(Action::Help));
    }
    apply_letter(p, c, Some(v))?;
    Ok(None)
}
