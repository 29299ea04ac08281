//! Hash keys: the 128-bit space a stream's shards divide between them. A record goes to the
//! open shard whose range holds its hash key — the MD5 of its partition key read as a
//! big-endian 128-bit number, or its `ExplicitHashKey` (Kinesis Data Streams developer guide,
//! "Partition key"; API reference, PutRecord).

use md5::{Digest, Md5};

/// The hash key of a partition key: its MD5 as an unsigned big-endian 128-bit number.
pub(crate) fn of_partition_key(partition_key: &str) -> u128 {
    u128::from_be_bytes(Md5::digest(partition_key.as_bytes()).into())
}

/// An `ExplicitHashKey` (or a `NewStartingHashKey`): decimal digits within `[0, 2^128 - 1]`.
/// `None` for anything else.
pub(crate) fn parse(text: &str) -> Option<u128> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The range of shard `index` of `count` shards dividing the whole space evenly, as AWS divides
/// it for a new stream: shard `i` starts at `floor(i * 2^128 / count)` and the last ends at
/// `2^128 - 1` (four shards start at 0, 2^126, 2^127 and 3·2^126).
pub(crate) fn even_range(index: u32, count: u32) -> (u128, u128) {
    let start = boundary(index, count);
    let end = match index + 1 >= count {
        true => u128::MAX,
        false => boundary(index + 1, count) - 1,
    };
    (start, end)
}

/// `floor(i * 2^128 / n)` for `i < n`, without overflowing: `2^128 = q·n + r`.
fn boundary(i: u32, n: u32) -> u128 {
    // Shard 0 starts at 0; and with one shard `q` would be 2^128, which does not fit.
    if i == 0 {
        return 0;
    }
    let n = u128::from(n.max(1));
    let i = u128::from(i);
    let (mut q, mut r) = (u128::MAX / n, u128::MAX % n + 1);
    if r == n {
        q += 1;
        r = 0;
    }
    i * q + i * r / n
}

#[cfg(test)]
mod tests {
    use stratus_test_support::Rng;

    use super::*;

    #[test]
    fn four_shards_split_the_space_as_aws_does() {
        // DescribeStream of a four-shard (on-demand) stream.
        assert_eq!(even_range(0, 4), (0, 85070591730234615865843651857942052863));
        assert_eq!(
            even_range(1, 4),
            (
                85070591730234615865843651857942052864,
                170141183460469231731687303715884105727
            )
        );
        assert_eq!(even_range(3, 4).1, u128::MAX);
        assert_eq!(even_range(0, 1), (0, u128::MAX));
    }

    #[test]
    fn three_shards_round_down() {
        assert_eq!(even_range(0, 3).1, 113427455640312821154458202477256070484);
        assert_eq!(even_range(2, 3).0, 226854911280625642308916404954512140970);
    }

    #[test]
    fn even_ranges_tile_the_space_for_any_count() {
        let mut rng = Rng(23);
        for _ in 0..500 {
            let count = 1 + rng.below(20_000) as u32;
            let mut next = 0u128;
            for index in [0, count / 2, count - 1] {
                let (start, end) = even_range(index, count);
                assert!(start <= end, "{index} of {count}");
                if index == 0 {
                    assert_eq!(start, 0);
                }
                if index + 1 < count {
                    assert_eq!(even_range(index + 1, count).0, end + 1);
                }
                next = next.max(end);
            }
            assert_eq!(next, u128::MAX);
        }
    }

    #[test]
    fn partition_keys_hash_by_md5() {
        // MD5("a") = 0cc175b9c0f1b6a831c399e269772661.
        assert_eq!(of_partition_key("a"), 0x0cc175b9c0f1b6a831c399e269772661);
    }

    #[test]
    fn hash_keys_parse_only_decimals_in_range() {
        assert_eq!(parse("0"), Some(0));
        assert_eq!(parse("340282366920938463463374607431768211455"), Some(u128::MAX));
        assert_eq!(parse("340282366920938463463374607431768211456"), None);
        for bad in ["", "-1", "+1", "1.0", " 1", "1e3", "0x10"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn parsing_any_text_never_panics_and_round_trips_numbers() {
        let mut rng = Rng(5);
        for _ in 0..2000 {
            let n = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
            assert_eq!(parse(&n.to_string()), Some(n));
            let text = stratus_test_support::mutate(&mut rng, n.to_string().as_bytes(), &[b"-", b"9", b"\xff", b" "]);
            if let Ok(text) = std::str::from_utf8(&text) {
                let _ = parse(text);
            }
        }
    }
}
