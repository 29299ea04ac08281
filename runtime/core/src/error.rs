//! Errors a service answers with: modelled error structures, and AWS's common errors that no
//! model lists (not implemented, internal failure, validation, throttling, …).

use crate::schema::{Fault, Shape};
use crate::value::{ConvertError, Value};

/// An AWS error that is not a modelled error structure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct AwsError {
    /// The error code, e.g. `ValidationException`.
    pub code: String,
    pub message: String,
    pub http_status: u16,
    pub fault: Fault,
    /// Headers the answer carries besides the protocol's own (S3's `x-amz-delete-marker` on
    /// the 404 for a deleted key).
    pub headers: Vec<(&'static str, String)>,
    /// Elements an XML error document carries after its message (S3's `Method` and
    /// `ResourceType` on a refused CORS preflight). A boxed slice, not a `Vec`: errors travel
    /// in `Result`s everywhere, and few have details.
    pub details: Box<[(&'static str, String)]>,
}

impl AwsError {
    /// An error with a code, message and status; 5xx statuses are the service's fault.
    pub fn new(code: impl Into<String>, message: impl Into<String>, http_status: u16) -> AwsError {
        AwsError {
            code: code.into(),
            message: message.into(),
            http_status,
            fault: if http_status >= 500 {
                Fault::Server
            } else {
                Fault::Client
            },
            headers: Vec::new(),
            details: Box::default(),
        }
    }

    /// The same error, answered with header `name: value` too.
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> AwsError {
        self.headers.push((name, value.into()));
        self
    }

    /// The same error, with element `name` holding `value` in its XML document.
    pub fn with_detail(mut self, name: &'static str, value: impl Into<String>) -> AwsError {
        let mut details = std::mem::take(&mut self.details).into_vec();
        details.push((name, value.into()));
        self.details = details.into_boxed_slice();
        self
    }

    /// The answer for an operation Stratus does not implement (yet).
    pub fn not_implemented(operation: &str) -> AwsError {
        AwsError::new(
            "NotImplemented",
            format!("The operation {operation} is not implemented by Stratus"),
            501,
        )
    }

    /// AWS's answer for a failure inside the service.
    pub fn internal(message: impl Into<String>) -> AwsError {
        AwsError::new("InternalFailure", message, 500)
    }
}

/// Everything an operation can fail with, ready for a protocol to encode.
#[derive(Debug, Clone, PartialEq)]
pub enum OperationError {
    /// A modelled error structure and its value.
    Modeled {
        shape: &'static Shape,
        value: Value,
    },
    Aws(AwsError),
}

impl OperationError {
    /// The error code: the modelled shape's name or the AWS error's code.
    pub fn code(&self) -> &str {
        match self {
            OperationError::Modeled { shape, .. } => shape.name,
            OperationError::Aws(e) => &e.code,
        }
    }

    /// The HTTP status the error is answered with.
    pub fn http_status(&self) -> u16 {
        match self {
            OperationError::Modeled { shape, .. } => shape.error.map_or(400, |e| e.http_status),
            OperationError::Aws(e) => e.http_status,
        }
    }

    /// The error's message: a modelled error's `message` (or `Message`) member.
    pub fn message(&self) -> &str {
        match self {
            OperationError::Modeled {
                shape,
                value: Value::Struct(slots),
            } => shape
                .members
                .iter()
                .zip(slots)
                .find_map(|(m, v)| match v {
                    Some(Value::String(s)) if m.name.eq_ignore_ascii_case("message") => Some(s.as_str()),
                    _ => None,
                })
                .unwrap_or_default(),
            OperationError::Modeled { .. } => "",
            OperationError::Aws(e) => &e.message,
        }
    }
}

impl From<AwsError> for OperationError {
    fn from(e: AwsError) -> OperationError {
        OperationError::Aws(e)
    }
}

/// A value that does not fit its typed model is a bug in Stratus, answered as an internal error.
impl From<ConvertError> for OperationError {
    fn from(e: ConvertError) -> OperationError {
        OperationError::Aws(AwsError::internal(format!("request did not fit its model: {e}")))
    }
}
