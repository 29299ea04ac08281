//! ListObjects, ListObjectsV2 and ListObjectVersions: keys after a marker, under a prefix,
//! rolled up into common prefixes at a delimiter, one page at a time, read from the store a
//! chunk at a time as the page fills (a page costs what it lists, not the bucket's size).

use std::collections::VecDeque;
use std::ops::Bound;

use stratus_core::paging::Token;
use stratus_core::AwsError;
use stratus_storage::{Codec, Direction, Json, KeyRange, Read, Table};

use crate::error::S3Error;
use crate::MAX_KEYS;

/// The first chunk a scan reads; later ones double, up to [`MAX_CHUNK`].
const FIRST_CHUNK: usize = 64;
const MAX_CHUNK: usize = 4096;

/// The records of `table` between two bounds, fetched lazily in growing chunks. A storage
/// failure or an undecodable record ends the iteration and is kept in `error`.
pub(crate) struct Scan<'a, R: Read + ?Sized, T> {
    reader: &'a R,
    table: Table<T>,
    start: Bound<Vec<u8>>,
    end: Bound<Vec<u8>>,
    buffer: VecDeque<T>,
    chunk: usize,
    done: bool,
    pub error: Option<AwsError>,
}

impl<'a, R: Read + ?Sized, T> Scan<'a, R, T> {
    pub(crate) fn new(reader: &'a R, table: Table<T>, start: Bound<Vec<u8>>, end: Bound<Vec<u8>>) -> Self {
        Scan {
            reader,
            table,
            start,
            end,
            buffer: VecDeque::new(),
            chunk: FIRST_CHUNK,
            done: false,
            error: None,
        }
    }
}

impl<R: Read + ?Sized, T> Iterator for Scan<'_, R, T>
where
    Json: Codec<T>,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.buffer.is_empty() && !self.done {
            let range = KeyRange::between(
                self.start.as_ref().map(Vec::as_slice),
                self.end.as_ref().map(Vec::as_slice),
            );
            match self
                .table
                .scan(self.reader, &range, Direction::Forward, Some(self.chunk))
            {
                Ok(batch) => {
                    self.done = batch.len() < self.chunk;
                    if let Some((last, _)) = batch.last() {
                        self.start = Bound::Excluded(last.clone());
                    }
                    self.buffer.extend(batch.into_iter().map(|(_, record)| record));
                    self.chunk = (self.chunk * 2).min(MAX_CHUNK);
                }
                Err(e) => {
                    self.error = Some(S3Error::storage(e));
                    self.done = true;
                }
            }
        }
        self.buffer.pop_front()
    }
}

/// One page of a listing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Page<T> {
    pub contents: Vec<T>,
    pub common_prefixes: Vec<String>,
    pub truncated: bool,
    /// The last key or common prefix on the page: where the next page starts after.
    pub last: Option<String>,
    /// Whether `last` is a common prefix.
    pub last_is_prefix: bool,
}

/// Lists `entries` (sorted by key, all after the marker and under `prefix`) as S3 does: a key
/// with `delimiter` after the prefix counts once, as its common prefix; at most `max_keys`
/// keys and prefixes together.
pub(crate) fn page<T>(
    entries: impl IntoIterator<Item = (String, T)>,
    prefix: &str,
    delimiter: Option<&str>,
    max_keys: usize,
) -> Page<T> {
    let mut page = Page {
        contents: Vec::new(),
        common_prefixes: Vec::new(),
        truncated: false,
        last: None,
        last_is_prefix: false,
    };
    for (key, entry) in entries {
        let rolled_up = delimiter.filter(|d| !d.is_empty()).and_then(|d| {
            key[prefix.len()..]
                .find(d)
                .map(|at| key[..prefix.len() + at + d.len()].to_owned())
        });
        if let Some(common) = &rolled_up {
            if page.common_prefixes.last() == Some(common) {
                continue;
            }
        }
        if page.contents.len() + page.common_prefixes.len() == max_keys {
            page.truncated = true;
            break;
        }
        match rolled_up {
            Some(common) => {
                page.last = Some(common.clone());
                page.last_is_prefix = true;
                page.common_prefixes.push(common);
            }
            None => {
                page.last = Some(key);
                page.last_is_prefix = false;
                page.contents.push(entry);
            }
        }
    }
    page
}

/// A listing's `max-keys`: at most 1000, 1000 when not given.
pub(crate) fn max_keys(given: Option<i32>) -> Result<usize, AwsError> {
    match given {
        None => Ok(MAX_KEYS),
        Some(n) if n < 0 => Err(S3Error::invalid_argument(
            "Argument maxKeys must be an integer between 0 and 2147483647",
        )),
        Some(n) => Ok((n as usize).min(MAX_KEYS)),
    }
}

/// A key as a listing with `encoding-type=url` sends it: UTF-8 bytes percent-encoded except
/// unreserved characters and `/`, a space as `+` (botocore decodes with `unquote_plus`).
pub(crate) fn url_encode(text: &str) -> String {
    plus_encode(text, b'~')
}

/// `text` percent-encoded as S3 writes keys into listings and event messages: every UTF-8 byte
/// but ASCII letters, digits, `-`, `_`, `.`, `/` and `also_kept`, with a space as `+`.
pub(crate) fn plus_encode(text: &str, also_kept: u8) -> String {
    escape(text, &[b'/', also_kept], "+")
}

/// `text` percent-encoded: every UTF-8 byte but ASCII letters, digits, `-`, `_`, `.` and
/// `kept`, with a space as `space`.
pub(crate) fn escape(text: &str, kept: &[u8], space: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => out.push(b as char),
            b if kept.contains(&b) => out.push(b as char),
            b' ' => out.push_str(space),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// ListObjectsV2's continuation tokens, which continue after a key or common prefix.
pub(crate) const OBJECT_LISTING: Token = Token::for_listing("s3:ListObjectsV2");
/// ListBuckets' and ListDirectoryBuckets', which continue after a bucket name.
pub(crate) const BUCKET_LISTING: Token = Token::for_listing("s3:ListBuckets");
/// ListObjectAnnotations', which continue after an annotation name.
pub(crate) const ANNOTATION_LISTING: Token = Token::for_listing("s3:ListObjectAnnotations");

/// The name a continuation token of `listing` continues after, refused in S3's words.
pub(crate) fn decode_token(listing: Token, token: &str) -> Result<String, AwsError> {
    listing
        .decode_str(token)
        .map_err(|_| S3Error::invalid_argument("The continuation token provided is incorrect"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(names: &[&str]) -> Vec<(String, String)> {
        names.iter().map(|k| ((*k).to_owned(), (*k).to_owned())).collect()
    }

    #[test]
    fn scans_read_in_chunks_across_the_whole_range() {
        use stratus_storage::{Durability, Namespace, Storage, StorageConfig, Store};
        // Each record is its own key.
        const KEYS: Table<String> = Table::new("t");
        let store = Storage::open(StorageConfig::Ephemeral)
            .unwrap()
            .store(&Namespace::global("shared", "s3"), Durability::Strict)
            .unwrap();
        store
            .transact(|tx| {
                for key in (0..300u32).map(|i| format!("k{i:04}")).chain(["z".to_owned()]) {
                    KEYS.put(tx, key.clone(), &key)?;
                }
                Ok::<_, stratus_storage::StorageError>(())
            })
            .unwrap();
        let view: &dyn Store = store.as_ref();
        let keys: Vec<String> = Scan::new(
            view,
            KEYS,
            Bound::Excluded(b"k0009".to_vec()),
            Bound::Excluded(b"l".to_vec()),
        )
        .collect();
        assert_eq!(keys.len(), 290);
        assert_eq!(keys.first().unwrap(), "k0010");
        assert_eq!(keys.last().unwrap(), "k0299");
        // A page stops reading once it is full.
        let mut scan = Scan::new(view, KEYS, Bound::Unbounded, Bound::Unbounded);
        let p = page(scan.by_ref().map(|k| (k, ())), "", None, 10);
        assert!(p.truncated);
        assert_eq!(p.last.as_deref(), Some("k0009"));
        // One chunk read: the 11 entries looked at, the rest still buffered.
        assert!(!scan.done);
        assert_eq!(scan.buffer.len(), FIRST_CHUNK - 11);
    }

    #[test]
    fn delimiter_rolls_keys_up() {
        let all = keys(&["a.txt", "photos/2024/x.jpg", "photos/2024/y.jpg", "photos/z.jpg", "z"]);
        let p = page(all.clone(), "", Some("/"), 1000);
        assert_eq!(p.contents, vec!["a.txt", "z"]);
        assert_eq!(p.common_prefixes, vec!["photos/"]);
        assert!(!p.truncated);
        let under: Vec<_> = all.into_iter().filter(|(k, _)| k.starts_with("photos/")).collect();
        let p = page(under, "photos/", Some("/"), 1000);
        assert_eq!(p.contents, vec!["photos/z.jpg"]);
        assert_eq!(p.common_prefixes, vec!["photos/2024/"]);
    }

    #[test]
    fn pages_count_prefixes_and_keys() {
        let all = keys(&["a", "b/1", "b/2", "c", "d"]);
        let p = page(all, "", Some("/"), 2);
        assert_eq!(
            (p.contents.clone(), p.common_prefixes.clone()),
            (vec!["a".to_owned()], vec!["b/".to_owned()])
        );
        assert!(p.truncated);
        assert_eq!(p.last.as_deref(), Some("b/"));
    }

    // Keys come back percent-encoded with `encoding-type=url` (botocore asks for it and
    // decodes with unquote_plus).
    #[test]
    fn url_encoded_keys() {
        assert_eq!(url_encode("a b+c/d%é"), "a+b%2Bc/d%25%C3%A9");
    }

    #[test]
    fn tokens_round_trip_within_their_listing() {
        let token = OBJECT_LISTING.encode_str("photos/a b");
        assert_eq!(decode_token(OBJECT_LISTING, &token).unwrap(), "photos/a b");
        let refused = decode_token(BUCKET_LISTING, &token).unwrap_err();
        assert_eq!(
            (refused.code.as_str(), refused.message.as_str()),
            ("InvalidArgument", "The continuation token provided is incorrect")
        );
        assert!(decode_token(OBJECT_LISTING, "zz").is_err());
    }
}
