//! Bodies that stream between the socket and a service instead of being held in memory: the
//! `@streaming` payloads of S3 uploads and downloads.
//!
//! Services read and write bodies with blocking I/O on blocking threads (the storage layer is
//! synchronous), so each direction is a bounded channel between a task on the async side and a
//! [`Read`] on the blocking side: at most [`CHANNEL_CHUNKS`] chunks are in flight, and a slow
//! reader holds back the writer, whatever the size of the body.

use std::io::{self, Read};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame};
use stratus_core::schema::{HttpBinding, Operation};
use stratus_core::{BodyReader, PayloadFraming};
use tokio::sync::{mpsc, oneshot};

use crate::request_body::{RequestBody, Stalled};

/// Chunks buffered between the two sides of a streamed body.
const CHANNEL_CHUNKS: usize = 4;
/// The size of the chunks a streamed response is read in.
const RESPONSE_CHUNK: usize = 64 * 1024;
/// Request bodies up to this size are read whole even when the payload may stream: small
/// uploads are decoded like any other request.
pub const STREAM_ABOVE_BYTES: u64 = 1 << 20;

/// Whether `operation`'s input takes its HTTP payload as a `@streaming` blob.
pub fn has_streaming_payload(operation: &Operation) -> bool {
    operation
        .input
        .members
        .iter()
        .any(|m| matches!(m.http, HttpBinding::Payload) && m.target.streaming)
}

/// Whether a request's headers let its body stream to the service: a body larger than
/// [`STREAM_ABOVE_BYTES`], or of unknown length. `aws-chunked` bodies stream too: the service
/// decodes their framing as it reads ([`framing`] tells it how they are framed).
pub fn may_stream(headers: &http::HeaderMap) -> bool {
    let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
    match header(http::header::CONTENT_LENGTH) {
        Some(length) => length.trim().parse::<u64>().is_ok_and(|n| n > STREAM_ABOVE_BYTES),
        None => header(http::header::TRANSFER_ENCODING).is_some_and(|te| te.to_ascii_lowercase().contains("chunked")),
    }
}

/// The framing headers of a request whose operation takes a `@streaming` payload.
pub fn framing(headers: &http::HeaderMap) -> PayloadFraming {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(String::from);
    PayloadFraming {
        content_encoding: header("content-encoding"),
        content_sha256: header("x-amz-content-sha256"),
        decoded_content_length: header("x-amz-decoded-content-length"),
        trailer: header("x-amz-trailer"),
    }
}

/// A blocking reader of `body`, fed by a task that reads the socket once the service first
/// reads: a request refused before its body is read is answered without `100 Continue`, so a
/// client that waits for it never sends the body.
pub fn request_reader(mut body: RequestBody) -> BodyReader {
    let (sender, receiver) = mpsc::channel(CHANNEL_CHUNKS);
    let (start, started) = oneshot::channel();
    tokio::spawn(async move {
        // A reader dropped unread drops the body here, and hyper closes the connection.
        if started.await.is_err() {
            return;
        }
        loop {
            // So does a reader dropped part way, without waiting for the client's next bytes.
            let frame = tokio::select! {
                frame = body.frame() => frame,
                () = sender.closed() => return,
            };
            let Some(frame) = frame else { return };
            let chunk = match frame {
                Ok(frame) => match frame.into_data() {
                    Ok(data) => Ok(data),
                    Err(_) => continue, // trailers: nothing a service reads
                },
                Err(e) if e.is::<Stalled>() => Err(io::Error::new(io::ErrorKind::TimedOut, e)),
                Err(e) => Err(io::Error::other(e)),
            };
            let failed = chunk.is_err();
            if sender.send(chunk).await.is_err() || failed {
                return;
            }
        }
    });
    Box::new(ChannelReader {
        receiver,
        start: Some(start),
        chunk: Bytes::new(),
    })
}

struct ChannelReader {
    receiver: mpsc::Receiver<io::Result<Bytes>>,
    /// Sent on the first read, to start the task that feeds `receiver`.
    start: Option<oneshot::Sender<()>>,
    chunk: Bytes,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(start) = self.start.take() {
            let _ = start.send(());
        }
        while self.chunk.is_empty() {
            match self.receiver.blocking_recv() {
                Some(chunk) => self.chunk = chunk?,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len());
        buf[..n].copy_from_slice(&self.chunk.split_to(n));
        Ok(n)
    }
}

/// A response body read from `reader` on a blocking thread as the client takes it.
pub fn response_body(mut reader: BodyReader) -> ChannelBody {
    let (sender, receiver) = mpsc::channel(CHANNEL_CHUNKS);
    tokio::task::spawn_blocking(move || loop {
        let mut buf = vec![0; RESPONSE_CHUNK];
        let chunk = match reader.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                buf.truncate(n);
                Ok(Bytes::from(buf))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => Err(e),
        };
        let failed = chunk.is_err();
        // A closed channel means the client went away.
        if sender.blocking_send(chunk).is_err() || failed {
            return;
        }
    });
    ChannelBody(receiver)
}

/// The receiving end of [`response_body`], as an HTTP body. A read error ends the response
/// early, so the client sees a short body rather than a wrong one.
pub struct ChannelBody(mpsc::Receiver<io::Result<Bytes>>);

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.0.poll_recv(cx).map(|chunk| chunk.map(|c| c.map(Frame::data)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> http::HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| {
                (
                    http::HeaderName::from_static(k),
                    http::HeaderValue::from_str(v).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn only_large_bodies_stream() {
        assert!(may_stream(&headers(&[("content-length", "2000000")])));
        assert!(may_stream(&headers(&[("transfer-encoding", "chunked")])));
        assert!(!may_stream(&headers(&[("content-length", "1024")])));
        assert!(!may_stream(&headers(&[])));
        assert!(may_stream(&headers(&[
            ("content-length", "2000000"),
            ("content-encoding", "aws-chunked"),
            ("x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
        ])));
    }

    #[test]
    fn framing_copies_the_aws_chunked_headers() {
        let copied = framing(&headers(&[
            ("content-encoding", "aws-chunked"),
            ("x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER"),
            ("x-amz-decoded-content-length", "11"),
            ("x-amz-trailer", "x-amz-checksum-crc32"),
        ]));
        assert_eq!(copied.content_encoding.as_deref(), Some("aws-chunked"));
        assert_eq!(
            copied.content_sha256.as_deref(),
            Some("STREAMING-UNSIGNED-PAYLOAD-TRAILER")
        );
        assert_eq!(copied.decoded_content_length.as_deref(), Some("11"));
        assert_eq!(copied.trailer.as_deref(), Some("x-amz-checksum-crc32"));
        assert_eq!(framing(&headers(&[])), PayloadFraming::default());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_response_body_carries_every_byte_in_order() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let body = response_body(Box::new(io::Cursor::new(data.clone())));
        let received = body.collect().await.unwrap().to_bytes();
        assert_eq!(received.as_ref(), data.as_slice());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_channel_reader_reads_chunks_across_boundaries() {
        let (sender, receiver) = mpsc::channel(CHANNEL_CHUNKS);
        let mut reader = ChannelReader {
            receiver,
            start: None,
            chunk: Bytes::new(),
        };
        tokio::spawn(async move {
            for part in [&b"hello "[..], b"", b"streamed ", b"world"] {
                sender.send(Ok(Bytes::from_static(part))).await.unwrap();
            }
        });
        let text = tokio::task::spawn_blocking(move || {
            let mut text = String::new();
            reader.read_to_string(&mut text).map(|_| text)
        })
        .await
        .unwrap()
        .unwrap();
        assert_eq!(text, "hello streamed world");
    }
}
