//! Object and part bodies on their way into blobs: read from the request (streamed by the
//! gateway, or whole) or from another object's blob, and measured — size, MD5 (the ETag) and
//! a checksum — as they are written, so that a body is never held in memory whole.

use std::io::{self, Cursor, Read, Seek, SeekFrom};

use md5::{Digest, Md5};
use stratus_core::{AwsError, BodyReader, RequestContext};
use stratus_storage::{Blob, Store};

use crate::checksum::{self, Algorithm, Hasher};
use crate::chunked::Payload;
use crate::error::S3Error;

/// The largest object a single PutObject, and the largest part an UploadPart, may carry.
pub const MAX_SINGLE_UPLOAD: u64 = 5 << 30;

/// Where a body comes from.
pub enum Source {
    /// A request's payload.
    Request(BodyReader),
    /// The bytes `range` (inclusive; all when `None`) of another object's body, opened
    /// (copies).
    Blob(Blob, Option<(u64, u64)>),
}

/// A request's payload and the checksum its aws-chunked trailer carried.
pub struct Incoming {
    pub source: Source,
    pub trailer: Option<(Algorithm, String)>,
}

impl Incoming {
    /// The payload of the request `ctx` serves: the stream the gateway hands over for a large
    /// body, else `body` (the input's payload member), decoded if it is aws-chunked (`declared`
    /// by its Content-Encoding, or `trailer_expected` because a checksum algorithm was named
    /// without a value).
    pub fn of(
        ctx: &RequestContext,
        body: Vec<u8>,
        declared: bool,
        trailer_expected: bool,
    ) -> Result<Incoming, AwsError> {
        if let Some(stream) = ctx.streams.take_request() {
            return Ok(Incoming {
                source: Source::Request(stream),
                trailer: None,
            });
        }
        let payload = Payload::new(body, declared, trailer_expected)?;
        Ok(Incoming {
            source: Source::Request(Box::new(Cursor::new(payload.body))),
            trailer: payload.trailer,
        })
    }

    pub fn trailer(&self) -> Option<(Algorithm, &str)> {
        self.trailer.as_ref().map(|(a, v)| (*a, v.as_str()))
    }
}

/// What a written body measured.
pub struct Written {
    pub size: u64,
    pub md5: Vec<u8>,
    /// The digest of the algorithm asked for, if one was.
    pub checksum: Option<Vec<u8>>,
}

impl Written {
    /// The ETag of a body written in one piece: its MD5, quoted.
    pub fn etag(&self) -> String {
        format!("\"{}\"", stratus_core::hex::encode(&self.md5))
    }

    /// Checks the body against the request's `Content-MD5` (binary) and checksum.
    pub fn verify(&self, content_md5: Option<&[u8]>, checksum: Option<&(Algorithm, Vec<u8>)>) -> Result<(), AwsError> {
        if content_md5.is_some_and(|expected| expected != self.md5.as_slice()) {
            return Err(S3Error::bad_digest());
        }
        if let Some((algorithm, expected)) = checksum {
            if self.checksum.as_ref() != Some(expected) {
                return Err(checksum::bad_digest(*algorithm));
            }
        }
        Ok(())
    }
}

/// Writes `source` as blob `name` of `store`, measuring it; refuses a body over `limit` bytes
/// (and leaves no blob behind when it fails). Blocking: runs on a blocking thread.
pub fn write(
    store: &dyn Store,
    name: &str,
    source: Source,
    algorithm: Option<Algorithm>,
    limit: u64,
) -> Result<Written, AwsError> {
    let reader: Box<dyn Read> = match source {
        Source::Request(reader) => reader,
        Source::Blob(blob, range) => reader(blob, range)?,
    };
    let mut measuring = Measuring {
        inner: reader,
        size: 0,
        limit,
        md5: Md5::new(),
        checksum: algorithm.map(Algorithm::hasher),
        failure: None,
    };
    let written = store.put_blob(name, &mut measuring);
    if let Err(e) = written {
        // A half-written blob may be left; it is never named by a record.
        let _ = store.delete_blob(name);
        return Err(measuring.failure.take().unwrap_or_else(|| S3Error::storage(e)));
    }
    Ok(Written {
        size: measuring.size,
        md5: measuring.md5.finalize().to_vec(),
        checksum: measuring.checksum.map(Hasher::finish),
    })
}

/// The bytes `range` (inclusive; all when `None`) of an opened body, as a reader.
pub fn reader(mut body: Blob, range: Option<(u64, u64)>) -> Result<BodyReader, AwsError> {
    Ok(match range {
        None => Box::new(body),
        Some((start, end)) => {
            body.seek(SeekFrom::Start(start)).map_err(read_failed)?;
            Box::new(body.take(end - start + 1))
        }
    })
}

fn read_failed(e: io::Error) -> AwsError {
    AwsError::internal(format!("reading object body: {e}"))
}

/// A reader that measures what passes through it and stops at a size limit; the error the
/// client should see is kept in `failure`, since the storage layer wraps I/O errors.
struct Measuring<R> {
    inner: R,
    size: u64,
    limit: u64,
    md5: Md5,
    checksum: Option<Hasher>,
    failure: Option<AwsError>,
}

impl<R: Read> Read for Measuring<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) => {
                // A reader may carry the refusal itself (a POST upload's form and size checks).
                let carried = e.get_ref().and_then(|inner| inner.downcast_ref::<AwsError>());
                self.failure = Some(carried.cloned().unwrap_or_else(S3Error::incomplete_body));
                return Err(e);
            }
        };
        self.size += n as u64;
        if self.size > self.limit {
            self.failure = Some(S3Error::entity_too_large());
            return Err(io::Error::other("the body is larger than S3 accepts"));
        }
        self.md5.update(&buf[..n]);
        if let Some(h) = &mut self.checksum {
            h.update(&buf[..n]);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_storage::{Durability, Namespace, Storage, StorageConfig};

    fn store() -> std::sync::Arc<dyn Store> {
        let storage = Storage::open(StorageConfig::Ephemeral).unwrap();
        storage
            .store(&Namespace::global("shared", "s3"), Durability::Strict)
            .unwrap()
    }

    fn request(bytes: &'static [u8]) -> Source {
        Source::Request(Box::new(bytes))
    }

    #[test]
    fn measures_what_it_writes() {
        let store = store();
        let written = write(store.as_ref(), "b", request(b"hello"), Some(Algorithm::Crc32), 100).unwrap();
        assert_eq!(written.size, 5);
        assert_eq!(written.etag(), "\"5d41402abc4b2a76b9719d911017c592\"");
        assert_eq!(written.checksum, Some(Algorithm::Crc32.digest(b"hello")));
        assert_eq!(store.get_blob("b").unwrap(), Some(b"hello".to_vec()));
        // A range of another blob.
        let source = Source::Blob(store.open_blob("b").unwrap().unwrap(), Some((1, 3)));
        let part = write(store.as_ref(), "c", source, None, 100).unwrap();
        assert_eq!((part.size, part.checksum), (3, None));
        assert_eq!(store.get_blob("c").unwrap(), Some(b"ell".to_vec()));
        let mut text = String::new();
        let opened = store.open_blob("b").unwrap().unwrap();
        reader(opened, Some((2, 4))).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "llo");
    }

    #[test]
    fn refuses_oversized_and_broken_bodies_and_leaves_no_blob() {
        let store = store();
        let too_large = write(store.as_ref(), "big", request(b"0123456789"), None, 9)
            .err()
            .unwrap();
        assert_eq!(too_large.code, "EntityTooLarge");
        assert_eq!(store.get_blob("big").unwrap(), None);

        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("connection reset"))
            }
        }
        let broken = write(store.as_ref(), "cut", Source::Request(Box::new(Broken)), None, 100)
            .err()
            .unwrap();
        assert_eq!(broken.code, "IncompleteBody");
        assert_eq!(store.get_blob("cut").unwrap(), None);

        struct Refusing;
        impl Read for Refusing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other(S3Error::invalid_argument("no")))
            }
        }
        let refused = write(store.as_ref(), "r", Source::Request(Box::new(Refusing)), None, 100)
            .err()
            .unwrap();
        assert_eq!(refused.code, "InvalidArgument");
    }

    #[test]
    fn verifies_digests() {
        let store = store();
        let written = write(store.as_ref(), "b", request(b"hello"), Some(Algorithm::Sha256), 100).unwrap();
        let md5 = written.md5.clone();
        assert!(written.verify(Some(&md5), None).is_ok());
        assert_eq!(written.verify(Some(&[0; 16]), None).unwrap_err().code, "BadDigest");
        let good = (Algorithm::Sha256, Algorithm::Sha256.digest(b"hello"));
        assert!(written.verify(None, Some(&good)).is_ok());
        let bad = (Algorithm::Sha256, Algorithm::Sha256.digest(b"hellO"));
        assert_eq!(written.verify(None, Some(&bad)).unwrap_err().code, "BadDigest");
    }
}
