//! The Stratus gateway: one HTTP listener for every AWS service.
//!
//! [`serve`] accepts connections (HTTP/1.1 and HTTP/2) and hands each request to the
//! [`pipeline`]: [`route`] finds the service, protocol and operation from the request's wire
//! signals, `stratus-protocol` decodes it, `stratus-core` validates it, the service's
//! [`ServiceHandler`](stratus_core::service::ServiceHandler) answers, and the answer is
//! encoded in the same protocol. Browsers' cross-origin requests are answered by the
//! addressed service's CORS rules ([`cors`]), and their HTML form uploads by its form uploads
//! ([`form`]). Shutdown finishes in-flight requests.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use std::sync::Arc;
//! use stratus_server::{serve, Config, Gateway};
//! let gateway = Arc::new(Gateway::new(Config::default(), Vec::new()));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:4566").await?;
//! serve(listener, gateway, std::future::pending(), std::future::pending()).await
//! # }
//! ```
#![warn(missing_docs)]

pub mod authorize;
pub mod clock_endpoint;
mod compression;
pub mod connection;
pub mod cors;
pub mod decision_log;
pub mod form;
pub mod health;
mod identity;
pub mod limits;
pub mod pipeline;
pub mod request_body;
pub mod request_log;
pub mod route;
mod route_tables;
pub mod sigv4;
pub mod streaming;
mod unknown_keys;
mod verify;
pub mod virtual_host;
pub mod web;

use std::convert::Infallible;
use std::future::Future;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use stratus_core::clock::Clock;
use stratus_core::schema::Service;
use stratus_core::service::{CrossOrigin, FormUpload, KeyDirectory, ServiceHandler, WebEndpoints};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use stratus_sigv4::SigningKeys;

use crate::authorize::{Authorizers, IamMode};
use crate::connection::{Guarded, Watch, WatchedIo};
pub use crate::limits::Limits;
use crate::request_body::RequestBody;
use crate::route::Services;
use crate::sigv4::Signer;

/// Gateway settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// The region requests without a SigV4 scope are served in.
    pub region: String,
    /// The account requests are served in, unless the access key says otherwise.
    pub account_id: String,
    /// Request bodies larger than this are refused with 413.
    pub max_body_bytes: usize,
    /// The time requests are served at; a manual clock is moved through `/_stratus/clock`.
    pub clock: Clock,
    /// Whether requests must be signed with a secret Stratus knows (`--verify-signatures`).
    pub verify_signatures: bool,
    /// Whether IAM's policies authorize requests (`--iam`).
    pub iam: IamMode,
    /// Connections' timeouts and count, and the size of request heads.
    pub limits: Limits,
    /// Whether each request is logged (`request_log`; `--quiet-requests` turns it off).
    pub request_log: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            region: "us-east-1".into(),
            account_id: "000000000000".into(),
            max_body_bytes: 16 << 20,
            clock: Clock::system(),
            verify_signatures: false,
            iam: IamMode::Off,
            limits: Limits::default(),
            request_log: true,
        }
    }
}

impl Config {
    /// The account a request is served in when its key is none IAM or STS issued: an access
    /// key id of twelve digits names the account (as LocalStack does); any other key uses the
    /// configured account.
    pub fn account_for(&self, signer: Option<Signer<'_>>) -> String {
        match signer.map(|s| s.access_key_id) {
            Some(key) if stratus_core::arn::is_account_id(key) => key.to_string(),
            _ => self.account_id.clone(),
        }
    }
}

/// Everything a request needs: settings and services.
pub struct Gateway {
    /// The region, account, body limit and clock requests are served with.
    pub config: Config,
    /// The services served, and how requests are routed to them.
    pub services: Services,
    /// Per service (in `services` order): whether it has served a request yet.
    used: Vec<AtomicBool>,
    /// The CORS rules of the services that have them.
    cross_origin: Vec<Arc<dyn CrossOrigin>>,
    /// The form uploads of the services that take them.
    form_uploads: Vec<Arc<dyn FormUpload>>,
    /// The services' own web endpoints.
    endpoints: Vec<Arc<dyn WebEndpoints>>,
    /// Who the access keys IAM and STS issued stand for.
    key_directories: Vec<Arc<dyn KeyDirectory>>,
    /// The keys of AWS's form none of them knows, until one issues a key.
    unknown_keys: unknown_keys::UnknownKeys,
    /// The SigV4 signing keys derived so far, when signatures are verified.
    signing_keys: SigningKeys,
    /// IAM and the resource policies, when requests are authorized.
    authorizers: Authorizers,
}

impl Gateway {
    /// A gateway serving `handlers`, in registration order; add the service that takes
    /// unclaimed requests with [`Gateway::with_unclaimed`].
    pub fn new(config: Config, handlers: Vec<Arc<dyn ServiceHandler>>) -> Gateway {
        let used = handlers.iter().map(|_| AtomicBool::new(false)).collect();
        Gateway {
            config,
            services: Services::new(handlers),
            used,
            cross_origin: Vec::new(),
            form_uploads: Vec::new(),
            endpoints: Vec::new(),
            key_directories: Vec::new(),
            unknown_keys: unknown_keys::UnknownKeys::default(),
            signing_keys: SigningKeys::new(),
            authorizers: Authorizers::default(),
        }
    }

    /// The same gateway, authorizing requests with `authorizers` when `--iam` asks it to.
    pub fn with_authorizers(self, authorizers: Authorizers) -> Gateway {
        Gateway { authorizers, ..self }
    }

    /// The same gateway, serving requests signed with the keys `directories` issued as the
    /// identities they stand for.
    pub fn with_key_directories(self, directories: Vec<Arc<dyn KeyDirectory>>) -> Gateway {
        Gateway {
            key_directories: directories,
            ..self
        }
    }

    /// The same gateway, with `service` (one of its services) taking the requests no other
    /// claims, and the buckets addressed by host (`virtual_host`): S3, in a full Stratus.
    pub fn with_unclaimed(self, service: &'static Service) -> Gateway {
        Gateway {
            services: self.services.with_unclaimed(service),
            ..self
        }
    }

    /// The same gateway, answering cross-origin requests to each service of `rules` by them.
    pub fn with_cross_origin(self, rules: Vec<Arc<dyn CrossOrigin>>) -> Gateway {
        Gateway {
            cross_origin: rules,
            ..self
        }
    }

    /// The CORS rules of `service`, if it has any.
    pub fn cross_origin(&self, service: &'static Service) -> Option<&dyn CrossOrigin> {
        self.cross_origin
            .iter()
            .find(|rules| std::ptr::eq(rules.service(), service))
            .map(|rules| rules.as_ref())
    }

    /// The same gateway, handing each service of `uploads` its HTML form uploads.
    pub fn with_form_uploads(self, uploads: Vec<Arc<dyn FormUpload>>) -> Gateway {
        Gateway {
            form_uploads: uploads,
            ..self
        }
    }

    /// The form uploads of `service`, if it takes any.
    pub fn form_upload(&self, service: &'static Service) -> Option<&dyn FormUpload> {
        self.form_uploads
            .iter()
            .find(|uploads| std::ptr::eq(uploads.service(), service))
            .map(|uploads| uploads.as_ref())
    }

    /// The same gateway, serving the web endpoints of each service of `endpoints`.
    pub fn with_endpoints(self, endpoints: Vec<Arc<dyn WebEndpoints>>) -> Gateway {
        Gateway { endpoints, ..self }
    }

    /// Per service, in `services` order: whether it has served a request yet.
    pub fn used(&self) -> &[AtomicBool] {
        &self.used
    }
}

/// Serves connections from `listener` until `shutdown` completes, then lets in-flight
/// requests finish for up to the shutdown timeout — unless `abandon` completes first (a
/// second Ctrl-C). Connections are held to the gateway's [`Limits`]; the runtime needs a timer
/// driver for them, which sleeps while no connection waits for its client.
pub async fn serve(
    listener: TcpListener,
    gateway: Arc<Gateway>,
    shutdown: impl Future<Output = ()>,
    abandon: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let limits = gateway.config.limits.clone();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().max_headers(limits.parser_max_headers());
    let graceful = GracefulShutdown::new();
    let (stop, stopped) = tokio::sync::watch::channel(());
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    tokio::pin!(shutdown);
    loop {
        // At the cap, the next connection waits in the listen backlog until one closes.
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot,
            () = &mut shutdown => break,
        };
        let Ok(slot) = slot else { break }; // the semaphore is never closed
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                // Out of file descriptors, say: retrying at once would spin.
                tokio::time::sleep(ACCEPT_RETRY).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let watch = Watch::new(&limits);
        let gateway = gateway.clone();
        let requests = watch.clone();
        let service = service_fn(move |req: hyper::Request<Incoming>| {
            let busy = requests.begin();
            let gateway = gateway.clone();
            let req = req.map(|body| RequestBody::new(body, gateway.config.limits.body_idle_timeout));
            async move {
                let response = pipeline::handle(&gateway, req, peer.ip()).await;
                Ok::<_, Infallible>(response.map(|body| Guarded::new(body, busy)))
            }
        });
        let io = TokioIo::new(WatchedIo::new(stream, watch.clone()));
        let conn = graceful.watch(builder.serve_connection(io, service).into_owned());
        let watchdog = connection::watchdog(watch, stopped.clone());
        tokio::spawn(async move {
            tokio::select! {
                ended = conn => if let Err(e) = ended {
                    tracing::debug!(error = %e, "connection ended with an error");
                },
                () = watchdog => tracing::debug!(%peer, "connection timed out"),
            }
            drop(slot);
        });
    }
    drop(listener);
    stop.send_replace(());
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(limits.shutdown_timeout) => {
            tracing::warn!(timeout = ?limits.shutdown_timeout, "shutdown: abandoning requests still in flight after the shutdown timeout");
        }
        () = abandon => tracing::warn!("shutdown: abandoning requests still in flight"),
    }
    Ok(())
}

/// How long the listener waits after a failed accept before the next.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);
