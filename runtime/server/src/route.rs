//! Which service, protocol and operation a request is for, from its wire signals.
//!
//! In order: `X-Amz-Target` (the JSON protocols), the rpcv2 path
//! `/service/S/operation/O`, the Query `Action` of a form body or query string, the SigV4
//! credential scope's signing name, the REST route tables — and S3, which takes whatever is
//! left. Where several services share a signal (DynamoDB and DynamoDB Streams sign as
//! `dynamodb`; SES and SESv2 as `ses`), the protocol-specific signal decides.

use std::borrow::Cow;
use std::sync::Arc;

use stratus_core::schema::{Operation, Protocol};
use stratus_core::service::ServiceHandler;
use stratus_core::AwsError;
use stratus_protocol::{ProtocolError, Request};

use crate::sigv4::Signer;
use crate::virtual_host;

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
}

impl Services {
    pub fn new(handlers: Vec<Arc<dyn ServiceHandler>>) -> Services {
        Services { handlers }
    }

    /// Every service, in registration order.
    pub fn all(&self) -> &[Arc<dyn ServiceHandler>] {
        &self.handlers
    }

    /// The services for which `pred` holds, in registration order.
    fn matching(&self, pred: impl Fn(&dyn ServiceHandler) -> bool) -> Vec<&Arc<dyn ServiceHandler>> {
        self.handlers.iter().filter(|h| pred(h.as_ref())).collect()
    }

    /// Routes `req`, signed by `signer` if it was signed. `form` holds the request's form or
    /// query parameters, for the Query protocol's `Action` and `Version`.
    pub fn route(
        &self,
        req: &Request<'_>,
        signer: Option<&Signer>,
        form: &[(Cow<'_, str>, Cow<'_, str>)],
    ) -> Result<Route, Unrouted> {
        let header = |name: &str| req.headers.get(name).and_then(|v| v.to_str().ok());
        let signed_for = |h: &dyn ServiceHandler| {
            signer
                .and_then(|s| s.service.as_deref())
                .is_none_or(|name| h.schema().signing_name == name)
        };

        if let Some(target) = header("x-amz-target") {
            let prefix = target.split_once('.').map_or(target, |(p, _)| p);
            if let Some(h) = self.matching(|h| h.schema().shape_name == prefix).first() {
                let protocol = json_protocol(h.as_ref());
                return resolve(h, protocol, req);
            }
        }

        if header("smithy-protocol") == Some("rpc-v2-cbor") {
            let service = req
                .uri
                .path()
                .strip_prefix("/service/")
                .and_then(|rest| rest.split('/').next());
            if let Some(h) = service.and_then(|s| self.matching(|h| h.schema().shape_name == s).first().copied()) {
                return resolve(h, Protocol::RpcV2Cbor, req);
            }
        }

        let param = |name: &str| form.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_ref());
        if let Some(action) = param("Action") {
            let speaks_query = |h: &dyn ServiceHandler| h.schema().protocols.contains(&Protocol::AwsQuery);
            let mut candidates = self.matching(|h| speaks_query(h) && signed_for(h));
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
        let rest = |h: &dyn ServiceHandler| rest_protocol(h).is_some() && h.schema().signing_name != "s3";
        let signed_name = signer.and_then(|s| s.service.as_deref());
        let signed = self.matching(|h| rest(h) && signed_name == Some(h.schema().signing_name));
        let unsigned = self.matching(|h| rest(h) && signed_name != Some(h.schema().signing_name));
        for h in signed.into_iter().chain(unsigned) {
            if let Some(protocol) = rest_protocol(h.as_ref()) {
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
        let handler = self.handlers.iter().find(|h| h.schema().signing_name == "s3")?;
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

fn json_protocol(h: &dyn ServiceHandler) -> Protocol {
    let protocols = h.schema().protocols;
    [Protocol::AwsJson1_0, Protocol::AwsJson1_1]
        .into_iter()
        .find(|p| protocols.contains(p))
        .unwrap_or(protocols[0])
}

fn rest_protocol(h: &dyn ServiceHandler) -> Option<Protocol> {
    h.schema()
        .protocols
        .iter()
        .copied()
        .find(|p| matches!(p, Protocol::RestJson1 | Protocol::RestXml))
}
