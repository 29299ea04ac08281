//! Function URLs, served: `http://<url-id>.lambda-url.<region>.localhost.localstack.cloud:PORT/…`
//! (that name resolves to 127.0.0.1), and `http://HOST:PORT/_stratus/lambda-url/<url-id>/…` on
//! any name of the server, in the server's region. A request becomes the payload format 2.0
//! event, and the function's answer becomes the HTTP response, as AWS's "Invoking Lambda
//! function URLs" describes.
//!
//! A URL id is 32 lowercase letters and digits, the last 12 the account's (AWS derives its ids
//! from the account too), so that a request names the store to look in; the `url_ids` table of
//! that store says which function and qualifier the id is for.
//!
//! The same [`WebEndpoints`] serve the code download links (`crate::code_links`).

use std::collections::BTreeMap;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use stratus_core::service::{BoxFuture, WebAnswer, WebBody, WebEndpoints, WebRequest};
use stratus_core::{urlencoded, RequestContext};
use stratus_storage::Table;

use crate::code_links;
use crate::invoke::{RunError, MAX_SYNC_PAYLOAD};
use crate::names::FunctionRef;
use crate::records::{CorsRecord, UrlRecord};
use crate::service::{load_function, LambdaService};

/// The function and qualifier (`""` for `$LATEST`) each URL id is for.
pub(crate) const URL_IDS: Table<UrlTarget> = Table::new("url_ids");

/// What a URL id stands for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct UrlTarget {
    pub(crate) function: String,
    pub(crate) qualifier: String,
}

const HOST_MARK: &str = ".lambda-url.";
const PATH_PREFIX: &str = "/_stratus/lambda-url/";
const LOCAL_DOMAIN: &str = "localhost.localstack.cloud";
const ID_LEN: usize = 32;
const ACCOUNT_LEN: usize = 12;

/// A new URL id for a function of `account`.
pub(crate) fn new_url_id(account: &str) -> String {
    let random = stratus_core::id::random_string(b"abcdefghijklmnopqrstuvwxyz0123456789", ID_LEN - ACCOUNT_LEN);
    format!("{random}{account}")
}

/// The address of URL `url_id` in `region`, on the port of `endpoint_url` (the server's).
pub(crate) fn public_url(endpoint_url: &str, url_id: &str, region: &str) -> String {
    let port = endpoint_url
        .rsplit_once(':')
        .map(|(_, port)| port.trim_end_matches('/'))
        .filter(|port| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or("4566");
    format!("http://{url_id}.lambda-url.{region}.{LOCAL_DOMAIN}:{port}/")
}

/// Which URL a request addresses, and the path the function sees.
#[derive(Debug, PartialEq)]
struct Addressed<'a> {
    url_id: &'a str,
    /// From the host name; the path form takes the server's.
    region: Option<&'a str>,
    path: String,
    /// `requestContext.domainName`.
    domain: String,
}

fn addressed<'a>(host: &'a str, path: &'a str) -> Option<Addressed<'a>> {
    let name = host.rsplit_once(':').map_or(host, |(name, _)| name);
    let valid = |id: &str| id.len() == ID_LEN && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if let Some((url_id, rest)) = name.split_once(HOST_MARK) {
        let region = rest.split('.').next().filter(|r| !r.is_empty())?;
        return valid(url_id).then(|| Addressed {
            url_id,
            region: Some(region),
            path: path.to_owned(),
            domain: name.to_owned(),
        });
    }
    let rest = path.strip_prefix(PATH_PREFIX)?;
    let (url_id, rest) = rest.split_once('/').unwrap_or((rest, ""));
    valid(url_id).then(|| Addressed {
        url_id,
        region: None,
        path: format!("/{rest}"),
        domain: name.to_owned(),
    })
}

/// The account whose function URL `url_id` is.
fn account_of(url_id: &str) -> &str {
    &url_id[ID_LEN - ACCOUNT_LEN..]
}

impl WebEndpoints for LambdaService {
    fn claims(&self, host: &str, path: &str) -> bool {
        addressed(host, path).is_some() || path.starts_with(code_links::PREFIX)
    }

    fn answer<'a>(&'a self, ctx: &'a RequestContext, req: WebRequest<'a>) -> BoxFuture<'a, WebAnswer> {
        Box::pin(async move {
            let mut answer = match addressed(req.host, req.path) {
                Some(at) => self.serve_url(ctx, &req, at).await,
                None => self.download(req.path).await,
            };
            answer
                .headers
                .push(("x-amzn-requestid".to_owned(), ctx.request_id.clone()));
            answer
        })
    }
}

impl LambdaService {
    async fn serve_url(&self, ctx: &RequestContext, req: &WebRequest<'_>, at: Addressed<'_>) -> WebAnswer {
        let region = at.region.unwrap_or(&ctx.region);
        let account = account_of(at.url_id);
        let Some((f, url)) = self.url_target(account, region, at.url_id) else {
            return message(403, "Forbidden");
        };
        // AWS_IAM URLs take signed requests only. (The signature itself is not checked.)
        if url.auth_type == "AWS_IAM" && ctx.access_key_id.is_none() {
            return message(403, "Forbidden");
        }
        let origin = req.header("origin");
        if req.method == "OPTIONS" && origin.is_some() && req.header("access-control-request-method").is_some() {
            return preflight(url.cors.as_ref(), req);
        }
        if req.body.len() > MAX_SYNC_PAYLOAD {
            return message(
                413,
                "Request must be smaller than 6291456 bytes for the InvokeFunction operation",
            );
        }
        let event = url_event(req, &at, account, &ctx.request_id, self.now_ms());
        let mut answer = match self
            .run(&f, event.to_string().into_bytes(), None, &ctx.request_id)
            .await
        {
            Ok(ran) if ran.function_error.is_none() => http_answer(&ran.payload),
            Ok(_) => text(502, "Internal Server Error"),
            Err(RunError::Throttled(_)) => message(429, "Rate Exceeded."),
            Err(RunError::Aws(e)) => {
                tracing::warn!(function = f.name, error = %e, "a function URL's function could not run");
                text(502, "Internal Server Error")
            }
        };
        if let (Some(origin), Some(cors)) = (origin, &url.cors) {
            answer.headers.extend(cors_headers(cors, origin));
        }
        answer
    }

    /// The function and URL configuration `url_id` names, if it still names one.
    fn url_target(&self, account: &str, region: &str, url_id: &str) -> Option<(FunctionRef, UrlRecord)> {
        let store = self.store(account, region).ok()?;
        let target = URL_IDS.get(&*store, url_id).ok()??;
        let record = load_function(&*store, &target.function).ok()??;
        let url = record
            .urls
            .get(&target.qualifier)
            .filter(|u| u.url_id == url_id)?
            .clone();
        let f = FunctionRef {
            account: account.to_owned(),
            region: region.to_owned(),
            name: target.function,
            qualifier: (!target.qualifier.is_empty()).then_some(target.qualifier),
        };
        Some((f, url))
    }
}

/// Records that `url_id` is the URL of `function` at `qualifier`.
pub(crate) fn remember(
    tx: &mut stratus_storage::Tx<'_>,
    url_id: &str,
    function: &str,
    qualifier: &str,
) -> Result<(), stratus_core::AwsError> {
    let target = UrlTarget {
        function: function.to_owned(),
        qualifier: qualifier.to_owned(),
    };
    URL_IDS
        .put(tx, url_id.as_bytes(), &target)
        .map_err(crate::error::storage)
}

/// Forgets the URL ids `urls` hold (their function or qualifier is gone).
pub(crate) fn forget<'u>(tx: &mut stratus_storage::Tx<'_>, urls: impl IntoIterator<Item = &'u UrlRecord>) {
    for url in urls {
        URL_IDS.delete(tx, url.url_id.as_bytes());
    }
}

/// Whether a request body of `content_type` is text, which the event carries as it is;
/// anything else is carried base64-encoded.
fn is_text(content_type: Option<&str>, body: &[u8]) -> bool {
    let Some(content_type) = content_type else {
        return std::str::from_utf8(body).is_ok();
    };
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence.starts_with("text/")
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
        || [
            "application/json",
            "application/javascript",
            "application/xml",
            "application/x-www-form-urlencoded",
        ]
        .contains(&essence.as_str())
}

/// The payload format 2.0 event of a request to a function URL.
fn url_event(req: &WebRequest<'_>, at: &Addressed<'_>, account: &str, request_id: &str, now_ms: i64) -> Value {
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    let mut cookies = Vec::new();
    for (name, value) in req.headers {
        if *name == "cookie" {
            cookies.extend(
                value
                    .split(';')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(String::from),
            );
            continue;
        }
        headers
            .entry((*name).to_owned())
            .and_modify(|joined| {
                joined.push(',');
                joined.push_str(value);
            })
            .or_insert_with(|| (*value).to_owned());
    }
    headers
        .entry("x-forwarded-for".to_owned())
        .or_insert_with(|| req.source_ip.to_string());
    headers.insert("x-forwarded-proto".to_owned(), "http".to_owned());
    let mut event = Map::new();
    event.insert("version".into(), json!("2.0"));
    event.insert("routeKey".into(), json!("$default"));
    event.insert("rawPath".into(), json!(at.path));
    event.insert("rawQueryString".into(), json!(req.query.unwrap_or("")));
    if !cookies.is_empty() {
        event.insert("cookies".into(), json!(cookies));
    }
    event.insert("headers".into(), json!(headers));
    if let Some(query) = req.query.filter(|q| !q.is_empty()) {
        let mut parameters: BTreeMap<String, String> = BTreeMap::new();
        for (name, value) in urlencoded::pairs(query).filter_map(Result::ok) {
            parameters
                .entry(name.into_owned())
                .and_modify(|joined| {
                    joined.push(',');
                    joined.push_str(&value);
                })
                .or_insert_with(|| value.into_owned());
        }
        event.insert("queryStringParameters".into(), json!(parameters));
    }
    event.insert(
        "requestContext".into(),
        json!({
            "accountId": account,
            "apiId": at.url_id,
            "domainName": at.domain,
            "domainPrefix": at.url_id,
            "http": {
                "method": req.method,
                "path": at.path,
                "protocol": "HTTP/1.1",
                "sourceIp": req.source_ip.to_string(),
                "userAgent": req.header("user-agent").unwrap_or(""),
            },
            "requestId": request_id,
            "routeKey": "$default",
            "stage": "$default",
            "time": request_time(now_ms),
            "timeEpoch": now_ms,
        }),
    );
    if !req.body.is_empty() {
        let text = is_text(req.header("content-type"), req.body);
        let body = match text {
            true => String::from_utf8_lossy(req.body).into_owned(),
            false => base64::engine::general_purpose::STANDARD.encode(req.body),
        };
        event.insert("body".into(), json!(body));
        event.insert("isBase64Encoded".into(), json!(!text));
    } else {
        event.insert("isBase64Encoded".into(), json!(false));
    }
    Value::Object(event)
}

/// `requestContext.time`: `12/Mar/2020:19:03:58 +0000`.
fn request_time(epoch_ms: i64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (y, mo, d, h, mi, s) = stratus_core::calendar::civil_from_seconds(epoch_ms.div_euclid(1000));
    let month = MONTHS[usize::try_from(mo - 1).unwrap_or(0).min(11)];
    format!("{d:02}/{month}/{y:04}:{h:02}:{mi:02}:{s:02} +0000")
}

/// The HTTP response a function's answer stands for: its `statusCode`, `headers`, `cookies`
/// and `body` when it gives a `statusCode`, else the answer itself as a JSON body.
fn http_answer(payload: &[u8]) -> WebAnswer {
    let parsed: Option<Value> = serde_json::from_slice(payload).ok();
    let Some(Value::Object(response)) = parsed.filter(|v| v.get("statusCode").is_some()) else {
        return WebAnswer::new(200, "application/json", payload.to_vec());
    };
    let Some(status) = response
        .get("statusCode")
        .and_then(Value::as_u64)
        .and_then(|s| u16::try_from(s).ok())
        .filter(|s| (100..=599).contains(s))
    else {
        return text(502, "Internal Server Error");
    };
    let mut headers: Vec<(String, String)> = Vec::new();
    if let Some(Value::Object(given)) = response.get("headers") {
        for (name, value) in given {
            let value = match value {
                Value::String(s) => s.clone(),
                Value::Null => continue,
                other => other.to_string(),
            };
            headers.push((name.to_ascii_lowercase(), value));
        }
    }
    if let Some(Value::Array(cookies)) = response.get("cookies") {
        headers.extend(
            cookies
                .iter()
                .filter_map(Value::as_str)
                .map(|c| ("set-cookie".to_owned(), c.to_owned())),
        );
    }
    let body = match response.get("body") {
        Some(Value::String(s)) if response.get("isBase64Encoded") == Some(&Value::Bool(true)) => {
            match base64::engine::general_purpose::STANDARD.decode(s) {
                Ok(bytes) => bytes,
                Err(_) => return text(502, "Internal Server Error"),
            }
        }
        Some(Value::String(s)) => s.clone().into_bytes(),
        None | Some(Value::Null) => Vec::new(),
        Some(other) => other.to_string().into_bytes(),
    };
    WebAnswer {
        status,
        headers,
        body: WebBody::Whole(body),
    }
}

/// A preflight's answer, by the URL's CORS configuration: what it allows of the request, or
/// nothing (the browser then refuses the request).
fn preflight(cors: Option<&CorsRecord>, req: &WebRequest<'_>) -> WebAnswer {
    let mut answer = WebAnswer {
        status: 200,
        headers: Vec::new(),
        body: WebBody::Whole(Vec::new()),
    };
    let (Some(cors), Some(origin)) = (cors, req.header("origin")) else {
        return answer;
    };
    let method = req.header("access-control-request-method").unwrap_or("");
    let methods = cors.allow_methods.as_deref().unwrap_or_default();
    if !allows_origin(cors, origin) || !methods.iter().any(|m| m == "*" || m.eq_ignore_ascii_case(method)) {
        return answer;
    }
    answer.headers = cors_headers(cors, origin);
    answer
        .headers
        .push(("access-control-allow-methods".to_owned(), methods.join(",")));
    if let Some(allowed) = cors.allow_headers.as_deref().filter(|h| !h.is_empty()) {
        answer
            .headers
            .push(("access-control-allow-headers".to_owned(), allowed.join(",")));
    }
    if let Some(age) = cors.max_age {
        answer
            .headers
            .push(("access-control-max-age".to_owned(), age.to_string()));
    }
    answer
}

fn allows_origin(cors: &CorsRecord, origin: &str) -> bool {
    cors.allow_origins
        .as_deref()
        .unwrap_or_default()
        .iter()
        .any(|o| o == "*" || o.eq_ignore_ascii_case(origin))
}

/// The CORS headers of an answer to a request from `origin`, when the configuration allows it.
fn cors_headers(cors: &CorsRecord, origin: &str) -> Vec<(String, String)> {
    if !allows_origin(cors, origin) {
        return Vec::new();
    }
    let mut headers = vec![("access-control-allow-origin".to_owned(), origin.to_owned())];
    if cors.allow_credentials == Some(true) {
        headers.push(("access-control-allow-credentials".to_owned(), "true".to_owned()));
    }
    if let Some(exposed) = cors.expose_headers.as_deref().filter(|h| !h.is_empty()) {
        headers.push(("access-control-expose-headers".to_owned(), exposed.join(",")));
    }
    headers
}

/// `{"Message": …}`, as function URLs refuse.
fn message(status: u16, text: &str) -> WebAnswer {
    WebAnswer::new(status, "application/json", json!({ "Message": text }).to_string())
}

fn text(status: u16, body: &str) -> WebAnswer {
    WebAnswer::new(status, "text/plain; charset=utf-8", body)
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};

    use super::*;

    const ID: &str = "abcdefghij0123456789000000000000";

    fn request<'a>(headers: &'a [(&'a str, &'a str)], query: Option<&'a str>, body: &'a [u8]) -> WebRequest<'a> {
        WebRequest {
            method: "POST",
            host: "x",
            path: "/a/b",
            query,
            headers,
            body,
            source_ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
        }
    }

    #[test]
    fn urls_are_addressed_by_host_or_by_path() {
        let host = format!("{ID}.lambda-url.eu-west-1.localhost.localstack.cloud:4566");
        let at = addressed(&host, "/x").unwrap();
        assert_eq!((at.url_id, at.region, at.path.as_str()), (ID, Some("eu-west-1"), "/x"));
        assert_eq!(
            at.domain,
            format!("{ID}.lambda-url.eu-west-1.localhost.localstack.cloud")
        );
        let path = format!("/_stratus/lambda-url/{ID}/deep/path");
        let at = addressed("127.0.0.1:4566", &path).unwrap();
        assert_eq!((at.url_id, at.region, at.path.as_str()), (ID, None, "/deep/path"));
        assert_eq!(
            addressed("127.0.0.1:4566", &format!("/_stratus/lambda-url/{ID}"))
                .unwrap()
                .path,
            "/"
        );
        assert!(addressed("localhost:4566", "/bucket/key").is_none());
        assert!(addressed("short.lambda-url.us-east-1.localhost", "/").is_none());
        assert!(addressed(&format!("{}.lambda-url.us-east-1.localhost", ID.to_uppercase()), "/").is_none());
    }

    #[test]
    fn url_ids_carry_their_account() {
        let id = new_url_id("123456789012");
        assert_eq!(id.len(), 32);
        assert_eq!(account_of(&id), "123456789012");
        assert_eq!(
            public_url("http://127.0.0.1:4599", &id, "us-east-1"),
            format!("http://{id}.lambda-url.us-east-1.localhost.localstack.cloud:4599/")
        );
    }

    // The request payload of "Invoking Lambda function URLs" (AWS Lambda developer guide).
    #[test]
    fn the_event_is_payload_format_2() {
        let headers = [
            ("content-type", "application/json"),
            ("cookie", "a=1; b=2"),
            ("x-multi", "one"),
            ("x-multi", "two"),
            ("user-agent", "curl/8"),
        ];
        let req = request(&headers, Some("p=1&p=2&q=x%20y"), br#"{"k":"v"}"#);
        let host = format!("{ID}.lambda-url.us-east-1.localhost");
        let at = addressed(&host, "/a/b").unwrap();
        let event = url_event(&req, &at, "000000000000", "rid", 1_583_348_638_390);
        assert_eq!(event["version"], "2.0");
        assert_eq!(event["rawQueryString"], "p=1&p=2&q=x%20y");
        assert_eq!(event["cookies"], json!(["a=1", "b=2"]));
        assert_eq!(event["headers"]["x-multi"], "one,two");
        assert!(event["headers"].get("cookie").is_none());
        assert_eq!(event["queryStringParameters"], json!({"p": "1,2", "q": "x y"}));
        assert_eq!(event["body"], r#"{"k":"v"}"#);
        assert_eq!(event["isBase64Encoded"], false);
        let context = &event["requestContext"];
        assert_eq!(context["http"]["method"], "POST");
        assert_eq!(context["http"]["userAgent"], "curl/8");
        assert_eq!(context["time"], "04/Mar/2020:19:03:58 +0000");
        assert_eq!(context["domainPrefix"], ID);
        assert_eq!(context["accountId"], "000000000000");
    }

    #[test]
    fn binary_bodies_are_base64_and_empty_ones_absent() {
        let headers = [("content-type", "application/octet-stream")];
        let host = format!("{ID}.lambda-url.us-east-1.localhost");
        let at = addressed(&host, "/").unwrap();
        let event = url_event(&request(&headers, None, &[0, 159, 146]), &at, "0", "r", 0);
        assert_eq!(event["body"], "AJ+S");
        assert_eq!(event["isBase64Encoded"], true);
        assert!(event.get("queryStringParameters").is_none());
        let event = url_event(&request(&[], None, b""), &at, "0", "r", 0);
        assert!(event.get("body").is_none() && event.get("cookies").is_none());
    }

    // The response mapping of "Invoking Lambda function URLs": inferred and structured answers.
    #[test]
    fn answers_map_to_http() {
        let inferred = http_answer(br#"{"message":"Hello, world!"}"#);
        assert_eq!(inferred.status, 200);
        assert_eq!(
            inferred.headers,
            vec![("content-type".to_owned(), "application/json".to_owned())]
        );
        assert!(matches!(&inferred.body, WebBody::Whole(b) if b == br#"{"message":"Hello, world!"}"#));
        let structured = http_answer(
            br#"{"statusCode":201,"headers":{"My-Header":"v"},"cookies":["c=1; Max-Age=5"],"body":"aGk=","isBase64Encoded":true}"#,
        );
        assert_eq!(structured.status, 201);
        assert_eq!(
            structured.headers,
            vec![
                ("my-header".to_owned(), "v".to_owned()),
                ("set-cookie".to_owned(), "c=1; Max-Age=5".to_owned())
            ]
        );
        assert!(matches!(&structured.body, WebBody::Whole(b) if b == b"hi"));
        assert_eq!(http_answer(br#"{"statusCode":"abc"}"#).status, 502);
        assert_eq!(http_answer(b"not json").status, 200);
    }

    #[test]
    fn preflights_answer_what_the_configuration_allows() {
        let cors = CorsRecord {
            allow_origins: Some(vec!["https://example.com".into()]),
            allow_methods: Some(vec!["GET".into(), "POST".into()]),
            allow_headers: Some(vec!["x-custom".into()]),
            max_age: Some(60),
            ..CorsRecord::default()
        };
        let headers = [
            ("origin", "https://example.com"),
            ("access-control-request-method", "POST"),
        ];
        let answer = preflight(Some(&cors), &request(&headers, None, b""));
        let names: Vec<&str> = answer.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "access-control-allow-origin",
                "access-control-allow-methods",
                "access-control-allow-headers",
                "access-control-max-age"
            ]
        );
        let other = [
            ("origin", "https://evil.example"),
            ("access-control-request-method", "POST"),
        ];
        assert!(preflight(Some(&cors), &request(&other, None, b"")).headers.is_empty());
    }
}
