//! Object and part bodies on their way into blobs: read from the request (streamed by the
//! gateway, or whole) or from another object's blob, and measured — size, MD5 (the ETag) and
//! a checksum — as they are written, so that a body is never held in memory whole.

use std::io::{self, Cursor, Read, Seek, SeekFrom};

use md5::{Digest, Md5};
use stratus_core::{AwsError, BodyReader, RequestContext};
use stratus_gen_s3::ChecksumAlgorithm;
use stratus_storage::{Blob, Store};

use crate::checksum::{self, Algorithm, Hasher, Sent};
use crate::chunked::{Decoder, Framing};
use crate::error::S3Error;

/// The largest object a single PutObject, and the largest part an UploadPart, may carry.
pub(crate) const MAX_SINGLE_UPLOAD: u64 = 5 << 30;

/// Where a body comes from.
pub(crate) enum Source {
    /// A request's payload, as sent.
    Request(BodyReader),
    /// A request's aws-chunked payload, decoded as it is read.
    Chunked(Box<Decoder<BodyReader>>),
    /// The bytes `range` (inclusive; all when `None`) of another object's body, opened
    /// (copies).
    Blob(Blob, Option<(u64, u64)>),
}

/// A request's payload, and the checksum its aws-chunked trailer will carry.
pub(crate) struct Incoming {
    pub source: Source,
    /// The algorithm of the trailer's checksum, as `x-amz-trailer` announces it.
    pub trailer: Option<Algorithm>,
}

impl Incoming {
    /// The payload of the request `ctx` serves: the stream the gateway hands over for a large
    /// body, else `body` (the input's payload member), decoded as it is read if its headers
    /// say it is aws-chunked.
    pub(crate) fn of(ctx: &RequestContext, body: Vec<u8>) -> Result<Incoming, AwsError> {
        let reader = ctx
            .streams
            .take_request()
            .unwrap_or_else(|| Box::new(Cursor::new(body)));
        Ok(match Framing::of(&ctx.framing)? {
            Some(framing) => Incoming {
                source: Source::Chunked(Box::new(
                    Decoder::new(reader, framing).with_signatures(ctx.streams.take_chunk_signatures()),
                )),
                trailer: framing.trailer,
            },
            None => Incoming {
                source: Source::Request(reader),
                trailer: None,
            },
        })
    }
}

/// A request's payload with the digests its headers declare for it (PutObject's and
/// PutObjectAnnotation's).
pub(crate) struct Declared {
    pub incoming: Incoming,
    /// The binary MD5 `Content-MD5` states.
    pub content_md5: Option<Vec<u8>>,
    pub sent: Option<Sent>,
    /// The algorithm to compute: the one sent, else CRC64NVME, as on AWS since December 2024.
    pub algorithm: Algorithm,
}

impl Declared {
    pub(crate) fn of(
        ctx: &RequestContext,
        body: Vec<u8>,
        content_md5: Option<&str>,
        sdk: Option<&ChecksumAlgorithm>,
        headers: [Option<&str>; checksum::COUNT],
    ) -> Result<Declared, AwsError> {
        let incoming = Incoming::of(ctx, body)?;
        let content_md5 = content_md5.map(crate::object::content_md5).transpose()?;
        let sent = checksum::requested(sdk, headers, incoming.trailer)?;
        let algorithm = sent.as_ref().map_or(Algorithm::Crc64Nvme, Sent::algorithm);
        Ok(Declared {
            incoming,
            content_md5,
            sent,
            algorithm,
        })
    }
}

/// What a written body measured.
pub(crate) struct Written {
    pub size: u64,
    pub md5: Vec<u8>,
    /// The digest of the algorithm asked for, if one was.
    pub checksum: Option<Vec<u8>>,
    /// The checksum an aws-chunked body's trailer carried: its algorithm and value as sent.
    pub trailer: Option<(Algorithm, String)>,
}

/// How a `BadDigest` writes the `Content-MD5` it expected: AWS's PutObject answers it in hex,
/// its UploadPart in base64, as sent.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DigestText {
    Hex,
    Base64,
}

impl Written {
    /// The ETag of a body written in one piece: its MD5, quoted.
    pub(crate) fn etag(&self) -> String {
        format!("\"{}\"", stratus_core::hex::encode(&self.md5))
    }

    /// Checks the body against the request's `Content-MD5` (binary) and the checksum it sent.
    /// A `BadDigest` names both digests, the expected one written as `expected` says.
    pub(crate) fn verify(
        &self,
        content_md5: Option<&[u8]>,
        sent: Option<&Sent>,
        expected: DigestText,
    ) -> Result<(), AwsError> {
        if let Some(digest) = content_md5.filter(|digest| *digest != self.md5.as_slice()) {
            let written = match expected {
                DigestText::Hex => stratus_core::hex::encode(digest),
                DigestText::Base64 => checksum::encode(digest),
            };
            return Err(S3Error::bad_digest()
                .with_detail("CalculatedDigest", checksum::encode(&self.md5))
                .with_detail("ExpectedDigest", written));
        }
        if let Some(sent) = sent {
            if self.checksum.as_ref() != Some(&sent.digest(self.trailer.as_ref())?) {
                return Err(checksum::bad_digest(sent.algorithm()));
            }
        }
        Ok(())
    }
}

/// Writes `source` as blob `name` of `store`, measuring it; refuses a body over `limit` bytes
/// (and leaves no blob behind when it fails). Blocking: runs on a blocking thread.
pub(crate) fn write(
    store: &dyn Store,
    name: &str,
    source: Source,
    algorithm: Option<Algorithm>,
    limit: u64,
) -> Result<Written, AwsError> {
    let written = consume(source, algorithm, limit, |body| {
        store.put_blob(name, body).map_err(S3Error::storage)
    });
    if written.is_err() {
        // A half-written blob may be left; it is never named by a record.
        let _ = store.delete_blob(name);
    }
    written.map(|(_, written)| written)
}

/// Reads a small body (an annotation's payload) whole from `source`, measuring it; refuses
/// one over `limit` bytes.
pub(crate) fn read_whole(source: Source, algorithm: Algorithm, limit: u64) -> Result<(Vec<u8>, Written), AwsError> {
    consume(source, Some(algorithm), limit, |body| {
        let mut bytes = Vec::new();
        body.read_to_end(&mut bytes)
            .map_err(|e| AwsError::internal(format!("reading the request body: {e}")))?;
        Ok(bytes)
    })
}

/// Hands `source` to `sink` through a measuring reader that refuses more than `limit` bytes;
/// returns what `sink` made of it and the measures (with an aws-chunked body's trailer).
fn consume<T>(
    source: Source,
    algorithm: Option<Algorithm>,
    limit: u64,
    sink: impl FnOnce(&mut dyn Read) -> Result<T, AwsError>,
) -> Result<(T, Written), AwsError> {
    match source {
        Source::Request(reader) => measure(reader, algorithm, limit, sink).map(|(out, written, _)| (out, written)),
        Source::Chunked(decoder) => {
            let (out, written, decoder) = measure(decoder, algorithm, limit, sink)?;
            let trailer = decoder.into_checksum();
            Ok((out, Written { trailer, ..written }))
        }
        Source::Blob(blob, range) => {
            measure(reader(blob, range)?, algorithm, limit, sink).map(|(out, written, _)| (out, written))
        }
    }
}

/// [`consume`] from `reader`, which it returns when the body has been read to its end.
fn measure<R: Read, T>(
    reader: R,
    algorithm: Option<Algorithm>,
    limit: u64,
    sink: impl FnOnce(&mut dyn Read) -> Result<T, AwsError>,
) -> Result<(T, Written, R), AwsError> {
    let mut measuring = Measuring {
        inner: reader,
        size: 0,
        limit,
        md5: Md5::new(),
        checksum: algorithm.map(Algorithm::hasher),
        failure: None,
    };
    let out = sink(&mut measuring).map_err(|e| measuring.failure.take().unwrap_or(e))?;
    let written = Written {
        size: measuring.size,
        md5: measuring.md5.finalize().to_vec(),
        checksum: measuring.checksum.map(Hasher::finish),
        trailer: None,
    };
    Ok((out, written, measuring.inner))
}

/// The bytes `range` (inclusive; all when `None`) of an opened body, as a reader.
pub(crate) fn reader(mut body: Blob, range: Option<(u64, u64)>) -> Result<BodyReader, AwsError> {
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
                // A decoder's refusal, or the connection broken off.
                self.failure = Some(S3Error::from_io(&e).unwrap_or_else(S3Error::body_length_mismatch));
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
        assert!(written.verify(Some(&md5), None, DigestText::Hex).is_ok());
        assert_eq!(
            written.verify(Some(&[0; 16]), None, DigestText::Hex).unwrap_err().code,
            "BadDigest"
        );
        let good = Sent::Header(Algorithm::Sha256, Algorithm::Sha256.digest(b"hello"));
        assert!(written.verify(None, Some(&good), DigestText::Hex).is_ok());
        let bad = Sent::Header(Algorithm::Sha256, Algorithm::Sha256.digest(b"hellO"));
        assert_eq!(
            written.verify(None, Some(&bad), DigestText::Hex).unwrap_err().code,
            "BadDigest"
        );
    }

    fn chunked(bytes: &'static [u8], trailer: Option<Algorithm>) -> Source {
        let framing = Framing {
            decoded_length: None,
            trailer,
        };
        Source::Chunked(Box::new(Decoder::new(Box::new(bytes), framing)))
    }

    // An aws-chunked body is stored decoded, measured as decoded, and checked against the
    // checksum its trailer carried.
    #[test]
    fn decodes_chunked_bodies_and_verifies_their_trailer() {
        let store = store();
        let crc32 = Some(Algorithm::Crc32);
        let body = b"b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n";
        let written = write(store.as_ref(), "b", chunked(body, crc32), crc32, 100).unwrap();
        assert_eq!(store.get_blob("b").unwrap(), Some(b"hello world".to_vec()));
        assert_eq!(written.size, 11);
        assert_eq!(written.trailer, Some((Algorithm::Crc32, "DUoRhQ==".to_string())));
        assert!(written
            .verify(None, Some(&Sent::Trailer(Algorithm::Crc32)), DigestText::Hex)
            .is_ok());

        let wrong = b"b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n";
        let written = write(store.as_ref(), "w", chunked(wrong, crc32), crc32, 100).unwrap();
        let refused = written.verify(None, Some(&Sent::Trailer(Algorithm::Crc32)), DigestText::Hex);
        assert_eq!(
            refused.unwrap_err().message,
            "The CRC32 you specified did not match the calculated checksum."
        );

        // The decoder's refusal is the body's, and nothing is left behind.
        let cut = write(store.as_ref(), "cut", chunked(b"b\r\nhello", None), None, 100)
            .err()
            .unwrap();
        assert_eq!(cut.message, "The request body terminated unexpectedly");
        assert_eq!(store.get_blob("cut").unwrap(), None);
    }
}
