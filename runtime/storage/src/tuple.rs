//! Tuple keys: several parts (strings, byte strings, integers) in one storage key, encoded so
//! that keys sort as their tuples do, part by part, and so that the encoding of a tuple's
//! leading parts is a scan prefix for every key that begins with them.
//!
//! Each part is self-delimiting:
//!
//! - a string or byte string: its bytes with `00` escaped as `00 FF`, then the terminator
//!   `00 01` (so `"a"` sorts before `"a\0"` and before `"ab"`). DynamoDB's key encoding for
//!   `S` and `B` values is this one;
//! - a `u64`: eight bytes, big-endian; an `i64`: the same with its sign bit flipped, so
//!   negative numbers sort first.
//!
//! A key says nothing about its parts' types: decode it with the same sequence of types it
//! was built with.
//!
//! ```
//! use stratus_storage::tuple::{TupleKey, TupleReader};
//!
//! let key = TupleKey::new().str("orders").u64(7).into_bytes();
//! assert!(key < TupleKey::new().str("orders").u64(8).into_bytes());
//! assert!(key.starts_with(&TupleKey::new().str("orders").into_bytes()));
//!
//! let mut parts = TupleReader::new(&key);
//! assert_eq!(parts.string()?, "orders");
//! assert_eq!(parts.u64()?, 7);
//! parts.finish()?;
//! # Ok::<_, stratus_storage::tuple::TupleError>(())
//! ```

/// A key that is not the encoding of the tuple it is read as.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TupleError {
    /// The bytes from `at` on are not the encoding of the part asked for.
    #[error("malformed tuple key: no valid {part} at byte {at}")]
    Malformed {
        /// What was being read ("string", "u64", …).
        part: &'static str,
        /// Where it should have started.
        at: usize,
    },
    /// Bytes remain after the last part.
    #[error("malformed tuple key: {left} bytes after the last part")]
    TrailingBytes {
        /// How many.
        left: usize,
    },
}

const ESCAPE: [u8; 2] = [0x00, 0xff];
const TERMINATOR: [u8; 2] = [0x00, 0x01];
const SIGN_BIT: u64 = 1 << 63;

/// Builds a tuple key part by part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TupleKey(Vec<u8>);

impl TupleKey {
    /// A key with no parts yet.
    pub fn new() -> Self {
        TupleKey::default()
    }

    /// Appends a string part.
    pub fn str(self, part: &str) -> Self {
        self.bytes(part.as_bytes())
    }

    /// Appends a byte-string part.
    pub fn bytes(mut self, part: &[u8]) -> Self {
        push_bytes(&mut self.0, part);
        self
    }

    /// Appends an unsigned integer part.
    pub fn u64(mut self, part: u64) -> Self {
        self.0.extend_from_slice(&part.to_be_bytes());
        self
    }

    /// Appends a signed integer part.
    pub fn i64(self, part: i64) -> Self {
        self.u64(part as u64 ^ SIGN_BIT)
    }

    /// The encoded key.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

impl From<TupleKey> for Vec<u8> {
    fn from(key: TupleKey) -> Vec<u8> {
        key.0
    }
}

/// Appends the encoding of the byte-string part `part` to `out`.
pub fn push_bytes(out: &mut Vec<u8>, part: &[u8]) {
    out.reserve(part.len() + TERMINATOR.len());
    for &byte in part {
        if byte == 0 {
            out.extend_from_slice(&ESCAPE);
        } else {
            out.push(byte);
        }
    }
    out.extend_from_slice(&TERMINATOR);
}

/// Decodes the byte-string part at the front of `key`: the part and the number of bytes its
/// encoding took; `None` if `key` does not start with one.
pub fn read_bytes(key: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut part = Vec::with_capacity(key.len());
    let mut at = 0;
    loop {
        match key.get(at..)? {
            [0x00, 0x01, ..] => return Some((part, at + TERMINATOR.len())),
            [0x00, 0xff, ..] => {
                part.push(0);
                at += ESCAPE.len();
            }
            [0x00, ..] | [] => return None,
            [byte, ..] => {
                part.push(*byte);
                at += 1;
            }
        }
    }
}

/// Reads a tuple key's parts in the order they were built.
#[derive(Debug, Clone)]
pub struct TupleReader<'a> {
    key: &'a [u8],
    at: usize,
}

impl<'a> TupleReader<'a> {
    /// A reader at the start of `key`.
    pub fn new(key: &'a [u8]) -> Self {
        TupleReader { key, at: 0 }
    }

    /// The next part, a byte string.
    pub fn bytes(&mut self) -> Result<Vec<u8>, TupleError> {
        let (part, used) = read_bytes(&self.key[self.at..]).ok_or_else(|| self.malformed("byte string"))?;
        self.at += used;
        Ok(part)
    }

    /// The next part, a UTF-8 string.
    pub fn string(&mut self) -> Result<String, TupleError> {
        let start = self.at;
        let part = self.bytes()?;
        String::from_utf8(part).map_err(|_| TupleError::Malformed {
            part: "string",
            at: start,
        })
    }

    /// The next part, an unsigned integer.
    pub fn u64(&mut self) -> Result<u64, TupleError> {
        let end = self.at + 8;
        let bytes = self.key.get(self.at..end).ok_or_else(|| self.malformed("integer"))?;
        let mut be = [0; 8];
        be.copy_from_slice(bytes);
        self.at = end;
        Ok(u64::from_be_bytes(be))
    }

    /// The next part, a signed integer.
    pub fn i64(&mut self) -> Result<i64, TupleError> {
        Ok((self.u64()? ^ SIGN_BIT) as i64)
    }

    /// Checks that every byte was read.
    pub fn finish(self) -> Result<(), TupleError> {
        match self.key.len() - self.at {
            0 => Ok(()),
            left => Err(TupleError::TrailingBytes { left }),
        }
    }

    fn malformed(&self, part: &'static str) -> TupleError {
        TupleError::Malformed { part, at: self.at }
    }
}
