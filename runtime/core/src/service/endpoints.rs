//! A service's own web endpoints: plain HTTP that no operation models and no SDK sends, such
//! as Lambda's function URLs, the code download links of `GetFunction`, or what SNS serves
//! (signing certificates, confirmation links). The gateway asks each service's
//! [`WebEndpoints`] whether it claims a request before routing it to an operation, and sends
//! back the service's [`WebAnswer`] as it is: no protocol shapes it.

use std::net::IpAddr;

use super::BoxFuture;
use crate::context::{BodyReader, RequestContext};

/// A request to a service's web endpoint.
#[derive(Debug, Clone, Copy)]
pub struct WebRequest<'a> {
    /// The method, e.g. `GET`.
    pub method: &'a str,
    /// The authority the client addressed (`Host`), with its port; empty when it sent none.
    pub host: &'a str,
    /// The path, still percent-encoded.
    pub path: &'a str,
    /// The query string, still percent-encoded; `None` when the URL has no `?`.
    pub query: Option<&'a str>,
    /// The headers in the order sent, names in lower case, values that are not text left out.
    pub headers: &'a [(&'a str, &'a str)],
    /// The whole body.
    pub body: &'a [u8],
    /// The client's address.
    pub source_ip: IpAddr,
}

impl<'a> WebRequest<'a> {
    /// The first value of the header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&'a str> {
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// The body of a [`WebAnswer`].
pub enum WebBody {
    /// All of it, at once.
    Whole(Vec<u8>),
    /// Read as the client takes it, on a blocking thread (a streamed function response).
    Stream(BodyReader),
}

impl std::fmt::Debug for WebBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WebBody::Whole(body) => f.debug_tuple("Whole").field(&body.len()).finish(),
            WebBody::Stream(_) => f.write_str("Stream"),
        }
    }
}

/// A service's answer to a [`WebRequest`], sent as given; the gateway adds only what every
/// response carries (`content-length` or chunked framing, `date`).
#[derive(Debug)]
pub struct WebAnswer {
    /// The HTTP status code.
    pub status: u16,
    /// The headers, in order; a name may repeat (`set-cookie`).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: WebBody,
}

impl WebAnswer {
    /// An answer of `status` with a whole `body` of `content_type`.
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> WebAnswer {
        WebAnswer {
            status,
            headers: vec![("content-type".to_owned(), content_type.to_owned())],
            body: WebBody::Whole(body.into()),
        }
    }
}

/// The web endpoints of one service.
pub trait WebEndpoints: Send + Sync {
    /// Whether the request to `host` (as [`WebRequest::host`]) and `path` is for these
    /// endpoints. Asked of every request the gateway serves, so it must be cheap: a look at
    /// a host suffix or a path prefix.
    fn claims(&self, host: &str, path: &str) -> bool;

    /// Answers a request [`claims`](WebEndpoints::claims) took. `ctx` says who signed it, if
    /// anyone did; its signature is not verified.
    fn answer<'a>(&'a self, ctx: &'a RequestContext, req: WebRequest<'a>) -> BoxFuture<'a, WebAnswer>;
}
