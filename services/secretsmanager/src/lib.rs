//! AWS Secrets Manager: secrets with versions and staging labels, values encrypted through
//! KMS, deletion with a recovery window, rotation through a Lambda function's four steps,
//! replication to other regions, resource policies and tags.
//!
//! State lives in the `secretsmanager` store of each account and region, written with
//! strict durability before an operation answers. Tables:
//!
//! - `secrets`: [`secret::SecretRecord`] by name — metadata, tags, resource policy,
//!   rotation configuration, replicas, and every version with its staging labels and its
//!   value encrypted under the secret's KMS key ([`crypt`]);
//! - `rotations`: the outbox (`stratus-outbox`) of [`rotation::RotationRun`]s, written in
//!   the transaction that starts a rotation and run through Lambda after the commit.
//!
//! Values are encrypted and decrypted by KMS's [`KeyService`](stratus_core::service::KeyService)
//! (the AWS managed key `alias/aws/secretsmanager` unless the secret names one, which KMS
//! creates on first use); rotation functions run through Lambda's
//! [`FunctionInvoker`](stratus_core::service::FunctionInvoker). Secrets waiting for
//! deletion are deleted, and scheduled rotations started, by one scheduler job that exists
//! only while such work is pending ([`due`]). Secrets Manager provides its secrets'
//! [`ResourcePolicies`](stratus_core::service::ResourcePolicies).

mod capability;
mod crypt;
mod due;
mod error;
mod filters;
mod names;
mod ops;
mod password;
mod policy;
mod rotation;
mod secret;
mod service;
mod store;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_secrets_manager::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::SecretsService;

/// Builds Secrets Manager when the binary serves it, with the keys and functions registered
/// before it, and resumes the deletions and rotations a previous run left pending.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let sm = SecretsService::new(env);
    sm.shared.rotations.start(Arc::new(sm.clone()));
    sm.resume();
    Registration {
        handlers: vec![Arc::new(Handler(sm.clone()))],
        provides: Providers {
            secrets: Some(Arc::new(sm.clone())),
            resource_policies: vec![Arc::new(sm)],
            ..Providers::default()
        },
        ..Registration::default()
    }
}

stratus_gen_secrets_manager::operations! {
    SecretsService;
    batch_get_secret_value => ops::values::batch_get_secret_value,
    cancel_rotate_secret => ops::rotation::cancel_rotate_secret,
    create_secret => ops::secrets::create_secret,
    delete_resource_policy => ops::policies::delete_resource_policy,
    delete_secret => ops::secrets::delete_secret,
    describe_secret => ops::secrets::describe_secret,
    get_random_password => ops::password::get_random_password,
    get_resource_policy => ops::policies::get_resource_policy,
    get_secret_value => ops::values::get_secret_value,
    list_secret_version_ids => ops::values::list_secret_version_ids,
    list_secrets => ops::secrets::list_secrets,
    put_resource_policy => ops::policies::put_resource_policy,
    put_secret_value => ops::values::put_secret_value,
    remove_regions_from_replication => ops::replication::remove_regions_from_replication,
    replicate_secret_to_regions => ops::replication::replicate_secret_to_regions,
    restore_secret => ops::secrets::restore_secret,
    rotate_secret => ops::rotation::rotate_secret,
    stop_replication_to_replica => ops::replication::stop_replication_to_replica,
    tag_resource => ops::tags::tag_resource,
    untag_resource => ops::tags::untag_resource,
    update_secret => ops::secrets::update_secret,
    update_secret_version_stage => ops::values::update_secret_version_stage,
    validate_resource_policy => ops::policies::validate_resource_policy,
}
