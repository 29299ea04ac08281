//! The in-memory Smithy model: shapes by absolute id, members in model order, traits as
//! node values with documentation dropped. Loaded from the JSON AST ([`Model::load_json`]), or
//! from Smithy IDL files through [`crate::idl`] ([`Model::load_idl`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::Error;

/// Trait id → node value.
pub type Traits = BTreeMap<String, Value>;

/// The kinds of shape the generator understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Blob,
    Boolean,
    String,
    Enum,
    Byte,
    Short,
    Integer,
    IntEnum,
    Long,
    Float,
    Double,
    BigInteger,
    BigDecimal,
    Timestamp,
    Document,
    List,
    Map,
    Structure,
    Union,
    Operation,
    Service,
    Resource,
}

impl Kind {
    fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "blob" => Kind::Blob,
            "boolean" => Kind::Boolean,
            "string" => Kind::String,
            "enum" => Kind::Enum,
            "byte" => Kind::Byte,
            "short" => Kind::Short,
            "integer" => Kind::Integer,
            "intEnum" => Kind::IntEnum,
            "long" => Kind::Long,
            "float" => Kind::Float,
            "double" => Kind::Double,
            "bigInteger" => Kind::BigInteger,
            "bigDecimal" => Kind::BigDecimal,
            "timestamp" => Kind::Timestamp,
            "document" => Kind::Document,
            "list" | "set" => Kind::List,
            "map" => Kind::Map,
            "structure" => Kind::Structure,
            "union" => Kind::Union,
            "operation" => Kind::Operation,
            "service" => Kind::Service,
            "resource" => Kind::Resource,
            _ => return None,
        })
    }
}

/// A member of an aggregate shape.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberDef {
    pub name: String,
    pub target: String,
    pub traits: Traits,
}

/// One shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeDef {
    pub id: String,
    pub kind: Kind,
    /// Structure/union/enum members; `member` of a list; `key`, `value` of a map.
    pub members: Vec<MemberDef>,
    pub traits: Traits,
    /// Operation: input, output, errors. Service/resource: operations and resources bound.
    pub input: Option<String>,
    pub output: Option<String>,
    pub errors: Vec<String>,
    pub operations: Vec<String>,
    pub resources: Vec<String>,
    pub version: Option<String>,
}

impl ShapeDef {
    /// The shape's name without namespace.
    pub fn name(&self) -> &str {
        self.id.rsplit('#').next().unwrap_or(&self.id)
    }

    pub fn has_trait(&self, id: &str) -> bool {
        self.traits.contains_key(id)
    }
}

/// A whole model.
#[derive(Debug, Default, PartialEq)]
pub struct Model {
    pub shapes: BTreeMap<String, ShapeDef>,
}

/// Traits that carry no meaning for a server's wire behaviour or validation.
const IGNORED_TRAITS: &[&str] = &[
    "smithy.api#documentation",
    "smithy.api#examples",
    "smithy.api#externalDocumentation",
    "smithy.api#paginated",
    "smithy.api#sensitive",
    "smithy.api#deprecated",
    "smithy.api#idempotent",
    "smithy.api#readonly",
    "smithy.api#suppress",
    "smithy.api#title",
    "smithy.api#tags",
    "smithy.api#since",
    "smithy.api#unstable",
    "smithy.api#recommended",
    "smithy.api#private",
    "smithy.api#retryable",
    "smithy.api#clientOptional",
    "smithy.api#addedDefault",
    "smithy.api#resourceIdentifier",
    "smithy.api#noReplace",
    "smithy.api#endpoint",
    "smithy.api#requestCompression",
    "smithy.api#eventPayload",
    "smithy.api#httpChecksumRequired",
    "smithy.rules#endpointRuleSet",
    "smithy.rules#endpointBdd",
    "smithy.rules#endpointTests",
    "smithy.rules#staticContextParams",
    "smithy.rules#contextParam",
    "smithy.rules#clientContextParams",
    "smithy.rules#operationContextParams",
    "smithy.waiters#waitable",
    "smithy.test#smokeTests",
    "aws.iam#conditionKeys",
    "aws.iam#iamResource",
    "aws.iam#defineConditionKeys",
    "aws.iam#disableConditionKeyInference",
    "aws.iam#supportedPrincipalTypes",
    "aws.iam#requiredActions",
    "aws.api#clientDiscoveredEndpoint",
    "aws.api#clientEndpointDiscovery",
    "aws.api#arn",
    "aws.api#data",
    "aws.api#tagEnabled",
    "aws.api#taggable",
    "aws.cloudformation#cfnResource",
    "aws.cloudformation#cfnExcludeProperty",
    "aws.auth#unsignedPayload",
    // Signatures are not verified; SigV4a names the same signing name as the service's SigV4.
    "aws.auth#sigv4a",
    // Behaviour S3's hand-written layer implements itself.
    "aws.protocols#httpChecksum",
];

/// Traits the generator turns into schema, types or constraints.
const HANDLED_TRAITS: &[&str] = &[
    // Whether an operation may be called unsigned.
    "smithy.api#auth",
    "smithy.api#optionalAuth",
    "smithy.api#required",
    "smithy.api#default",
    "smithy.api#length",
    "smithy.api#range",
    "smithy.api#pattern",
    "smithy.api#enum",
    "smithy.api#enumValue",
    "smithy.api#internal",
    "smithy.api#uniqueItems",
    "smithy.api#sparse",
    "smithy.api#timestampFormat",
    "smithy.api#jsonName",
    "smithy.api#xmlName",
    "smithy.api#xmlAttribute",
    "smithy.api#xmlFlattened",
    "smithy.api#xmlNamespace",
    "smithy.api#http",
    "smithy.api#httpError",
    "smithy.api#httpLabel",
    "smithy.api#httpHeader",
    "smithy.api#httpQuery",
    "smithy.api#httpQueryParams",
    "smithy.api#httpPrefixHeaders",
    "smithy.api#httpPayload",
    "smithy.api#httpResponseCode",
    "smithy.api#error",
    "smithy.api#idempotencyToken",
    "smithy.api#hostLabel",
    "smithy.api#streaming",
    "smithy.api#mediaType",
    "smithy.api#input",
    "smithy.api#output",
    "aws.protocols#awsQueryError",
    "aws.protocols#awsJson1_0",
    "aws.protocols#awsJson1_1",
    "aws.protocols#awsQuery",
    "aws.protocols#restJson1",
    "aws.protocols#restXml",
    "aws.protocols#awsQueryCompatible",
    "aws.customizations#s3UnwrappedXmlOutput",
    "aws.api#service",
    "aws.auth#sigv4",
    // Its action name and resource types seed the authorization table.
    "aws.iam#iamAction",
];

/// Traits the generator does not turn into code but that the IDL loader keeps, because the
/// protocol compliance runner reads them (the test cases) or they only describe the protocol
/// test models. [`Model::load_json`] still refuses them: an AWS model carrying one is news.
const KEPT_TRAITS: &[&str] = &[
    "smithy.test#httpRequestTests",
    "smithy.test#httpResponseTests",
    "smithy.test#httpMalformedRequestTests",
    "smithy.test#eventStreamTests",
    "smithy.api#eventHeader",
    "smithy.api#requiresLength",
    "aws.protocols#ec2Query",
    "aws.protocols#ec2QueryName",
    "smithy.protocols#rpcv2Cbor",
    "smithy.protocols#rpcv2Json",
];

/// What a loader does with a trait that is neither handled nor ignored.
#[derive(Debug, Clone, Copy)]
enum OtherTraits {
    /// Keep the ones listed, refuse any other.
    Refuse { kept: &'static [&'static str] },
    /// Keep them all ([`Model::load_json_keeping_unknown_traits`]).
    Keep,
}

/// Whether the generator knows what to do with trait `id` in a JSON AST model: it turns it
/// into code, or knows it does not matter to a server.
pub fn understood_trait(id: &str) -> bool {
    HANDLED_TRAITS.contains(&id) || IGNORED_TRAITS.contains(&id)
}

impl Model {
    /// Reads a JSON AST model file.
    pub fn load_json(path: &Path) -> Result<Model, Error> {
        Model::load_json_with(path, OtherTraits::Refuse { kept: &[] })
    }

    /// Reads a JSON AST model file as [`Model::load_json`] does, but keeps traits the
    /// generator does not understand instead of refusing them (find them with
    /// [`understood_trait`]): for comparing a newer model before the generator learns them.
    pub fn load_json_keeping_unknown_traits(path: &Path) -> Result<Model, Error> {
        Model::load_json_with(path, OtherTraits::Keep)
    }

    fn load_json_with(path: &Path, other_traits: OtherTraits) -> Result<Model, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Model::parse_json(&text, path, other_traits)
    }

    /// Parses JSON AST `text`; `file` names it in errors.
    fn parse_json(text: &str, file: &Path, other_traits: OtherTraits) -> Result<Model, Error> {
        let parse_err = |reason: String| Error::Parse {
            file: file.to_path_buf(),
            reason,
        };
        let root: Value = serde_json::from_str(text).map_err(|e| parse_err(e.to_string()))?;
        let version = root.get("smithy").and_then(Value::as_str).unwrap_or_default();
        if !version.starts_with('2') && !version.starts_with('1') {
            return Err(parse_err(format!("unsupported smithy version {version:?}")));
        }
        let shapes = root
            .get("shapes")
            .and_then(Value::as_object)
            .ok_or_else(|| parse_err("no `shapes` object".into()))?;
        Model::from_shapes(shapes, other_traits)
    }

    /// Parses JSON AST `text` keeping every trait, as
    /// [`Model::load_json_keeping_unknown_traits`] does: for tests that write small models inline.
    #[cfg(test)]
    pub(crate) fn parse_json_keeping_unknown_traits(text: &str) -> Result<Model, Error> {
        Model::parse_json(text, Path::new("<inline>"), OtherTraits::Keep)
    }

    /// Reads the Smithy IDL files of one model set (shapes may refer to each other across
    /// files and namespaces) — the protocol compliance test models. Besides the traits
    /// [`Model::load_json`] accepts, keeps the compliance test traits and a few others that
    /// only those models use.
    pub fn load_idl(paths: &[PathBuf]) -> Result<Model, Error> {
        let ast = crate::idl::to_json_ast(paths)?;
        let shapes = ast["shapes"]
            .as_object()
            .expect("the IDL loader always writes `shapes`");
        Model::from_shapes(shapes, OtherTraits::Refuse { kept: KEPT_TRAITS })
    }

    /// Builds the model from a JSON AST `shapes` object, keeping the handled traits and what
    /// `other_traits` says.
    fn from_shapes(shapes: &Map<String, Value>, other_traits: OtherTraits) -> Result<Model, Error> {
        let mut model = Model::default();
        for (id, node) in shapes {
            let shape = parse_shape(id, node, other_traits)?;
            model.shapes.insert(id.clone(), shape);
        }
        Ok(model)
    }

    /// The shape with absolute id `id`.
    pub fn shape(&self, id: &str) -> Result<&ShapeDef, Error> {
        self.shapes
            .get(id)
            .ok_or_else(|| Error::unsupported(id, "referenced but not defined in the model"))
    }

    /// The model's single service shape.
    pub fn service(&self) -> Result<&ShapeDef, Error> {
        let mut services = self.shapes.values().filter(|s| s.kind == Kind::Service);
        match (services.next(), services.next()) {
            (Some(s), None) => Ok(s),
            _ => Err(Error::unsupported("<model>", "expected exactly one service shape")),
        }
    }
}

fn parse_shape(id: &str, node: &Value, other_traits: OtherTraits) -> Result<ShapeDef, Error> {
    let obj = node
        .as_object()
        .ok_or_else(|| Error::unsupported(id, "shape is not an object"))?;
    let type_name = obj.get("type").and_then(Value::as_str).unwrap_or("");
    let kind =
        Kind::parse(type_name).ok_or_else(|| Error::unsupported(id, format!("unknown shape type {type_name:?}")))?;
    if obj.contains_key("mixins") {
        return Err(Error::unsupported(id, "mixins must be flattened in a JSON AST model"));
    }
    let traits = parse_traits(id, obj.get("traits"), other_traits)?;
    let mut members = Vec::new();
    for key in ["member", "key", "value"] {
        if let Some(m) = obj.get(key) {
            members.push(parse_member(id, key, m, other_traits)?);
        }
    }
    if let Some(ms) = obj.get("members").and_then(Value::as_object) {
        for (name, m) in ms {
            members.push(parse_member(id, name, m, other_traits)?);
        }
    }
    let target = |key: &str| {
        obj.get(key)
            .and_then(|v| v.get("target"))
            .and_then(Value::as_str)
            .map(String::from)
    };
    let targets = |key: &str| -> Vec<String> {
        obj.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.get("target")?.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut operations = targets("operations");
    if kind == Kind::Resource {
        for lifecycle in ["create", "put", "read", "update", "delete", "list"] {
            operations.extend(target(lifecycle));
        }
        operations.extend(targets("collectionOperations"));
    }
    Ok(ShapeDef {
        id: id.to_string(),
        kind,
        members,
        traits,
        input: target("input"),
        output: target("output"),
        errors: targets("errors"),
        operations,
        resources: targets("resources"),
        version: obj.get("version").and_then(Value::as_str).map(String::from),
    })
}

fn parse_member(shape: &str, name: &str, node: &Value, other_traits: OtherTraits) -> Result<MemberDef, Error> {
    let member_id = format!("{shape}${name}");
    let target = node
        .get("target")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::unsupported(&member_id, "member has no target"))?;
    Ok(MemberDef {
        name: name.to_string(),
        target: target.to_string(),
        traits: parse_traits(&member_id, node.get("traits"), other_traits)?,
    })
}

fn parse_traits(shape: &str, node: Option<&Value>, other_traits: OtherTraits) -> Result<Traits, Error> {
    let mut traits = Traits::new();
    let Some(obj) = node.and_then(Value::as_object) else {
        return Ok(traits);
    };
    for (id, value) in obj {
        if IGNORED_TRAITS.contains(&id.as_str()) {
            continue;
        }
        let kept = match other_traits {
            OtherTraits::Refuse { kept } => kept.contains(&id.as_str()),
            OtherTraits::Keep => true,
        };
        if !HANDLED_TRAITS.contains(&id.as_str()) && !kept && !is_trait_definition(obj) {
            return Err(Error::unsupported(
                shape,
                format!("trait {id} is not understood by the generator"),
            ));
        }
        traits.insert(id.clone(), value.clone());
    }
    Ok(traits)
}

/// Shapes that define traits are metadata, not wire shapes; their own traits do not matter.
fn is_trait_definition(traits: &Map<String, Value>) -> bool {
    traits.contains_key("smithy.api#trait")
}
