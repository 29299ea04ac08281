//! awsQuery (and the Query side of SQS and CloudWatch): form-encoded requests, XML answers.
//!
//! A request carries `Action=<Operation>&Version=<date>` and the input's members as
//! parameters, in a `POST` body (`application/x-www-form-urlencoded`) or the query string:
//! nested structures as `Outer.Inner`, lists as `Name.member.1`, `Name.member.2`, … (the item
//! name from the list member's `@xmlName`; `Name.1`, … when `@xmlFlattened`), maps as
//! `Name.entry.1.key` / `Name.entry.1.value` (`Name.1.key` when flattened; key and value
//! names from `@xmlName`), members renamed by `@xmlName`, indices from 1. An empty list is
//! `Name=`. Scalars are text; timestamps date-time.
//!
//! The answer is `<OpResponse xmlns="…"><OpResult>…</OpResult><ResponseMetadata><RequestId>…`
//! (no result element for an operation without output), errors are
//! `<ErrorResponse><Error><Type>Sender|Receiver</Type><Code/><Message/></Error><RequestId/>`
//! with the `@awsQueryError` code and status where the error has one.
//!
//! ec2Query is served by the same code, which is close to but not exactly EC2's dialect
//! (EC2 flattens every list); no service Stratus emulates speaks it.
//!
//! ```
//! use stratus_protocol::query::namespace_uri;
//! use stratus_core::schema::*;
//! # static SERVICE: Service = Service { sdk_id: "X", namespace: "x", shape_name: "X", version: "2012-11-05",
//! #     signing_name: "sqs", endpoint_prefix: "sqs", protocols: &[], query_compatible: false, xml_namespace: None,
//! #     operations: &[], validation: ValidationStyle { code: "", http_status: 400, missing_code: None, path_from_input: false, unanchored_patterns: false, missing_parameter_message: false, framework_error: None },
//! #     departures: Departures::NONE, model_sha256: "", authorization: &stratus_core::authz::Authorization::NONE };
//! // A service without @xmlNamespace answers in a namespace made from its endpoint prefix.
//! assert_eq!(namespace_uri(&SERVICE), "http://sqs.amazonaws.com/doc/2012-11-05/");
//! ```

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use crate::xml_writer::XmlWriter;
use stratus_core::schema::{Member, Operation, Protocol, Service, Shape, ShapeType, TimestampFormat};
use stratus_core::{OperationError, Value};

use crate::failure::Failure;
use crate::reply::{respond, set_request_id};
use crate::{text, timestamp, urlencoded, xml, ProtocolError, Request, Response, MAX_DEPTH};

/// The parameters of a Query request, by name (borrowed from the request where nothing
/// needed decoding).
type Params<'r> = BTreeMap<Cow<'r, str>, Cow<'r, str>>;

/// The namespace of the service's Query answers: its `@xmlNamespace`, else one made like
/// AWS's from the endpoint prefix and API version.
pub fn namespace_uri(service: &Service) -> Cow<'static, str> {
    match service.xml_namespace {
        Some(ns) => Cow::Borrowed(ns.uri),
        None => Cow::Owned(format!(
            "http://{}.amazonaws.com/doc/{}/",
            service.endpoint_prefix, service.version
        )),
    }
}

/// The request's parameters: the query string's, then (overriding) a form body's.
fn params<'r>(protocol: Protocol, req: &Request<'r>) -> Result<Params<'r>, ProtocolError> {
    let malformed = |message| ProtocolError::MalformedBody { protocol, message };
    let body = std::str::from_utf8(req.body).map_err(|_| malformed("the body is not UTF-8".into()))?;
    let mut params = Params::new();
    for pair in urlencoded::pairs(req.uri.query().unwrap_or_default()).chain(urlencoded::pairs(body)) {
        let (name, value) = pair.map_err(malformed)?;
        params.insert(name, value);
    }
    Ok(params)
}

/// The operation named by the `Action` parameter.
pub(crate) fn operation_for(
    protocol: Protocol,
    service: &'static Service,
    req: &Request,
) -> Result<&'static Operation, ProtocolError> {
    let params = params(protocol, req)?;
    let action = params.get("Action").ok_or(ProtocolError::MissingAction)?;
    service
        .operation(action)
        .ok_or_else(|| ProtocolError::UnknownOperation {
            protocol,
            name: action.to_string(),
        })
}

pub(crate) fn decode(protocol: Protocol, op: &'static Operation, req: &Request) -> Result<Value, ProtocolError> {
    let mut params = params(protocol, req)?;
    if let Some(url) = addressed_queue_url(op, req, &params) {
        params.insert(Cow::Borrowed("QueueUrl"), Cow::Owned(url));
    }
    read_struct(&params, "", op.input, 0).map_err(|(name, message)| ProtocolError::MalformedParameter {
        protocol,
        name,
        message,
    })
}

/// Whether `req` is sent to a queue's URL (`/ACCOUNT/NAME`, or Stratus's
/// `/queue/REGION/ACCOUNT/NAME`) of a service whose operations name queues by URL (SQS): its
/// actions are then only those that take a queue.
pub fn addresses_queue(service: &Service, req: &Request) -> bool {
    let path = req.uri.path().trim_end_matches('/');
    path.matches('/').count() >= 2
        && service
            .operations
            .iter()
            .any(|op| op.input.member_index("QueueUrl").is_some())
}

/// The actions on the account's queues rather than one queue, which SQS refuses at a queue's
/// URL (recorded: CreateQueue and ListQueues; GetQueueUrl is answered there).
const ACCOUNT_ACTIONS: [&str; 2] = ["CreateQueue", "ListQueues"];

/// Refuses an action sent to a queue's URL that acts on the account's queues, or does not
/// exist, as SQS words it.
pub fn check_queue_action(service: &Service, req: &Request, action: &str) -> Result<(), ProtocolError> {
    let refused = service.operation(action).is_none() || ACCOUNT_ACTIONS.contains(&action);
    match refused && addresses_queue(service, req) {
        true => Err(ProtocolError::ActionNotValidHere {
            name: action.to_owned(),
        }),
        false => Ok(()),
    }
}

/// SQS's classic Query form names the queue by the URL it is sent to (`POST /ACCOUNT/NAME`,
/// `Action=SendMessage&MessageBody=…`) instead of a `QueueUrl` parameter: that URL, for an
/// operation with a `QueueUrl` member the request does not give, when a queue's path was
/// addressed.
fn addressed_queue_url(op: &Operation, req: &Request, params: &Params<'_>) -> Option<String> {
    if params.contains_key("QueueUrl") || op.input.member_index("QueueUrl").is_none() {
        return None;
    }
    let path = req.uri.path().trim_end_matches('/');
    if path.matches('/').count() < 2 {
        return None;
    }
    let host = req.header("host").or_else(|| req.uri.authority().map(|a| a.as_str()))?;
    Some(format!("http://{host}{path}"))
}

/// A parameter that does not parse: its name and what is wrong.
type ParamError = (String, String);

fn has_prefix(params: &Params<'_>, prefix: &str) -> bool {
    params
        .range::<str, _>((std::ops::Bound::Included(prefix), std::ops::Bound::Unbounded))
        .next()
        .is_some_and(|(k, _)| k.starts_with(prefix))
}

/// The distinct indices `N` of parameters named `<base>N` or `<base>N.…`, in order.
fn indices(params: &Params<'_>, base: &str) -> BTreeSet<u32> {
    params
        .range::<str, _>((std::ops::Bound::Included(base), std::ops::Bound::Unbounded))
        .take_while(|(k, _)| k.starts_with(base))
        .filter_map(|(k, _)| k[base.len()..].split('.').next()?.parse().ok())
        .filter(|n| *n > 0)
        .collect()
}

fn read_struct(params: &Params<'_>, prefix: &str, shape: &'static Shape, depth: usize) -> Result<Value, ParamError> {
    let mut slots = Vec::with_capacity(shape.members.len());
    for m in shape.members {
        let key = format!("{prefix}{}", xml::member_name(m));
        let value = read_member(params, &key, m, depth + 1)?;
        // botocore sends nothing at all for an empty list, so an absent required list is read
        // as empty: SQS then answers `EmptyBatchRequest`, as AWS does, not `MissingParameter`.
        let value = match value {
            None if m.required && m.target.kind == ShapeType::List => Some(Value::List(Vec::new())),
            other => other,
        };
        slots.push(value);
    }
    if shape.kind != ShapeType::Union {
        return Ok(Value::Struct(slots));
    }
    let mut set = slots.into_iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v)));
    match (set.next(), set.next()) {
        (Some((i, v)), None) => Ok(Value::Union(i, Box::new(v))),
        _ => Err((
            prefix.trim_end_matches('.').to_owned(),
            "a union needs exactly one member".into(),
        )),
    }
}

/// The value of `member` at parameter `key`, `None` when no parameter mentions it.
fn read_member(
    params: &Params<'_>,
    key: &str,
    member: &'static Member,
    depth: usize,
) -> Result<Option<Value>, ParamError> {
    if depth > MAX_DEPTH {
        return Err((key.to_owned(), "parameters are nested too deeply".into()));
    }
    let target = member.target;
    match target.kind {
        ShapeType::Structure | ShapeType::Union => {
            let prefix = format!("{key}.");
            if !has_prefix(params, &prefix) {
                return Ok(None);
            }
            read_struct(params, &prefix, target, depth).map(Some)
        }
        ShapeType::List => {
            let item = target.list_member();
            let base = if member.xml_flattened {
                format!("{key}.")
            } else {
                format!("{key}.{}.", item.xml_name.unwrap_or("member"))
            };
            let found = indices(params, &base);
            if found.is_empty() {
                return Ok(params
                    .get(key)
                    .filter(|v| v.is_empty())
                    .map(|_| Value::List(Vec::new())));
            }
            let mut items = Vec::with_capacity(found.len());
            for n in found {
                let value = read_member(params, &format!("{base}{n}"), item, depth + 1)?;
                items.push(value.unwrap_or(Value::Null));
            }
            Ok(Some(Value::List(items)))
        }
        ShapeType::Map => {
            let (k, v) = target.map_members();
            let base = if member.xml_flattened {
                format!("{key}.")
            } else {
                format!("{key}.entry.")
            };
            let found = indices(params, &base);
            if found.is_empty() {
                return Ok(params.get(key).filter(|v| v.is_empty()).map(|_| Value::Map(Vec::new())));
            }
            let mut entries = Vec::with_capacity(found.len());
            for n in found {
                let key_param = format!("{base}{n}.{}", k.xml_name.unwrap_or("key"));
                let Some(name) = params.get(key_param.as_str()) else {
                    return Err((key_param, "a map entry needs a key".into()));
                };
                let value = read_member(
                    params,
                    &format!("{base}{n}.{}", v.xml_name.unwrap_or("value")),
                    v,
                    depth + 1,
                )?;
                entries.push((name.to_string(), value.unwrap_or(Value::Null)));
            }
            Ok(Some(Value::Map(entries)))
        }
        ShapeType::Document => match params.get(key) {
            Some(_) => Err((key.to_owned(), "documents cannot travel in Query parameters".into())),
            None => Ok(None),
        },
        _ => params
            .get(key)
            .map(|text| {
                text::parse(
                    target,
                    text,
                    timestamp::format_of(Some(member), TimestampFormat::DateTime),
                )
            })
            .transpose()
            .map_err(|message| (key.to_owned(), message)),
    }
}

pub(crate) fn encode_output(
    service: &'static Service,
    op: &'static Operation,
    output: &Value,
    request_id: &str,
) -> Response {
    // `<Op>Response<Op>Result`, cut in two: one allocation for both names.
    let names = [op.name, "Response", op.name, "Result"].concat();
    let (response_name, result_name) = names.split_at(op.name.len() + "Response".len());
    let ns = namespace_uri(service);
    let mut body = String::with_capacity(512);
    let mut writer = XmlWriter::new(&mut body);
    let mut root = writer.start_el(response_name).write_ns(&ns, None).finish();
    if !std::ptr::eq(op.output, &stratus_core::prelude_shapes::UNIT) {
        // An empty result is an empty-element tag, as AWS writes it (`<ReceiveMessageResult/>`).
        match xml::body_members(op.output, output).next() {
            None => root.start_el(result_name).finish_empty(),
            Some(_) => {
                let mut result = root.start_el(result_name).finish();
                xml::write_members(&mut result, op.output, output);
                result.finish();
            }
        }
    }
    let mut meta = root.start_el("ResponseMetadata").finish();
    meta.start_el("RequestId").finish().data(request_id);
    meta.finish();
    root.finish();
    xml_response(200, body, request_id)
}

pub(crate) fn encode_error(service: &'static Service, error: &OperationError, request_id: &str) -> Response {
    let mut failure = Failure::of(error);
    if failure.query_code == UNKNOWN_OPERATION {
        return xml_response(failure.query_status, format!("<{UNKNOWN_OPERATION}/>"), request_id);
    }
    let departures = &service.departures;
    if let Some(message) = failure
        .modeled
        .and_then(|(shape, _)| departures.query_message(shape.name))
    {
        failure.message = Some(message);
    }
    let ns = namespace_uri(service);
    let mut body = String::new();
    let mut writer = XmlWriter::new(&mut body);
    let mut root = writer.start_el("ErrorResponse").write_ns(&ns, None).finish();
    let mut fields = root.start_el("Error").finish();
    xml::write_error_fields(&mut fields, &failure, failure.query_code, true);
    if departures.query_error_detail && !failure.details.iter().any(|(name, _)| *name == "Detail") {
        fields.start_el("Detail").finish_empty();
    }
    fields.finish();
    root.start_el("RequestId").finish().data(request_id);
    root.finish();
    xml_response(failure.query_status, body, request_id)
}

/// The code of the refusal of a request to a queue's URL that names no action
/// ([`ProtocolError::NoActionAtQueue`]), which SQS answers with a bare `<UnknownOperationException/>`.
const UNKNOWN_OPERATION: &str = "UnknownOperationException";

fn xml_response(status: u16, body: String, request_id: &str) -> Response {
    let mut response = respond(status, Some("text/xml"), body.into_bytes());
    set_request_id(&mut response, request_id);
    response
}
