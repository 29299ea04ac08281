//! What a scan covers: a [`KeyRange`] of byte-string keys, read in a [`Direction`].
//!
//! Keys order lexicographically by their bytes. A prefix scan is a range scan over
//! [`KeyRange::prefix`]; pagination continues from an excluded bound:
//!
//! ```
//! use std::ops::Bound;
//! use stratus_storage::KeyRange;
//!
//! let page = KeyRange::prefix(b"queue/");
//! let next = KeyRange::between(Bound::Excluded(b"queue/b".as_slice()), page.end());
//! assert!(!next.is_empty());
//! ```

use std::cmp::Ordering;
use std::ops::{Bound, RangeBounds};

/// Both ends of a non-empty range, borrowed.
pub(crate) type Bounds<'a> = (Bound<&'a [u8]>, Bound<&'a [u8]>);

/// The order a scan returns keys in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Ascending keys.
    #[default]
    Forward,
    /// Descending keys.
    Backward,
}

impl Direction {
    /// Where `a` comes relative to `b` when scanning in this direction.
    pub(crate) fn order(self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            Direction::Forward => a.cmp(b),
            Direction::Backward => b.cmp(a),
        }
    }
}

/// A range of keys, each end included, excluded or unbounded.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyRange {
    start: Bound<Vec<u8>>,
    end: Bound<Vec<u8>>,
}

impl KeyRange {
    /// Every key.
    pub fn all() -> Self {
        KeyRange {
            start: Bound::Unbounded,
            end: Bound::Unbounded,
        }
    }

    /// The keys in `range`, e.g. `"a".."c"` or `b"a".as_slice()..=b"c".as_slice()`.
    pub fn new<K: AsRef<[u8]>>(range: impl RangeBounds<K>) -> Self {
        let owned = |key: &K| key.as_ref().to_vec();
        KeyRange {
            start: range.start_bound().map(owned),
            end: range.end_bound().map(owned),
        }
    }

    /// The keys between two bounds, e.g. `(Bound::Excluded(b"a".as_slice()), Bound::Unbounded)` to
    /// continue a scan after key `a`.
    pub fn between(start: Bound<&[u8]>, end: Bound<&[u8]>) -> Self {
        KeyRange {
            start: start.map(<[u8]>::to_vec),
            end: end.map(<[u8]>::to_vec),
        }
    }

    /// Every key that starts with `prefix`.
    pub fn prefix(prefix: &[u8]) -> Self {
        KeyRange {
            start: Bound::Included(prefix.to_vec()),
            end: prefix_end(prefix),
        }
    }

    /// The lower end.
    pub fn start(&self) -> Bound<&[u8]> {
        self.start.as_ref().map(Vec::as_slice)
    }

    /// The upper end.
    pub fn end(&self) -> Bound<&[u8]> {
        self.end.as_ref().map(Vec::as_slice)
    }

    /// Whether no key can fall in the range (its start lies after its end).
    pub fn is_empty(&self) -> bool {
        match (&self.start, &self.end) {
            (Bound::Included(start) | Bound::Excluded(start), Bound::Included(end) | Bound::Excluded(end)) => {
                match start.cmp(end) {
                    Ordering::Less => false,
                    Ordering::Equal => !matches!((&self.start, &self.end), (Bound::Included(_), Bound::Included(_))),
                    Ordering::Greater => true,
                }
            }
            _ => false,
        }
    }

    /// Both ends, or `None` for an empty range (ordered maps panic on a start after the end).
    pub(crate) fn bounds(&self) -> Option<Bounds<'_>> {
        (!self.is_empty()).then(|| (self.start(), self.end()))
    }
}

/// The first key after every key that starts with `prefix`: the prefix with its last byte
/// below 0xff incremented and what follows dropped; unbounded when there is no such byte.
fn prefix_end(prefix: &[u8]) -> Bound<Vec<u8>> {
    match prefix.iter().rposition(|&byte| byte != u8::MAX) {
        Some(last) => {
            let mut end = prefix[..=last].to_vec();
            end[last] += 1;
            Bound::Excluded(end)
        }
        None => Bound::Unbounded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_end_skips_trailing_ff() {
        assert_eq!(prefix_end(b"ab"), Bound::Excluded(b"ac".to_vec()));
        assert_eq!(prefix_end(b"a\xff\xff"), Bound::Excluded(b"b".to_vec()));
        assert_eq!(prefix_end(b"\xff"), Bound::Unbounded);
        assert_eq!(prefix_end(b""), Bound::Unbounded);
    }

    #[test]
    fn emptiness() {
        assert!(!KeyRange::all().is_empty());
        assert!(!KeyRange::new("a"..="a").is_empty());
        assert!(KeyRange::new("a".."a").is_empty());
        assert!(KeyRange::new("b".."a").is_empty());
        assert!(KeyRange::between(Bound::Excluded(b"a".as_slice()), Bound::Included(b"a".as_slice())).is_empty());
        assert!(KeyRange::new("b"..).bounds().is_some());
    }
}
