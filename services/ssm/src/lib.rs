//! AWS Systems Manager Parameter Store: String, StringList and SecureString parameters with
//! versions, labels, hierarchies, tiers, policies and tags; the public `/aws/service/...`
//! parameters; and SSM documents. The rest of SSM (commands, sessions, maintenance windows,
//! associations, inventory, patching, OpsCenter, …) answers `NotImplemented` by name.
//!
//! State lives in the `ssm` store of each account and region, written with strict
//! durability before an operation answers. Tables:
//!
//! - `parameters`: [`records::ParameterRecord`] by the parameter's key (its name with a
//!   leading `/`, so `x` and `/x` are one parameter and a hierarchy is a key prefix): the
//!   current version, the oldest version kept, tags, and labels (label → version);
//! - `versions`: [`records::VersionRecord`] by (key, version), the last 100 of each;
//! - `expirations`: the key of each parameter an Expiration policy deletes, by (moment, key),
//!   which the one expiration job reads ([`expiry`]);
//! - `counts`: the number of parameters of each tier, for the tiers' limits;
//! - `settings`: the service settings the account customized (the default parameter tier, …);
//! - `documents`, `document_versions`: [`documents::DocumentRecord`] by name and
//!   [`documents::DocumentVersion`] by (name, version).
//!
//! SecureString values are encrypted through KMS's
//! [`KeyService`](stratus_core::service::KeyService) (default key `alias/aws/ssm`, which
//! KMS makes on first use) and stored as ciphertext.

mod documents;
mod error;
mod expiry;
mod filters;
mod names;
mod ops;
mod policies;
mod public;
mod records;
mod secrets;
mod secure;
mod service;

use std::sync::Arc;

use stratus_core::service::{Registration, ServiceEnv};
use stratus_gen_ssm::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::SsmService;

/// Builds SSM when the binary serves it, encrypting through the KMS registered before it,
/// and schedules the expirations a previous run left pending.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let ssm = SsmService::new(env);
    ssm.resume();
    Registration {
        handlers: vec![Arc::new(Handler(ssm))],
        ..Registration::default()
    }
}

stratus_gen_ssm::operations! {
    SsmService;
    put_parameter => ops::put::put_parameter,
    get_parameter => ops::parameters::get_parameter,
    get_parameters => ops::parameters::get_parameters,
    delete_parameter => ops::parameters::delete_parameter,
    delete_parameters => ops::parameters::delete_parameters,
    get_parameters_by_path => ops::listing::get_parameters_by_path,
    describe_parameters => ops::listing::describe_parameters,
    get_parameter_history => ops::history::get_parameter_history,
    label_parameter_version => ops::history::label_parameter_version,
    unlabel_parameter_version => ops::history::unlabel_parameter_version,
    add_tags_to_resource => ops::tags::add_tags_to_resource,
    remove_tags_from_resource => ops::tags::remove_tags_from_resource,
    list_tags_for_resource => ops::tags::list_tags_for_resource,
    create_document => ops::documents::create_document,
    get_document => ops::documents::get_document,
    describe_document => ops::documents::describe_document,
    list_documents => ops::documents::list_documents,
    list_document_versions => ops::documents::list_document_versions,
    update_document => ops::documents::update_document,
    update_document_default_version => ops::documents::update_document_default_version,
    delete_document => ops::documents::delete_document,
    modify_document_permission => ops::documents::modify_document_permission,
    describe_document_permission => ops::documents::describe_document_permission,
    get_service_setting => ops::settings::get_service_setting,
    update_service_setting => ops::settings::update_service_setting,
    reset_service_setting => ops::settings::reset_service_setting,
    get_maintenance_window => ops::windows::get_maintenance_window,
    describe_maintenance_windows => ops::windows::describe_maintenance_windows,
}
