//! IAM's refusals, in one enum that converts into every operation's generated error type.
//!
//! Each refusal travels as a common [`AwsError`] with IAM's Query code and status; the
//! generated code promotes it to the operation's modelled error of that code
//! (`OperationError::promote`), so SDKs raise the typed exception (`NoSuchEntityException`,
//! `DeleteConflictException`, …). Codes and statuses are those of the IAM API reference's
//! "Errors" sections; messages are AWS's, as recorded against real IAM.

use stratus_core::AwsError;
use stratus_gen_iam::*;
use stratus_storage::StorageError;

/// Everything an IAM operation can refuse with; the text is AWS's message.
#[derive(Debug, thiserror::Error)]
pub enum IamError {
    /// `NoSuchEntity` (404): the named user, role, policy… does not exist.
    #[error("{0}")]
    NoSuchEntity(String),
    /// `EntityAlreadyExists` (409).
    #[error("{0}")]
    EntityAlreadyExists(String),
    /// `DeleteConflict` (409): the entity still has what must be removed first.
    #[error("{0}")]
    DeleteConflict(String),
    /// `LimitExceeded` (409): a quota (versions per policy, keys per user, tags…).
    #[error("{0}")]
    LimitExceeded(String),
    /// `InvalidInput` (400).
    #[error("{0}")]
    InvalidInput(String),
    /// `MalformedPolicyDocument` (400), with stratus-policy's wording.
    #[error("{0}")]
    MalformedPolicyDocument(String),
    /// `UnmodifiableEntity` (400): a service-linked role, an AWS managed policy.
    #[error("{0}")]
    UnmodifiableEntity(String),
    /// `ValidationError` (400): a check the model cannot express, worded as the validator is.
    #[error("{0}")]
    Validation(String),
    /// `PasswordPolicyViolation` (400).
    #[error("{0}")]
    PasswordPolicyViolation(String),
    /// `InvalidPublicKey` (400): an SSH public key that is not one.
    #[error("{0}")]
    InvalidPublicKey(String),
    /// `DuplicateSSHPublicKey` (400): the user already has this key.
    #[error("{0}")]
    DuplicateSshPublicKey(String),
    /// `MalformedCertificate` (400): a certificate that is not one PEM X.509 certificate.
    #[error("{0}")]
    MalformedCertificate(String),
    /// `KeyPairMismatch` (400): the private key is not the certificate's.
    #[error("{0}")]
    KeyPairMismatch(String),
    /// `DuplicateCertificate` (409): the user already has this signing certificate.
    #[error("{0}")]
    DuplicateCertificate(String),
    /// `AccessDenied` (403): what IAM allows only callers it has enrolled (delegation
    /// requests are for onboarded partners).
    #[error("{0}")]
    AccessDenied(String),
    /// `InvalidUserType` (400): the caller is not of the kind the operation is for
    /// (`ChangePassword` is for IAM users).
    #[error("{0}")]
    InvalidUserType(String),
    /// `FeatureDisabled` (404) and `FeatureEnabled` (409): an account feature is not in the
    /// state the request needs.
    #[error("{0}")]
    FeatureDisabled(String),
    #[error("{0}")]
    FeatureEnabled(String),
    /// `OrganizationNotFoundException` (400): the account belongs to no organization (none
    /// does in Stratus).
    #[error("{0}")]
    OrganizationNotFound(String),
    /// `ReportNotPresent` (410): no credential report has been generated.
    #[error("{0}")]
    ReportNotPresent(String),
    /// `ReportExpired` (410): the credential report is over four hours old.
    #[error("{0}")]
    ReportExpired(String),
    /// `NotImplemented` (501): what Stratus does not serve, the message says which.
    #[error("{0}")]
    NotServed(String),
    /// A fault of the store.
    #[error("iam store: {0}")]
    Storage(#[from] StorageError),
    /// Another service's answer, passed on (a resource's tags it could not read).
    #[error("{}", .0.message)]
    Other(AwsError),
}

impl IamError {
    /// The error as a common error with its Query code.
    pub fn into_aws(self) -> AwsError {
        let (code, status) = match &self {
            IamError::NoSuchEntity(_) => ("NoSuchEntity", 404),
            IamError::EntityAlreadyExists(_) => ("EntityAlreadyExists", 409),
            IamError::DeleteConflict(_) => ("DeleteConflict", 409),
            IamError::LimitExceeded(_) => ("LimitExceeded", 409),
            IamError::InvalidInput(_) => ("InvalidInput", 400),
            IamError::MalformedPolicyDocument(_) => ("MalformedPolicyDocument", 400),
            IamError::UnmodifiableEntity(_) => ("UnmodifiableEntity", 400),
            IamError::Validation(_) => ("ValidationError", 400),
            IamError::PasswordPolicyViolation(_) => ("PasswordPolicyViolation", 400),
            IamError::NotServed(_) => ("NotImplemented", 501),
            IamError::ReportNotPresent(_) => ("ReportNotPresent", 410),
            IamError::OrganizationNotFound(_) => ("OrganizationNotFoundException", 400),
            IamError::FeatureDisabled(_) => ("FeatureDisabled", 404),
            IamError::FeatureEnabled(_) => ("FeatureEnabled", 409),
            IamError::InvalidPublicKey(_) => ("InvalidPublicKey", 400),
            IamError::DuplicateSshPublicKey(_) => ("DuplicateSSHPublicKey", 400),
            IamError::ReportExpired(_) => ("ReportExpired", 410),
            IamError::InvalidUserType(_) => ("InvalidUserType", 400),
            IamError::AccessDenied(_) => ("AccessDenied", 403),
            IamError::MalformedCertificate(_) => ("MalformedCertificate", 400),
            IamError::KeyPairMismatch(_) => ("KeyPairMismatch", 400),
            IamError::DuplicateCertificate(_) => ("DuplicateCertificate", 409),
            IamError::Storage(e) => return AwsError::internal(format!("iam store: {e}")),
            IamError::Other(e) => return e.clone(),
        };
        AwsError::new(code, self.to_string(), status)
    }

    /// `DeleteConflict` with AWS's wording for what has to go first.
    pub fn must(first: &str) -> IamError {
        IamError::DeleteConflict(format!("Cannot delete entity, must {first} first."))
    }
}

/// `impl From<IamError> for OpError` for each operation Stratus implements: the refusal as a
/// common error, which the generated code promotes to the modelled error of its code.
macro_rules! into_operation_error {
    ($($op:ident)*) => {$(
        impl From<IamError> for $op {
            fn from(e: IamError) -> $op {
                $op::Aws(e.into_aws())
            }
        }
    )*};
}

into_operation_error! {
    AddRoleToInstanceProfileError AddUserToGroupError AttachGroupPolicyError AttachRolePolicyError
    AttachUserPolicyError CreateAccessKeyError CreateAccountAliasError CreateGroupError
    CreateInstanceProfileError CreateLoginProfileError CreatePolicyError CreatePolicyVersionError
    CreateRoleError CreateUserError DeleteAccessKeyError DeleteAccountAliasError
    DeleteAccountPasswordPolicyError DeleteGroupError DeleteGroupPolicyError
    DeleteInstanceProfileError DeleteLoginProfileError DeletePolicyError DeletePolicyVersionError
    DeleteRoleError DeleteRolePermissionsBoundaryError DeleteRolePolicyError DeleteUserError
    DeleteUserPermissionsBoundaryError DeleteUserPolicyError DetachGroupPolicyError
    DetachRolePolicyError DetachUserPolicyError GetAccessKeyLastUsedError
    GetAccountPasswordPolicyError GetAccountSummaryError GetGroupError GetGroupPolicyError
    GetInstanceProfileError GetLoginProfileError GetPolicyError GetPolicyVersionError GetRoleError
    GetRolePolicyError GetUserError GetUserPolicyError ListAccessKeysError ListAccountAliasesError
    ListAttachedGroupPoliciesError ListAttachedRolePoliciesError ListAttachedUserPoliciesError
    ListEntitiesForPolicyError ListGroupPoliciesError ListGroupsError ListGroupsForUserError
    ListInstanceProfileTagsError ListInstanceProfilesError ListInstanceProfilesForRoleError
    ListPoliciesError ListPolicyTagsError ListPolicyVersionsError ListRolePoliciesError
    ListRoleTagsError ListRolesError ListUserPoliciesError ListUserTagsError ListUsersError
    PutGroupPolicyError PutRolePermissionsBoundaryError PutRolePolicyError
    PutUserPermissionsBoundaryError PutUserPolicyError RemoveRoleFromInstanceProfileError
    RemoveUserFromGroupError SetDefaultPolicyVersionError TagInstanceProfileError TagPolicyError
    TagRoleError TagUserError UntagInstanceProfileError UntagPolicyError UntagRoleError
    UntagUserError UpdateAccessKeyError UpdateAccountPasswordPolicyError UpdateAssumeRolePolicyError
    UpdateGroupError UpdateLoginProfileError UpdateRoleError UpdateRoleDescriptionError
    UpdateUserError CreateServiceSpecificCredentialError DeleteServiceSpecificCredentialError
    ListServiceSpecificCredentialsError ResetServiceSpecificCredentialError UpdateServiceSpecificCredentialError
    CreateServiceLinkedRoleError DeleteServiceLinkedRoleError GetServiceLinkedRoleDeletionStatusError
    CreateOpenIDConnectProviderError GetOpenIDConnectProviderError ListOpenIDConnectProvidersError
    DeleteOpenIDConnectProviderError AddClientIDToOpenIDConnectProviderError
    RemoveClientIDFromOpenIDConnectProviderError UpdateOpenIDConnectProviderThumbprintError
    TagOpenIDConnectProviderError UntagOpenIDConnectProviderError ListOpenIDConnectProviderTagsError
    GetAccountAuthorizationDetailsError CreateVirtualMFADeviceError DeleteVirtualMFADeviceError
    ListVirtualMFADevicesError EnableMFADeviceError DeactivateMFADeviceError ResyncMFADeviceError
    ListMFADevicesError GetMFADeviceError TagMFADeviceError UntagMFADeviceError ListMFADeviceTagsError
    GenerateCredentialReportError GetCredentialReportError UploadSSHPublicKeyError GetSSHPublicKeyError
    ListSSHPublicKeysError UpdateSSHPublicKeyError DeleteSSHPublicKeyError
    SetSecurityTokenServicePreferencesError EnableOutboundWebIdentityFederationError
    DisableOutboundWebIdentityFederationError GetOutboundWebIdentityFederationInfoError
    SimulatePrincipalPolicyError SimulateCustomPolicyError CreateSAMLProviderError GetSAMLProviderError
    ListSAMLProvidersError UpdateSAMLProviderError DeleteSAMLProviderError TagSAMLProviderError
    UntagSAMLProviderError ListSAMLProviderTagsError ListOrganizationsFeaturesError
    EnableOrganizationsRootSessionsError DisableOrganizationsRootSessionsError
    EnableOrganizationsRootCredentialsManagementError DisableOrganizationsRootCredentialsManagementError
    UploadServerCertificateError GetServerCertificateError ListServerCertificatesError
    UpdateServerCertificateError DeleteServerCertificateError TagServerCertificateError
    UntagServerCertificateError ListServerCertificateTagsError UploadSigningCertificateError
    ListSigningCertificatesError UpdateSigningCertificateError DeleteSigningCertificateError
    CreateDelegationRequestError ListDelegationRequestsError GetDelegationRequestError
    AcceptDelegationRequestError AssociateDelegationRequestError RejectDelegationRequestError
    UpdateDelegationRequestError SendDelegationTokenError GenerateOrganizationsAccessReportError
    GetOrganizationsAccessReportError GetContextKeysForCustomPolicyError
    GetContextKeysForPrincipalPolicyError GetHumanReadableSummaryError ChangePasswordError
    GenerateServiceLastAccessedDetailsError GetServiceLastAccessedDetailsError
    GetServiceLastAccessedDetailsWithEntitiesError ListPoliciesGrantingServiceAccessError
}
