//! `stratus` (no subcommand): serve every AWS service on one listener.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use stratus_core::clock::Clock;
use stratus_core::scheduler::Scheduler;
use stratus_core::schema::Service;
use stratus_core::service::{
    CrossOrigin, FormUpload, LateProviders, Providers, Registration, ServiceEnv, ServiceHandler, Settings, Shutdown,
    Spawner, Unimplemented, WebEndpoints,
};
use stratus_server::authorize::Authorizers;
use stratus_server::decision_log::DecisionLog;
use stratus_server::{serve, Config, Gateway, Limits};
use stratus_service_dynamodb::TtlInterval;
use stratus_service_lambda::LambdaSettings;
use stratus_service_s3::LifecycleTiming;
use stratus_storage::{Storage, StorageConfig};

use crate::settings::{seconds, ClockKind, IamSetting, LogFormat};

/// Settings of the server, each also read from a `STRATUS_*` environment variable.
#[derive(Args, Debug)]
pub(crate) struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "STRATUS_LISTEN", default_value = "127.0.0.1:4566")]
    listen: SocketAddr,
    /// Where state is kept.
    #[arg(long, env = "STRATUS_DATA_DIR", default_value = ".stratus")]
    data_dir: PathBuf,
    /// Keep all state in memory; write nothing.
    #[arg(long, env = "STRATUS_EPHEMERAL")]
    ephemeral: bool,
    /// Region for requests that do not name one in their signature.
    #[arg(long, env = "STRATUS_REGION", default_value = "us-east-1")]
    region: String,
    /// The account requests are served in.
    #[arg(long, env = "STRATUS_ACCOUNT_ID", default_value = "000000000000")]
    account_id: String,
    /// Comma-separated services to serve (sdk ids as `stratus models` lists them); all if unset.
    #[arg(long, env = "STRATUS_SERVICES", value_delimiter = ',')]
    services: Vec<String>,
    /// error, warn, info (one line per request), debug (with headers and body sizes) or
    /// trace (with bodies).
    #[arg(long, env = "STRATUS_LOG_LEVEL", default_value = "info")]
    log_level: tracing::Level,
    /// How log lines are written: `text`, or `json` (one object per line).
    #[arg(long, env = "STRATUS_LOG_FORMAT", value_enum, default_value = "text")]
    log_format: LogFormat,
    /// Leave requests out of the log.
    #[arg(long, env = "STRATUS_QUIET_REQUESTS")]
    quiet_requests: bool,
    /// Serve only requests signed with a secret Stratus knows (IAM users' keys, STS's
    /// sessions, and `test`/`test`), refusing the rest as AWS does.
    #[arg(long, env = "STRATUS_VERIFY_SIGNATURES")]
    verify_signatures: bool,
    /// Whether IAM's policies authorize requests: `off`, `audit` (log what would be refused)
    /// or `enforce`.
    #[arg(long, env = "STRATUS_IAM", value_enum, default_value = "off")]
    iam: IamSetting,
    /// With `--iam audit|enforce`: append every decision to this file as a JSON line, for
    /// `stratus iam policy-from-log`.
    #[arg(long, env = "STRATUS_IAM_LOG")]
    iam_log: Option<PathBuf>,
    /// Where time comes from: `system`, or `manual` for tests, which moves only when told
    /// (`POST /_stratus/clock?advance=<seconds>`).
    #[arg(long, env = "STRATUS_CLOCK", value_enum, default_value = "system")]
    clock: ClockKind,
    #[command(flatten)]
    timing: Timing,
    #[command(flatten)]
    connections: Connections,
}

/// What a client may hold open and send (`docs/reliability.md`).
#[derive(Args, Debug)]
struct Connections {
    /// Seconds a connection with no request in progress stays open (AWS: about 20).
    #[arg(long, env = "STRATUS_IDLE_TIMEOUT", value_parser = seconds, default_value = "20")]
    idle_timeout: Duration,
    /// Seconds a request's head may take to arrive once begun.
    #[arg(long, env = "STRATUS_HEADER_READ_TIMEOUT", value_parser = seconds, default_value = "20")]
    header_read_timeout: Duration,
    /// Seconds a request body may stall before it is answered `RequestTimeout`.
    #[arg(long, env = "STRATUS_BODY_IDLE_TIMEOUT", value_parser = seconds, default_value = "20")]
    body_idle_timeout: Duration,
    /// Connections open at once; more wait in the listen backlog.
    #[arg(long, env = "STRATUS_MAX_CONNECTIONS", default_value = "1024", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// Bytes of request headers accepted (S3's limit: 8 KiB).
    #[arg(long, env = "STRATUS_MAX_HEADER_BYTES", default_value = "8192")]
    max_header_bytes: usize,
    /// Bytes of request URI (path and query) accepted.
    #[arg(long, env = "STRATUS_MAX_URI_BYTES", default_value = "8192")]
    max_uri_bytes: usize,
    /// Request headers accepted.
    #[arg(long, env = "STRATUS_MAX_HEADERS", default_value = "100")]
    max_headers: usize,
    /// Seconds requests in flight get to finish after a shutdown signal.
    #[arg(long, env = "STRATUS_SHUTDOWN_TIMEOUT", value_parser = seconds, default_value = "10")]
    shutdown_timeout: Duration,
}

impl From<&Connections> for Limits {
    fn from(c: &Connections) -> Limits {
        Limits {
            idle_timeout: c.idle_timeout,
            header_read_timeout: c.header_read_timeout,
            body_idle_timeout: c.body_idle_timeout,
            max_connections: c.max_connections as usize,
            max_header_bytes: c.max_header_bytes,
            max_uri_bytes: c.max_uri_bytes,
            max_headers: c.max_headers,
            shutdown_timeout: c.shutdown_timeout,
        }
    }
}

/// How often background sweeps run, in seconds (fractions allowed).
#[derive(Args, Debug)]
struct Timing {
    /// Seconds between DynamoDB time-to-live sweeps.
    #[arg(long, env = "STRATUS_DYNAMODB_TTL_INTERVAL", value_parser = seconds, default_value = "30")]
    dynamodb_ttl_interval: Duration,
    /// Seconds between S3 lifecycle expiration sweeps.
    #[arg(long, env = "STRATUS_S3_LIFECYCLE_INTERVAL", value_parser = seconds, default_value = "60")]
    s3_lifecycle_interval: Duration,
    /// The length of an S3 lifecycle day, in seconds.
    #[arg(long, env = "STRATUS_S3_LIFECYCLE_DAY_SECONDS", value_parser = seconds, default_value = "86400")]
    s3_lifecycle_day_seconds: Duration,
    /// Seconds a Lambda function instance may sit idle before it is stopped.
    #[arg(long, env = "STRATUS_LAMBDA_IDLE_TIMEOUT", value_parser = seconds, default_value = "300")]
    lambda_idle_timeout: Duration,
}

/// Runs the server until SIGINT or SIGTERM, then finishes in-flight requests.
pub(crate) fn run(args: ServeArgs) -> Result<()> {
    let log = tracing_subscriber::fmt()
        .with_max_level(args.log_level)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match args.log_format {
        LogFormat::Text => log.init(),
        LogFormat::Json => log.json().init(),
    }
    if !stratus_core::arn::is_account_id(&args.account_id) {
        bail!("--account-id must be twelve digits, got {:?}", args.account_id);
    }
    let storage = Arc::new(
        Storage::open(if args.ephemeral {
            StorageConfig::Ephemeral
        } else {
            StorageConfig::DataDir(args.data_dir.clone())
        })
        .with_context(|| format!("opening the data directory {}", args.data_dir.display()))?,
    );
    let clock = match args.clock {
        ClockKind::System => Clock::system(),
        ClockKind::Manual => Clock::manual_from_system_time(),
    };
    // One scheduler for every service's deadlines and sweeps; no thread until one is needed.
    let scheduler = Scheduler::new(clock.clone());
    // Lambda's host is made on the first invoke; by then the listener's address and the
    // runtime are known, and filled in below.
    let lambda = LambdaSettings {
        work_dir: (!args.ephemeral).then(|| args.data_dir.join("lambda")),
        idle_timeout: args.timing.lambda_idle_timeout,
        ..LambdaSettings::default()
    };
    // Timers for connections' timeouts and Lambda's function host (its instances' timeouts and
    // idle stops): tokio's timer driver parks with the I/O driver and wakes no one while no
    // timer is pending.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .enable_time()
        .build()
        .context("starting the async runtime")?;
    // Services run what outlives a request (deliveries, scheduled targets) on this runtime,
    // from the moment every service has registered: a delivery a registration resumes may
    // call a service registered after it.
    let (spawner, registered) = {
        let handle = runtime.handle().clone();
        Spawner::held(move |work| drop(handle.spawn(work)))
    };
    let served = handlers(&args.services, &storage, &scheduler, &spawner, &args.timing, &lambda)?;
    registered.open();
    let shutdown = served.shutdown.clone();
    let shutdown_timeout = args.connections.shutdown_timeout;
    if args.iam != IamSetting::Off && served.providers.authorizer.is_none() {
        bail!("--iam audit and --iam enforce need IAM, which --services leaves out");
    }
    let decision_log = match &args.iam_log {
        Some(_) if args.iam == IamSetting::Off => bail!("--iam-log needs --iam audit or --iam enforce"),
        Some(path) => {
            Some(Arc::new(DecisionLog::open(path).with_context(|| {
                format!("opening the IAM decision log {}", path.display())
            })?))
        }
        None => None,
    };
    let config = Config {
        region: args.region,
        account_id: args.account_id,
        clock,
        verify_signatures: args.verify_signatures,
        iam: args.iam.into(),
        limits: Limits::from(&args.connections),
        request_log: !args.quiet_requests,
        ..Config::default()
    };
    let gateway = Arc::new(
        Gateway::new(config, served.handlers)
            .with_unclaimed(&stratus_gen_s3::SERVICE)
            .with_cross_origin(served.cross_origin)
            .with_form_uploads(served.form_uploads)
            .with_endpoints(served.endpoints)
            .with_key_directories(served.providers.key_directories())
            .with_authorizers(Authorizers {
                iam: served.providers.authorizer.clone(),
                resource_policies: served.providers.resource_policies.clone(),
                log: decision_log,
            }),
    );
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let addr = listener.local_addr()?;
        let _ = lambda.endpoint_url.set(format!("http://{addr}"));
        println!("stratus listening on http://{addr}");
        serve(listener, gateway, shutdown_signal(), async {
            // After the first signal: a second one abandons requests still in flight.
            shutdown_signal().await
        })
        .await?;
        // What services finish before the process ends (Firehose's buffers), in the same time
        // requests in flight had.
        let finishing = async {
            for hook in &shutdown {
                hook.shutdown().await;
            }
        };
        if tokio::time::timeout(shutdown_timeout, finishing).await.is_err() {
            tracing::warn!("services did not finish their shutdown work in time");
        }
        Ok(())
    })
}

/// Services, the hooks for browsers' requests of those that take them, and their own web
/// endpoints.
struct Served {
    handlers: Vec<Arc<dyn ServiceHandler>>,
    cross_origin: Vec<Arc<dyn CrossOrigin>>,
    form_uploads: Vec<Arc<dyn FormUpload>>,
    endpoints: Vec<Arc<dyn WebEndpoints>>,
    /// What the services finish when the binary stops.
    shutdown: Vec<Arc<dyn Shutdown>>,
    /// Every capability the services provide, for the gateway's own use of them.
    providers: Providers,
}

/// Each hand-written service crate's registration. Providers come before the services that
/// call them, since each registration receives the capabilities of those before it: SQS
/// (queues) before S3 (event notifications), SQS and Lambda before SNS (deliveries), SNS
/// before CloudWatch (alarm actions) and CloudWatch before Logs (metrics), KMS (keys) before
/// everything that encrypts, KMS and Lambda before Secrets Manager (values, rotations),
/// Secrets Manager before SSM (secrets by reference), and S3, Lambda and Kinesis before
/// Firehose (objects, processors, sources; Logs reaches Firehose through `LateProviders`).
const REGISTRATIONS: &[fn(&ServiceEnv<'_, Storage>) -> Registration] = &[
    stratus_service_kms::register,
    stratus_service_sqs::register,
    stratus_service_iam::register,
    stratus_service_sts::register,
    stratus_service_dynamodb::register,
    stratus_service_s3::register,
    stratus_service_lambda::register,
    stratus_service_sns::register,
    stratus_service_events::register,
    stratus_service_cloudwatch::register,
    stratus_service_logs::register,
    stratus_service_secretsmanager::register,
    stratus_service_ssm::register,
    stratus_service_kinesis::register,
    stratus_service_firehose::register,
    stratus_service_acm::register,
];

/// The services' own settings, from the command line.
fn settings(timing: &Timing, lambda: &LambdaSettings) -> Settings {
    Settings::default()
        .with(TtlInterval(timing.dynamodb_ttl_interval))
        .with(LifecycleTiming {
            interval: timing.s3_lifecycle_interval,
            day: timing.s3_lifecycle_day_seconds,
        })
        .with(lambda.clone())
}

/// The services to serve: hand-written ones where they exist, the rest validating and
/// answering not-implemented.
fn handlers(
    only: &[String],
    storage: &Arc<Storage>,
    scheduler: &Scheduler,
    spawner: &Spawner,
    timing: &Timing,
    lambda: &LambdaSettings,
) -> Result<Served> {
    for name in only {
        if stratus_gen_registry::find(name).is_none() {
            bail!("unknown service {name:?} in --services; `stratus models` lists them");
        }
    }
    let wanted = |id: &str, sdk_id: &str| {
        only.is_empty()
            || only
                .iter()
                .any(|o| o.eq_ignore_ascii_case(id) || o.eq_ignore_ascii_case(sdk_id))
    };
    let serves = |service: &Service| {
        stratus_gen_registry::SERVICES
            .iter()
            .any(|(id, listed)| listed.sdk_id == service.sdk_id && wanted(id, service.sdk_id))
    };
    let settings = settings(timing, lambda);
    let late = LateProviders::default();
    let mut written = Vec::new();
    let mut served = Served {
        handlers: Vec::new(),
        cross_origin: Vec::new(),
        form_uploads: Vec::new(),
        endpoints: Vec::new(),
        shutdown: Vec::new(),
        providers: Providers::default(),
    };
    for register in REGISTRATIONS {
        let registration = register(&ServiceEnv {
            storage,
            scheduler,
            spawner,
            settings: &settings,
            providers: &served.providers,
            late: &late,
            serves: &serves,
        });
        served.providers.absorb(registration.provides);
        written.extend(registration.handlers);
        served.cross_origin.extend(registration.cross_origin);
        served.form_uploads.extend(registration.form_uploads);
        served.endpoints.extend(registration.endpoints);
        served.shutdown.extend(registration.shutdown);
    }
    late.set(served.providers.clone());
    // In the registry's order, which the gateway's routing of unsigned REST requests follows.
    for (id, service) in stratus_gen_registry::SERVICES {
        if !wanted(id, service.sdk_id) {
            continue;
        }
        let handler = match written.iter().find(|handler| handler.schema().sdk_id == service.sdk_id) {
            Some(handler) => handler.clone(),
            None => Arc::new(Unimplemented(service)),
        };
        served.handlers.push(handler);
    }
    Ok(served)
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => return interrupt.await.unwrap_or(()),
        };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    interrupt.await.unwrap_or(());
}
