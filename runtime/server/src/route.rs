//! Which service, protocol and operation a request is for, from its wire signals.
//!
//! In order: `X-Amz-Target` (the JSON protocols), the rpcv2 path
//! `/service/S/operation/O`, the Query `Action` of a form body or query string, the SigV4
//! credential scope's signing name, the REST route tables — and S3, which takes whatever is
//! left. Where several services share a signal (DynamoDB and DynamoDB Streams sign as
//! `dynamodb`; SES and SESv2 as `ses`), the protocol-specific signal decides.

use std::sync::Arc;

use http::HeaderName;
use stratus_core::schema::{Operation, Protocol, Service};
use stratus_core::service::ServiceHandler;
use stratus_core::AwsError;
use stratus_protocol::{urlencoded, ProtocolError, Request};

use crate::sigv4::Signer;
use crate::virtual_host;

/// The JSON protocols' operation header.
pub(crate) const X_AMZ_TARGET: HeaderName = HeaderName::from_static("x-amz-target");
/// rpcv2's protocol header.
const SMITHY_PROTOCOL: HeaderName = HeaderName::from_static("smithy-protocol");

/// A request's destination.
pub struct Route {
    pub handler: Arc<dyn ServiceHandler>,
    pub protocol: Protocol,
    pub operation: &'static Operation,
    /// The path-style URI the request stands for, when it addressed an S3 bucket by host
    /// (decode with this one).
    pub uri: Option<http::Uri>,
}

/// Why a request could not be routed, with the service when that much was known (so the
/// error can be answered in its protocol).
pub struct Unrouted {
    pub error: AwsError,
    pub target: Option<(Arc<dyn ServiceHandler>, Protocol)>,
}

/// The services a gateway serves, with S3 kept apart as the fallback.
pub struct Services {
    handlers: Vec<Arc<dyn ServiceHandler>>,
    /// Each handler's schema, read once: routing looks at every service's on every request.
    schemas: Vec<&'static Service>,
}

impl Services {
    pub fn new(handlers: Vec<Arc<dyn ServiceHandler>>) -> Services {
        let schemas = handlers.iter().map(|h| h.schema()).collect();
        Services { handlers, schemas }
    }

    /// Every service, in registration order.
    pub fn all(&self) -> &[Arc<dyn ServiceHandler>] {
        &self.handlers
    }

    /// Where `service` is in registration order.
    pub fn position(&self, service: &'static Service) -> Option<usize> {
        self.schemas.iter().position(|schema| std::ptr::eq(*schema, service))
    }

    /// The service whose model shape is `shape_name` (what `X-Amz-Target` and rpcv2 paths name).
    fn named(&self, shape_name: &str) -> Option<&Arc<dyn ServiceHandler>> {
        let i = self.schemas.iter().position(|schema| schema.shape_name == shape_name)?;
        Some(&self.handlers[i])
    }

    /// The services for which `pred` holds, in registration order.
    fn matching<P: Fn(&'static Service) -> bool>(&self, pred: P) -> impl Iterator<Item = &Arc<dyn ServiceHandler>> {
        self.handlers
            .iter()
            .zip(&self.schemas)
            .filter(move |(_, schema)| pred(schema))
            .map(|(handler, _)| handler)
    }

    /// Routes `req`, signed by `signer` if it was signed. `form` holds the request's query
    /// parameters and then its form body's, for the Query protocol's `Action` and `Version`.
    pub fn route(
        &self,
        req: &Request<'_>,
        signer: Option<&Signer<'_>>,
        form: &[urlencoded::Pair<'_>],
    ) -> Result<Route, Unrouted> {
        let header = |name: &HeaderName| req.headers.get(name).and_then(|v| v.to_str().ok());
        let signed_for = |schema: &Service| {
            signer
                .and_then(|s| s.service)
                .is_none_or(|name| schema.signing_name == name)
        };

        if let Some(target) = header(&X_AMZ_TARGET) {
            let prefix = target.split_once('.').map_or(target, |(p, _)| p);
            if let Some(h) = self.named(prefix) {
                let protocol = json_protocol(h.schema());
                return resolve(h, protocol, req);
            }
        }

        if header(&SMITHY_PROTOCOL) == Some("rpc-v2-cbor") {
            let service = req
                .uri
                .path()
                .strip_prefix("/service/")
                .and_then(|rest| rest.split('/').next());
            if let Some(h) = service.and_then(|s| self.named(s)) {
                return resolve(h, Protocol::RpcV2Cbor, req);
            }
        }

        // A form body's parameters come after the query string's, and override them.
        let param = |name: &str| form.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_ref());
        if let Some(action) = param("Action") {
            let speaks_query = |schema: &Service| schema.protocols.contains(&Protocol::AwsQuery);
            let mut candidates: Vec<_> = self
                .matching(|schema| speaks_query(schema) && signed_for(schema))
                .collect();
            if candidates.len() > 1 {
                if let Some(version) = param("Version") {
                    candidates.retain(|h| h.schema().version == version);
                }
            }
            if candidates.len() > 1 {
                candidates.retain(|h| h.schema().operation(action).is_some());
            }
            if let Some(h) = candidates.first() {
                // The action is already parsed: no second pass over the form.
                return match h.schema().operation(action) {
                    Some(operation) => Ok(Route {
                        handler: Arc::clone(h),
                        protocol: Protocol::AwsQuery,
                        operation,
                        uri: None,
                    }),
                    None => Err(Unrouted {
                        error: ProtocolError::UnknownOperation {
                            protocol: Protocol::AwsQuery,
                            name: action.to_string(),
                        }
                        .into(),
                        target: Some((Arc::clone(h), Protocol::AwsQuery)),
                    }),
                };
            }
        }

        // REST services: those the signature names first, then every other, S3 last.
        let rest = |schema: &Service| rest_protocol(schema).is_some() && schema.signing_name != "s3";
        let signed_name = signer.and_then(|s| s.service);
        let signed = self.matching(|schema| rest(schema) && signed_name == Some(schema.signing_name));
        let unsigned = self.matching(|schema| rest(schema) && signed_name != Some(schema.signing_name));
        for h in signed.chain(unsigned) {
            if let Some(protocol) = rest_protocol(h.schema()) {
                if let Ok(operation) = stratus_protocol::operation_for(protocol, h.schema(), req) {
                    return Ok(Route {
                        handler: h.clone(),
                        protocol,
                        operation,
                        uri: None,
                    });
                }
            }
        }
        if let Some(Fallback { handler, protocol, uri }) = self.fallback(req) {
            return match uri {
                Some(uri) => {
                    let routed = resolve(handler, protocol, &Request { uri: &uri, ..*req });
                    routed.map(|route| Route {
                        uri: Some(uri),
                        ..route
                    })
                }
                None => resolve(handler, protocol, req),
            };
        }
        Err(Unrouted {
            error: AwsError::new(
                "UnknownOperationException",
                "Stratus could not tell which AWS service this request is for",
                404,
            ),
            target: None,
        })
    }

    /// The service that takes the requests nothing else claims — S3 — with the path-style URI
    /// of a request that names its bucket in the host. A browser's preflight (`OPTIONS`)
    /// carries nothing else to route by.
    pub fn fallback(&self, req: &Request<'_>) -> Option<Fallback<'_>> {
        let handler = self.matching(|schema| schema.signing_name == "s3").next()?;
        let host = req.headers.get(http::header::HOST).and_then(|v| v.to_str().ok());
        let uri = host
            .and_then(virtual_host::bucket_of)
            .and_then(|bucket| virtual_host::path_style(req.uri, bucket));
        Some(Fallback {
            handler,
            protocol: Protocol::RestXml,
            uri,
        })
    }
}

/// Where a request goes that no wire signal claims.
pub struct Fallback<'s> {
    pub handler: &'s Arc<dyn ServiceHandler>,
    pub protocol: Protocol,
    /// The path-style URI the request stands for, when it addressed an S3 bucket by host.
    pub uri: Option<http::Uri>,
}

/// The operation of a request whose service and protocol are known.
fn resolve(h: &Arc<dyn ServiceHandler>, protocol: Protocol, req: &Request<'_>) -> Result<Route, Unrouted> {
    match stratus_protocol::operation_for(protocol, h.schema(), req) {
        Ok(operation) => Ok(Route {
            handler: h.clone(),
            protocol,
            operation,
            uri: None,
        }),
        Err(e) => Err(Unrouted {
            error: e.into(),
            target: Some((h.clone(), protocol)),
        }),
    }
}

fn json_protocol(schema: &Service) -> Protocol {
    let protocols = schema.protocols;
    [Protocol::AwsJson1_0, Protocol::AwsJson1_1]
        .into_iter()
        .find(|p| protocols.contains(p))
        .unwrap_or(protocols[0])
}

fn rest_protocol(schema: &Service) -> Option<Protocol> {
    schema
        .protocols
        .iter()
        .copied()
        .find(|p| matches!(p, Protocol::RestJson1 | Protocol::RestXml))
}
