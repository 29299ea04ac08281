//! Test-only helpers shared by the decoder property tests: a seeded random generator, so a
//! failure reproduces from its seed, and mutations of realistic inputs.
//!
//! ```
//! use stratus_test_support::{mutate, Rng};
//! let mut rng = Rng(7);
//! let mutated = mutate(&mut rng, br#"{"a":1}"#, &[b"{", b"\""]);
//! assert!(mutated.len() <= 7 + 4);
//! ```

/// xorshift64*: small, deterministic, good enough to pick mutations.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// `seed` with one to four random edits: truncation, a flipped byte, one of `tokens` inserted,
/// or a short run deleted.
pub fn mutate(rng: &mut Rng, seed: &[u8], tokens: &[&[u8]]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(4) {
            0 => bytes.truncate(at),
            1 if at < bytes.len() => bytes[at] = rng.next_u64() as u8,
            2 => {
                let token = tokens[rng.below(tokens.len())];
                bytes.splice(at..at, token.iter().copied());
            }
            _ => {
                let end = (at + rng.below(16)).min(bytes.len());
                bytes.drain(at..end);
            }
        }
    }
    bytes
}
