//! `models/manifest.toml`: which model files are pinned, by hash, and per-service settings
//! the models do not carry (extra protocols, the validation error).

use std::path::Path;

use serde::Deserialize;

use crate::Error;

/// The whole manifest.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub service: Vec<ServiceEntry>,
}

/// One pinned service model.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceEntry {
    /// The lowercased, hyphenated sdkId: the model's file stem and the generated crate's directory.
    pub sdk_id: String,
    pub model: String,
    pub sha256: String,
    pub protocols: Vec<String>,
    pub validation: Validation,
    /// The absolute id of the service shape to generate, for a model holding several (the
    /// protocol compliance test models); `None` takes the model's only service.
    #[serde(default)]
    pub service: Option<String>,
    /// The XML namespace AWS answers the Query protocol in, for a model that does not say
    /// (SQS answers in `http://queue.amazonaws.com/doc/2012-11-05/`).
    #[serde(default)]
    pub xml_namespace: Option<String>,
    /// Whether answers are in S3's envelope: a host id (`x-amz-id-2`) beside `x-amz-request-id`
    /// (and no `x-amzn-RequestId`), `Server: AmazonS3`, and XML documents with a declaration.
    #[serde(default)]
    pub s3_envelope: bool,
    /// Operations the service answers with another status than the model's `@http` code
    /// (S3's PutBucketPolicy: 204, not 200).
    #[serde(default)]
    pub answer_statuses: std::collections::BTreeMap<String, u16>,
    /// Operations whose flattened `Versions` and `DeleteMarkers` lists are one sequence in
    /// listing order on the wire (S3's ListObjectVersions), which no model trait says.
    #[serde(default)]
    pub interleaved_versions: Vec<String>,
    /// Output members, as `Operation.Member`, that the service leaves out of its answers while
    /// they hold their `@default`, though the model requires them (IAM's
    /// `ListServiceSpecificCredentials.IsTruncated`).
    #[serde(default)]
    pub omitted_default_members: Vec<String>,
    /// Whether the service's Query error documents carry an empty `<Detail/>` (SQS's do).
    #[serde(default)]
    pub query_error_detail: bool,
    /// Messages modelled errors are worded with over the Query protocol, by error shape
    /// (SQS's QueueDoesNotExist says "…for this wsdl version." there).
    #[serde(default)]
    pub query_error_messages: std::collections::BTreeMap<String, String>,
    /// Whether Stratus has not written the service yet: its crate then holds only the schema,
    /// which is all that routing, validation and the not-implemented answer need, and none of
    /// the typed code (inputs, outputs, errors, the service trait) a written service compiles.
    #[serde(default)]
    pub schema_only: bool,
}

/// The error a service answers for a constraint violation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Validation {
    pub code: String,
    pub status: u16,
    /// A different code when the only problem is a missing required member.
    #[serde(default)]
    pub missing_code: Option<String>,
    /// Whether paths start at `<operation>Input` (API Gateway).
    #[serde(default)]
    pub path_from_input: bool,
    /// Whether the service leaves string enum values to its operations instead of
    /// answering them as constraint violations (SQS refuses an unknown attribute name with
    /// `InvalidAttributeName`, and accepts ReceiveMessage's legacy `AttributeNames`).
    #[serde(default)]
    pub open_enums: bool,
    /// Whether pattern violations quote the pattern without the model's outer `^…$`
    /// (DynamoDB, STS and Lambda do; EventBridge does not).
    #[serde(default)]
    pub unanchored_patterns: bool,
    /// Whether patterns match anywhere in the value, as Smithy specifies, rather than the
    /// whole value: CloudWatch's `Namespace` pattern `^[^:]` means "does not start with
    /// `:`", and AWS accepts `AWS/EC2`.
    #[serde(default)]
    pub search_patterns: bool,
    /// Whether the model's `pattern` traits go unchecked, the service refusing bad values in
    /// its own words (S3: a copy source without a `/` is `InvalidArgument` "Invalid copy
    /// source object key", never a validation error).
    #[serde(default)]
    pub unchecked_patterns: bool,
    /// Whether a lone missing top-level member is worded "The request must contain the
    /// parameter `Name`." (SQS), not as a constraint violation.
    #[serde(default)]
    pub missing_parameter_message: bool,
}

impl Manifest {
    pub fn load(path: &Path) -> Result<Manifest, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        toml::from_str(&text).map_err(|e| Error::Manifest(format!("{}: {e}", path.display())))
    }
}
