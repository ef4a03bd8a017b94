//! IOR 3's backend directives (`useO_DIRECT`, `showHints`, `setAlignment`,
//! `lustreStripeCount`...) are aliases of the backends' own options: a
//! backend descriptor names them (an [`OptionSpec`]'s `directive` and
//! `letter`), the front end keeps no field for any of them. Given as `-O`,
//! a deck line, a long option, a letter (`-B`) or through the module option
//! itself, one is resolved at parse time to the value text the backend's
//! option takes and kept by its directive name in
//! [`IorParams::backend_directives`]; [`IorParams::backend_options`] hands
//! it to the selected backend's modules that take it.

use super::*;

/// Values IOR 3 treats as "not set" for its valued backend directives: an
/// alias given with one of them is not in effect (as before it was kept).
const IOR_DEFAULTS: &[(&str, &str)] = &[
    ("setAlignment", "1"),
    ("lustreStripeCount", "0"),
    ("lustreStripeSize", "0"),
    ("lustreStartOST", "-1"),
];

/// The backend option (of any module, one a user may set) whose IOR 3
/// directive is `name`, if any.
pub fn backend_alias(name: &str) -> Option<&'static OptionSpec> {
    module_options()
        .map(|(_, o)| o)
        .find(|o| o.directive == Some(name))
}

/// Sets alias `spec` from `x`: the value read by the directive's kind,
/// kept as the text the backend option takes; a flag that is off or a
/// value at IOR's default removes it.
pub(super) fn apply_alias(
    p: &mut IorParams,
    spec: &DirectiveSpec,
    x: &Given<'_>,
) -> Result<(), OptionError> {
    let (label, v) = (x.label, x.raw());
    let value: Option<Option<String>> = match spec.kind {
        DirectiveKind::Bool | DirectiveKind::Count => x.flag()?.then_some(None),
        DirectiveKind::Size => Some(Some(parse_bytes(label, v)?.to_string())),
        DirectiveKind::UInt => Some(Some(parse_u64(label, v)?.to_string())),
        DirectiveKind::Int => Some(Some(parse_i64(label, v)?.to_string())),
        DirectiveKind::Float | DirectiveKind::Text => Some(Some(x.text()?)),
    };
    let at_default = |v: &Option<String>| {
        IOR_DEFAULTS
            .iter()
            .any(|(n, d)| *n == spec.name && v.as_deref() == Some(*d))
    };
    p.backend_directives.retain(|(n, _)| *n != spec.name);
    if let Some(v) = value.filter(|v| !at_default(v)) {
        p.backend_directives.push((spec.name, v));
    }
    Ok(())
}

impl IorParams {
    /// IOR 3 directive `name` as in effect: `None` when not given (or off,
    /// or at IOR's default), `Some(None)` for a flag that is on,
    /// `Some(Some(v))` for a value. `randomOffset` (mmap's internal
    /// `random-offset`) is the test's own `-z`.
    pub fn directive_setting(&self, name: &str) -> Option<Option<&str>> {
        if name == "randomOffset" {
            return self.ordering.offsets.is_random().then_some(None);
        }
        self.backend_directives
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_deref())
    }

    /// Whether IOR 3 directive `name` is in effect (a flag on, a value set).
    pub fn directive_on(&self, name: &str) -> bool {
        self.directive_setting(name).is_some()
    }

    /// The value of IOR 3 directive `name` as a number, when set.
    pub fn directive_number<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
        self.directive_setting(name)
            .flatten()
            .and_then(|v| v.parse().ok())
    }
}
