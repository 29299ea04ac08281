//! What the `lambda` store keeps: one [`FunctionRecord`] per function, holding its
//! `$LATEST` configuration, its published versions, aliases, policies and per-qualifier
//! configurations, so that every operation reads and writes one record.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The code of one version: a zip kept as a blob of the store (named by its SHA-256), or an
/// image URI.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct CodeRecord {
    /// `CodeSha256`: base64 of the zip's SHA-256 (of the image manifest for images).
    pub(crate) sha256: String,
    /// `CodeSize`, in bytes.
    pub(crate) size: u64,
    /// Bytes once unpacked (Lambda's 250 MB limit, with layers).
    pub(crate) unzipped_size: u64,
    /// The blob holding the zip; `None` for an image.
    pub(crate) blob: Option<String>,
    /// `ImageUri`, for `PackageType: Image`.
    pub(crate) image_uri: Option<String>,
    /// `SourceKMSKeyArn`.
    pub(crate) source_kms_key_arn: Option<String>,
}

/// A layer version a function uses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct LayerUse {
    pub(crate) arn: String,
    pub(crate) code_size: u64,
    pub(crate) unzipped_size: u64,
    pub(crate) sha256: String,
    pub(crate) blob: String,
}

/// `LoggingConfig`, defaults applied.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Logging {
    pub(crate) log_format: String,
    pub(crate) application_log_level: Option<String>,
    pub(crate) system_log_level: Option<String>,
    pub(crate) log_group: String,
}

/// `VpcConfig`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Vpc {
    pub(crate) subnet_ids: Vec<String>,
    pub(crate) security_group_ids: Vec<String>,
    pub(crate) ipv6_allowed_for_dual_stack: Option<bool>,
}

/// `ImageConfig`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Image {
    pub(crate) entry_point: Option<Vec<String>>,
    pub(crate) command: Option<Vec<String>>,
    pub(crate) working_directory: Option<String>,
}

/// How a configuration change is still settling, as AWS reports it right after a write:
/// the write's answer shows `Pending` (create) or `InProgress` (update), every later read the
/// settled state, with the revision id the settling gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Settling {
    Creating,
    Updating,
}

/// One version's configuration: `$LATEST` (editable) or a published, frozen one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct VersionConfig {
    /// `$LATEST` or the version number.
    pub(crate) version: String,
    pub(crate) description: String,
    pub(crate) runtime: Option<String>,
    pub(crate) role: String,
    pub(crate) handler: Option<String>,
    pub(crate) timeout: i32,
    pub(crate) memory_size: i32,
    /// `Zip` or `Image`.
    pub(crate) package_type: String,
    pub(crate) code: CodeRecord,
    pub(crate) environment: Option<BTreeMap<String, String>>,
    pub(crate) dead_letter_target: Option<String>,
    pub(crate) kms_key_arn: Option<String>,
    pub(crate) tracing_mode: String,
    pub(crate) layers: Vec<LayerUse>,
    pub(crate) file_systems: Vec<(String, String)>,
    pub(crate) architectures: Vec<String>,
    pub(crate) ephemeral_storage: i32,
    pub(crate) snap_start: String,
    pub(crate) logging: Logging,
    pub(crate) vpc: Option<Vpc>,
    pub(crate) image: Option<Image>,
    /// `LastModified`, as AWS writes it (`2024-05-01T12:00:00.000+0000`).
    pub(crate) last_modified: String,
    pub(crate) revision_id: String,
    /// The revision id once settled (see [`Settling`]).
    pub(crate) settled_revision_id: String,
    pub(crate) settling: Option<Settling>,
}

impl VersionConfig {
    /// The configuration as every read after its write sees it.
    pub(crate) fn settle(&mut self) {
        if self.settling.take().is_some() {
            self.revision_id = self.settled_revision_id.clone();
        }
    }
}

/// An alias.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct AliasRecord {
    pub(crate) name: String,
    pub(crate) function_version: String,
    pub(crate) description: String,
    /// `RoutingConfig.AdditionalVersionWeights`.
    pub(crate) weights: BTreeMap<String, f64>,
    pub(crate) revision_id: String,
}

/// A resource policy: statements as JSON objects, in the order they were added.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct PolicyRecord {
    pub(crate) statements: Vec<serde_json::Value>,
    pub(crate) revision_id: String,
}

/// `FunctionEventInvokeConfig` of one qualifier.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct EventInvokeRecord {
    pub(crate) maximum_retry_attempts: Option<i32>,
    pub(crate) maximum_event_age_in_seconds: Option<i32>,
    pub(crate) on_success: Option<String>,
    pub(crate) on_failure: Option<String>,
    /// Seconds since the epoch.
    pub(crate) last_modified: f64,
}

/// A function URL's configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct UrlRecord {
    pub(crate) url_id: String,
    pub(crate) auth_type: String,
    pub(crate) invoke_mode: String,
    /// `Cors`, as its JSON form.
    pub(crate) cors: Option<CorsRecord>,
    pub(crate) creation_time: String,
    pub(crate) last_modified_time: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct CorsRecord {
    pub(crate) allow_credentials: Option<bool>,
    pub(crate) allow_headers: Option<Vec<String>>,
    pub(crate) allow_methods: Option<Vec<String>>,
    pub(crate) allow_origins: Option<Vec<String>>,
    pub(crate) expose_headers: Option<Vec<String>>,
    pub(crate) max_age: Option<i32>,
}

/// A provisioned concurrency configuration of one qualifier.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ProvisionedRecord {
    pub(crate) requested: i32,
    pub(crate) last_modified: String,
}

/// A function: `$LATEST`, its published versions and everything configured on it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct FunctionRecord {
    pub(crate) name: String,
    pub(crate) latest: VersionConfig,
    /// Published versions by number.
    pub(crate) versions: BTreeMap<u64, VersionConfig>,
    /// The last version number handed out (numbers are never reused).
    pub(crate) last_version: u64,
    pub(crate) aliases: BTreeMap<String, AliasRecord>,
    pub(crate) tags: BTreeMap<String, String>,
    pub(crate) reserved_concurrency: Option<i32>,
    /// Resource policies by qualifier (`""` for the unqualified function).
    pub(crate) policies: BTreeMap<String, PolicyRecord>,
    pub(crate) event_invoke: BTreeMap<String, EventInvokeRecord>,
    pub(crate) urls: BTreeMap<String, UrlRecord>,
    pub(crate) provisioned: BTreeMap<String, ProvisionedRecord>,
    pub(crate) code_signing_config_arn: Option<String>,
    /// `RecursiveLoop`: `Terminate` unless set.
    pub(crate) recursive_loop: Option<String>,
    /// `UpdateRuntimeOn` and `RuntimeVersionArn`, by qualifier.
    pub(crate) runtime_management: BTreeMap<String, (String, Option<String>)>,
}

impl FunctionRecord {
    /// The record as reads see it: every settling configuration settled.
    pub(crate) fn settled(mut self) -> FunctionRecord {
        self.latest.settle();
        for v in self.versions.values_mut() {
            v.settle();
        }
        self
    }
}

/// A layer version.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct LayerVersionRecord {
    pub(crate) name: String,
    pub(crate) version: u64,
    pub(crate) description: String,
    pub(crate) created: String,
    pub(crate) compatible_runtimes: Vec<String>,
    pub(crate) compatible_architectures: Vec<String>,
    pub(crate) license_info: Option<String>,
    pub(crate) code: CodeRecord,
    pub(crate) policy: PolicyRecord,
}

/// An invocation queued by `InvocationType: Event`, until it has run or given up (the
/// outbox keeps its attempts and due time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct QueuedInvocation {
    pub(crate) id: String,
    pub(crate) function: String,
    pub(crate) qualifier: Option<String>,
    pub(crate) payload: Vec<u8>,
}

/// A code signing configuration (stored only: code is not checked against it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct CodeSigningRecord {
    pub(crate) id: String,
    pub(crate) description: String,
    pub(crate) signing_profile_version_arns: Vec<String>,
    pub(crate) untrusted_artifact_on_deployment: String,
    pub(crate) last_modified: String,
}
