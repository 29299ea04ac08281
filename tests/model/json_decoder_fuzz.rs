//! Property test: the schema-driven JSON decoder (and the validator after it) never panics,
//! whatever the bytes. Inputs are seeded random mutations of realistic requests plus random
//! token soup, so failures reproduce from the printed seed.

use crate::support;

use stratus_core::json::{decode, KeyNames};
use stratus_core::validate::validate_input;
use stratus_test_support::{fuzz_input, Rng, JSON_TOKENS};

/// What breaks this decoder in particular, beside JSON's own troubles: DynamoDB's type keys
/// and numbers past 64 bits.
const OWN_TOKENS: &[&[u8]] = &[
    b"-",
    b"0.5",
    b"18446744073709551616",
    b"\"S\"",
    b"\"M\"",
    b"\"L\"",
    b"\"N\"",
    b"\"B\"",
    b"\"Item\"",
    b" ",
];

#[test]
fn decoder_never_panics() {
    let cases = [
        support::decoded("dynamodb", "PutItem", support::PUT_ITEM),
        support::decoded("lambda", "CreateFunction", support::CREATE_FUNCTION),
    ];
    let seeds = [support::PUT_ITEM, support::CREATE_FUNCTION];
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let tokens = [JSON_TOKENS, OWN_TOKENS].concat();
    let (mut decoded, mut refused) = (0, 0);
    for i in 0..20_000 {
        let which = i % 2;
        let (svc, op, _) = &cases[which];
        let body = fuzz_input(&mut rng, i, &seeds[which..=which], &tokens, 64);
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
