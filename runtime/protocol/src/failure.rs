//! What every protocol needs to know about an [`OperationError`] to encode it: code, message,
//! status and fault, in the plain and in the Query flavour, and the modelled value if any.

use stratus_core::schema::{Fault, Shape, ShapeType};
use stratus_core::{OperationError, Value};

/// An error taken apart for encoding.
pub(crate) struct Failure<'e> {
    /// The shape name of a modelled error, else the common error's code.
    pub code: &'e str,
    /// The namespace a common error's JSON `__type` names instead of the service's, when
    /// its code was given as `namespace#Code`: the errors of AWS's request front end
    /// (`com.amazon.coral.service#UnrecognizedClientException`) are not the service's own.
    pub namespace: Option<&'e str>,
    /// `@awsQueryError`'s code where the shape has one, else `code`.
    pub query_code: &'e str,
    pub message: Option<&'e str>,
    pub status: u16,
    /// `@awsQueryError`'s status where the shape has one, else `status`.
    pub query_status: u16,
    pub fault: Fault,
    /// The modelled error structure and its value.
    pub modeled: Option<(&'static Shape, &'e Value)>,
    /// A common error's further elements, for XML documents.
    pub details: &'e [(&'static str, String)],
}

impl<'e> Failure<'e> {
    pub(crate) fn of(error: &'e OperationError) -> Failure<'e> {
        match error {
            OperationError::Aws(e) => {
                let (namespace, code) = match e.code.split_once('#') {
                    Some((namespace, code)) => (Some(namespace), code),
                    None => (None, e.code.as_str()),
                };
                Failure {
                    code,
                    namespace,
                    query_code: code,
                    message: Some(&e.message),
                    status: e.http_status,
                    query_status: e.http_status,
                    fault: e.fault,
                    modeled: None,
                    details: &e.details,
                }
            }
            OperationError::Modeled { shape, value } => {
                let info = shape.error;
                let status = info.map_or(400, |i| i.http_status);
                let query = info.and_then(|i| i.query_error);
                Failure {
                    code: shape.name,
                    namespace: None,
                    query_code: query.map_or(shape.name, |(code, _)| code),
                    message: message_of(shape, value),
                    status,
                    query_status: query.map_or(status, |(_, status)| status),
                    fault: info.map_or(Fault::Client, |i| i.fault),
                    modeled: Some((shape, value)),
                    details: &[],
                }
            }
        }
    }

    /// The name a query-compatible service's JSON answer gives a common error its Query
    /// answer (and the `x-amzn-query-error` header) calls `query_code`. As recorded from SQS:
    /// `InvalidParameterValue` is `InvalidParameterValueException` and `MissingParameter`
    /// `MissingRequiredParameterException` in JSON; modelled errors keep their shape names.
    pub(crate) fn query_compatible_json_code(&self) -> &'e str {
        match (self.modeled, self.code) {
            (None, "InvalidParameterValue") => "InvalidParameterValueException",
            (None, "MissingParameter") => "MissingRequiredParameterException",
            _ => self.code,
        }
    }

    /// The JSON `__type`: the code in its namespace (the service's unless the error names one).
    pub(crate) fn qualified_type(&self, service_namespace: &str) -> String {
        format!("{}#{}", self.namespace.unwrap_or(service_namespace), self.code)
    }

    /// `Sender` for the caller's faults, `Receiver` for the service's (Query's `<Type>`).
    pub(crate) fn sender_or_receiver(&self) -> &'static str {
        match self.fault {
            Fault::Client => "Sender",
            Fault::Server => "Receiver",
        }
    }
}

/// The index of a structure's `message` member, however it is capitalised.
pub(crate) fn message_index(shape: &Shape) -> Option<usize> {
    shape
        .members
        .iter()
        .position(|m| m.name.eq_ignore_ascii_case("message") && m.target.kind == ShapeType::String)
}

fn message_of<'e>(shape: &Shape, value: &'e Value) -> Option<&'e str> {
    match (message_index(shape), value) {
        (Some(i), Value::Struct(slots)) => match slots.get(i) {
            Some(Some(Value::String(s))) => Some(s),
            _ => None,
        },
        _ => None,
    }
}
