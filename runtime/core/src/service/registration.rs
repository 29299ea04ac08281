//! How a service crate hands itself to the binary: one `register` function per crate takes a
//! [`ServiceEnv`] and answers a [`Registration`].
//!
//! The binary calls the crates' `register` functions in one table, providers before the
//! services that call them: each registration's [`Registration::provides`] is added to the
//! [`Providers`] the next ones receive. Where two services call each other — S3 delivers
//! notifications to Lambda functions, Lambda reads code from S3 — the one registered first
//! holds the [`LateProviders`] instead, which hold every capability once all have registered.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use super::capabilities::{
    Authorizer, DeliveryStreamSink, EventBus, FunctionInvoker, KeyDirectory, KeyService, LogWriter, MessageSink,
    MetricSink, ObjectSink, ObjectSource, QueueSource, ResourcePolicies, RoleDirectory, RoleSessions, SecretSource,
    StreamSource, StreamWriter, TopicPublisher,
};
use super::{BoxFuture, CrossOrigin, FormUpload, ServiceHandler, Spawner, WebEndpoints};
use crate::scheduler::Scheduler;
use crate::schema::Service;

/// The capabilities of the services the binary runs, each absent when its provider is not
/// built or not served (see [`capabilities`](super::capabilities) for what callers answer then).
#[derive(Clone, Default)]
pub struct Providers {
    /// SQS's queues.
    pub messages: Option<Arc<dyn MessageSink>>,
    /// SQS's queues, read by consumers (Lambda's event source mappings).
    pub queues: Option<Arc<dyn QueueSource>>,
    /// Lambda's functions.
    pub functions: Option<Arc<dyn FunctionInvoker>>,
    /// SNS's topics.
    pub topics: Option<Arc<dyn TopicPublisher>>,
    /// EventBridge's buses.
    pub events: Option<Arc<dyn EventBus>>,
    /// CloudWatch Logs.
    pub logs: Option<Arc<dyn LogWriter>>,
    /// CloudWatch metrics.
    pub metrics: Option<Arc<dyn MetricSink>>,
    /// KMS's keys.
    pub keys: Option<Arc<dyn KeyService>>,
    /// IAM's policy evaluation.
    pub authorizer: Option<Arc<dyn Authorizer>>,
    /// IAM's roles.
    pub roles: Option<Arc<dyn RoleDirectory>>,
    /// IAM's users' access keys.
    pub user_keys: Option<Arc<dyn KeyDirectory>>,
    /// STS's session credentials.
    pub session_keys: Option<Arc<dyn KeyDirectory>>,
    /// STS's sessions for roles services assume for themselves.
    pub role_sessions: Option<Arc<dyn RoleSessions>>,
    /// S3's objects, read for other services.
    pub objects: Option<Arc<dyn ObjectSource>>,
    /// S3's buckets, written to for other services.
    pub object_sink: Option<Arc<dyn ObjectSink>>,
    /// Firehose's delivery streams.
    pub delivery_streams: Option<Arc<dyn DeliveryStreamSink>>,
    /// Secrets Manager's secrets, read for other services.
    pub secrets: Option<Arc<dyn SecretSource>>,
    /// The resource policies of the services whose resources have them (S3, SQS): one per
    /// service.
    pub resource_policies: Vec<Arc<dyn ResourcePolicies>>,
    /// The streams consumers read shard by shard (Kinesis): one per service.
    pub streams: Vec<Arc<dyn StreamSource>>,
    /// Kinesis's streams, written for other services.
    pub stream_writer: Option<Arc<dyn StreamWriter>>,
}

impl Providers {
    /// Adds the capabilities `other` provides, keeping those already here: each capability
    /// has one provider.
    pub fn absorb(&mut self, other: Providers) {
        let Providers {
            messages,
            queues,
            functions,
            topics,
            events,
            logs,
            metrics,
            keys,
            authorizer,
            roles,
            user_keys,
            session_keys,
            role_sessions,
            objects,
            object_sink,
            delivery_streams,
            secrets,
            resource_policies,
            streams,
            stream_writer,
        } = other;
        self.messages = self.messages.take().or(messages);
        self.queues = self.queues.take().or(queues);
        self.functions = self.functions.take().or(functions);
        self.topics = self.topics.take().or(topics);
        self.events = self.events.take().or(events);
        self.logs = self.logs.take().or(logs);
        self.metrics = self.metrics.take().or(metrics);
        self.keys = self.keys.take().or(keys);
        self.authorizer = self.authorizer.take().or(authorizer);
        self.roles = self.roles.take().or(roles);
        self.user_keys = self.user_keys.take().or(user_keys);
        self.session_keys = self.session_keys.take().or(session_keys);
        self.role_sessions = self.role_sessions.take().or(role_sessions);
        self.objects = self.objects.take().or(objects);
        self.object_sink = self.object_sink.take().or(object_sink);
        self.delivery_streams = self.delivery_streams.take().or(delivery_streams);
        self.secrets = self.secrets.take().or(secrets);
        self.resource_policies.extend(resource_policies);
        self.streams.extend(streams);
        self.stream_writer = self.stream_writer.take().or(stream_writer);
    }

    /// The providers of access keys, for the gateway: IAM's users', then STS's sessions'.
    pub fn key_directories(&self) -> Vec<Arc<dyn KeyDirectory>> {
        self.user_keys.iter().chain(&self.session_keys).cloned().collect()
    }
}

/// The capabilities of every service the binary runs, known once all have registered: for a
/// service that calls one registered after it. Empty until then — a registration must not
/// use them, only keep them for its requests.
#[derive(Clone, Default)]
pub struct LateProviders(Arc<OnceLock<Providers>>);

impl LateProviders {
    /// Every service's capabilities; `None` before registration ends. Work a registration
    /// spawns runs after it ends (the binary's spawner is held until then), so it finds them.
    pub fn get(&self) -> Option<&Providers> {
        self.0.get()
    }

    /// Fills them in, once: the binary's last step of registration. A second call is ignored.
    pub fn set(&self, providers: Providers) {
        let _ = self.0.set(providers);
    }
}

/// Services' own settings (sweep intervals and the like), each a type its crate defines and
/// the binary fills from its command line.
#[derive(Default)]
pub struct Settings {
    values: HashMap<TypeId, Box<dyn Any + Send + Sync>>,
}

impl Settings {
    /// The same settings with `value` set.
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Settings {
        self.values.insert(TypeId::of::<T>(), Box::new(value));
        self
    }

    /// The value the binary set, else the setting's default.
    pub fn get<T: Any + Clone + Default>(&self) -> T {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
            .cloned()
            .unwrap_or_default()
    }
}

/// What a service crate is built from. `S` is the storage the binary opened
/// (`stratus_storage::Storage`, a crate above this one).
pub struct ServiceEnv<'a, S> {
    /// The storage the binary opened; each crate keeps its tables in it.
    pub storage: &'a Arc<S>,
    /// The process's one scheduler, and through it the clock.
    pub scheduler: &'a Scheduler,
    /// The binary's async runtime, for work that outlives a request.
    pub spawner: &'a Spawner,
    /// The services' own settings, from the command line.
    pub settings: &'a Settings,
    /// The capabilities of the services registered before this one.
    pub providers: &'a Providers,
    /// Every service's capabilities, once all have registered.
    pub late: &'a LateProviders,
    /// Whether `--services` asks for a service (all when unset).
    pub serves: &'a dyn Fn(&Service) -> bool,
}

impl<S> ServiceEnv<'_, S> {
    /// Whether the binary serves `service`: a crate builds only the services asked for.
    pub fn serves(&self, service: &Service) -> bool {
        (self.serves)(service)
    }
}

/// Work a service finishes when the binary stops, once the requests in flight have been
/// answered (Firehose delivers what it buffers). The binary gives the hooks together as long
/// as `--shutdown-timeout` says.
pub trait Shutdown: Send + Sync {
    /// Finishes the work; what is left when the time runs out is the next start's.
    fn shutdown(&self) -> BoxFuture<'_, ()>;
}

/// What a service crate hands the binary: the services it serves, the hooks for what browsers
/// send them that no operation models, and the capabilities it offers other services. Empty
/// when the binary serves none of the crate's services.
#[derive(Default)]
pub struct Registration {
    /// One per service served (DynamoDB's crate serves DynamoDB and DynamoDB Streams).
    pub handlers: Vec<Arc<dyn ServiceHandler>>,
    /// The CORS rules of each served service that has them (S3).
    pub cross_origin: Vec<Arc<dyn CrossOrigin>>,
    /// The HTML form uploads of each served service that takes them (S3).
    pub form_uploads: Vec<Arc<dyn FormUpload>>,
    /// The web endpoints of each served service that has them (Lambda's function URLs).
    pub endpoints: Vec<Arc<dyn WebEndpoints>>,
    /// The capabilities the crate offers the services registered after it.
    pub provides: Providers,
    /// What the crate's services finish when the binary stops.
    pub shutdown: Vec<Arc<dyn Shutdown>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::AwsError;
    use crate::service::{BoxFuture, Caller};

    struct Queues;

    impl MessageSink for Queues {
        fn exists<'a>(&'a self, _: Caller<'a>, _queue_arn: &'a str) -> BoxFuture<'a, bool> {
            Box::pin(async { true })
        }

        fn send<'a>(&'a self, _: Caller<'a>, _: &'a str, _: String) -> BoxFuture<'a, Result<(), AwsError>> {
            Box::pin(async { Ok(()) })
        }
    }

    #[test]
    fn absorbing_keeps_the_first_provider_of_each_capability() {
        let first: Arc<dyn MessageSink> = Arc::new(Queues);
        let mut providers = Providers::default();
        providers.absorb(Providers {
            messages: Some(first.clone()),
            ..Providers::default()
        });
        providers.absorb(Providers {
            messages: Some(Arc::new(Queues)),
            ..Providers::default()
        });
        providers.absorb(Providers::default());
        assert!(Arc::ptr_eq(providers.messages.as_ref().unwrap(), &first));
        assert!(providers.functions.is_none() && providers.topics.is_none() && providers.events.is_none());
        assert!(providers.logs.is_none() && providers.metrics.is_none());
        assert!(providers.keys.is_none() && providers.authorizer.is_none());
    }

    #[test]
    fn late_providers_are_empty_until_set_once() {
        let late = LateProviders::default();
        assert!(late.get().is_none());
        late.set(Providers::default());
        assert!(late.get().is_some_and(|p| p.streams.is_empty()));
    }

    #[derive(Clone, Debug, Default, PartialEq)]
    struct Interval(u32);

    #[test]
    fn a_setting_not_given_is_its_default() {
        assert_eq!(Settings::default().get::<Interval>(), Interval(0));
        assert_eq!(Settings::default().with(Interval(30)).get::<Interval>(), Interval(30));
    }
}
