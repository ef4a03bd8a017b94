//! fill → verify round trips for every packet type, what each type encodes
//! (rank, offset, signature), writer detection, the Filler, parsing and
//! incompressibility.

use pario_signature::{expected_word, fill, verify, Filler, PacketType, Pattern, SignatureError};
use proptest::prelude::*;

const TYPES: [PacketType; 4] = [
    PacketType::Timestamp,
    PacketType::Offset,
    PacketType::Random,
    PacketType::Incompressible,
];
const SIZES: [usize; 9] = [47008, 12, 7, 4096, 65536, 8, 16, 4104, 0];

fn filled(p: &Pattern, t: usize, rank: u32, offset: u64) -> Vec<u8> {
    let mut buf = vec![0xa5u8; t];
    fill(&mut buf, p, rank, offset);
    buf
}

fn packet() -> impl Strategy<Value = PacketType> {
    prop::sample::select(TYPES.to_vec())
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(SIZES.to_vec()), 0usize..20000]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn round_trip(packet in packet(), t in size(), rank in 0u32..1 << 20, offset in any::<u64>(),
                  sig in any::<u32>(), seed in any::<u32>()) {
        let p = Pattern::new(packet, sig, seed);
        let buf = filled(&p, t, rank, offset);
        let v = verify(&buf, &p, Some(rank), rank + 1, offset, 8);
        prop_assert!(v.ok(), "{:?}", v.first);
        prop_assert_eq!(v.writer, Some(rank));
        // The writer is found when unknown, too.
        let v = verify(&buf, &p, None, rank + 1, offset, 8);
        prop_assert!(v.ok(), "{:?}", v.first);
        if t >= 8 {
            prop_assert_eq!(v.writer, Some(rank));
        }
        // Every word agrees with the one-word oracle.
        for (i, c) in buf.chunks_exact(8).enumerate().step_by(97) {
            let w = u64::from_le_bytes(c.try_into().unwrap());
            prop_assert_eq!(w, expected_word(&p, rank, offset, i as u64));
        }
        // Tail byte i is i mod 256.
        for (i, &b) in buf.iter().enumerate().skip(t / 8 * 8) {
            prop_assert_eq!(b, i as u8);
        }
    }

    #[test]
    fn wrong_rank_offset_or_signature_fails(packet in packet(), t in 16usize..20000,
                                            rank in 0u32..1000, offset in 0u64..1 << 40,
                                            sig in any::<u32>(), seed in any::<u32>()) {
        let p = Pattern::new(packet, sig, seed);
        let buf = filled(&p, t, rank, offset);
        let n = (t / 8) as u64;

        let v = verify(&buf, &p, Some(rank + 1), 2000, offset, 4);
        prop_assert!(!v.ok());
        // Timestamp and offset words carry the rank in every word.
        if matches!(packet, PacketType::Timestamp | PacketType::Offset) {
            prop_assert_eq!(v.bad_words, n);
        }

        let moved = offset + t as u64;
        let v = verify(&buf, &p, Some(rank), 2000, moved, 4);
        // Timestamp does not encode the offset: a transfer of the right rank
        // read from elsewhere passes.
        prop_assert_eq!(v.ok(), packet == PacketType::Timestamp);

        // The signature S: not used by Random, whose seed base is random_seed.
        let v = verify(&buf, &Pattern::new(packet, sig ^ 0x10, seed), Some(rank), 2000, offset, 4);
        prop_assert_eq!(v.ok(), packet == PacketType::Random);
        let v = verify(&buf, &Pattern::new(packet, sig, seed ^ 0x10), Some(rank), 2000, offset, 4);
        prop_assert_eq!(v.ok(), packet != PacketType::Random);

        // Another type never verifies.
        for other in TYPES.iter().filter(|&&o| o != packet) {
            let v = verify(&buf, &Pattern::new(*other, sig, seed), Some(rank), 2000, offset, 4);
            prop_assert!(!v.ok(), "{} verified as {}", packet, other);
        }
    }

    #[test]
    fn flipped_byte_is_found(packet in packet(), t in 1usize..10000, rank in 0u32..8,
                             offset in any::<u64>(), at in any::<prop::sample::Index>(),
                             flip in 1u8..=255) {
        let p = Pattern::new(packet, 424_242, 424_242);
        let mut buf = filled(&p, t, rank, offset);
        let i = at.index(t);
        buf[i] ^= flip;
        for r in [Some(rank), None] {
            let v = verify(&buf, &p, r, 8, offset, 4);
            prop_assert_eq!(v.bad_words, 1);
            let m = v.first[0];
            prop_assert_eq!(m.word_index, (i / 8) as u64);
            prop_assert_eq!(m.byte_offset_in_file, offset.wrapping_add((i / 8 * 8) as u64));
            prop_assert_ne!(m.expected, m.found);
        }
    }

    #[test]
    fn filler_equals_fill(packet in packet(), t in prop::sample::select(vec![7usize, 12, 4096, 4100, 47008, 65536]),
                          ops in prop::collection::vec((0u32..3, 0u64..64, any::<bool>()), 1..12),
                          sig in any::<u32>()) {
        let p = Pattern::new(packet, sig, sig.rotate_left(7));
        let mut filler = Filler::new(p);
        let mut buf = vec![0u8; t];
        let mut other = vec![0u8; t + 8];
        for (rank, k, use_other) in ops {
            let offset = k * t as u64 + u64::from(rank) * 3;
            // Alternate between two buffers of different lengths: the filler
            // must notice it is handed another buffer.
            let b: &mut [u8] = if use_other { &mut other } else { &mut buf };
            filler.prepare(b, rank, offset);
            let expected = filled(&p, b.len(), rank, offset);
            prop_assert!(b == expected.as_slice(), "rank {} offset {}", rank, offset);
        }
    }
}

#[test]
fn reporting_is_capped_but_counting_is_not() {
    let p = Pattern::new(PacketType::Offset, 7, 7);
    let t = 65536 + 5;
    let buf = filled(&p, t, 3, 1 << 20);
    let v = verify(&buf, &p, Some(4), 8, 1 << 20, 10);
    assert_eq!(v.bad_words, 65536 / 8);
    assert_eq!(v.first.len(), 10);
    assert_eq!(v.first[0].word_index, 0);
    assert_eq!(v.first[0].byte_offset_in_file, 1 << 20);
    assert_eq!(v.first[0].expected, 4 << 32 | (1 << 20));
    assert_eq!(v.first[0].found, 3 << 32 | (1 << 20));
    assert!(verify(&buf, &p, Some(4), 8, 1 << 20, 0).first.is_empty());
}

#[test]
fn bad_tail_counts_as_one_word() {
    let p = Pattern::new(PacketType::Timestamp, 1, 1);
    let mut buf = filled(&p, 23, 0, 0);
    buf[17] ^= 1;
    buf[22] ^= 1;
    let v = verify(&buf, &p, Some(0), 1, 100, 4);
    assert_eq!(v.bad_words, 1);
    assert_eq!(v.first[0].word_index, 2);
    assert_eq!(v.first[0].byte_offset_in_file, 116);
    assert_eq!(
        v.first[0].expected,
        u64::from_le_bytes([16, 17, 18, 19, 20, 21, 22, 0])
    );
    assert_eq!(
        v.first[0].found,
        u64::from_le_bytes([16, 16, 18, 19, 20, 21, 23, 0])
    );
}

#[test]
fn unknown_writer_must_be_one_rank_below_num_tasks() {
    for packet in TYPES {
        let p = Pattern::new(packet, 99, 5);
        for t in [8usize, 4096, 47008, 65536] {
            let offset = 3 * t as u64;
            for r in 0..6 {
                let buf = filled(&p, t, r, offset);
                let v = verify(&buf, &p, None, 6, offset, 4);
                assert!(v.ok(), "{packet} t={t} rank {r}");
                assert_eq!(v.writer, Some(r));
                // A rank outside 0..num_tasks is not accepted (num_tasks 0 counts as 1).
                let v = verify(&buf, &p, None, r, offset, 4);
                assert_eq!(v.ok(), r == 0, "{packet} t={t} rank {r} with {r} tasks");
            }
            // Half of rank 1's transfer followed by half of rank 4's.
            if t >= 16 {
                let a = filled(&p, t, 1, offset);
                let b = filled(&p, t, 4, offset);
                let half = t / 16 * 8;
                let mut mixed = a[..half].to_vec();
                mixed.extend_from_slice(&b[half..]);
                let v = verify(&mixed, &p, None, 6, offset, 4);
                assert!(!v.ok(), "{packet} t={t}: mixed transfer accepted");
                let words = (t / 8) as u64;
                assert_eq!(
                    v.bad_words,
                    words.min(words - half as u64 / 8).min(half as u64 / 8)
                );
                assert!(matches!(v.writer, Some(1) | Some(4)));
            }
        }
    }
}

#[test]
fn timestamp_words_with_carry_into_rank_bits() {
    // S + i overflows 32 bits: the carry is ORed with the rank bits.
    let p = Pattern::new(PacketType::Timestamp, u32::MAX - 2, 0);
    let buf = filled(&p, 64, 2, 0);
    let w: Vec<u64> = buf
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w[0], 2 << 32 | 0xffff_fffd);
    assert_eq!(w[3], 2 << 32 | 1 << 32);
    assert_eq!(w[4], 3 << 32 | 1);
    for r in 0..4 {
        let buf = filled(&p, 64, r, 0);
        let v = verify(&buf, &p, None, 4, 0, 4);
        assert!(v.ok(), "rank {r}");
        assert_eq!(v.writer, Some(r));
    }
}

#[test]
fn offset_words_wrap_in_32_bits() {
    let p = Pattern::new(PacketType::Offset, 0, 0);
    let o = 0x1_8000_0001u64;
    let buf = filled(&p, 3 * 4096, 1, o);
    let word = |i: usize| u64::from_le_bytes(buf[i * 8..i * 8 + 8].try_into().unwrap());
    assert_eq!(word(0), 1 << 32 | 0x8000_0001);
    assert_eq!(word(512), 1 << 32 | 0x0000_0002);
    assert_eq!(word(1024), 1 << 32 | 0x8000_0003);
    assert_eq!(word(1), 1 << 32 | 1);
}

#[test]
fn incompressible_data_does_not_deflate() {
    use flate2::{write::DeflateEncoder, Compression};
    use std::io::Write;
    let p = Pattern::new(PacketType::Incompressible, 424_242, 424_242);
    let t = 64 * 1024;
    let mut file = Vec::with_capacity(1 << 20);
    for k in 0..16u64 {
        // Shared-file layout of 2 ranks, 256 KiB blocks.
        let o = k * t as u64;
        file.extend_from_slice(&filled(&p, t, ((o / (256 * 1024)) % 2) as u32, o));
    }
    for level in [
        Compression::fast(),
        Compression::default(),
        Compression::best(),
    ] {
        let mut enc = DeflateEncoder::new(Vec::new(), level);
        enc.write_all(&file).unwrap();
        let packed = enc.finish().unwrap();
        assert!(
            packed.len() * 100 >= file.len() * 99,
            "deflate: {} of {}",
            packed.len(),
            file.len()
        );
    }
}

#[test]
fn packet_type_parsing() {
    for (s, t) in [
        ("timestamp", PacketType::Timestamp),
        ("t", PacketType::Timestamp),
        ("TimeStamp", PacketType::Timestamp),
        ("offset", PacketType::Offset),
        ("O", PacketType::Offset),
        ("random", PacketType::Random),
        ("r", PacketType::Random),
        ("incompressible", PacketType::Incompressible),
        (" i ", PacketType::Incompressible),
    ] {
        assert_eq!(PacketType::parse(s), Ok(t), "{s}");
        assert_eq!(PacketType::parse(t.name()), Ok(t));
        assert_eq!(s.parse::<PacketType>(), Ok(t));
    }
    for bad in ["", "x", "offsets", "time", "tim estamp"] {
        let e = PacketType::parse(bad).unwrap_err();
        assert_eq!(e, SignatureError::UnknownPacketType(bad.to_string()));
        assert!(e.to_string().contains(&format!("'{bad}'")), "{e}");
    }
}
