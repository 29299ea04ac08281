//! The services' own web endpoints ([`WebEndpoints`]): requests a service claims by host or
//! path before any operation is routed, answered as the service says, with no protocol in
//! between.

use std::net::IpAddr;

use stratus_core::service::{WebBody, WebEndpoints, WebRequest};
use stratus_core::{PayloadFraming, Streams};
use stratus_protocol::Request;

use crate::pipeline::{self, GatewayBody};
use crate::request_body::RequestBody;
use crate::Gateway;

/// The endpoints that claim the request `parts` heads, if any do.
pub fn claim<'g>(gateway: &'g Gateway, parts: &http::request::Parts) -> Option<&'g dyn WebEndpoints> {
    if gateway.endpoints.is_empty() {
        return None;
    }
    let host = pipeline::authority(&parts.headers, &parts.uri).unwrap_or_default();
    gateway
        .endpoints
        .iter()
        .find(|endpoints| endpoints.claims(host, parts.uri.path()))
        .map(|endpoints| endpoints.as_ref())
}

/// Hands the claimed request `parts`, whose body is `body`, to `endpoints`.
pub async fn answer(
    gateway: &Gateway,
    endpoints: &dyn WebEndpoints,
    parts: &http::request::Parts,
    body: RequestBody,
    request_id: &str,
    client: IpAddr,
) -> hyper::Response<GatewayBody> {
    let body = match pipeline::read_body(body, gateway.config.max_body_bytes).await {
        Ok(body) => body,
        Err(error) => return pipeline::unread_body(gateway, parts, &error, request_id),
    };
    let req = Request {
        method: &parts.method,
        uri: &parts.uri,
        headers: &parts.headers,
        body: &body,
    };
    let params = pipeline::routing_params(&req);
    let signer = pipeline::signer(&req, &params).ok().flatten();
    let mut ctx = pipeline::context(
        gateway,
        &req,
        signer,
        None,
        request_id,
        Streams::default(),
        PayloadFraming::default(),
    );
    ctx.source_ip = Some(client);
    let headers: Vec<(&str, &str)> = parts
        .headers
        .iter()
        .filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?)))
        .collect();
    let web = WebRequest {
        method: parts.method.as_str(),
        host: pipeline::authority(&parts.headers, &parts.uri).unwrap_or_default(),
        path: parts.uri.path(),
        query: parts.uri.query(),
        headers: &headers,
        body: &body,
        source_ip: client,
    };
    let answer = endpoints.answer(&ctx, web).await;
    let mut response = http::Response::builder().status(answer.status);
    for (name, value) in &answer.headers {
        response = response.header(name.as_str(), value.as_str());
    }
    let (whole, streamed) = match answer.body {
        WebBody::Whole(body) => (body, None),
        WebBody::Stream(reader) => (Vec::new(), Some(reader)),
    };
    match response.body(whole) {
        Ok(response) => pipeline::into_hyper(response, streamed),
        Err(e) => {
            tracing::error!(request_id, error = %e, "a web endpoint answered a header HTTP cannot carry");
            let error = stratus_core::AwsError::internal("We encountered an internal error. Please try again.");
            pipeline::into_hyper(pipeline::plain_json_error(&error, request_id), None)
        }
    }
}
