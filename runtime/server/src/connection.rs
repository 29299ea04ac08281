//! One client connection's timeouts: how long it may sit idle between requests, and how long a
//! request's head may take to arrive once begun. (A stalled request body is the
//! [`request_body`](crate::request_body)'s to time.)
//!
//! A connection is in one of three phases: idle (no request in progress: before its first and
//! between kept-alive ones), reading a head (bytes have arrived since it was idle), or busy
//! (requests in flight, until their responses are written). The socket ([`WatchedIo`]) moves
//! it from idle to head on the first byte it reads; a request's [`Busy`] guard, held until its
//! response body is dropped, from head to busy and back to idle. A [`watchdog`] beside the
//! connection sleeps until the phase's deadline — idle and head phases have one, busy has none
//! — and ends the connection when it passes. So a timer exists only while a connection does;
//! a request costs no wakeup of its own, the watchdog reading the phase when it wakes.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{watch, Notify};
use tokio::time::Instant;

use crate::limits::Limits;

#[derive(Debug, Clone, Copy)]
enum Phase {
    /// No request in progress since this instant.
    Idle(Instant),
    /// A request's head began arriving at this instant.
    Head(Instant),
    /// This many requests are in flight.
    Busy(usize),
}

/// The phase of one connection, shared by its socket, its requests and its watchdog.
pub struct Watch {
    phase: Mutex<Phase>,
    idle_timeout: Duration,
    header_read_timeout: Duration,
    /// Woken when a phase change brings the deadline forward, which the watchdog, asleep until
    /// the old one, would otherwise miss. Every other change it finds when it wakes: so a
    /// request costs the connection's task no extra wakeup.
    sooner: Notify,
}

impl Watch {
    /// A connection accepted now, idle, held to `limits`.
    pub fn new(limits: &Limits) -> Arc<Watch> {
        Arc::new(Watch {
            phase: Mutex::new(Phase::Idle(Instant::now())),
            idle_timeout: limits.idle_timeout,
            header_read_timeout: limits.header_read_timeout,
            sooner: Notify::new(),
        })
    }

    fn update(&self, change: impl FnOnce(Phase) -> Phase) {
        let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        *phase = change(*phase);
    }

    fn phase(&self) -> Phase {
        *self.phase.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes arrived: an idle connection starts reading a head.
    fn read(&self) {
        let mut sooner = false;
        self.update(|phase| match phase {
            Phase::Idle(since) => {
                let now = Instant::now();
                sooner = now + self.header_read_timeout < since + self.idle_timeout;
                Phase::Head(now)
            }
            other => other,
        });
        if sooner {
            self.sooner.notify_one();
        }
    }

    /// A request's head was read: the connection is busy until the returned guard is dropped.
    pub fn begin(self: &Arc<Self>) -> Busy {
        self.update(|phase| match phase {
            Phase::Busy(n) => Phase::Busy(n + 1),
            Phase::Idle(_) | Phase::Head(_) => Phase::Busy(1),
        });
        Busy(self.clone())
    }

    /// When the connection times out in its present phase, if it can.
    fn deadline(&self) -> Option<Instant> {
        match self.phase() {
            Phase::Idle(since) => Some(since + self.idle_timeout),
            Phase::Head(since) => Some(since + self.header_read_timeout),
            Phase::Busy(_) => None,
        }
    }
}

/// One request in flight on a connection; dropped once its response is written (or abandoned).
pub struct Busy(Arc<Watch>);

impl Drop for Busy {
    fn drop(&mut self) {
        // Idle from now; the watchdog finds out when it next wakes, no later than this deadline.
        self.0.update(|phase| match phase {
            Phase::Busy(n) if n > 1 => Phase::Busy(n - 1),
            _ => Phase::Idle(Instant::now()),
        });
    }
}

/// Completes when the connection `watch` follows should end: its phase's deadline passed, or —
/// after `stop` changes (shutdown) — at once unless a request is in flight, whose response
/// hyper's graceful shutdown lets finish. While requests are in flight it looks again every
/// idle timeout, so it never sleeps past the deadline of the idle phase that follows them.
pub async fn watchdog(watch: Arc<Watch>, mut stop: watch::Receiver<()>) {
    let mut stopping = false;
    loop {
        let now = Instant::now();
        let wake = match watch.deadline() {
            Some(_) if stopping => return,
            Some(deadline) if deadline <= now => return,
            Some(deadline) => deadline,
            None => now + watch.idle_timeout,
        };
        tokio::select! {
            () = tokio::time::sleep_until(wake) => {}
            () = watch.sooner.notified() => {}
            // An error is the sender gone: the server is stopping either way.
            _ = stop.changed(), if !stopping => stopping = true,
        }
    }
}

/// A connection's socket, telling its [`Watch`] when bytes arrive.
pub struct WatchedIo {
    stream: TcpStream,
    watch: Arc<Watch>,
}

impl WatchedIo {
    /// `stream`, followed by `watch`.
    pub fn new(stream: TcpStream, watch: Arc<Watch>) -> WatchedIo {
        WatchedIo { stream, watch }
    }
}

impl AsyncRead for WatchedIo {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = Pin::new(&mut this.stream).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.watch.read();
        }
        read
    }
}

impl AsyncWrite for WatchedIo {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// A response body holding its request's [`Busy`] guard until hyper drops it, written.
pub struct Guarded<B> {
    body: B,
    _busy: Busy,
}

impl<B> Guarded<B> {
    /// `body`, keeping `busy` until it is dropped.
    pub fn new(body: B, busy: Busy) -> Guarded<B> {
        Guarded { body, _busy: busy }
    }
}

impl<B: Body + Unpin> Body for Guarded<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            idle_timeout: Duration::from_secs(20),
            header_read_timeout: Duration::from_secs(5),
            ..Limits::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn phases_move_the_deadline() {
        let watch = Watch::new(&limits());
        let accepted = Instant::now();
        assert_eq!(watch.deadline(), Some(accepted + Duration::from_secs(20)));
        tokio::time::advance(Duration::from_secs(3)).await;
        watch.read();
        assert_eq!(watch.deadline(), Some(accepted + Duration::from_secs(8)));
        let first = watch.begin();
        let second = watch.begin();
        assert_eq!(watch.deadline(), None);
        drop(first);
        assert_eq!(watch.deadline(), None);
        tokio::time::advance(Duration::from_secs(1)).await;
        drop(second);
        assert_eq!(watch.deadline(), Some(accepted + Duration::from_secs(24)));
    }

    #[tokio::test(start_paused = true)]
    async fn the_watchdog_ends_an_idle_connection_and_spares_a_busy_one() {
        let (_stop, stopped) = watch::channel(());
        let watch = Watch::new(&limits());
        let busy = watch.begin();
        let dog = tokio::spawn(watchdog(watch.clone(), stopped));
        tokio::time::sleep(Duration::from_secs(600)).await;
        assert!(!dog.is_finished());
        let released = Instant::now();
        drop(busy);
        dog.await.unwrap();
        assert_eq!(released.elapsed(), Duration::from_secs(20));
    }

    #[tokio::test(start_paused = true)]
    async fn a_head_begun_is_timed_from_its_first_byte() {
        let (_stop, stopped) = watch::channel(());
        let watch = Watch::new(&limits());
        let dog = tokio::spawn(watchdog(watch.clone(), stopped));
        tokio::time::sleep(Duration::from_secs(1)).await;
        let begun = Instant::now();
        watch.read();
        dog.await.unwrap();
        assert_eq!(begun.elapsed(), Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn on_shutdown_the_watchdog_ends_idle_connections_at_once() {
        let (stop, stopped) = watch::channel(());
        let watch = Watch::new(&limits());
        let dog = tokio::spawn(watchdog(watch, stopped));
        tokio::task::yield_now().await;
        let signalled = Instant::now();
        stop.send_replace(());
        dog.await.unwrap();
        assert_eq!(signalled.elapsed(), Duration::ZERO);
    }
}
