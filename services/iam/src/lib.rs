//! AWS Identity and Access Management: users, groups, roles, managed and inline policies,
//! instance profiles, credentials (access keys, login profiles, MFA devices, SSH keys,
//! service-specific credentials, server and signing certificates), identity providers,
//! service-linked roles, account settings, policy simulation and the access advisor's
//! reports, answered as IAM answers (awsQuery) and kept durably.
//!
//! IAM is global: each account's state lives in its global `iam` store
//! (`Namespace::global(account, "iam")`), written with strict durability. Tables, each keyed
//! by the lowercased name (IAM names are unique without regard to case) unless said:
//!
//! - `users`: [`records::UserRecord`] — path, id, tags, permissions boundary, inline and
//!   attached policies, the groups it belongs to (membership is kept on the user only), its
//!   login profile;
//! - `groups`: [`records::GroupRecord`] — inline and attached policies;
//! - `roles`: [`records::RoleRecord`] — trust policy, session duration, description,
//!   boundary, tags, inline and attached policies;
//! - `policies`: [`records::PolicyRecord`] — customer managed policies with their versions;
//!   attachment counts are not stored but counted from the holders, so they cannot drift;
//! - `instance_profiles`: [`records::InstanceProfileRecord`] — the keys of its role;
//! - `access_keys`: [`records::AccessKeyRecord`] by access key id — its user's key, secret,
//!   status;
//! - `service_credentials`: [`records::ServiceCredentialRecord`] by credential id;
//! - `ssh_keys`: [`records::SshKeyRecord`] by `APKA…` id;
//! - `server_certificates`: [`records::ServerCertificateRecord`] — body, chain, expiry, tags
//!   (the private key is checked, not kept);
//! - `signing_certificates`: [`records::SigningCertificateRecord`] by certificate id;
//! - `mfa_devices`: [`records::MfaDeviceRecord`] by serial number (the device's ARN);
//! - `saml_providers`: [`records::SamlProviderRecord`] by name;
//! - `oidc_providers`: [`records::OidcProviderRecord`] by URL without `https://`;
//! - `access_reports`: [`records::AccessReportRecord`] by job id — the services
//!   an entity's policies grant, when the report was asked for;
//! - `deletion_tasks`: the role each service-linked role deletion task deleted, by task id;
//! - `account`: one [`records::AccountRecord`] (alias, password policy, the last credential
//!   report, STS preferences, outbound federation) under `settings`.
//!
//! AWS managed policies are data shipped with the crate ([`aws_policies`]), never stored; so
//! are the services whose service-linked roles IAM creates, with each role's name and policy
//! (`data/service-linked-roles.json`, read by `ops::service_linked_roles`).
//! Every policy document IAM accepts is checked by `stratus-policy` with IAM's grammar and
//! messages, and its size counted as IAM counts it ([`documents`]). IAM is the binary's
//! [`Authorizer`](stratus_core::service::Authorizer) ([`authorize`]), which evaluates what a
//! principal holds ([`held_policies`]) parsed once and kept in memory until the next write
//! to its account ([`policy_cache`]; every write goes through `IamService::write`). Nothing
//! runs in the background. Every operation of the model is in the `operations!` table below;
//! docs/services/iam.md says how each answers.

mod authorize;
mod aws_policies;
mod certificates;
mod documents;
mod error;
mod held_policies;
mod identity;
mod ids;
mod listing;
mod managed;
mod ops;
mod policy_cache;
mod records;
mod service;
mod statement_spans;
mod store;
mod tagging;
mod trust;

use std::sync::Arc;

use stratus_core::service::{Providers, Registration, ServiceEnv};
use stratus_gen_iam::{Handler, SERVICE};
use stratus_storage::Storage;

pub use crate::error::IamError;
pub use crate::service::IamService;

/// Builds IAM when the binary serves it.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    let iam = IamService::new(env.storage.clone());
    Registration {
        handlers: vec![Arc::new(Handler(iam.clone()))],
        provides: Providers {
            authorizer: Some(Arc::new(iam.clone())),
            roles: Some(Arc::new(iam.clone())),
            user_keys: Some(Arc::new(iam)),
            ..Providers::default()
        },
        ..Registration::default()
    }
}

stratus_gen_iam::operations! {
    IamService;
    add_role_to_instance_profile => ops::instance_profiles::add_role_to_instance_profile,
    add_user_to_group => ops::groups::add_user_to_group,
    attach_group_policy => ops::attached::attach_group_policy,
    attach_role_policy => ops::attached::attach_role_policy,
    attach_user_policy => ops::attached::attach_user_policy,
    create_access_key => ops::access_keys::create_access_key,
    create_account_alias => ops::account::create_account_alias,
    create_group => ops::groups::create_group,
    create_instance_profile => ops::instance_profiles::create_instance_profile,
    create_login_profile => ops::login_profiles::create_login_profile,
    create_policy => ops::policies::create_policy,
    create_policy_version => ops::policies::create_policy_version,
    create_role => ops::roles::create_role,
    create_user => ops::users::create_user,
    delete_access_key => ops::access_keys::delete_access_key,
    delete_account_alias => ops::account::delete_account_alias,
    delete_account_password_policy => ops::account::delete_account_password_policy,
    delete_group => ops::groups::delete_group,
    delete_group_policy => ops::inline::delete_group_policy,
    delete_instance_profile => ops::instance_profiles::delete_instance_profile,
    delete_login_profile => ops::login_profiles::delete_login_profile,
    delete_policy => ops::policies::delete_policy,
    delete_policy_version => ops::policies::delete_policy_version,
    delete_role => ops::roles::delete_role,
    delete_role_permissions_boundary => ops::roles::delete_role_permissions_boundary,
    delete_role_policy => ops::inline::delete_role_policy,
    delete_user => ops::users::delete_user,
    delete_user_permissions_boundary => ops::users::delete_user_permissions_boundary,
    delete_user_policy => ops::inline::delete_user_policy,
    detach_group_policy => ops::attached::detach_group_policy,
    detach_role_policy => ops::attached::detach_role_policy,
    detach_user_policy => ops::attached::detach_user_policy,
    get_access_key_last_used => ops::access_keys::get_access_key_last_used,
    get_account_password_policy => ops::account::get_account_password_policy,
    get_account_summary => ops::account::get_account_summary,
    get_group => ops::groups::get_group,
    get_group_policy => ops::inline::get_group_policy,
    get_instance_profile => ops::instance_profiles::get_instance_profile,
    get_login_profile => ops::login_profiles::get_login_profile,
    get_policy => ops::policies::get_policy,
    get_policy_version => ops::policies::get_policy_version,
    get_role => ops::roles::get_role,
    get_role_policy => ops::inline::get_role_policy,
    get_user => ops::users::get_user,
    get_user_policy => ops::inline::get_user_policy,
    list_access_keys => ops::access_keys::list_access_keys,
    list_account_aliases => ops::account::list_account_aliases,
    list_attached_group_policies => ops::attached::list_attached_group_policies,
    list_attached_role_policies => ops::attached::list_attached_role_policies,
    list_attached_user_policies => ops::attached::list_attached_user_policies,
    list_entities_for_policy => ops::policies::list_entities_for_policy,
    list_group_policies => ops::inline::list_group_policies,
    list_groups => ops::groups::list_groups,
    list_groups_for_user => ops::users::list_groups_for_user,
    list_instance_profile_tags => ops::instance_profiles::list_instance_profile_tags,
    list_instance_profiles => ops::instance_profiles::list_instance_profiles,
    list_instance_profiles_for_role => ops::instance_profiles::list_instance_profiles_for_role,
    list_policies => ops::policies::list_policies,
    list_policy_tags => ops::policies::list_policy_tags,
    list_policy_versions => ops::policies::list_policy_versions,
    list_role_policies => ops::inline::list_role_policies,
    list_role_tags => ops::roles::list_role_tags,
    list_roles => ops::roles::list_roles,
    list_user_policies => ops::inline::list_user_policies,
    list_user_tags => ops::users::list_user_tags,
    list_users => ops::users::list_users,
    put_group_policy => ops::inline::put_group_policy,
    put_role_permissions_boundary => ops::roles::put_role_permissions_boundary,
    put_role_policy => ops::inline::put_role_policy,
    put_user_permissions_boundary => ops::users::put_user_permissions_boundary,
    put_user_policy => ops::inline::put_user_policy,
    remove_role_from_instance_profile => ops::instance_profiles::remove_role_from_instance_profile,
    remove_user_from_group => ops::groups::remove_user_from_group,
    set_default_policy_version => ops::policies::set_default_policy_version,
    tag_instance_profile => ops::instance_profiles::tag_instance_profile,
    tag_policy => ops::policies::tag_policy,
    tag_role => ops::roles::tag_role,
    tag_user => ops::users::tag_user,
    untag_instance_profile => ops::instance_profiles::untag_instance_profile,
    untag_policy => ops::policies::untag_policy,
    untag_role => ops::roles::untag_role,
    untag_user => ops::users::untag_user,
    update_access_key => ops::access_keys::update_access_key,
    update_account_password_policy => ops::account::update_account_password_policy,
    update_assume_role_policy => ops::roles::update_assume_role_policy,
    update_group => ops::groups::update_group,
    update_login_profile => ops::login_profiles::update_login_profile,
    update_role => ops::roles::update_role,
    update_role_description => ops::roles::update_role_description,
    update_user => ops::users::update_user,
    create_service_specific_credential => ops::service_credentials::create_service_specific_credential,
    delete_service_specific_credential => ops::service_credentials::delete_service_specific_credential,
    list_service_specific_credentials => ops::service_credentials::list_service_specific_credentials,
    reset_service_specific_credential => ops::service_credentials::reset_service_specific_credential,
    update_service_specific_credential => ops::service_credentials::update_service_specific_credential,
    create_service_linked_role => ops::service_linked_roles::create_service_linked_role,
    delete_service_linked_role => ops::service_linked_roles::delete_service_linked_role,
    get_service_linked_role_deletion_status => ops::service_linked_roles::get_service_linked_role_deletion_status,
    create_open_id_connect_provider => ops::oidc_providers::create_open_id_connect_provider,
    get_open_id_connect_provider => ops::oidc_providers::get_open_id_connect_provider,
    list_open_id_connect_providers => ops::oidc_providers::list_open_id_connect_providers,
    delete_open_id_connect_provider => ops::oidc_providers::delete_open_id_connect_provider,
    add_client_id_to_open_id_connect_provider => ops::oidc_providers::add_client_id_to_open_id_connect_provider,
    remove_client_id_from_open_id_connect_provider => ops::oidc_providers::remove_client_id_from_open_id_connect_provider,
    update_open_id_connect_provider_thumbprint => ops::oidc_providers::update_open_id_connect_provider_thumbprint,
    tag_open_id_connect_provider => ops::oidc_providers::tag_open_id_connect_provider,
    untag_open_id_connect_provider => ops::oidc_providers::untag_open_id_connect_provider,
    list_open_id_connect_provider_tags => ops::oidc_providers::list_open_id_connect_provider_tags,
    get_account_authorization_details => ops::authorization_details::get_account_authorization_details,
    create_virtual_mfa_device => ops::mfa_devices::create_virtual_mfa_device,
    delete_virtual_mfa_device => ops::mfa_devices::delete_virtual_mfa_device,
    list_virtual_mfa_devices => ops::mfa_devices::list_virtual_mfa_devices,
    enable_mfa_device => ops::mfa_devices::enable_mfa_device,
    deactivate_mfa_device => ops::mfa_devices::deactivate_mfa_device,
    resync_mfa_device => ops::mfa_devices::resync_mfa_device,
    list_mfa_devices => ops::mfa_devices::list_mfa_devices,
    get_mfa_device => ops::mfa_devices::get_mfa_device,
    tag_mfa_device => ops::mfa_devices::tag_mfa_device,
    untag_mfa_device => ops::mfa_devices::untag_mfa_device,
    list_mfa_device_tags => ops::mfa_devices::list_mfa_device_tags,
    generate_credential_report => ops::credential_report::generate_credential_report,
    get_credential_report => ops::credential_report::get_credential_report,
    upload_ssh_public_key => ops::ssh_keys::upload_ssh_public_key,
    get_ssh_public_key => ops::ssh_keys::get_ssh_public_key,
    list_ssh_public_keys => ops::ssh_keys::list_ssh_public_keys,
    update_ssh_public_key => ops::ssh_keys::update_ssh_public_key,
    delete_ssh_public_key => ops::ssh_keys::delete_ssh_public_key,
    set_security_token_service_preferences => ops::account::set_security_token_service_preferences,
    enable_outbound_web_identity_federation => ops::outbound_federation::enable_outbound_web_identity_federation,
    disable_outbound_web_identity_federation => ops::outbound_federation::disable_outbound_web_identity_federation,
    get_outbound_web_identity_federation_info => ops::outbound_federation::get_outbound_web_identity_federation_info,
    simulate_principal_policy => ops::simulate::simulate_principal_policy,
    simulate_custom_policy => ops::simulate::simulate_custom_policy,
    create_saml_provider => ops::saml_providers::create_saml_provider,
    get_saml_provider => ops::saml_providers::get_saml_provider,
    list_saml_providers => ops::saml_providers::list_saml_providers,
    update_saml_provider => ops::saml_providers::update_saml_provider,
    delete_saml_provider => ops::saml_providers::delete_saml_provider,
    tag_saml_provider => ops::saml_providers::tag_saml_provider,
    untag_saml_provider => ops::saml_providers::untag_saml_provider,
    list_saml_provider_tags => ops::saml_providers::list_saml_provider_tags,
    list_organizations_features => ops::organizations::list_organizations_features,
    enable_organizations_root_sessions => ops::organizations::enable_organizations_root_sessions,
    disable_organizations_root_sessions => ops::organizations::disable_organizations_root_sessions,
    enable_organizations_root_credentials_management => ops::organizations::enable_organizations_root_credentials_management,
    disable_organizations_root_credentials_management => ops::organizations::disable_organizations_root_credentials_management,
    upload_server_certificate => ops::server_certificates::upload_server_certificate,
    get_server_certificate => ops::server_certificates::get_server_certificate,
    list_server_certificates => ops::server_certificates::list_server_certificates,
    update_server_certificate => ops::server_certificates::update_server_certificate,
    delete_server_certificate => ops::server_certificates::delete_server_certificate,
    tag_server_certificate => ops::server_certificates::tag_server_certificate,
    untag_server_certificate => ops::server_certificates::untag_server_certificate,
    list_server_certificate_tags => ops::server_certificates::list_server_certificate_tags,
    upload_signing_certificate => ops::signing_certificates::upload_signing_certificate,
    list_signing_certificates => ops::signing_certificates::list_signing_certificates,
    update_signing_certificate => ops::signing_certificates::update_signing_certificate,
    delete_signing_certificate => ops::signing_certificates::delete_signing_certificate,
    create_delegation_request => ops::delegation_requests::create_delegation_request,
    list_delegation_requests => ops::delegation_requests::list_delegation_requests,
    get_delegation_request => ops::delegation_requests::get_delegation_request,
    accept_delegation_request => ops::delegation_requests::accept_delegation_request,
    associate_delegation_request => ops::delegation_requests::associate_delegation_request,
    reject_delegation_request => ops::delegation_requests::reject_delegation_request,
    update_delegation_request => ops::delegation_requests::update_delegation_request,
    send_delegation_token => ops::delegation_requests::send_delegation_token,
    generate_organizations_access_report => ops::organizations::generate_organizations_access_report,
    get_organizations_access_report => ops::organizations::get_organizations_access_report,
    change_password => ops::login_profiles::change_password,
    generate_service_last_accessed_details => ops::service_access::generate_service_last_accessed_details,
    get_service_last_accessed_details => ops::service_access::get_service_last_accessed_details,
    get_service_last_accessed_details_with_entities => ops::service_access::get_service_last_accessed_details_with_entities,
    list_policies_granting_service_access => ops::service_access::list_policies_granting_service_access,
    get_human_readable_summary => ops::delegation_requests::get_human_readable_summary,
    get_context_keys_for_custom_policy => ops::simulate::get_context_keys_for_custom_policy,
    get_context_keys_for_principal_policy => ops::simulate::get_context_keys_for_principal_policy,
}
