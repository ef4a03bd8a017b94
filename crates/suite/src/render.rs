//! The end-of-run [`Report`] as text (the terminal), Markdown, CSV or JSON.
//! Numbers carry three significant decimals; an invalid cell is marked `*`
//! (text, Markdown) or `valid=false` (CSV, JSON), and the reasons are listed.

use crate::table::{Cell, Report};
use std::fmt::Write;

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Markdown,
    Csv,
    Json,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "text" => Some(Format::Text),
            "md" | "markdown" => Some(Format::Markdown),
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

pub fn render(r: &Report, f: Format) -> String {
    match f {
        Format::Text => text(r),
        Format::Markdown => markdown(r),
        Format::Csv => csv(r),
        Format::Json => serde_json::to_string_pretty(r).unwrap_or_default() + "\n",
    }
}

fn num(v: f64) -> String {
    if v.abs() >= 1000.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

fn cell(c: &Option<Cell>) -> String {
    match c {
        Some(c) if c.valid => num(c.value),
        Some(c) => format!("{}*", num(c.value)),
        None => "-".to_string(),
    }
}

/// Rows of strings as aligned columns: the first `left` columns
/// left-aligned, the others right-aligned (numbers).
fn aligned(rows: &[Vec<String>], left: usize) -> String {
    let cols = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, s) in r.iter().enumerate() {
            let pad = widths[i] - s.chars().count();
            if i == 0 {
                line.push_str(s);
                line.push_str(&" ".repeat(pad));
            } else if i < left {
                line.push_str("  ");
                line.push_str(s);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(s);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn grid(r: &Report) -> Vec<Vec<String>> {
    let mut rows = vec![std::iter::once(String::new())
        .chain(r.columns.iter().cloned())
        .collect()];
    for row in &r.rows {
        let mut line = vec![format!("{} ({})", row.row, row.unit)];
        line.extend(row.cells.iter().map(cell));
        rows.push(line);
    }
    rows
}

fn status_word(r: &Report) -> &'static str {
    match (r.valid, r.regression) {
        (true, false) => "VALID",
        (false, _) => "INVALID",
        (true, true) => "REGRESSION",
    }
}

fn text(r: &Report) -> String {
    let mut s = format!(
        "\nSuite {} (suite run {}) on {} rank(s): {}\n\n",
        r.suite,
        r.suite_run,
        r.ranks,
        status_word(r)
    );
    if !r.rows.is_empty() {
        s.push_str(&aligned(&grid(r), 1));
        s.push('\n');
    }
    if let Some(sc) = &r.score {
        let part =
            |v: Option<f64>, u: &str| v.map_or("-".to_string(), |v| format!("{} {u}", num(v)));
        let _ = writeln!(
            s,
            "Score: {}{}  (bandwidth {}, metadata {})\n",
            num(sc.total),
            if sc.valid { "" } else { " [INVALID]" },
            part(sc.bandwidth, "GiB/s"),
            part(sc.metadata, "kIOPS")
        );
    }
    s.push_str(&versus_text(r));
    s.push_str(&steps_text(r));
    if r.rows
        .iter()
        .flat_map(|x| &x.cells)
        .flatten()
        .any(|c| !c.valid)
    {
        s.push_str(
            "\n* a run of this figure broke a run rule (see Steps): it is not a valid result\n",
        );
    }
    s
}

/// The comparison with the baseline, one line per figure.
fn versus_text(r: &Report) -> String {
    let mut s = String::new();
    if let Some(tag) = &r.baseline_tag {
        let _ = writeln!(
            s,
            "Against the baseline {tag} (tolerance {}%):",
            r.tolerance
        );
        let mut rows = vec![vec![
            "figure".to_string(),
            "n".into(),
            "value".into(),
            "baseline".into(),
            "runs".into(),
            "% of baseline".into(),
            String::new(),
        ]];
        for v in &r.versus {
            rows.push(vec![
                format!("{} / {} ({})", v.row, v.column, v.unit),
                v.n.to_string(),
                num(v.value),
                v.baseline.map_or("-".into(), num),
                v.baseline_runs.to_string(),
                v.percent
                    .map_or("no baseline".into(), |p| format!("{p:.1}%")),
                if v.regression {
                    "REGRESSION".into()
                } else {
                    v.verdict.clone()
                },
            ]);
        }
        s.push_str(&aligned(&rows, 1));
        let _ = writeln!(
            s,
            "{}",
            pario_stats::describe_correction(r.family, pario_stats::DEFAULT_CONFIDENCE)
        );
        s.push('\n');
    }
    s
}

/// One line per step repetition: run id, exit status, validity.
fn steps_text(r: &Report) -> String {
    let mut s = String::new();
    s.push_str("Steps:\n");
    let mut rows = Vec::new();
    for st in &r.steps {
        rows.push(vec![
            format!("  {}", st.step),
            format!("rep {}", st.rep),
            st.run_id.clone().unwrap_or_else(|| "-".into()),
            if st.resumed {
                "kept earlier".into()
            } else {
                format!("exit {}", st.exit_status)
            },
            if st.valid() {
                "valid".into()
            } else {
                format!("INVALID: {}", st.reasons.join("; "))
            },
        ]);
    }
    s.push_str(&aligned(&rows, usize::MAX));
    s
}

fn markdown(r: &Report) -> String {
    let mut s = format!(
        "## Suite {} ({}): {}\n\n",
        r.suite,
        r.suite_run,
        status_word(r)
    );
    if !r.rows.is_empty() {
        let g = grid(r);
        for (i, row) in g.iter().enumerate() {
            let _ = writeln!(s, "| {} |", row.join(" | "));
            if i == 0 {
                let _ = writeln!(s, "|{}", " --- |".repeat(row.len()));
            }
        }
        s.push('\n');
    }
    if let Some(sc) = &r.score {
        let _ = writeln!(
            s,
            "Score: **{}**{} (bandwidth {} GiB/s, metadata {} kIOPS)\n",
            num(sc.total),
            if sc.valid { "" } else { " INVALID" },
            sc.bandwidth.map_or("-".into(), num),
            sc.metadata.map_or("-".into(), num)
        );
    }
    if let Some(tag) = &r.baseline_tag {
        let _ = writeln!(s, "| figure | value | baseline ({tag}) | % of baseline | |\n| --- | --- | --- | --- | --- |");
        for v in &r.versus {
            let _ = writeln!(
                s,
                "| {} / {} ({}) | {} | {} | {} | {} |",
                v.row,
                v.column,
                v.unit,
                num(v.value),
                v.baseline.map_or("-".into(), num),
                v.percent.map_or("-".into(), |p| format!("{p:.1}%")),
                if v.regression {
                    "REGRESSION"
                } else {
                    v.verdict.as_str()
                }
            );
        }
        let _ = writeln!(
            s,
            "\n{}",
            pario_stats::describe_correction(r.family, pario_stats::DEFAULT_CONFIDENCE)
        );
        s.push('\n');
    }
    s.push_str("| step | rep | run | status |\n| --- | --- | --- | --- |\n");
    for st in &r.steps {
        let status = if st.valid() {
            "valid".to_string()
        } else {
            format!("INVALID: {}", st.reasons.join("; "))
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {status} |",
            st.step,
            st.rep,
            st.run_id.as_deref().unwrap_or("-")
        );
    }
    s
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(r: &Report) -> String {
    let mut s = String::from(
        "suite,suite_run,row,column,unit,value,n,valid,baseline,percent_of_baseline,verdict\n",
    );
    for row in &r.rows {
        for (c, cell) in r.columns.iter().zip(&row.cells) {
            let Some(cell) = cell else { continue };
            let v = r.versus.iter().find(|v| v.row == row.row && &v.column == c);
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{},{},{}",
                csv_field(&r.suite),
                r.suite_run,
                csv_field(&row.row),
                csv_field(c),
                row.unit,
                cell.value,
                cell.n,
                cell.valid,
                v.and_then(|v| v.baseline)
                    .map_or(String::new(), |b| b.to_string()),
                v.and_then(|v| v.percent)
                    .map_or(String::new(), |p| format!("{p:.2}")),
                v.map_or(String::new(), |v| csv_field(&v.verdict)),
            );
        }
    }
    if let Some(sc) = &r.score {
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        for (name, unit, value) in [
            ("bandwidth", "GiB/s", opt(sc.bandwidth)),
            ("metadata", "kIOPS", opt(sc.metadata)),
            ("total", "", sc.total.to_string()),
        ] {
            let _ = writeln!(
                s,
                "{},{},score,{name},{unit},{value},,{},,,",
                csv_field(&r.suite),
                r.suite_run,
                sc.valid
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Score;

    #[test]
    fn csv_ends_with_the_three_score_rows() {
        let r = Report {
            suite: "io500".into(),
            suite_run: "01a20d000000-00000000000000cc".into(),
            ranks: 2,
            steps: Vec::new(),
            columns: Vec::new(),
            rows: Vec::new(),
            score: Some(Score {
                bandwidth: Some(1.5),
                metadata: None,
                total: 1.5,
                valid: false,
            }),
            baseline_tag: None,
            tolerance: 0.05,
            versus: Vec::new(),
            family: 0,
            valid: false,
            regression: false,
        };
        let out = csv(&r);
        let tail: Vec<&str> = out.lines().rev().take(3).collect();
        let id = "01a20d000000-00000000000000cc";
        assert_eq!(
            tail,
            [
                format!("io500,{id},score,total,,1.5,,false,,,"),
                format!("io500,{id},score,metadata,kIOPS,,,false,,,"),
                format!("io500,{id},score,bandwidth,GiB/s,1.5,,false,,,"),
            ]
        );
    }
}
