//! Health endpoints: Stratus's own, and LocalStack's shape so tooling written for LocalStack
//! (awslocal, testcontainers' wait strategy) works unchanged.
//!
//! A service is `available` until its first request and `running` after it, as LocalStack
//! reports; services without an implementation are listed by `/_stratus/health` only.

use std::sync::atomic::Ordering;

use aws_smithy_json::serialize::JsonObjectWriter;
use stratus_core::schema::Service;
use stratus_protocol::Response;

use crate::Gateway;

/// The response for a health path, or `None` for any other request.
pub fn answer(gateway: &Gateway, parts: &http::request::Parts) -> Option<Response> {
    if parts.method != http::Method::GET && parts.method != http::Method::HEAD {
        return None;
    }
    let localstack = match parts.uri.path() {
        "/_stratus/health" => false,
        "/_localstack/health" | "/health" => true,
        _ => return None,
    };
    let mut body = String::new();
    let mut root = JsonObjectWriter::new(&mut body);
    let mut services = root.key("services").start_object();
    for (i, handler) in gateway.services.all().iter().enumerate() {
        let schema = handler.schema();
        let state = match (handler.implemented(), gateway.used()[i].load(Ordering::Relaxed)) {
            (false, _) if localstack => continue,
            (false, _) => "not_implemented",
            (true, false) => "available",
            (true, true) => "running",
        };
        services.key(&localstack_name(schema)).string(state);
    }
    services.finish();
    if localstack {
        root.key("edition").string("community");
    }
    root.key("version").string(env!("CARGO_PKG_VERSION"));
    root.finish();
    Some(
        http::Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(body.into_bytes())
            .unwrap_or_default(),
    )
}

/// Records that `service` has served a request.
pub fn mark_used(gateway: &Gateway, service: &'static Service) {
    if let Some(i) = gateway.services.position(service) {
        // Read first: a store on every request would bounce the cache line between cores.
        let used = &gateway.used()[i];
        if !used.load(Ordering::Relaxed) {
            used.store(true, Ordering::Relaxed);
        }
    }
}

/// The name LocalStack lists a service under: its signing name, except where LocalStack's
/// differs (`events`, `logs`, `dynamodbstreams`, …).
fn localstack_name(service: &Service) -> String {
    match service.sdk_id {
        "DynamoDB Streams" => "dynamodbstreams".into(),
        "CloudWatch" => "cloudwatch".into(),
        "SFN" => "stepfunctions".into(),
        "ApiGatewayV2" => "apigatewayv2".into(),
        "SESv2" => "sesv2".into(),
        _ => service.signing_name.to_string(),
    }
}
