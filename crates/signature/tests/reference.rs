//! Interoperability with files written by upstream IOR 4 (see
//! tests/fixtures/upstream/README.md): each verifies with 0 bad words, and a
//! flipped byte anywhere is reported at the right file offset.

use pario_signature::{verify, PacketType, Pattern};
use std::path::PathBuf;

/// Geometry of every reference file: 2 ranks, -t 64k -b 256k -s 2, -G 424242.
const N: u64 = 2;
const T: u64 = 64 * 1024;
const B: u64 = 256 * 1024;
const G: u32 = 424_242;

fn data_dir() -> PathBuf {
    match std::env::var_os("PARIO_IOR_REFERENCE_DATA") {
        Some(d) => PathBuf::from(d),
        None => {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/upstream/ior/data")
        }
    }
}

fn read(name: &str) -> Vec<u8> {
    let p = data_dir().join(name);
    std::fs::read(&p).unwrap_or_else(|e| {
        panic!(
            "reference file {} unreadable ({e}); set PARIO_IOR_REFERENCE_DATA to the directory holding IOR's reference .dat files",
            p.display()
        )
    })
}

fn pattern(packet: PacketType) -> Pattern {
    Pattern::new(packet, G, G)
}

/// (offset, writer) of every transfer of a shared file, segmented layout.
fn shared_transfers(len: u64) -> Vec<(u64, u32)> {
    assert_eq!(len % T, 0);
    (0..len / T)
        .map(|k| (k * T, ((k * T / B) % N) as u32))
        .collect()
}

/// Verifies a whole file; returns (bad words, first bad file offset).
fn verify_file(
    data: &[u8],
    p: &Pattern,
    transfers: &[(u64, u32)],
    known_rank: bool,
) -> (u64, Option<u64>) {
    let mut bad = 0;
    let mut first = None;
    for &(o, r) in transfers {
        let buf = &data[o as usize..(o + T) as usize];
        let rank = known_rank.then_some(r);
        let v = verify(buf, p, rank, N as u32, o, 4);
        if v.ok() {
            assert_eq!(v.writer, Some(r), "wrong writer detected at offset {o}");
        }
        bad += v.bad_words;
        if first.is_none() {
            first = v.first.first().map(|m| m.byte_offset_in_file);
        }
    }
    (bad, first)
}

#[test]
fn shared_files_verify() {
    for (name, packet) in [
        ("ssf-default.dat", PacketType::Timestamp),
        ("ssf-timestamp.dat", PacketType::Timestamp),
        ("ssf-offset.dat", PacketType::Offset),
        ("ssf-random.dat", PacketType::Random),
    ] {
        let data = read(name);
        assert_eq!(data.len() as u64, N * B * 2, "{name}");
        let tr = shared_transfers(data.len() as u64);
        for known in [true, false] {
            let (bad, first) = verify_file(&data, &pattern(packet), &tr, known);
            assert_eq!(
                bad, 0,
                "{name} ({packet}, rank known: {known}): first bad at {first:?}"
            );
        }
    }
}

#[test]
fn file_per_process_files_verify() {
    for r in 0..N as u32 {
        let data = read(&format!("fpp-offset.dat.{r:08}"));
        assert_eq!(data.len() as u64, B * 2);
        // Rank r's own file: offsets s*B + j*T, all written by r.
        let tr: Vec<(u64, u32)> = (0..data.len() as u64 / T).map(|k| (k * T, r)).collect();
        let (bad, first) = verify_file(&data, &pattern(PacketType::Offset), &tr, true);
        assert_eq!(bad, 0, "fpp rank {r}: first bad at {first:?}");
        // The other rank did not write it.
        let other: Vec<(u64, u32)> = tr.iter().map(|&(o, _)| (o, 1 - r)).collect();
        let (bad, _) = verify_file(&data, &pattern(PacketType::Offset), &other, true);
        assert_eq!(
            bad,
            data.len() as u64 / 8,
            "fpp rank {r} checked as rank {}",
            1 - r
        );
    }
}

#[test]
fn wrong_type_or_signature_is_rejected() {
    let data = read("ssf-offset.dat");
    let tr = shared_transfers(data.len() as u64);
    // Timestamp misses only the patched words: one per 4 KiB.
    let (bad, _) = verify_file(&data, &pattern(PacketType::Timestamp), &tr, true);
    assert_eq!(bad, data.len() as u64 / 4096);
    let (bad, _) = verify_file(
        &data,
        &Pattern::new(PacketType::Offset, G + 1, G),
        &tr,
        true,
    );
    assert!(bad > 0);
    let data = read("ssf-random.dat");
    let (bad, _) = verify_file(
        &data,
        &Pattern::new(PacketType::Random, G, G + 1),
        &tr,
        true,
    );
    assert_eq!(bad, data.len() as u64 / 8);
}

/// A deterministic spread of positions (xorshift), for "a random byte".
fn positions(len: usize, count: usize, mut x: u64) -> Vec<usize> {
    (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % len as u64) as usize
        })
        .collect()
}

#[test]
fn flipped_bytes_are_reported_at_their_offset() {
    let files: [(&str, PacketType, Option<u32>); 6] = [
        ("ssf-default.dat", PacketType::Timestamp, None),
        ("ssf-timestamp.dat", PacketType::Timestamp, None),
        ("ssf-offset.dat", PacketType::Offset, None),
        ("ssf-random.dat", PacketType::Random, None),
        ("fpp-offset.dat.00000000", PacketType::Offset, Some(0)),
        ("fpp-offset.dat.00000001", PacketType::Offset, Some(1)),
    ];
    for (name, packet, fpp_rank) in files {
        let data = read(name);
        let len = data.len();
        let tr: Vec<(u64, u32)> = match fpp_rank {
            Some(r) => (0..len as u64 / T).map(|k| (k * T, r)).collect(),
            None => shared_transfers(len as u64),
        };
        // First byte, last byte, a byte of offset-patched words (word 512 of the
        // first transfer; word 0 of rank 1's first block), a byte in the middle
        // of a word, and pseudo-random ones.
        let mut pos = vec![0, len - 1, 4096 + 3, B as usize, 8 * 1000 + 5];
        pos.extend(positions(len, 6, 0x9e37_79b9 ^ len as u64));
        for p in pos {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut copy = data.clone();
                copy[p] ^= flip;
                for known in [true, false] {
                    let (bad, first) = verify_file(&copy, &pattern(packet), &tr, known);
                    assert_eq!(bad, 1, "{name}: byte {p} ^ {flip:#x} (rank known: {known})");
                    assert_eq!(first, Some(p as u64 & !7), "{name}: byte {p} ^ {flip:#x}");
                }
            }
        }
    }
}

#[test]
fn ior_incompressible_is_compressible_and_not_ours() {
    use flate2::{write::DeflateEncoder, Compression};
    use std::io::Write;
    let data = read("ssf-incompressible.dat");
    let mut enc = DeflateEncoder::new(Vec::new(), Compression::default());
    enc.write_all(&data).unwrap();
    let packed = enc.finish().unwrap();
    // IOR's "incompressible" packs to well under 1 %: we deliberately differ.
    assert!(
        packed.len() * 100 < data.len(),
        "deflate: {} of {}",
        packed.len(),
        data.len()
    );
    let tr = shared_transfers(data.len() as u64);
    let (bad, _) = verify_file(&data, &pattern(PacketType::Incompressible), &tr, true);
    assert_eq!(bad, data.len() as u64 / 8);
}
