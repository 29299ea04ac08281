//! The floor for `benches/gateway.rs`: a bare hyper server that reads each request's body and
//! answers `ok`, on the same runtime settings as stratus (two workers, HTTP/1.1 and HTTP/2).
//! It prints the same first line as stratus so the bench can start either the same way.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;

fn main() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("stratus listening on http://{}", listener.local_addr()?);
        let builder = auto::Builder::new(TokioExecutor::new());
        loop {
            let (stream, _) = listener.accept().await?;
            let _ = stream.set_nodelay(true);
            let service = service_fn(|req: hyper::Request<hyper::body::Incoming>| async {
                let _ = req.into_body().collect().await;
                Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from_static(b"ok"))))
            });
            let conn = builder.serve_connection(TokioIo::new(stream), service).into_owned();
            tokio::spawn(conn);
        }
    })
}
