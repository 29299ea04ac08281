//! Errors a service answers with: modelled error structures, and AWS's common errors that no
//! model lists (not implemented, internal failure, validation, throttling, …).

use crate::schema::{Fault, Member, Shape};
use crate::value::{ConvertError, Value};

/// An AWS error that is not a modelled error structure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct AwsError {
    /// The error code, e.g. `ValidationException`.
    pub code: String,
    /// The human-readable message, as AWS words it.
    pub message: String,
    /// The HTTP status the answer carries.
    pub http_status: u16,
    /// Whether the caller or the service is at fault (Query protocols write it as `Type`:
    /// `Sender` or `Receiver`).
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
        /// The error structure, one of the operation's (or the service's) `errors`.
        shape: &'static Shape,
        /// Its value, a [`Value::Struct`] of `shape`.
        value: Value,
    },
    /// An error no model lists.
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

impl OperationError {
    /// `e` as the operation's modelled error of the same code, when one of `errors` (the
    /// operation's modelled errors) has it — by shape name or `@awsQueryError` code — with the
    /// same status, and has a message member and no other required one, so SDKs raise their
    /// typed exception and Query clients read the error's Query code. Anything else stays
    /// `e`: an error shape without a message member would lose the message (S3's are all
    /// so), and headers or document details have no place in a modelled error.
    pub fn promote(e: AwsError, errors: &[&'static Shape]) -> OperationError {
        if !e.headers.is_empty() || !e.details.is_empty() {
            return OperationError::Aws(e);
        }
        let matches = |shape: &&&'static Shape| {
            let info = shape.error;
            let query = info.and_then(|i| i.query_error);
            (shape.name == e.code && info.map_or(400, |i| i.http_status) == e.http_status)
                || query.is_some_and(|(code, status)| code == e.code && status == e.http_status)
        };
        let Some(shape) = errors.iter().find(matches) else {
            return OperationError::Aws(e);
        };
        let is_message = |member: &Member| member.name.eq_ignore_ascii_case("message");
        if !shape.members.iter().any(is_message) || shape.members.iter().any(|m| m.required && !is_message(m)) {
            return OperationError::Aws(e);
        }
        let slots = shape
            .members
            .iter()
            .map(|member| is_message(member).then(|| Value::String(e.message.clone())))
            .collect();
        OperationError::Modeled {
            shape,
            value: Value::Struct(slots),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude_shapes::STRING;
    use crate::schema::{ErrorInfo, ShapeType};

    static NOT_FOUND: Shape = Shape {
        members: &[Member::plain("message", &STRING)],
        error: Some(ErrorInfo {
            fault: Fault::Client,
            http_status: 400,
            query_error: Some(("AWS.Service.NotFound", 404)),
        }),
        ..Shape::simple("NotFoundException", ShapeType::Structure)
    };

    /// As S3 models its errors: no members at all.
    static NO_SUCH_BUCKET: Shape = Shape {
        error: Some(ErrorInfo {
            fault: Fault::Client,
            http_status: 404,
            query_error: None,
        }),
        ..Shape::simple("NoSuchBucket", ShapeType::Structure)
    };

    fn modelled_shape(error: &OperationError) -> Option<&'static str> {
        match error {
            OperationError::Modeled { shape, .. } => Some(shape.name),
            OperationError::Aws(_) => None,
        }
    }

    #[test]
    fn common_errors_of_a_modelled_code_become_the_modelled_error() {
        let promoted = OperationError::promote(AwsError::new("NotFoundException", "gone", 400), &[&NOT_FOUND]);
        assert_eq!(modelled_shape(&promoted), Some("NotFoundException"));
        assert_eq!(promoted.message(), "gone");
        let by_query_code = OperationError::promote(AwsError::new("AWS.Service.NotFound", "gone", 404), &[&NOT_FOUND]);
        assert_eq!(modelled_shape(&by_query_code), Some("NotFoundException"));
    }

    #[test]
    fn other_codes_statuses_and_decorated_errors_stay_common() {
        let errors: &[&'static Shape] = &[&NOT_FOUND];
        for kept in [
            AwsError::new("ValidationException", "bad", 400),
            AwsError::new("NotFoundException", "other status", 404),
            AwsError::new("NotFoundException", "gone", 400).with_header("x-amz-delete-marker", "true"),
            AwsError::new("NotFoundException", "gone", 400).with_detail("Resource", "/b"),
        ] {
            assert_eq!(modelled_shape(&OperationError::promote(kept, errors)), None);
        }
        assert_eq!(
            modelled_shape(&OperationError::promote(
                AwsError::new("NotFoundException", "x", 400),
                &[]
            )),
            None
        );
        let memberless = OperationError::promote(AwsError::new("NoSuchBucket", "gone", 404), &[&NO_SUCH_BUCKET]);
        assert_eq!(memberless.message(), "gone");
    }
}
