//! Rough single-thread throughput of fill, Filler::prepare and verify for each
//! packet type (run with `cargo run --release --example throughput`).
//! A measuring aid only; nothing here is asserted.

use pario_signature::{fill, verify, Filler, PacketType, Pattern};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let total: usize = 1 << 30;
    for t in [64 * 1024usize, 4 << 20] {
        let mut buf = vec![0u8; t];
        let n = total / t;
        for packet in [
            PacketType::Timestamp,
            PacketType::Offset,
            PacketType::Random,
            PacketType::Incompressible,
        ] {
            let p = Pattern::new(packet, 424_242, 424_242);
            let gbs = |secs: f64| total as f64 / secs / 1e9;

            let start = Instant::now();
            for k in 0..n {
                fill(black_box(&mut buf), &p, 1, (k * t) as u64);
            }
            let fill_s = start.elapsed().as_secs_f64();

            let mut filler = Filler::new(p);
            let start = Instant::now();
            for k in 0..n {
                filler.prepare(black_box(&mut buf), 1, (k * t) as u64);
            }
            let prep_s = start.elapsed().as_secs_f64();

            // Verify the last transfer n times at its own offset.
            let mut bad = 0;
            let o = ((n - 1) * t) as u64;
            let start = Instant::now();
            for _ in 0..n {
                bad += verify(black_box(&buf), &p, Some(1), 2, o, 4).bad_words;
            }
            let ver_s = start.elapsed().as_secs_f64();
            let start = Instant::now();
            for _ in 0..n {
                bad += verify(black_box(&buf), &p, None, 2, o, 4).bad_words;
            }
            let any_s = start.elapsed().as_secs_f64();
            assert_eq!(bad, 0);
            println!(
                "T={:>8} {:>15}: fill {:6.2} GB/s  prepare {:7.2} GB/s  verify {:6.2} GB/s  verify(any rank) {:6.2} GB/s",
                t,
                packet.name(),
                gbs(fill_s),
                gbs(prep_s),
                gbs(ver_s),
                gbs(any_s)
            );
        }
    }
}
