//! The static website endpoint: `<bucket>.s3-website-<region>.amazonaws.com`,
//! `<bucket>.s3-website.<region>.amazonaws.com` or any `<bucket>.s3-website.<host>` (LocalStack's
//! `<bucket>.s3-website.localhost.localstack.cloud`), which serves a bucket to browsers as its
//! website configuration says: index documents (with the redirect that adds a directory's
//! slash), the error document, routing rules, objects' own redirects and a whole-bucket
//! redirect, and errors as S3's HTML pages. Only `GET` and `HEAD` are served.
//!
//! The endpoint is anonymous on AWS, and only public objects are served; Stratus serves every
//! object of a bucket with a website configuration (see docs/services/s3.md).

use stratus_core::service::{BoxFuture, WebAnswer, WebBody, WebEndpoints, WebRequest};
use stratus_core::{AwsError, DateTime, RequestContext};
use stratus_gen_s3::*;

use crate::config;
use crate::error::S3Error;
use crate::listing;
use crate::object::{self, ObjectRecord, ReadConditions};
use crate::storage_class::check_readable;
use crate::{store, S3Service, STREAM_RESPONSES_ABOVE};

/// The label that makes a host a website endpoint, after the bucket's name.
const WEBSITE_LABEL: &str = ".s3-website";
/// The host id S3's answers carry (the gateway's S3 envelope writes the same).
const HOST_ID: &str = "stratus";

/// The bucket a website endpoint's `host` (with or without its port) names.
fn bucket_of(host: &str) -> Option<&str> {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let at = name.rfind(WEBSITE_LABEL)?;
    let rest = &name[at + WEBSITE_LABEL.len()..];
    let labelled = rest.starts_with('.') || rest.starts_with('-');
    (at > 0 && labelled).then(|| &name[..at])
}

impl WebEndpoints for S3Service {
    fn claims(&self, host: &str, _path: &str) -> bool {
        bucket_of(host).is_some()
    }

    fn answer<'a>(&'a self, ctx: &'a RequestContext, req: WebRequest<'a>) -> BoxFuture<'a, WebAnswer> {
        Box::pin(async move {
            let bucket = bucket_of(req.host).unwrap_or_default();
            let mut answer = match self.serve_site(bucket, &req).await {
                Ok(answer) => answer,
                Err(refusal) => refusal.page(&ctx.request_id),
            };
            if req.method == "HEAD" {
                answer.body = WebBody::Whole(Vec::new());
            }
            answer.headers.extend([
                ("x-amz-request-id".to_owned(), ctx.request_id.clone()),
                ("x-amz-id-2".to_owned(), HOST_ID.to_owned()),
                ("server".to_owned(), "AmazonS3".to_owned()),
            ]);
            answer
        })
    }
}

/// Why a website request was not served, shown as S3's HTML error page.
struct Refusal {
    error: AwsError,
    /// Why the error document could not be shown instead, when the bucket names one.
    error_document: Option<AwsError>,
}

impl From<AwsError> for Refusal {
    fn from(error: AwsError) -> Refusal {
        Refusal {
            error,
            error_document: None,
        }
    }
}

impl Refusal {
    /// S3's HTML page for this refusal.
    fn page(&self, request_id: &str) -> WebAnswer {
        let status = self.error.http_status;
        let title = format!("{status} {}", reason(status));
        let mut html = format!("<html>\n<head><title>{title}</title></head>\n<body>\n<h1>{title}</h1>\n<ul>\n");
        push_items(&mut html, &self.error);
        html.push_str(&format!(
            "<li>RequestId: {request_id}</li>\n<li>HostId: {HOST_ID}</li>\n</ul>\n"
        ));
        if let Some(e) = &self.error_document {
            html.push_str("<h3>An Error Occurred While Attempting to Retrieve a Custom Error Document</h3>\n<ul>\n");
            push_items(&mut html, e);
            html.push_str("</ul>\n");
        }
        html.push_str("<hr/>\n</body>\n</html>\n");
        let mut answer = WebAnswer::new(status, "text/html; charset=utf-8", html);
        answer
            .headers
            .extend(self.error.headers.iter().map(|(n, v)| ((*n).to_owned(), v.clone())));
        answer
    }
}

/// An error's code, message and details as the page's list items.
fn push_items(html: &mut String, e: &AwsError) {
    html.push_str(&format!(
        "<li>Code: {}</li>\n<li>Message: {}</li>\n",
        e.code,
        escape_html(&e.message)
    ));
    for (name, value) in e.details.iter() {
        html.push_str(&format!("<li>{name}: {}</li>\n", escape_html(value)));
    }
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The reason phrase of the statuses a website answers with.
fn reason(status: u16) -> &'static str {
    match status {
        304 => "Not Modified",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        412 => "Precondition Failed",
        416 => "Requested Range Not Satisfiable",
        _ => "Internal Server Error",
    }
}

/// A redirect to `location`, with no body.
fn redirect(status: u16, location: String) -> WebAnswer {
    WebAnswer {
        status,
        headers: vec![("location".to_owned(), location)],
        body: WebBody::Whole(Vec::new()),
    }
}

/// The routing rule that applies to a request for `key` (as the URL names it, before an index
/// document is added): before the lookup, `error` is `None` and only rules without an error
/// condition apply; after it failed with `error`, only rules whose condition names its status.
fn routing_rule<'r>(rules: &'r [RoutingRule], key: &str, error: Option<u16>) -> Option<&'r RoutingRule> {
    rules.iter().find(|rule| {
        let Some(condition) = &rule.condition else {
            return error.is_none();
        };
        let prefix = condition.key_prefix_equals.as_deref().unwrap_or("");
        let status = condition.http_error_code_returned_equals.as_deref();
        key.starts_with(prefix) && status == error.map(|s| s.to_string()).as_deref()
    })
}

/// Where `rule` sends a request for `key` that came to `host`.
fn rule_redirect(rule: &RoutingRule, key: &str, host: &str) -> WebAnswer {
    let to = &rule.redirect;
    let new_key = match (&to.replace_key_with, &to.replace_key_prefix_with) {
        (Some(key), _) => key.clone(),
        (None, Some(prefix)) => {
            let matched = rule
                .condition
                .as_ref()
                .and_then(|c| c.key_prefix_equals.as_deref())
                .unwrap_or("");
            format!("{prefix}{}", &key[matched.len()..])
        }
        (None, None) => key.to_owned(),
    };
    let protocol = to.protocol.as_ref().map_or("http", Protocol::as_str);
    let host = to.host_name.as_deref().unwrap_or(host);
    let status = to
        .http_redirect_code
        .as_deref()
        .and_then(|c| c.parse().ok())
        .unwrap_or(301);
    redirect(status, format!("{protocol}://{host}/{}", encode_key(&new_key)))
}

/// A key as a URL path names it.
fn encode_key(key: &str) -> String {
    listing::escape(key, b"/~", "%20")
}

impl S3Service {
    /// The answer to a website request for `bucket`.
    async fn serve_site(&self, bucket: &str, req: &WebRequest<'_>) -> Result<WebAnswer, Refusal> {
        let site = match self.load_config(bucket, config::WEBSITE)? {
            Some(bytes) if !bytes.is_empty() => config::website::website(&bytes)?,
            _ => {
                return Err(AwsError::new(
                    "NoSuchWebsiteConfiguration",
                    "The specified bucket does not have a website configuration",
                    404,
                )
                .with_detail("BucketName", bucket)
                .into())
            }
        };
        if !matches!(req.method, "GET" | "HEAD") {
            return Err(AwsError::new(
                "MethodNotAllowed",
                "The specified method is not allowed against this resource.",
                405,
            )
            .with_detail("Method", req.method)
            .with_detail("ResourceType", "OBJECT")
            .into());
        }
        if let Some(to) = &site.redirect_all_requests_to {
            let protocol = to.protocol.as_ref().map_or("http", Protocol::as_str);
            return Ok(redirect(301, format!("{protocol}://{}{}", to.host_name, req.path)));
        }
        let key = object::percent_decode(req.path.strip_prefix('/').unwrap_or(req.path), false)
            .ok_or_else(|| S3Error::invalid_request("The request URI is not valid."))?;
        let rules = site.routing_rules.as_deref().unwrap_or_default();
        if let Some(rule) = routing_rule(rules, &key, None) {
            return Ok(rule_redirect(rule, &key, req.host));
        }
        let suffix = site.index_document.as_ref().map_or("index.html", |d| d.suffix.as_str());
        let wanted = match key.is_empty() || key.ends_with('/') {
            true => format!("{key}{suffix}"),
            false => key.clone(),
        };
        let missing = match self.site_object(bucket, &wanted)? {
            Some(record) => return self.serve_object(bucket, record, 200, Some(req)).await,
            None if wanted == key && self.site_object(bucket, &format!("{key}/{suffix}"))?.is_some() => {
                return Ok(redirect(302, format!("/{}/", encode_key(&key))));
            }
            None => S3Error::no_such_key(&wanted),
        };
        if let Some(rule) = routing_rule(rules, &key, Some(missing.http_status)) {
            return Ok(rule_redirect(rule, &key, req.host));
        }
        let Some(document) = &site.error_document else {
            return Err(missing.into());
        };
        match self.site_object(bucket, &document.key)? {
            Some(record) => self.serve_object(bucket, record, missing.http_status, None).await,
            None => Err(Refusal {
                error: missing,
                error_document: Some(S3Error::no_such_key(&document.key)),
            }),
        }
    }

    /// The current version of `key`, if it has one that is not a delete marker.
    fn site_object(&self, bucket: &str, key: &str) -> Result<Option<ObjectRecord>, AwsError> {
        let db = self.store()?;
        Ok(store::current(&db, bucket, key)?.filter(|r| !r.delete_marker))
    }

    /// The current version of the object `record` was read as (read again, with its body),
    /// with `status` (an error document's is the error's), or its own redirect; `req`'s
    /// conditions and range apply to the object asked for, not to an error document.
    async fn serve_object(
        &self,
        bucket: &str,
        record: ObjectRecord,
        status: u16,
        req: Option<&WebRequest<'_>>,
    ) -> Result<WebAnswer, Refusal> {
        let key = record.key;
        let (record, blob) = self.open_object(|| {
            self.site_object(bucket, &key)?
                .ok_or_else(|| S3Error::no_such_key(&key))
        })?;
        if let Some(location) = &record.website_redirect_location {
            return Ok(redirect(301, location.clone()));
        }
        check_readable(&record, self.now_ms())?;
        // An SSE-C object cannot be read without its key, which a browser does not send.
        crate::customer_key::check_read(record.customer_key_md5.as_deref(), Default::default())?;
        let header = |name| req.and_then(|r| r.header(name));
        let since =
            |name| header(name).and_then(|t| DateTime::from_str(t, aws_smithy_types::date_time::Format::HttpDate).ok());
        let (modified_since, unmodified_since) = (since("if-modified-since"), since("if-unmodified-since"));
        let conditions = ReadConditions {
            if_match: header("if-match"),
            if_none_match: header("if-none-match"),
            if_modified_since: modified_since.as_ref(),
            if_unmodified_since: unmodified_since.as_ref(),
            now_ms: self.now_ms(),
        };
        if let Err(e) = conditions.check(&record) {
            if e.http_status != 304 {
                return Err(e.into());
            }
            let mut answer = redirect(304, String::new());
            answer.headers = vec![("etag".to_owned(), record.etag)];
            return Ok(answer);
        }
        let (range, _) = object::read_range(header("range"), None, &record)?;
        let length = range.map_or(record.size, |(start, end)| end - start + 1);
        let reader = crate::body::reader(blob, range)?;
        let body = match length > STREAM_RESPONSES_ABOVE {
            true => WebBody::Stream(reader),
            false => WebBody::Whole(self.read_all(reader, length).await?),
        };
        let h = &record.headers;
        let content_type = h.content_type.as_deref().unwrap_or("binary/octet-stream");
        let mut answer = WebAnswer::new(if range.is_some() { 206 } else { status }, content_type, Vec::new());
        answer.body = body;
        let last_modified = record
            .last_modified()
            .fmt(aws_smithy_types::date_time::Format::HttpDate)
            .unwrap_or_default();
        answer.headers.extend([
            ("etag".to_owned(), record.etag.clone()),
            ("last-modified".to_owned(), last_modified),
            ("accept-ranges".to_owned(), "bytes".to_owned()),
        ]);
        if let Some((start, end)) = range {
            answer.headers.push((
                "content-range".to_owned(),
                format!("bytes {start}-{end}/{}", record.size),
            ));
        }
        let optional = [
            ("cache-control", &h.cache_control),
            ("content-disposition", &h.content_disposition),
            ("content-encoding", &h.content_encoding),
            ("content-language", &h.content_language),
            ("expires", &h.expires),
        ];
        answer.headers.extend(
            optional
                .into_iter()
                .filter_map(|(name, value)| value.clone().map(|v| (name.to_owned(), v))),
        );
        let metadata = crate::rfc2047::encode_all(&record.metadata);
        answer
            .headers
            .extend(metadata.into_iter().map(|(k, v)| (format!("x-amz-meta-{k}"), v)));
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn website_hosts_name_their_bucket() {
        assert_eq!(bucket_of("site.s3-website-us-east-1.amazonaws.com"), Some("site"));
        assert_eq!(bucket_of("my.site.s3-website.eu-west-1.amazonaws.com"), Some("my.site"));
        assert_eq!(
            bucket_of("site.s3-website.localhost.localstack.cloud:4566"),
            Some("site")
        );
        assert_eq!(bucket_of("s3-website.localhost.localstack.cloud"), None);
        assert_eq!(bucket_of("site.s3.localhost.localstack.cloud"), None);
        assert_eq!(bucket_of("site.s3-websites.example"), None);
        assert_eq!(bucket_of("localhost:4566"), None);
    }
}
