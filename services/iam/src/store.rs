//! The tables of an account's `iam` store, and the one loader per kind of entity that
//! operations read through (from the store or inside a transaction).

use serde::de::DeserializeOwned;
use serde::Serialize;
use stratus_storage::{Direction, KeyRange, Read, Table};

use crate::error::IamError;
use crate::records::{
    key, AccessKeyRecord, AccessReportRecord, AccountRecord, GroupRecord, InstanceProfileRecord, MfaDeviceRecord,
    OidcProviderRecord, Permissions, PolicyRecord, RoleRecord, SamlProviderRecord, ServerCertificateRecord,
    ServiceCredentialRecord, SigningCertificateRecord, SshKeyRecord, UserRecord,
};

pub(crate) const USERS: Table<UserRecord> = Table::new("users");
pub(crate) const GROUPS: Table<GroupRecord> = Table::new("groups");
pub(crate) const ROLES: Table<RoleRecord> = Table::new("roles");
pub(crate) const POLICIES: Table<PolicyRecord> = Table::new("policies");
pub(crate) const INSTANCE_PROFILES: Table<InstanceProfileRecord> = Table::new("instance_profiles");
pub(crate) const ACCESS_KEYS: Table<AccessKeyRecord> = Table::new("access_keys");
pub(crate) const SERVICE_CREDENTIALS: Table<ServiceCredentialRecord> = Table::new("service_credentials");
pub(crate) const SSH_KEYS: Table<SshKeyRecord> = Table::new("ssh_keys");
pub(crate) const MFA_DEVICES: Table<MfaDeviceRecord> = Table::new("mfa_devices");
pub(crate) const SAML_PROVIDERS: Table<SamlProviderRecord> = Table::new("saml_providers");
pub(crate) const OIDC_PROVIDERS: Table<OidcProviderRecord> = Table::new("oidc_providers");
pub(crate) const SERVER_CERTIFICATES: Table<ServerCertificateRecord> = Table::new("server_certificates");
pub(crate) const SIGNING_CERTIFICATES: Table<SigningCertificateRecord> = Table::new("signing_certificates");
pub(crate) const ACCESS_REPORTS: Table<AccessReportRecord> = Table::new("access_reports");
pub(crate) const ACCOUNT: Table<AccountRecord> = Table::new("account");
/// The one key of the `account` table.
pub(crate) const ACCOUNT_KEY: &str = "settings";

/// Every record of `table`, in key order.
pub(crate) fn all<T: Serialize + DeserializeOwned>(
    r: &(impl Read + ?Sized),
    table: Table<T>,
) -> Result<Vec<(String, T)>, IamError> {
    Ok(table
        .scan(r, &KeyRange::all(), Direction::Forward, None)?
        .into_iter()
        .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
        .collect())
}

/// A user, group or role: what holds policies and is named in AWS's refusals.
pub(crate) trait Holder: Serialize + DeserializeOwned + Send + 'static {
    const TABLE: Table<Self>;
    /// How AWS's messages name the kind: `user`, `group`, `role`.
    const KIND: &'static str;
    fn name(&self) -> &str;
    fn id(&self) -> &str;
    fn path(&self) -> &str;
    fn permissions(&self) -> &Permissions;
    fn permissions_mut(&mut self) -> &mut Permissions;
}

macro_rules! holder {
    ($record:ty, $table:expr, $kind:literal) => {
        impl Holder for $record {
            const TABLE: Table<Self> = $table;
            const KIND: &'static str = $kind;
            fn name(&self) -> &str {
                &self.name
            }
            fn id(&self) -> &str {
                &self.id
            }
            fn path(&self) -> &str {
                &self.path
            }
            fn permissions(&self) -> &Permissions {
                &self.permissions
            }
            fn permissions_mut(&mut self) -> &mut Permissions {
                &mut self.permissions
            }
        }
    };
}

holder!(UserRecord, USERS, "user");
holder!(GroupRecord, GROUPS, "group");
holder!(RoleRecord, ROLES, "role");

/// AWS's refusal of a name that names no `kind` ("The user with name X cannot be found.").
pub(crate) fn no_such(kind: &str, name: &str) -> IamError {
    IamError::NoSuchEntity(format!("The {kind} with name {name} cannot be found."))
}

/// The holder named `name`, or AWS's refusal.
pub(crate) fn load<H: Holder>(r: &(impl Read + ?Sized), name: &str) -> Result<H, IamError> {
    H::TABLE.get(r, key(name))?.ok_or_else(|| no_such(H::KIND, name))
}

pub(crate) fn load_instance_profile(r: &(impl Read + ?Sized), name: &str) -> Result<InstanceProfileRecord, IamError> {
    INSTANCE_PROFILES
        .get(r, key(name))?
        .ok_or_else(|| IamError::NoSuchEntity(format!("Instance Profile {name} cannot be found.")))
}

pub(crate) fn load_account(r: &(impl Read + ?Sized)) -> Result<AccountRecord, IamError> {
    Ok(ACCOUNT.get(r, ACCOUNT_KEY)?.unwrap_or_default())
}

/// The named server certificate, or AWS's refusal (as moto's test_get_server_cert_doesnt_exist
/// records it).
pub(crate) fn load_server_certificate(
    r: &(impl Read + ?Sized),
    name: &str,
) -> Result<ServerCertificateRecord, IamError> {
    SERVER_CERTIFICATES
        .get(r, key(name))?
        .ok_or_else(|| IamError::NoSuchEntity(format!("The Server Certificate with name {name} cannot be found.")))
}
