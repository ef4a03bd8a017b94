//! Aligned text tables for the terminal, hand-rolled: pario needs left and
//! right alignment, a rule under the header and an optional colour per row,
//! and ANSI colour codes must not count towards column widths (which a
//! general table crate would have to be taught); this is about 60 lines.

/// Column alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table being built.
#[derive(Clone, Debug, Default)]
pub struct Table {
    headers: Vec<(String, Align)>,
    rows: Vec<(Vec<String>, Option<&'static str>)>,
}

/// ANSI red, for regressions.
pub const RED: &str = "\x1b[31;1m";
/// ANSI green, for improvements.
pub const GREEN: &str = "\x1b[32m";
const RESET: &str = "\x1b[0m";

impl Table {
    pub fn new(headers: &[(&str, Align)]) -> Table {
        Table {
            headers: headers.iter().map(|(h, a)| (h.to_string(), *a)).collect(),
            rows: Vec::new(),
        }
    }

    /// Add a row; `color` (an ANSI code) paints the whole row.
    pub fn row(&mut self, cells: Vec<String>, color: Option<&'static str>) {
        self.rows.push((cells, color));
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as text, two spaces between columns, no trailing blanks.
    pub fn render(&self, indent: &str) -> String {
        let n = self.headers.len();
        let mut w: Vec<usize> = self
            .headers
            .iter()
            .map(|(h, _)| h.chars().count())
            .collect();
        for (cells, _) in &self.rows {
            for (i, c) in cells.iter().enumerate().take(n) {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::from(indent);
            for (i, c) in cells.iter().enumerate().take(n) {
                let pad = w[i] - c.chars().count();
                if i > 0 {
                    s.push_str("  ");
                }
                match self.headers[i].1 {
                    Align::Left => {
                        s.push_str(c);
                        s.push_str(&" ".repeat(pad));
                    }
                    Align::Right => {
                        s.push_str(&" ".repeat(pad));
                        s.push_str(c);
                    }
                }
            }
            s.trim_end().to_string()
        };
        let mut out = String::new();
        let head: Vec<String> = self.headers.iter().map(|(h, _)| h.clone()).collect();
        out.push_str(&line(&head));
        out.push('\n');
        let rule: Vec<String> = w.iter().map(|n| "-".repeat(*n)).collect();
        out.push_str(&line(&rule));
        out.push('\n');
        for (cells, color) in &self.rows {
            match color {
                Some(c) => {
                    out.push_str(c);
                    out.push_str(&line(cells));
                    out.push_str(RESET);
                }
                None => out.push_str(&line(cells)),
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_and_colour_does_not_count() {
        let mut t = Table::new(&[("name", Align::Left), ("value", Align::Right)]);
        t.row(vec!["a".into(), "1".into()], None);
        t.row(vec!["long name".into(), "12345".into()], Some(RED));
        let s = t.render("");
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "name       value");
        assert_eq!(lines[1], "---------  -----");
        assert_eq!(lines[2], "a              1");
        assert_eq!(lines[3], format!("{RED}long name  12345{RESET}"));
    }
}
