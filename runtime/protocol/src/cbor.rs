//! rpcv2Cbor: `POST /service/<ServiceShape>/operation/<Operation>` with
//! `smithy-protocol: rpc-v2-cbor` and a CBOR body; CBOR answers.
//!
//! Structures are maps keyed by member names (absent members left out, nulls ignored),
//! unions maps with one key, lists arrays, blobs byte strings, timestamps tag 1 over epoch
//! seconds; definite and indefinite lengths are both read. Errors are maps with
//! `"__type": "<namespace>#<Code>"` and the error's members (`message` for common errors).
//! An operation without output answers with an empty body and no `Content-Type`.
//!
//! ```
//! use stratus_core::prelude_shapes::STRING;
//! use stratus_core::Value;
//! use stratus_protocol::cbor::{from_cbor, to_cbor};
//! let bytes = to_cbor(&STRING, &Value::String("hi".into()));
//! assert_eq!(bytes, b"\x62hi");
//! assert_eq!(from_cbor(&STRING, &bytes).unwrap(), Value::String("hi".into()));
//! ```

use aws_smithy_cbor::data::Type;
use aws_smithy_cbor::{Decoder, Encoder};
use aws_smithy_types::Blob;
use stratus_core::prelude_shapes::{STRING, UNIT};
use stratus_core::schema::{Operation, Protocol, Service, Shape, ShapeType};
use stratus_core::{Document, OperationError, Value};

use crate::failure::Failure;
use crate::reply::{respond, set_header, set_request_id};
use crate::{ProtocolError, Request, Response, MAX_DEPTH};

/// The `Content-Type` of CBOR bodies.
pub const MEDIA_TYPE: &str = "application/cbor";

/// The operation named by the request path.
pub(crate) fn operation_for(service: &'static Service, req: &Request) -> Result<&'static Operation, ProtocolError> {
    let path = req.uri.path();
    let unknown = || ProtocolError::UnknownOperation {
        protocol: Protocol::RpcV2Cbor,
        name: path.to_owned(),
    };
    let segments: Vec<&str> = path.split('/').collect();
    match segments.as_slice() {
        [.., "service", s, "operation", op] if *s == service.shape_name => service.operation(op).ok_or_else(unknown),
        _ => Err(unknown()),
    }
}

pub(crate) fn decode(op: &'static Operation, req: &Request) -> Result<Value, ProtocolError> {
    if req.body.is_empty() {
        return Ok(Value::empty_struct(op.input.members.len()));
    }
    let content_type = req.header("content-type").unwrap_or_default();
    if !content_type.trim().eq_ignore_ascii_case(MEDIA_TYPE) {
        return Err(ProtocolError::UnsupportedMediaType {
            expected: MEDIA_TYPE,
            found: content_type.to_owned(),
        });
    }
    from_cbor(op.input, req.body).map_err(|message| ProtocolError::MalformedBody {
        protocol: Protocol::RpcV2Cbor,
        message,
    })
}

/// What a timestamp's number after tag 1 counts: rpcv2Cbor's epoch seconds, or the epoch
/// milliseconds of the JSON protocols' CBOR form (`application/x-amz-cbor-1.1`, which
/// Kinesis's Java SDK sends: an integral count of milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Epoch {
    Seconds,
    Millis,
}

/// Reads a CBOR data item as a value of `shape`; nothing may follow it.
pub fn from_cbor(shape: &'static Shape, bytes: &[u8]) -> Result<Value, String> {
    read(shape, bytes, Epoch::Seconds)
}

/// [`from_cbor`], with timestamps counted in `epoch`.
pub(crate) fn read(shape: &'static Shape, bytes: &[u8], epoch: Epoch) -> Result<Value, String> {
    // The decoder skips unknown members without a depth limit of its own (and with a stack of
    // 16 bytes for every indefinite container in them): deep nesting is refused up front.
    if nesting(bytes) > MAX_DEPTH {
        return Err("CBOR nesting is too deep".into());
    }
    let mut d = Decoder::new(bytes);
    let value = read_value(&mut d, shape, 0, epoch)?;
    if d.position() != bytes.len() {
        return Err("unexpected data after the CBOR value".into());
    }
    Ok(value)
}

/// How deep the containers (arrays, maps, tags, indefinite strings) of the CBOR data items in
/// `bytes` nest, counted until it passes [`MAX_DEPTH`]; well-formedness is the decoder's to
/// judge, so a truncated item ends the count.
fn nesting(bytes: &[u8]) -> usize {
    // The items still to come in each open container; `None`: until a break.
    let mut open: Vec<Option<u64>> = Vec::new();
    let mut deepest = 0;
    let mut at = 0;
    while let Some(&initial) = bytes.get(at) {
        let (major, info) = (initial >> 5, initial & 0x1f);
        at += 1;
        let width = match info {
            0..=23 | 31 => 0,
            24 => 1,
            25 => 2,
            26 => 4,
            27 => 8,
            _ => return deepest, // reserved: malformed
        };
        let Some(argument) = bytes.get(at..at + width) else {
            return deepest;
        };
        at += width;
        let argument = match info {
            0..=23 => u64::from(info),
            _ => argument.iter().fold(0u64, |n, &b| (n << 8) | u64::from(b)),
        };
        let opened = match (major, info) {
            (7, 31) => {
                // A break closes the innermost indefinite container, an item of the one around it.
                open.pop();
                None
            }
            (2..=5, 31) => Some(None),
            (2 | 3, _) => {
                at = at.saturating_add(usize::try_from(argument).unwrap_or(usize::MAX));
                None
            }
            (4, _) => Some(Some(argument)),
            (5, _) => Some(Some(argument.saturating_mul(2))),
            (6, _) => Some(Some(1)),
            _ => None,
        };
        match opened {
            Some(Some(0)) => {}
            Some(items) => {
                open.push(items);
                deepest = deepest.max(open.len());
                if deepest > MAX_DEPTH {
                    return deepest;
                }
                continue;
            }
            None => {}
        }
        // One item ended: count it off the containers it completes.
        while let Some(Some(left)) = open.last_mut() {
            *left -= 1;
            if *left > 0 {
                break;
            }
            open.pop();
        }
    }
    deepest
}

fn error(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Whether the next item is the `break` that ends an indefinite-length container; consumes it.
fn at_break(d: &mut Decoder<'_>) -> Result<bool, String> {
    if d.datatype().map_err(error)? == Type::Break {
        d.set_position(d.position() + 1);
        return Ok(true);
    }
    Ok(false)
}

/// Calls `item` for each element of a container of `len` items (`None`: indefinite).
fn each(
    d: &mut Decoder<'_>,
    len: Option<u64>,
    mut item: impl FnMut(&mut Decoder<'_>) -> Result<(), String>,
) -> Result<(), String> {
    match len {
        Some(n) => (0..n).try_for_each(|_| item(d)),
        None => loop {
            if at_break(d)? {
                return Ok(());
            }
            item(d)?;
        },
    }
}

fn is_null(d: &mut Decoder<'_>) -> Result<bool, String> {
    if matches!(d.datatype().map_err(error)?, Type::Null | Type::Undefined) {
        d.skip().map_err(error)?;
        return Ok(true);
    }
    Ok(false)
}

fn read_value(d: &mut Decoder<'_>, shape: &'static Shape, depth: usize, epoch: Epoch) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err("CBOR nesting is too deep".into());
    }
    if is_null(d)? {
        return Ok(Value::Null);
    }
    let mismatch =
        |e: &dyn std::fmt::Display| format!("unexpected CBOR value for {} ({:?}): {e}", shape.name, shape.kind);
    match shape.kind {
        ShapeType::Structure | ShapeType::Union => read_struct(d, shape, depth, epoch),
        ShapeType::List => {
            let item = shape.list_member();
            let len = d.list().map_err(|e| mismatch(&e))?;
            let mut items = Vec::new();
            each(d, len, |d| {
                let v = read_value(d, item.target, depth + 1, epoch)?;
                if v != Value::Null || shape.sparse {
                    items.push(v);
                }
                Ok(())
            })?;
            Ok(Value::List(items))
        }
        ShapeType::Map => {
            let (_, value) = shape.map_members();
            let len = d.map().map_err(|e| mismatch(&e))?;
            let mut entries = Vec::new();
            each(d, len, |d| {
                let key = d.str().map_err(error)?.into_owned();
                let v = read_value(d, value.target, depth + 1, epoch)?;
                if v != Value::Null || shape.sparse {
                    entries.push((key, v));
                }
                Ok(())
            })?;
            Ok(Value::Map(entries))
        }
        ShapeType::Boolean => d.boolean().map(Value::Bool).map_err(|e| mismatch(&e)),
        k if k.is_integral() => match d.long() {
            Ok(n) if k.holds(n) => Ok(Value::Int(n)),
            Ok(n) => Err(mismatch(&format!("{n} is out of range"))),
            Err(e) => Err(mismatch(&e)),
        },
        ShapeType::Float | ShapeType::Double => match d.datatype().map_err(error)? {
            Type::F16 | Type::F32 | Type::F64 => d.double().map(Value::Float).map_err(|e| mismatch(&e)),
            _ => d.long().map(|n| Value::Float(n as f64)).map_err(|e| mismatch(&e)),
        },
        ShapeType::String | ShapeType::Enum | ShapeType::BigInteger | ShapeType::BigDecimal => {
            d.str().map(|s| Value::String(s.into_owned())).map_err(|e| mismatch(&e))
        }
        ShapeType::Blob => d.blob().map(|b| Value::Blob(b.into_inner())).map_err(|e| mismatch(&e)),
        ShapeType::Timestamp => read_timestamp(d, epoch).map(Value::Timestamp).map_err(|e| mismatch(&e)),
        ShapeType::Document => Err(format!("{} cannot travel in CBOR", shape.name)),
        _ => Err(mismatch(&"unsupported shape")),
    }
}

/// Tag 1 (one byte, `0xc1`) over epoch seconds (or milliseconds), integral or not.
fn read_timestamp(d: &mut Decoder<'_>, epoch: Epoch) -> Result<stratus_core::DateTime, String> {
    let start = d.position();
    if let Ok(t) = d.timestamp() {
        return Ok(match epoch {
            Epoch::Seconds => t,
            Epoch::Millis => stratus_core::DateTime::from_secs_f64(t.as_secs_f64() / 1000.0),
        });
    }
    d.set_position(start);
    if d.datatype().map_err(error)? != Type::Tag {
        return Err("expected tag 1 (epoch seconds)".into());
    }
    // An integral time after the tag: `timestamp()` reads only floats.
    d.set_position(start + 1);
    let count = d.long().map_err(error)?;
    Ok(match epoch {
        Epoch::Seconds => stratus_core::DateTime::from_secs(count),
        Epoch::Millis => stratus_core::DateTime::from_millis(count),
    })
}

fn read_struct(d: &mut Decoder<'_>, shape: &'static Shape, depth: usize, epoch: Epoch) -> Result<Value, String> {
    let len = d.map().map_err(|e| format!("expected a map for {}: {e}", shape.name))?;
    let mut slots: Vec<Option<Value>> = vec![None; shape.members.len()];
    each(d, len, |d| {
        let key = d.str().map_err(error)?;
        match shape.members.iter().position(|m| m.name == key) {
            Some(i) => {
                let v = read_value(d, shape.members[i].target, depth + 1, epoch)?;
                if v != Value::Null {
                    slots[i] = Some(v);
                }
            }
            None => d.skip().map_err(error)?,
        }
        Ok(())
    })?;
    if shape.kind != ShapeType::Union {
        return Ok(Value::Struct(slots));
    }
    let mut set = slots.into_iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v)));
    match (set.next(), set.next()) {
        (Some((i, v)), None) => Ok(Value::Union(i, Box::new(v))),
        (None, _) => Err(format!("union {} has no member set", shape.name)),
        _ => Err(format!("union {} has more than one member set", shape.name)),
    }
}

/// Writes `value`, a value of `shape`, as one CBOR data item.
pub fn to_cbor(shape: &'static Shape, value: &Value) -> Vec<u8> {
    write(shape, value, Epoch::Seconds)
}

/// [`to_cbor`], with timestamps counted in `epoch`.
pub(crate) fn write(shape: &'static Shape, value: &Value, epoch: Epoch) -> Vec<u8> {
    let mut e = Encoder::new(Vec::new());
    write_value(&mut e, shape, value, epoch);
    e.into_writer()
}

fn write_value(e: &mut Encoder, shape: &'static Shape, value: &Value, epoch: Epoch) {
    match value {
        Value::Null => {
            e.null();
        }
        Value::Bool(b) => {
            e.boolean(*b);
        }
        Value::Int(n) => {
            e.long(*n);
        }
        Value::Float(f) if shape.kind == ShapeType::Float => {
            e.float(*f as f32);
        }
        Value::Float(f) => {
            e.double(*f);
        }
        Value::String(s) => {
            e.str(s);
        }
        Value::Blob(b) => {
            e.blob(&Blob::new(b.as_slice()));
        }
        Value::Timestamp(t) if epoch == Epoch::Millis => {
            // Tag 1 over an integer, which the encoder has no call for: the tag's byte is
            // written straight after what is already encoded.
            let mut bytes = std::mem::replace(e, Encoder::new(Vec::new())).into_writer();
            bytes.push(0xc1);
            *e = Encoder::new(bytes);
            e.long(t.to_millis().unwrap_or(i64::MAX));
        }
        Value::Timestamp(t) => {
            e.timestamp(t);
        }
        Value::List(items) => {
            let item = shape.members.first().map_or(shape, |m| m.target);
            e.array(items.len());
            items.iter().for_each(|v| write_value(e, item, v, epoch));
        }
        Value::Map(entries) => {
            let value = shape.members.get(1).map_or(shape, |m| m.target);
            e.map(entries.len());
            for (k, v) in entries {
                e.str(k);
                write_value(e, value, v, epoch);
            }
        }
        Value::Struct(slots) => {
            let set: Vec<_> = shape
                .members
                .iter()
                .zip(slots)
                .filter_map(|(m, v)| Some((m, v.as_ref()?)))
                .collect();
            e.map(set.len());
            for (m, v) in set {
                e.str(m.name);
                write_value(e, m.target, v, epoch);
            }
        }
        Value::Union(i, v) => match shape.members.get(*i) {
            Some(m) => {
                e.map(1).str(m.name);
                write_value(e, m.target, v, epoch);
            }
            None => {
                e.map(0);
            }
        },
        Value::Document(d) => write_document(e, d),
        Value::EncodedJson(text) => write_value(e, shape, &stratus_core::json::decode_encoded(shape, text), epoch),
    }
}

fn write_document(e: &mut Encoder, d: &Document) {
    match d {
        Document::Null => {
            e.null();
        }
        Document::Bool(b) => {
            e.boolean(*b);
        }
        Document::Int(n) => {
            e.long(*n);
        }
        Document::Float(f) => {
            e.double(*f);
        }
        Document::String(s) => {
            e.str(s);
        }
        Document::List(items) => {
            e.array(items.len());
            items.iter().for_each(|v| write_document(e, v));
        }
        Document::Map(entries) => {
            e.map(entries.len());
            for (k, v) in entries {
                e.str(k);
                write_document(e, v);
            }
        }
    }
}

pub(crate) fn encode_output(op: &'static Operation, output: &Value, request_id: &str) -> Response {
    let mut response = if std::ptr::eq(op.output, &UNIT) {
        respond(200, None, Vec::new())
    } else {
        respond(200, Some(MEDIA_TYPE), to_cbor(op.output, output))
    };
    headers(&mut response, request_id);
    response
}

pub(crate) fn encode_error(service: &'static Service, error: &OperationError, request_id: &str) -> Response {
    let failure = Failure::of(error);
    let body = error_body(&failure, &failure.qualified_type(service.namespace), Epoch::Seconds);
    let mut response = respond(failure.status, Some(MEDIA_TYPE), body);
    if service.query_compatible {
        let value = format!("{};{}", failure.query_code, failure.sender_or_receiver());
        set_header(&mut response, "x-amzn-query-error", &value);
    }
    headers(&mut response, request_id);
    response
}

/// An error's CBOR map: `__type` (as `type_name`) and the modelled error's members, or
/// `message` for a common error.
pub(crate) fn error_body(failure: &Failure, type_name: &str, epoch: Epoch) -> Vec<u8> {
    let mut e = Encoder::new(Vec::new());
    match failure.modeled {
        Some((shape, Value::Struct(slots))) => {
            let set: Vec<_> = shape
                .members
                .iter()
                .zip(slots)
                .filter_map(|(m, v)| Some((m, v.as_ref()?)))
                .collect();
            e.map(set.len() + 1).str("__type").str(type_name);
            for (m, v) in set {
                e.str(m.name);
                write_value(&mut e, m.target, v, epoch);
            }
        }
        _ => {
            e.map(2).str("__type").str(type_name).str("message");
            write_value(
                &mut e,
                &STRING,
                &Value::String(failure.message.unwrap_or_default().to_owned()),
                epoch,
            );
        }
    }
    e.into_writer()
}

fn headers(response: &mut Response, request_id: &str) {
    set_header(response, "smithy-protocol", "rpc-v2-cbor");
    set_request_id(response, request_id);
}

#[cfg(test)]
mod tests {
    use stratus_test_support::Rng;

    use super::*;

    /// Appends a random well-formed CBOR item nesting `depth` deep to `out`, in every form a
    /// container takes: definite and indefinite arrays, maps and strings, and tags.
    fn item(rng: &mut Rng, depth: usize, out: &mut Vec<u8>) {
        if depth == 0 {
            let scalars: [&[u8]; 6] = [
                b"\x05",
                b"\x1b\0\0\0\0\0\0\x01\0",
                b"\x63abc",
                b"\x42\x01\x02",
                b"\xf6",
                b"\xfb\0\0\0\0\0\0\0\0",
            ];
            out.extend_from_slice(scalars[rng.below(scalars.len())]);
            return;
        }
        let siblings = rng.below(3);
        match rng.below(7) {
            0 => {
                out.push(0x80 | (siblings as u8 + 1));
                item(rng, depth - 1, out);
                (0..siblings).for_each(|_| shallower(rng, depth, out));
            }
            1 => {
                out.push(0x9f);
                (0..siblings).for_each(|_| shallower(rng, depth, out));
                item(rng, depth - 1, out);
                out.push(0xff);
            }
            2 => {
                out.extend_from_slice(b"\xa1\x61k");
                item(rng, depth - 1, out);
            }
            3 => {
                out.extend_from_slice(b"\xbf\x61k");
                item(rng, depth - 1, out);
                out.extend_from_slice(b"\x61j\x01\xff");
            }
            4 => {
                out.push(0xc1);
                item(rng, depth - 1, out);
            }
            5 => {
                out.extend_from_slice(b"\xd9\x01\x2c");
                item(rng, depth - 1, out);
            }
            _ if depth == 1 => out.extend_from_slice(b"\x7f\x61a\x62bc\xff"),
            _ => {
                out.push(0x82);
                item(rng, depth - 1, out);
                item(rng, 0, out);
            }
        }
    }

    /// A sibling of the deepest item: shallower than `depth`, and shallow, so items stay small.
    fn shallower(rng: &mut Rng, depth: usize, out: &mut Vec<u8>) {
        let depth = rng.below(depth.min(3));
        item(rng, depth, out);
    }

    #[test]
    fn nesting_is_measured_in_every_container_form() {
        for seed in 1..2000u64 {
            let mut rng = Rng(seed);
            let depth = rng.below(MAX_DEPTH + 40);
            let mut bytes = Vec::new();
            item(&mut rng, depth, &mut bytes);
            let measured = nesting(&bytes);
            assert_eq!(measured, depth.min(MAX_DEPTH + 1), "seed {seed}: {bytes:02x?}");
            // Truncated, it is never measured deeper.
            let cut = rng.below(bytes.len() + 1);
            assert!(nesting(&bytes[..cut]) <= measured, "seed {seed}");
        }
    }

    #[test]
    fn deep_nesting_in_an_unknown_member_is_refused_before_it_is_skipped() {
        let deep = |n: usize| [&b"\xa1\x67Unknown"[..], &vec![0x9f; n], &vec![0xff; n]].concat();
        assert_eq!(from_cbor(&UNIT, &deep(3)), Ok(Value::Struct(Vec::new())));
        let refused = from_cbor(&UNIT, &deep(1_000_000)).unwrap_err();
        assert_eq!(refused, "CBOR nesting is too deep");
    }
}
