//! The type-erased face of a service, so the gateway can hold every service in one table.
//!
//! Each generated crate implements [`ServiceHandler`] for `Handler<S>` where `S` implements
//! that crate's service trait; [`Unimplemented`] serves a service nobody has written yet from
//! its schema alone, answering every operation with AWS's not-implemented error after
//! validation.
//!
//! Beside it: the hooks for what browsers send that no operation models: [`CrossOrigin`], a
//! service's CORS rules, [`FormUpload`], its HTML form uploads, and [`WebEndpoints`], its
//! own plain HTTP endpoints ([`endpoints`]); the capabilities one
//! service offers another ([`capabilities`]: [`MessageSink`] and the rest); and the
//! [`Registration`] each service crate hands the binary ([`registration`]), with the
//! [`Spawner`] that runs its background work on the binary's runtime; and how a
//! service's operations are wired to its functions ([`wiring`]: the generated `operations!`
//! macros); and [`Arrivals`], the signal a stream's readers wait on instead of polling.

pub mod arrivals;
pub mod capabilities;
pub mod endpoints;
pub mod registration;
pub mod spawner;
pub mod wiring;

use std::future::Future;
use std::pin::Pin;

use crate::context::RequestContext;
use crate::error::{AwsError, OperationError};
use crate::schema::{Operation, Service};
use crate::value::Value;

pub use arrivals::Arrivals;
pub use capabilities::{
    AssumableRole, Authorization, Authorizer, Caller, Decision, DeliveryStreamSink, EventBus, FunctionInvoker,
    Identity, KeyDirectory, KeyService, LogWriter, MessageSink, MetricSink, ObjectSink, ObjectSource, ObjectToPut,
    QueueSource, ResourcePolicies, ResourcePolicy, ResourceTags, RoleCredentials, RoleDirectory, RoleSessions,
    SecretSource, SecretValue, SessionGrants, ShardRead, ShardRecord, StoredObject, StreamSource, StreamStart,
    StreamWriter, TopicPublisher, Verdict,
};
pub use endpoints::{WebAnswer, WebBody, WebEndpoints, WebRequest};
pub use registration::{LateProviders, Providers, Registration, ServiceEnv, Settings, Shutdown};
pub use spawner::{Gate, Spawner};
pub use wiring::EncodedAnswer;

/// A boxed, sendable future: what a type-erased operation call returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A service, callable with decoded and validated input values.
pub trait ServiceHandler: Send + Sync + 'static {
    /// The service's schema.
    fn schema(&self) -> &'static Service;

    /// Whether a hand-written implementation stands behind the generated trait.
    fn implemented(&self) -> bool;

    /// Calls `operation` (one of `schema().operations`) with its input value.
    fn call<'a>(
        &'a self,
        ctx: &'a RequestContext,
        operation: &'static Operation,
        input: Value,
    ) -> BoxFuture<'a, Result<Value, OperationError>>;
}

/// A service nobody has written: its schema routes and validates requests, and every
/// operation answers AWS's not-implemented error. It needs nothing of the generated crate but
/// the schema, so a service not yet written costs no typed code.
#[derive(Debug, Clone, Copy)]
pub struct Unimplemented(pub &'static Service);

impl ServiceHandler for Unimplemented {
    fn schema(&self) -> &'static Service {
        self.0
    }

    fn implemented(&self) -> bool {
        false
    }

    fn call<'a>(
        &'a self,
        _ctx: &'a RequestContext,
        operation: &'static Operation,
        _input: Value,
    ) -> BoxFuture<'a, Result<Value, OperationError>> {
        Box::pin(std::future::ready(
            Err(AwsError::not_implemented(operation.name).into()),
        ))
    }
}

/// A browser's cross-origin request, as a service's CORS rules see it.
#[derive(Debug, Clone, Copy)]
pub struct CrossOriginRequest<'a> {
    /// The path addressed, path-style (S3: `/bucket/key`, whatever the host named).
    pub path: &'a str,
    /// The request's own method.
    pub method: &'a str,
    /// `Origin`: the page's origin, e.g. `https://example.com`; `None` when the request has none.
    pub origin: Option<&'a str>,
    /// `Access-Control-Request-Method`: the method a preflight asks about.
    pub request_method: Option<&'a str>,
    /// `Access-Control-Request-Headers`, as sent (names separated by commas).
    pub request_headers: Option<&'a str>,
}

/// Response headers a service adds to an answer.
pub type Headers = Vec<(&'static str, String)>;

/// A service's cross-origin resource sharing (CORS) rules, which its model has no operation
/// for: the gateway hands it the preflight (`OPTIONS`) requests addressed to the service, and
/// asks it for the `Access-Control-*` headers of its answers to requests with an `Origin`.
pub trait CrossOrigin: Send + Sync {
    /// The service whose requests the rules govern.
    fn service(&self) -> &'static Service;

    /// Answers a preflight: the headers of an empty `200`, or the refusal.
    fn preflight(&self, req: &CrossOriginRequest<'_>) -> Result<Headers, AwsError>;

    /// The headers of the answer, success or error, to `req`, which carries an `Origin`.
    fn allowed(&self, req: &CrossOriginRequest<'_>) -> Headers;
}

/// A browser's HTML form upload: a `POST` that no operation takes, its body
/// (`multipart/form-data`, when the browser sent what it should) streaming in the context's
/// [`Streams`](crate::context::Streams).
#[derive(Debug, Clone, Copy)]
pub struct FormPost<'a> {
    /// The path addressed, path-style (S3: `/bucket`, whatever the host named).
    pub path: &'a str,
    /// The URL the client addressed, without its query, as `http://host/path`.
    pub url: &'a str,
    /// The request's `Content-Type`, if it has a readable one.
    pub content_type: Option<&'a str>,
}

/// A service's answer to a form upload.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FormAnswer {
    /// The HTTP status code, e.g. `204`, or the `success_action_status` an S3 form asks for.
    pub status: u16,
    /// Response headers (`etag`, `location`, …); the gateway adds the request ids and CORS
    /// headers itself.
    pub headers: Headers,
    /// The response body; empty for a `204`.
    pub body: Vec<u8>,
}

/// A service's HTML form uploads (S3's browser-based POST uploads), which its model has no
/// operation for: the gateway hands it the `POST` requests without a query string that no
/// operation takes, when it accepts their path, and streams their bodies to it.
pub trait FormUpload: Send + Sync {
    /// The service the uploads are for.
    fn service(&self) -> &'static Service;

    /// Whether a `POST` to `path` (path-style) is one of the service's form uploads.
    fn accepts(&self, path: &str) -> bool;

    /// Answers the upload `form`, whose body is `ctx`'s streamed request.
    fn upload<'a>(
        &'a self,
        ctx: &'a RequestContext,
        form: FormPost<'a>,
    ) -> BoxFuture<'a, Result<FormAnswer, OperationError>>;
}
