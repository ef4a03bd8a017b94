//! The S3 backend against a real S3 server on loopback: the shared
//! conformance suite, directories as prefixes, multipart objects read back
//! with queued ranged GETs, and bad input (unreachable endpoint, missing
//! bucket, wrong credentials, an object deleted during a read).
//!
//! The server comes from `PARIO_TEST_S3_ENDPOINT`, `PARIO_TEST_S3_ACCESS_KEY`
//! and `PARIO_TEST_S3_SECRET_KEY` (scripts/test-object-servers.sh exports
//! them; see `pario_testkit::s3`); without them every test says it cannot
//! run (a failure under CI). Each test makes its own bucket.
#![cfg(feature = "s3")]

use pario_backends::conformance::{self, Expect};
use pario_backends::s3::{Credentials, S3Backend, S3Options};
use pario_backends::{
    AlignedBuffer, Backend, Completion, ErrorKind, FileLayout, IoOp, OpenContext, OpenMode,
};
use pario_testkit::s3::S3Server;
use std::path::{Path, PathBuf};

struct Server {
    endpoint: String,
    creds: Credentials,
    kit: S3Server,
}

fn server(what: &str) -> Option<Server> {
    let kit = S3Server::from_env(what)?;
    Some(Server {
        endpoint: kit.endpoint.clone(),
        creds: Credentials {
            key_id: kit.access_key.clone(),
            secret: kit.secret_key.clone(),
            token: None,
        },
        kit,
    })
}

fn clone(s: &Server) -> Server {
    Server {
        endpoint: s.endpoint.clone(),
        creds: s.creds.clone(),
        kit: s.kit.clone(),
    }
}

/// A new bucket for one test.
fn bucket(s: &Server, tag: &str) -> String {
    s.kit.bucket(tag)
}

fn backend(s: &Server, extra: &[(&str, &str)]) -> S3Backend {
    let mut opts: Vec<(String, Option<String>)> =
        vec![("endpoint".into(), Some(s.endpoint.clone()))];
    for (k, v) in extra {
        opts.push((k.to_string(), Some(v.to_string())));
    }
    let o = S3Options::parse(&opts).unwrap();
    S3Backend::with_credentials(o, Some(s.creds.clone())).unwrap()
}

fn pattern(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(13) ^ salt)
        .collect()
}

#[test]
fn the_conformance_suite_passes() {
    let Some(s) = server("S3 conformance suite") else {
        return;
    };
    let b = backend(&s, &[("queue-depth", "4")]);
    let dir = PathBuf::from(format!("s3://{}/conf", bucket(&s, "conf")));
    let expect = Expect {
        stores_data: true,
        metadata: false, // no rename: directories are checked below
        reports_missing: true,
        stat_size_is_data: true,
    };
    let failures = conformance::run_all(&b, &dir, expect);
    assert!(failures.is_empty(), "{failures:#?}");
    // Uneven transfers with a hole, read back by a second client.
    let other = backend(&s, &[("queue-depth", "1")]);
    conformance::cross_backend(&b, &other, &dir).unwrap();
}

#[test]
fn directories_are_prefixes_and_rename_is_refused() {
    let Some(s) = server("S3 directories") else {
        return;
    };
    let b = backend(&s, &[]);
    let root = format!("s3://{}", bucket(&s, "dirs"));
    let d = PathBuf::from(format!("{root}/top/sub"));
    b.mkdir(&d).unwrap();
    assert_eq!(b.mkdir(&d).unwrap_err().kind, ErrorKind::AlreadyExists);
    assert!(b.stat(&d).unwrap().is_dir);
    let f = d.join("file");
    b.create_empty(&f).unwrap();
    let st = b.stat(&f).unwrap();
    assert!(!st.is_dir && st.size == 0);
    // A prefix with objects under it is a directory, marker or not.
    assert!(b.stat(Path::new(&format!("{root}/top"))).unwrap().is_dir);
    let e = b.rename(&f, &d.join("g")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotSupported);
    assert!(e.to_string().contains("rename"), "{e}");
    b.delete(&f).unwrap();
    b.rmdir(&d).unwrap();
    assert_eq!(b.stat(&d).unwrap_err().kind, ErrorKind::NotFound);
    assert_eq!(b.statfs(&d).unwrap().fs_type, "s3");
}

fn layout(block: u64, transfer: u64, segments: u64, tasks: u32) -> FileLayout {
    FileLayout {
        block_size: block,
        transfer_size: transfer,
        segment_count: segments,
        num_tasks: tasks,
        data_rank: 0,
    }
}

/// Write `total` bytes in `t`-byte transfers through submit, then read
/// them back through submit at queue depth 4 and compare.
fn write_then_read(b: &S3Backend, path: &Path, ctx: &OpenContext<'_>, total: usize, t: usize) {
    let data = pattern(total, 5);
    let mut f = b.open_with(path, OpenMode::WRITE_CREATE, ctx).unwrap();
    let mut out: Vec<Completion> = Vec::new();
    for (i, chunk) in data.chunks(t).enumerate() {
        let mut buf = AlignedBuffer::new(t);
        buf.as_mut_slice()[..chunk.len()].copy_from_slice(chunk);
        let op = IoOp {
            write: true,
            offset: (i * t) as u64,
            buf,
            len: chunk.len(),
            tag: i as u64,
        };
        f.submit(op).map_err(|(e, _)| e).unwrap();
        f.complete(0, &mut out).unwrap();
    }
    f.complete(usize::MAX, &mut out).unwrap();
    assert!(out.iter().all(|c| c.result.is_ok()));
    f.close().unwrap();
    assert_eq!(b.stat(path).unwrap().size, total as u64);
    let mut r = b.open(path, OpenMode::READ).unwrap();
    let n = total / t;
    for i in 0..n {
        let op = IoOp {
            write: false,
            offset: (i * t) as u64,
            buf: AlignedBuffer::new(t),
            len: t,
            tag: i as u64,
        };
        r.submit(op).map_err(|(e, _)| e).unwrap();
    }
    let mut got = Vec::new();
    r.complete(n, &mut got).unwrap();
    assert_eq!(got.len(), n);
    for c in got {
        let i = c.tag as usize;
        assert_eq!(c.result.unwrap(), t);
        assert!(
            c.buf.as_slice() == &data[i * t..(i + 1) * t],
            "transfer {i}"
        );
    }
    r.close().unwrap();
}

#[test]
fn multipart_objects_read_back_through_queued_ranged_gets() {
    let Some(s) = server("S3 multipart") else {
        return;
    };
    let b = backend(&s, &[("queue-depth", "4")]);
    let root = format!("s3://{}", bucket(&s, "mp"));
    const M: u64 = 1 << 20;
    // A file per process: 1 MiB transfers gathered into 5 MiB parts.
    let l = layout(12 * M, M, 1, 1);
    let ctx = OpenContext {
        planned_size: Some(l.file_size()),
        layout: Some(l),
        ..OpenContext::default()
    };
    write_then_read(
        &b,
        Path::new(&format!("{root}/fpp")),
        &ctx,
        12 << 20,
        1 << 20,
    );
    // A shared object of two blocks of 5 MiB (one writer here).
    let l = layout(5 * M, M, 1, 2);
    let ctx = OpenContext {
        shared: true,
        layout: Some(l),
        ..OpenContext::default()
    };
    write_then_read(
        &b,
        Path::new(&format!("{root}/shared")),
        &ctx,
        10 << 20,
        1 << 20,
    );
    // Geometry that cannot map onto 5 MiB parts is refused naming -b/-t.
    let l = layout(2 * M, M, 2, 2);
    let ctx = OpenContext {
        shared: true,
        layout: Some(l),
        ..OpenContext::default()
    };
    let p = PathBuf::from(format!("{root}/small"));
    let e = b.open_with(&p, OpenMode::WRITE_CREATE, &ctx).err().unwrap();
    assert!(
        e.to_string().contains("-b ") && e.kind == ErrorKind::InvalidInput,
        "{e}"
    );
}

#[test]
fn an_object_deleted_during_a_read_is_an_error_naming_it() {
    let Some(s) = server("S3 object deleted during a read") else {
        return;
    };
    let b = backend(&s, &[]);
    let p = PathBuf::from(format!("s3://{}/gone", bucket(&s, "gone")));
    let mut f = b.open(&p, OpenMode::WRITE_CREATE).unwrap();
    f.write_at(&pattern(4096, 1), 0).unwrap();
    f.close().unwrap();
    let mut r = b.open(&p, OpenMode::READ).unwrap();
    b.delete(&p).unwrap();
    let mut buf = vec![0u8; 4096];
    let e = r.read_at(&mut buf, 0).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("/gone") && msg.contains(&s.endpoint), "{msg}");
    assert!(!msg.contains(&s.creds.secret), "{msg}");
}

#[test]
fn missing_bucket_and_unreachable_endpoint_fail_fast_naming_them() {
    let Some(s) = server("S3 bad endpoint and bucket") else {
        return;
    };
    let b = backend(&s, &[("timeout", "5")]);
    let p = Path::new("s3://pario-no-such-bucket-here/x");
    let e = b.open(p, OpenMode::READ).err().unwrap();
    let msg = e.to_string();
    assert!(
        msg.contains("pario-no-such-bucket-here") && msg.contains(&s.endpoint),
        "{msg}"
    );
    // Nothing listens on port 9 of loopback: refused at once, no hang.
    let dead = Server {
        endpoint: "http://127.0.0.1:9".into(),
        ..clone(&s)
    };
    let b = backend(&dead, &[("timeout", "3")]);
    let t0 = std::time::Instant::now();
    let e = b
        .open(Path::new("s3://any/x"), OpenMode::READ)
        .err()
        .unwrap();
    let msg = e.to_string();
    assert!(
        msg.contains("127.0.0.1:9") && msg.contains("s3://any/"),
        "{msg}"
    );
    assert!(!msg.contains(&s.creds.secret), "{msg}");
    assert!(
        t0.elapsed().as_secs() < 60,
        "gave up only after {:?}",
        t0.elapsed()
    );
}

#[test]
fn wrong_credentials_are_refused_without_printing_them() {
    let Some(s) = server("S3 wrong credentials") else {
        return;
    };
    if !s.kit.checks_credentials() {
        pario_testkit::skip_unless_ci(
            "S3 wrong credentials",
            "this test server does not check signatures",
        );
        return;
    }
    let bad = Server {
        kit: s.kit.clone(),
        endpoint: s.endpoint.clone(),
        creds: Credentials {
            key_id: s.creds.key_id.clone(),
            secret: "pario-wrong-secret-0000".into(),
            token: None,
        },
    };
    let name = bucket(&s, "auth");
    let b = backend(&bad, &[("timeout", "5")]);
    let e = b
        .open(Path::new(&format!("s3://{name}/x")), OpenMode::READ)
        .err()
        .unwrap();
    let msg = e.to_string();
    assert!(msg.contains(&name) && msg.contains(&s.endpoint), "{msg}");
    assert!(!msg.contains("pario-wrong-secret-0000"), "{msg}");
}
