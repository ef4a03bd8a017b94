//! `ior -a S3` under mpirun against a real S3 server (see
//! `pario_testkit::s3`): shared objects (multipart) and objects per process
//! with write and read checks on 2 and 4 ranks, S3_EMC's warning, and the
//! refusals: HDFS/IME, geometry that cannot map onto parts, a missing
//! bucket, an unreachable endpoint and wrong credentials, each a one-line
//! message naming what failed, with no credential printed.

mod common;
use common::*;
use pario_testkit::s3::S3Server;

fn s3_ior(s: &S3Server, np: u32, args: &[&str], env: &[(&str, &str)]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let mut all: Vec<(&str, String)> = s.env();
    all.extend(env.iter().map(|(k, v)| (*k, v.to_string())));
    let pairs: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut argv = vec!["-a", "S3"];
    argv.extend_from_slice(args);
    ior_env(np, dir.path(), &argv, &pairs)
}

#[test]
fn shared_and_per_process_objects_verify_on_2_and_4_ranks() {
    let Some(s) = S3Server::from_env("ior -a S3") else {
        return;
    };
    let bucket = s.bucket("ior");
    for np in [2, 4] {
        let shared = format!("s3://{bucket}/shared{np}");
        let args = [
            "-o", &shared, "-b", "5m", "-t", "1m", "-s", "2", "-w", "-r", "-W", "-R",
        ];
        let r = s3_ior(&s, np, &args, &[]);
        assert!(r.ok(), "{}", r.both());
        assert!(
            r.stdout.contains("write") && r.stdout.contains("S3"),
            "{}",
            r.both()
        );
        let fpp = format!("s3://{bucket}/fpp{np}");
        let args = [
            "-o",
            &fpp,
            "-F",
            "-b",
            "256k",
            "-t",
            "64k",
            "-s",
            "3",
            "-z",
            "--random-offset-seed=9",
            "-w",
            "-r",
            "-W",
            "-R",
            "--s3.queue-depth=8",
        ];
        let r = s3_ior(&s, np, &args, &[]);
        assert!(r.ok(), "{}", r.both());
        assert!(!r.stderr.contains("rror"), "{}", r.both());
    }
}

#[test]
fn s3_emc_runs_as_plain_s3_and_says_so() {
    let Some(s) = S3Server::from_env("ior -a S3_EMC") else {
        return;
    };
    let o = format!("s3://{}/emc", s.bucket("emc"));
    let dir = tempfile::tempdir().unwrap();
    let env = s.env();
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let args = [
        "-a", "S3_EMC", "-o", &o, "-b", "64k", "-t", "16k", "-w", "-r", "-W", "-vvv",
    ];
    let r = ior_env(1, dir.path(), &args, &pairs);
    assert!(r.ok(), "{}", r.both());
    assert!(r.both().contains("EMC extensions"), "{}", r.both());
    // -vvv lists the environment, as IOR does, with secrets masked.
    assert!(
        r.stdout.contains("AWS_SECRET_ACCESS_KEY=(hidden)"),
        "{}",
        r.both()
    );
    assert!(!r.both().contains(&s.secret_key), "{}", r.both());
}

#[test]
fn hdfs_and_ime_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    for api in ["HDFS", "IME"] {
        let r = ior(1, dir.path(), &["-a", api, "-o", "f"]);
        assert_eq!(r.status, Some(2), "{}", r.both());
        let line = r.stderr.lines().next().unwrap_or_default().to_string();
        assert!(
            line.contains(&format!("-a {api}: pario has no")),
            "{}",
            r.both()
        );
        assert!(line.contains("POSIX") && line.contains("S3"), "{line}");
    }
}

#[test]
fn bad_geometry_bucket_endpoint_and_credentials_fail_naming_them() {
    let Some(s) = S3Server::from_env("ior -a S3 bad input") else {
        return;
    };
    let bucket = s.bucket("bad");
    let o = format!("s3://{bucket}/small");
    // Blocks of 1 MiB cannot be parts of 5 MiB of a shared object.
    let r = s3_ior(
        &s,
        2,
        &["-o", &o, "-b", "1m", "-t", "1m", "-s", "2", "-w"],
        &[],
    );
    assert!(!r.ok() && r.stderr.contains("-b 1048576"), "{}", r.both());
    let o = "s3://pario-no-such-bucket/x";
    let r = s3_ior(&s, 2, &["-o", o, "-b", "64k", "-t", "64k", "-w"], &[]);
    assert!(
        !r.ok() && r.stderr.contains("pario-no-such-bucket"),
        "{}",
        r.both()
    );
    assert!(r.stderr.contains(&s.endpoint), "{}", r.both());
    let o = format!("s3://{bucket}/x");
    let args = ["-o", &o, "-b", "64k", "-t", "64k", "-w", "--s3.timeout=3"];
    let r = s3_ior(&s, 1, &args, &[("AWS_ENDPOINT_URL", "http://127.0.0.1:9")]);
    assert!(!r.ok() && r.stderr.contains("127.0.0.1:9"), "{}", r.both());
    if s.checks_credentials() {
        let wrong = "pario-wrong-secret-1234";
        let r = s3_ior(
            &s,
            1,
            &["-o", &o, "-b", "64k", "-t", "64k", "-w"],
            &[("AWS_SECRET_ACCESS_KEY", wrong)],
        );
        assert!(!r.ok() && r.stderr.contains(&bucket), "{}", r.both());
        assert!(!r.both().contains(wrong), "{}", r.both());
    } else {
        pario_testkit::skip_unless_ci(
            "ior -a S3 wrong credentials",
            "the server checks no signatures",
        );
    }
    assert!(!r.both().contains(&s.secret_key), "{}", r.both());
}
