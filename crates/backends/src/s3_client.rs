//! The S3 backend's client side (feature `s3`): the [`S3Backend`] with its
//! runtime and one `object_store` client per bucket, and the open objects
//! ([`S3File`]): ranged GETs in flight for reads, chunks gathered into
//! multipart parts for writes (see [`crate::s3`] for the mapping).
//!
//! A shared object is written by every rank: at open rank 0 starts the
//! multipart upload and broadcasts its id; each rank uploads the parts of
//! its own blocks; at close each rank but 0 leaves the ids of its parts in
//! a small object beside the target (`<key>.pario-upload-<id>/<rank>`), and
//! rank 0 gathers them (waiting at most `--s3.timeout`), completes the
//! upload and removes them. The server is the meeting point because a file
//! handle cannot keep the communicator after its open.

use crate::s3::{chunk_size, Credentials, ObjectName, S3Options};
use crate::{AlignedBuffer, Backend};
use crate::{
    BackendError, Capabilities, Completion, CompletionQueue, ErrorKind, FileHandle, FileStat,
    FsInfo, IoOp, OpenContext, OpenMode,
};
use futures::StreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::multipart::MultipartStore;
use object_store::path::Path as OPath;
use object_store::{ClientOptions, ObjectStore, PutPayload, RetryConfig};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

/// Name of the marker object of a directory made by mkdir.
pub const DIR_MARKER: &str = ".pario-dir";

/// What every request of one bucket needs.
#[derive(Clone)]
pub(crate) struct Conn {
    pub(crate) rt: Arc<Runtime>,
    pub(crate) store: Arc<AmazonS3>,
    /// Where requests go, for messages.
    pub(crate) endpoint: String,
}

impl Conn {
    /// A BackendError naming the object, the endpoint and the server's answer.
    pub(crate) fn err(
        &self,
        op: &'static str,
        name: &ObjectName,
        e: object_store::Error,
    ) -> BackendError {
        let kind = match &e {
            object_store::Error::NotFound { .. } => ErrorKind::NotFound,
            object_store::Error::AlreadyExists { .. } => ErrorKind::AlreadyExists,
            object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. } => ErrorKind::PermissionDenied,
            object_store::Error::NotSupported { .. } => ErrorKind::NotSupported,
            _ => ErrorKind::Other,
        };
        let detail = format!("{} (endpoint {})", one_line(&e.to_string()), self.endpoint);
        BackendError::new(kind, op, Path::new(&name.to_string()), detail)
    }
}

/// An error text on one line; a server's XML error body is cut down to
/// its code and message.
pub(crate) fn one_line(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let between = |a: &str, b: &str| {
        let from = s.find(a)? + a.len();
        let to = s[from..].find(b)? + from;
        Some(s[from..to].to_string())
    };
    match (
        between("<Code>", "</Code>"),
        s.find("<?xml").or(s.find("<Error>")),
    ) {
        (Some(code), Some(at)) => {
            let message = between("<Message>", "</Message>").unwrap_or_default();
            format!("{}{code}: {message}", &s[..at])
                .trim_end()
                .to_string()
        }
        _ => s,
    }
}

/// The S3 backend: options, credentials, this rank's runtime and one
/// client per bucket (made and checked on first use).
pub struct S3Backend {
    options: S3Options,
    creds: Option<Credentials>,
    endpoint: Option<String>,
    region: String,
    rt: Arc<Runtime>,
    clients: Mutex<HashMap<String, Conn>>,
}

impl S3Backend {
    /// With the credentials of the environment or profile file.
    pub fn new(options: S3Options) -> Result<S3Backend, String> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let creds = Credentials::find(env).map_err(|e| format!("-a S3: credentials: {e}"))?;
        Self::with_credentials(options, creds)
    }

    /// With these credentials (None: unsigned requests).
    pub fn with_credentials(
        options: S3Options,
        creds: Option<Credentials>,
    ) -> Result<S3Backend, String> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let endpoint = options
            .endpoint
            .clone()
            .or_else(|| env("AWS_ENDPOINT_URL").or_else(|| env("AWS_ENDPOINT")));
        let region = options
            .region
            .clone()
            .or_else(|| env("AWS_REGION").or_else(|| env("AWS_DEFAULT_REGION")))
            .unwrap_or_else(|| "us-east-1".into());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("-a S3: cannot start the I/O runtime: {e}"))?;
        Ok(S3Backend {
            options,
            creds,
            endpoint,
            region,
            rt: Arc::new(rt),
            clients: Mutex::default(),
        })
    }

    fn name(&self, path: &Path) -> Result<ObjectName, BackendError> {
        ObjectName::parse(&path.to_string_lossy(), self.options.bucket.as_deref())
            .map_err(|e| BackendError::new(ErrorKind::InvalidInput, "open", path, e))
    }

    /// The client of `bucket`; the first use checks endpoint, credentials
    /// and bucket with one listing, so that each fails with its own message.
    pub(crate) fn conn(&self, name: &ObjectName) -> Result<Conn, BackendError> {
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = clients.get(&name.bucket) {
            return Ok(c.clone());
        }
        let conn = self.connect(name)?;
        let probe = conn.rt.block_on(async {
            let prefix = OPath::from(".pario-probe");
            conn.store.list(Some(&prefix)).next().await
        });
        if let Some(Err(e)) = probe {
            let bucket = ObjectName {
                bucket: name.bucket.clone(),
                key: String::new(),
            };
            return Err(conn.err("open", &bucket, e));
        }
        clients.insert(name.bucket.clone(), conn.clone());
        Ok(conn)
    }

    fn connect(&self, name: &ObjectName) -> Result<Conn, BackendError> {
        let timeout = Duration::from_secs(self.options.timeout_s);
        let mut client = ClientOptions::new()
            .with_timeout(timeout)
            .with_connect_timeout(timeout.min(Duration::from_secs(5)));
        let mut b = AmazonS3Builder::new()
            .with_bucket_name(&name.bucket)
            .with_region(&self.region)
            .with_retry(RetryConfig {
                max_retries: 2,
                retry_timeout: timeout,
                ..RetryConfig::default()
            });
        // Path-style by default on a given endpoint (on-premises servers
        // rarely resolve bucket host names), virtual-hosted on AWS.
        let path_style = self.options.path_style.unwrap_or(self.endpoint.is_some());
        b = b.with_virtual_hosted_style_request(!path_style);
        if let Some(ep) = &self.endpoint {
            client = client.with_allow_http(ep.starts_with("http://"));
            b = b.with_endpoint(ep);
        }
        b = match &self.creds {
            Some(c) => {
                let b = b
                    .with_access_key_id(&c.key_id)
                    .with_secret_access_key(&c.secret);
                match &c.token {
                    Some(t) => b.with_token(t),
                    None => b,
                }
            }
            None => b.with_skip_signature(true),
        };
        let endpoint = self
            .endpoint
            .clone()
            .unwrap_or_else(|| format!("AWS {}", self.region));
        let store = b.with_client_options(client).build().map_err(|e| {
            BackendError::new(
                ErrorKind::InvalidInput,
                "open",
                Path::new(&name.to_string()),
                format!("{} (endpoint {endpoint})", one_line(&e.to_string())),
            )
        })?;
        Ok(Conn {
            rt: self.rt.clone(),
            store: Arc::new(store),
            endpoint,
        })
    }

    /// HEAD of `key`: its size, or None when there is no such object.
    fn head(&self, c: &Conn, n: &ObjectName, key: &str) -> Result<Option<u64>, BackendError> {
        match c.rt.block_on(c.store.head(&OPath::from(key))) {
            Ok(m) => Ok(Some(m.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(c.err("stat", n, e)),
        }
    }

    fn put_empty(&self, op: &'static str, c: &Conn, n: &ObjectName, key: &str) -> BResult<()> {
        c.rt.block_on(c.store.put(&OPath::from(key), PutPayload::new()))
            .map(drop)
            .map_err(|e| c.err(op, n, e))
    }
}

type BResult<T> = Result<T, BackendError>;

impl S3Backend {
    /// An object open for writing. The ranks of a shared object agree that
    /// each could prepare it before the collective start, so that one
    /// rank's refusal never leaves the others waiting.
    fn open_writer(&self, name: &ObjectName, ctx: &OpenContext<'_>) -> BResult<Writer> {
        let (part, timeout) = (self.options.part_size, self.options.timeout_s);
        let planned = self
            .conn(name)
            .and_then(|c| Writer::open(c, name.clone(), ctx, part, timeout));
        let Some(comm) = ctx.comm.filter(|c| ctx.shared && c.size() > 1) else {
            return planned;
        };
        if !comm.all_true(planned.is_ok()) {
            return Err(planned.err().unwrap_or_else(|| {
                let e = "another rank could not open it";
                BackendError::new(ErrorKind::Other, "open", Path::new(&name.to_string()), e)
            }));
        }
        let mut w = planned?;
        w.start_shared(comm)?;
        Ok(w)
    }
}

fn marker(key: &str) -> String {
    if key.is_empty() {
        DIR_MARKER.to_string()
    } else {
        format!("{key}/{DIR_MARKER}")
    }
}

impl Backend for S3Backend {
    fn name(&self) -> &'static str {
        "S3"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            metadata: true,
            collective_open: true,
            queue_depth: self.options.queue_depth,
            ..Capabilities::default()
        }
    }
    fn open_with(
        &self,
        path: &Path,
        mode: OpenMode,
        ctx: &OpenContext<'_>,
    ) -> BResult<Box<dyn FileHandle>> {
        let name = self.name(path)?;
        if name.key.is_empty() {
            let e = "names a bucket, not an object";
            return Err(BackendError::new(ErrorKind::InvalidInput, "open", path, e));
        }
        let depth = self.options.queue_depth as usize;
        if mode.write {
            let w = self.open_writer(&name, ctx)?;
            return Ok(Box::new(S3File::new(
                w.conn.clone(),
                w.name.clone(),
                depth,
                Mode::Write(Box::new(w)),
            )));
        }
        let conn = self.conn(&name)?;
        let size = self.head(&conn, &name, &name.key)?.ok_or_else(|| {
            BackendError::new(
                ErrorKind::NotFound,
                "open",
                Path::new(&name.to_string()),
                "no such object",
            )
        })?;
        Ok(Box::new(S3File::new(
            conn,
            name,
            depth,
            Mode::Read { size },
        )))
    }
    fn delete(&self, path: &Path) -> BResult<()> {
        let n = self.name(path)?;
        let c = self.conn(&n)?;
        if self.head(&c, &n, &n.key)?.is_none() {
            return Err(BackendError::new(
                ErrorKind::NotFound,
                "delete",
                Path::new(&n.to_string()),
                "no such object",
            ));
        }
        c.rt.block_on(c.store.delete(&OPath::from(n.key.as_str())))
            .map_err(|e| c.err("delete", &n, e))
    }
    fn stat(&self, path: &Path) -> BResult<FileStat> {
        let n = self.name(path)?;
        let c = self.conn(&n)?;
        if n.key.is_empty() {
            return Ok(FileStat {
                size: 0,
                is_dir: true,
                is_file: false,
            });
        }
        if let Some(size) = self.head(&c, &n, &n.key)? {
            return Ok(FileStat {
                size,
                is_dir: false,
                is_file: false,
            });
        }
        if self.head(&c, &n, &marker(&n.key))?.is_some() {
            return Ok(FileStat {
                size: 0,
                is_dir: true,
                is_file: false,
            });
        }
        // A prefix with objects under it is a directory too.
        let prefix = OPath::from(n.key.as_str());
        match c
            .rt
            .block_on(async { c.store.list(Some(&prefix)).next().await })
        {
            Some(Ok(_)) => Ok(FileStat {
                size: 0,
                is_dir: true,
                is_file: false,
            }),
            Some(Err(e)) => Err(c.err("stat", &n, e)),
            None => Err(BackendError::new(
                ErrorKind::NotFound,
                "stat",
                Path::new(&n.to_string()),
                "no such object or prefix",
            )),
        }
    }
    fn mkdir(&self, path: &Path) -> BResult<()> {
        let n = self.name(path)?;
        let c = self.conn(&n)?;
        let m = marker(&n.key);
        if n.key.is_empty() || self.head(&c, &n, &m)?.is_some() {
            return Err(BackendError::new(
                ErrorKind::AlreadyExists,
                "mkdir",
                Path::new(&n.to_string()),
                "directory exists",
            ));
        }
        self.put_empty("mkdir", &c, &n, &m)
    }
    fn rmdir(&self, path: &Path) -> BResult<()> {
        let n = self.name(path)?;
        let c = self.conn(&n)?;
        let m = marker(&n.key);
        if self.head(&c, &n, &m)?.is_none() {
            return Err(BackendError::new(
                ErrorKind::NotFound,
                "rmdir",
                Path::new(&n.to_string()),
                "no such directory",
            ));
        }
        c.rt.block_on(c.store.delete(&OPath::from(m)))
            .map_err(|e| c.err("rmdir", &n, e))
    }
    fn rename(&self, from: &Path, _to: &Path) -> BResult<()> {
        Err(BackendError::new(
            ErrorKind::NotSupported,
            "rename",
            from,
            "S3 has no rename (objects would have to be copied and deleted)",
        ))
    }
    fn statfs(&self, _path: &Path) -> BResult<FsInfo> {
        // An object store has no capacity to ask for: ones, as upstream reports.
        Ok(FsInfo {
            total_bytes: 1,
            free_bytes: 1,
            total_inodes: 1,
            free_inodes: 1,
            fs_type: "s3".into(),
            mount_options: String::new(),
        })
    }
    fn create_empty(&self, path: &Path) -> BResult<()> {
        let n = self.name(path)?;
        let c = self.conn(&n)?;
        self.put_empty("create", &c, &n, &n.key)
    }
    fn api_version(&self) -> String {
        "object_store 0.12".into()
    }
}

/// What an open object is doing.
enum Mode {
    Read { size: u64 },
    Write(Box<Writer>),
}

/// A transfer in flight: its operation's buffer and the request.
struct InFlight {
    tag: u64,
    buf: AlignedBuffer,
    task: JoinHandle<Result<bytes::Bytes, object_store::Error>>,
}

/// An open object.
pub(crate) struct S3File {
    conn: Conn,
    name: ObjectName,
    depth: usize,
    mode: Mode,
    reads: VecDeque<InFlight>,
    done: CompletionQueue,
}

impl S3File {
    fn new(conn: Conn, name: ObjectName, depth: usize, mode: Mode) -> S3File {
        S3File {
            conn,
            name,
            depth: depth.max(1),
            mode,
            reads: VecDeque::new(),
            done: CompletionQueue::default(),
        }
    }

    /// Wait for the oldest read in flight and queue its completion.
    fn finish_read(&mut self) {
        let Some(f) = self.reads.pop_front() else {
            return;
        };
        let mut buf = f.buf;
        let result = match self.conn.rt.block_on(f.task) {
            Ok(Ok(bytes)) => {
                buf.as_mut_slice()[..bytes.len()].copy_from_slice(&bytes);
                Ok(bytes.len())
            }
            Ok(Err(e)) => Err(self.conn.err("read", &self.name, e)),
            Err(e) => Err(BackendError::new(
                ErrorKind::Other,
                "read",
                Path::new(&self.name.to_string()),
                e.to_string(),
            )),
        };
        self.done.push(Completion {
            tag: f.tag,
            result,
            buf,
        });
    }

    /// Start a ranged GET of `len` bytes at `offset` (clipped to the object).
    fn start_read(&mut self, size: u64, op: IoOp) {
        while self.reads.len() >= self.depth {
            self.finish_read();
        }
        let end = (op.offset + op.len as u64).min(size);
        if op.offset >= end {
            self.done.push(Completion {
                tag: op.tag,
                result: Ok(0),
                buf: op.buf,
            });
            return;
        }
        let store = self.conn.store.clone();
        let key = OPath::from(self.name.key.as_str());
        let range = op.offset..end;
        let task = self
            .conn
            .rt
            .spawn(async move { store.get_range(&key, range).await });
        self.reads.push_back(InFlight {
            tag: op.tag,
            buf: op.buf,
            task,
        });
    }

    fn writer(&mut self, op: &'static str) -> BResult<&mut Writer> {
        match &mut self.mode {
            Mode::Write(w) => Ok(w),
            Mode::Read { .. } => Err(BackendError::new(
                ErrorKind::InvalidInput,
                op,
                Path::new(&self.name.to_string()),
                "object opened for reading",
            )),
        }
    }
}

impl FileHandle for S3File {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> BResult<usize> {
        let depth = self.depth;
        self.writer("write")?.write(buf, offset, depth)?;
        Ok(buf.len())
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> BResult<usize> {
        let Mode::Read { size } = self.mode else {
            let e = "object opened for writing";
            return Err(BackendError::new(
                ErrorKind::InvalidInput,
                "read",
                Path::new(&self.name.to_string()),
                e,
            ));
        };
        let end = (offset + buf.len() as u64).min(size);
        if offset >= end {
            return Ok(0);
        }
        let key = OPath::from(self.name.key.as_str());
        let bytes = self
            .conn
            .rt
            .block_on(self.conn.store.get_range(&key, offset..end))
            .map_err(|e| self.conn.err("read", &self.name, e))?;
        buf[..bytes.len()].copy_from_slice(&bytes);
        Ok(bytes.len())
    }
    fn sync(&mut self) -> BResult<()> {
        Ok(()) // an object is durable once its upload completes (at close)
    }
    fn size(&mut self) -> BResult<u64> {
        Ok(match &self.mode {
            Mode::Read { size } => *size,
            Mode::Write(w) => w.extent,
        })
    }
    fn close(mut self: Box<Self>) -> BResult<()> {
        while !self.reads.is_empty() {
            self.finish_read();
        }
        let mut left = Vec::new();
        self.done.drain_into(&mut left);
        let first = left.into_iter().find_map(|c| c.result.err());
        let depth = self.depth;
        if let Mode::Write(w) = self.mode {
            w.finish(depth)?;
        }
        first.map_or(Ok(()), Err)
    }
    fn completion_queue(&mut self) -> Option<&mut CompletionQueue> {
        Some(&mut self.done)
    }
    fn submit(&mut self, op: IoOp) -> Result<(), (BackendError, IoOp)> {
        if op.len > op.buf.len() {
            let e = crate::op_too_long(&op, Path::new(&self.name.to_string()));
            return Err((e, op));
        }
        match &mut self.mode {
            Mode::Read { size } => {
                let size = *size;
                self.start_read(size, op);
            }
            Mode::Write(w) => {
                let result = w
                    .write(&op.buf.as_slice()[..op.len], op.offset, self.depth)
                    .map(|()| op.len);
                self.done.push(Completion {
                    tag: op.tag,
                    result,
                    buf: op.buf,
                });
            }
        }
        Ok(())
    }
    fn complete(&mut self, min: usize, out: &mut Vec<Completion>) -> BResult<()> {
        while self.done.len() < min && !self.reads.is_empty() {
            self.finish_read();
        }
        while self.reads.front().is_some_and(|f| f.task.is_finished()) {
            self.finish_read();
        }
        self.done.drain_into(out);
        Ok(())
    }
}

/// How a written object reaches the server.
enum Upload {
    /// Everything gathered in memory and PUT at close (no layout known, or
    /// the object fits in one part).
    Whole(Vec<u8>),
    /// A multipart upload: parts of `chunk` bytes (the last may be shorter).
    Parts(Parts),
}

/// The parts of a multipart upload this rank writes.
struct Parts {
    chunk: u64,
    file_size: u64,
    /// The upload, once started (at open for a shared object).
    id: Option<String>,
    /// Chunks being filled: index → (bytes, bytes received).
    filling: BTreeMap<u64, (Vec<u8>, u64)>,
    sending: VecDeque<(
        usize,
        JoinHandle<Result<object_store::PutResult, object_store::Error>>,
    )>,
    sent: Vec<(usize, String)>,
    /// Ranks of a shared object and this rank's, for the gathering at close.
    ranks: Option<(u32, u32)>,
}

/// An object open for writing.
struct Writer {
    conn: Conn,
    name: ObjectName,
    upload: Upload,
    extent: u64,
    failed: Option<String>,
    timeout_s: u64,
}

impl Writer {
    fn open(
        conn: Conn,
        name: ObjectName,
        ctx: &OpenContext<'_>,
        part: u64,
        timeout_s: u64,
    ) -> BResult<Writer> {
        let bad = |e: String| {
            BackendError::new(
                ErrorKind::InvalidInput,
                "open",
                Path::new(&name.to_string()),
                e,
            )
        };
        let layout = ctx.layout.filter(|l| l.file_size() > 0);
        let upload = match layout {
            None => Upload::Whole(Vec::new()),
            Some(l) => {
                let shared = ctx.shared && l.num_tasks > 1;
                let file_size = l.file_size();
                let chunk = chunk_size(file_size, l.block_size, l.transfer_size, part, shared)
                    .map_err(bad)?;
                if chunk >= file_size && !shared {
                    Upload::Whole(Vec::with_capacity(file_size as usize))
                } else {
                    Upload::Parts(Parts {
                        chunk,
                        file_size,
                        id: None,
                        filling: BTreeMap::new(),
                        sending: VecDeque::new(),
                        sent: Vec::new(),
                        ranks: None,
                    })
                }
            }
        };
        Ok(Writer {
            conn,
            name,
            upload,
            extent: 0,
            failed: None,
            timeout_s,
        })
    }

    /// Collective over the ranks writing a shared object: rank 0 starts the
    /// multipart upload and broadcasts its id (empty: it failed).
    fn start_shared(&mut self, comm: &dyn pario_comm::Comm) -> BResult<()> {
        let Upload::Parts(p) = &mut self.upload else {
            return Ok(());
        };
        let mut id = Vec::new();
        let mut err = None;
        if comm.rank() == 0 {
            let key = OPath::from(self.name.key.as_str());
            match self
                .conn
                .rt
                .block_on(self.conn.store.create_multipart(&key))
            {
                Ok(i) => id = i.into_bytes(),
                Err(e) => err = Some(self.conn.err("open", &self.name, e)),
            }
        }
        comm.broadcast_bytes(0, &mut id);
        if let Some(e) = err {
            return Err(e);
        }
        if id.is_empty() {
            let e = "rank 0 could not start the multipart upload";
            let path = self.name.to_string();
            return Err(BackendError::new(
                ErrorKind::Other,
                "open",
                Path::new(&path),
                e,
            ));
        }
        p.id = Some(String::from_utf8_lossy(&id).into_owned());
        p.ranks = Some((comm.size(), comm.rank()));
        Ok(())
    }

    /// Take `buf` written at `offset`: into memory, or into chunks that are
    /// uploaded as parts once full (at most `depth` uploads in flight).
    fn write(&mut self, buf: &[u8], offset: u64, depth: usize) -> BResult<()> {
        if let Some(e) = &self.failed {
            return Err(BackendError::new(
                ErrorKind::Other,
                "write",
                Path::new(&self.name.to_string()),
                e.clone(),
            ));
        }
        self.extent = self.extent.max(offset + buf.len() as u64);
        let p = match &mut self.upload {
            Upload::Whole(data) => {
                let end = offset as usize + buf.len();
                if data.len() < end {
                    data.resize(end, 0);
                }
                data[offset as usize..end].copy_from_slice(buf);
                return Ok(());
            }
            Upload::Parts(p) => p,
        };
        if offset + buf.len() as u64 > p.file_size {
            let e = format!("write beyond the planned object size {}", p.file_size);
            return Err(BackendError::new(
                ErrorKind::InvalidInput,
                "write",
                Path::new(&self.name.to_string()),
                e,
            ));
        }
        let mut at = 0usize;
        let mut full = Vec::new();
        while at < buf.len() {
            let pos = offset + at as u64;
            let idx = pos / p.chunk;
            let start = idx * p.chunk;
            let len = p.chunk.min(p.file_size - start);
            let (data, got) = p
                .filling
                .entry(idx)
                .or_insert_with(|| (vec![0; len as usize], 0));
            let n = ((start + len - pos) as usize).min(buf.len() - at);
            data[(pos - start) as usize..(pos - start) as usize + n]
                .copy_from_slice(&buf[at..at + n]);
            *got += n as u64;
            if *got >= len {
                full.push(idx);
            }
            at += n;
        }
        for idx in full {
            self.send_part(idx, depth)?;
        }
        Ok(())
    }

    fn send_part(&mut self, idx: u64, depth: usize) -> BResult<()> {
        let Upload::Parts(p) = &mut self.upload else {
            return Ok(());
        };
        let key = OPath::from(self.name.key.as_str());
        if p.id.is_none() {
            let id = self
                .conn
                .rt
                .block_on(self.conn.store.create_multipart(&key));
            p.id = Some(id.map_err(|e| self.conn.err("write", &self.name, e))?);
        }
        while p.sending.len() >= depth {
            let (i, task) = p.sending.pop_front().expect("non-empty");
            let r = wait_part(&self.conn, &self.name, task)?;
            p.sent.push((i, r));
        }
        let (data, _) = p.filling.remove(&idx).expect("a full chunk");
        let store = self.conn.store.clone();
        let id = p.id.clone().unwrap_or_default();
        let task = self.conn.rt.spawn(async move {
            store
                .put_part(&key, &id, idx as usize, PutPayload::from(data))
                .await
                .map(|pid| object_store::PutResult {
                    e_tag: Some(pid.content_id),
                    version: None,
                })
        });
        p.sending.push_back((idx as usize, task));
        Ok(())
    }

    /// Upload what is left and complete the object.
    fn finish(mut self, depth: usize) -> BResult<()> {
        let store = self.conn.store.clone();
        let key = OPath::from(self.name.key.as_str());
        if let Upload::Whole(data) = &mut self.upload {
            let data = std::mem::take(data);
            let put = self
                .conn
                .rt
                .block_on(store.put(&key, PutPayload::from(data)));
            return put
                .map(drop)
                .map_err(|e| self.conn.err("close", &self.name, e));
        }
        // Chunks never filled up (a write phase cut short) go as they are;
        // a failure still lets the upload end (reported, or aborted).
        let mut failure = None;
        let rest: Vec<u64> = match &self.upload {
            Upload::Parts(p) => p.filling.keys().copied().collect(),
            Upload::Whole(_) => Vec::new(),
        };
        for idx in rest {
            if let Err(e) = self.send_part(idx, depth) {
                failure.get_or_insert(e);
            }
        }
        let Upload::Parts(p) = &mut self.upload else {
            return Ok(());
        };
        while let Some((i, task)) = p.sending.pop_front() {
            match wait_part(&self.conn, &self.name, task) {
                Ok(r) => p.sent.push((i, r)),
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
        }
        let up = crate::s3_gather::Upload {
            id: p.id.take(),
            total: p.file_size.div_ceil(p.chunk) as usize,
            ranks: p.ranks,
            timeout_s: self.timeout_s,
            failure,
        };
        crate::s3_gather::finish_parts(&self.conn, &self.name, up, std::mem::take(&mut p.sent))
    }
}

fn wait_part(
    conn: &Conn,
    name: &ObjectName,
    task: JoinHandle<Result<object_store::PutResult, object_store::Error>>,
) -> BResult<String> {
    match conn.rt.block_on(task) {
        Ok(Ok(r)) => Ok(r.e_tag.unwrap_or_default()),
        Ok(Err(e)) => Err(conn.err("write", name, e)),
        Err(e) => Err(BackendError::new(
            ErrorKind::Other,
            "write",
            Path::new(&name.to_string()),
            e.to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn server_error_bodies_shrink_to_code_and_message() {
        let raw = "Error performing GET http://h/b in 3ms - Server returned non-2xx status \
                   code: 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchBucket</Code>\
                   <Message>The specified bucket does not exist</Message><RequestId>x</RequestId></Error>";
        let line = one_line(raw);
        assert!(
            line.ends_with("404 Not Found: NoSuchBucket: The specified bucket does not exist"),
            "{line}"
        );
        assert_eq!(one_line("plain\n text"), "plain text");
    }
}
