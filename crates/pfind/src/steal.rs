//! Dividing the walk between ranks: work stealing with a token ring that
//! detects termination.
//!
//! Rank 0 starts with the start directory. A rank with no work sends one
//! steal request at a time (to a random rank; with `-N`, half of the time
//! to the next rank) and waits for the answer, serving everyone else's
//! requests meanwhile; a rank with work answers between steps with the
//! older half of its queue, or an empty answer.
//!
//! Matched paths travel to rank 0 in chunks of whole lines and only rank
//! 0 writes them, so that lines of different ranks never interleave
//! mid-line (mpirun forwards each rank's output in pieces of its own).
//!
//! Termination is Safra's token ring (Dijkstra's EWD 840 with message
//! counts, EWD 998): every rank counts the work answers it sent minus
//! those it received, and turns black when it receives work. The token
//! waits at a rank until the rank has no work, then travels on, adding the
//! rank's count and blackened by a black rank, which turns white as it
//! passes it on. Rank 0, idle, starts each round with a white token and a
//! zero sum; a white token back at a white, idle rank 0 whose sum with
//! rank 0's own count is zero means every rank was idle and no work was in
//! flight (an answer still travelling leaves the sum non-zero, however
//! late it arrives), so rank 0 tells every rank to stop. Empty answers
//! carry no work and count for nothing.

use crate::walk::{decode, encode, Walker, LINES_CHUNK};
use pario_comm::Messages;
use std::time::{Duration, Instant};

// The tags of requests, answers and the token are public for tests that
// hold messages back.
pub const TAG_REQUEST: i32 = 800;
pub const TAG_ANSWER: i32 = 820;
pub const TAG_TOKEN: i32 = 777;
const TAG_STOP: i32 = 790;
const TAG_LINES: i32 = 830;

/// The longest an idle rank sleeps between polls.
const MAX_PAUSE: Duration = Duration::from_micros(500);

/// A token's colour (true: black) and sum.
fn token_from(t: &[u8]) -> Result<(bool, i64), String> {
    match t {
        [c, sum @ ..] if sum.len() == 8 => {
            let sum = i64::from_le_bytes(sum.try_into().map_err(|_| "token sum")?);
            Ok((*c == 1, sum))
        }
        _ => Err(format!(
            "termination token of {} bytes, 9 expected",
            t.len()
        )),
    }
}

/// One rank's protocol state.
pub struct Stealer<'m> {
    m: &'m dyn Messages,
    rank: u32,
    size: u32,
    steal_from_next: bool,
    /// When our steal request went out, if one is waiting for its answer.
    asked: Option<Instant>,
    has_token: bool,
    /// The colour of the token we hold (true: black) and its sum.
    token_black: bool,
    token_sum: i64,
    /// Our colour: black after receiving work, until the token passes.
    black: bool,
    /// Work answers sent minus work answers received.
    balance: i64,
    stop: bool,
    rng: u64,
    /// How long to pause when a poll found nothing (grows while idle).
    pause: Duration,
    /// Rank 0: where matched lines go.
    out: &'m mut dyn std::io::Write,
    /// Chunks of lines posted to rank 0 (ranks 1..) or taken (rank 0).
    pub chunks: u64,
}

impl<'m> Stealer<'m> {
    pub fn new(
        m: &'m dyn Messages,
        (rank, size): (u32, u32),
        steal_from_next: bool,
        out: &'m mut dyn std::io::Write,
    ) -> Stealer<'m> {
        Stealer {
            m,
            rank,
            size,
            steal_from_next,
            asked: None,
            has_token: rank == 0,
            token_black: false,
            token_sum: 0,
            black: false,
            balance: 0,
            stop: false,
            rng: 0x9E37_79B9_7F4A_7C15 ^ (u64::from(rank) + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
            pause: Duration::ZERO,
            out,
            chunks: 0,
        }
    }

    /// Walk with `w` until rank 0 has seen every rank idle; `cut` says when
    /// to drop the rest of this rank's work (the stonewall, an interrupt).
    pub fn run(&mut self, w: &mut Walker, cut: &dyn Fn() -> bool) -> Result<(), String> {
        while !self.stop {
            if w.has_work() {
                if cut() {
                    w.stop();
                } else {
                    w.step();
                    w.counters.busy_steps += 1;
                }
            }
            self.ship_lines(w, LINES_CHUNK)?;
            self.serve(w)?;
            if !w.has_work() {
                self.idle(w)?;
            }
        }
        self.ship_lines(w, 0)
    }

    /// Rank 0 writes its matched lines; the others post them to rank 0.
    fn ship_lines(&mut self, w: &mut Walker, at_least: usize) -> Result<(), String> {
        if let Some(lines) = w.take_lines(at_least) {
            if self.rank == 0 {
                let _ = self.out.write_all(&lines);
            } else {
                self.m.post(0, TAG_LINES, lines)?;
                self.chunks += 1;
            }
        }
        Ok(())
    }

    /// Rank 0: write the chunks of lines that have arrived.
    fn take_lines(&mut self) {
        while let Some((_, lines)) = self.m.try_take(TAG_LINES) {
            let _ = self.out.write_all(&lines);
            self.chunks += 1;
        }
    }

    /// After the walk, `posted` being every rank's count of chunks posted:
    /// rank 0 writes the rest of them; every rank's sends complete.
    pub fn finish_lines(&mut self, posted: u64) {
        if self.rank == 0 {
            while self.chunks < posted {
                self.take_lines();
                std::thread::yield_now();
            }
            let _ = self.out.flush();
        }
        self.m.flush();
    }

    /// Answer every waiting steal request, and look for the stop.
    fn serve(&mut self, w: &mut Walker) -> Result<(), String> {
        while let Some((src, _)) = self.m.try_take(TAG_REQUEST) {
            w.counters.steal_requests_received += 1;
            let items = w.give_half();
            if !items.is_empty() {
                self.balance += 1;
                w.counters.items_sent += items.len() as u64;
            }
            self.m.post(src, TAG_ANSWER, encode(&items))?;
        }
        if self.rank == 0 {
            self.take_lines();
        }
        if self.m.try_take(TAG_STOP).is_some() {
            self.stop = true;
        }
        if let Some((_, t)) = self.m.try_take(TAG_TOKEN) {
            let (black, sum) = token_from(&t)?;
            self.has_token = true;
            self.token_black = black;
            self.token_sum = sum;
        }
        Ok(())
    }

    /// No work here: ask for some, take an answer, pass the token on.
    fn idle(&mut self, w: &mut Walker) -> Result<(), String> {
        let since = Instant::now();
        let mut progressed = false;
        if self.asked.is_none() && !self.stop {
            let victim = self.victim();
            self.m.post(victim, TAG_REQUEST, Vec::new())?;
            self.asked = Some(Instant::now());
            w.counters.steal_requests_sent += 1;
        }
        if let Some((_, data)) = self.m.try_take(TAG_ANSWER) {
            let items = decode(&data)?;
            if let Some(at) = self.asked.take() {
                w.counters.steal_time_us += at.elapsed().as_micros() as u64;
            }
            progressed = !items.is_empty();
            if progressed {
                self.balance -= 1;
                self.black = true;
            }
            w.counters.items_stolen += items.len() as u64;
            w.take(items);
        }
        if self.has_token && !w.has_work() {
            self.pass_token(w)?;
        }
        if progressed {
            self.pause = Duration::ZERO;
        } else if !self.stop && !w.has_work() {
            self.rest();
            w.counters.idle_us += since.elapsed().as_micros() as u64;
        }
        Ok(())
    }

    /// Forward the token (rank 0: judge the round, then start the next).
    fn pass_token(&mut self, w: &mut Walker) -> Result<(), String> {
        let (black, sum) = if self.rank == 0 {
            let clean = !self.token_black && !self.black && self.token_sum + self.balance == 0;
            if clean && w.counters.tokens_sent > 0 {
                for r in 1..self.size {
                    self.m.post(r, TAG_STOP, Vec::new())?;
                }
                self.stop = true;
                return Ok(());
            }
            (false, 0)
        } else {
            (
                self.token_black || self.black,
                self.token_sum + self.balance,
            )
        };
        let mut t = vec![u8::from(black)];
        t.extend_from_slice(&sum.to_le_bytes());
        self.m.post((self.rank + 1) % self.size, TAG_TOKEN, t)?;
        w.counters.tokens_sent += 1;
        self.has_token = false;
        self.black = false;
        Ok(())
    }

    fn victim(&mut self) -> u32 {
        if self.steal_from_next && self.random().is_multiple_of(2) {
            return (self.rank + 1) % self.size;
        }
        // A random rank other than this one.
        let r = (self.random() % u64::from(self.size - 1)) as u32;
        if r >= self.rank {
            r + 1
        } else {
            r
        }
    }

    /// xorshift64*: a private, per-rank sequence (no shared state).
    fn random(&mut self) -> u64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Yield the processor, pausing longer the longer nothing happens.
    fn rest(&mut self) {
        if self.pause.is_zero() {
            std::thread::yield_now();
            self.pause = Duration::from_micros(10);
        } else {
            std::thread::sleep(self.pause);
            self.pause = (self.pause * 2).min(MAX_PAUSE);
        }
    }
}
