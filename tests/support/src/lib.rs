//! Test-only helpers shared by the property and allocation tests: a seeded random generator,
//! so a failure reproduces from its seed, mutations of realistic inputs, and a global
//! allocator that counts allocations.
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

/// Fragments that break JSON parsers: structure, escapes, a lone surrogate, numbers out of
/// range, invalid UTF-8.
pub const JSON_TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"\"",
    b"\\",
    b"\\u00",
    b"\\ud800",
    b"null",
    b"true",
    b"1e309",
    b"-0",
    b"\xff",
    b"\xe2\x82",
];

/// Input `i` of a property test: every seventh a run of up to `max_tokens` of `tokens`, the
/// others one of `seeds` mutated ([`mutate`]).
pub fn fuzz_input(rng: &mut Rng, i: usize, seeds: &[&[u8]], tokens: &[&[u8]], max_tokens: usize) -> Vec<u8> {
    if i.is_multiple_of(7) {
        (0..rng.below(max_tokens))
            .flat_map(|_| tokens[rng.below(tokens.len())].to_vec())
            .collect()
    } else {
        mutate(rng, seeds[i % seeds.len()], tokens)
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

/// A global allocator that counts allocations (and reallocations), for tests that prove a
/// path allocates nothing. Install it in the test binary:
///
/// ```ignore
/// #[global_allocator]
/// static GLOBAL: stratus_test_support::CountingAllocator = stratus_test_support::CountingAllocator;
/// ```
///
/// and keep such a binary to one test, so no other test's thread allocates meanwhile.
pub struct CountingAllocator;

static ALLOCATIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many allocations the [`CountingAllocator`] has counted so far.
pub fn allocations() -> usize {
    ALLOCATIONS.load(std::sync::atomic::Ordering::Relaxed)
}

unsafe impl std::alloc::GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}
