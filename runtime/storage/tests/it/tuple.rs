//! Tuple keys on random tuples: byte order is tuple order, no key is a proper prefix of
//! another of the same shape, and every key decodes to its tuple.

use stratus_storage::tuple::{TupleKey, TupleReader};
use stratus_test_support::Rng;

/// One part of a tuple; tuples compared here always share their parts' kinds.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Bytes(Vec<u8>),
    U64(u64),
    I64(i64),
}

#[derive(Clone, Copy)]
enum Kind {
    Bytes,
    U64,
    I64,
}

fn random_shape(rng: &mut Rng) -> Vec<Kind> {
    (0..1 + rng.below(3))
        .map(|_| [Kind::Bytes, Kind::Bytes, Kind::U64, Kind::I64][rng.below(4)])
        .collect()
}

fn random_part(rng: &mut Rng, kind: Kind) -> Part {
    // Few distinct values make equal parts, shared prefixes and escapes common.
    let small = [0, 1, 0xff, 0x100, u64::MAX >> 1, u64::MAX];
    match kind {
        Kind::Bytes => {
            let alphabet = [0u8, 1, 0xff, b'a'];
            Part::Bytes((0..rng.below(4)).map(|_| alphabet[rng.below(alphabet.len())]).collect())
        }
        Kind::U64 => Part::U64(small[rng.below(small.len())]),
        Kind::I64 => Part::I64(small[rng.below(small.len())] as i64),
    }
}

fn random_tuple(rng: &mut Rng, shape: &[Kind]) -> Vec<Part> {
    shape.iter().map(|&kind| random_part(rng, kind)).collect()
}

fn encode(tuple: &[Part]) -> Vec<u8> {
    tuple
        .iter()
        .fold(TupleKey::new(), |key, part| match part {
            Part::Bytes(bytes) => key.bytes(bytes),
            Part::U64(n) => key.u64(*n),
            Part::I64(n) => key.i64(*n),
        })
        .into_bytes()
}

fn decode(key: &[u8], shape: &[Kind]) -> Vec<Part> {
    let mut reader = TupleReader::new(key);
    let tuple = shape
        .iter()
        .map(|kind| match kind {
            Kind::Bytes => Part::Bytes(reader.bytes().unwrap()),
            Kind::U64 => Part::U64(reader.u64().unwrap()),
            Kind::I64 => Part::I64(reader.i64().unwrap()),
        })
        .collect();
    reader.finish().unwrap();
    tuple
}

#[test]
fn byte_order_is_tuple_order_and_keys_are_prefix_free() {
    let mut rng = Rng(0x7e57_0001);
    for _ in 0..20_000 {
        let shape = random_shape(&mut rng);
        let (a, b) = (random_tuple(&mut rng, &shape), random_tuple(&mut rng, &shape));
        let (ka, kb) = (encode(&a), encode(&b));
        assert_eq!(ka.cmp(&kb), a.cmp(&b), "{a:?} vs {b:?}");
        if a != b {
            assert!(!ka.starts_with(&kb) && !kb.starts_with(&ka), "{a:?} vs {b:?}");
        }
    }
}

#[test]
fn leading_parts_are_a_scan_prefix() {
    let mut rng = Rng(0x7e57_0002);
    for _ in 0..2_000 {
        let shape = random_shape(&mut rng);
        let tuple = random_tuple(&mut rng, &shape);
        let key = encode(&tuple);
        for leading in 0..tuple.len() {
            assert!(key.starts_with(&encode(&tuple[..leading])));
        }
    }
}

#[test]
fn keys_decode_to_their_tuples() {
    let mut rng = Rng(0x7e57_0003);
    for _ in 0..5_000 {
        let shape = random_shape(&mut rng);
        let tuple = random_tuple(&mut rng, &shape);
        assert_eq!(decode(&encode(&tuple), &shape), tuple);
    }
}

#[test]
fn garbage_is_refused_without_panicking() {
    let mut rng = Rng(0x7e57_0004);
    for _ in 0..5_000 {
        let garbage: Vec<u8> = (0..rng.below(12)).map(|_| [0u8, 1, 0xff, b'a'][rng.below(4)]).collect();
        let mut reader = TupleReader::new(&garbage);
        let _ = reader.string().and_then(|_| reader.u64()).and_then(|_| reader.i64());
        let _ = reader.finish();
    }
    assert!(TupleReader::new(b"a").bytes().is_err());
    assert!(TupleReader::new(&[0, 2]).bytes().is_err());
    assert!(TupleReader::new(&[0xff, 0xfe, 0, 1]).string().is_err());
    assert!(TupleReader::new(&[1, 2, 3]).u64().is_err());
    let key = TupleKey::new().u64(1).into_bytes();
    let mut reader = TupleReader::new(&key);
    reader.bytes().unwrap_err();
    assert!(TupleReader::new(&key).finish().is_err());
}
