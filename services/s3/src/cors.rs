//! CORS: which of a bucket's rules allows a browser's cross-origin request, and S3's answers to
//! a preflight (`OPTIONS`) and to any request with an `Origin`.
//!
//! As the PutBucketCors reference and the user guide's "Elements of a CORS configuration" say,
//! the first rule wins whose `AllowedOrigins` match the `Origin` (one `*` wildcard; case
//! matters), whose `AllowedMethods` hold the method and whose `AllowedHeaders` match every
//! header of `Access-Control-Request-Headers` (one `*` wildcard; case does not matter). The
//! refusals, their texts (AWS's own "evalution" among them) and the headers of an allowed
//! request are AWS's recorded answers: LocalStack's AWS-validated snapshots
//! (`tests/aws/services/s3/test_s3_cors.snapshot.json`).

use stratus_core::schema::Service;
use stratus_core::service::{CrossOrigin, CrossOriginRequest, Headers};
use stratus_core::AwsError;
use stratus_gen_s3::{schema, CORSRule};

use crate::{config, S3Service};

const VARY: &str = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method";

const NOT_ALLOWED: &str = "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.";

/// What a request asks of the rules.
#[derive(Debug)]
pub(crate) struct Asked<'a> {
    pub origin: &'a str,
    pub method: &'a str,
    /// The names in `Access-Control-Request-Headers`, lowercased, as S3 answers them.
    pub headers: Vec<String>,
}

impl<'a> Asked<'a> {
    pub(crate) fn new(origin: &'a str, method: &'a str, request_headers: Option<&str>) -> Asked<'a> {
        let headers = request_headers
            .into_iter()
            .flat_map(|list| list.split(','))
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        Asked {
            origin,
            method,
            headers,
        }
    }
}

/// The first rule that allows `asked`, with its allowed origin that matched.
pub(crate) fn matching<'r>(rules: &'r [CORSRule], asked: &Asked<'_>) -> Option<(&'r CORSRule, &'r str)> {
    rules.iter().find_map(|rule| {
        let origin = rule
            .allowed_origins
            .iter()
            .find(|allowed| glob(allowed, asked.origin, |a, b| a == b))?;
        let method = rule.allowed_methods.iter().any(|m| m == asked.method);
        let allowed_headers = rule.allowed_headers.as_deref().unwrap_or_default();
        let headers = asked.headers.iter().all(|name| {
            allowed_headers
                .iter()
                .any(|allowed| glob(allowed, name, str::eq_ignore_ascii_case))
        });
        (method && headers).then_some((rule, origin.as_str()))
    })
}

/// The headers S3 answers a request that `rule` allows with; `allowed` is the rule's origin
/// that matched (`*` answers any origin, without credentials).
pub(crate) fn headers(rule: &CORSRule, allowed: &str, asked: &Asked<'_>) -> Headers {
    let any = allowed == "*";
    let mut headers = vec![(
        "access-control-allow-origin",
        if any { "*" } else { asked.origin }.to_owned(),
    )];
    if !any {
        headers.push(("access-control-allow-credentials", "true".to_owned()));
    }
    headers.push(("access-control-allow-methods", rule.allowed_methods.join(", ")));
    if !asked.headers.is_empty() {
        headers.push(("access-control-allow-headers", asked.headers.join(", ")));
    }
    if let Some(expose) = rule.expose_headers.as_ref().filter(|e| !e.is_empty()) {
        headers.push(("access-control-expose-headers", expose.join(", ")));
    }
    if let Some(age) = rule.max_age_seconds {
        headers.push(("access-control-max-age", age.to_string()));
    }
    headers.push(("vary", VARY.to_owned()));
    headers
}

/// Whether `value` matches `pattern`, in which one `*` stands for any run of characters;
/// `same` compares the literal parts.
fn glob(pattern: &str, value: &str, same: impl Fn(&str, &str) -> bool) -> bool {
    match pattern.split_once('*') {
        None => same(pattern, value),
        Some((prefix, suffix)) => {
            value.len() >= prefix.len() + suffix.len()
                && value.get(..prefix.len()).is_some_and(|start| same(prefix, start))
                && value
                    .get(value.len() - suffix.len()..)
                    .is_some_and(|end| same(suffix, end))
        }
    }
}

/// Why S3 refuses a preflight, in the order it checks.
enum Refusal {
    NoOrigin,
    NoBucket,
    /// The bucket has no CORS configuration.
    NotEnabled,
    NoMethod,
    /// No rule allows the request.
    NotAllowed,
    /// The rules could not be read.
    Failed(AwsError),
}

impl From<AwsError> for Refusal {
    fn from(e: AwsError) -> Refusal {
        Refusal::Failed(e)
    }
}

impl Refusal {
    /// AWS's answer to preflight `req`: `Method` names the method asked about, else the
    /// preflight's own; `ResourceType` is `OBJECT` only when rules were evaluated for a key.
    fn error(self, req: &CrossOriginRequest<'_>) -> AwsError {
        let method = req.request_method.unwrap_or(req.method);
        let forbidden = |message: &str, resource: &str| {
            AwsError::new("AccessForbidden", message, 403)
                .with_detail("Method", method)
                .with_detail("ResourceType", resource)
        };
        match self {
            Refusal::NoOrigin => AwsError::new(
                "BadRequest",
                "Insufficient information. Origin request header needed.",
                400,
            ),
            Refusal::NoBucket => forbidden("CORSResponse: Bucket not found", "BUCKET"),
            Refusal::NotEnabled => forbidden("CORSResponse: CORS is not enabled for this bucket.", "BUCKET"),
            // No AWS recording; the text S3-compatible stores (Scality CloudServer's
            // routeOPTIONS, Huawei OBS's OPTIONS reference) give for a missing method.
            Refusal::NoMethod => AwsError::new("BadRequest", "Invalid Access-Control-Request-Method: null", 400),
            Refusal::NotAllowed => forbidden(NOT_ALLOWED, if addressed(req.path).1 { "OBJECT" } else { "BUCKET" }),
            Refusal::Failed(e) => e,
        }
    }
}

/// The bucket a path-style path names, and whether it names an object in it too.
fn addressed(path: &str) -> (&str, bool) {
    let path = path.strip_prefix('/').unwrap_or(path);
    match path.split_once('/') {
        Some((bucket, key)) => (bucket, !key.is_empty()),
        None => (path, false),
    }
}

impl S3Service {
    fn cors_rules(&self, bucket: &str) -> Result<Vec<CORSRule>, Refusal> {
        match self.typed_config(bucket, config::CORS, &schema::CORS_RULES) {
            Ok(Some(rules)) => Ok(rules),
            Ok(None) => Err(Refusal::NotEnabled),
            Err(e) if e.code == "NoSuchBucket" => Err(Refusal::NoBucket),
            Err(e) => Err(e.into()),
        }
    }

    fn evaluate_preflight(&self, req: &CrossOriginRequest<'_>) -> Result<Headers, Refusal> {
        let origin = req.origin.filter(|o| !o.is_empty()).ok_or(Refusal::NoOrigin)?;
        let rules = self.cors_rules(addressed(req.path).0)?;
        let method = req.request_method.ok_or(Refusal::NoMethod)?;
        let asked = Asked::new(origin, method, req.request_headers);
        let (rule, allowed) = matching(&rules, &asked).ok_or(Refusal::NotAllowed)?;
        Ok(headers(rule, allowed, &asked))
    }
}

impl CrossOrigin for S3Service {
    fn service(&self) -> &'static Service {
        &schema::SERVICE
    }

    fn preflight(&self, req: &CrossOriginRequest<'_>) -> Result<Headers, AwsError> {
        self.evaluate_preflight(req).map_err(|refusal| refusal.error(req))
    }

    fn allowed(&self, req: &CrossOriginRequest<'_>) -> Headers {
        let Some(origin) = req.origin.filter(|o| !o.is_empty()) else {
            return Vec::new();
        };
        let Ok(rules) = self.cors_rules(addressed(req.path).0) else {
            return Vec::new();
        };
        // A request that carries a preflight's headers is evaluated as that preflight
        // (recorded: a GET asking `Access-Control-Request-Method: PUT` of a GET-only rule gets
        // no CORS headers).
        let asked = Asked::new(origin, req.request_method.unwrap_or(req.method), req.request_headers);
        matching(&rules, &asked).map_or_else(Vec::new, |(rule, allowed)| headers(rule, allowed, &asked))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(origins: &[&str], methods: &[&str], headers: Option<&[&str]>) -> CORSRule {
        let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        CORSRule {
            allowed_origins: strings(origins),
            allowed_methods: strings(methods),
            allowed_headers: headers.map(strings),
            ..CORSRule::default()
        }
    }

    fn allows(rules: &[CORSRule], origin: &str, method: &str, request_headers: Option<&str>) -> bool {
        matching(rules, &Asked::new(origin, method, request_headers)).is_some()
    }

    #[test]
    fn origins_match_with_one_wildcard_and_case() {
        let rules = [rule(&["http://*.example.com", "https://app.test"], &["GET"], None)];
        assert!(allows(&rules, "http://www.example.com", "GET", None));
        assert!(allows(&rules, "http://a.b.example.com", "GET", None));
        assert!(allows(&rules, "https://app.test", "GET", None));
        assert!(!allows(&rules, "https://www.example.com", "GET", None));
        // The recorded partial-origin case: a trailing slash is another origin.
        assert!(!allows(&rules, "http://test.example.com/", "GET", None));
        assert!(!allows(&rules, "http://example.com.evil", "GET", None));
        assert!(!allows(&rules, "https://APP.test", "GET", None));
        assert!(allows(&[rule(&["*"], &["GET"], None)], "anything at all", "GET", None));
    }

    #[test]
    fn methods_match_exactly() {
        let rules = [rule(&["*"], &["GET", "PUT"], None)];
        assert!(allows(&rules, "https://a.test", "PUT", None));
        assert!(!allows(&rules, "https://a.test", "put", None));
        assert!(!allows(&rules, "https://a.test", "DELETE", None));
    }

    #[test]
    fn every_requested_header_must_be_allowed_whatever_its_case() {
        let rules = [rule(&["*"], &["GET"], Some(&["x-amz-*", "Content-Type"]))];
        assert!(allows(
            &rules,
            "https://a.test",
            "GET",
            Some("X-Amz-Date, content-type")
        ));
        assert!(allows(&rules, "https://a.test", "GET", Some(" ,x-AMZ-meta-a,")));
        assert!(!allows(
            &rules,
            "https://a.test",
            "GET",
            Some("x-amz-date, authorization")
        ));
        assert!(allows(
            &[rule(&["*"], &["GET"], Some(&["*"]))],
            "o",
            "GET",
            Some("anything")
        ));
        // Recorded: a rule without AllowedHeaders allows no requested header.
        let bare = [rule(&["*"], &["GET"], None)];
        assert!(allows(&bare, "o", "GET", None));
        assert!(!allows(&bare, "o", "GET", Some("x-amz-request-payer")));
    }

    #[test]
    fn the_first_matching_rule_wins() {
        let mut first = rule(&["https://a.test"], &["GET"], None);
        first.max_age_seconds = Some(10);
        let mut second = rule(&["*"], &["GET", "PUT"], Some(&["x-amz-*"]));
        second.expose_headers = Some(vec!["ETag".into(), "x-amz-request-id".into()]);
        let rules = [first, second];
        let asked = Asked::new("https://a.test", "GET", None);
        let (rule, allowed) = matching(&rules, &asked).unwrap();
        assert_eq!(
            headers(rule, allowed, &asked),
            vec![
                ("access-control-allow-origin", "https://a.test".to_owned()),
                ("access-control-allow-credentials", "true".to_owned()),
                ("access-control-allow-methods", "GET".to_owned()),
                ("access-control-max-age", "10".to_owned()),
                ("vary", VARY.to_owned()),
            ]
        );
        let asked = Asked::new("https://a.test", "PUT", Some("X-Amz-Date"));
        let (rule, allowed) = matching(&rules, &asked).unwrap();
        assert_eq!(
            headers(rule, allowed, &asked),
            vec![
                ("access-control-allow-origin", "*".to_owned()),
                ("access-control-allow-methods", "GET, PUT".to_owned()),
                ("access-control-allow-headers", "x-amz-date".to_owned()),
                ("access-control-expose-headers", "ETag, x-amz-request-id".to_owned()),
                ("vary", VARY.to_owned()),
            ]
        );
    }

    #[test]
    fn paths_name_a_bucket_or_an_object() {
        assert_eq!(addressed("/photos"), ("photos", false));
        assert_eq!(addressed("/photos/"), ("photos", false));
        assert_eq!(addressed("/photos/a/b.jpg"), ("photos", true));
        assert_eq!(addressed("/"), ("", false));
    }
}
