//! IOR's verbosity levels 3 to 5 under mpirun: the per-rank file and timer
//! lines of -vvv (printed by rank 0 for every rank), the per-transfer lines
//! of -vvvv and the per-word comparison lines of -vvvvv (printed by each
//! rank on its own stdout, read here from each rank's own output file).

mod common;
use common::*;

/// Lines of `text` that start with `prefix`.
fn lines_with<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.starts_with(prefix)).collect()
}

#[test]
fn vvv_prints_every_ranks_file_and_six_timers_per_phase() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("f").display().to_string();
    let (r, out) = ior_per_rank(
        2,
        dir.path(),
        &["-w", "-r", "-F", "-t", "4k", "-b", "16k", "-vvv", "-o", &o],
    );
    assert!(r.ok(), "{}", r.both());
    // Rank 0 prints all of it.
    let text = &out[0];
    assert!(out[1].is_empty(), "rank 1 printed:\n{}", out[1]);
    for rank in 0..2u32 {
        let file = format!("{o}.{rank:08}");
        for verb in ["writing", "reading", "removing"] {
            let want = format!("task {rank} {verb} {file}");
            assert_eq!(lines_with(text, &want).len(), 1, "{want}\n{text}");
        }
        for op in ["write", "read"] {
            for label in [
                "open start",
                "open stop",
                "start",
                "stop",
                "close start",
                "close stop",
            ] {
                let n = text
                    .lines()
                    .filter(|l| {
                        l.starts_with(&format!("Test 0: Iter=0, Task={rank}, Time="))
                            && l.ends_with(&format!(", {op} {label}"))
                    })
                    .count();
                assert_eq!(n, 1, "rank {rank} {op} {label}\n{text}");
            }
        }
    }
    // The trace comes before the phase's row, and timers are epoch seconds.
    let trace = text.find("Task=1, Time=").unwrap();
    let row = text.find("\nwrite ").unwrap();
    assert!(trace < row, "{text}");
    let t: f64 = text[trace + "Task=1, Time=".len()..]
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!((now - t).abs() < 600.0, "timer {t} is not near now {now}");
    // Below -vvv none of it.
    let r = ior(
        2,
        dir.path(),
        &["-w", "-r", "-F", "-t", "4k", "-b", "16k", "-vv", "-o", &o],
    );
    assert!(r.ok(), "{}", r.both());
    assert!(lines_with(&r.stdout, "task ").is_empty(), "{}", r.stdout);
    assert!(lines_with(&r.stdout, "Test 0: Iter").is_empty());
}

#[test]
fn vvvv_prints_one_line_per_transfer_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("s").display().to_string();
    let (r, out) = ior_per_rank(
        2,
        dir.path(),
        &[
            "-w", "-r", "-W", "-t", "4k", "-b", "16k", "-s", "2", "-vvvv", "-o", &o,
        ],
    );
    assert!(r.ok(), "{}", r.both());
    // Segment s, rank r, transfer j at (s*2 + r)*16k + j*4k; each rank
    // prints its own transfers.
    for rank in 0..2u64 {
        let text = &out[rank as usize];
        for verb in ["writing", "checking", "reading"] {
            let mut got: Vec<u64> = text
                .lines()
                .filter_map(|l| {
                    let rest = l.strip_prefix(&format!("task {rank} {verb} {o} offset "))?;
                    let (off, len) = rest.split_once(" length ")?;
                    assert_eq!(len, "4096", "{l}");
                    off.parse().ok()
                })
                .collect();
            got.sort_unstable();
            let want: Vec<u64> = (0..2u64)
                .flat_map(|s| (0..4u64).map(move |j| (s * 2 + rank) * 16384 + j * 4096))
                .collect();
            assert_eq!(got, want, "rank {rank} {verb}\n{text}");
        }
        let other = format!("task {} ", 1 - rank);
        assert!(
            !text
                .lines()
                .any(|l| l.starts_with(&other) && l.contains(" offset ")),
            "rank {rank} printed another rank's transfers\n{text}"
        );
    }
    // No word lines below -vvvvv.
    assert!(!r.stdout.contains("expected 0x"), "{}", r.stdout);
}

#[test]
fn vvvvv_lists_every_word_checked_and_flags_a_corrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("v").display().to_string();
    let geometry = ["-t", "64", "-b", "128", "-G", "99", "-o", &o];
    let mut args = vec!["-w", "-k"];
    args.extend(geometry);
    let r = ior(2, dir.path(), &args);
    assert!(r.ok(), "{}", r.both());
    // Flip one bit in rank 1's second transfer (file offset 128 + 64 + 16).
    let mut data = std::fs::read(&o).unwrap();
    assert_eq!(data.len(), 256);
    data[208] ^= 0x01;
    std::fs::write(&o, &data).unwrap();

    let mut args = vec!["-r", "-R", "-vvvvv"];
    args.extend(geometry);
    let (r, out) = ior_per_rank(2, dir.path(), &args);
    assert_eq!(r.status, Some(3), "{}", r.both());
    let all = out.concat();
    let words: Vec<&str> = all
        .lines()
        .filter(|l| l.contains(": expected 0x"))
        .collect();
    // Two ranks, two transfers of 8 words each, in the -R pass.
    assert_eq!(words.len(), 32, "{all}");
    let bad: Vec<&&str> = words.iter().filter(|l| l.ends_with(" MISMATCH")).collect();
    assert_eq!(bad.len(), 1, "{all}");
    assert!(bad[0].starts_with("task 1 offset 208: "), "{}", bad[0]);
    assert_eq!(words.iter().filter(|l| l.ends_with(" ok")).count(), 31);
    assert!(out[1].contains("task 1 offset 208: "), "{}", out[1]);
    // The error report still goes to stderr.
    assert!(r.stderr.contains("208"), "{}", r.stderr);
}
