//! What a service handler knows about the request it is serving.

/// The request's account, region and identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestContext {
    pub account_id: String,
    pub region: String,
    pub request_id: String,
    /// The access key id the request was signed with, if it was signed.
    pub access_key_id: Option<String>,
    /// The `Host` the client addressed (`127.0.0.1:4566`), so that URLs a service returns (SQS
    /// queue URLs) work as given.
    pub host: Option<String>,
}
