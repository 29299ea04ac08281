//! Event streams (`application/vnd.amazon.eventstream`) in the JSON protocols: an operation
//! whose output has a `@streaming` union member answers `200` with that content type and no
//! length, and its body is a sequence of binary event-stream messages (AWS's framing: total
//! and header lengths, a prelude CRC, typed headers, the payload and a message CRC), written by
//! [`aws_smithy_eventstream`].
//!
//! The service writes the body as a streamed response: first [`initial_response`] (the output's
//! other members; Kinesis's SubscribeToShard has none), then one [`message`] per event of the
//! union — an `event` named by its member, or an `exception` for a member that is an error
//! shape, after which the stream ends.
//!
//! ```
//! use stratus_core::prelude_shapes::STRING;
//! use stratus_core::schema::{Member, Shape, ShapeType};
//! use stratus_core::Value;
//! use stratus_protocol::event_stream::message;
//!
//! static EVENT: Shape = Shape {
//!     members: &[Member::plain("Text", &STRING)],
//!     ..Shape::simple("Said", ShapeType::Structure)
//! };
//! static EVENTS: Shape = Shape {
//!     members: &[Member::plain("Said", &EVENT)],
//!     streaming: true,
//!     ..Shape::simple("Events", ShapeType::Union)
//! };
//! let said = Value::Union(0, Box::new(Value::Struct(vec![Some(Value::String("hi".into()))])));
//! let bytes = message(&EVENTS, &said);
//! // The total length leads the prelude; the JSON payload is inside.
//! assert_eq!(u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize, bytes.len());
//! assert!(bytes.windows(13).any(|w| w == br#"{"Text":"hi"}"#));
//! ```

use aws_smithy_eventstream::frame::write_message_to;
use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
use stratus_core::json::{self, KeyNames};
use stratus_core::schema::{Shape, ShapeType};
use stratus_core::Value;

/// The `Content-Type` of an event stream response.
pub const MEDIA_TYPE: &str = "application/vnd.amazon.eventstream";

/// The content type of each message's JSON payload.
const PAYLOAD_TYPE: &str = "application/json";

/// Whether `output` (an operation's output structure) answers with an event stream.
pub fn is_event_stream(output: &Shape) -> bool {
    output
        .members
        .iter()
        .any(|m| m.target.streaming && m.target.kind == ShapeType::Union)
}

fn framed(headers: [(&'static str, String); 3], payload: Vec<u8>) -> Vec<u8> {
    let message = headers.into_iter().fold(Message::new(payload), |m, (name, value)| {
        m.add_header(Header::new(name, HeaderValue::String(value.into())))
    });
    let mut out = Vec::new();
    // Writing to a Vec only fails for a message over the framing's limits (16 MiB).
    let _ = write_message_to(&message, &mut out);
    out
}

/// The `initial-response` event, with the output's members other than the stream (none:
/// an empty JSON object).
pub fn initial_response() -> Vec<u8> {
    framed(
        [
            (":message-type", "event".to_owned()),
            (":event-type", "initial-response".to_owned()),
            (":content-type", PAYLOAD_TYPE.to_owned()),
        ],
        b"{}".to_vec(),
    )
}

/// The message for `event`, a value of the `@streaming` union `events`: an `event` message
/// named by the member it holds, or an `exception` message when that member is an error.
/// A value that is not one of the union's members is encoded as an `InternalFailure`.
pub fn message(events: &'static Shape, event: &Value) -> Vec<u8> {
    let Value::Union(index, value) = event else {
        return internal_failure();
    };
    let Some(member) = events.members.get(*index) else {
        return internal_failure();
    };
    let payload = json::encode(member.target, value, KeyNames::Member).into_bytes();
    let kind = match member.target.error {
        Some(_) => (":exception-type", "exception"),
        None => (":event-type", "event"),
    };
    framed(
        [
            (":message-type", kind.1.to_owned()),
            (kind.0, member.name.to_owned()),
            (":content-type", PAYLOAD_TYPE.to_owned()),
        ],
        payload,
    )
}

fn internal_failure() -> Vec<u8> {
    framed(
        [
            (":message-type", "exception".to_owned()),
            (":exception-type", "InternalFailureException".to_owned()),
            (":content-type", PAYLOAD_TYPE.to_owned()),
        ],
        br#"{"message":"the service produced an event its stream does not have"}"#.to_vec(),
    )
}

#[cfg(test)]
mod tests {
    use aws_smithy_eventstream::frame::read_message_from;
    use stratus_core::prelude_shapes::STRING;
    use stratus_core::schema::{ErrorInfo, Fault, Member};

    use super::*;

    static RECORD: Shape = Shape {
        members: &[Member::plain("Data", &STRING)],
        ..Shape::simple("Event", ShapeType::Structure)
    };
    static FAILURE: Shape = Shape {
        members: &[Member::plain("message", &STRING)],
        error: Some(ErrorInfo {
            fault: Fault::Client,
            http_status: 400,
            query_error: None,
        }),
        ..Shape::simple("InUse", ShapeType::Structure)
    };
    static EVENTS: Shape = Shape {
        members: &[Member::plain("Event", &RECORD), Member::plain("InUse", &FAILURE)],
        streaming: true,
        ..Shape::simple("Events", ShapeType::Union)
    };

    fn header(message: &Message, name: &str) -> String {
        let header = message.headers().iter().find(|h| h.name().as_str() == name).unwrap();
        header.value().as_string().unwrap().as_str().to_owned()
    }

    #[test]
    fn events_and_exceptions_read_back_with_their_headers() {
        let event = Value::Union(0, Box::new(Value::Struct(vec![Some(Value::String("x".into()))])));
        let read = read_message_from(&message(&EVENTS, &event)[..]).unwrap();
        assert_eq!(header(&read, ":message-type"), "event");
        assert_eq!(header(&read, ":event-type"), "Event");
        assert_eq!(read.payload().as_ref(), br#"{"Data":"x"}"#);

        let refusal = Value::Union(1, Box::new(Value::Struct(vec![Some(Value::String("busy".into()))])));
        let read = read_message_from(&message(&EVENTS, &refusal)[..]).unwrap();
        assert_eq!(header(&read, ":message-type"), "exception");
        assert_eq!(header(&read, ":exception-type"), "InUse");

        let initial = read_message_from(&initial_response()[..]).unwrap();
        assert_eq!(header(&initial, ":event-type"), "initial-response");
        assert_eq!(initial.payload().as_ref(), b"{}");
    }

    #[test]
    fn a_value_outside_the_union_is_an_internal_failure() {
        let read = read_message_from(&message(&EVENTS, &Value::Union(9, Box::new(Value::Bool(true))))[..]).unwrap();
        assert_eq!(header(&read, ":exception-type"), "InternalFailureException");
    }
}
