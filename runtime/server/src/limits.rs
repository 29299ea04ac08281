//! What a client may hold open and send: timeouts, the number of open connections, and the size
//! of a request's head. Each is a setting of the binary (`stratus --help`,
//! `docs/reliability.md`).

use std::time::Duration;

use stratus_core::AwsError;

/// Limits on connections and on request heads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// A connection with no request in progress (before its first, or kept alive after one)
    /// is closed after this long. AWS closes idle connections after about 20 s.
    pub idle_timeout: Duration,
    /// A request's head (request line and headers) must be whole this long after its first
    /// byte, or the connection is closed.
    pub header_read_timeout: Duration,
    /// A request whose body stops arriving for this long is answered `RequestTimeout` (as
    /// S3 answers a stalled upload) and its connection closed.
    pub body_idle_timeout: Duration,
    /// At most this many connections are open; further ones wait in the listen backlog until
    /// one closes.
    pub max_connections: usize,
    /// A request whose headers (names, values and their separators) exceed this many bytes is
    /// refused with `RequestHeaderSectionTooLarge`, S3's 8 KiB limit by default.
    pub max_header_bytes: usize,
    /// A request whose URI (path and query) exceeds this many bytes is refused likewise: S3
    /// counts query parameters in the header section.
    pub max_uri_bytes: usize,
    /// A request with more headers than this is refused likewise; past twice as many, the
    /// connection is answered `431` and closed before the request is read.
    pub max_headers: usize,
    /// After a shutdown signal, requests in flight are given this long to finish.
    pub shutdown_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            idle_timeout: Duration::from_secs(20),
            header_read_timeout: Duration::from_secs(20),
            body_idle_timeout: Duration::from_secs(20),
            max_connections: 1024,
            max_header_bytes: 8 << 10,
            max_uri_bytes: 8 << 10,
            max_headers: 100,
            shutdown_timeout: Duration::from_secs(10),
        }
    }
}

impl Limits {
    /// The most headers the HTTP parser takes before it answers `431` and closes the
    /// connection: past [`Limits::max_headers`], up to this, AWS's refusal is answered.
    pub fn parser_max_headers(&self) -> usize {
        self.max_headers.saturating_mul(2).max(16)
    }

    /// Refuses the request `parts` heads if it exceeds a limit, with S3's error (its limit,
    /// 8 KiB, is the one AWS documents for a request's header section).
    pub fn check_head(&self, parts: &http::request::Parts) -> Result<(), AwsError> {
        // Each header line is `name: value\r\n`.
        let header_bytes: usize = parts
            .headers
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 4)
            .sum();
        let uri_bytes = parts.uri.path_and_query().map_or(0, |pq| pq.as_str().len());
        if header_bytes > self.max_header_bytes
            || uri_bytes > self.max_uri_bytes
            || parts.headers.len() > self.max_headers
        {
            return Err(AwsError::new(
                "RequestHeaderSectionTooLarge",
                "Your request header section exceeds the maximum allowed size.",
                400,
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(uri: &str, headers: &[(&str, String)]) -> http::request::Parts {
        let mut request = http::Request::builder().uri(uri);
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn heads_within_the_limits_pass_and_past_them_are_refused_as_s3_refuses() {
        let limits = Limits {
            max_header_bytes: 100,
            max_uri_bytes: 20,
            max_headers: 3,
            ..Limits::default()
        };
        // `x-abcd: ` and 90 bytes and `\r\n`: 100 bytes, at the limit.
        assert!(limits.check_head(&head("/", &[("x-abcd", "v".repeat(90))])).is_ok());
        let refused = limits
            .check_head(&head("/", &[("x-abcd", "v".repeat(91))]))
            .unwrap_err();
        assert_eq!(
            (refused.code.as_str(), refused.http_status),
            ("RequestHeaderSectionTooLarge", 400)
        );
        assert!(limits.check_head(&head(&format!("/{}", "k".repeat(19)), &[])).is_ok());
        assert!(limits.check_head(&head(&format!("/{}", "k".repeat(20)), &[])).is_err());
        let many: Vec<(&str, String)> = ["a", "b", "c", "d"].iter().map(|n| (*n, String::new())).collect();
        assert!(limits.check_head(&head("/", &many[..3])).is_ok());
        assert!(limits.check_head(&head("/", &many)).is_err());
    }
}
