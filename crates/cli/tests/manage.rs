//! Managing kept runs end to end with the real `pario` binary: runs made by
//! importing recorded upstream outputs (tests/fixtures/upstream) into a
//! private database and results directory, then relabelled, annotated,
//! listed and deleted, checking the database and the JSON files agree.

mod common;
use common::*;
use pario_results::RunRecord;
use std::path::{Path, PathBuf};

struct Site {
    dir: tempfile::TempDir,
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/upstream")
        .join(rel)
}

impl Site {
    /// A private store holding two imported ior runs and one mdtest run.
    fn new() -> Site {
        let site = Site {
            dir: tempfile::tempdir().unwrap(),
        };
        for f in [
            "ior/output/ior-fpp-basic.txt",
            "ior/output/ior-stonewall.txt",
        ] {
            let o = site.pario(&["import", fixture(f).to_str().unwrap()]);
            assert_eq!(o.status, 0, "{}", o.both());
        }
        let md = std::fs::read_dir(fixture("mdtest"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "txt"))
            .expect("an mdtest fixture");
        let o = site.pario(&["import", md.to_str().unwrap()]);
        assert_eq!(o.status, 0, "{}", o.both());
        site
    }
    fn runs_dir(&self) -> PathBuf {
        self.dir.path().join("runs")
    }
    fn pario(&self, args: &[&str]) -> Out {
        done(pario_at(&self.runs_dir(), self.dir.path().join("results.sqlite")).args(args))
    }
    fn ok(&self, args: &[&str]) -> String {
        let o = self.pario(args);
        assert_eq!(o.status, 0, "pario {args:?}\n{}", o.both());
        o.stdout
    }
    fn record(&self, id: &str) -> RunRecord {
        serde_json::from_str(&self.ok(&["show", id, "--format", "json"])).unwrap()
    }
    fn file_record(&self, id: &str) -> RunRecord {
        let text = std::fs::read_to_string(self.runs_dir().join(format!("{id}.json"))).unwrap();
        serde_json::from_str(&text).unwrap()
    }
    fn ids(&self) -> Vec<String> {
        let v: serde_json::Value =
            serde_json::from_str(&self.ok(&["runs", "--format", "json"])).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["run_id"].as_str().unwrap().to_string())
            .collect()
    }
}

#[test]
fn retag_untag_and_annotate_change_the_database_and_the_file_alike() {
    let site = Site::new();
    let newest = site.ids()[0].clone();
    let out = site.ok(&["retag", "last", "-t", "build=1.10", "-t", "trial=odirect"]);
    assert_eq!(out, "retagged 1 run(s)\n");
    let rec = site.record(&newest);
    assert_eq!(rec.tags["build"], "1.10");
    assert_eq!(site.file_record(&newest).tags, rec.tags);

    site.ok(&["untag", &newest, "-k", "trial"]);
    let rec = site.record(&newest);
    assert!(!rec.tags.contains_key("trial"), "{:?}", rec.tags);
    assert_eq!(site.file_record(&newest).tags, rec.tags);

    site.ok(&[
        "annotate",
        "last",
        "switch firmware was 2.1 during this run",
    ]);
    let show = site.ok(&["show", "last"]);
    assert!(
        show.contains("note       switch firmware was 2.1"),
        "{show}"
    );
    assert_eq!(site.file_record(&newest).notes.len(), 1);
    site.ok(&["annotate", "last", "--clear"]);
    assert!(site.record(&newest).notes.is_empty());

    // The file and the rows are the same run: sync finds nothing to do
    // and refuses nothing.
    let sync = site.ok(&["db", "sync"]);
    assert!(
        sync.contains("0 loaded") && sync.contains("0 failed"),
        "{sync}"
    );

    // Labels stay text: `tags` lists them, exports never make 1.10 a number.
    let tags = site.ok(&["tags"]);
    assert!(
        tags.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["build", "1.10", "1"]),
        "{tags}"
    );
    let csv = site.ok(&["export", "--tag", "build=1.10"]);
    assert!(
        csv.lines().nth(1).unwrap().ends_with(",build=1.10"),
        "{csv}"
    );
    let json = site.ok(&["export", "--tag", "build=1.10", "--format", "json"]);
    assert!(json.contains("\"build\": \"1.10\""), "{json}");
}

#[test]
fn runs_lists_short_unique_ids_and_a_rate() {
    let site = Site::new();
    let ids = site.ids();
    let table = site.ok(&["runs"]);
    assert!(
        table.lines().next().unwrap().contains("MEAN RATE"),
        "{table}"
    );
    for line in table.lines().skip(2).filter(|l| !l.contains("run(s)")) {
        let short = line.split_whitespace().next().unwrap();
        let hits = ids.iter().filter(|i| i.starts_with(short)).count();
        assert_eq!(hits, 1, "{short} is not a unique prefix\n{table}");
        // The short id is accepted wherever an id is.
        site.ok(&["show", short]);
    }
    assert!(
        table.contains(" GiB/s") || table.contains(" MiB/s"),
        "{table}"
    );
    assert!(table.contains("/s"), "{table}");
    // `last~N` counts back from the newest.
    let second = site.record("last~1");
    assert_eq!(second.run_id, ids[1]);
    let o = site.pario(&["show", "last~9"]);
    assert_eq!(o.status, 2, "{}", o.both());
    assert!(o.stderr.contains("only 3 run(s)"), "{}", o.both());
}

#[test]
fn delete_lists_asks_and_removes_rows_and_files_together() {
    let site = Site::new();
    let ids = site.ids();
    let victim = ids[0].clone();

    // Nothing named: refused, nothing deleted.
    let o = site.pario(&["delete"]);
    assert_eq!(o.status, 2, "{}", o.both());
    assert!(
        o.stderr.contains("nothing is deleted by default"),
        "{}",
        o.both()
    );

    let dry = site.ok(&["delete", &victim, "--dry-run"]);
    assert!(
        dry.contains(&victim) && dry.contains("would delete 1 run(s)"),
        "{dry}"
    );
    assert_eq!(site.ids().len(), 3);

    // Not a terminal and no --yes: refused.
    let o = site.pario(&["delete", &victim]);
    assert_eq!(o.status, 2, "{}", o.both());
    assert!(o.stderr.contains("--yes"), "{}", o.both());
    assert_eq!(site.ids().len(), 3);

    let out = site.ok(&["delete", &victim, "--yes"]);
    assert!(out.contains("deleted 1 run(s)"), "{out}");
    assert_eq!(site.ids(), ids[1..].to_vec());
    assert!(!site.runs_dir().join(format!("{victim}.json")).exists());
    let leftovers: Vec<_> = std::fs::read_dir(site.runs_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // Sync does not bring it back.
    let sync = site.ok(&["db", "sync"]);
    assert!(sync.contains("0 loaded"), "{sync}");
    assert_eq!(site.ids().len(), 2);

    // By filter: the ior run whose command used -C, with ids and a filter
    // both applied.
    let out = site.ok(&[
        "delete",
        "--tool",
        "ior",
        "--param",
        "block_size=4m",
        "--yes",
    ]);
    assert!(out.contains("deleted 1 run(s)"), "{out}");
    assert_eq!(site.ids().len(), 1);

    // A run whose JSON file is missing: deleted from the database, with
    // the warning the docs promise.
    let last = site.ids()[0].clone();
    std::fs::remove_file(site.runs_dir().join(format!("{last}.json"))).unwrap();
    let o = site.pario(&["delete", &last, "--yes"]);
    assert_eq!(o.status, 0, "{}", o.both());
    assert!(
        o.stderr.contains("warning")
            && o.stderr.contains(&last)
            && o.stderr.contains("no JSON file"),
        "{}",
        o.both()
    );
    assert!(site.ids().is_empty());
}

#[test]
fn bad_input_names_what_is_wrong() {
    let site = Site::new();
    for (args, says) in [
        (
            vec!["retag", "nosuchrun", "-t", "a=b"],
            "no run 'nosuchrun'",
        ),
        (vec!["retag", "last", "-t", "novalue"], "--tag novalue"),
        (vec!["annotate", "last", "  "], "the note is empty"),
        (vec!["show", "last~x"], "last~N"),
    ] {
        let o = site.pario(&args);
        assert_eq!(o.status, 2, "{args:?}\n{}", o.both());
        assert!(
            o.stderr.contains(says),
            "{args:?}: expected '{says}'\n{}",
            o.both()
        );
        assert_eq!(o.stderr.lines().count(), 1, "{args:?}\n{}", o.both());
    }
}
