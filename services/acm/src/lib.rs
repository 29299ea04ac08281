//! AWS Certificate Manager: certificates requested from a local CA (one per account and
//! region) that pass through `PENDING_VALIDATION` to `ISSUED`, imported certificates checked
//! against their keys and chains, exports with the key encrypted under a passphrase,
//! renewals, revocations, tags and the account's expiry-event setting.
//!
//! State lives in the `acm` store of each account and region, written with strict
//! durability before an operation answers. Tables ([`store`]):
//!
//! - `certificates`: [`certificate::CertificateRecord`] by certificate id — the PEM
//!   certificate and chain, the facts read from it ([`inspect`]), a requested certificate's
//!   private key, options, tags and revocation;
//! - `authorities`: the region's local CA ([`authority`]), made on the first request;
//! - `configuration`: the account's expiry-event setting.
//!
//! A requested certificate is signed at once and becomes `ISSUED` when its validation
//! completes, a fixed delay later, worked out from the clock as it is read: nothing is
//! scheduled and nothing runs while idle.

mod authority;
mod certificate;
mod error;
mod export;
mod inspect;
mod ops;
mod service;
mod store;
mod validation;

use std::sync::Arc;

use stratus_core::service::{Registration, ServiceEnv};
use stratus_gen_acm::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::service::AcmService;

/// Builds ACM when the binary serves it.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let acm = AcmService::new(env.storage.clone(), env.scheduler.clock().clone());
    Registration {
        handlers: vec![Arc::new(Handler(acm))],
        ..Registration::default()
    }
}

stratus_gen_acm::operations! {
    AcmService;
    add_tags_to_certificate => ops::tags::add_tags_to_certificate,
    delete_certificate => ops::certificates::delete_certificate,
    describe_certificate => ops::certificates::describe_certificate,
    export_certificate => ops::certificates::export_certificate,
    get_account_configuration => ops::account::get_account_configuration,
    get_certificate => ops::certificates::get_certificate,
    import_certificate => ops::imports::import_certificate,
    list_certificates => ops::certificates::list_certificates,
    list_tags_for_certificate => ops::tags::list_tags_for_certificate,
    put_account_configuration => ops::account::put_account_configuration,
    remove_tags_from_certificate => ops::tags::remove_tags_from_certificate,
    renew_certificate => ops::requests::renew_certificate,
    request_certificate => ops::requests::request_certificate,
    resend_validation_email => ops::requests::resend_validation_email,
    revoke_certificate => ops::certificates::revoke_certificate,
    update_certificate_options => ops::certificates::update_certificate_options,
}
