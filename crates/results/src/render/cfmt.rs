//! C's `printf` number conversions, as the tools whose outputs pario
//! reproduces print them (glibc's spelling). The one place for them: every
//! renderer and engine file that writes a C-formatted number calls these.
//!
//! * [`e`]: `%.Ne`: Rust writes `1.5e3`, C `1.500000e+03` (the exponent
//!   has a sign and at least two digits);
//! * [`f`]: `%.Nf`: Rust's `{:.N}` for finite values, C's words for the
//!   others;
//! * [`f_neg_nan`]: `%.Nf` of a value that a C program on x86-64 computed:
//!   the NaN of an invalid operation (0/0) has its sign bit set there, and
//!   glibc prints it `-nan` (md-workbench's outputs show it that way).
//!
//! Non-finite values: `nan`, `inf`, `-inf`.

/// C's `%.<precision>e`: "1.234568e+05", "1.8120e-05", "0.000e+00".
pub fn e(x: f64, precision: usize) -> String {
    if let Some(word) = non_finite(x) {
        return word.into();
    }
    let s = format!("{x:.precision$e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// C's `%.<precision>f`: "1734.19", "nan", "-inf".
pub fn f(x: f64, precision: usize) -> String {
    match non_finite(x) {
        Some(word) => word.into(),
        None => format!("{x:.precision$}"),
    }
}

/// [`f`], with a NaN spelled by its own sign bit as glibc does (`-nan`
/// when set): for figures computed here that a C program would print (the
/// IO500 harness's scores and times), whatever made the NaN.
pub fn f_signed_nan(x: f64, precision: usize) -> String {
    if x.is_nan() && x.is_sign_negative() {
        "-nan".into()
    } else {
        f(x, precision)
    }
}

/// [`f`], with any NaN spelled `-nan` (see the module notes).
pub fn f_neg_nan(x: f64, precision: usize) -> String {
    if x.is_nan() {
        "-nan".into()
    } else {
        f(x, precision)
    }
}

fn non_finite(x: f64) -> Option<&'static str> {
    if x.is_nan() {
        Some("nan")
    } else if x == f64::INFINITY {
        Some("inf")
    } else if x == f64::NEG_INFINITY {
        Some("-inf")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_style_exponents() {
        // ior's per-rank CSV and trace.
        assert_eq!(e(123456.0, 2), "1.23e+05");
        assert_eq!(e(0.0, 3), "0.000e+00");
        // mdtest's text.
        assert_eq!(e(123456.789, 6), "1.234568e+05");
        assert_eq!(e(0.0, 6), "0.000000e+00");
        // md-workbench's lines.
        assert_eq!(e(1.812e-5, 4), "1.8120e-05");
        assert_eq!(e(0.0, 4), "0.0000e+00");
        assert_eq!(e(123.0, 2), "1.23e+02");
        // MPI-IO Test's lines.
        assert_eq!(e(1734.188, 6), "1.734188e+03");
        assert_eq!(e(-3.0, 6), "-3.000000e+00");
        assert_eq!(e(1e-300, 6), "1.000000e-300");
    }

    /// The assertions of the copies this module replaced, unchanged.
    #[test]
    fn as_every_former_copy_printed() {
        // results/render/mdtest_text.rs
        assert_eq!(e(123456.789, 6), "1.234568e+05");
        assert_eq!(e(0.0, 6), "0.000000e+00");
        assert_eq!(e(1.5e-7, 10), "1.5000000000e-07");
        assert_eq!(e(2.0e123, 2), "2.00e+123");
        // engine/ior/files.rs
        assert_eq!(e(0.0012345678901, 10), "1.2345678901e-03");
        assert_eq!(e(123456.0, 2), "1.23e+05");
        assert_eq!(e(0.0, 3), "0.000e+00");
        assert_eq!(e(-2.5e-120, 1), "-2.5e-120");
        assert_eq!(e(f64::INFINITY, 3), "inf");
        // engine/md_workbench/report.rs
        assert_eq!(e(1.812e-5, 4), "1.8120e-05");
        assert_eq!(e(0.0, 4), "0.0000e+00");
        assert_eq!(e(123.0, 2), "1.23e+02");
        // mpi_io_test/output.rs
        assert_eq!(e(1734.188, 6), "1.734188e+03");
        assert_eq!(e(0.0, 6), "0.000000e+00");
        assert_eq!(e(1.5e-7, 6), "1.500000e-07");
        assert_eq!(e(2.0e123, 6), "2.000000e+123");
        assert_eq!(e(f64::INFINITY, 6), "inf");
        assert_eq!(e(-3.0, 6), "-3.000000e+00");
    }

    #[test]
    fn non_finite_values_use_c_s_words() {
        assert_eq!(e(f64::NAN, 6), "nan");
        assert_eq!(e(f64::INFINITY, 6), "inf");
        assert_eq!(e(f64::NEG_INFINITY, 2), "-inf");
        assert_eq!(f(f64::NAN, 1), "nan");
        assert_eq!(f(f64::NEG_INFINITY, 1), "-inf");
        assert_eq!(f_neg_nan(f64::NAN, 1), "-nan");
        assert_eq!(f_neg_nan(f64::INFINITY, 1), "inf");
    }

    #[test]
    fn fixed_point() {
        assert_eq!(f(1734.188, 2), "1734.19");
        assert_eq!(f(0.5, 0), "0");
        assert_eq!(f_neg_nan(2.25, 3), "2.250");
    }

    #[test]
    fn f_signed_nan_follows_the_sign_bit_as_glibc_does() {
        assert_eq!(f_signed_nan(0.0, 6), "0.000000");
        assert_eq!(f_signed_nan(-0.0, 6), "-0.000000");
        assert_eq!(f_signed_nan(1.0 / 3.0, 6), "0.333333");
        assert_eq!(f_signed_nan(2.5, 0), "2");
        assert_eq!(f_signed_nan(0.0005, 3), "0.001");
        assert_eq!(f_signed_nan(f64::NAN, 6), "nan");
        assert_eq!(f_signed_nan(-f64::NAN, 6), "-nan");
        assert_eq!(f_signed_nan(f64::INFINITY, 6), "inf");
        assert_eq!(f_signed_nan(f64::NEG_INFINITY, 6), "-inf");
        assert_eq!(f_signed_nan(123456789.125, 4), "123456789.1250");
    }
}
