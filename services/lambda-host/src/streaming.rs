//! What [`Host::invoke_streaming`](crate::Host::invoke_streaming) hands back for
//! `InvokeWithResponseStream`: the response's chunks as the function writes them, then how
//! the invocation ended.
//!
//! A function that streams (`Lambda-Runtime-Function-Response-Mode: streaming`, e.g. a
//! Node.js handler wrapped in `awslambda.streamifyResponse`) delivers each chunk as it is
//! written; one that answers normally delivers its whole payload as one chunk, as Lambda
//! does. An error in the middle of a stream (the runtime's trailers) or a timeout ends the
//! chunks, and [`ResponseStream::outcome`] has the error document.

use tokio::sync::{mpsc, oneshot};

use crate::{FunctionResult, InvokeOutcome};

/// A streamed invocation in progress.
#[derive(Debug)]
pub struct ResponseStream {
    pub(crate) chunks: mpsc::Receiver<bytes::Bytes>,
    pub(crate) outcome: oneshot::Receiver<InvokeOutcome>,
}

impl ResponseStream {
    /// The next chunk of the response, or `None` once it has ended.
    pub async fn next_chunk(&mut self) -> Option<Vec<u8>> {
        self.chunks.recv().await.map(|chunk| chunk.to_vec())
    }

    /// How the invocation ended, once its chunks are read (unread ones are dropped): the
    /// `result` is `Response` with what was not streamed (empty if every byte went through
    /// [`next_chunk`](Self::next_chunk)), or `Error` with the error document.
    pub async fn outcome(mut self) -> InvokeOutcome {
        self.chunks.close();
        while self.chunks.recv().await.is_some() {}
        match self.outcome.await {
            Ok(outcome) => outcome,
            Err(_) => InvokeOutcome {
                result: FunctionResult::Error(crate::invocation::error_document(
                    "ServiceException",
                    "The invocation was stopped",
                )),
                log_tail: String::new(),
                log: String::new(),
                environment_id: String::new(),
                duration: std::time::Duration::ZERO,
            },
        }
    }
}
