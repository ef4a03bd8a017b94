//! S3 backend (`-a S3`): files are objects in an S3 bucket, through Apache
//! Arrow's `object_store` client (SigV4 signing, multipart uploads, ranged
//! GETs), one current-thread tokio runtime per rank owned by the backend.
//!
//! Names: `-o s3://bucket/prefix/file` names bucket and key; a plain path
//! (`-o /prefix/file`) is a key in `--s3.bucket`. Leading, doubled and
//! trailing slashes of a key are dropped.
//!
//! IOR semantics: a file per process is one object; a shared file is one
//! object written by a multipart upload whose parts are chunks of the
//! ranks' blocks (see [`chunk_size`]: a multiple of the transfer size, at
//! least `--s3.part-size`, and, in a shared file, dividing the block size, so
//! that every part belongs to one rank); reads are ranged GETs. Geometry
//! that cannot map onto parts of at least 5 MiB (S3's smallest part but the
//! last) is refused naming `-b`/`-t`. mdtest: objects are files, key
//! prefixes are directories, a directory made by mkdir is a marker object
//! `<dir>/.pario-dir` (as upstream's S3 backend keeps an empty object per
//! directory); rename is refused.
//!
//! `--s3.queue-depth N` keeps N requests in flight per rank (part uploads
//! while writing, ranged GETs while reading), as `--uring.depth` does for
//! io_uring. Credentials come from `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, else from the profile
//! `AWS_PROFILE` (or `default`) of `AWS_SHARED_CREDENTIALS_FILE` (or
//! `~/.aws/credentials`); they are never printed nor kept in a run record
//! (the record keeps no `AWS_*` variable). Every request has a timeout
//! (`--s3.timeout`) and a few retries, so an unreachable endpoint fails
//! instead of hanging.
//!
//! `-a S3_EMC` runs through this backend with plain S3 semantics (EMC's
//! extensions are named in a note); `-a HDFS` and `-a IME` are refused with
//! their reason ([`refusal`]).

use crate::registry::{BackendDescriptor, Created, Features, OptionKind as K, OptionSpec as O};
use crate::ModuleOptions;

#[cfg(feature = "s3")]
pub use crate::s3_client::S3Backend;

/// S3's smallest part of a multipart upload (all but the last part).
pub const MIN_PART: u64 = 5 << 20;
/// S3's largest part.
pub const MAX_PART: u64 = 5 << 30;
/// S3's most parts in one upload.
pub const MAX_PARTS: u64 = 10_000;
/// Default requests in flight per rank.
pub const DEFAULT_QUEUE_DEPTH: u32 = 16;
/// Default seconds before a request is given up.
pub const DEFAULT_TIMEOUT_S: u64 = 30;

const OPTIONS: &[O] = &[
    O::new("bucket", K::Text, "bucket of plain -o paths"),
    O::new(
        "endpoint",
        K::Text,
        "server URL (http://host:port); default AWS_ENDPOINT_URL or AWS",
    ),
    O::new("region", K::Text, "signing region (default us-east-1)"),
    O::new(
        "path-style",
        K::Flag,
        "path-style addressing (on-premises servers)",
    ),
    O::new("queue-depth", K::UInt, "requests in flight per rank"),
    O::new("part-size", K::Size, "smallest multipart part (>= 5 MiB)"),
    O::new("timeout", K::UInt, "seconds before a request is given up"),
];

/// The S3 backend, described once (see [`crate::registry`]).
pub const DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "S3",
    module: "s3",
    summary: "S3 objects: multipart writes, ranged GETs",
    options: OPTIONS,
    reads: &[],
    features: FEATURES,
    built: cfg!(feature = "s3"),
    missing: "built without the s3 feature (cargo build --features s3)",
    check: |s| S3Options::parse(&s.module("s3")).map(drop),
    create: |s| create(&s.module("s3")),
};

/// EMC's S3 extensions upstream's S3_EMC offers and pario does not.
pub const EMC_UNSUPPORTED: &str = "EMC extensions (byte-range appends and \
     writes into existing objects, N:1 writes without multipart) are not supported: \
     running with plain S3 semantics";

/// `-a S3_EMC`: the S3 backend with plain S3 semantics; reads `--s3.*`.
pub const EMC_DESCRIPTOR: BackendDescriptor = BackendDescriptor {
    name: "S3_EMC",
    module: "s3_emc",
    summary: "plain S3 (EMC extensions not supported)",
    options: &[],
    reads: &["s3"],
    features: FEATURES,
    built: cfg!(feature = "s3"),
    missing: "built without the s3 feature (cargo build --features s3)",
    check: |s| S3Options::parse(&s.module("s3")).map(drop),
    create: |s| {
        let c = create(&s.module("s3"))?;
        Ok(c.warn(vec![format!("-a S3_EMC: {EMC_UNSUPPORTED}")]))
    },
};

const FEATURES: Features = Features {
    random_offsets: true,
    file_per_process: true,
    collective: false,
    hints: false,
    queue: true,
    direct_io: false,
    min_transfer: 1,
    fake: false,
    needs_mpi: false,
    object_store: true,
    rename: false,
    client_cache: None,
    shared_file: true,
    mdtest: true,
};

/// Why an API of IOR's list that pario has no backend for (HDFS, IME and
/// the others of [`crate::refused::REFUSED`]) is refused, and what to use
/// instead; `None` for any other name.
pub fn refusal(api: &str) -> Option<String> {
    crate::refused::refusal(api)
}

#[cfg(feature = "s3")]
fn create(opts: &ModuleOptions) -> Result<Created, String> {
    let options = S3Options::parse(opts)?;
    let backend = crate::s3_client::S3Backend::new(options)?;
    Ok(Created::new(backend, Vec::new()))
}

#[cfg(not(feature = "s3"))]
fn create(opts: &ModuleOptions) -> Result<Created, String> {
    S3Options::parse(opts)?;
    Err(format!("-a S3: {}", DESCRIPTOR.missing))
}

/// The `--s3.*` options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Options {
    pub bucket: Option<String>,
    pub endpoint: Option<String>,
    pub region: Option<String>,
    /// Path-style addressing; unset: path-style when an endpoint is given.
    pub path_style: Option<bool>,
    pub queue_depth: u32,
    pub part_size: u64,
    pub timeout_s: u64,
}

impl Default for S3Options {
    fn default() -> Self {
        S3Options {
            bucket: None,
            endpoint: None,
            region: None,
            path_style: None,
            queue_depth: DEFAULT_QUEUE_DEPTH,
            part_size: MIN_PART,
            timeout_s: DEFAULT_TIMEOUT_S,
        }
    }
}

impl S3Options {
    pub fn parse(opts: &ModuleOptions) -> Result<S3Options, String> {
        let mut out = S3Options::default();
        for (key, value) in opts {
            let text = || -> Result<String, String> {
                match value.as_deref().map(str::trim) {
                    Some(v) if !v.is_empty() => Ok(v.to_string()),
                    _ => Err(format!("--s3.{key} needs a value")),
                }
            };
            match key.as_str() {
                "bucket" => out.bucket = Some(text()?),
                "endpoint" => out.endpoint = Some(check_endpoint(&text()?)?),
                "region" => out.region = Some(text()?),
                "path-style" => {
                    out.path_style = Some(crate::posix::flag_value("s3", key, value.as_deref())?)
                }
                "queue-depth" => {
                    out.queue_depth = uint(key, &text()?)?.try_into().unwrap_or(u32::MAX);
                    if !(1..=1024).contains(&out.queue_depth) {
                        return Err(format!("--s3.queue-depth={}: expected 1 to 1024", text()?));
                    }
                }
                "part-size" => {
                    out.part_size = size(key, &text()?)?;
                    if !(MIN_PART..=MAX_PART).contains(&out.part_size) {
                        return Err(format!(
                            "--s3.part-size={}: S3 parts are 5 MiB to 5 GiB",
                            text()?
                        ));
                    }
                }
                "timeout" => {
                    out.timeout_s = uint(key, &text()?)?;
                    if out.timeout_s == 0 {
                        return Err("--s3.timeout=0: expected at least 1 second".into());
                    }
                }
                other => return Err(format!("unknown option --s3.{other}")),
            }
        }
        Ok(out)
    }
}

fn check_endpoint(v: &str) -> Result<String, String> {
    if v.starts_with("http://") || v.starts_with("https://") {
        Ok(v.trim_end_matches('/').to_string())
    } else {
        Err(format!(
            "--s3.endpoint={v}: expected a URL starting with http:// or https://"
        ))
    }
}

fn uint(key: &str, v: &str) -> Result<u64, String> {
    v.parse::<u64>()
        .map_err(|_| format!("--s3.{key}={v}: expected a non-negative integer"))
}

/// A byte size with IOR's suffixes (k, m, g; binary).
fn size(key: &str, v: &str) -> Result<u64, String> {
    let lower = v.to_ascii_lowercase();
    let (digits, mult) = match lower.strip_suffix(['k', 'm', 'g']) {
        Some(d) => {
            let shift = match lower.as_bytes()[lower.len() - 1] {
                b'k' => 10,
                b'm' => 20,
                _ => 30,
            };
            (d, 1u64 << shift)
        }
        None => (lower.as_str(), 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("--s3.{key}={v}: expected a size (such as 8m)"))
}

/// Bucket and key of a path: `s3://bucket/key`, or a key in `bucket`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectName {
    pub bucket: String,
    /// Without leading, trailing or doubled slashes; empty for the bucket.
    pub key: String,
}

impl ObjectName {
    pub fn parse(path: &str, bucket: Option<&str>) -> Result<ObjectName, String> {
        let (bucket, rest) = match path.strip_prefix("s3://").or(path.strip_prefix("s3:/")) {
            Some(rest) => {
                let (b, k) = rest.split_once('/').unwrap_or((rest, ""));
                (b.to_string(), k)
            }
            None => match bucket {
                Some(b) => (b.to_string(), path),
                None => {
                    return Err(format!(
                        "{path}: no bucket: name it as s3://bucket/key or give --s3.bucket"
                    ))
                }
            },
        };
        if bucket.is_empty() {
            return Err(format!("{path}: the bucket name is empty"));
        }
        let key: Vec<&str> = rest
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        if key.contains(&"..") {
            return Err(format!("{path}: '..' has no meaning in an object key"));
        }
        Ok(ObjectName {
            bucket,
            key: key.join("/"),
        })
    }
}

impl std::fmt::Display for ObjectName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "s3://{}/{}", self.bucket, self.key)
    }
}

/// The chunk of a file that becomes one part: a multiple of `transfer` at
/// least `part` bytes (or the whole file when it is smaller), dividing
/// `block` when `shared` (so that each part holds one rank's data). The
/// refusal names the options to change.
pub fn chunk_size(
    file_size: u64,
    block: u64,
    transfer: u64,
    part: u64,
    shared: bool,
) -> Result<u64, String> {
    if transfer == 0 || file_size == 0 {
        return Ok(file_size.max(1));
    }
    if shared && file_size <= block {
        return Ok(file_size);
    }
    let step = transfer;
    let mut chunk = part.div_ceil(step) * step;
    if shared {
        if !block.is_multiple_of(transfer) || block < part {
            return Err(format!(
                "-b {block} -t {transfer}: a shared S3 object is written as multipart parts of \
                 at least 5 MiB holding one rank's data: the block size must be a multiple of \
                 the transfer size and at least --s3.part-size ({part})"
            ));
        }
        while chunk < block && !block.is_multiple_of(chunk) {
            chunk += step;
        }
        chunk = chunk.min(block);
    }
    if !shared && chunk >= file_size {
        return Ok(file_size);
    }
    if chunk > MAX_PART {
        return Err(format!(
            "-t {transfer}: parts of {chunk} bytes exceed S3's largest part (5 GiB)"
        ));
    }
    if file_size.div_ceil(chunk) > MAX_PARTS {
        return Err(format!(
            "-b {block} -t {transfer}: {} parts of {chunk} bytes exceed S3's 10000 parts: \
             raise --s3.part-size or -t",
            file_size.div_ceil(chunk)
        ));
    }
    Ok(chunk)
}

/// Access key, secret and session token.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    pub key_id: String,
    pub secret: String,
    pub token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials(..)") // never printed
    }
}

impl Credentials {
    /// From the environment, else from the profile file; `None` when neither
    /// has any (anonymous requests).
    pub fn find(env: impl Fn(&str) -> Option<String>) -> Result<Option<Credentials>, String> {
        if let (Some(key_id), Some(secret)) =
            (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"))
        {
            return Ok(Some(Credentials {
                key_id,
                secret,
                token: env("AWS_SESSION_TOKEN"),
            }));
        }
        let file = match env("AWS_SHARED_CREDENTIALS_FILE") {
            Some(f) => std::path::PathBuf::from(f),
            None => match env("HOME") {
                Some(h) => std::path::Path::new(&h).join(".aws/credentials"),
                None => return Ok(None),
            },
        };
        let profile = env("AWS_PROFILE").unwrap_or_else(|| "default".into());
        match std::fs::read_to_string(&file) {
            Ok(text) => Ok(Self::from_profile(&text, &profile)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", file.display())),
        }
    }

    /// The keys of `[profile]` in an INI-style credentials file.
    pub fn from_profile(text: &str, profile: &str) -> Option<Credentials> {
        let mut section = String::new();
        let (mut id, mut secret, mut token) = (None, None, None);
        for line in text.lines().map(str::trim) {
            if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = s.trim().trim_start_matches("profile ").to_string();
                continue;
            }
            if section != profile {
                continue;
            }
            if let Some((k, v)) = line.split_once('=') {
                let v = Some(v.trim().to_string());
                match k.trim() {
                    "aws_access_key_id" => id = v,
                    "aws_secret_access_key" => secret = v,
                    "aws_session_token" => token = v,
                    _ => {}
                }
            }
        }
        Some(Credentials {
            key_id: id?,
            secret: secret?,
            token,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_options as opts;

    #[test]
    fn options_parse_and_bad_values_name_the_option() {
        let o = S3Options::parse(&opts(&[
            ("bucket", Some("b")),
            ("endpoint", Some("http://127.0.0.1:9000/")),
            ("path-style", None),
            ("queue-depth", Some("16")),
            ("part-size", Some("8m")),
        ]))
        .unwrap();
        assert_eq!(o.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(
            (o.path_style, o.queue_depth, o.part_size),
            (Some(true), 16, 8 << 20)
        );
        for (k, v, want) in [
            ("queue-depth", "0", "--s3.queue-depth=0"),
            ("part-size", "1m", "--s3.part-size=1m"),
            ("endpoint", "host:9000", "--s3.endpoint=host:9000"),
            ("timeout", "x", "--s3.timeout=x"),
            ("nope", "1", "--s3.nope"),
        ] {
            let e = S3Options::parse(&opts(&[(k, Some(v))])).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn names_split_into_bucket_and_key() {
        let n = ObjectName::parse("s3://bk/a//b/./f/", None).unwrap();
        assert_eq!((n.bucket.as_str(), n.key.as_str()), ("bk", "a/b/f"));
        let n = ObjectName::parse("/x/y", Some("bk")).unwrap();
        assert_eq!(n.to_string(), "s3://bk/x/y");
        assert_eq!(ObjectName::parse("s3://bk", None).unwrap().key, "");
        assert!(ObjectName::parse("/x", None)
            .unwrap_err()
            .contains("--s3.bucket"));
        assert!(ObjectName::parse("s3:///x", None).is_err());
        assert!(ObjectName::parse("s3://b/../x", None).is_err());
    }

    #[test]
    fn chunks_are_parts_of_at_least_5_mib_within_a_block() {
        const M: u64 = 1 << 20;
        // File per process: small transfers gathered into 5 MiB parts.
        assert_eq!(
            chunk_size(64 * M, 64 * M, M, MIN_PART, false).unwrap(),
            5 * M
        );
        assert_eq!(chunk_size(2 * M, 2 * M, M, MIN_PART, false).unwrap(), 2 * M);
        // Shared: the chunk divides the block.
        assert_eq!(
            chunk_size(40 * M, 10 * M, M, MIN_PART, true).unwrap(),
            5 * M
        );
        assert_eq!(
            chunk_size(48 * M, 12 * M, M, MIN_PART, true).unwrap(),
            6 * M
        );
        assert_eq!(chunk_size(28 * M, 7 * M, M, MIN_PART, true).unwrap(), 7 * M);
        // One block alone is one part whatever its size.
        assert_eq!(chunk_size(M, M, M / 4, MIN_PART, true).unwrap(), M);
        let e = chunk_size(8 * M, 2 * M, M, MIN_PART, true).unwrap_err();
        assert!(e.starts_with("-b ") && e.contains("5 MiB"), "{e}");
        let e = chunk_size(100_000 * MIN_PART, 100_000 * MIN_PART, M, MIN_PART, false);
        assert!(e.unwrap_err().contains("10000 parts"));
    }

    #[test]
    fn credentials_come_from_env_then_profile_and_never_print() {
        let env = |k: &str| match k {
            "AWS_ACCESS_KEY_ID" => Some("AK".to_string()),
            "AWS_SECRET_ACCESS_KEY" => Some("SK".to_string()),
            _ => None,
        };
        let c = Credentials::find(env).unwrap().unwrap();
        assert_eq!((c.key_id.as_str(), c.secret.as_str()), ("AK", "SK"));
        assert!(!format!("{c:?}").contains("SK"));
        let text = "[default]\naws_access_key_id = A\naws_secret_access_key = B\n\
                    [profile other]\naws_access_key_id=C\naws_secret_access_key=D\n\
                    aws_session_token=T\n";
        assert_eq!(
            Credentials::from_profile(text, "default").unwrap().secret,
            "B"
        );
        let o = Credentials::from_profile(text, "other").unwrap();
        assert_eq!((o.key_id.as_str(), o.token.as_deref()), ("C", Some("T")));
        assert!(Credentials::from_profile(text, "missing").is_none());
    }

    #[test]
    fn hdfs_and_ime_are_refused_with_a_reason_and_an_alternative() {
        for api in ["HDFS", "ime"] {
            let e = refusal(api).unwrap();
            assert!(
                e.contains("POSIX") && e.contains("S3") && !e.contains('\n'),
                "{e}"
            );
        }
        assert!(refusal("S3").is_none());
    }
}
