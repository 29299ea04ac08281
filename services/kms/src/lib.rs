//! AWS Key Management Service: symmetric (AES-256-GCM), RSA, ECC and HMAC keys with real
//! cryptography, aliases, grants, key policies, rotation, imported material and
//! multi-region keys.
//!
//! State lives in the `kms` store of each account and region, written with strict
//! durability before an operation answers. Tables:
//!
//! - `keys`: [`keys::KeyRecord`] by key id: metadata, state, policy, tags, and every version
//!   of the key material (the current one last), so a rotated key still decrypts what its
//!   older material encrypted;
//! - `aliases`: [`aliases::AliasRecord`] by alias name (`alias/…`);
//! - `grants`: [`grants::GrantRecord`] by (key id, grant id).
//!
//! A symmetric ciphertext names its key and material ([`blob`]), so Decrypt needs no KeyId.
//! Keys pending deletion are deleted, and keys with automatic rotation rotated, by one
//! scheduler job that exists only while such work is pending ([`due`]).
//!
//! KMS provides [`KeyService`](stratus_core::service::KeyService) to the services that
//! encrypt with keys, and its key policies as
//! [`ResourcePolicies`](stratus_core::service::ResourcePolicies).

mod aliases;
mod blob;
mod capability;
mod cipher;
mod crypto;
mod due;
mod error;
mod grants;
mod keys;
mod lookup;
mod ops;
mod service;
mod spec;
mod store;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_kms::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::KmsService;

/// Builds KMS when the binary serves it, and schedules the deletions and rotations a
/// previous run left pending.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let kms = KmsService::new(env.storage.clone(), env.scheduler.clone());
    kms.resume();
    Registration {
        handlers: vec![Arc::new(Handler(kms.clone()))],
        provides: Providers {
            keys: Some(Arc::new(kms.clone())),
            resource_policies: vec![Arc::new(kms)],
            ..Providers::default()
        },
        ..Registration::default()
    }
}

stratus_gen_kms::operations! {
    KmsService;
    cancel_key_deletion => ops::keys::cancel_key_deletion,
    connect_custom_key_store => ops::refused::connect_custom_key_store,
    create_alias => ops::aliases::create_alias,
    create_custom_key_store => ops::refused::create_custom_key_store,
    create_grant => ops::grants::create_grant,
    create_key => ops::keys::create_key,
    decrypt => ops::cryptography::decrypt,
    delete_alias => ops::aliases::delete_alias,
    delete_custom_key_store => ops::refused::delete_custom_key_store,
    delete_imported_key_material => ops::import::delete_imported_key_material,
    derive_shared_secret => ops::cryptography::derive_shared_secret,
    describe_custom_key_stores => ops::refused::describe_custom_key_stores,
    describe_key => ops::keys::describe_key,
    disable_key => ops::keys::disable_key,
    disable_key_rotation => ops::rotation::disable_key_rotation,
    disconnect_custom_key_store => ops::refused::disconnect_custom_key_store,
    enable_key => ops::keys::enable_key,
    enable_key_rotation => ops::rotation::enable_key_rotation,
    encrypt => ops::cryptography::encrypt,
    generate_data_key => ops::cryptography::generate_data_key,
    generate_data_key_pair => ops::cryptography::generate_data_key_pair,
    generate_data_key_pair_without_plaintext => ops::cryptography::generate_data_key_pair_without_plaintext,
    generate_data_key_without_plaintext => ops::cryptography::generate_data_key_without_plaintext,
    generate_mac => ops::cryptography::generate_mac,
    generate_random => ops::cryptography::generate_random,
    get_key_last_usage => ops::keys::get_key_last_usage,
    get_key_policy => ops::keys::get_key_policy,
    get_key_rotation_status => ops::rotation::get_key_rotation_status,
    get_parameters_for_import => ops::import::get_parameters_for_import,
    get_public_key => ops::cryptography::get_public_key,
    import_key_material => ops::import::import_key_material,
    list_aliases => ops::aliases::list_aliases,
    list_grants => ops::grants::list_grants,
    list_key_policies => ops::keys::list_key_policies,
    list_key_rotations => ops::rotation::list_key_rotations,
    list_keys => ops::keys::list_keys,
    list_resource_tags => ops::keys::list_resource_tags,
    list_retirable_grants => ops::grants::list_retirable_grants,
    put_key_policy => ops::keys::put_key_policy,
    re_encrypt => ops::cryptography::re_encrypt,
    replicate_key => ops::keys::replicate_key,
    retire_grant => ops::grants::retire_grant,
    revoke_grant => ops::grants::revoke_grant,
    rotate_key_on_demand => ops::rotation::rotate_key_on_demand,
    schedule_key_deletion => ops::keys::schedule_key_deletion,
    sign => ops::cryptography::sign,
    tag_resource => ops::keys::tag_resource,
    untag_resource => ops::keys::untag_resource,
    update_alias => ops::aliases::update_alias,
    update_custom_key_store => ops::refused::update_custom_key_store,
    update_key_description => ops::keys::update_key_description,
    update_primary_region => ops::keys::update_primary_region,
    verify => ops::cryptography::verify,
    verify_mac => ops::cryptography::verify_mac,
}
