//! The files a run writes besides the record: the rank details CSV,
//! the machine-readable summary, and the `-x` stonewall file's errors.

use super::*;

/// Rank 0 at the end: write the requested outputs (when the tests `ran`),
/// fail the run (exit 1) for any not written (the shared code then
/// reviews stragglers and keeps the record). Returns how many outputs
/// failed.
pub(super) fn finish_record(
    o: &MdtestOptions,
    record: &mut RunRecord,
    ran: bool,
    console: &Console<'_>,
) -> u64 {
    // A requested output that was not written fails the run (exit 1).
    let mut errors = if ran {
        write_outputs(o, record, console)
    } else {
        Vec::new()
    };
    errors.extend(stonewall_file_errors(o, record));
    for e in &errors {
        console.error(e);
    }
    if !errors.is_empty() && record.exit_status == 0 {
        record.exit_status = EXIT_FAILED;
    }
    let failed_outputs = errors.len() as u64;
    record.errors.extend(errors);
    failed_outputs
}

/// The `-x` stonewall status file's write failures (warnings in the
/// record), as errors naming `-x`.
pub(super) fn stonewall_file_errors(o: &MdtestOptions, record: &RunRecord) -> Vec<String> {
    let Some(f) = &o.stonewall_file else {
        return Vec::new();
    };
    let prefix = format!("stonewall status file {f}:");
    record
        .warnings
        .iter()
        .filter(|w| w.starts_with(&prefix))
        .map(|w| format!("-x {}", w.trim_start_matches("stonewall status file ")))
        .collect()
}

/// `--saveRankPerformanceDetails`: checked (and started) before running
/// (collective).
pub(super) fn start_details_file(comm: &dyn Comm, o: &MdtestOptions) -> Result<(), String> {
    let mut details_error = None;
    if comm.rank() == 0 {
        if let Some(f) = &o.save_rank_details {
            if let Err(e) = std::fs::write(f, output::rank_details_header()) {
                details_error = Some(format!("--saveRankPerformanceDetails {f}: {e}"));
            }
        }
    }
    agree_on_first_error(comm, details_error)
}

/// Rank 0: the rank details CSV and the machine-readable summary. Returns
/// what could not be written (option, path and reason).
pub(super) fn write_outputs(
    o: &MdtestOptions,
    record: &RunRecord,
    console: &Console<'_>,
) -> Vec<String> {
    let mut errors = Vec::new();
    if let Some(f) = &o.save_rank_details {
        let mut csv = output::rank_details_header();
        for t in &record.tests {
            let items = t
                .parameters
                .get("items")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            csv.push_str(&output::rank_details_rows(t, items, t.workload.num_tasks));
        }
        if let Err(e) = record_io::write_atomically(Path::new(f), csv.as_bytes()) {
            errors.push(format!("--saveRankPerformanceDetails {f}: {e}"));
        }
    }
    if let Some(format) = o.summary_format {
        let doc = match format {
            SummaryFormat::Json => {
                let mut s = serde_json::to_string_pretty(record).unwrap_or_default();
                s.push('\n');
                s
            }
            SummaryFormat::Csv => output::summary_csv(record),
        };
        match &o.summary_file {
            Some(f) => {
                if let Err(e) = record_io::write_atomically(Path::new(f), doc.as_bytes()) {
                    errors.push(format!("--summary-file {f}: {e}"));
                }
            }
            None => console.out(&doc),
        }
    }
    errors
}
