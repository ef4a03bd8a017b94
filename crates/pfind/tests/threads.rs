//! The walk and its work stealing in-process (pario-comm's ThreadComm) on
//! 1, 2, 4 and 7 ranks: every query's matches are GNU find's, on trees
//! with many small directories, one directory holding most files, and a
//! deep chain; small queues and steps make the ranks steal often.

mod common;

use pario_comm::ThreadComm;
use pario_pfind::{check, parse, run, PfindResult};
use std::path::Path;

/// pfind on `n` ranks: its result and every rank's matched lines, sorted.
fn pfind(n: u32, root: &Path, args: &[String]) -> (PfindResult, Vec<String>) {
    let mut argv = vec![root.display().to_string()];
    argv.extend(args.iter().cloned());
    argv.extend(["-q", "10", "-M", "7"].map(String::from));
    let spec = parse(&argv).unwrap();
    let checked = check(&spec).unwrap();
    let out = ThreadComm::try_run(n, n, 4 << 20, |c| {
        let mut lines = Vec::new();
        let r = run(c, &spec, &checked, &mut lines).unwrap();
        (r, String::from_utf8(lines).unwrap())
    })
    .unwrap();
    let mut all: Vec<String> = out
        .iter()
        .flat_map(|(_, l)| l.lines().map(str::to_string))
        .collect();
    all.sort();
    (out[0].0.clone(), all)
}

fn agree_with_find(root: &Path, ts: &Path) {
    for q in common::queries(ts) {
        let want = common::gnu_find(root, &q.iter().map(String::as_str).collect::<Vec<_>>());
        for n in [1, 2, 4, 7] {
            let (r, got) = pfind(n, root, &q);
            assert_eq!(got, want, "{n} ranks, {q:?}");
            assert_eq!(r.totals.found as usize, want.len(), "{n} ranks, {q:?}");
            assert_eq!(r.ranks.len(), n as usize);
            assert_eq!(r.totals.errors, 0);
            let sent: u64 = r.ranks.iter().map(|c| c.items_sent).sum();
            assert_eq!(sent, r.totals.items_stolen, "every item sent was received");
        }
    }
}

#[test]
fn many_small_directories() {
    let root = common::tmp();
    common::mdtest_like(&root.join("tree"), 12, 30);
    common::timestamp(&root.join("ts"));
    agree_with_find(&root.join("tree"), &root.join("ts"));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn one_directory_holds_most_files() {
    let root = common::tmp();
    common::one_big_dir(&root.join("tree"), 2000);
    common::timestamp(&root.join("ts"));
    agree_with_find(&root.join("tree"), &root.join("ts"));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_deep_chain() {
    let root = common::tmp();
    common::deep_chain(&root.join("tree"), 150);
    common::timestamp(&root.join("ts"));
    agree_with_find(&root.join("tree"), &root.join("ts"));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn an_empty_start_directory_ends_on_every_rank_count() {
    let root = common::tmp();
    for n in [1, 2, 4, 7] {
        let (r, got) = pfind(n, &root, &[]);
        assert_eq!(got, vec![root.display().to_string()]);
        assert_eq!((r.totals.found, r.totals.total), (1, 0));
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn the_stonewall_ends_the_walk_on_every_rank() {
    let root = common::tmp();
    common::mdtest_like(&root.join("tree"), 12, 30);
    for n in [1, 2, 4, 7] {
        let mut spec = parse(&[root.join("tree").display().to_string()]).unwrap();
        spec.stonewall = Some(std::time::Duration::from_nanos(1));
        let checked = check(&spec).unwrap();
        let out = ThreadComm::run(n, |c| {
            run(c, &spec, &checked, &mut std::io::sink()).unwrap()
        });
        let r = &out[0];
        assert!(r.stonewalled, "{n} ranks");
        assert_eq!(
            r.totals.checked, 0,
            "{n} ranks: nothing read after the stonewall"
        );
    }
    std::fs::remove_dir_all(&root).unwrap();
}
