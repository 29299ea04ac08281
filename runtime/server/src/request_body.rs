//! A request's body as the gateway reads it: a client that stops sending it part way for longer
//! than the body-idle timeout fails the read with [`Stalled`], which is answered as S3 answers
//! a stalled upload (`RequestTimeout`). The timer runs only while a read waits for the client.

use std::error::Error;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use tokio::time::{Instant, Sleep};

/// A request body read with a deadline on each of its pieces.
pub struct RequestBody {
    inner: Incoming,
    idle: Duration,
    /// The deadline for the next piece, once a read has had to wait for it.
    stall: Option<Pin<Box<Sleep>>>,
    waiting: bool,
}

/// The client sent nothing of the body for the body-idle timeout.
#[derive(Debug, thiserror::Error)]
#[error("the client sent nothing of the request body for {0:?}")]
pub struct Stalled(Duration);

impl RequestBody {
    /// `inner`, failing once the client sends nothing of it for `idle`.
    pub fn new(inner: Incoming, idle: Duration) -> RequestBody {
        RequestBody {
            inner,
            idle,
            stall: None,
            waiting: false,
        }
    }
}

impl Body for RequestBody {
    type Data = Bytes;
    type Error = Box<dyn Error + Send + Sync>;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            this.waiting = false;
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        if !this.waiting {
            this.waiting = true;
            let deadline = Instant::now() + this.idle;
            match &mut this.stall {
                Some(sleep) => sleep.as_mut().reset(deadline),
                None => this.stall = Some(Box::pin(tokio::time::sleep_until(deadline))),
            }
        }
        match this.stall.as_mut().map(|sleep| sleep.as_mut().poll(cx)) {
            Some(Poll::Ready(())) => Poll::Ready(Some(Err(Box::new(Stalled(this.idle))))),
            _ => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
