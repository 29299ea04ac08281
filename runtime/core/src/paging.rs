//! Listings' continuation tokens and page sizes, paged the same way by every service.
//!
//! A [`Token`] is opaque to the client and checked when it comes back. It carries the
//! position the listing continues after (a name, a storage key: any bytes) and is sealed
//! with a checksum over that position and the listing it belongs to, so a token that was
//! edited, cut short, made up, or taken from another listing is refused rather than
//! silently listing from somewhere else. The seal is an integrity check, not a secret:
//! tokens stay valid across restarts, as AWS's do for a while.
//!
//! ```
//! use stratus_core::paging::{PageSize, Token};
//!
//! let listing = Token::for_listing("sqs:ListQueues");
//! let token = listing.encode(b"orders");
//! assert_eq!(listing.decode(&token).unwrap(), b"orders");
//! assert!(Token::for_listing("sqs:ListQueueTags").decode(&token).is_err());
//!
//! const MAX_RESULTS: PageSize = PageSize { min: 1, max: 1000, default: 1000 };
//! assert_eq!(MAX_RESULTS.check(None), Ok(1000));
//! assert!(MAX_RESULTS.check(Some(0)).is_err());
//!
//! let (page, more) = stratus_core::paging::take_page(["a", "b", "c"], 2);
//! assert_eq!((page, more), (vec!["a", "b"], true));
//! ```

use crate::hex;

/// The continuation tokens of one listing (its name, e.g. `s3:ListObjectsV2`, keeps one
/// listing's tokens out of another).
#[derive(Debug, Clone, Copy)]
pub struct Token {
    listing: &'static str,
}

/// A continuation token that this listing did not issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the continuation token was not issued by this listing")]
pub struct InvalidToken;

/// The seal's length in bytes, at the token's end.
const SEAL: usize = 8;

impl Token {
    /// The tokens of the listing called `listing`.
    pub const fn for_listing(listing: &'static str) -> Token {
        Token { listing }
    }

    /// The token that continues after `position`.
    pub fn encode(&self, position: &[u8]) -> String {
        let mut bytes = position.to_vec();
        bytes.extend_from_slice(&self.seal(position).to_be_bytes());
        hex::encode(&bytes)
    }

    /// The position `token` continues after, if this listing issued it.
    pub fn decode(&self, token: &str) -> Result<Vec<u8>, InvalidToken> {
        let mut bytes = hex::decode(token).ok_or(InvalidToken)?;
        let at = bytes.len().checked_sub(SEAL).ok_or(InvalidToken)?;
        let seal = u64::from_be_bytes(bytes[at..].try_into().expect("SEAL bytes"));
        bytes.truncate(at);
        (seal == self.seal(&bytes)).then_some(bytes).ok_or(InvalidToken)
    }

    /// The token that continues after the name `position`.
    pub fn encode_str(&self, position: &str) -> String {
        self.encode(position.as_bytes())
    }

    /// The name `token` continues after, if this listing issued it.
    pub fn decode_str(&self, token: &str) -> Result<String, InvalidToken> {
        String::from_utf8(self.decode(token)?).map_err(|_| InvalidToken)
    }

    /// FNV-1a (64-bit) over the listing's name, a separator and the position: stable across
    /// builds and platforms, unlike std's hasher.
    fn seal(&self, position: &[u8]) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in self.listing.as_bytes().iter().chain(&[0]).chain(position) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash
    }
}

/// A listing's bounds on the page size a request asks for (`MaxResults`, `MaxItems`,
/// `Limit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSize {
    /// The smallest size a request may ask for.
    pub min: u32,
    /// The largest.
    pub max: u32,
    /// The size when the request asks for none.
    pub default: u32,
}

/// A page size outside a listing's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("page size {asked} is not between {min} and {max}")]
pub struct PageSizeOutOfRange {
    /// What the request asked for.
    pub asked: i64,
    /// The listing's smallest page.
    pub min: u32,
    /// The listing's largest page.
    pub max: u32,
}

impl PageSize {
    /// The page size `asked` names, refused outside the bounds (SQS's `MaxResults`).
    pub fn check(&self, asked: Option<i32>) -> Result<usize, PageSizeOutOfRange> {
        match asked {
            None => Ok(self.default as usize),
            Some(n) if i64::from(n) >= i64::from(self.min) && i64::from(n) <= i64::from(self.max) => Ok(n as usize),
            Some(n) => Err(PageSizeOutOfRange {
                asked: n.into(),
                min: self.min,
                max: self.max,
            }),
        }
    }

    /// The page size `asked` names, brought within the bounds (S3's `max-keys`, which lists
    /// at most 1,000 whatever is asked).
    pub fn clamp(&self, asked: Option<i32>) -> usize {
        asked.map_or(self.default, |n| n.clamp(self.min as i32, self.max as i32) as u32) as usize
    }
}

/// The first `size` of `items` (in listing order) and whether more follow: reads one item
/// past the page, no more.
pub fn take_page<T>(items: impl IntoIterator<Item = T>, size: usize) -> (Vec<T>, bool) {
    let mut items = items.into_iter();
    let page: Vec<T> = items.by_ref().take(size).collect();
    let more = items.next().is_some();
    (page, more)
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUEUES: Token = Token::for_listing("sqs:ListQueues");

    #[test]
    fn tokens_round_trip_any_position() {
        for position in [&b""[..], b"a", b"orders.fifo", &[0, 255, 7]] {
            assert_eq!(QUEUES.decode(&QUEUES.encode(position)).unwrap(), position);
        }
        assert_eq!(QUEUES.decode_str(&QUEUES.encode_str("jobs")).unwrap(), "jobs");
    }

    #[test]
    fn an_edited_token_is_refused() {
        let token = QUEUES.encode_str("orders");
        for i in 0..token.len() {
            let mut edited = token.clone().into_bytes();
            edited[i] = if edited[i] == b'0' { b'1' } else { b'0' };
            let edited = String::from_utf8(edited).unwrap();
            assert_eq!(QUEUES.decode(&edited), Err(InvalidToken), "{edited}");
        }
        for cut in 0..token.len() {
            assert_eq!(QUEUES.decode(&token[..cut]), Err(InvalidToken));
        }
        assert_eq!(QUEUES.decode("not hex"), Err(InvalidToken));
        // The old unsealed form (the hex of the name alone) is not a token either.
        assert_eq!(QUEUES.decode(&hex::encode(b"orders-and-more")), Err(InvalidToken));
    }

    #[test]
    fn another_listings_token_is_refused() {
        let token = QUEUES.encode_str("orders");
        assert_eq!(
            Token::for_listing("sqs:ListDeadLetterSourceQueues").decode(&token),
            Err(InvalidToken)
        );
    }

    #[test]
    fn page_sizes_are_checked_or_clamped() {
        let size = PageSize {
            min: 1,
            max: 1000,
            default: 1000,
        };
        assert_eq!(size.check(None), Ok(1000));
        assert_eq!(size.check(Some(1)), Ok(1));
        assert_eq!(size.check(Some(1000)), Ok(1000));
        assert_eq!(
            size.check(Some(1001)),
            Err(PageSizeOutOfRange {
                asked: 1001,
                min: 1,
                max: 1000
            })
        );
        assert!(size.check(Some(i32::MIN)).is_err());
        assert_eq!(size.clamp(Some(5000)), 1000);
        assert_eq!(size.clamp(Some(-3)), 1);
        assert_eq!(size.clamp(None), 1000);
    }

    #[test]
    fn a_page_says_whether_more_follow() {
        assert_eq!(take_page(1..=3, 3), (vec![1, 2, 3], false));
        assert_eq!(take_page(1..=4, 3), (vec![1, 2, 3], true));
        assert_eq!(take_page(1..=4, 0), (vec![], true));
    }
}
