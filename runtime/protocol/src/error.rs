//! Requests a protocol cannot read, and the AWS errors that answer them.

use stratus_core::schema::Protocol;
use stratus_core::AwsError;

/// A request that fails before it reaches the service: it names no operation the service
/// has, or its parts do not parse as the operation's input.
///
/// Each variant answers with the error AWS gives for it under the request's protocol
/// ([`ProtocolError::to_aws_error`]):
///
/// | variant | JSON, CBOR | restXml | Query |
/// |---|---|---|---|
/// | `UnknownOperation` | `UnknownOperationException` (awsJson 400, REST/rpcv2 404) | `UnknownOperationException` 404 | `InvalidAction` 400 |
/// | `MissingAction` | — | — | `MissingAction` 400 |
/// | `ActionNotValidHere` | — | — | `InvalidAction` 400 ("…for this endpoint.", SQS) |
/// | `NoActionAtQueue` | — | — | a bare `<UnknownOperationException/>` 404 (SQS) |
/// | `MalformedBody` | `SerializationException` 400 | `MalformedXML` 400 | `MalformedQueryString` 404 |
/// | `MalformedParameter` | `SerializationException` 400 | `InvalidArgument` 400 | `InvalidQueryParameter` 400 |
/// | `UnsupportedMediaType` | `UnsupportedMediaTypeException` 415 | same | same |
/// | `NotAcceptable` | `NotAcceptableException` 406 | same | same |
///
/// Sources: the Query codes and statuses are AWS's list of common errors
/// (awsdocs, e.g. `doc_source/CommonErrors.md` of the Lambda and GuardDuty guides:
/// `InvalidAction` 400, `MissingAction` 400, `InvalidQueryParameter` 400,
/// `MalformedQueryString` 404); DynamoDB answers an unknown `X-Amz-Target` with
/// `UnknownOperationException` and 400; the Smithy server frameworks answer an unroutable REST
/// or rpcv2 request with `UnknownOperationException` 404, an unreadable body with
/// `SerializationException` 400 and a wrong `Content-Type` with
/// `UnsupportedMediaTypeException` 415, an `Accept` they cannot satisfy with
/// `NotAcceptableException` 406 (smithy-typescript's server `$frameworkError`s,
/// smithy-rs `aws-smithy-http-server` `RuntimeError`); S3 answers XML it cannot read with
/// `MalformedXML` and a bad header or parameter value with `InvalidArgument`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The request names no operation of the service (or names one it does not have).
    #[error("{protocol:?} request names no known operation ({name:?})")]
    UnknownOperation {
        /// The protocol the request was read as.
        protocol: Protocol,
        /// What it named: its `X-Amz-Target` or `Action`, its rpcv2 path, or a REST request's
        /// method and path.
        name: String,
    },
    /// A Query request without an `Action` parameter.
    #[error("the request has no Action parameter")]
    MissingAction,
    /// A Query request to a queue's URL naming an action that takes no queue, or none the
    /// service has (SQS's `InvalidAction` "The action X is not valid for this endpoint.").
    #[error("the action {name:?} is not valid at a queue's URL")]
    ActionNotValidHere {
        /// The action named.
        name: String,
    },
    /// A request to a queue's URL with no action at all: SQS's bare
    /// `<UnknownOperationException/>`, 404.
    #[error("a request to a queue's URL names no action")]
    NoActionAtQueue,
    /// The body is not well-formed, or not of the input's shape.
    #[error("malformed {protocol:?} body: {message}")]
    MalformedBody {
        /// The protocol the body was read as.
        protocol: Protocol,
        /// What is wrong with it, and where.
        message: String,
    },
    /// A header, label or query parameter does not parse as its member's type.
    #[error("malformed {protocol:?} parameter {name}: {message}")]
    MalformedParameter {
        /// The protocol the request was read as.
        protocol: Protocol,
        /// The header, label or query parameter, as the request spells it.
        name: String,
        /// Why its value does not parse.
        message: String,
    },
    /// The body comes with a `Content-Type` the protocol does not read.
    #[error("unsupported media type {found:?}; expected {expected}")]
    UnsupportedMediaType {
        /// The media type the protocol reads, e.g. `application/cbor`.
        expected: &'static str,
        /// The request's `Content-Type`, as sent.
        found: String,
    },
    /// The request's `Accept` excludes the media type of the operation's response.
    #[error("cannot answer {found:?}; the response is {expected}")]
    NotAcceptable {
        /// The media type of the operation's response.
        expected: &'static str,
        /// The request's `Accept`, as sent.
        found: String,
    },
}

impl ProtocolError {
    /// The AWS error this protocol answers with.
    pub fn to_aws_error(&self) -> AwsError {
        use Protocol::*;
        match self {
            ProtocolError::UnknownOperation { protocol, name } => match protocol {
                AwsQuery | Ec2Query => AwsError::new(
                    "InvalidAction",
                    format!("The action {name} is not valid for this web service."),
                    400,
                ),
                AwsJson1_0 | AwsJson1_1 => AwsError::new(
                    "UnknownOperationException",
                    format!("Unknown operation {name}"),
                    400,
                ),
                RestJson1 | RestXml | RpcV2Cbor => AwsError::new(
                    "UnknownOperationException",
                    format!("Unknown operation {name}"),
                    404,
                ),
            },
            ProtocolError::MissingAction => AwsError::new("MissingAction", "Missing Action", 400),
            ProtocolError::ActionNotValidHere { name } => AwsError::new(
                "InvalidAction",
                format!("The action {name} is not valid for this endpoint."),
                400,
            ),
            ProtocolError::NoActionAtQueue => AwsError::new("UnknownOperationException", "", 404),
            ProtocolError::MalformedBody { protocol, message } => match protocol {
                AwsQuery | Ec2Query => AwsError::new("MalformedQueryString", message.clone(), 404),
                RestXml => AwsError::new(
                    "MalformedXML",
                    format!(
                        "The XML you provided was not well-formed or did not validate against our published schema: {message}"
                    ),
                    400,
                ),
                AwsJson1_0 | AwsJson1_1 | RestJson1 | RpcV2Cbor => {
                    AwsError::new("SerializationException", message.clone(), 400)
                }
            },
            ProtocolError::MalformedParameter { protocol, name, message } => {
                let message = format!("Invalid value for {name}: {message}");
                match protocol {
                    AwsQuery | Ec2Query => AwsError::new("InvalidQueryParameter", message, 400),
                    RestXml => AwsError::new("InvalidArgument", message, 400),
                    AwsJson1_0 | AwsJson1_1 | RestJson1 | RpcV2Cbor => {
                        AwsError::new("SerializationException", message, 400)
                    }
                }
            }
            ProtocolError::UnsupportedMediaType { expected, found } => AwsError::new(
                "UnsupportedMediaTypeException",
                format!("Unsupported Content-Type {found:?}; this operation reads {expected}"),
                415,
            ),
            ProtocolError::NotAcceptable { expected, found } => AwsError::new(
                "NotAcceptableException",
                format!("Cannot satisfy Accept {found:?}; this operation answers {expected}"),
                406,
            ),
        }
    }
}

impl From<ProtocolError> for AwsError {
    fn from(e: ProtocolError) -> AwsError {
        e.to_aws_error()
    }
}

impl From<ProtocolError> for stratus_core::OperationError {
    fn from(e: ProtocolError) -> stratus_core::OperationError {
        stratus_core::OperationError::Aws(e.to_aws_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_protocol_answers_with_its_own_code() {
        let unknown = |protocol| {
            ProtocolError::UnknownOperation {
                protocol,
                name: "Nope".into(),
            }
            .to_aws_error()
        };
        assert_eq!(
            (
                unknown(Protocol::AwsQuery).code.as_str(),
                unknown(Protocol::AwsQuery).http_status
            ),
            ("InvalidAction", 400)
        );
        assert_eq!(unknown(Protocol::AwsJson1_0).http_status, 400);
        assert_eq!(unknown(Protocol::RestJson1).http_status, 404);
        let body = |protocol| {
            AwsError::from(ProtocolError::MalformedBody {
                protocol,
                message: "bad".into(),
            })
            .code
        };
        assert_eq!(body(Protocol::AwsJson1_1), "SerializationException");
        assert_eq!(body(Protocol::RestXml), "MalformedXML");
        assert_eq!(body(Protocol::AwsQuery), "MalformedQueryString");
        assert_eq!(AwsError::from(ProtocolError::MissingAction).code, "MissingAction");
    }
}
