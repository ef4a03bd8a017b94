//! Verification of transfers read back: a branch-free comparison of each 4 KiB
//! chunk against generated expected words, a slow path only for chunks that
//! differ, and writer-rank detection when the caller does not know the writer.

use crate::gen::{self, Gen, CHUNK_WORDS};
use crate::{Mismatch, PacketType, Pattern, Verification};

/// How many distinct candidate writers are tried when the rank is unknown.
const MAX_CANDIDATES: usize = 4;

#[inline(always)]
fn load(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    u64::from_le_bytes(a)
}

/// Records a bad word.
#[inline(never)]
#[cold]
fn record(
    out: &mut Verification,
    max_report: usize,
    offset: u64,
    i: u64,
    expected: u64,
    found: u64,
) {
    out.bad_words += 1;
    if out.first.len() < max_report {
        out.first.push(Mismatch {
            byte_offset_in_file: offset.wrapping_add(i.wrapping_mul(8)),
            word_index: i,
            expected,
            found,
        });
    }
}

/// Slow path for a chunk that has at least one bad word.
#[inline(never)]
#[cold]
fn report_chunk(
    out: &mut Verification,
    max_report: usize,
    offset: u64,
    start: u64,
    bytes: &[u8],
    exp: &[u64],
) {
    for (k, (b, &e)) in bytes.chunks_exact(8).zip(exp.iter()).enumerate() {
        let f = load(b);
        if f != e {
            record(out, max_report, offset, start + k as u64, e, f);
        }
    }
}

/// Checks `buf` against the transfer `rank` would have written at `offset`.
pub(crate) fn check_rank(
    buf: &[u8],
    pattern: &Pattern,
    rank: u32,
    offset: u64,
    max_report: usize,
) -> Verification {
    let mut out = Verification {
        bad_words: 0,
        first: Vec::new(),
        writer: Some(rank),
    };
    let split = buf.len() / 8 * 8;
    let (words, tail) = buf.split_at(split);

    let mut g = Gen::new(pattern, rank, offset);
    let mut scratch = [0u64; CHUNK_WORDS];
    for (n, c) in words.chunks(CHUNK_WORDS * 8).enumerate() {
        let start = (n * CHUNK_WORDS) as u64;
        let exp = &mut scratch[..c.len() / 8];
        g.words(start, exp);
        let mut acc = 0u64;
        for (b, e) in c.chunks_exact(8).zip(exp.iter()) {
            acc |= load(b) ^ e;
        }
        if acc != 0 {
            report_chunk(&mut out, max_report, offset, start, c, exp);
        }
    }

    // The tail (T mod 8 bytes) counts as one word when any of its bytes is wrong.
    if !tail.is_empty() {
        let mut expected = [0u8; 8];
        gen::fill_tail(&mut expected[..tail.len()], split);
        let mut found = [0u8; 8];
        found[..tail.len()].copy_from_slice(tail);
        if expected != found {
            record(
                &mut out,
                max_report,
                offset,
                (split / 8) as u64,
                u64::from_le_bytes(expected),
                u64::from_le_bytes(found),
            );
        }
    }
    out
}

/// Ranks below `num_tasks` whose word `i` equals `found`, appended to `cands`.
fn candidates_for_word(
    pattern: &Pattern,
    offset: u64,
    num_tasks: u32,
    i: u64,
    found: u64,
    cands: &mut Vec<u32>,
) {
    let push = |r: u64, cands: &mut Vec<u32>| {
        if r < u64::from(num_tasks) {
            let r = r as u32;
            if !cands.contains(&r) && gen::word_at(pattern, r, offset, i) == found {
                cands.push(r);
            }
        }
    };
    match pattern.packet {
        PacketType::Timestamp | PacketType::Offset => {
            // word = (R << 32) | low. When low < 2^32, R = word >> 32; when the
            // 64-bit addition S + i carried past bit 31, the carry bits may or
            // may not also be rank bits: both readings are tried.
            let low = gen::word_at(pattern, 0, offset, i);
            push(found >> 32, cands);
            push((found & !low) >> 32, cands);
        }
        PacketType::Incompressible => {
            let pre = gen::incompressible_pre_key(pattern.signature, offset);
            push(gen::incompressible_rank_of(pre, i, found), cands);
        }
        PacketType::Random => {
            // The state is not invertible to a rank: try every rank (only the
            // first few words are sampled, so this is O(num_tasks)).
            for r in 0..num_tasks {
                if cands.len() >= MAX_CANDIDATES {
                    break;
                }
                push(u64::from(r), cands);
            }
        }
    }
}

/// Checks `buf` when its writer is unknown: it must be consistent with one
/// rank below `num_tasks`.
pub(crate) fn check_any_rank(
    buf: &[u8],
    pattern: &Pattern,
    num_tasks: u32,
    offset: u64,
    max_report: usize,
) -> Verification {
    let num_tasks = num_tasks.max(1);
    let n = (buf.len() / 8) as u64;
    if n == 0 {
        // Only a tail, which does not depend on the rank.
        let mut v = check_rank(buf, pattern, 0, offset, max_report);
        v.writer = None;
        return v;
    }
    let samples: [u64; 4] = match pattern.packet {
        // The random state is serial: sampling word i costs i steps per rank.
        PacketType::Random => [0, 1, 2, 3],
        _ => [0, n - 1, n / 2, 1],
    };
    let mut cands: Vec<u32> = Vec::with_capacity(MAX_CANDIDATES);
    for (k, &i) in samples.iter().enumerate() {
        if i >= n || samples[..k].contains(&i) {
            continue;
        }
        let at = (i * 8) as usize;
        let found = load(&buf[at..at + 8]);
        candidates_for_word(pattern, offset, num_tasks, i, found, &mut cands);
        if cands.len() >= MAX_CANDIDATES {
            cands.truncate(MAX_CANDIDATES);
            break;
        }
    }

    let mut best: Option<Verification> = None;
    for &r in &cands {
        let v = check_rank(buf, pattern, r, offset, max_report);
        let better = match &best {
            None => true,
            Some(b) => v.bad_words < b.bad_words,
        };
        if better {
            let done = v.bad_words == 0;
            best = Some(v);
            if done {
                break;
            }
        }
    }
    best.unwrap_or_else(|| {
        // No sampled word belongs to any rank: compare against rank 0 so that
        // the report still shows expected values, but name no writer.
        let mut v = check_rank(buf, pattern, 0, offset, max_report);
        v.writer = None;
        if v.bad_words == 0 {
            // Cannot happen (rank 0 would have been a candidate); never pass silently.
            v.bad_words = n;
        }
        v
    })
}
