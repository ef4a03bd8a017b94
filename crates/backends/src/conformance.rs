//! The conformance suite every backend passes. Each check takes the backend
//! and a scratch directory; what differs between backends is passed in as
//! [`Expect`], never hidden. A backend's test calls [`run_all`].

use crate::{AlignedBuffer, Backend, Completion, ErrorKind, FileHandle, IoOp, OpenMode};
use std::path::Path;

/// What a backend is expected to support.
#[derive(Clone, Copy, Debug)]
pub struct Expect {
    /// Data written can be read back (false for DUMMY).
    pub stores_data: bool,
    /// Directory operations work.
    pub metadata: bool,
    /// Missing files are reported as NotFound.
    pub reports_missing: bool,
    /// stat() of a file is the bytes written (false for container formats
    /// such as HDF5, whose files also hold metadata; their handles' size()
    /// is still the data size).
    pub stat_size_is_data: bool,
}

fn pattern(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt))
        .collect()
}

fn aligned(len: usize, align: usize) -> (Vec<u8>, usize) {
    let buf = vec![0u8; len + align];
    let start = buf.as_ptr().align_offset(align.max(1));
    (buf, start)
}

/// Create, write, sync, close; reopen, read back, size; delete.
pub fn write_read_roundtrip(b: &dyn Backend, dir: &Path, expect: Expect) -> Result<(), String> {
    let align = b.capabilities().alignment.max(1) as usize;
    let len = 4 * 4096;
    let path = dir.join("roundtrip");
    let data = pattern(len, 7);
    let (mut wbuf, ws) = aligned(len, align);
    wbuf[ws..ws + len].copy_from_slice(&data);
    let mut f = b
        .open(&path, OpenMode::WRITE_CREATE)
        .map_err(|e| e.to_string())?;
    let mut done = 0;
    while done < len {
        let n = f
            .write_at(&wbuf[ws + done..ws + len], done as u64)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("write returned 0".into());
        }
        done += n;
    }
    f.sync().map_err(|e| e.to_string())?;
    f.close().map_err(|e| e.to_string())?;
    let st = b.stat(&path).map_err(|e| e.to_string())?;
    if expect.stores_data && expect.stat_size_is_data && st.size != len as u64 {
        return Err(format!("stat size {} != {}", st.size, len));
    }
    if expect.stores_data && st.size < len as u64 {
        return Err(format!("stat size {} < {} bytes written", st.size, len));
    }
    let mut f = b.open(&path, OpenMode::READ).map_err(|e| e.to_string())?;
    if expect.stores_data && f.size().map_err(|e| e.to_string())? != len as u64 {
        return Err("handle size differs".into());
    }
    let (mut rbuf, rs) = aligned(len, align);
    let mut done = 0;
    while done < len {
        let n = f
            .read_at(&mut rbuf[rs + done..rs + len], done as u64)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        done += n;
    }
    f.close().map_err(|e| e.to_string())?;
    if expect.stores_data && rbuf[rs..rs + len] != data[..] {
        return Err("data read back differs from data written".into());
    }
    b.delete(&path).map_err(|e| e.to_string())?;
    if expect.reports_missing && b.exists(&path) {
        return Err("file still exists after delete".into());
    }
    Ok(())
}

/// Reading past the end returns 0 bytes (never stale data) where data is stored.
pub fn read_past_end(b: &dyn Backend, dir: &Path, expect: Expect) -> Result<(), String> {
    if !expect.stores_data {
        return Ok(());
    }
    let align = b.capabilities().alignment.max(1) as usize;
    let path = dir.join("short");
    let (mut buf, s) = aligned(4096, align);
    let mut f = b
        .open(&path, OpenMode::WRITE_CREATE)
        .map_err(|e| e.to_string())?;
    f.write_at(&buf[s..s + 4096], 0)
        .map_err(|e| e.to_string())?;
    f.close().map_err(|e| e.to_string())?;
    let mut f = b.open(&path, OpenMode::READ).map_err(|e| e.to_string())?;
    let n = f
        .read_at(&mut buf[s..s + 4096], 4096)
        .map_err(|e| e.to_string())?;
    f.close().map_err(|e| e.to_string())?;
    b.delete(&path).map_err(|e| e.to_string())?;
    if n != 0 {
        return Err(format!("read past end returned {n} bytes"));
    }
    Ok(())
}

/// Missing paths are NotFound; creating an existing directory is AlreadyExists.
pub fn error_kinds(b: &dyn Backend, dir: &Path, expect: Expect) -> Result<(), String> {
    if !expect.reports_missing {
        return Ok(());
    }
    let missing = dir.join("no-such-file");
    match b.open(&missing, OpenMode::READ) {
        Err(e) if e.kind == ErrorKind::NotFound => {}
        Err(e) => return Err(format!("open of missing file: wrong kind {:?}", e.kind)),
        Ok(_) => return Err("open of missing file succeeded".into()),
    }
    match b.stat(&missing) {
        Err(e) if e.kind == ErrorKind::NotFound => {}
        other => return Err(format!("stat of missing file: {:?}", other.map(|_| ()))),
    }
    match b.delete(&missing) {
        Err(e) if e.kind == ErrorKind::NotFound => {}
        other => return Err(format!("delete of missing file: {:?}", other.map(|_| ()))),
    }
    if expect.metadata {
        let d = dir.join("twice");
        b.mkdir(&d).map_err(|e| e.to_string())?;
        match b.mkdir(&d) {
            Err(e) if e.kind == ErrorKind::AlreadyExists => {}
            other => return Err(format!("second mkdir: {:?}", other.map(|_| ()))),
        }
        b.rmdir(&d).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// mkdir, create a file inside, rename it, stat both names, remove all.
pub fn metadata_ops(b: &dyn Backend, dir: &Path, expect: Expect) -> Result<(), String> {
    if !expect.metadata {
        return Ok(());
    }
    let d = dir.join("meta.d");
    b.mkdir(&d).map_err(|e| e.to_string())?;
    if expect.reports_missing && !b.stat(&d).map_err(|e| e.to_string())?.is_dir {
        return Err("stat of new directory: not a directory".into());
    }
    let f = d.join("item");
    b.create_empty(&f).map_err(|e| e.to_string())?;
    let g = d.join("item.renamed");
    b.rename(&f, &g).map_err(|e| e.to_string())?;
    if expect.reports_missing {
        if b.exists(&f) {
            return Err("old name still exists after rename".into());
        }
        if b.stat(&g).map_err(|e| e.to_string())?.is_dir {
            return Err("renamed file is a directory".into());
        }
    }
    b.delete(&g).map_err(|e| e.to_string())?;
    let d2 = dir.join("meta.moved");
    b.rename(&d, &d2).map_err(|e| e.to_string())?;
    b.rmdir(&d2).map_err(|e| e.to_string())?;
    if expect.reports_missing && b.exists(&d2) {
        return Err("directory still exists after rmdir".into());
    }
    Ok(())
}

/// statfs reports a plausible capacity for real storage.
pub fn statfs(b: &dyn Backend, dir: &Path, expect: Expect) -> Result<(), String> {
    let info = b.statfs(dir).map_err(|e| e.to_string())?;
    if expect.stores_data {
        if info.total_bytes == 0 || info.free_bytes > info.total_bytes {
            return Err(format!("implausible statfs: {info:?}"));
        }
        if info.fs_type.is_empty() {
            return Err("statfs: no file-system type".into());
        }
    }
    Ok(())
}

/// Data written through `writer` reads back byte for byte through `reader`:
/// several transfers at uneven offsets with a hole between them, then the
/// whole file in one read (the hole reads as zeros). Both backends must store data.
pub fn cross_backend(writer: &dyn Backend, reader: &dyn Backend, dir: &Path) -> Result<(), String> {
    let path = dir.join(format!("cross-{}-{}", writer.name(), reader.name()));
    let pieces: [(u64, usize, u8); 3] = [(0, 5000, 1), (5000, 3000, 2), (12288, 4096, 3)];
    let total = 12288 + 4096;
    let mut expected = vec![0u8; total];
    let mut f = writer
        .open(&path, OpenMode::WRITE_CREATE)
        .map_err(|e| format!("{}: {e}", writer.name()))?;
    for (off, len, salt) in pieces {
        let data = pattern(len, salt);
        let n = f
            .write_at(&data, off)
            .map_err(|e| format!("{}: {e}", writer.name()))?;
        if n != len {
            return Err(format!("{}: short write {n} of {len}", writer.name()));
        }
        expected[off as usize..off as usize + len].copy_from_slice(&data);
    }
    f.sync().map_err(|e| e.to_string())?;
    f.close().map_err(|e| e.to_string())?;
    let mut r = reader
        .open(&path, OpenMode::READ)
        .map_err(|e| format!("{}: {e}", reader.name()))?;
    let size = r.size().map_err(|e| e.to_string())?;
    let mut got = vec![0xEEu8; total + 100];
    let mut done = 0;
    while done < got.len() {
        let n = r
            .read_at(&mut got[done..], done as u64)
            .map_err(|e| format!("{}: {e}", reader.name()))?;
        if n == 0 {
            break;
        }
        done += n;
    }
    // A piece read on its own, at its offset.
    let mut piece = vec![0u8; 3000];
    let n = r.read_at(&mut piece, 5000).map_err(|e| e.to_string())?;
    r.close().map_err(|e| e.to_string())?;
    reader.delete(&path).map_err(|e| e.to_string())?;
    if size != total as u64 || done != total {
        return Err(format!(
            "{} -> {}: size {size}, read {done}, expected {total}",
            writer.name(),
            reader.name()
        ));
    }
    if got[..total] != expected[..] || n != 3000 || piece[..] != expected[5000..8000] {
        return Err(format!(
            "{} -> {}: data read back differs",
            writer.name(),
            reader.name()
        ));
    }
    Ok(())
}

/// Collect completions until `n` arrived; `complete` must make progress
/// whenever operations are outstanding.
fn collect(f: &mut dyn FileHandle, n: usize, got: &mut Vec<Completion>) -> Result<(), String> {
    while got.len() < n {
        let before = got.len();
        f.complete(n - before, got).map_err(|e| e.to_string())?;
        if got.len() == before {
            return Err(format!(
                "complete({}) returned nothing with operations outstanding",
                n - before
            ));
        }
    }
    if got.len() > n {
        return Err(format!("{} completions for {n} operations", got.len()));
    }
    Ok(())
}

/// Tags of [`async_roundtrip`]'s edge operations: the read across the end
/// of the file, the empty read, the operation longer than its buffer.
const TAIL_TAG: u64 = 1000;
const EMPTY_TAG: u64 = 1001;
const BAD_TAG: u64 = 1002;

/// Submit a file's worth of operations, more than the backend's queue
/// depth, through `submit`/`complete`, in an order that is not the file's;
/// check every completion (each tag once, full transfers), the size, the
/// data read back the same way, a read across the end of the file (short,
/// with the bytes there), an empty operation, an operation longer than its
/// buffer (refused, given back), and `complete` with nothing outstanding.
pub fn async_roundtrip(b: &dyn Backend, dir: &Path, expect: Expect) -> Result<(), String> {
    let depth = b.capabilities().queue_depth.max(1) as usize;
    let bs = 8192usize;
    let n = 2 * depth + 3;
    let path = dir.join("async");
    async_write(b, &path, depth, bs, n)?;
    let total = (n * bs) as u64;
    if expect.stores_data && expect.stat_size_is_data {
        let st = b.stat(&path).map_err(|e| e.to_string())?;
        if st.size != total {
            return Err(format!("stat size {} != {total}", st.size));
        }
    }
    let mut f = b.open(&path, OpenMode::READ).map_err(|e| e.to_string())?;
    let mut got = Vec::new();
    for (k, i) in (0..n).rev().enumerate() {
        let mut buf = f.alloc_buffer(bs);
        buf.as_mut_slice().fill(0xEE);
        let op = IoOp {
            write: false,
            offset: (i * bs) as u64,
            buf,
            len: bs,
            tag: i as u64,
        };
        f.submit(op)
            .map_err(|(e, _)| format!("submit read {i}: {e}"))?;
        if k % depth == depth - 1 {
            f.complete(1, &mut got).map_err(|e| e.to_string())?;
        }
    }
    submit_edge_reads(f.as_mut(), bs, n)?;
    collect(f.as_mut(), n + 2, &mut got)?;
    check_reads(&got, bs, n, expect)?;
    let mut none = Vec::new();
    f.complete(4, &mut none).map_err(|e| e.to_string())?;
    if !none.is_empty() {
        return Err(format!(
            "{} completions with nothing outstanding",
            none.len()
        ));
    }
    f.close().map_err(|e| e.to_string())?;
    b.delete(&path).map_err(|e| e.to_string())?;
    Ok(())
}

/// [`async_roundtrip`]'s writes: `n` blocks of `bs` bytes, evens ascending
/// then odds descending, completing now and then; each must complete once,
/// in full.
fn async_write(
    b: &dyn Backend,
    path: &Path,
    depth: usize,
    bs: usize,
    n: usize,
) -> Result<(), String> {
    let order: Vec<usize> = (0..n).step_by(2).chain((1..n).step_by(2).rev()).collect();
    let mut f = b
        .open(path, OpenMode::WRITE_CREATE)
        .map_err(|e| e.to_string())?;
    let mut got = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let mut buf = f.alloc_buffer(bs);
        if buf.len() != bs || (buf.as_ptr() as usize) & (crate::BUFFER_ALIGN - 1) != 0 {
            return Err(format!("alloc_buffer({bs}) gave {buf:?}"));
        }
        buf.as_mut_slice().copy_from_slice(&pattern(bs, i as u8));
        let op = IoOp {
            write: true,
            offset: (i * bs) as u64,
            buf,
            len: bs,
            tag: i as u64,
        };
        f.submit(op)
            .map_err(|(e, _)| format!("submit write {i}: {e}"))?;
        // Make progress now and then, as an engine keeping the queue full does.
        if k % depth == depth - 1 {
            f.complete(1, &mut got).map_err(|e| e.to_string())?;
        }
    }
    collect(f.as_mut(), n, &mut got)?;
    let mut seen = vec![false; n];
    for c in &got {
        let i = c.tag as usize;
        match &c.result {
            Ok(len) if *len == bs && i < n && !seen[i] => seen[i] = true,
            other => return Err(format!("write completion {}: {other:?}", c.tag)),
        }
    }
    f.sync().map_err(|e| e.to_string())?;
    f.close().map_err(|e| e.to_string())
}

/// The edge operations: a read across the end of the file (the last block
/// is there, the next is not), an empty read, and an operation longer than
/// its buffer, which must be refused and given back.
fn submit_edge_reads(f: &mut dyn FileHandle, bs: usize, n: usize) -> Result<(), String> {
    let tail = IoOp {
        write: false,
        offset: ((n - 1) * bs) as u64,
        buf: f.alloc_buffer(2 * bs),
        len: 2 * bs,
        tag: TAIL_TAG,
    };
    f.submit(tail)
        .map_err(|(e, _)| format!("submit tail read: {e}"))?;
    let empty = IoOp {
        write: false,
        offset: 0,
        buf: AlignedBuffer::new(0),
        len: 0,
        tag: EMPTY_TAG,
    };
    f.submit(empty)
        .map_err(|(e, _)| format!("submit empty read: {e}"))?;
    let bad = IoOp {
        write: false,
        offset: 0,
        buf: AlignedBuffer::new(bs),
        len: bs + 1,
        tag: BAD_TAG,
    };
    match f.submit(bad) {
        Err((e, op)) if e.kind == ErrorKind::InvalidInput && op.tag == BAD_TAG => Ok(()),
        Err((e, op)) => Err(format!("too-long op: {:?} {e} (tag {})", e.kind, op.tag)),
        Ok(()) => Err("an operation longer than its buffer was accepted".into()),
    }
}

/// Every read completion: each block once, in full, with the data written;
/// the tail read short with the last block; the empty read empty.
fn check_reads(got: &[Completion], bs: usize, n: usize, expect: Expect) -> Result<(), String> {
    let mut seen = vec![false; n];
    for c in got {
        let len = c
            .result
            .as_ref()
            .map_err(|e| format!("read {}: {e}", c.tag))?;
        match c.tag {
            TAIL_TAG => {
                if expect.stores_data
                    && (*len != bs || c.buf.as_slice()[..bs] != pattern(bs, (n - 1) as u8)[..])
                {
                    return Err(format!("read across the end: {len} bytes, expected {bs}"));
                }
            }
            EMPTY_TAG => {
                if *len != 0 {
                    return Err(format!("empty read returned {len}"));
                }
            }
            t if (t as usize) < n && !seen[t as usize] => {
                let i = t as usize;
                seen[i] = true;
                if *len != bs {
                    return Err(format!("read {i}: {len} of {bs} bytes"));
                }
                if expect.stores_data && c.buf.as_slice() != &pattern(bs, i as u8)[..] {
                    return Err(format!("read {i}: data differs from data written"));
                }
            }
            t => return Err(format!("unexpected completion tag {t}")),
        }
    }
    Ok(())
}

/// Run every check; returns the failures as "check: reason".
pub fn run_all(b: &dyn Backend, dir: &Path, expect: Expect) -> Vec<String> {
    type Check = fn(&dyn Backend, &Path, Expect) -> Result<(), String>;
    let checks: [(&str, Check); 6] = [
        ("write_read_roundtrip", write_read_roundtrip),
        ("read_past_end", read_past_end),
        ("error_kinds", error_kinds),
        ("metadata_ops", metadata_ops),
        ("statfs", statfs),
        ("async_roundtrip", async_roundtrip),
    ];
    checks
        .iter()
        .filter_map(|(name, check)| check(b, dir, expect).err().map(|e| format!("{name}: {e}")))
        .collect()
}
