//! S3's virtual-host-style addressing: a request to `<bucket>.s3.<region>.<host>`,
//! `<bucket>.s3.<host>` or `<bucket>.localhost` (what SDKs build from `AWS_ENDPOINT_URL`)
//! names its bucket in the host, and is routed and decoded as its path-style equivalent
//! `/<bucket>/<key>`.

/// The bucket a `Host` header names, if it is virtual-host style.
pub fn bucket_of(host: &str) -> Option<&str> {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let bucket = match name.rfind(".s3.").or_else(|| name.rfind(".s3-")) {
        Some(at) => &name[..at],
        None => name.strip_suffix(".localhost")?,
    };
    let plain_endpoint = bucket.is_empty() || bucket == "s3" || bucket.starts_with("s3.") || bucket.starts_with("s3-");
    (!plain_endpoint).then_some(bucket)
}

/// The path-style URI of a virtual-host-style request for `bucket`.
pub fn path_style(uri: &http::Uri, bucket: &str) -> Option<http::Uri> {
    let path = match uri.path() {
        "" | "/" => format!("/{bucket}"),
        path => format!("/{bucket}{path}"),
    };
    let path_and_query = match uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path,
    };
    http::Uri::builder().path_and_query(path_and_query).build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_in_hosts() {
        assert_eq!(bucket_of("photos.s3.us-east-1.amazonaws.com"), Some("photos"));
        assert_eq!(
            bucket_of("my.dotted.bucket.s3.localhost:4566"),
            Some("my.dotted.bucket")
        );
        assert_eq!(bucket_of("photos.localhost:4566"), Some("photos"));
        assert_eq!(bucket_of("photos.s3-eu-west-1.amazonaws.com"), Some("photos"));
        assert_eq!(bucket_of("s3.localhost:4566"), None);
        assert_eq!(bucket_of("s3.us-east-1.localhost"), None);
        assert_eq!(bucket_of("localhost:4566"), None);
        assert_eq!(bucket_of("127.0.0.1:4566"), None);
        assert_eq!(bucket_of("s3.amazonaws.com"), None);
    }

    #[test]
    fn path_style_uris() {
        let uri: http::Uri = "/a/b.txt?tagging".parse().unwrap();
        assert_eq!(path_style(&uri, "bk").unwrap(), "/bk/a/b.txt?tagging");
        let root: http::Uri = "/?list-type=2".parse().unwrap();
        assert_eq!(path_style(&root, "bk").unwrap(), "/bk?list-type=2");
    }
}
