//! AWS Identity and Access Management: users, groups, roles, managed and inline policies,
//! instance profiles, access keys, login profiles and account settings, answered as IAM
//! answers (awsQuery) and kept durably.
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
//! - `deletion_tasks`: the role each service-linked role deletion task deleted, by task id;
//! - `account`: one [`records::AccountRecord`] (alias, password policy) under `settings`.
//!
//! AWS managed policies are data shipped with the crate ([`aws_policies`]), never stored.
//! Every policy document IAM accepts is checked by `stratus-policy` with IAM's grammar and
//! messages, and its size counted as IAM counts it ([`documents`]). Nothing runs in the
//! background. Operations not listed in the impl below answer the generated
//! `NotImplemented`; docs/services/iam.md lists them all.

mod aws_policies;
mod documents;
mod error;
mod ids;
mod listing;
mod managed;
mod ops;
mod records;
mod service;
mod store;
mod tagging;
mod trust;

use std::sync::Arc;

use stratus_core::service::{Registration, ServiceEnv};
use stratus_core::{RequestContext, Unit};
use stratus_gen_iam::*;
use stratus_storage::Storage;

pub use crate::error::IamError;
pub use crate::service::IamService;
pub use crate::trust::AssumableRole;

/// Builds IAM when the binary serves it.
pub fn register(env: &ServiceEnv<'_, Storage>) -> Registration {
    if !env.serves(&SERVICE) {
        return Registration::default();
    }
    Registration {
        handlers: vec![Arc::new(Handler(IamService::new(env.storage.clone())))],
        ..Registration::default()
    }
}

impl Iam for IamService {
    async fn add_role_to_instance_profile(
        &self,
        ctx: &RequestContext,
        input: AddRoleToInstanceProfileRequest,
    ) -> Result<Unit, AddRoleToInstanceProfileError> {
        Ok(ops::instance_profiles::add_role_to_instance_profile(self, ctx, input).await?)
    }
    async fn add_user_to_group(
        &self,
        ctx: &RequestContext,
        input: AddUserToGroupRequest,
    ) -> Result<Unit, AddUserToGroupError> {
        Ok(ops::groups::add_user_to_group(self, ctx, input).await?)
    }
    async fn attach_group_policy(
        &self,
        ctx: &RequestContext,
        input: AttachGroupPolicyRequest,
    ) -> Result<Unit, AttachGroupPolicyError> {
        Ok(ops::attached::attach_group_policy(self, ctx, input).await?)
    }
    async fn attach_role_policy(
        &self,
        ctx: &RequestContext,
        input: AttachRolePolicyRequest,
    ) -> Result<Unit, AttachRolePolicyError> {
        Ok(ops::attached::attach_role_policy(self, ctx, input).await?)
    }
    async fn attach_user_policy(
        &self,
        ctx: &RequestContext,
        input: AttachUserPolicyRequest,
    ) -> Result<Unit, AttachUserPolicyError> {
        Ok(ops::attached::attach_user_policy(self, ctx, input).await?)
    }
    async fn create_access_key(
        &self,
        ctx: &RequestContext,
        input: CreateAccessKeyRequest,
    ) -> Result<CreateAccessKeyResponse, CreateAccessKeyError> {
        Ok(ops::access_keys::create_access_key(self, ctx, input).await?)
    }
    async fn create_account_alias(
        &self,
        ctx: &RequestContext,
        input: CreateAccountAliasRequest,
    ) -> Result<Unit, CreateAccountAliasError> {
        Ok(ops::account::create_account_alias(self, ctx, input).await?)
    }
    async fn create_group(
        &self,
        ctx: &RequestContext,
        input: CreateGroupRequest,
    ) -> Result<CreateGroupResponse, CreateGroupError> {
        Ok(ops::groups::create_group(self, ctx, input).await?)
    }
    async fn create_instance_profile(
        &self,
        ctx: &RequestContext,
        input: CreateInstanceProfileRequest,
    ) -> Result<CreateInstanceProfileResponse, CreateInstanceProfileError> {
        Ok(ops::instance_profiles::create_instance_profile(self, ctx, input).await?)
    }
    async fn create_login_profile(
        &self,
        ctx: &RequestContext,
        input: CreateLoginProfileRequest,
    ) -> Result<CreateLoginProfileResponse, CreateLoginProfileError> {
        Ok(ops::login_profiles::create_login_profile(self, ctx, input).await?)
    }
    async fn create_policy(
        &self,
        ctx: &RequestContext,
        input: CreatePolicyRequest,
    ) -> Result<CreatePolicyResponse, CreatePolicyError> {
        Ok(ops::policies::create_policy(self, ctx, input).await?)
    }
    async fn create_policy_version(
        &self,
        ctx: &RequestContext,
        input: CreatePolicyVersionRequest,
    ) -> Result<CreatePolicyVersionResponse, CreatePolicyVersionError> {
        Ok(ops::policies::create_policy_version(self, ctx, input).await?)
    }
    async fn create_role(
        &self,
        ctx: &RequestContext,
        input: CreateRoleRequest,
    ) -> Result<CreateRoleResponse, CreateRoleError> {
        Ok(ops::roles::create_role(self, ctx, input).await?)
    }
    async fn create_user(
        &self,
        ctx: &RequestContext,
        input: CreateUserRequest,
    ) -> Result<CreateUserResponse, CreateUserError> {
        Ok(ops::users::create_user(self, ctx, input).await?)
    }
    async fn delete_access_key(
        &self,
        ctx: &RequestContext,
        input: DeleteAccessKeyRequest,
    ) -> Result<Unit, DeleteAccessKeyError> {
        Ok(ops::access_keys::delete_access_key(self, ctx, input).await?)
    }
    async fn delete_account_alias(
        &self,
        ctx: &RequestContext,
        input: DeleteAccountAliasRequest,
    ) -> Result<Unit, DeleteAccountAliasError> {
        Ok(ops::account::delete_account_alias(self, ctx, input).await?)
    }
    async fn delete_account_password_policy(
        &self,
        ctx: &RequestContext,
        input: Unit,
    ) -> Result<Unit, DeleteAccountPasswordPolicyError> {
        Ok(ops::account::delete_account_password_policy(self, ctx, input).await?)
    }
    async fn delete_group(&self, ctx: &RequestContext, input: DeleteGroupRequest) -> Result<Unit, DeleteGroupError> {
        Ok(ops::groups::delete_group(self, ctx, input).await?)
    }
    async fn delete_group_policy(
        &self,
        ctx: &RequestContext,
        input: DeleteGroupPolicyRequest,
    ) -> Result<Unit, DeleteGroupPolicyError> {
        Ok(ops::inline::delete_group_policy(self, ctx, input).await?)
    }
    async fn delete_instance_profile(
        &self,
        ctx: &RequestContext,
        input: DeleteInstanceProfileRequest,
    ) -> Result<Unit, DeleteInstanceProfileError> {
        Ok(ops::instance_profiles::delete_instance_profile(self, ctx, input).await?)
    }
    async fn delete_login_profile(
        &self,
        ctx: &RequestContext,
        input: DeleteLoginProfileRequest,
    ) -> Result<Unit, DeleteLoginProfileError> {
        Ok(ops::login_profiles::delete_login_profile(self, ctx, input).await?)
    }
    async fn delete_policy(&self, ctx: &RequestContext, input: DeletePolicyRequest) -> Result<Unit, DeletePolicyError> {
        Ok(ops::policies::delete_policy(self, ctx, input).await?)
    }
    async fn delete_policy_version(
        &self,
        ctx: &RequestContext,
        input: DeletePolicyVersionRequest,
    ) -> Result<Unit, DeletePolicyVersionError> {
        Ok(ops::policies::delete_policy_version(self, ctx, input).await?)
    }
    async fn delete_role(&self, ctx: &RequestContext, input: DeleteRoleRequest) -> Result<Unit, DeleteRoleError> {
        Ok(ops::roles::delete_role(self, ctx, input).await?)
    }
    async fn delete_role_permissions_boundary(
        &self,
        ctx: &RequestContext,
        input: DeleteRolePermissionsBoundaryRequest,
    ) -> Result<Unit, DeleteRolePermissionsBoundaryError> {
        Ok(ops::roles::delete_role_permissions_boundary(self, ctx, input).await?)
    }
    async fn delete_role_policy(
        &self,
        ctx: &RequestContext,
        input: DeleteRolePolicyRequest,
    ) -> Result<Unit, DeleteRolePolicyError> {
        Ok(ops::inline::delete_role_policy(self, ctx, input).await?)
    }
    async fn delete_user(&self, ctx: &RequestContext, input: DeleteUserRequest) -> Result<Unit, DeleteUserError> {
        Ok(ops::users::delete_user(self, ctx, input).await?)
    }
    async fn delete_user_permissions_boundary(
        &self,
        ctx: &RequestContext,
        input: DeleteUserPermissionsBoundaryRequest,
    ) -> Result<Unit, DeleteUserPermissionsBoundaryError> {
        Ok(ops::users::delete_user_permissions_boundary(self, ctx, input).await?)
    }
    async fn delete_user_policy(
        &self,
        ctx: &RequestContext,
        input: DeleteUserPolicyRequest,
    ) -> Result<Unit, DeleteUserPolicyError> {
        Ok(ops::inline::delete_user_policy(self, ctx, input).await?)
    }
    async fn detach_group_policy(
        &self,
        ctx: &RequestContext,
        input: DetachGroupPolicyRequest,
    ) -> Result<Unit, DetachGroupPolicyError> {
        Ok(ops::attached::detach_group_policy(self, ctx, input).await?)
    }
    async fn detach_role_policy(
        &self,
        ctx: &RequestContext,
        input: DetachRolePolicyRequest,
    ) -> Result<Unit, DetachRolePolicyError> {
        Ok(ops::attached::detach_role_policy(self, ctx, input).await?)
    }
    async fn detach_user_policy(
        &self,
        ctx: &RequestContext,
        input: DetachUserPolicyRequest,
    ) -> Result<Unit, DetachUserPolicyError> {
        Ok(ops::attached::detach_user_policy(self, ctx, input).await?)
    }
    async fn get_access_key_last_used(
        &self,
        ctx: &RequestContext,
        input: GetAccessKeyLastUsedRequest,
    ) -> Result<GetAccessKeyLastUsedResponse, GetAccessKeyLastUsedError> {
        Ok(ops::access_keys::get_access_key_last_used(self, ctx, input).await?)
    }
    async fn get_account_password_policy(
        &self,
        ctx: &RequestContext,
        input: Unit,
    ) -> Result<GetAccountPasswordPolicyResponse, GetAccountPasswordPolicyError> {
        Ok(ops::account::get_account_password_policy(self, ctx, input).await?)
    }
    async fn get_account_summary(
        &self,
        ctx: &RequestContext,
        input: Unit,
    ) -> Result<GetAccountSummaryResponse, GetAccountSummaryError> {
        Ok(ops::account::get_account_summary(self, ctx, input).await?)
    }
    async fn get_group(&self, ctx: &RequestContext, input: GetGroupRequest) -> Result<GetGroupResponse, GetGroupError> {
        Ok(ops::groups::get_group(self, ctx, input).await?)
    }
    async fn get_group_policy(
        &self,
        ctx: &RequestContext,
        input: GetGroupPolicyRequest,
    ) -> Result<GetGroupPolicyResponse, GetGroupPolicyError> {
        Ok(ops::inline::get_group_policy(self, ctx, input).await?)
    }
    async fn get_instance_profile(
        &self,
        ctx: &RequestContext,
        input: GetInstanceProfileRequest,
    ) -> Result<GetInstanceProfileResponse, GetInstanceProfileError> {
        Ok(ops::instance_profiles::get_instance_profile(self, ctx, input).await?)
    }
    async fn get_login_profile(
        &self,
        ctx: &RequestContext,
        input: GetLoginProfileRequest,
    ) -> Result<GetLoginProfileResponse, GetLoginProfileError> {
        Ok(ops::login_profiles::get_login_profile(self, ctx, input).await?)
    }
    async fn get_policy(
        &self,
        ctx: &RequestContext,
        input: GetPolicyRequest,
    ) -> Result<GetPolicyResponse, GetPolicyError> {
        Ok(ops::policies::get_policy(self, ctx, input).await?)
    }
    async fn get_policy_version(
        &self,
        ctx: &RequestContext,
        input: GetPolicyVersionRequest,
    ) -> Result<GetPolicyVersionResponse, GetPolicyVersionError> {
        Ok(ops::policies::get_policy_version(self, ctx, input).await?)
    }
    async fn get_role(&self, ctx: &RequestContext, input: GetRoleRequest) -> Result<GetRoleResponse, GetRoleError> {
        Ok(ops::roles::get_role(self, ctx, input).await?)
    }
    async fn get_role_policy(
        &self,
        ctx: &RequestContext,
        input: GetRolePolicyRequest,
    ) -> Result<GetRolePolicyResponse, GetRolePolicyError> {
        Ok(ops::inline::get_role_policy(self, ctx, input).await?)
    }
    async fn get_user(&self, ctx: &RequestContext, input: GetUserRequest) -> Result<GetUserResponse, GetUserError> {
        Ok(ops::users::get_user(self, ctx, input).await?)
    }
    async fn get_user_policy(
        &self,
        ctx: &RequestContext,
        input: GetUserPolicyRequest,
    ) -> Result<GetUserPolicyResponse, GetUserPolicyError> {
        Ok(ops::inline::get_user_policy(self, ctx, input).await?)
    }
    async fn list_access_keys(
        &self,
        ctx: &RequestContext,
        input: ListAccessKeysRequest,
    ) -> Result<ListAccessKeysResponse, ListAccessKeysError> {
        Ok(ops::access_keys::list_access_keys(self, ctx, input).await?)
    }
    async fn list_account_aliases(
        &self,
        ctx: &RequestContext,
        input: ListAccountAliasesRequest,
    ) -> Result<ListAccountAliasesResponse, ListAccountAliasesError> {
        Ok(ops::account::list_account_aliases(self, ctx, input).await?)
    }
    async fn list_attached_group_policies(
        &self,
        ctx: &RequestContext,
        input: ListAttachedGroupPoliciesRequest,
    ) -> Result<ListAttachedGroupPoliciesResponse, ListAttachedGroupPoliciesError> {
        Ok(ops::attached::list_attached_group_policies(self, ctx, input).await?)
    }
    async fn list_attached_role_policies(
        &self,
        ctx: &RequestContext,
        input: ListAttachedRolePoliciesRequest,
    ) -> Result<ListAttachedRolePoliciesResponse, ListAttachedRolePoliciesError> {
        Ok(ops::attached::list_attached_role_policies(self, ctx, input).await?)
    }
    async fn list_attached_user_policies(
        &self,
        ctx: &RequestContext,
        input: ListAttachedUserPoliciesRequest,
    ) -> Result<ListAttachedUserPoliciesResponse, ListAttachedUserPoliciesError> {
        Ok(ops::attached::list_attached_user_policies(self, ctx, input).await?)
    }
    async fn list_entities_for_policy(
        &self,
        ctx: &RequestContext,
        input: ListEntitiesForPolicyRequest,
    ) -> Result<ListEntitiesForPolicyResponse, ListEntitiesForPolicyError> {
        Ok(ops::policies::list_entities_for_policy(self, ctx, input).await?)
    }
    async fn list_group_policies(
        &self,
        ctx: &RequestContext,
        input: ListGroupPoliciesRequest,
    ) -> Result<ListGroupPoliciesResponse, ListGroupPoliciesError> {
        Ok(ops::inline::list_group_policies(self, ctx, input).await?)
    }
    async fn list_groups(
        &self,
        ctx: &RequestContext,
        input: ListGroupsRequest,
    ) -> Result<ListGroupsResponse, ListGroupsError> {
        Ok(ops::groups::list_groups(self, ctx, input).await?)
    }
    async fn list_groups_for_user(
        &self,
        ctx: &RequestContext,
        input: ListGroupsForUserRequest,
    ) -> Result<ListGroupsForUserResponse, ListGroupsForUserError> {
        Ok(ops::users::list_groups_for_user(self, ctx, input).await?)
    }
    async fn list_instance_profile_tags(
        &self,
        ctx: &RequestContext,
        input: ListInstanceProfileTagsRequest,
    ) -> Result<ListInstanceProfileTagsResponse, ListInstanceProfileTagsError> {
        Ok(ops::instance_profiles::list_instance_profile_tags(self, ctx, input).await?)
    }
    async fn list_instance_profiles(
        &self,
        ctx: &RequestContext,
        input: ListInstanceProfilesRequest,
    ) -> Result<ListInstanceProfilesResponse, ListInstanceProfilesError> {
        Ok(ops::instance_profiles::list_instance_profiles(self, ctx, input).await?)
    }
    async fn list_instance_profiles_for_role(
        &self,
        ctx: &RequestContext,
        input: ListInstanceProfilesForRoleRequest,
    ) -> Result<ListInstanceProfilesForRoleResponse, ListInstanceProfilesForRoleError> {
        Ok(ops::instance_profiles::list_instance_profiles_for_role(self, ctx, input).await?)
    }
    async fn list_policies(
        &self,
        ctx: &RequestContext,
        input: ListPoliciesRequest,
    ) -> Result<ListPoliciesResponse, ListPoliciesError> {
        Ok(ops::policies::list_policies(self, ctx, input).await?)
    }
    async fn list_policy_tags(
        &self,
        ctx: &RequestContext,
        input: ListPolicyTagsRequest,
    ) -> Result<ListPolicyTagsResponse, ListPolicyTagsError> {
        Ok(ops::policies::list_policy_tags(self, ctx, input).await?)
    }
    async fn list_policy_versions(
        &self,
        ctx: &RequestContext,
        input: ListPolicyVersionsRequest,
    ) -> Result<ListPolicyVersionsResponse, ListPolicyVersionsError> {
        Ok(ops::policies::list_policy_versions(self, ctx, input).await?)
    }
    async fn list_role_policies(
        &self,
        ctx: &RequestContext,
        input: ListRolePoliciesRequest,
    ) -> Result<ListRolePoliciesResponse, ListRolePoliciesError> {
        Ok(ops::inline::list_role_policies(self, ctx, input).await?)
    }
    async fn list_role_tags(
        &self,
        ctx: &RequestContext,
        input: ListRoleTagsRequest,
    ) -> Result<ListRoleTagsResponse, ListRoleTagsError> {
        Ok(ops::roles::list_role_tags(self, ctx, input).await?)
    }
    async fn list_roles(
        &self,
        ctx: &RequestContext,
        input: ListRolesRequest,
    ) -> Result<ListRolesResponse, ListRolesError> {
        Ok(ops::roles::list_roles(self, ctx, input).await?)
    }
    async fn list_user_policies(
        &self,
        ctx: &RequestContext,
        input: ListUserPoliciesRequest,
    ) -> Result<ListUserPoliciesResponse, ListUserPoliciesError> {
        Ok(ops::inline::list_user_policies(self, ctx, input).await?)
    }
    async fn list_user_tags(
        &self,
        ctx: &RequestContext,
        input: ListUserTagsRequest,
    ) -> Result<ListUserTagsResponse, ListUserTagsError> {
        Ok(ops::users::list_user_tags(self, ctx, input).await?)
    }
    async fn list_users(
        &self,
        ctx: &RequestContext,
        input: ListUsersRequest,
    ) -> Result<ListUsersResponse, ListUsersError> {
        Ok(ops::users::list_users(self, ctx, input).await?)
    }
    async fn put_group_policy(
        &self,
        ctx: &RequestContext,
        input: PutGroupPolicyRequest,
    ) -> Result<Unit, PutGroupPolicyError> {
        Ok(ops::inline::put_group_policy(self, ctx, input).await?)
    }
    async fn put_role_permissions_boundary(
        &self,
        ctx: &RequestContext,
        input: PutRolePermissionsBoundaryRequest,
    ) -> Result<Unit, PutRolePermissionsBoundaryError> {
        Ok(ops::roles::put_role_permissions_boundary(self, ctx, input).await?)
    }
    async fn put_role_policy(
        &self,
        ctx: &RequestContext,
        input: PutRolePolicyRequest,
    ) -> Result<Unit, PutRolePolicyError> {
        Ok(ops::inline::put_role_policy(self, ctx, input).await?)
    }
    async fn put_user_permissions_boundary(
        &self,
        ctx: &RequestContext,
        input: PutUserPermissionsBoundaryRequest,
    ) -> Result<Unit, PutUserPermissionsBoundaryError> {
        Ok(ops::users::put_user_permissions_boundary(self, ctx, input).await?)
    }
    async fn put_user_policy(
        &self,
        ctx: &RequestContext,
        input: PutUserPolicyRequest,
    ) -> Result<Unit, PutUserPolicyError> {
        Ok(ops::inline::put_user_policy(self, ctx, input).await?)
    }
    async fn remove_role_from_instance_profile(
        &self,
        ctx: &RequestContext,
        input: RemoveRoleFromInstanceProfileRequest,
    ) -> Result<Unit, RemoveRoleFromInstanceProfileError> {
        Ok(ops::instance_profiles::remove_role_from_instance_profile(self, ctx, input).await?)
    }
    async fn remove_user_from_group(
        &self,
        ctx: &RequestContext,
        input: RemoveUserFromGroupRequest,
    ) -> Result<Unit, RemoveUserFromGroupError> {
        Ok(ops::groups::remove_user_from_group(self, ctx, input).await?)
    }
    async fn set_default_policy_version(
        &self,
        ctx: &RequestContext,
        input: SetDefaultPolicyVersionRequest,
    ) -> Result<Unit, SetDefaultPolicyVersionError> {
        Ok(ops::policies::set_default_policy_version(self, ctx, input).await?)
    }
    async fn tag_instance_profile(
        &self,
        ctx: &RequestContext,
        input: TagInstanceProfileRequest,
    ) -> Result<Unit, TagInstanceProfileError> {
        Ok(ops::instance_profiles::tag_instance_profile(self, ctx, input).await?)
    }
    async fn tag_policy(&self, ctx: &RequestContext, input: TagPolicyRequest) -> Result<Unit, TagPolicyError> {
        Ok(ops::policies::tag_policy(self, ctx, input).await?)
    }
    async fn tag_role(&self, ctx: &RequestContext, input: TagRoleRequest) -> Result<Unit, TagRoleError> {
        Ok(ops::roles::tag_role(self, ctx, input).await?)
    }
    async fn tag_user(&self, ctx: &RequestContext, input: TagUserRequest) -> Result<Unit, TagUserError> {
        Ok(ops::users::tag_user(self, ctx, input).await?)
    }
    async fn untag_instance_profile(
        &self,
        ctx: &RequestContext,
        input: UntagInstanceProfileRequest,
    ) -> Result<Unit, UntagInstanceProfileError> {
        Ok(ops::instance_profiles::untag_instance_profile(self, ctx, input).await?)
    }
    async fn untag_policy(&self, ctx: &RequestContext, input: UntagPolicyRequest) -> Result<Unit, UntagPolicyError> {
        Ok(ops::policies::untag_policy(self, ctx, input).await?)
    }
    async fn untag_role(&self, ctx: &RequestContext, input: UntagRoleRequest) -> Result<Unit, UntagRoleError> {
        Ok(ops::roles::untag_role(self, ctx, input).await?)
    }
    async fn untag_user(&self, ctx: &RequestContext, input: UntagUserRequest) -> Result<Unit, UntagUserError> {
        Ok(ops::users::untag_user(self, ctx, input).await?)
    }
    async fn update_access_key(
        &self,
        ctx: &RequestContext,
        input: UpdateAccessKeyRequest,
    ) -> Result<Unit, UpdateAccessKeyError> {
        Ok(ops::access_keys::update_access_key(self, ctx, input).await?)
    }
    async fn update_account_password_policy(
        &self,
        ctx: &RequestContext,
        input: UpdateAccountPasswordPolicyRequest,
    ) -> Result<Unit, UpdateAccountPasswordPolicyError> {
        Ok(ops::account::update_account_password_policy(self, ctx, input).await?)
    }
    async fn update_assume_role_policy(
        &self,
        ctx: &RequestContext,
        input: UpdateAssumeRolePolicyRequest,
    ) -> Result<Unit, UpdateAssumeRolePolicyError> {
        Ok(ops::roles::update_assume_role_policy(self, ctx, input).await?)
    }
    async fn update_group(&self, ctx: &RequestContext, input: UpdateGroupRequest) -> Result<Unit, UpdateGroupError> {
        Ok(ops::groups::update_group(self, ctx, input).await?)
    }
    async fn update_login_profile(
        &self,
        ctx: &RequestContext,
        input: UpdateLoginProfileRequest,
    ) -> Result<Unit, UpdateLoginProfileError> {
        Ok(ops::login_profiles::update_login_profile(self, ctx, input).await?)
    }
    async fn update_role(
        &self,
        ctx: &RequestContext,
        input: UpdateRoleRequest,
    ) -> Result<UpdateRoleResponse, UpdateRoleError> {
        Ok(ops::roles::update_role(self, ctx, input).await?)
    }
    async fn update_role_description(
        &self,
        ctx: &RequestContext,
        input: UpdateRoleDescriptionRequest,
    ) -> Result<UpdateRoleDescriptionResponse, UpdateRoleDescriptionError> {
        Ok(ops::roles::update_role_description(self, ctx, input).await?)
    }
    async fn update_user(&self, ctx: &RequestContext, input: UpdateUserRequest) -> Result<Unit, UpdateUserError> {
        Ok(ops::users::update_user(self, ctx, input).await?)
    }
    async fn create_service_specific_credential(
        &self,
        ctx: &RequestContext,
        input: CreateServiceSpecificCredentialRequest,
    ) -> Result<CreateServiceSpecificCredentialResponse, CreateServiceSpecificCredentialError> {
        Ok(ops::service_credentials::create_service_specific_credential(self, ctx, input).await?)
    }
    async fn delete_service_specific_credential(
        &self,
        ctx: &RequestContext,
        input: DeleteServiceSpecificCredentialRequest,
    ) -> Result<Unit, DeleteServiceSpecificCredentialError> {
        Ok(ops::service_credentials::delete_service_specific_credential(self, ctx, input).await?)
    }
    async fn list_service_specific_credentials(
        &self,
        ctx: &RequestContext,
        input: ListServiceSpecificCredentialsRequest,
    ) -> Result<ListServiceSpecificCredentialsResponse, ListServiceSpecificCredentialsError> {
        Ok(ops::service_credentials::list_service_specific_credentials(self, ctx, input).await?)
    }
    async fn reset_service_specific_credential(
        &self,
        ctx: &RequestContext,
        input: ResetServiceSpecificCredentialRequest,
    ) -> Result<ResetServiceSpecificCredentialResponse, ResetServiceSpecificCredentialError> {
        Ok(ops::service_credentials::reset_service_specific_credential(self, ctx, input).await?)
    }
    async fn update_service_specific_credential(
        &self,
        ctx: &RequestContext,
        input: UpdateServiceSpecificCredentialRequest,
    ) -> Result<Unit, UpdateServiceSpecificCredentialError> {
        Ok(ops::service_credentials::update_service_specific_credential(self, ctx, input).await?)
    }
    async fn create_service_linked_role(
        &self,
        ctx: &RequestContext,
        input: CreateServiceLinkedRoleRequest,
    ) -> Result<CreateServiceLinkedRoleResponse, CreateServiceLinkedRoleError> {
        Ok(ops::service_linked_roles::create_service_linked_role(self, ctx, input).await?)
    }
    async fn delete_service_linked_role(
        &self,
        ctx: &RequestContext,
        input: DeleteServiceLinkedRoleRequest,
    ) -> Result<DeleteServiceLinkedRoleResponse, DeleteServiceLinkedRoleError> {
        Ok(ops::service_linked_roles::delete_service_linked_role(self, ctx, input).await?)
    }
    async fn get_service_linked_role_deletion_status(
        &self,
        ctx: &RequestContext,
        input: GetServiceLinkedRoleDeletionStatusRequest,
    ) -> Result<GetServiceLinkedRoleDeletionStatusResponse, GetServiceLinkedRoleDeletionStatusError> {
        Ok(ops::service_linked_roles::get_service_linked_role_deletion_status(self, ctx, input).await?)
    }
}
