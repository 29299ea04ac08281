//! `schema.rs`: one static `Shape` per shape, the pattern and constraint statics, and the
//! `SERVICE` table with operations and REST routes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value as Node;
use stratus_pattern::{translate, Anchoring};

use super::types::{enum_values, EnumValue};
use super::{DefaultValue, ServiceGen, HEADER};
use crate::model::{Kind, MemberDef, ShapeDef, Traits};
use crate::Error;

/// The Smithy server framework's validation error; services that list it answer violations
/// with it.
const FRAMEWORK_VALIDATION: &str = "smithy.framework#ValidationException";

/// Statics shared by several shapes: patterns and member-level constraint overrides.
#[derive(Default)]
struct Pool {
    /// ECMA source → static name.
    patterns: BTreeMap<String, String>,
    pattern_defs: String,
    constraint_defs: String,
    constraints: usize,
    /// Where the service's patterns must match (the manifest's `search_patterns`).
    anchoring: Option<Anchoring>,
}

impl ServiceGen<'_> {
    pub(super) fn schema_rs(&self) -> Result<String, Error> {
        let mut pool = Pool {
            anchoring: self.entry.validation.search_patterns.then_some(Anchoring::Search),
            ..Pool::default()
        };
        let mut shapes = String::new();
        for id in &self.shapes {
            let shape = self.shape(id)?;
            self.shape_static(&mut shapes, shape, &mut pool)?;
        }
        let service = self.service_static()?;
        let authorization = self.authorization_module()?;
        Ok(format!(
            "{HEADER}\n//! Static schema and constraint tables.\n\n\
             use stratus_core as rt;\n\
             use rt::schema::*;\n\n\
             {service}\n{authorization}\n{}\n{}\n{shapes}",
            pool.pattern_defs, pool.constraint_defs
        ))
    }

    fn shape_static(&self, out: &mut String, shape: &ShapeDef, pool: &mut Pool) -> Result<(), Error> {
        let kind = self.kind(&shape.id)?;
        let const_name = &self.const_names[&shape.id];
        let name = shape.name();
        let mut fields = Vec::new();
        let members: Vec<&MemberDef> = match kind {
            Kind::Enum | Kind::IntEnum => Vec::new(),
            _ => shape.members.iter().collect(),
        };
        if !members.is_empty() {
            let mut list = String::from("&[");
            for m in members {
                list.push_str(&self.member(m, pool)?);
                list.push(',');
            }
            list.push(']');
            fields.push(format!("members: {list}"));
        }
        let constraints = self.constraints(shape, kind, &shape.traits, pool)?;
        if let Some(c) = constraints {
            fields.push(format!("constraints: {c}"));
        }
        if shape.has_trait("smithy.api#sparse") {
            fields.push("sparse: true".into());
        }
        if let Some(f) = timestamp_format(&shape.id, &shape.traits)? {
            fields.push(format!("timestamp_format: Some({f})"));
        }
        if let Some(n) = str_trait(&shape.traits, "smithy.api#xmlName") {
            fields.push(format!("xml_name: Some({n:?})"));
        }
        if let Some(ns) = xml_namespace(&shape.traits) {
            fields.push(format!("xml_namespace: Some({ns})"));
        }
        if let Some(t) = str_trait(&shape.traits, "smithy.api#mediaType") {
            fields.push(format!("media_type: Some({t:?})"));
        }
        if shape.has_trait("smithy.api#streaming") {
            fields.push("streaming: true".into());
        }
        if shape.has_trait("smithy.api#sensitive") {
            fields.push("sensitive: true".into());
        }
        if let Some(e) = error_info(shape)? {
            fields.push(format!("error: Some({e})"));
        }
        let _ = write!(out, "pub static {const_name}: Shape = Shape {{");
        for f in &fields {
            let _ = write!(out, "{f},");
        }
        let _ = writeln!(out, "..Shape::simple({name:?}, ShapeType::{})}};", shape_type(kind));
        Ok(())
    }

    fn member(&self, m: &MemberDef, pool: &mut Pool) -> Result<String, Error> {
        let t = &m.traits;
        let mut fields = Vec::new();
        if t.contains_key("smithy.api#required") {
            fields.push("required: true".to_string());
        }
        if let Some(n) = str_trait(t, "smithy.api#jsonName") {
            fields.push(format!("json_name: Some({n:?})"));
        }
        if let Some(n) = str_trait(t, "smithy.api#xmlName") {
            fields.push(format!("xml_name: Some({n:?})"));
        }
        if t.contains_key("smithy.api#xmlAttribute") {
            fields.push("xml_attribute: true".into());
        }
        if t.contains_key("smithy.api#xmlFlattened") {
            fields.push("xml_flattened: true".into());
        }
        if let Some(ns) = xml_namespace(t) {
            fields.push(format!("xml_namespace: Some({ns})"));
        }
        if let Some(binding) = http_binding(t) {
            fields.push(format!("http: {binding}"));
        }
        if let Some(f) = timestamp_format(&m.name, t)? {
            fields.push(format!("timestamp_format: Some({f})"));
        }
        if t.contains_key("smithy.api#idempotencyToken") {
            fields.push("idempotency_token: true".into());
        }
        if t.contains_key("smithy.api#hostLabel") {
            fields.push("host_label: true".into());
        }
        // A stream's default (`""`) only says an absent body is an empty stream.
        let streaming =
            !m.target.starts_with("smithy.api#") && self.shape(&m.target)?.has_trait("smithy.api#streaming");
        if let Some((kind, value)) = self.default_value(m)?.filter(|_| !streaming) {
            fields.push(format!("default: Some({})", default_static(&m.target, kind, &value)?));
        }
        let has_own = ["smithy.api#length", "smithy.api#range", "smithy.api#pattern"]
            .iter()
            .any(|k| t.contains_key(*k));
        if has_own {
            // Member traits override the target's, trait by trait.
            let mut merged = if m.target.starts_with("smithy.api#") {
                Traits::new()
            } else {
                self.shape(&m.target)?.traits.clone()
            };
            merged.extend(t.iter().map(|(k, v)| (k.clone(), v.clone())));
            let kind = self.kind(&m.target)?;
            let owner = format!("{}${}", m.target, m.name);
            let target_shape;
            let shape_for_enums = if m.target.starts_with("smithy.api#") {
                None
            } else {
                target_shape = self.shape(&m.target)?;
                Some(target_shape)
            };
            let c = match shape_for_enums {
                Some(s) => self.constraints(s, kind, &merged, pool)?,
                None => constraints_from(&owner, kind, &merged, &[], self.checks_patterns(), pool)?,
            };
            if let Some(c) = c {
                let name = format!("C_{}", pool.constraints);
                pool.constraints += 1;
                let _ = writeln!(pool.constraint_defs, "static {name}: Constraints = {c};");
                fields.push(format!("constraints: Some(&{name})"));
            }
        }
        let target = self.schema_ref(&m.target)?;
        let plain = format!("Member::plain({:?}, &{target})", m.name);
        Ok(if fields.is_empty() {
            plain
        } else {
            format!("Member {{ {}, ..{plain} }}", fields.join(", "))
        })
    }

    /// The `Constraints` expression for a shape's traits, or `None` when it has none.
    fn constraints(
        &self,
        shape: &ShapeDef,
        kind: Kind,
        traits: &Traits,
        pool: &mut Pool,
    ) -> Result<Option<String>, Error> {
        let enums = match kind {
            Kind::Enum if self.entry.validation.open_enums => Vec::new(),
            Kind::Enum | Kind::IntEnum => enum_values(shape)?,
            _ => Vec::new(),
        };
        constraints_from(&shape.id, kind, traits, &enums, self.checks_patterns(), pool)
    }

    /// Whether the service's `pattern` traits are checked as constraints.
    fn checks_patterns(&self) -> bool {
        !self.entry.validation.unchecked_patterns
    }

    /// The service's `Departures`: from the model's customization traits and the manifest.
    fn departures(&self, svc: &ShapeDef) -> Result<String, Error> {
        let bare_xml_errors = svc
            .traits
            .get("aws.protocols#restXml")
            .and_then(|t| t.get("noErrorWrapping"))
            .and_then(Node::as_bool)
            .unwrap_or(false);
        let unwrapped: Vec<String> = self
            .operations
            .iter()
            .filter(|op| op.shape.has_trait("aws.customizations#s3UnwrappedXmlOutput"))
            .map(|op| format!("{:?}", op.shape.name()))
            .collect();
        let interleaved: Vec<String> = self
            .entry
            .interleaved_versions
            .iter()
            .map(|op| format!("{op:?}"))
            .collect();
        let omitted = self
            .entry
            .omitted_default_members
            .iter()
            .map(|entry| self.omitted_default_member(&svc.id, entry))
            .collect::<Result<Vec<String>, Error>>()?;
        let statuses = self
            .entry
            .answer_statuses
            .iter()
            .map(|(op_name, status)| {
                if self.operations.iter().any(|op| op.shape.name() == op_name) {
                    Ok(format!("({op_name:?}, {status})"))
                } else {
                    Err(Error::unsupported(
                        &svc.id,
                        format!("answer status of {op_name:?}: no such operation"),
                    ))
                }
            })
            .collect::<Result<Vec<String>, Error>>()?;
        let query_messages = self
            .entry
            .query_error_messages
            .iter()
            .map(|(shape, message)| {
                let known = self
                    .shapes
                    .iter()
                    .filter_map(|id| self.shape(id).ok())
                    .any(|s| s.has_trait("smithy.api#error") && s.name() == shape);
                match known {
                    true => Ok(format!("({shape:?}, {message:?})")),
                    false => Err(Error::unsupported(
                        &svc.id,
                        format!("Query error message of {shape:?}: no such error"),
                    )),
                }
            })
            .collect::<Result<Vec<String>, Error>>()?;
        let s3_envelope = self.entry.s3_envelope;
        let query_error_detail = self.entry.query_error_detail;
        if !bare_xml_errors
            && !s3_envelope
            && !query_error_detail
            && unwrapped.is_empty()
            && interleaved.is_empty()
            && omitted.is_empty()
            && statuses.is_empty()
            && query_messages.is_empty()
        {
            return Ok("Departures::NONE".into());
        }
        Ok(format!(
            "Departures {{ bare_xml_errors: {bare_xml_errors}, unwrapped_xml_outputs: &[{}], s3_envelope: {s3_envelope}, interleaved_versions: &[{}], omitted_default_members: &[{}], answer_statuses: &[{}], query_error_detail: {query_error_detail}, query_error_messages: &[{}] }}",
            unwrapped.join(", "),
            interleaved.join(", "),
            omitted.join(", "),
            statuses.join(", "),
            query_messages.join(", "),
        ))
    }

    /// A manifest `omitted_default_members` entry (`Operation.Member`) as the tuple the table
    /// holds, refused unless the operation's output has that member.
    fn omitted_default_member(&self, service: &str, entry: &str) -> Result<String, Error> {
        let (op_name, member) = entry.split_once('.').ok_or_else(|| {
            Error::unsupported(
                service,
                format!("omitted default member {entry:?} is not Operation.Member"),
            )
        })?;
        let op = self
            .operations
            .iter()
            .find(|op| op.shape.name() == op_name)
            .ok_or_else(|| {
                Error::unsupported(service, format!("omitted default member {entry:?}: no such operation"))
            })?;
        let output = self.shape(&op.output)?;
        if !output.members.iter().any(|m| m.name == member) {
            return Err(Error::unsupported(
                &output.id,
                format!("omitted default member {entry:?}: no such member"),
            ));
        }
        Ok(format!("({op_name:?}, {member:?})"))
    }

    fn service_static(&self) -> Result<String, Error> {
        let svc = self.service;
        let service_trait = svc.traits.get("aws.api#service");
        let text = |key: &str| service_trait.and_then(|t| t.get(key)).and_then(Node::as_str);
        let signing_name = svc
            .traits
            .get("aws.auth#sigv4")
            .and_then(|t| t.get("name"))
            .and_then(Node::as_str)
            .or_else(|| text("arnNamespace"))
            .unwrap_or_default();
        let protocols: Vec<String> = self
            .entry
            .protocols
            .iter()
            .map(|p| protocol_variant(p).ok_or_else(|| Error::unsupported(&svc.id, format!("unknown protocol {p}"))))
            .collect::<Result<_, _>>()?;
        let mut ops = String::new();
        for op in &self.operations {
            let errors: Vec<String> = op
                .errors
                .iter()
                .map(|e| self.schema_ref(e).map(|r| format!("&{r}")))
                .collect::<Result<_, _>>()?;
            let http = match op.shape.traits.get("smithy.api#http") {
                Some(h) => format!("Some({})", http_route(&op.shape.id, h)?),
                None => "None".into(),
            };
            let traits = &op.shape.traits;
            let unsigned = traits.contains_key("smithy.api#optionalAuth")
                || traits
                    .get("smithy.api#auth")
                    .and_then(Node::as_array)
                    .is_some_and(|schemes| schemes.is_empty());
            let _ = writeln!(
                ops,
                "Operation {{ name: {:?}, input: &{}, output: &{}, errors: &[{}], http: {http}, unsigned: {unsigned} }},",
                op.shape.name(),
                self.schema_ref(&op.input)?,
                self.schema_ref(&op.output)?,
                errors.join(", "),
            );
        }
        let namespace = svc.id.split('#').next().unwrap_or_default();
        let framework_error = match self
            .operations
            .iter()
            .flat_map(|op| &op.errors)
            .find(|e| *e == FRAMEWORK_VALIDATION)
        {
            Some(id) => format!("Some(&{})", self.schema_ref(id)?),
            None => "None".into(),
        };
        let v = &self.entry.validation;
        let xml_ns = xml_namespace(&svc.traits)
            .or_else(|| {
                let uri = self.entry.xml_namespace.as_ref()?;
                Some(format!("XmlNamespace {{ uri: {uri:?}, prefix: None }}"))
            })
            .map_or("None".into(), |ns| format!("Some({ns})"));
        let departures = self.departures(svc)?;
        Ok(format!(
            "/// The service: identity, protocols, operations (sorted by name) and error conventions.\n\
             pub static SERVICE: Service = Service {{\n\
             sdk_id: {:?},\nnamespace: {namespace:?},\nshape_name: {:?},\nversion: {:?},\n\
             signing_name: {signing_name:?},\nendpoint_prefix: {:?},\nprotocols: &[{}],\n\
             query_compatible: {},\nxml_namespace: {xml_ns},\noperations: &[\n{ops}],\n\
             validation: ValidationStyle {{ code: {:?}, http_status: {}, missing_code: {:?}, path_from_input: {}, unanchored_patterns: {}, missing_parameter_message: {}, framework_error: {framework_error} }},\n\
             departures: {departures},\n\
             model_sha256: {:?},\nauthorization: &authorization::AUTHORIZATION,\n}};\n",
            self.sdk_id_text(),
            svc.name(),
            svc.version.clone().unwrap_or_default(),
            text("endpointPrefix").unwrap_or_default(),
            protocols.join(", "),
            self.query_compatible(),
            v.code,
            v.status,
            v.missing_code,
            v.path_from_input,
            v.unanchored_patterns,
            v.missing_parameter_message,
            self.model_sha256,
        ))
    }
}

/// The `DefaultValue` expression for a member's default.
fn default_static(owner: &str, kind: Kind, value: &DefaultValue<'_>) -> Result<String, Error> {
    Ok(match value {
        DefaultValue::Bool(b) => format!("DefaultValue::Bool({b})"),
        DefaultValue::Int(n) => format!("DefaultValue::Int({n})"),
        DefaultValue::Float(x) => format!("DefaultValue::Float({x:?})"),
        DefaultValue::Text(s) => format!("DefaultValue::String({s:?})"),
        DefaultValue::Blob(bytes) => format!("DefaultValue::Blob(&{bytes:?})"),
        DefaultValue::Timestamp(secs) => format!("DefaultValue::Timestamp({secs})"),
        DefaultValue::Empty if kind == Kind::List => "DefaultValue::EmptyList".into(),
        DefaultValue::Empty => "DefaultValue::EmptyMap".into(),
        // Smithy allows only these document defaults.
        DefaultValue::Document(node) => match node {
            Node::Bool(b) => format!("DefaultValue::Bool({b})"),
            Node::Number(n) => match n.as_i64() {
                Some(i) => format!("DefaultValue::Int({i})"),
                None => format!("DefaultValue::Float({:?})", n.as_f64().unwrap_or_default()),
            },
            Node::String(s) => format!("DefaultValue::String({s:?})"),
            Node::Array(items) if items.is_empty() => "DefaultValue::EmptyList".into(),
            Node::Object(entries) if entries.is_empty() => "DefaultValue::EmptyMap".into(),
            other => return Err(Error::unsupported(owner, format!("document default {other}"))),
        },
    })
}

fn constraints_from(
    owner: &str,
    kind: Kind,
    traits: &Traits,
    enums: &[EnumValue],
    patterns: bool,
    pool: &mut Pool,
) -> Result<Option<String>, Error> {
    let mut fields = Vec::new();
    if let Some(l) = traits.get("smithy.api#length") {
        let bound = |k: &str| {
            l.get(k)
                .and_then(Node::as_u64)
                .map_or("None".into(), |n| format!("Some({n})"))
        };
        fields.push(format!("length: Some(({}, {}))", bound("min"), bound("max")));
    }
    if let Some(r) = traits.get("smithy.api#range") {
        let bound = |k: &str| -> Result<String, Error> {
            match r.get(k) {
                None | Some(Node::Null) => Ok("None".into()),
                Some(n) => n
                    .as_f64()
                    .map(|x| format!("Some({x:?})"))
                    .ok_or_else(|| Error::unsupported(owner, format!("range bound {n} is not a number"))),
            }
        };
        fields.push(format!("range: Some(({}, {}))", bound("min")?, bound("max")?));
    }
    if let Some(p) = traits.get("smithy.api#pattern").filter(|_| patterns) {
        let src = p
            .as_str()
            .ok_or_else(|| Error::unsupported(owner, "pattern is not a string"))?;
        let name = pattern_static(owner, src, pool)?;
        fields.push(format!("pattern: Some(&{name})"));
    }
    match kind {
        Kind::Enum => {
            let values: Vec<String> = enums.iter().map(|e| format!("{:?}", e.value)).collect();
            fields.push(format!("enum_values: &[{}]", values.join(", ")));
            let internal: Vec<String> = enums
                .iter()
                .filter(|e| e.internal)
                .map(|e| format!("{:?}", e.value))
                .collect();
            if !internal.is_empty() {
                fields.push(format!("internal_enum_values: &[{}]", internal.join(", ")));
            }
        }
        Kind::IntEnum => {
            let values: Vec<String> = enums.iter().map(|e| e.value.clone()).collect();
            fields.push(format!("int_enum_values: &[{}]", values.join(", ")));
        }
        _ => {}
    }
    if traits.contains_key("smithy.api#uniqueItems") {
        fields.push("unique_items: true".into());
    }
    Ok((!fields.is_empty()).then(|| format!("Constraints {{ {}, ..Constraints::NONE }}", fields.join(", "))))
}

impl ServiceGen<'_> {
    /// Whether JSON and CBOR answers carry the Query error code (`x-amzn-query-error`): the
    /// model says so with `@awsQueryCompatible`, or it is a Query service the manifest also
    /// serves over JSON or CBOR, as AWS serves CloudWatch (whose newer models carry the trait).
    fn query_compatible(&self) -> bool {
        let protocols = &self.entry.protocols;
        self.service.has_trait("aws.protocols#awsQueryCompatible")
            || (protocols.first().is_some_and(|p| p == "awsQuery") && protocols.len() > 1)
    }
}

/// The static holding pattern `src`, translated and declared on first use.
fn pattern_static(owner: &str, src: &str, pool: &mut Pool) -> Result<String, Error> {
    if let Some(name) = pool.patterns.get(src) {
        return Ok(name.clone());
    }
    let name = format!("P_{}", pool.patterns.len());
    // AWS's services match the whole value, as Java's String.matches does, unless the
    // manifest says the service searches, as Smithy specifies.
    let anchoring = pool.anchoring.unwrap_or(Anchoring::FullMatch);
    let t = translate(src, anchoring).map_err(|e| Error::unsupported(owner, format!("pattern {src:?}: {e}")))?;
    let _ = writeln!(
        pool.pattern_defs,
        "static {name}: ::stratus_pattern::Pattern = {};",
        t.rust_expr(src)
    );
    pool.patterns.insert(src.to_string(), name.clone());
    Ok(name)
}

fn shape_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Blob => "Blob",
        Kind::Boolean => "Boolean",
        Kind::String => "String",
        Kind::Enum => "Enum",
        Kind::Byte => "Byte",
        Kind::Short => "Short",
        Kind::Integer => "Integer",
        Kind::IntEnum => "IntEnum",
        Kind::Long => "Long",
        Kind::Float => "Float",
        Kind::Double => "Double",
        Kind::BigInteger => "BigInteger",
        Kind::BigDecimal => "BigDecimal",
        Kind::Timestamp => "Timestamp",
        Kind::Document => "Document",
        Kind::List => "List",
        Kind::Map => "Map",
        Kind::Structure | Kind::Operation | Kind::Service | Kind::Resource => "Structure",
        Kind::Union => "Union",
    }
}

fn protocol_variant(name: &str) -> Option<String> {
    let v = match name {
        "awsJson1_0" => "AwsJson1_0",
        "awsJson1_1" => "AwsJson1_1",
        "awsQuery" => "AwsQuery",
        "ec2Query" => "Ec2Query",
        "restJson1" => "RestJson1",
        "restXml" => "RestXml",
        "rpcv2Cbor" => "RpcV2Cbor",
        _ => return None,
    };
    Some(format!("Protocol::{v}"))
}

fn str_trait<'t>(traits: &'t Traits, id: &str) -> Option<&'t str> {
    traits.get(id).and_then(Node::as_str)
}

fn xml_namespace(traits: &Traits) -> Option<String> {
    let ns = traits.get("smithy.api#xmlNamespace")?;
    let uri = ns.get("uri").and_then(Node::as_str)?;
    let prefix = ns.get("prefix").and_then(Node::as_str);
    Some(format!("XmlNamespace {{ uri: {uri:?}, prefix: {prefix:?} }}"))
}

fn timestamp_format(owner: &str, traits: &Traits) -> Result<Option<&'static str>, Error> {
    Ok(match str_trait(traits, "smithy.api#timestampFormat") {
        None => None,
        Some("date-time") => Some("TimestampFormat::DateTime"),
        Some("http-date") => Some("TimestampFormat::HttpDate"),
        Some("epoch-seconds") => Some("TimestampFormat::EpochSeconds"),
        Some(other) => return Err(Error::unsupported(owner, format!("timestamp format {other:?}"))),
    })
}

fn http_binding(traits: &Traits) -> Option<String> {
    if traits.contains_key("smithy.api#httpLabel") {
        return Some("HttpBinding::Label".into());
    }
    if let Some(n) = str_trait(traits, "smithy.api#httpQuery") {
        return Some(format!("HttpBinding::Query({n:?})"));
    }
    if traits.contains_key("smithy.api#httpQueryParams") {
        return Some("HttpBinding::QueryParams".into());
    }
    if let Some(n) = str_trait(traits, "smithy.api#httpHeader") {
        return Some(format!("HttpBinding::Header({n:?})"));
    }
    if let Some(n) = str_trait(traits, "smithy.api#httpPrefixHeaders") {
        return Some(format!("HttpBinding::PrefixHeaders({n:?})"));
    }
    if traits.contains_key("smithy.api#httpPayload") {
        return Some("HttpBinding::Payload".into());
    }
    if traits.contains_key("smithy.api#httpResponseCode") {
        return Some("HttpBinding::ResponseCode".into());
    }
    None
}

fn error_info(shape: &ShapeDef) -> Result<Option<String>, Error> {
    let Some(fault) = str_trait(&shape.traits, "smithy.api#error") else {
        return Ok(None);
    };
    let (fault, default_status) = match fault {
        "client" => ("Fault::Client", 400),
        "server" => ("Fault::Server", 500),
        other => return Err(Error::unsupported(&shape.id, format!("error fault {other:?}"))),
    };
    let status = shape
        .traits
        .get("smithy.api#httpError")
        .and_then(Node::as_u64)
        .unwrap_or(default_status);
    let query = match shape.traits.get("aws.protocols#awsQueryError") {
        Some(q) => {
            let code = q
                .get("code")
                .and_then(Node::as_str)
                .ok_or_else(|| Error::unsupported(&shape.id, "awsQueryError without a code"))?;
            let status = q.get("httpResponseCode").and_then(Node::as_u64).unwrap_or(status);
            format!("Some(({code:?}, {status}))")
        }
        None => "None".into(),
    };
    Ok(Some(format!(
        "ErrorInfo {{ fault: {fault}, http_status: {status}, query_error: {query} }}"
    )))
}

/// Parses `@http(method, uri, code)` into an `HttpRoute` expression.
fn http_route(op: &str, http: &Node) -> Result<String, Error> {
    let method = http
        .get("method")
        .and_then(Node::as_str)
        .ok_or_else(|| Error::unsupported(op, "@http without method"))?;
    let uri = http
        .get("uri")
        .and_then(Node::as_str)
        .ok_or_else(|| Error::unsupported(op, "@http without uri"))?;
    let code = http.get("code").and_then(Node::as_u64).unwrap_or(200);
    let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
    let mut segments = Vec::new();
    for seg in path.split('/').filter(|s| !s.is_empty()) {
        let s = match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(label) => match label.strip_suffix('+') {
                Some(greedy) => format!("PathSegment::Greedy({greedy:?})"),
                None => format!("PathSegment::Label({label:?})"),
            },
            None if seg.contains(['{', '}']) => {
                return Err(Error::unsupported(
                    op,
                    format!("URI segment {seg:?} mixes literal text and a label"),
                ))
            }
            None => format!("PathSegment::Literal({seg:?})"),
        };
        segments.push(s);
    }
    let literals: Vec<String> = query
        .split('&')
        .filter(|q| !q.is_empty())
        .map(|q| match q.split_once('=') {
            Some((k, v)) => format!("({k:?}, Some({v:?}))"),
            None => format!("({q:?}, None)"),
        })
        .collect();
    Ok(format!(
        "HttpRoute {{ method: {method:?}, path: &[{}], query: &[{}], code: {code} }}",
        segments.join(", "),
        literals.join(", ")
    ))
}
