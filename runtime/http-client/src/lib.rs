//! One plain-HTTP POST to an endpoint a user named, as a service delivering to it makes it:
//! SNS to its `http` subscriptions, Firehose to its HTTP endpoint destinations.
//!
//! [`post`] connects, sends the body with the caller's headers (`Host` and `Content-Length`
//! are its own), reads the whole answer and hands back its status and body, all within the
//! time the caller gives. `https` endpoints are refused as never deliverable: Stratus has no
//! TLS client. Must be called on a tokio runtime (the binary's), which drives the connection.
//!
//! ```no_run
//! # async fn deliver() -> Result<(), stratus_http_client::PostError> {
//! use std::time::Duration;
//! let answer = stratus_http_client::post(
//!     "http://127.0.0.1:8080/hook",
//!     &[("content-type", "application/json".to_owned())],
//!     br#"{"hello":"world"}"#.to_vec(),
//!     Duration::from_secs(15),
//! )
//! .await?;
//! assert!(answer.status < 600);
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Uri;
use hyper_util::rt::TokioIo;

/// What the endpoint answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The whole body.
    pub body: Vec<u8>,
}

/// Why a POST got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PostError {
    /// Worth another attempt: no connection, a broken one, or no answer in time.
    #[error("{0}")]
    Unreachable(String),
    /// Never deliverable: the endpoint is not a plain `http` URL with a host.
    #[error("{0}")]
    NotPlainHttp(String),
}

/// POSTs `body` to `url` with `headers`, waiting at most `within` for the whole answer.
pub async fn post(url: &str, headers: &[(&str, String)], body: Vec<u8>, within: Duration) -> Result<Answer, PostError> {
    let uri: Uri = url
        .parse()
        .map_err(|_| PostError::NotPlainHttp(format!("the endpoint {url} is not a URL")))?;
    if uri.scheme_str() != Some("http") {
        return Err(PostError::NotPlainHttp(format!(
            "the endpoint {url} is not plain http: Stratus makes no TLS connections"
        )));
    }
    let host = uri
        .host()
        .ok_or_else(|| PostError::NotPlainHttp(format!("the endpoint {url} names no host")))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let port = uri.port_u16().unwrap_or(80);
    let authority = uri.authority().map(|a| a.as_str().to_owned()).unwrap_or_default();
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
    let mut request = hyper::Request::post(path).header(hyper::header::HOST, authority);
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let request = request
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| PostError::NotPlainHttp(e.to_string()))?;
    let attempt = async {
        let stream = tokio::net::TcpStream::connect((host.as_str(), port))
            .await
            .map_err(|e| format!("could not connect: {e}"))?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.map_err(|e| e.to_string())?;
        Ok::<Answer, String>(Answer {
            status,
            body: body.to_bytes().to_vec(),
        })
    };
    match tokio::time::timeout(within, attempt).await {
        Err(_) => Err(PostError::Unreachable(format!(
            "no answer within {} seconds",
            within.as_secs()
        ))),
        Ok(Err(e)) => Err(PostError::Unreachable(e)),
        Ok(Ok(answer)) => Ok(answer),
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn the_answer_comes_back_whole_with_the_request_as_sent() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook?x=1", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 1024];
            while !seen.ends_with(b"payload") {
                let n = socket.read(&mut buf).await.unwrap();
                seen.extend_from_slice(&buf[..n]);
            }
            socket
                .write_all(b"HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok")
                .await
                .unwrap();
            String::from_utf8(seen).unwrap()
        });
        let answer = post(
            &url,
            &[("x-test", "yes".to_owned())],
            b"payload".to_vec(),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
        assert_eq!((answer.status, answer.body.as_slice()), (201, &b"ok"[..]));
        let request = server.await.unwrap();
        assert!(request.starts_with("POST /hook?x=1 HTTP/1.1\r\n"), "{request}");
        assert!(request.contains("x-test: yes\r\n"), "{request}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn endpoints_out_of_reach_are_told_apart_from_those_never_reachable() {
        let refused = post("http://127.0.0.1:1/", &[], Vec::new(), Duration::from_secs(5)).await;
        assert!(matches!(refused, Err(PostError::Unreachable(_))));
        let tls = post("https://example.com/", &[], Vec::new(), Duration::from_secs(5)).await;
        assert!(matches!(tls, Err(PostError::NotPlainHttp(_))));
        let garbage = post("not a url", &[], Vec::new(), Duration::from_secs(5)).await;
        assert!(matches!(garbage, Err(PostError::NotPlainHttp(_))));
    }
}
