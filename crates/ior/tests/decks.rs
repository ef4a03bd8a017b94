//! Input decks (`ior -f`) under mpirun: bad decks are refused with file:line
//! before any I/O, a multi-RUN deck matches the layout of IOR 4.1's output,
//! and options after `-f` are reported once, on stderr.

mod common;
use common::*;
use std::path::Path;

/// The deck IOR's `ior-script.txt` reference came from, in spirit: a POSIX
/// RUN then a DUMMY RUN inheriting everything else, with tabs, odd spaces,
/// comments, several items on a line and lower-case keywords.
const TWO_RUN_DECK: &str = "notes for the operator, before the start\n\
IOR START\n\
\tapi=posix\n\
  filePerProc=1   # file per process\n\
# a comment line\n\
\trandomOffset = 1 , reorderTasks=1\n\
transferSize=10240\n\
\tblockSize=20480\n\
   writeFile=1\n\
\n\
  run\n\
api=dummy\n\
ior stop\n";

/// The lines that carry the layout, masked. Left out: lines naming the
/// machine, paths and dates, and three kinds of IOR lines we do not print
/// (see docs/ior.md and the engine): the DUMMY backend's
/// "initialized"/"finalized" chatter, the file-exists warning printed by
/// rank 1 (IOR lets every rank print it), and the file-size warnings IOR
/// prints for DUMMY (whose files have no size).
fn deck_layout(text: &str, dir: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            !(l.starts_with("Command line")
                || l.starts_with("Machine")
                || l.starts_with("Path")
                || l.starts_with("test filename")
                || l.starts_with("FS ")
                || l.starts_with("Began")
                || l.starts_with("StartTime")
                || l.starts_with("Finished")
                || l.starts_with("IOR-")
                || l.starts_with("WARNING: DUMMY")
                || l.starts_with("WARNING: Expected aggregate")
                || l.starts_with("WARNING: Stat() of aggregate")
                || l.starts_with("WARNING: Using actual aggregate")
                || (l.starts_with("WARNING: The file") && l.contains("t.00000001")))
        })
        .map(|l| mask(&l.replace(dir, "/scratch/ior")))
        .collect()
}

#[test]
fn a_two_run_deck_matches_the_reference_layout() {
    let dir = tempfile::tempdir().unwrap();
    let deck = dir.path().join("test_comments.ior");
    std::fs::write(&deck, TWO_RUN_DECK).unwrap();
    let o = dir.path().join("t").display().to_string();
    let d = deck.display().to_string();
    let r = ior(2, dir.path(), &["-o", &o, "-f", &d]);
    assert!(r.ok(), "{}", r.both());
    let want = deck_layout(&read_reference("ior/output/ior-script.txt"), "/scratch/ior");
    let got = deck_layout(&r.stdout, &dir.path().display().to_string());
    assert_eq!(got, want, "{}", r.both());
    // Both tests ran: a POSIX and a DUMMY summary row, test ids 0 and 1.
    let rows: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("write "))
        .collect();
    assert_eq!(rows.len(), 4, "{}", r.stdout);
    assert!(
        rows[2].contains(" posix ") && rows[3].contains(" dummy "),
        "{rows:?}"
    );
    // The text before IOR START is reported, once.
    assert_eq!(
        r.stderr.matches("text before IOR START").count(),
        1,
        "{}",
        r.stderr
    );
    assert!(
        files_in(dir.path()).iter().all(|f| f == &deck),
        "{:?}",
        files_in(dir.path())
    );
}

#[test]
fn options_after_the_deck_are_named_once_on_stderr_and_not_applied() {
    let dir = tempfile::tempdir().unwrap();
    let deck = dir.path().join("d.ior");
    std::fs::write(
        &deck,
        "IOR START\napi=dummy\nwriteFile=1\ntransferSize=4k\nblockSize=16k\nRUN\nIOR STOP\n",
    )
    .unwrap();
    let d = deck.display().to_string();
    let r = ior(2, dir.path(), &["-f", &d, "-b", "1m", "-i", "3"]);
    assert!(r.ok(), "{}", r.both());
    let warning = "ior: warning: ignored after -f (options after the deck do not apply to its runs): -b 1m -i 3";
    assert_eq!(r.stderr.matches(warning).count(), 1, "{}", r.stderr);
    assert!(!r.stdout.contains("WARNING: ignored"), "{}", r.stdout);
    assert!(
        r.stdout.contains("blocksize           : 16384 bytes"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("repetitions         : 1"), "{}", r.stdout);
}

#[test]
fn bad_decks_are_refused_with_file_and_line_before_any_io() {
    let cases: [(&str, &str, &str); 6] = [
        (
            "IOR START\nwriteFile=1\nnoSuchKey=3\nRUN\nIOR STOP\n",
            "bad.ior:3",
            "noSuchKey",
        ),
        (
            "IOR START\nwriteFile=1\nblockSize\nRUN\nIOR STOP\n",
            "bad.ior:3",
            "blockSize",
        ),
        ("writeFile=1\nRUN\n", "bad.ior", "IOR START"),
        ("IOR START\nwriteFile=1\nRUN\n", "bad.ior", "IOR STOP"),
        (
            "IOR START\nwriteFile=1\n\ntransferSize=3000\nblockSize=4096\nRUN\nIOR STOP\n",
            "bad.ior:6",
            "transfer",
        ),
        (
            // The first RUN is fine and must not have run: the second is bad.
            "IOR START\nwriteFile=1\nRUN\nblockSize=5k\ntransferSize=2k\nRUN\nIOR STOP\n",
            "bad.ior:6",
            "multiple",
        ),
    ];
    for (text, at, needle) in cases {
        let dir = tempfile::tempdir().unwrap();
        let deck = dir.path().join("bad.ior");
        std::fs::write(&deck, text).unwrap();
        let o = dir.path().join("t").display().to_string();
        let r = ior(2, dir.path(), &["-o", &o, "-f", "bad.ior"]);
        assert_eq!(r.status, Some(2), "{text:?}\n{}", r.both());
        assert!(
            r.stderr.contains(at) && r.stderr.contains(needle),
            "{text:?}: stderr must name {at} and {needle}\n{}",
            r.both()
        );
        assert!(r.stdout.is_empty(), "nothing ran: {}", r.stdout);
        let left: Vec<_> = files_in(dir.path())
            .into_iter()
            .filter(|f| f.as_path() != Path::new(&deck))
            .collect();
        assert!(left.is_empty(), "{text:?} created {left:?}");
    }
}
