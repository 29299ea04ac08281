//! Sequence numbers, shaped like AWS's: 56 decimal digits, increasing within a shard.
//!
//! Stratus writes `49`, the shard's index in ten digits, then the stream's record counter in
//! 44: every number is the same length, so their text sorts as their value, a shard's
//! records are numbered in the order they were put, and a child shard's numbers are greater
//! than its parents' (the counter belongs to the stream). The shard a number was issued in
//! can be read back from it, as AWS reads it to refuse a number used on another shard.

/// The number of digits of every sequence number.
pub(crate) const DIGITS: usize = 56;

const PREFIX: &str = "49";
const SHARD_DIGITS: usize = 10;

/// A position in a stream: the shard's index and the stream's record counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Sequence {
    pub shard: u32,
    pub counter: u64,
}

impl Sequence {
    /// The sequence number's text.
    pub(crate) fn render(self) -> String {
        format!("{PREFIX}{:010}{:044}", self.shard, self.counter)
    }

    /// The position a sequence number names, if it is one Stratus issues.
    pub(crate) fn parse(text: &str) -> Option<Sequence> {
        if text.len() != DIGITS || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let rest = text.strip_prefix(PREFIX)?;
        let (shard, counter) = rest.split_at(SHARD_DIGITS);
        Some(Sequence {
            shard: shard.parse().ok()?,
            counter: counter.parse().ok()?,
        })
    }
}

/// Whether `text` is a decimal number, as AWS requires a sequence number to be (its model's
/// pattern `0|([1-9]\d{0,128})`): one that is not is refused before its shard is looked at.
pub(crate) fn is_decimal(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use stratus_test_support::{mutate, Rng};

    use super::*;

    #[test]
    fn numbers_have_56_digits() {
        let s = Sequence { shard: 3, counter: 17 }.render();
        assert_eq!(s.len(), DIGITS);
        assert!(s.starts_with("490000000003000") && s.ends_with("00017"), "{s}");
        assert_eq!(Sequence::parse(&s), Some(Sequence { shard: 3, counter: 17 }));
    }

    #[test]
    fn text_order_is_position_order_and_round_trips() {
        let mut rng = Rng(11);
        for _ in 0..2000 {
            let a = Sequence {
                shard: rng.next_u64() as u32,
                counter: rng.next_u64(),
            };
            let b = Sequence {
                shard: rng.next_u64() as u32 % 4,
                counter: rng.next_u64() >> rng.below(64),
            };
            assert_eq!(Sequence::parse(&a.render()), Some(a));
            assert_eq!(a.render().len(), DIGITS);
            assert_eq!(a.cmp(&b), a.render().cmp(&b.render()));
        }
    }

    #[test]
    fn anything_else_is_not_a_sequence_number_and_never_panics() {
        for bad in [
            "",
            "49",
            "1",
            "4a000000000000000000000000000000000000000000000000000000",
        ] {
            assert_eq!(Sequence::parse(bad), None, "{bad}");
        }
        // A counter beyond 64 bits is not one Stratus issued.
        assert_eq!(Sequence::parse(&format!("49{:010}{}", 0, "9".repeat(44))), None);
        let mut rng = Rng(3);
        let seed = Sequence { shard: 1, counter: 99 }.render();
        for _ in 0..5000 {
            let text = mutate(&mut rng, seed.as_bytes(), &[b"0", b"9", b"-", b"\xc3\xa9"]);
            if let Ok(text) = std::str::from_utf8(&text) {
                if let Some(s) = Sequence::parse(text) {
                    assert_eq!(s.render(), text);
                }
            }
        }
    }

    #[test]
    fn decimals_are_digits_only() {
        assert!(is_decimal("0"));
        assert!(!is_decimal(""));
        assert!(!is_decimal("12a"));
    }
}
