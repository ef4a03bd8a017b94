//! Completing a multipart upload (feature `s3`). One writer completes its
//! own upload; for a shared object every rank but 0 leaves the ids of the
//! parts it uploaded in a small object `<key>.pario-upload-<id>/<rank>`,
//! and rank 0 waits for them (at most the request timeout), completes the
//! upload with every part in order and removes those objects. A part no
//! rank uploaded aborts the upload with a message naming it.

use crate::s3::ObjectName;
use crate::s3_client::Conn;
use crate::{BackendError, ErrorKind};
use futures::StreamExt;
use object_store::multipart::{MultipartStore, PartId};
use object_store::path::Path as OPath;
use object_store::{ObjectStore, PutPayload};
use std::path::Path;
use std::time::{Duration, Instant};

/// What rank 0 needs to complete an upload.
pub(crate) struct Upload {
    pub id: Option<String>,
    /// Parts the object has.
    pub total: usize,
    /// (ranks writing the object, this rank) for a shared object.
    pub ranks: Option<(u32, u32)>,
    pub timeout_s: u64,
    /// This rank's failure to upload a part: the upload is aborted (by
    /// rank 0, once every rank has reported).
    pub failure: Option<BackendError>,
}

fn other(name: &ObjectName, detail: String) -> BackendError {
    BackendError::new(
        ErrorKind::Other,
        "close",
        Path::new(&name.to_string()),
        detail,
    )
}

/// The prefix of the part lists of upload `id`.
fn meeting_prefix(key: &str, id: &str) -> String {
    let tag: String = id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(32)
        .collect();
    format!("{key}.pario-upload-{tag}")
}

fn encode(parts: &[(usize, String)]) -> String {
    parts.iter().map(|(i, e)| format!("{i} {e}\n")).collect()
}

fn decode(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .filter_map(|(i, e)| Some((i.parse().ok()?, e.to_string())))
        .collect()
}

/// Complete (rank 0 or a single writer) or report this rank's parts.
pub(crate) fn finish_parts(
    c: &Conn,
    name: &ObjectName,
    up: Upload,
    mut sent: Vec<(usize, String)>,
) -> Result<(), BackendError> {
    let key = OPath::from(name.key.as_str());
    let Some(id) = up.id else {
        if let Some(e) = up.failure {
            return Err(e);
        }
        // Nothing was ever uploaded: an empty object.
        let r = c.rt.block_on(c.store.put(&key, PutPayload::new()));
        return r.map(drop).map_err(|e| c.err("close", name, e));
    };
    if let Some((n, rank)) = up.ranks {
        let prefix = meeting_prefix(&name.key, &id);
        if rank != 0 {
            let list = OPath::from(format!("{prefix}/{rank}"));
            let r =
                c.rt.block_on(c.store.put(&list, PutPayload::from(encode(&sent))));
            return r.map(drop).map_err(|e| c.err("close", name, e));
        }
        match gather(c, name, &prefix, n, up.timeout_s) {
            Ok(more) => sent.extend(more),
            Err(e) => {
                let _ = c.rt.block_on(c.store.abort_multipart(&key, &id));
                return Err(e);
            }
        }
    }
    if let Some(e) = up.failure {
        let _ = c.rt.block_on(c.store.abort_multipart(&key, &id));
        return Err(e);
    }
    sent.sort_unstable();
    sent.dedup_by_key(|(i, _)| *i);
    if let Some(missing) = (0..up.total).find(|&i| sent.get(i).is_none_or(|(j, _)| *j != i)) {
        let _ = c.rt.block_on(c.store.abort_multipart(&key, &id));
        return Err(other(
            name,
            format!("part {} of {} was never uploaded", missing + 1, up.total),
        ));
    }
    let parts: Vec<PartId> = sent
        .into_iter()
        .map(|(_, e)| PartId { content_id: e })
        .collect();
    c.rt.block_on(c.store.complete_multipart(&key, &id, parts))
        .map(drop)
        .map_err(|e| c.err("close", name, e))
}

/// Rank 0: the part lists of ranks 1..n, removed once read.
fn gather(
    c: &Conn,
    name: &ObjectName,
    prefix: &str,
    n: u32,
    timeout_s: u64,
) -> Result<Vec<(usize, String)>, BackendError> {
    let dir = OPath::from(prefix);
    let deadline = Instant::now() + Duration::from_secs(timeout_s);
    let mut pause = Duration::from_millis(5);
    let found = loop {
        let listed: Vec<_> = c.rt.block_on(c.store.list(Some(&dir)).collect::<Vec<_>>());
        let mut metas = Vec::new();
        for m in listed {
            metas.push(m.map_err(|e| c.err("close", name, e))?);
        }
        if metas.len() + 1 >= n as usize {
            break metas;
        }
        if Instant::now() >= deadline {
            return Err(other(
                name,
                format!(
                    "only {} of {} ranks reported their parts within --s3.timeout ({timeout_s} s)",
                    metas.len() + 1,
                    n
                ),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(200));
    };
    let mut parts = Vec::new();
    for m in found {
        let got =
            c.rt.block_on(async { c.store.get(&m.location).await?.bytes().await });
        let bytes = got.map_err(|e| c.err("close", name, e))?;
        parts.extend(decode(&String::from_utf8_lossy(&bytes)));
        let _ = c.rt.block_on(c.store.delete(&m.location));
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_lists_round_trip_and_prefixes_are_key_safe() {
        let parts = vec![(0, "\"e0\"".to_string()), (7, "\"abc\"".to_string())];
        assert_eq!(decode(&encode(&parts)), parts);
        assert_eq!(meeting_prefix("a/f", "x.Y-z~1"), "a/f.pario-upload-xYz1");
    }
}
