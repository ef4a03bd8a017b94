//! Module options (`--posix.odirect`, `--mpiio.hintsFileName=f`...): the
//! table of known options per backend module, and applying one (with the
//! IOR 3 field it also sets, if any).

use super::*;

/// Every module option the user may give, with its module: the backends'
/// descriptors' (see [`pario_backends::registry`]), in their order.
pub fn module_options() -> impl Iterator<Item = (&'static str, &'static OptionSpec)> {
    registry::DESCRIPTORS
        .iter()
        .flat_map(|d| d.user_options().map(move |o| (d.module, o)))
}

pub(super) fn find_module_option(
    label: &str,
    module: &str,
    key: &str,
) -> Result<(&'static str, &'static OptionSpec), OptionError> {
    let Some(d) = registry::find_module(module) else {
        return Err(OptionError::UnknownModule {
            option: label.to_string(),
            module: module.to_string(),
            known: registry::DESCRIPTORS
                .iter()
                .map(|d| d.module)
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    d.user_options()
        .find(|s| s.key.eq_ignore_ascii_case(key))
        .map(|s| (d.module, s))
        .ok_or_else(|| OptionError::UnknownModuleOption {
            option: label.to_string(),
            module: d.module.to_string(),
            known: d
                .user_options()
                .map(|s| s.key)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Records a module option and, when it has an IOR 3 directive
/// (`--posix.odirect` is `useO_DIRECT`), sets that directive too.
pub(super) fn apply_module_spec(
    p: &mut IorParams,
    label: &str,
    module: &'static str,
    spec: &OptionSpec,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let value = value.map(str::trim);
    let v = match (spec.kind, value) {
        (OptionKind::Flag, None) => None,
        (OptionKind::Flag, Some(v)) => Some(parse_bool(label, v)?.to_string()),
        (_, None) => {
            return Err(OptionError::MissingValue {
                option: label.to_string(),
                hint: String::new(),
            })
        }
        (OptionKind::UInt | OptionKind::Size, Some(v)) => Some(parse_bytes(label, v)?.to_string()),
        (OptionKind::Int, Some(v)) => Some(parse_i64(label, v)?.to_string()),
        (OptionKind::Text, Some(v)) => Some(nonempty(label, v)?.to_string()),
    };
    if let Some(directive) = spec.directive.and_then(find_directive) {
        apply_directive_spec(p, directive, label, v.as_deref())?;
    }
    let entry = (
        module.to_string(),
        spec.key.to_string(),
        value.map(str::to_string),
    );
    match p
        .module_options
        .iter_mut()
        .find(|(m, k, _)| m == module && k == spec.key)
    {
        Some(slot) => *slot = entry,
        None => p.module_options.push(entry),
    }
    Ok(())
}
