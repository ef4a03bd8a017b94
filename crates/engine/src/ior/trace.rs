//! IOR's two most detailed verbosity levels, on every rank:
//!
//! - level 4 (`-vvvv`): one line per transfer, before the call is issued:
//!   `task 1 writing /scratch/t offset 1048576 length 4096` (`reading` for
//!   reads, `checking` for the -W/-R passes);
//! - level 5 (`-vvvvv`): in the -W/-R passes, one line per 8-byte word
//!   compared, after the transfer's line:
//!   `task 1 offset 1048584: expected 0x00000001000f4240, found 0x00000001000f4240 ok`
//!   (`MISMATCH` instead of `ok` for a bad word; a transfer shorter than a
//!   word prints nothing). The expected value is the writer's the verifier
//!   compared against (the detected writer when it was not known).
//!
//! These lines are far too many to gather at rank 0, so each rank writes
//! them straight to its own standard output as the work happens, as IOR
//! does; under `mpirun` the lines of different ranks interleave. Lines are
//! written whole (one `write` per line at level 4, a buffered block per
//! transfer at level 5). A failed write to stdout (a closed pipe) is
//! ignored: tracing never changes what the benchmark does or reports.
//! Both levels slow the transfers they trace; the timings of such a run are
//! for debugging, not for comparison.

use pario_signature::Pattern;
use std::io::Write;
use std::path::Path;

/// Per-rank tracer of one phase; exists only at verbose ≥ 4.
#[derive(Debug)]
pub(super) struct Tracer {
    rank: u32,
    /// Level 5: every compared word.
    words: bool,
}

impl Tracer {
    /// The tracer for `verbose`, or `None` below level 4.
    pub(super) fn new(verbose: u8, rank: u32) -> Option<Tracer> {
        (verbose >= 4).then_some(Tracer {
            rank,
            words: verbose >= 5,
        })
    }

    /// The level-4 line of one transfer.
    pub(super) fn transfer(&self, verb: &str, path: &Path, offset: u64, len: usize) {
        let line = transfer_line(self.rank, verb, path, offset, len);
        let _ = std::io::stdout().lock().write_all(line.as_bytes());
    }

    /// The level-5 lines of one transfer read back: `buf` as read from
    /// file `offset`, compared with what `writer` wrote there.
    pub(super) fn words(&self, buf: &[u8], pattern: &Pattern, writer: u32, offset: u64) {
        if !self.words {
            return;
        }
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let _ = write_word_lines(&mut out, self.rank, buf, pattern, writer, offset);
        let _ = out.flush();
    }
}

/// `task <rank> <verb> <path> offset <offset> length <len>`.
fn transfer_line(rank: u32, verb: &str, path: &Path, offset: u64, len: usize) -> String {
    format!(
        "task {rank} {verb} {} offset {offset} length {len}\n",
        path.display()
    )
}

/// One line per whole 8-byte word of `buf` (read from file `offset`)
/// against `writer`'s data.
fn write_word_lines(
    out: &mut dyn Write,
    rank: u32,
    buf: &[u8],
    pattern: &Pattern,
    writer: u32,
    offset: u64,
) -> std::io::Result<()> {
    let mut expected = vec![0u8; buf.len()];
    pario_signature::fill(&mut expected, pattern, writer, offset);
    for (i, (got, want)) in buf
        .chunks_exact(8)
        .zip(expected.chunks_exact(8))
        .enumerate()
    {
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        let (found, expect) = (word(got), word(want));
        writeln!(
            out,
            "task {rank} offset {}: expected 0x{expect:016x}, found 0x{found:016x} {}",
            offset + 8 * i as u64,
            if found == expect { "ok" } else { "MISMATCH" }
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pario_signature::PacketType;

    #[test]
    fn levels_below_four_have_no_tracer() {
        assert!(Tracer::new(3, 0).is_none());
        assert!(!Tracer::new(4, 0).unwrap().words);
        assert!(Tracer::new(5, 0).unwrap().words);
    }

    #[test]
    fn transfer_line_names_task_verb_path_offset_and_length() {
        let line = transfer_line(3, "reading", Path::new("/x/t"), 8192, 4096);
        assert_eq!(line, "task 3 reading /x/t offset 8192 length 4096\n");
    }

    #[test]
    fn every_word_is_listed_and_a_bad_one_is_flagged() {
        let pattern = Pattern::new(PacketType::Offset, 7, 0);
        let mut buf = vec![0u8; 32];
        pario_signature::fill(&mut buf, &pattern, 1, 4096);
        buf[17] ^= 0x40; // word 2
        let mut out = Vec::new();
        write_word_lines(&mut out, 1, &buf, &pattern, 1, 4096).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("task 1 offset 4096: expected 0x"));
        assert!(lines[0].ends_with(" ok"));
        assert!(lines[2].starts_with("task 1 offset 4112: "));
        assert!(lines[2].ends_with(" MISMATCH"), "{}", lines[2]);
        assert_eq!(text.matches("MISMATCH").count(), 1);
        // Expected and found differ exactly in the flipped bit.
        let hex = |s: &str, key: &str| {
            let at = s.find(key).unwrap() + key.len();
            u64::from_str_radix(&s[at..at + 16], 16).unwrap()
        };
        let (e, f) = (hex(lines[2], "expected 0x"), hex(lines[2], "found 0x"));
        assert_eq!(e ^ f, 0x40 << 8);
    }
}
