//! The operations, by what they act on: each a plain function of the service, the request
//! context and the typed input.

pub(crate) mod access_keys;
pub(crate) mod account;
pub(crate) mod attached;
pub(crate) mod authorization_details;
pub(crate) mod credential_report;
pub(crate) mod delegation_requests;
pub(crate) mod groups;
pub(crate) mod inline;
pub(crate) mod instance_profiles;
pub(crate) mod login_profiles;
pub(crate) mod mfa_devices;
pub(crate) mod oidc_providers;
pub(crate) mod organizations;
pub(crate) mod outbound_federation;
pub(crate) mod policies;
pub(crate) mod roles;
pub(crate) mod saml_providers;
pub(crate) mod server_certificates;
pub(crate) mod service_access;
pub(crate) mod service_credentials;
pub(crate) mod service_linked_roles;
pub(crate) mod signing_certificates;
pub(crate) mod simulate;
pub(crate) mod ssh_keys;
pub(crate) mod users;
