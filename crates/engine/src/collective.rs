//! Collective decisions in one place: agreement on errors across ranks,
//! error summaries, and typed gathers of per-rank reports.
//!
//! Every function here is collective: all ranks of the communicator call it
//! in the same order, whatever happened locally. That is what lets one
//! rank's failure end a phase cleanly on every rank instead of leaving the
//! others waiting in the next collective call.
//!
//! - [`agree_on_errors`]: every rank learns whether any rank failed, and all
//!   get the same message, a [`summarize_errors`] of every rank's error.
//! - [`agree_on_first_error`]: the same decision, but the message is the
//!   lowest failing rank's own text, unchanged (for front-end messages that
//!   already name the option or path at fault and are printed as one line).
//! - [`gather_reports`]: serde-serialised per-rank reports gathered at rank
//!   0 and decoded there. A report that does not decode is an error naming
//!   the rank, never an empty default: a lost report must not become a
//!   silent zero in the results. [`gather_reports_agreed`] also shares that
//!   error with every rank.
//! - [`gather_text`]: one (possibly empty) string per rank at rank 0.
//!
//! Cost: agreement is one all-reduce when nothing failed; on failure, one
//! gather and one broadcast. A typed gather is one gather (plus one
//! broadcast for the agreed form); rank 0 holds every report once.

use pario_comm::Comm;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The rank that gathers reports and formats summaries.
pub const ROOT: u32 = 0;

/// Collective: `Ok` on every rank when no rank has an error; otherwise
/// `Err` on every rank with the same message: every distinct error with the
/// ranks that had it (see [`summarize_errors`]).
pub fn agree_on_errors(comm: &dyn Comm, error: Option<String>) -> Result<(), String> {
    if !comm.any_true(error.is_some()) {
        return Ok(());
    }
    let summary = gather_text(comm, error.as_deref().unwrap_or_default())
        .map(summarize_errors)
        .unwrap_or_default();
    Err(broadcast_text(comm, ROOT, summary))
}

/// Collective: like [`agree_on_errors`], but the shared message is the
/// lowest failing rank's own error text, without rank names.
pub fn agree_on_first_error<C: Comm + ?Sized>(
    comm: &C,
    error: Option<String>,
) -> Result<(), String> {
    if !comm.any_true(error.is_some()) {
        return Ok(());
    }
    let first = gather_text(comm, error.as_deref().unwrap_or_default())
        .and_then(|all| all.into_iter().find(|m| !m.is_empty()))
        .unwrap_or_default();
    Err(broadcast_text(comm, ROOT, first))
}

/// Collective: `text` from `root` on every rank.
pub fn broadcast_text<C: Comm + ?Sized>(comm: &C, root: u32, text: String) -> String {
    let mut bytes = text.into_bytes();
    comm.broadcast_bytes(root, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Collective: one (possibly empty) text per rank, in rank order, at rank
/// 0 (`None` elsewhere). Every rank sends at least one byte: some MPI
/// libraries refuse a gather of nothing at all.
pub fn gather_text<C: Comm + ?Sized>(comm: &C, text: &str) -> Option<Vec<String>> {
    let mut payload = Vec::with_capacity(text.len() + 1);
    payload.push(b'#');
    payload.extend_from_slice(text.as_bytes());
    comm.gather_bytes(ROOT, &payload).map(|all| {
        all.iter()
            .map(|b| String::from_utf8_lossy(b.get(1..).unwrap_or_default()).into_owned())
            .collect()
    })
}

/// "rank 1: msg" lines, one per distinct message in order of first
/// appearance, ranks with identical messages grouped ("ranks 0,2: msg" up
/// to four ranks, "N ranks (first R): msg" beyond). Empty messages (ranks
/// without an error) are skipped; no errors at all give "".
pub fn summarize_errors<S: AsRef<str>>(per_rank: impl IntoIterator<Item = S>) -> String {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (rank, msg) in per_rank.into_iter().enumerate() {
        let msg = msg.as_ref();
        if msg.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|(m, _)| m == msg) {
            Some((_, ranks)) => ranks.push(rank),
            None => groups.push((msg.to_string(), vec![rank])),
        }
    }
    groups
        .iter()
        .map(|(msg, ranks)| format!("{}: {msg}", name_ranks(ranks)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// "rank 3", "ranks 1,2,5", "12 ranks (first 4)".
fn name_ranks(ranks: &[usize]) -> String {
    match ranks {
        [one] => format!("rank {one}"),
        few if few.len() <= 4 => {
            let list: Vec<String> = few.iter().map(|r| r.to_string()).collect();
            format!("ranks {}", list.join(","))
        }
        many => format!("{} ranks (first {})", many.len(), many[0]),
    }
}

/// Collective: every rank's `report` gathered and decoded at rank 0.
///
/// Rank 0 gets `Ok(Some(reports))` in rank order, or `Err` naming every
/// rank whose report could not be encoded or decoded; the other ranks get
/// `Ok(None)` and learn nothing (use [`gather_reports_agreed`], or share
/// the error in a broadcast the caller already makes).
pub fn gather_reports<T: Serialize + DeserializeOwned, C: Comm + ?Sized>(
    comm: &C,
    report: &T,
) -> Result<Option<Vec<T>>, String> {
    // An empty payload marks a report this rank could not encode.
    let (payload, encode_error) = match serde_json::to_vec(report) {
        Ok(bytes) => (bytes, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let Some(all) = comm.gather_bytes(ROOT, &payload) else {
        return Ok(None);
    };
    let mut reports = Vec::with_capacity(all.len());
    let mut problems: Vec<String> = Vec::new();
    let mut first_detail = None;
    for (rank, bytes) in all.iter().enumerate() {
        let decoded = if bytes.is_empty() {
            let own = (rank as u32 == comm.rank()).then_some(encode_error.clone());
            Err(own.flatten().unwrap_or_else(|| "nothing was sent".into()))
        } else {
            serde_json::from_slice::<T>(bytes).map_err(|e| e.to_string())
        };
        match decoded {
            Ok(r) => {
                reports.push(r);
                problems.push(String::new());
            }
            Err(detail) => {
                first_detail.get_or_insert((rank, detail));
                problems.push("its report was lost (could not be decoded)".into());
            }
        }
    }
    match first_detail {
        None => Ok(Some(reports)),
        Some((rank, detail)) => Err(format!(
            "{}\n(rank {rank}'s report: {detail})",
            summarize_errors(problems)
        )),
    }
}

/// Collective: [`gather_reports`], with a lost report made an error on
/// every rank (one extra broadcast). Rank 0 gets `Ok(Some(reports))`, the
/// others `Ok(None)`; on a lost report every rank gets the same `Err`.
pub fn gather_reports_agreed<T: Serialize + DeserializeOwned, C: Comm + ?Sized>(
    comm: &C,
    report: &T,
) -> Result<Option<Vec<T>>, String> {
    let gathered = gather_reports(comm, report);
    let error = match &gathered {
        Err(e) => e.clone(),
        Ok(_) => String::new(),
    };
    let error = broadcast_text(comm, ROOT, error);
    if error.is_empty() {
        gathered
    } else {
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_comm::{LocalComm, NodeLayout, ReduceOp};

    #[test]
    fn errors_are_grouped_by_message() {
        let s = summarize_errors(["", "boom", "boom", "other", "boom", "boom", "boom", "boom"]);
        assert_eq!(s, "6 ranks (first 1): boom\nrank 3: other");
        assert_eq!(summarize_errors(["x", "", "x"]), "ranks 0,2: x");
        assert_eq!(summarize_errors(["", ""]), "");
        let owned: Vec<String> = vec!["a".into(), "b".into()];
        assert_eq!(summarize_errors(owned), "rank 0: a\nrank 1: b");
    }

    #[test]
    fn one_rank_agrees_with_itself() {
        let comm = LocalComm::new();
        assert_eq!(agree_on_errors(&comm, None), Ok(()));
        assert_eq!(
            agree_on_errors(&comm, Some("disk full".into())),
            Err("rank 0: disk full".into())
        );
        assert_eq!(
            agree_on_first_error(&comm, Some("-o x: no such directory".into())),
            Err("-o x: no such directory".into())
        );
    }

    #[test]
    fn empty_texts_survive_the_gather() {
        let comm = LocalComm::new();
        assert_eq!(gather_text(&comm, ""), Some(vec![String::new()]));
        assert_eq!(gather_text(&comm, "x"), Some(vec!["x".to_string()]));
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Report {
        bytes: u64,
        ratio: f64,
    }

    #[test]
    fn reports_round_trip() {
        let comm = LocalComm::new();
        let r = Report {
            bytes: 7,
            ratio: 0.5,
        };
        assert_eq!(gather_reports(&comm, &r), Ok(Some(vec![r])));
    }

    /// One rank whose gathered bytes are replaced: a report lost in transit.
    struct Garbling(LocalComm, &'static [u8]);

    impl Comm for Garbling {
        fn rank(&self) -> u32 {
            0
        }
        fn size(&self) -> u32 {
            1
        }
        fn barrier(&self) {}
        fn broadcast_bytes(&self, root: u32, data: &mut Vec<u8>) {
            self.0.broadcast_bytes(root, data)
        }
        fn all_reduce_f64(&self, values: &[f64], op: ReduceOp) -> Vec<f64> {
            self.0.all_reduce_f64(values, op)
        }
        fn all_reduce_u64(&self, values: &[u64], op: ReduceOp) -> Vec<u64> {
            self.0.all_reduce_u64(values, op)
        }
        fn gather_bytes(&self, _root: u32, _data: &[u8]) -> Option<Vec<Vec<u8>>> {
            Some(vec![self.1.to_vec()])
        }
        fn split(&self, color: Option<u32>) -> Option<Box<dyn Comm>> {
            self.0.split(color)
        }
        fn node_layout(&self) -> NodeLayout {
            self.0.node_layout()
        }
        fn abort(&self, code: i32) -> ! {
            self.0.abort(code)
        }
        fn library_version(&self) -> String {
            "garbling".into()
        }
    }

    #[test]
    fn a_report_that_does_not_decode_is_an_error_naming_the_rank() {
        let r = Report {
            bytes: 7,
            ratio: 0.5,
        };
        for garbage in [&b"{\"bytes\":7"[..], b"", b"{}"] {
            let comm = Garbling(LocalComm::new(), garbage);
            let e = gather_reports(&comm, &r).unwrap_err();
            assert!(e.starts_with("rank 0: its report was lost"), "{e}");
            assert_eq!(gather_reports_agreed(&comm, &r), Err(e));
        }
    }

    #[test]
    fn a_report_that_cannot_be_encoded_is_an_error() {
        // JSON has no NaN: serde_json writes null, which does not decode as f64.
        let comm = LocalComm::new();
        let r = Report {
            bytes: 1,
            ratio: f64::NAN,
        };
        let e = gather_reports(&comm, &r).unwrap_err();
        assert!(e.contains("rank 0"), "{e}");
    }

    use pario_comm::ThreadComm;

    #[test]
    fn every_rank_learns_the_same_summary() {
        let out = ThreadComm::run(6, |c| {
            let mine = match c.rank() {
                1 | 3 => Some("disk full".to_string()),
                4 => Some("EIO".to_string()),
                _ => None,
            };
            (
                agree_on_errors(c, mine.clone()),
                agree_on_first_error(c, mine),
                agree_on_errors(c, None),
            )
        });
        for (summary, first, none) in out {
            assert_eq!(summary, Err("ranks 1,3: disk full\nrank 4: EIO".into()));
            assert_eq!(first, Err("disk full".into()));
            assert_eq!(none, Ok(()));
        }
    }

    #[test]
    fn reports_are_gathered_in_rank_order_at_rank_0() {
        let out = ThreadComm::run(5, |c| {
            let r = Report {
                bytes: u64::from(c.rank()) * 10,
                ratio: 1.0,
            };
            gather_reports_agreed(c, &r)
        });
        let all = out[0].as_ref().unwrap().as_ref().unwrap();
        let bytes: Vec<u64> = all.iter().map(|r| r.bytes).collect();
        assert_eq!(bytes, [0, 10, 20, 30, 40]);
        assert!(out[1..].iter().all(|o| o == &Ok(None)));
    }

    #[test]
    fn a_lost_report_is_an_error_on_every_rank() {
        let out = ThreadComm::run(4, |c| {
            let ratio = if c.rank() == 2 { f64::NAN } else { 1.0 };
            gather_reports_agreed(c, &Report { bytes: 1, ratio })
        });
        for o in &out {
            let e = o.as_ref().unwrap_err();
            assert!(e.starts_with("rank 2: its report was lost"), "{e}");
        }
    }
}
