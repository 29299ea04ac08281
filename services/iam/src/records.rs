//! What the store keeps for each kind of entity, and how each is answered on the wire.
//!
//! Names are kept as given; the tables are keyed by the lowercased name, because IAM names
//! are unique without regard to case ("a user named TESTUSER and one named testuser cannot
//! both exist", IAM User Guide, "IAM object names").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_core::arn::Arn;
use stratus_core::DateTime;
use stratus_gen_iam::{
    AttachedPermissionsBoundary, Group, InstanceProfile, LoginProfile, PermissionsBoundaryAttachmentType, Role,
    RoleLastUsed, StatusType, Tag, User,
};

/// Where a request is answered from: the account and the region its ARNs' partition
/// follows.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub(crate) account: String,
    pub(crate) region: String,
}

impl Scope {
    /// The ARN of an IAM entity: `arn:aws:iam::ACCOUNT:KIND/PATH/NAME` (the path starts and
    /// ends with `/`).
    pub(crate) fn arn(&self, kind: &str, path: &str, name: &str) -> String {
        Arn::global("iam", &self.region, &self.account, &format!("{kind}{path}{name}")).to_string()
    }
}

/// The key of a named entity: its lowercased name.
pub(crate) fn key(name: &str) -> String {
    name.to_lowercase()
}

/// A timestamp of the store (seconds since the epoch) as AWS writes it.
pub(crate) fn date(secs: u64) -> DateTime {
    DateTime::from_secs(i64::try_from(secs).unwrap_or(i64::MAX))
}

/// A key's or credential's status.
pub(crate) fn status(active: bool) -> StatusType {
    if active {
        StatusType::Active
    } else {
        StatusType::Inactive
    }
}

/// Tags in the order they were first set (AWS lists them so).
pub(crate) type Tags = Vec<(String, String)>;

/// Tags as the wire carries them, `None` when there are none (AWS then leaves `Tags` out).
pub(crate) fn wire_tags(tags: &Tags) -> Option<Vec<Tag>> {
    (!tags.is_empty()).then(|| {
        tags.iter()
            .map(|(key, value)| Tag {
                key: key.clone(),
                value: value.clone(),
            })
            .collect()
    })
}

/// A permissions boundary as the wire carries it. IAM answers the type `Policy`, not the
/// model's `PermissionsBoundaryPolicy` (recorded from AWS by the parity suite's boundary
/// tests; the CLI reference's GetRole example shows the same).
fn wire_boundary(arn: &Option<String>) -> Option<AttachedPermissionsBoundary> {
    arn.as_ref().map(|arn| AttachedPermissionsBoundary {
        permissions_boundary_type: Some(PermissionsBoundaryAttachmentType::Unknown("Policy".into())),
        permissions_boundary_arn: Some(arn.clone()),
    })
}

/// The policies a user, group or role holds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Permissions {
    /// Inline policies: name → document as given.
    pub(crate) inline: BTreeMap<String, String>,
    /// Attached managed policies' ARNs, in attachment order.
    pub(crate) attached: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct UserRecord {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) id: String,
    pub(crate) created: u64,
    pub(crate) tags: Tags,
    pub(crate) boundary: Option<String>,
    pub(crate) permissions: Permissions,
    /// The keys of the groups the user belongs to, in joining order.
    pub(crate) groups: Vec<String>,
    pub(crate) login_profile: Option<LoginProfileRecord>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct LoginProfileRecord {
    pub(crate) created: u64,
    pub(crate) reset_required: bool,
    /// The password's salt and salted SHA-256, which `ChangePassword` checks the old
    /// password against (absent for profiles kept before passwords were).
    #[serde(default)]
    pub(crate) password: Option<(String, String)>,
    /// When the password was last changed (`ChangePassword`, `UpdateLoginProfile`), if since
    /// the profile was made.
    #[serde(default)]
    pub(crate) password_changed: Option<u64>,
}

impl UserRecord {
    /// The user as `GetUser` answers (with tags and boundary); listings leave tags out.
    pub(crate) fn wire(&self, scope: &Scope) -> User {
        User {
            path: self.path.clone(),
            user_name: self.name.clone(),
            user_id: self.id.clone(),
            arn: scope.arn("user", &self.path, &self.name),
            create_date: date(self.created),
            password_last_used: None,
            permissions_boundary: wire_boundary(&self.boundary),
            tags: wire_tags(&self.tags),
        }
    }

    /// The user as listings answer: no tags, no boundary (AWS: "ListUsers … does not
    /// return … tags or permissions boundary"; GetUser does).
    pub(crate) fn listed(&self, scope: &Scope) -> User {
        User {
            tags: None,
            permissions_boundary: None,
            ..self.wire(scope)
        }
    }

    pub(crate) fn wire_login_profile(&self) -> Option<LoginProfile> {
        self.login_profile.as_ref().map(|p| LoginProfile {
            user_name: self.name.clone(),
            create_date: date(p.created),
            password_reset_required: p.reset_required,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct GroupRecord {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) id: String,
    pub(crate) created: u64,
    pub(crate) permissions: Permissions,
}

impl GroupRecord {
    pub(crate) fn wire(&self, scope: &Scope) -> Group {
        Group {
            path: self.path.clone(),
            group_name: self.name.clone(),
            group_id: self.id.clone(),
            arn: scope.arn("group", &self.path, &self.name),
            create_date: date(self.created),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RoleRecord {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) id: String,
    pub(crate) created: u64,
    /// The trust policy as given.
    pub(crate) trust_policy: String,
    pub(crate) description: Option<String>,
    pub(crate) max_session_duration: i32,
    pub(crate) boundary: Option<String>,
    pub(crate) tags: Tags,
    pub(crate) permissions: Permissions,
    /// When and in which region the role was last assumed.
    pub(crate) last_used: Option<(u64, String)>,
}

impl RoleRecord {
    /// The role as `GetRole` answers: with tags, boundary and last use.
    pub(crate) fn wire(&self, scope: &Scope) -> Role {
        Role {
            path: self.path.clone(),
            role_name: self.name.clone(),
            role_id: self.id.clone(),
            arn: scope.arn("role", &self.path, &self.name),
            create_date: date(self.created),
            assume_role_policy_document: Some(crate::documents::url_encode(&self.trust_policy)),
            description: self.description.clone(),
            max_session_duration: Some(self.max_session_duration),
            permissions_boundary: wire_boundary(&self.boundary),
            tags: wire_tags(&self.tags),
            role_last_used: Some(RoleLastUsed {
                last_used_date: self.last_used.as_ref().map(|(at, _)| date(*at)),
                region: self.last_used.as_ref().map(|(_, region)| region.clone()),
            }),
        }
    }

    /// The role as `ListRoles` answers: AWS leaves out tags, the boundary and last use.
    pub(crate) fn listed(&self, scope: &Scope) -> Role {
        Role {
            tags: None,
            permissions_boundary: None,
            role_last_used: None,
            ..self.wire(scope)
        }
    }

    /// The role as `CreateRole` answers: AWS leaves out the session duration and last use.
    pub(crate) fn created(&self, scope: &Scope) -> Role {
        Role {
            max_session_duration: None,
            role_last_used: None,
            ..self.wire(scope)
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct InstanceProfileRecord {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) id: String,
    pub(crate) created: u64,
    pub(crate) tags: Tags,
    /// The keys of its roles (at most one).
    pub(crate) roles: Vec<String>,
}

impl InstanceProfileRecord {
    /// The profile with its roles as listings show them.
    pub(crate) fn wire(&self, scope: &Scope, roles: Vec<Role>) -> InstanceProfile {
        InstanceProfile {
            path: self.path.clone(),
            instance_profile_name: self.name.clone(),
            instance_profile_id: self.id.clone(),
            arn: scope.arn("instance-profile", &self.path, &self.name),
            create_date: date(self.created),
            roles,
            tags: wire_tags(&self.tags),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AccessKeyRecord {
    pub(crate) user: String,
    pub(crate) secret: String,
    pub(crate) active: bool,
    pub(crate) created: u64,
}

/// An SSH public key of a user (for CodeCommit), keyed by its `APKA…` id.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SshKeyRecord {
    pub(crate) user: String,
    pub(crate) body: String,
    pub(crate) fingerprint: String,
    pub(crate) active: bool,
    pub(crate) uploaded: u64,
}

/// A virtual MFA device, keyed by its serial number (its ARN).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct MfaDeviceRecord {
    /// The TOTP seed, base 32, as `Base32StringSeed` carries it.
    pub(crate) seed: String,
    pub(crate) tags: Tags,
    /// The key of the user it is enabled for, and since when.
    pub(crate) assigned: Option<(String, u64)>,
}

/// A SAML identity provider, keyed by its name.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SamlProviderRecord {
    pub(crate) uuid: String,
    pub(crate) metadata: String,
    pub(crate) tags: Tags,
    pub(crate) created: u64,
}

/// An OpenID Connect identity provider, keyed by its URL without the scheme.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct OidcProviderRecord {
    pub(crate) client_ids: Vec<String>,
    pub(crate) thumbprints: Vec<String>,
    pub(crate) tags: Tags,
    pub(crate) created: u64,
}

/// A service-specific credential (CodeCommit, Keyspaces) of a user.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ServiceCredentialRecord {
    pub(crate) user: String,
    pub(crate) service: String,
    pub(crate) password: String,
    pub(crate) active: bool,
    pub(crate) created: u64,
}

/// A customer managed policy and its versions.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PolicyRecord {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) id: String,
    pub(crate) created: u64,
    pub(crate) updated: u64,
    pub(crate) description: Option<String>,
    pub(crate) tags: Tags,
    /// Versions, oldest first.
    pub(crate) versions: Vec<VersionRecord>,
    pub(crate) default_version: u32,
    /// The number the next version gets (AWS never reuses one).
    pub(crate) next_version: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct VersionRecord {
    pub(crate) number: u32,
    pub(crate) document: String,
    pub(crate) created: u64,
}

/// Account-wide settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct AccountRecord {
    pub(crate) alias: Option<String>,
    pub(crate) password_policy: Option<PasswordPolicyRecord>,
    /// The last credential report: when it was generated, and its CSV.
    #[serde(default)]
    pub(crate) credential_report: Option<(u64, String)>,
    /// STS's global endpoint token version (`SetSecurityTokenServicePreferences`), 1 unless set.
    #[serde(default)]
    pub(crate) global_endpoint_token_version: Option<i32>,
    /// The issuer of outbound web identity tokens, once federation was enabled, and whether
    /// it is on.
    #[serde(default)]
    pub(crate) outbound_federation: Option<(String, bool)>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PasswordPolicyRecord {
    pub(crate) minimum_length: i32,
    pub(crate) require_symbols: bool,
    pub(crate) require_numbers: bool,
    pub(crate) require_uppercase: bool,
    pub(crate) require_lowercase: bool,
    pub(crate) allow_users_to_change: bool,
    pub(crate) max_age: Option<i32>,
    pub(crate) reuse_prevention: Option<i32>,
    pub(crate) hard_expiry: Option<bool>,
}

/// A server certificate: its body and chain as given (the private key is checked against it
/// and not kept: IAM never answers it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ServerCertificateRecord {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) id: String,
    pub(crate) uploaded: u64,
    /// The certificate's `notAfter`.
    pub(crate) expiration: u64,
    pub(crate) body: String,
    pub(crate) chain: Option<String>,
    pub(crate) tags: Tags,
}

/// A user's X.509 signing certificate.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SigningCertificateRecord {
    /// The key of its user.
    pub(crate) user: String,
    pub(crate) body: String,
    pub(crate) active: bool,
    pub(crate) uploaded: u64,
}

/// An entity a report names, as `EntityInfo` carries it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ReportEntity {
    arn: String,
    name: String,
    /// `USER`, `ROLE` or `GROUP`.
    kind: String,
    id: String,
    path: String,
}

impl ReportEntity {
    pub(crate) fn of<H: crate::store::Holder>(scope: &Scope, holder: &H) -> ReportEntity {
        ReportEntity {
            arn: scope.arn(H::KIND, holder.path(), holder.name()),
            name: holder.name().to_owned(),
            kind: H::KIND.to_ascii_uppercase(),
            id: holder.id().to_owned(),
            path: holder.path().to_owned(),
        }
    }

    pub(crate) fn wire(&self) -> stratus_gen_iam::EntityInfo {
        stratus_gen_iam::EntityInfo {
            arn: self.arn.clone(),
            name: self.name.clone(),
            r#type: match self.kind.as_str() {
                "USER" => stratus_gen_iam::PolicyOwnerEntityType::User,
                "ROLE" => stratus_gen_iam::PolicyOwnerEntityType::Role,
                _ => stratus_gen_iam::PolicyOwnerEntityType::Group,
            },
            id: self.id.clone(),
            path: Some(self.path.clone()),
        }
    }
}

/// A report of the services an entity's policies grant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AccessReportRecord {
    pub(crate) created: u64,
    pub(crate) action_level: bool,
    /// The namespaces granted, sorted.
    pub(crate) services: Vec<String>,
    /// The users, groups and roles the report is of (a policy's: those it is attached to).
    pub(crate) entities: Vec<ReportEntity>,
}
