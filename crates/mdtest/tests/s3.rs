//! `mdtest -a S3` under mpirun against a real S3 server (see
//! `pario_testkit::s3`): objects as files, prefixes as directories, every
//! phase but rename (skipped with a warning, as upstream does), and nothing
//! left in the bucket afterwards.

use pario_testkit::s3::S3Server;

const BIN: &str = env!("CARGO_BIN_EXE_mdtest");

#[test]
fn mdtest_runs_its_phases_on_objects_and_skips_rename() {
    let Some(s) = S3Server::from_env("mdtest -a S3") else {
        return;
    };
    let bucket = s.bucket("md");
    let keep = tempfile::tempdir().unwrap();
    let root = format!("s3://{bucket}/md");
    let mut job = pario_testkit::Job::new(BIN).ranks(2).keep_in(keep.path());
    for (k, v) in s.env() {
        job = job.env(k, v);
    }
    let out = job
        .args(["-a", "S3", "-d", &root, "-n", "8", "-z", "1", "-b", "2"])
        .args(["-w", "64", "-e", "64"])
        .run();
    let text = format!("{}\n{}", out.stdout, out.stderr);
    assert_eq!(out.status, Some(0), "{text}");
    assert!(text.contains("rename phase is skipped"), "{text}");
    for phase in [
        "File creation",
        "File stat",
        "File read",
        "Directory removal",
    ] {
        let line = text.lines().find(|l| l.contains(phase)).unwrap_or_default();
        let rate: f64 = line
            .split_whitespace()
            .nth(2)
            .and_then(|w| w.parse().ok())
            .unwrap_or(0.0);
        assert!(rate > 0.0, "{phase}: {line}\n{text}");
    }
    // Everything made was removed: stat of the root's prefix finds nothing.
    let o = pario_backends::s3::S3Options::parse(&vec![(
        "endpoint".to_string(),
        Some(s.endpoint.clone()),
    )])
    .unwrap();
    let creds = pario_backends::s3::Credentials {
        key_id: s.access_key.clone(),
        secret: s.secret_key.clone(),
        token: None,
    };
    let b = pario_backends::s3::S3Backend::with_credentials(o, Some(creds)).unwrap();
    use pario_backends::Backend;
    let left = b.stat(std::path::Path::new(&root));
    assert!(left.is_err(), "objects left under {root}: {left:?}");
}
