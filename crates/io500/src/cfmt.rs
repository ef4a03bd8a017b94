//! C's `%.Nf` for the numbers the harness prints (scores, times), so that
//! the strings pario writes and hashes are the ones the harness would.

/// `value` as C's `printf("%.{prec}f")` writes it (`nan`, `-nan`, `inf`).
pub fn f(value: f64, prec: usize) -> String {
    if value.is_nan() {
        return if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        }
        .into();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.into();
    }
    format!("{value:.prec$}")
}

#[cfg(test)]
mod tests {
    use super::f;

    #[test]
    fn matches_c_printf() {
        assert_eq!(f(0.0, 6), "0.000000");
        assert_eq!(f(-0.0, 6), "-0.000000");
        assert_eq!(f(1.0 / 3.0, 6), "0.333333");
        assert_eq!(f(2.5, 0), "2");
        assert_eq!(f(0.0005, 3), "0.001");
        assert_eq!(f(f64::NAN, 6), "nan");
        assert_eq!(f(f64::INFINITY, 6), "inf");
        assert_eq!(f(123456789.125, 4), "123456789.1250");
    }
}
