//! The request parts a signature covers, borrowed from the server's request as it arrived.

use std::borrow::Cow;

use crate::canonical::form_decode;

/// A request to verify, borrowed: nothing is copied until a signature needs it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The method, e.g. `GET`.
    pub method: &'a str,
    /// The path as it arrived, still percent-encoded, without the query string.
    pub path: &'a str,
    /// The query string as it arrived, without the `?` (empty when there is none).
    pub query: &'a str,
    /// Every header, names in any case, repeated names as separate entries. SigV4 signs
    /// `host`: an HTTP/2 request passes its `:authority` under that name. (From an
    /// `http::HeaderMap`: `map.iter().map(|(n, v)| (n.as_str(), v.as_bytes())).collect()`.)
    pub headers: &'a [(&'a str, &'a [u8])],
    /// What the server has of the body.
    pub payload: Payload<'a>,
    /// The bucket the `Host` header names, for virtual-hosted S3 requests: SigV2 signs it as
    /// the start of the resource (SigV4 does not need it).
    pub host_bucket: Option<&'a str>,
}

/// What the server has of the body when it verifies the signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload<'a> {
    /// The whole body.
    Body(&'a [u8]),
    /// The body's SHA-256, computed by the caller.
    Sha256([u8; 32]),
    /// Not read yet (a streamed body): the signed `x-amz-content-sha256` is trusted for the
    /// signature, and [`Verified::body`](crate::Verified::body) says what the body must then
    /// satisfy.
    Deferred,
}

impl<'a> Request<'a> {
    /// The values of header `name` (lower case), in order.
    pub(crate) fn header_values<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'a [u8]> + 's {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }

    /// The first value of header `name` (lower case), if it is text.
    pub(crate) fn header(&self, name: &str) -> Option<&'a str> {
        self.header_values(name)
            .next()
            .and_then(|v| std::str::from_utf8(v).ok())
    }

    /// The query parameters, names and values decoded (invalid UTF-8 replaced).
    pub(crate) fn params(&self) -> impl Iterator<Item = (Cow<'a, str>, Cow<'a, str>)> {
        self.query.split('&').filter(|p| !p.is_empty()).map(|p| {
            let (name, value) = p.split_once('=').unwrap_or((p, ""));
            (decode(name), decode(value))
        })
    }

    /// The first value of query parameter `name` (exact case), decoded.
    pub(crate) fn param(&self, name: &str) -> Option<Cow<'a, str>> {
        self.params().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

fn decode(text: &str) -> Cow<'_, str> {
    match form_decode(text.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()),
    }
}
