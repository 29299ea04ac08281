//! AWS Lambda: functions, versions, aliases, resource policies, per-function configurations,
//! layers, and invocation through the function host (`stratus-lambda-host`).
//!
//! State lives in the `lambda` store of each account and region, written with strict
//! durability before an operation answers. Tables:
//!
//! - `functions`: a [`records::FunctionRecord`] by function name — its `$LATEST`
//!   configuration, published versions, aliases, policies, event-invoke, URL, provisioned
//!   concurrency and runtime-management configurations, tags and reserved concurrency, so an
//!   operation reads and writes one record;
//! - `layers`: a [`records::LayerVersionRecord`] by (layer name, version);
//! - `code_signing`: a [`records::CodeSigningRecord`] by id;
//! - `layer_counters`: the last version number each layer name handed out;
//! - `url_ids`: the function and qualifier each function URL id is for
//!   ([`function_urls::UrlTarget`]);
//! - `event_source_mappings`: a [`mappings::MappingRecord`] by UUID; each enabled one has a
//!   poller on the binary's runtime (`polling.rs`) reading its queue through SQS's
//!   [`QueueSource`](stratus_core::service::QueueSource);
//! - `queued_invocations`: the outbox (`stratus-outbox`) of asynchronous invocations
//!   ([`records::QueuedInvocation`]), written in the transaction that acknowledges the
//!   `Event` invocation and drained on the binary's runtime (`queued.rs`).
//!
//! Code is kept as blobs of the store named by the zip's SHA-256 (`code-<hex>`), shared by
//! every version that has it. The host needs a file: on invoke the blob is copied once into
//! the host's work directory (`code.rs`).
//!
//! The function host is created on the first invoke, not before: a control-plane-only session
//! starts no process and touches no directory.

mod code;
mod code_links;
mod config;
mod error;
mod error_type;
mod function_logs;
mod function_metrics;
mod function_urls;
mod invoke;
mod mappings;
mod names;
mod ops;
mod policy;
mod polling;
mod queued;
mod records;
mod routing;
mod service;
mod stream_events;
mod stream_polling;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_lambda::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::{LambdaService, LambdaSettings};

/// Builds Lambda when the binary serves it: its functions are the
/// [`FunctionInvoker`](stratus_core::service::FunctionInvoker) other services invoke, and
/// their policies are [`ResourcePolicies`](stratus_core::service::ResourcePolicies).
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let lambda = LambdaService::new(env, env.settings.get());
    lambda.shared.queued.start(Arc::new(lambda.clone()));
    lambda.resume_polling();
    Registration {
        handlers: vec![Arc::new(error_type::WithErrorTypes(Handler(lambda.clone())))],
        endpoints: vec![Arc::new(lambda.clone())],
        provides: Providers {
            functions: Some(Arc::new(lambda.clone())),
            resource_policies: vec![Arc::new(lambda)],
            ..Providers::default()
        },
        ..Registration::default()
    }
}

stratus_gen_lambda::operations! {
    LambdaService;
    create_function => ops::functions::create_function,
    get_function => ops::functions::get_function,
    get_function_configuration => ops::functions::get_function_configuration,
    update_function_code => ops::functions::update_function_code,
    update_function_configuration => ops::functions::update_function_configuration,
    delete_function => ops::functions::delete_function,
    list_functions => ops::functions::list_functions,
    publish_version => ops::versions::publish_version,
    list_versions_by_function => ops::versions::list_versions_by_function,
    create_alias => ops::versions::create_alias,
    get_alias => ops::versions::get_alias,
    update_alias => ops::versions::update_alias,
    delete_alias => ops::versions::delete_alias,
    list_aliases => ops::versions::list_aliases,
    add_permission => ops::permissions::add_permission,
    remove_permission => ops::permissions::remove_permission,
    get_policy => ops::permissions::get_policy,
    invoke => ops::invocation::invoke,
    invoke_async => ops::invocation::invoke_async,
    put_function_concurrency => ops::concurrency::put_function_concurrency,
    get_function_concurrency => ops::concurrency::get_function_concurrency,
    delete_function_concurrency => ops::concurrency::delete_function_concurrency,
    get_account_settings => ops::concurrency::get_account_settings,
    put_provisioned_concurrency_config => ops::concurrency::put_provisioned_concurrency_config,
    get_provisioned_concurrency_config => ops::concurrency::get_provisioned_concurrency_config,
    delete_provisioned_concurrency_config => ops::concurrency::delete_provisioned_concurrency_config,
    list_provisioned_concurrency_configs => ops::concurrency::list_provisioned_concurrency_configs,
    put_function_event_invoke_config => ops::event_invoke::put_function_event_invoke_config,
    update_function_event_invoke_config => ops::event_invoke::update_function_event_invoke_config,
    get_function_event_invoke_config => ops::event_invoke::get_function_event_invoke_config,
    delete_function_event_invoke_config => ops::event_invoke::delete_function_event_invoke_config,
    list_function_event_invoke_configs => ops::event_invoke::list_function_event_invoke_configs,
    create_function_url_config => ops::urls::create_function_url_config,
    get_function_url_config => ops::urls::get_function_url_config,
    update_function_url_config => ops::urls::update_function_url_config,
    delete_function_url_config => ops::urls::delete_function_url_config,
    list_function_url_configs => ops::urls::list_function_url_configs,
    tag_resource => ops::tags::tag_resource,
    untag_resource => ops::tags::untag_resource,
    list_tags => ops::tags::list_tags,
    get_function_recursion_config => ops::settings::get_function_recursion_config,
    put_function_recursion_config => ops::settings::put_function_recursion_config,
    get_runtime_management_config => ops::settings::get_runtime_management_config,
    put_runtime_management_config => ops::settings::put_runtime_management_config,
    create_code_signing_config => ops::code_signing::create_code_signing_config,
    get_code_signing_config => ops::code_signing::get_code_signing_config,
    update_code_signing_config => ops::code_signing::update_code_signing_config,
    delete_code_signing_config => ops::code_signing::delete_code_signing_config,
    list_code_signing_configs => ops::code_signing::list_code_signing_configs,
    list_functions_by_code_signing_config => ops::code_signing::list_functions_by_code_signing_config,
    put_function_code_signing_config => ops::code_signing::put_function_code_signing_config,
    get_function_code_signing_config => ops::code_signing::get_function_code_signing_config,
    delete_function_code_signing_config => ops::code_signing::delete_function_code_signing_config,
    publish_layer_version => ops::layers::publish_layer_version,
    get_layer_version => ops::layers::get_layer_version,
    get_layer_version_by_arn => ops::layers::get_layer_version_by_arn,
    list_layers => ops::layers::list_layers,
    list_layer_versions => ops::layers::list_layer_versions,
    delete_layer_version => ops::layers::delete_layer_version,
    add_layer_version_permission => ops::layers::add_layer_version_permission,
    remove_layer_version_permission => ops::layers::remove_layer_version_permission,
    get_layer_version_policy => ops::layers::get_layer_version_policy,
    create_event_source_mapping => ops::mappings::create_event_source_mapping,
    get_event_source_mapping => ops::mappings::get_event_source_mapping,
    update_event_source_mapping => ops::mappings::update_event_source_mapping,
    delete_event_source_mapping => ops::mappings::delete_event_source_mapping,
    list_event_source_mappings => ops::mappings::list_event_source_mappings,
}
