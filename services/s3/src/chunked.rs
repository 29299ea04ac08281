//! aws-chunked bodies (`Content-Encoding: aws-chunked`, `x-amz-content-sha256:
//! STREAMING-…`): the SDKs frame a streamed upload as chunks, each `<hex size>[;chunk-signature=
//! <sig>]\r\n<data>\r\n`, ended by a zero-size chunk, optional trailer lines
//! (`x-amz-checksum-crc32:<base64>\r\n`, `x-amz-trailer-signature:<sig>\r\n`) and an empty line
//! (AWS's "Signature Version 4 streaming" and "Checking object integrity" guides; botocore's
//! `AwsChunkedWrapper` writes `0\r\nname:value\r\n\r\n`).
//!
//! [`Decoder`] reads the framing as the body arrives and yields only the data, so a body of any
//! size passes through in constant memory; it never panics, whatever the input. Chunk and
//! trailer signatures are checked as they arrive when the gateway verified the request's
//! signature and handed over the chain ([`ChunkSignatures`]). Refusals are AWS's, as S3's answers
//! to malformed bodies are recorded by S3-compatible servers' parity tests (versity/versitygw
//! issues 1161, 1656, 1666, 1684; scality/Arsenal pull request 2596): broken framing is
//! `IncompleteBody`; a trailer that is malformed, that `x-amz-trailer` did not announce or that
//! is missing when it did, `MalformedTrailerError`; a decoded size other than
//! `x-amz-decoded-content-length`'s, `IncompleteBody` with both numbers.

use std::io::{self, BufRead, BufReader, Read};

use sha2::{Digest, Sha256};
use stratus_core::{AwsError, ChunkSignatures, PayloadFraming};

use crate::checksum::{self, Algorithm};
use crate::error::S3Error;

/// The longest chunk header or trailer line accepted (a signature extension is ~100 bytes).
const MAX_LINE: usize = 4096;
/// The read-ahead over the raw body: the SDKs' chunks are 64 KiB.
const BUFFER: usize = 64 * 1024;

fn incomplete() -> AwsError {
    AwsError::new("IncompleteBody", "The request body terminated unexpectedly", 400)
}

fn length_mismatch(expected: u64, provided: u64) -> AwsError {
    S3Error::body_length_mismatch()
        .with_detail("NumberBytesExpected", expected.to_string())
        .with_detail("NumberBytesProvided", provided.to_string())
}

/// Whether a `Content-Encoding` names aws-chunked.
fn declared(content_encoding: Option<&str>) -> bool {
    content_encoding.is_some_and(|e| e.split(',').any(|c| c.trim().eq_ignore_ascii_case("aws-chunked")))
}

/// A `Content-Encoding` without aws-chunked (which S3 does not store), if anything is left.
pub(crate) fn stored_encoding(content_encoding: Option<String>) -> Option<String> {
    let e = content_encoding?;
    if !declared(Some(&e)) {
        return Some(e);
    }
    let rest: Vec<&str> = e
        .split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty() && !c.eq_ignore_ascii_case("aws-chunked"))
        .collect();
    (!rest.is_empty()).then(|| rest.join(","))
}

/// What a request's headers say about its aws-chunked body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Framing {
    /// `x-amz-decoded-content-length`.
    pub decoded_length: Option<u64>,
    /// The checksum `x-amz-trailer` announces.
    pub trailer: Option<Algorithm>,
}

impl Framing {
    /// The framing of a payload that is aws-chunked (by its `Content-Encoding` or its
    /// `STREAMING-` content hash); `None` for one sent as it is.
    pub(crate) fn of(headers: &PayloadFraming) -> Result<Option<Framing>, AwsError> {
        let streaming = headers
            .content_sha256
            .as_deref()
            .is_some_and(|h| h.starts_with("STREAMING-"));
        if !streaming && !declared(headers.content_encoding.as_deref()) {
            return Ok(None);
        }
        let decoded_length = match headers.decoded_content_length.as_deref() {
            Some(value) => Some(value.trim().parse().map_err(|_| S3Error::missing_content_length())?),
            None => None,
        };
        let trailer = match headers.trailer.as_deref() {
            Some(name) => Some(trailer_algorithm(name).ok_or_else(|| {
                S3Error::invalid_request("The value specified in the x-amz-trailer header is not supported")
            })?),
            None => None,
        };
        Ok(Some(Framing {
            decoded_length,
            trailer,
        }))
    }
}

/// The algorithm of a checksum header name, `x-amz-checksum-crc32`.
fn trailer_algorithm(name: &str) -> Option<Algorithm> {
    const PREFIX: &str = "x-amz-checksum-";
    let (prefix, algorithm) = name.trim().split_at_checked(PREFIX.len())?;
    prefix
        .eq_ignore_ascii_case(PREFIX)
        .then(|| Algorithm::from_name(algorithm))
        .flatten()
}

/// A chunk header's size: hex digits before an optional `;extension`.
fn chunk_size(header: &[u8]) -> Option<u64> {
    let digits = header.split(|&b| b == b';').next().unwrap_or_default();
    if digits.is_empty() || digits.len() > 16 || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u64::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// A chunk header's `chunk-signature` extension.
fn chunk_signature(header: &[u8]) -> Option<&str> {
    let header = std::str::from_utf8(header).ok()?;
    header
        .split(';')
        .skip(1)
        .find_map(|extension| extension.trim().strip_prefix("chunk-signature="))
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    ChunkHeader,
    /// Inside a chunk's data, with this many bytes of it left.
    Data(u64),
    /// After a chunk's data, before its CRLF.
    DataEnd,
    Trailer,
    Done,
}

/// The data of an aws-chunked body, read from `inner` (the raw body) as it arrives. A refusal
/// is an `io::Error` carrying the [`AwsError`] (see [`S3Error::from_io`]); once it has failed,
/// every read fails the same way.
pub(crate) struct Decoder<R> {
    inner: BufReader<R>,
    framing: Framing,
    state: State,
    line: Vec<u8>,
    decoded: u64,
    checksum: Option<(Algorithm, String)>,
    failure: Option<AwsError>,
    /// The signatures to check, when the request's own was verified.
    signed: Option<Signed>,
}

/// The chunk signatures of a body being checked, and what the current chunk has given so far.
struct Signed {
    chain: Box<dyn ChunkSignatures>,
    /// The current chunk's data, hashed as it is read.
    hash: Sha256,
    /// The current chunk's `chunk-signature`.
    signature: String,
    /// The trailer's lines other than its signature, and its signature.
    trailers: Vec<(String, String)>,
    trailer_signature: Option<String>,
}

impl<R: Read> Decoder<R> {
    pub(crate) fn new(inner: R, framing: Framing) -> Decoder<R> {
        Decoder {
            inner: BufReader::with_capacity(BUFFER, inner),
            framing,
            state: State::ChunkHeader,
            line: Vec::new(),
            decoded: 0,
            checksum: None,
            failure: None,
            signed: None,
        }
    }

    /// The same decoder, checking the body's chunk signatures against `chain`.
    pub(crate) fn with_signatures(self, chain: Option<Box<dyn ChunkSignatures>>) -> Decoder<R> {
        Decoder {
            signed: chain.map(|chain| Signed {
                chain,
                hash: Sha256::new(),
                signature: String::new(),
                trailers: Vec::new(),
                trailer_signature: None,
            }),
            ..self
        }
    }

    /// Checks the chunk just read against its signature.
    fn chunk_read(&mut self) -> io::Result<()> {
        if let Some(signed) = &mut self.signed {
            let digest: [u8; 32] = std::mem::take(&mut signed.hash).finalize().into();
            signed.chain.chunk(digest, &signed.signature).map_err(S3Error::in_io)?;
        }
        Ok(())
    }

    /// The checksum the trailer carried: `x-amz-trailer`'s algorithm and the value as sent.
    /// Set once the body has been read to its end.
    pub(crate) fn into_checksum(self) -> Option<(Algorithm, String)> {
        self.checksum
    }

    fn decode(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.state {
                State::ChunkHeader => {
                    self.read_line(incomplete)?;
                    let size = chunk_size(&self.line).ok_or_else(|| S3Error::in_io(incomplete()))?;
                    if let Some(signed) = &mut self.signed {
                        signed.signature = chunk_signature(&self.line).unwrap_or_default().to_owned();
                    }
                    self.state = match size {
                        0 => {
                            self.chunk_read()?;
                            State::Trailer
                        }
                        size => State::Data(size),
                    };
                }
                State::Data(left) => {
                    if out.is_empty() {
                        return Ok(0);
                    }
                    let want = usize::try_from(left).map_or(out.len(), |left| left.min(out.len()));
                    let n = self.inner.read(&mut out[..want])?;
                    if n == 0 {
                        return Err(S3Error::in_io(incomplete()));
                    }
                    self.decoded += n as u64;
                    if let Some(signed) = &mut self.signed {
                        signed.hash.update(&out[..n]);
                    }
                    self.state = match left - n as u64 {
                        0 => State::DataEnd,
                        left => State::Data(left),
                    };
                    return Ok(n);
                }
                State::DataEnd => {
                    self.read_line(incomplete)?;
                    if !self.line.is_empty() {
                        return Err(S3Error::in_io(incomplete()));
                    }
                    self.chunk_read()?;
                    self.state = State::ChunkHeader;
                }
                State::Trailer => {
                    self.read_line(S3Error::malformed_trailer)?;
                    if self.line.is_empty() {
                        self.finish()?;
                        self.state = State::Done;
                    } else {
                        self.trailer_line().map_err(S3Error::in_io)?;
                    }
                }
                State::Done => return Ok(0),
            }
        }
    }

    /// Reads the next line into `self.line`, without its CRLF. The body ending first is
    /// `IncompleteBody`; a line over [`MAX_LINE`] or ended by a bare LF is `malformed`.
    fn read_line(&mut self, malformed: fn() -> AwsError) -> io::Result<()> {
        self.line.clear();
        loop {
            let available = match self.inner.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Err(S3Error::in_io(incomplete()));
            }
            let (take, ended) = match available.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            if self.line.len() + take > MAX_LINE + 2 {
                return Err(S3Error::in_io(malformed()));
            }
            self.line.extend_from_slice(&available[..take]);
            self.inner.consume(take);
            if ended {
                break;
            }
        }
        if !self.line.ends_with(b"\r\n") {
            return Err(S3Error::in_io(malformed()));
        }
        self.line.truncate(self.line.len() - 2);
        Ok(())
    }

    /// One `name:value` trailer line; keeps the checksum, skips the rest (the signature).
    fn trailer_line(&mut self) -> Result<(), AwsError> {
        let text = std::str::from_utf8(&self.line).map_err(|_| S3Error::malformed_trailer())?;
        let (name, value) = text.split_once(':').ok_or_else(S3Error::malformed_trailer)?;
        let name = name.trim().to_ascii_lowercase();
        if name.is_empty() {
            return Err(S3Error::malformed_trailer());
        }
        if let Some(signed) = &mut self.signed {
            match name.as_str() {
                "x-amz-trailer-signature" => signed.trailer_signature = Some(value.trim().to_owned()),
                _ => signed.trailers.push((name.clone(), value.to_owned())),
            }
        }
        if !name.starts_with("x-amz-checksum-") {
            return Ok(());
        }
        let algorithm = trailer_algorithm(&name).ok_or_else(S3Error::malformed_trailer)?;
        if self.checksum.replace((algorithm, value.trim().to_owned())).is_some() {
            return Err(checksum::multiple_values());
        }
        Ok(())
    }

    /// After the final empty line: the body must end there, with the size and the trailer its
    /// headers announced.
    fn finish(&mut self) -> io::Result<()> {
        loop {
            match self.inner.fill_buf() {
                Ok([]) => break,
                Ok(_) => return Err(S3Error::in_io(S3Error::malformed_trailer())),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        if let Some(expected) = self.framing.decoded_length.filter(|&n| n != self.decoded) {
            return Err(S3Error::in_io(length_mismatch(expected, self.decoded)));
        }
        if self.framing.trailer != self.checksum.as_ref().map(|(a, _)| *a) {
            return Err(S3Error::in_io(S3Error::malformed_trailer()));
        }
        if let Some(signed) = &mut self.signed {
            if signed.chain.expects_trailer() || signed.trailer_signature.is_some() {
                let trailers: Vec<(&str, &str)> =
                    signed.trailers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
                let signature = signed.trailer_signature.as_deref().unwrap_or_default();
                signed.chain.trailer(&trailers, signature).map_err(S3Error::in_io)?;
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = &self.failure {
            return Err(S3Error::in_io(e.clone()));
        }
        let read = self.decode(out);
        if let Err(e) = &read {
            if e.kind() != io::ErrorKind::Interrupted {
                self.failure = Some(S3Error::from_io(e).unwrap_or_else(incomplete));
            }
        }
        read
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_test_support::{mutate, Rng};

    const SIGNED: &[u8] = b"5;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\nhello\r\n6;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n world\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n";
    // botocore's AwsChunkedWrapper framing (httpchecksum.py).
    const TRAILER: &[u8] = b"b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n";

    const PLAIN: Framing = Framing {
        decoded_length: None,
        trailer: None,
    };
    const CRC32: Framing = Framing {
        decoded_length: None,
        trailer: Some(Algorithm::Crc32),
    };

    /// Yields at most `step` bytes a read, as a network does.
    struct Dribble<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Dribble<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    type Decoded = (Vec<u8>, Option<(Algorithm, String)>);

    /// Decodes `input` fed `step` bytes at a time, read `read` bytes at a time.
    fn decode_with(input: &[u8], framing: Framing, step: usize, read: usize) -> Result<Decoded, AwsError> {
        let mut decoder = Decoder::new(Dribble { data: input, step }, framing);
        let mut body = Vec::new();
        let mut buf = vec![0; read];
        loop {
            match decoder.read(&mut buf) {
                Ok(0) => return Ok((body, decoder.into_checksum())),
                Ok(n) => body.extend_from_slice(&buf[..n]),
                Err(e) => return Err(S3Error::from_io(&e).expect("refusals carry an AwsError")),
            }
        }
    }

    fn decode(input: &[u8], framing: Framing) -> Result<Decoded, AwsError> {
        decode_with(input, framing, usize::MAX, 1 << 16)
    }

    fn code(result: Result<Decoded, AwsError>) -> String {
        result.err().map(|e| e.code).unwrap_or_default()
    }

    /// An aws-chunked framing of `data` in chunks of `sizes` (cycled), with `trailers`.
    fn frame(data: &[u8], sizes: &[usize], signed: bool, trailers: &[(&str, &str)]) -> Vec<u8> {
        let extension = if signed {
            format!(";chunk-signature={}", "0".repeat(64))
        } else {
            String::new()
        };
        let mut out = Vec::new();
        let mut rest = data;
        for &size in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (chunk, after) = rest.split_at(size.clamp(1, rest.len()));
            out.extend_from_slice(format!("{:x}{extension}\r\n", chunk.len()).as_bytes());
            out.extend_from_slice(chunk);
            out.extend_from_slice(b"\r\n");
            rest = after;
        }
        out.extend_from_slice(format!("0{extension}\r\n").as_bytes());
        for (name, value) in trailers {
            out.extend_from_slice(format!("{name}:{value}\r\n").as_bytes());
        }
        out.extend_from_slice(b"\r\n");
        out
    }

    /// Records what it is asked to check, refusing a signature of `bad`.
    struct Recorder {
        seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
        trailer: bool,
    }

    impl ChunkSignatures for Recorder {
        fn expects_trailer(&self) -> bool {
            self.trailer
        }

        fn chunk(&mut self, sha256: [u8; 32], signature: &str) -> Result<(), AwsError> {
            self.seen
                .lock()
                .unwrap()
                .push(format!("{}:{signature}", stratus_core::hex::encode(&sha256)));
            match signature {
                "bad" => Err(AwsError::new("SignatureDoesNotMatch", "no", 403)),
                _ => Ok(()),
            }
        }

        fn trailer(&mut self, trailers: &[(&str, &str)], signature: &str) -> Result<(), AwsError> {
            self.seen
                .lock()
                .unwrap()
                .push(format!("trailer {trailers:?}:{signature}"));
            Ok(())
        }
    }

    fn checked(body: &'static [u8], framing: Framing, trailer: bool) -> (io::Result<Vec<u8>>, Vec<String>) {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let chain = Recorder {
            seen: seen.clone(),
            trailer,
        };
        let mut decoder = Decoder::new(body, framing).with_signatures(Some(Box::new(chain)));
        let mut out = Vec::new();
        let read = decoder.read_to_end(&mut out).map(|_| out);
        let seen = seen.lock().unwrap().clone();
        (read, seen)
    }

    #[test]
    fn each_chunk_is_checked_by_its_digest_and_signature_the_last_one_empty() {
        let (read, seen) = checked(SIGNED, PLAIN, false);
        assert_eq!(read.unwrap(), b"hello world");
        let digest = |data: &[u8]| stratus_core::hex::encode(&Sha256::digest(data));
        assert_eq!(
            seen,
            [
                format!(
                    "{}:ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
                    digest(b"hello")
                ),
                format!(
                    "{}:0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
                    digest(b" world")
                ),
                format!(
                    "{}:b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
                    digest(b"")
                ),
            ]
        );
    }

    #[test]
    fn a_refused_chunk_fails_the_read_with_the_refusal() {
        let (read, seen) = checked(
            b"5;chunk-signature=bad\r\nhello\r\n0;chunk-signature=x\r\n\r\n",
            PLAIN,
            false,
        );
        assert_eq!(
            S3Error::from_io(&read.unwrap_err()).unwrap().code,
            "SignatureDoesNotMatch"
        );
        assert_eq!(seen.len(), 1);
    }

    #[test]
    fn a_signed_trailer_is_checked_without_its_signature_line() {
        let body = b"5;chunk-signature=a\r\nhello\r\n0;chunk-signature=b\r\nx-amz-checksum-crc32:NhCmhg==\r\nx-amz-trailer-signature:c\r\n\r\n";
        let (read, seen) = checked(body, CRC32, true);
        assert_eq!(read.unwrap(), b"hello");
        assert_eq!(
            seen.last().unwrap(),
            r#"trailer [("x-amz-checksum-crc32", "NhCmhg==")]:c"#
        );
        // A trailer the chain expects must be signed: a missing signature is checked as empty.
        let unsigned = b"5;chunk-signature=a\r\nhello\r\n0;chunk-signature=b\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n";
        let (_, seen) = checked(unsigned, CRC32, true);
        assert_eq!(
            seen.last().unwrap(),
            r#"trailer [("x-amz-checksum-crc32", "NhCmhg==")]:"#
        );
    }

    #[test]
    fn decodes_signed_chunks() {
        assert_eq!(decode(SIGNED, PLAIN).unwrap(), (b"hello world".to_vec(), None));
    }

    #[test]
    fn decodes_trailers() {
        let (body, checksum) = decode(TRAILER, CRC32).unwrap();
        assert_eq!(body, b"hello world");
        assert_eq!(checksum, Some((Algorithm::Crc32, "DUoRhQ==".to_string())));
        let signed_trailer = b"0\r\nx-amz-checksum-sha256:abc=\r\nx-amz-trailer-signature:123\r\n\r\n";
        let sha256 = Framing {
            trailer: Some(Algorithm::Sha256),
            ..PLAIN
        };
        assert_eq!(decode(signed_trailer, sha256).unwrap().1.unwrap().1, "abc=");
        assert_eq!(decode(b"0\r\n\r\n", PLAIN).unwrap(), (Vec::new(), None));
    }

    #[test]
    fn checks_the_decoded_length() {
        let eleven = Framing {
            decoded_length: Some(11),
            ..PLAIN
        };
        assert!(decode(SIGNED, eleven).is_ok());
        let three = Framing {
            decoded_length: Some(3),
            ..PLAIN
        };
        let e = decode(SIGNED, three).unwrap_err();
        assert_eq!(e.code, "IncompleteBody");
        assert_eq!(
            e.details.as_ref(),
            [
                ("NumberBytesExpected", "3".to_string()),
                ("NumberBytesProvided", "11".to_string())
            ]
        );
    }

    #[test]
    fn refuses_malformed_bodies() {
        for bad in [
            &b""[..],
            b"zz\r\nhello\r\n0\r\n\r\n",
            b"+5\r\nhello\r\n0\r\n\r\n",
            b"5\r\nhel",
            b"5\r\nhelloXX0\r\n\r\n",
            b"5\nhello\r\n0\r\n\r\n",
            b"ffffffffffffffffff\r\n",
            b"0\r\n",
            b"0\r\n\r",
        ] {
            assert_eq!(
                code(decode(bad, PLAIN)),
                "IncompleteBody",
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        for bad in [
            &b"0\r\nno-colon\r\n\r\n"[..],
            b"0\r\n:value\r\n\r\n",
            b"0\r\n\r\ngarbage",
            b"0\r\nx-amz-checksum-crc32:DUoRhQ==\n\r\n",
        ] {
            assert_eq!(
                code(decode(bad, PLAIN)),
                "MalformedTrailerError",
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        let long = [b"0\r\nx-amz-meta:".as_slice(), &[b'a'; MAX_LINE], b"\r\n\r\n"].concat();
        assert_eq!(code(decode(&long, PLAIN)), "MalformedTrailerError");
        let long = [&[b'0'; MAX_LINE + 8][..], b"\r\n\r\n"].concat();
        assert_eq!(code(decode(&long, PLAIN)), "IncompleteBody");
    }

    // scality/Arsenal pull request 2596: a trailer `x-amz-trailer` did not announce, one of
    // another algorithm, or none where one was announced.
    #[test]
    fn the_trailer_must_be_the_announced_one() {
        assert_eq!(code(decode(TRAILER, PLAIN)), "MalformedTrailerError");
        let sha1 = Framing {
            trailer: Some(Algorithm::Sha1),
            ..PLAIN
        };
        assert_eq!(code(decode(TRAILER, sha1)), "MalformedTrailerError");
        assert_eq!(code(decode(SIGNED, CRC32)), "MalformedTrailerError");
        let unknown = b"0\r\nx-amz-checksum-md5:AAAA\r\n\r\n";
        assert_eq!(code(decode(unknown, CRC32)), "MalformedTrailerError");
        let twice = b"0\r\nx-amz-checksum-crc32:DUoRhQ==\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n";
        assert_eq!(code(decode(twice, CRC32)), "InvalidRequest");
    }

    #[test]
    fn framing_comes_from_the_headers() {
        let headers = |encoding: Option<&str>, sha: Option<&str>, length: Option<&str>, trailer: Option<&str>| {
            Framing::of(&PayloadFraming {
                content_encoding: encoding.map(String::from),
                content_sha256: sha.map(String::from),
                decoded_content_length: length.map(String::from),
                trailer: trailer.map(String::from),
            })
        };
        assert_eq!(headers(None, Some("UNSIGNED-PAYLOAD"), Some("5"), None), Ok(None));
        assert_eq!(headers(Some("gzip"), None, None, None), Ok(None));
        assert_eq!(headers(Some("gzip, aws-chunked"), None, None, None), Ok(Some(PLAIN)));
        assert_eq!(
            headers(
                None,
                Some("STREAMING-UNSIGNED-PAYLOAD-TRAILER"),
                Some("11"),
                Some("x-amz-checksum-crc32")
            ),
            Ok(Some(Framing {
                decoded_length: Some(11),
                trailer: Some(Algorithm::Crc32)
            }))
        );
        let chunked = Some("STREAMING-AWS4-HMAC-SHA256-PAYLOAD");
        assert_eq!(
            headers(None, chunked, Some("abc"), None).unwrap_err().code,
            "MissingContentLength"
        );
        for bad in ["x-amz-checksum-sha10", "x-amz-meta-a", "x-amz-checksum-"] {
            assert_eq!(
                headers(None, chunked, None, Some(bad)).unwrap_err().code,
                "InvalidRequest"
            );
        }
        assert_eq!(stored_encoding(Some("aws-chunked".into())), None);
        assert_eq!(stored_encoding(Some("gzip, aws-chunked".into())), Some("gzip".into()));
        assert_eq!(stored_encoding(Some("gzip".into())), Some("gzip".into()));
    }

    // A network splits a body anywhere: fed one byte at a time, and read one byte at a time,
    // the decoder gives what one read of the whole gives.
    #[test]
    fn any_split_decodes_alike() {
        for (input, framing) in [(SIGNED, PLAIN), (TRAILER, CRC32)] {
            let whole = decode(input, framing).unwrap();
            for step in [1, 2, 3, 7, 64] {
                for read in [1, 2, 5, 4096] {
                    assert_eq!(decode_with(input, framing, step, read).unwrap(), whole);
                }
            }
        }
    }

    // Every proper prefix of a body is refused, fed whole or a byte at a time.
    #[test]
    fn every_truncation_is_refused() {
        for (input, framing) in [(SIGNED, PLAIN), (TRAILER, CRC32)] {
            for end in 0..input.len() {
                assert!(decode(&input[..end], framing).is_err(), "{end}");
                assert!(decode_with(&input[..end], framing, 1, 3).is_err(), "{end}");
            }
        }
    }

    // Random bodies in random chunk sizes, signed or not, with a trailer or not, decode to
    // their data however the network splits them; any truncation of them is refused.
    #[test]
    fn random_framings_round_trip() {
        let mut rng = Rng(0xc4a7_2026);
        for _ in 0..300 {
            let data: Vec<u8> = (0..rng.below(3000)).map(|_| rng.next_u64() as u8).collect();
            let sizes: Vec<usize> = (0..1 + rng.below(4)).map(|_| 1 + rng.below(700)).collect();
            let algorithm = Algorithm::ALL[rng.below(checksum::COUNT)];
            let value = checksum::encode(&algorithm.digest(&data));
            let header = algorithm.header();
            let mut trailers = Vec::new();
            let with_trailer = rng.below(2) == 0;
            if with_trailer {
                trailers.push((header, value.as_str()));
                if rng.below(2) == 0 {
                    trailers.push(("x-amz-trailer-signature", "00ff"));
                }
            }
            let framed = frame(&data, &sizes, rng.below(2) == 0, &trailers);
            let framing = Framing {
                decoded_length: (rng.below(2) == 0).then_some(data.len() as u64),
                trailer: with_trailer.then_some(algorithm),
            };
            let expected = (data.clone(), with_trailer.then(|| (algorithm, value.clone())));
            let step = 1 + rng.below(100);
            assert_eq!(
                decode_with(&framed, framing, step, 1 + rng.below(5000)).unwrap(),
                expected
            );
            let end = rng.below(framed.len());
            assert!(decode_with(&framed[..end], framing, step, 512).is_err());
        }
    }

    // Seeded random mutations of real framings: the decoder answers every one without
    // panicking, and a body it accepts is never longer than its input.
    #[test]
    fn never_panics_on_mutations() {
        let tokens: &[&[u8]] = &[b"\r\n", b";", b":", b"0", b"ffffffff", b"chunk-signature=", b"\r\n\r\n"];
        let mut rng = Rng(0x5eed_c4a7);
        for i in 0..20_000 {
            let (seed, framing) = if i % 2 == 0 { (SIGNED, PLAIN) } else { (TRAILER, CRC32) };
            let input = mutate(&mut rng, seed, tokens);
            let step = 1 + rng.below(16);
            if let Ok((body, _)) = decode_with(&input, framing, step, 1 + rng.below(64)) {
                assert!(body.len() <= input.len());
            }
        }
    }
}
