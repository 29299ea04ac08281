//! Why a policy document was refused. Each variant's text is the message IAM returns with
//! `MalformedPolicyDocument` (and S3, SQS and others with their own codes) for that fault.

/// A policy document IAM would refuse; [`Display`](std::fmt::Display) is AWS's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// Not JSON, or JSON of the wrong shape (a number where a string belongs, a key given
    /// twice, `Action` beside `NotAction`).
    #[error("Syntax errors in policy.")]
    Syntax,
    /// An unknown `Version`, or an `Effect` other than `Allow` or `Deny` (case matters): AWS
    /// hands such documents to its legacy parser, which refuses them (hashicorp/terraform#10057
    /// shows `"Effect": "allow"` refused so).
    #[error("The policy failed legacy parsing")]
    LegacyParsing,
    /// A key the grammar does not know, at the top or in a statement.
    #[error("Unknown field {0}")]
    UnknownField(String),
    /// A required element is absent (`Statement`, `Effect`, or `Principal` where the kind of
    /// policy needs one).
    #[error("Missing required field {0}")]
    MissingField(&'static str),
    /// `Principal` or `NotPrincipal` in a policy attached to an identity.
    #[error("Policy document should not specify a principal.")]
    PrincipalNotAllowed,
    /// `Resource` or `NotResource` in a role's trust policy.
    #[error("Has prohibited field {0}")]
    ProhibitedField(&'static str),
    /// A statement without `Action` or `NotAction`, or with an empty list.
    #[error("Policy statement must contain actions.")]
    MissingActions,
    /// A statement without `Resource` or `NotResource`, or with an empty list.
    #[error("Policy statement must contain resources.")]
    MissingResources,
    /// An action or condition key without its `service:` prefix.
    #[error("Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.")]
    MissingVendor,
    /// A principal that is not `*`, an account ID or an ARN, or a principal type AWS lacks.
    #[error("Invalid principal in policy")]
    InvalidPrincipal,
    /// A resource that is neither `*` nor an ARN.
    #[error("Resource {0} must be in ARN format or \"*\".")]
    ResourceNotArn(String),
    /// An IAM ARN that names a region (IAM is global), in an IAM policy.
    #[error("IAM resource {0} cannot contain region information.")]
    IamResourceWithRegion(String),
    /// An operator AWS does not have.
    #[error("Invalid Condition type : {0}")]
    InvalidConditionType(String),
    /// Two statements with one `Sid`.
    #[error("Statement IDs (SID) in a single policy must be unique.")]
    DuplicateSid,
    /// A `Sid` with characters IAM refuses (IAM's own policies only; S3 and SQS accept more).
    #[error("Statement IDs (SID) must be alpha-numeric. Check that your input satisfies the regular expression [0-9A-Za-z]*")]
    SidNotAlphanumeric,
}
