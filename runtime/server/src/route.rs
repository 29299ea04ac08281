//! Which service, protocol and operation a request is for, from its wire signals.
//!
//! In order: `X-Amz-Target` (the JSON protocols) and the rpcv2 path `/service/S/operation/O`,
//! which name the service's shape; the Query `Action` of a form body or query string; the REST
//! route tables — and the service that takes whatever is left (S3, which the binary names:
//! [`Services::with_unclaimed`]). The SigV4 credential scope's signing name confines the last
//! two steps to the services signed with it: on AWS every service has a host of its own, and on
//! one endpoint the signing name is what says which was meant (a bucket named `restapis` is
//! S3's when the request is signed for S3). Where several services share a signing name
//! (DynamoDB and DynamoDB Streams sign as `dynamodb`; SES and SESv2 as `ses`; API Gateway's two
//! APIs as `apigateway`), the protocol-specific signal decides. Requests that are unsigned, or
//! signed with SigV2 or for a service not served here, may go to any service: a host that names
//! a bucket sends them to the unclaimed service, and otherwise REST services are tried in
//! registration order before it.
//!
//! The tables behind these steps are `route_tables`'s, built by the first request routed.

use std::sync::{Arc, OnceLock};

use http::HeaderName;
use stratus_core::schema::{Operation, Protocol, Service};
use stratus_core::service::ServiceHandler;
use stratus_core::AwsError;
use stratus_protocol::{urlencoded, ProtocolError, Request};

use crate::route_tables::{rest_protocol, Tables};
use crate::sigv4::Signer;
use crate::virtual_host;

/// The JSON protocols' operation header.
pub(crate) const X_AMZ_TARGET: HeaderName = HeaderName::from_static("x-amz-target");
/// rpcv2's protocol header.
const SMITHY_PROTOCOL: HeaderName = HeaderName::from_static("smithy-protocol");

/// A request's destination.
pub struct Route {
    /// The service that serves the request.
    pub handler: Arc<dyn ServiceHandler>,
    /// The protocol the request is read, and answered, in.
    pub protocol: Protocol,
    /// The operation the request calls, from the service's schema.
    pub operation: &'static Operation,
    /// The path-style URI the request stands for, when it addressed an S3 bucket by host
    /// (decode with this one).
    pub uri: Option<http::Uri>,
}

/// Why a request could not be routed, with the service when that much was known (so the
/// error can be answered in its protocol).
pub struct Unrouted {
    /// Why the request could not be routed, as the error to answer (e.g.
    /// `UnknownOperationException`).
    pub error: AwsError,
    /// The service and protocol to answer `error` in; `None` when no service was found, and
    /// the answer is plain JSON.
    pub target: Option<(Arc<dyn ServiceHandler>, Protocol)>,
}

/// The services a gateway serves, and the routing tables built from their schemas once: a
/// request looks its signals up instead of asking every service in turn.
pub struct Services {
    handlers: Vec<Arc<dyn ServiceHandler>>,
    /// Each handler's schema.
    schemas: Vec<&'static Service>,
    /// The lookups, built from the schemas by the first request routed: reading every schema
    /// at start would page in tables the binary otherwise leaves on disk until they are used
    /// (about 3 MB more resident memory at start).
    tables: OnceLock<Tables>,
    /// The service that takes what no other claims, if the gateway has one.
    unclaimed: Option<usize>,
}

impl Services {
    /// The routing of `handlers`, in registration order (the order REST routes are tried in);
    /// the tables are built by the first request routed.
    pub fn new(handlers: Vec<Arc<dyn ServiceHandler>>) -> Services {
        Services {
            schemas: handlers.iter().map(|h| h.schema()).collect(),
            handlers,
            tables: OnceLock::new(),
            unclaimed: None,
        }
    }

    fn tables(&self) -> &Tables {
        self.tables.get_or_init(|| Tables::new(&self.schemas))
    }

    /// The same services, with `service` (one of them) taking the requests no other claims —
    /// the S3 of a full Stratus, which also answers buckets addressed by host
    /// (`virtual_host`).
    pub fn with_unclaimed(self, service: &'static Service) -> Services {
        Services {
            unclaimed: self.position(service),
            ..self
        }
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
        self.tables().by_shape_name.get(shape_name).map(|&i| &self.handlers[i])
    }

    /// Routes `req`, signed by `signer` if it was signed. `form` holds the request's query
    /// parameters and then its form body's, for the Query protocol's `Action` and `Version`.
    ///
    /// A SigV4 signing name that some service here is signed with confines the request to those
    /// services (on AWS they are a host of their own); an unsigned request, or one signed with
    /// SigV2 or for a service not served here, may go to any service.
    pub fn route(
        &self,
        req: &Request<'_>,
        signer: Option<&Signer<'_>>,
        form: &[urlencoded::Pair<'_>],
    ) -> Result<Route, Unrouted> {
        let header = |name: &HeaderName| req.headers.get(name).and_then(|v| v.to_str().ok());

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

        let tables = self.tables();
        // The signing name and its services, when some service here is signed with it.
        let signed = signer
            .and_then(|s| s.service)
            .and_then(|name| Some((name, tables.by_signing_name.get(name)?)));

        // A form body's parameters come after the query string's, and override them.
        let param = |name: &str| form.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_ref());
        if let Some(action) = param("Action") {
            let candidates = match signed {
                Some((name, _)) => tables.query_by_signing_name.get(name).map_or(&[][..], Vec::as_slice),
                None => &tables.query,
            };
            if let Some(i) = self.query_service(candidates, action, param("Version")) {
                let h = &self.handlers[i];
                if let Err(error) = stratus_protocol::query::check_queue_action(h.schema(), req, action) {
                    return Err(Unrouted {
                        error: error.into(),
                        target: Some((Arc::clone(h), Protocol::AwsQuery)),
                    });
                }
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

        // A bare GET of a queue's URL names no operation at all.
        if let Some((_, services)) =
            signed.filter(|_| req.method == http::Method::GET && header(&X_AMZ_TARGET).is_none())
        {
            let queues = services.iter().map(|&i| &self.handlers[i]).find(|h| {
                h.schema().protocols.contains(&Protocol::AwsQuery)
                    && stratus_protocol::query::addresses_queue(h.schema(), req)
            });
            if let Some(h) = queues {
                return Err(Unrouted {
                    error: ProtocolError::NoActionAtQueue.into(),
                    target: Some((Arc::clone(h), Protocol::AwsQuery)),
                });
            }
        }
        match signed {
            Some((_, services)) => self.route_signed(services, req),
            None => self.route_unsigned(req),
        }
    }

    /// Which of the Query services `candidates` takes `action`: the only one; else those of
    /// the request's `version`, if it gives one; of several, the first that has the action.
    fn query_service(&self, candidates: &[usize], action: &str, version: Option<&str>) -> Option<usize> {
        if let [only] = candidates {
            return Some(*only);
        }
        let versioned = || {
            candidates
                .iter()
                .copied()
                .filter(move |&i| version.is_none_or(|v| self.schemas[i].version == v))
        };
        match versioned().take(2).count() {
            0 => None,
            1 => versioned().next(),
            _ => versioned().find(|&i| self.schemas[i].operation(action).is_some()),
        }
    }

    /// Routes a request signed for the services `signed` by their REST routes: the first whose
    /// routes match, else the unclaimed service if it is one of them, else the first's answer
    /// to an operation it does not have.
    fn route_signed(&self, signed: &[usize], req: &Request<'_>) -> Result<Route, Unrouted> {
        if let Some(route) = self.route_rest(signed, req) {
            return Ok(route);
        }
        if signed.iter().any(|&i| Some(i) == self.unclaimed) {
            if let Some(unclaimed) = self.unclaimed(req) {
                return unclaimed.route(req);
            }
        }
        let h = &self.handlers[signed[0]];
        resolve(h, answering_protocol(h.schema()), req)
    }

    /// Routes a request no signing name confines: a bucket named in the host is the unclaimed
    /// service's; then the REST services in registration order; then the unclaimed service.
    fn route_unsigned(&self, req: &Request<'_>) -> Result<Route, Unrouted> {
        let unclaimed = self.unclaimed(req);
        if unclaimed.as_ref().is_none_or(|u| u.uri.is_none()) {
            if let Some(route) = self.route_rest(&self.tables().rest, req) {
                return Ok(route);
            }
        }
        match unclaimed {
            Some(unclaimed) => unclaimed.route(req),
            None => Err(Unrouted {
                error: AwsError::new(
                    "UnknownOperationException",
                    "Stratus could not tell which AWS service this request is for",
                    404,
                ),
                target: None,
            }),
        }
    }

    /// The operation of the first of `services` (the unclaimed one aside) whose REST routes
    /// match `req`. Services none of whose routes start as the path does are passed over
    /// without reading the request against their routes.
    fn route_rest(&self, services: &[usize], req: &Request<'_>) -> Option<Route> {
        let path = req.uri.path();
        let first = path
            .strip_prefix('/')
            .unwrap_or(path)
            .split('/')
            .next()
            .unwrap_or_default();
        let method = req.method.as_str();
        let tables = self.tables();
        let mut candidates = services
            .iter()
            .filter(|&&i| Some(i) != self.unclaimed && tables.first_segments(i, &self.schemas).admit(method, first));
        candidates.find_map(|&i| {
            let h = &self.handlers[i];
            let protocol = rest_protocol(h.schema())?;
            let operation = stratus_protocol::operation_for(protocol, h.schema(), req).ok()?;
            Some(Route {
                handler: h.clone(),
                protocol,
                operation,
                uri: None,
            })
        })
    }

    /// The service that takes the requests nothing else claims (S3, in a full Stratus), with
    /// the path-style URI of a request that names its bucket in the host. A browser's
    /// preflight (`OPTIONS`) carries nothing else to route by.
    pub fn unclaimed(&self, req: &Request<'_>) -> Option<Unclaimed<'_>> {
        let handler = &self.handlers[self.unclaimed?];
        let host = req.headers.get(http::header::HOST).and_then(|v| v.to_str().ok());
        let uri = host
            .and_then(virtual_host::bucket_of)
            .and_then(|bucket| virtual_host::path_style(req.uri, bucket));
        Some(Unclaimed {
            handler,
            protocol: answering_protocol(handler.schema()),
            uri,
        })
    }
}

/// Where a request goes that no wire signal claims.
pub struct Unclaimed<'s> {
    /// The service that takes such requests.
    pub handler: &'s Arc<dyn ServiceHandler>,
    /// The protocol it answers them in: its REST protocol if it has one.
    pub protocol: Protocol,
    /// The path-style URI the request stands for, when it addressed an S3 bucket by host.
    pub uri: Option<http::Uri>,
}

impl Unclaimed<'_> {
    /// `req` at the unclaimed service, read as its path-style equivalent when it names its
    /// bucket in the host.
    fn route(self, req: &Request<'_>) -> Result<Route, Unrouted> {
        match self.uri {
            Some(uri) => {
                let routed = resolve(self.handler, self.protocol, &Request { uri: &uri, ..*req });
                routed.map(|route| Route {
                    uri: Some(uri),
                    ..route
                })
            }
            None => resolve(self.handler, self.protocol, req),
        }
    }
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

/// The protocol a service answers in when no signal of the request chose one: its REST
/// protocol if it has one, else the model's own.
fn answering_protocol(schema: &Service) -> Protocol {
    rest_protocol(schema).unwrap_or(schema.protocols[0])
}
