//! Property test: the schema-driven JSON decoder (and the validator after it) never panics,
//! whatever the bytes. Inputs are seeded random mutations of realistic requests plus random
//! token soup, so failures reproduce from the printed seed.

mod support;

use stratus_core::json::{decode, KeyNames};
use stratus_core::validate::validate_input;

/// xorshift64*: small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const TOKENS: &[&[u8]] = &[
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
    b"-",
    b"1e309",
    b"0.5",
    b"18446744073709551616",
    b"\"S\"",
    b"\"M\"",
    b"\"L\"",
    b"\"N\"",
    b"\"B\"",
    b"\"Item\"",
    b"\xff",
    b" ",
];

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(4) {
            0 => bytes.truncate(at),
            1 if at < bytes.len() => bytes[at] = rng.next() as u8,
            2 => {
                let token = TOKENS[rng.below(TOKENS.len())];
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

#[test]
fn decoder_never_panics() {
    let cases = [
        support::decoded("dynamodb", "PutItem", support::PUT_ITEM),
        support::decoded("lambda", "CreateFunction", support::CREATE_FUNCTION),
    ];
    let seeds = [support::PUT_ITEM, support::CREATE_FUNCTION];
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let (mut decoded, mut refused) = (0, 0);
    for i in 0..20_000 {
        let which = i % 2;
        let (svc, op, _) = &cases[which];
        let body = if i % 5 == 0 {
            (0..rng.below(64))
                .flat_map(|_| TOKENS[rng.below(TOKENS.len())].to_vec())
                .collect()
        } else {
            mutate(&mut rng, seeds[which])
        };
        match decode(op.input, &body, KeyNames::Member) {
            Ok(value) => {
                decoded += 1;
                let _ = validate_input(svc, op, &value);
            }
            Err(_) => refused += 1,
        }
    }
    assert!(
        decoded > 100 && refused > 100,
        "decoded {decoded}, refused {refused}: mutations are not varied enough"
    );
}
