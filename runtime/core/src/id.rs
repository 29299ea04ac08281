//! Random identifiers: request ids, access keys, resource ids.
//!
//! Each thread draws from its own SplitMix64 sequence, seeded by the standard library's
//! randomly keyed hasher: unpredictable enough for an emulator's ids and secrets, no extra
//! dependency, and no hashing or shared counter on every request id.

use std::cell::Cell;
use std::hash::{BuildHasher, Hasher};

thread_local! {
    static STATE: Cell<u64> = Cell::new(seed());
}

/// A random start for a thread's sequence.
fn seed() -> u64 {
    std::hash::RandomState::new().build_hasher().finish()
}

/// 64 random bits.
pub fn random_u64() -> u64 {
    STATE.with(|state| {
        let next = state.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
        state.set(next);
        let mut z = next;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

/// A random string of `len` characters drawn from `alphabet` (ASCII).
pub fn random_string(alphabet: &[u8], len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut bits = 0u64;
    for i in 0..len {
        if i % 8 == 0 {
            bits = random_u64();
        }
        out.push(alphabet[(bits & 0xff) as usize % alphabet.len()] as char);
        bits >>= 8;
    }
    out
}

/// A UUID version 4 in its usual text form, as AWS writes request ids.
pub fn uuid() -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let a = (random_u64() & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000;
    let b = (random_u64() & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
    let bits = (u128::from(a) << 64) | u128::from(b);
    let mut out = String::with_capacity(36);
    for i in 0..32 {
        if matches!(i, 8 | 12 | 16 | 20) {
            out.push('-');
        }
        out.push(HEX[((bits >> (124 - 4 * i)) & 0xf) as usize] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4_and_distinct() {
        let (a, b) = (uuid(), uuid());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn threads_draw_different_sequences() {
        let here: Vec<u64> = (0..4).map(|_| random_u64()).collect();
        let there = std::thread::spawn(|| (0..4).map(|_| random_u64()).collect::<Vec<u64>>())
            .join()
            .unwrap();
        assert!(here.iter().all(|n| !there.contains(n)));
    }

    #[test]
    fn random_strings_use_the_alphabet() {
        let s = random_string(b"AB", 40);
        assert_eq!(s.len(), 40);
        assert!(s.bytes().all(|c| c == b'A' || c == b'B'));
    }
}
