//! A real io500 run with the ior-easy phases on pario's S3 backend
//! (`[ior-easy] API = S3 --s3.bucket=...`), against the test S3 server
//! (`pario_testkit::s3`, scripts/test-object-servers.sh): the phases write
//! and read objects, score, and keep their runs; ior-hard on S3 is refused
//! in one line before anything is written (its shared file of 47008-byte
//! blocks cannot be S3 multipart parts).

use pario_testkit::mpirun;
use pario_testkit::s3::S3Server;
use std::path::Path;
use std::process::Output;

const BIN: &str = env!("CARGO_BIN_EXE_io500");

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A tiny config (30 s stonewall, no random reads, no find: the trees are
/// local but the test is about ior) with `extra` appended.
fn config(root: &Path, extra: &str) -> std::path::PathBuf {
    let text = format!(
        "[global]\ndatadir = {r}/data\nresultdir = {r}/res\n\
         timestamp-datadir = FALSE\ntimestamp-resultdir = FALSE\n\
         [debug]\nstonewall-time = 30\n\
         [ior-easy]\ntransferSize = 1m\nblockSize = 2m\n\
         [ior-hard]\nsegmentCount = 10\n\
         [mdtest-easy]\nn = 20\n[mdtest-hard]\nn = 20\n\
         [ior-rnd4K-easy-read]\nrun = FALSE\n{extra}",
        r = root.display()
    );
    let path = root.join("config.ini");
    std::fs::write(&path, text).unwrap();
    path
}

fn io500(s: &S3Server, root: &Path, cfg: &Path) -> Output {
    let mut c = mpirun(300, 2);
    c.arg(BIN)
        .arg(cfg)
        .current_dir(root)
        .env("PARIO_RESULTS_DIR", root.join("keep"))
        .env("PARIO_DB", "none")
        .env_remove("PARIO_TAGS");
    for (k, v) in s.env() {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// `key = value` of section `[name]` in result.txt.
fn value(result: &str, name: &str, key: &str) -> Option<String> {
    let start = result.find(&format!("[{name}]\n"))?;
    let section = result[start..].split("\n\n").next()?;
    section.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

#[test]
fn the_ior_easy_phases_run_on_s3_and_ior_hard_there_is_refused() {
    let Some(s) = S3Server::from_env("io500 with [ior-easy] API = S3") else {
        return;
    };
    let bucket = s.bucket("io500");
    let tmp = tempfile::tempdir().unwrap();
    let api = format!("API = S3 --s3.bucket={bucket}\n");
    let cfg = config(tmp.path(), &format!("[ior-easy]\n{api}"));
    let out = io500(&s, tmp.path(), &cfg);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let result = std::fs::read_to_string(tmp.path().join("res/result.txt")).unwrap();
    assert!(!result.contains("The phase failed"), "{result}");
    for phase in ["ior-easy-write", "ior-easy-read"] {
        let exe = value(&result, phase, "exe").unwrap();
        assert!(
            exe.contains(&format!("-a S3 --s3.bucket={bucket}")),
            "{exe}"
        );
        let score: f64 = value(&result, phase, "score").unwrap().parse().unwrap();
        assert!(score > 0.0, "{phase}: {score}");
    }
    // ior-hard on S3: refused before anything is written, naming the key.
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path(), &format!("[ior-hard]\n{api}"));
    let out = io500(&s, tmp.path(), &cfg);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("[ior-hard] API = S3") && err.contains("S3 cannot hold ior-hard-write's"),
        "{err}"
    );
    assert!(!tmp.path().join("res").exists());
}
