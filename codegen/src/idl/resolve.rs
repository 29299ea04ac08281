//! Turns the parsed files of one model set into a flattened Smithy JSON AST.
//!
//! In order: every relative shape id is resolved (a `use` import, then a shape of the file's
//! namespace anywhere in the set, then the prelude); `apply` statements add their traits
//! (list-valued traits are concatenated, other conflicting values refused); mixins are
//! flattened — members of mixins first, in the spec's depth-first order, inherited traits
//! except `@mixin` and the mixin's local traits, local traits winning — and elided targets
//! (`$name`) are taken from the `for` resource's identifiers or properties, then from the
//! mixins. Mixin shapes themselves are left out of the result, as in AWS's published
//! (flattened) JSON models.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::parser::{ApplyStmt, Ast, MemberStmt, Node, ShapeStmt, TraitApp};
use super::Pos;
use crate::Error;

const PRELUDE_NAMESPACE: &str = "smithy.api";
const MIXIN: &str = "smithy.api#mixin";

/// Shapes and traits of the Smithy 2.0 prelude (`smithy.api`), which relative ids may name.
const PRELUDE: &[&str] = &[
    // Shapes.
    "String",
    "Blob",
    "BigInteger",
    "BigDecimal",
    "Timestamp",
    "Document",
    "Boolean",
    "Byte",
    "Short",
    "Integer",
    "Long",
    "Float",
    "Double",
    "PrimitiveBoolean",
    "PrimitiveByte",
    "PrimitiveShort",
    "PrimitiveInteger",
    "PrimitiveLong",
    "PrimitiveFloat",
    "PrimitiveDouble",
    "Unit",
    // Traits.
    "addedDefault",
    "auth",
    "authDefinition",
    "box",
    "clientOptional",
    "cors",
    "default",
    "deprecated",
    "documentation",
    "endpoint",
    "enum",
    "enumValue",
    "error",
    "eventHeader",
    "eventPayload",
    "examples",
    "externalDocumentation",
    "hostLabel",
    "http",
    "httpApiKeyAuth",
    "httpBasicAuth",
    "httpBearerAuth",
    "httpChecksumRequired",
    "httpDigestAuth",
    "httpError",
    "httpHeader",
    "httpLabel",
    "httpPayload",
    "httpPrefixHeaders",
    "httpQuery",
    "httpQueryParams",
    "httpResponseCode",
    "idRef",
    "idempotencyToken",
    "idempotent",
    "input",
    "internal",
    "jsonName",
    "length",
    "mediaType",
    "mixin",
    "nestedProperties",
    "noReplace",
    "notProperty",
    "optionalAuth",
    "output",
    "paginated",
    "pattern",
    "private",
    "property",
    "protocolDefinition",
    "range",
    "readonly",
    "recommended",
    "references",
    "requestCompression",
    "required",
    "requiresLength",
    "resourceIdentifier",
    "retryable",
    "sensitive",
    "since",
    "sparse",
    "streaming",
    "suppress",
    "tags",
    "timestampFormat",
    "title",
    "trait",
    "traitValidators",
    "uniqueItems",
    "unitType",
    "unstable",
    "xmlAttribute",
    "xmlFlattened",
    "xmlName",
    "xmlNamespace",
];

/// Whether `id` (absolute) is a prelude shape.
pub(crate) fn is_prelude(id: &str) -> bool {
    id.split_once('#')
        .is_some_and(|(ns, name)| ns == PRELUDE_NAMESPACE && PRELUDE.contains(&name))
}

/// Resolves and flattens the files of one model set into a JSON AST (`{"smithy", "metadata",
/// "shapes"}`).
pub(crate) fn resolve(files: &[(PathBuf, Ast)]) -> Result<Value, Error> {
    let mut defined = HashSet::new();
    for (path, ast) in files {
        let namespace = ast.namespace.as_deref().unwrap_or_default();
        for shape in &ast.shapes {
            let id = format!("{namespace}#{}", shape.name);
            if !defined.insert(id.clone()) {
                return Err(idl_error(
                    path,
                    shape.pos,
                    format!("shape {id} is defined more than once"),
                ));
            }
        }
    }
    let scopes: Vec<Scope> = files
        .iter()
        .map(|(path, ast)| Scope::new(path, ast, &defined))
        .collect();

    let mut metadata = Map::new();
    let mut raws = BTreeMap::new();
    for (index, ((_, ast), scope)) in files.iter().zip(&scopes).enumerate() {
        for (pos, key, node) in &ast.metadata {
            merge_value(&mut metadata, key, scope.node(node)).map_err(|m| scope.error(*pos, m))?;
        }
        for shape in &ast.shapes {
            let raw = Raw::new(index, scope, shape)?;
            raws.insert(raw.id.clone(), raw);
        }
    }
    for ((_, ast), scope) in files.iter().zip(&scopes) {
        for apply in &ast.applies {
            apply_traits(&mut raws, scope, apply)?;
        }
    }

    let mut flattener = Flattener {
        raws: &raws,
        scopes: &scopes,
        done: HashMap::new(),
        visiting: HashSet::new(),
    };
    let mut shapes = Map::new();
    for id in raws.keys() {
        let flat = flattener.flatten(id)?;
        if !flat.traits.contains_key(MIXIN) {
            shapes.insert(id.clone(), flat.to_json(&raws[id]));
        }
    }
    Ok(json!({"smithy": "2.0", "metadata": metadata, "shapes": shapes}))
}

/// Adds the traits of an `apply` statement to its shape or member. Applying to a member a
/// shape only inherits from a mixin redefines it with an elided target, as `$name` would.
fn apply_traits(raws: &mut BTreeMap<String, Raw>, scope: &Scope, apply: &ApplyStmt) -> Result<(), Error> {
    let target = scope.shape_ref(&apply.target, apply.pos)?;
    let (shape_id, member) = match target.split_once('$') {
        Some((shape, member)) => (shape.to_string(), Some(member)),
        None => (target.clone(), None),
    };
    let raw = raws
        .get_mut(&shape_id)
        .ok_or_else(|| scope.error(apply.pos, format!("apply to {target}, which is not defined")))?;
    let traits = match member {
        None => &mut raw.traits,
        Some(name) => match raw.members.iter().position(|m| m.name == name) {
            Some(i) => &mut raw.members[i].traits,
            None if !raw.mixins.is_empty() => {
                raw.members.push(RawMember {
                    name: name.to_string(),
                    target: None,
                    traits: Map::new(),
                    pos: apply.pos,
                });
                &mut raw.members.last_mut().expect("just pushed").traits
            }
            None => return Err(scope.error(apply.pos, format!("apply to {target}, which has no such member"))),
        },
    };
    scope.add_traits(traits, &apply.traits)
}

fn idl_error(file: &Path, pos: Pos, message: impl Into<String>) -> Error {
    Error::Idl {
        file: file.to_path_buf(),
        line: pos.line,
        column: pos.column,
        message: message.into(),
    }
}

/// One file's view of shape ids: its namespace, its `use` imports, and the set's shapes.
struct Scope<'a> {
    file: &'a Path,
    namespace: &'a str,
    uses: HashMap<&'a str, &'a str>,
    defined: &'a HashSet<String>,
}

impl<'a> Scope<'a> {
    fn new(file: &'a Path, ast: &'a Ast, defined: &'a HashSet<String>) -> Scope<'a> {
        let uses = ast
            .uses
            .iter()
            .map(|id| (id.rsplit('#').next().unwrap_or(id), id.as_str()))
            .collect();
        Scope {
            file,
            namespace: ast.namespace.as_deref().unwrap_or_default(),
            uses,
            defined,
        }
    }

    fn error(&self, pos: Pos, message: impl Into<String>) -> Error {
        idl_error(self.file, pos, message)
    }

    /// The absolute id of `id`, or `None` when a relative id names nothing known.
    fn lookup(&self, id: &str) -> Option<String> {
        if id.contains('#') {
            return Some(id.to_string());
        }
        let (root, member) = match id.split_once('$') {
            Some((root, member)) => (root, format!("${member}")),
            None => (id, String::new()),
        };
        let local = format!("{}#{root}", self.namespace);
        let absolute = if let Some(imported) = self.uses.get(root) {
            imported.to_string()
        } else if self.defined.contains(&local) {
            local
        } else if PRELUDE.contains(&root) {
            format!("{PRELUDE_NAMESPACE}#{root}")
        } else {
            return None;
        };
        Some(absolute + &member)
    }

    /// A reference to a shape or trait, which must resolve.
    fn shape_ref(&self, id: &str, pos: Pos) -> Result<String, Error> {
        self.lookup(id).ok_or_else(|| {
            self.error(
                pos,
                format!(
                    "cannot resolve shape id `{id}`: not imported, not defined in namespace {}, not in the prelude",
                    self.namespace
                ),
            )
        })
    }

    /// A node value; unquoted shape ids that resolve to nothing take the file's namespace,
    /// as the spec says for syntactic shape ids.
    fn node(&self, node: &Node) -> Value {
        match node {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::Str(s) => Value::String(s.clone()),
            Node::Id(id) => Value::String(self.lookup(id).unwrap_or_else(|| format!("{}#{id}", self.namespace))),
            Node::Array(items) => Value::Array(items.iter().map(|n| self.node(n)).collect()),
            Node::Object(entries) => Value::Object(entries.iter().map(|(k, v)| (k.clone(), self.node(v))).collect()),
        }
    }

    fn add_traits(&self, traits: &mut Map<String, Value>, apps: &[TraitApp]) -> Result<(), Error> {
        for app in apps {
            let id = self.shape_ref(&app.id, app.pos)?;
            merge_value(traits, &id, self.node(&app.value)).map_err(|m| self.error(app.pos, m))?;
        }
        Ok(())
    }

    /// Service, resource and operation properties in JSON AST form: shape references become
    /// `{"target": id}`.
    fn properties(&self, shape: &ShapeStmt) -> Result<Map<String, Value>, Error> {
        let mut props = Map::new();
        for (key, node) in &shape.properties {
            let target = |node: &Node| -> Result<Value, Error> {
                match node {
                    Node::Id(id) => Ok(json!({"target": self.shape_ref(id, shape.pos)?})),
                    _ => Err(self.error(shape.pos, format!("`{key}` of {} must be a shape id", shape.name))),
                }
            };
            let value = match (key.as_str(), node) {
                ("version", _) | ("rename", _) => self.node(node),
                ("input" | "output" | "create" | "put" | "read" | "update" | "delete" | "list", _) => target(node)?,
                ("operations" | "resources" | "errors" | "collectionOperations", Node::Array(items)) => {
                    Value::Array(items.iter().map(target).collect::<Result<_, _>>()?)
                }
                ("identifiers" | "properties", Node::Object(entries)) => Value::Object(
                    entries
                        .iter()
                        .map(|(name, id)| Ok((name.clone(), target(id)?)))
                        .collect::<Result<_, Error>>()?,
                ),
                _ => {
                    return Err(self.error(
                        shape.pos,
                        format!("`{key}` is not a valid {} property here", shape.kind),
                    ))
                }
            };
            props.insert(key.clone(), value);
        }
        Ok(props)
    }
}

/// Adds `value` under `key`; arrays already present are extended, equal values accepted,
/// anything else is a conflict.
fn merge_value(map: &mut Map<String, Value>, key: &str, value: Value) -> Result<(), String> {
    match map.get_mut(key) {
        None => {
            map.insert(key.to_string(), value);
            Ok(())
        }
        Some(Value::Array(existing)) if value.is_array() => {
            existing.extend(value.as_array().into_iter().flatten().cloned());
            Ok(())
        }
        Some(existing) if *existing == value => Ok(()),
        Some(_) => Err(format!("conflicting values for `{key}`")),
    }
}

/// A member before flattening; `target` is `None` while elided.
#[derive(Clone)]
struct RawMember {
    name: String,
    target: Option<String>,
    traits: Map<String, Value>,
    pos: Pos,
}

/// A shape with resolved ids, before mixins are flattened.
struct Raw {
    id: String,
    kind: String,
    scope: usize,
    pos: Pos,
    traits: Map<String, Value>,
    mixins: Vec<String>,
    resource: Option<String>,
    members: Vec<RawMember>,
    properties: Map<String, Value>,
}

impl Raw {
    fn new(scope_index: usize, scope: &Scope, shape: &ShapeStmt) -> Result<Raw, Error> {
        let mut traits = Map::new();
        scope.add_traits(&mut traits, &shape.traits)?;
        let refs = |ids: &[String]| -> Result<Vec<String>, Error> {
            ids.iter().map(|id| scope.shape_ref(id, shape.pos)).collect()
        };
        let members = shape
            .members
            .iter()
            .map(|m| raw_member(scope, &shape.kind, m))
            .collect::<Result<_, _>>()?;
        Ok(Raw {
            id: format!("{}#{}", scope.namespace, shape.name),
            kind: shape.kind.clone(),
            scope: scope_index,
            pos: shape.pos,
            traits,
            mixins: refs(&shape.mixins)?,
            resource: shape
                .resource
                .as_ref()
                .map(|r| scope.shape_ref(r, shape.pos))
                .transpose()?,
            members,
            properties: scope.properties(shape)?,
        })
    }
}

fn raw_member(scope: &Scope, kind: &str, member: &MemberStmt) -> Result<RawMember, Error> {
    let mut traits = Map::new();
    scope.add_traits(&mut traits, &member.traits)?;
    let is_enum = kind == "enum" || kind == "intEnum";
    let target = if is_enum {
        Some(format!("{PRELUDE_NAMESPACE}#Unit"))
    } else {
        member
            .target
            .as_ref()
            .map(|t| scope.shape_ref(t, member.pos))
            .transpose()?
    };
    let sugar = if is_enum {
        "smithy.api#enumValue"
    } else {
        "smithy.api#default"
    };
    let value = match &member.value {
        Some(node) => Some(scope.node(node)),
        None if kind == "enum" && !traits.contains_key(sugar) => Some(Value::String(member.name.clone())),
        None => None,
    };
    if let Some(value) = value {
        merge_value(&mut traits, sugar, value).map_err(|m| scope.error(member.pos, m))?;
    }
    Ok(RawMember {
        name: member.name.clone(),
        target,
        traits,
        pos: member.pos,
    })
}

/// A shape with its mixins applied.
#[derive(Clone)]
struct Flat {
    traits: Map<String, Value>,
    members: Vec<RawMember>,
    properties: Map<String, Value>,
}

impl Flat {
    fn to_json(&self, raw: &Raw) -> Value {
        let member = |m: &RawMember| {
            let mut obj = json!({"target": m.target});
            if !m.traits.is_empty() {
                obj["traits"] = Value::Object(m.traits.clone());
            }
            obj
        };
        let mut obj = Map::new();
        obj.insert("type".into(), Value::String(raw.kind.clone()));
        match raw.kind.as_str() {
            "list" | "set" | "map" => {
                for m in &self.members {
                    obj.insert(m.name.clone(), member(m));
                }
            }
            "structure" | "union" | "enum" | "intEnum" => {
                let members = self.members.iter().map(|m| (m.name.clone(), member(m))).collect();
                obj.insert("members".into(), Value::Object(members));
            }
            _ => {}
        }
        obj.extend(self.properties.clone());
        if !self.traits.is_empty() {
            obj.insert("traits".into(), Value::Object(self.traits.clone()));
        }
        Value::Object(obj)
    }
}

struct Flattener<'a> {
    raws: &'a BTreeMap<String, Raw>,
    scopes: &'a [Scope<'a>],
    done: HashMap<String, Flat>,
    visiting: HashSet<String>,
}

impl Flattener<'_> {
    fn flatten(&mut self, id: &str) -> Result<Flat, Error> {
        if let Some(flat) = self.done.get(id) {
            return Ok(flat.clone());
        }
        let raw = &self.raws[id];
        let scope = &self.scopes[raw.scope];
        if !self.visiting.insert(id.to_string()) {
            return Err(scope.error(raw.pos, format!("mixins of {id} form a cycle")));
        }
        let mut traits = Map::new();
        let mut members: Vec<RawMember> = Vec::new();
        let mut properties = Map::new();
        for mixin_id in &raw.mixins {
            let mixin = self.raws.get(mixin_id).filter(|m| m.traits.contains_key(MIXIN));
            if mixin.is_none_or(|m| m.kind != raw.kind) {
                return Err(scope.error(raw.pos, format!("{mixin_id} is not a {} mixin", raw.kind)));
            }
            let flat = self.flatten(mixin_id)?;
            let local: Vec<Value> = flat.traits[MIXIN]
                .get("localTraits")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for (key, value) in &flat.traits {
                if key != MIXIN && !local.contains(&Value::String(key.clone())) {
                    traits.insert(key.clone(), value.clone());
                }
            }
            for member in flat.members {
                self.add_member(raw, &mut members, member)?;
            }
            for (key, value) in flat.properties {
                merge_property(&mut properties, key, value);
            }
        }
        traits.extend(raw.traits.clone());
        let mixed_in = members.clone();
        for member in &raw.members {
            let mut member = member.clone();
            if member.target.is_none() {
                member.target = Some(self.elided_target(raw, &mixed_in, &member)?);
            }
            self.add_member(raw, &mut members, member)?;
        }
        for (key, value) in raw.properties.clone() {
            merge_property(&mut properties, key, value);
        }
        let flat = Flat {
            traits,
            members,
            properties,
        };
        self.visiting.remove(id);
        self.done.insert(id.to_string(), flat.clone());
        Ok(flat)
    }

    /// Adds a member, or merges it into the mixed-in member of the same name (its traits win).
    fn add_member(&self, raw: &Raw, members: &mut Vec<RawMember>, member: RawMember) -> Result<(), Error> {
        match members.iter_mut().find(|m| m.name == member.name) {
            None => members.push(member),
            Some(existing) if existing.target == member.target => existing.traits.extend(member.traits),
            Some(existing) => {
                return Err(self.scopes[raw.scope].error(
                    member.pos,
                    format!(
                        "member {} of {} targets {:?}, but a mixin's member of that name targets {:?}",
                        member.name, raw.id, member.target, existing.target
                    ),
                ))
            }
        }
        Ok(())
    }

    /// The target of an elided member: the `for` resource's identifier or property of that
    /// name, else the mixin member of that name.
    fn elided_target(&self, raw: &Raw, mixed_in: &[RawMember], member: &RawMember) -> Result<String, Error> {
        let from_resource = raw.resource.as_ref().and_then(|resource| {
            let props = &self.raws.get(resource)?.properties;
            ["identifiers", "properties"]
                .iter()
                .find_map(|key| props.get(*key)?.get(&member.name)?.get("target")?.as_str())
        });
        from_resource
            .map(String::from)
            .or_else(|| mixed_in.iter().find(|m| m.name == member.name)?.target.clone())
            .ok_or_else(|| {
                self.scopes[raw.scope].error(
                    member.pos,
                    format!(
                        "elided member ${} of {} matches no resource identifier, property or mixin member",
                        member.name, raw.id
                    ),
                )
            })
    }
}

/// Merges a mixin's service/resource/operation property into the shape's: lists are
/// concatenated without duplicates, objects merged, scalars replaced (local values come last).
fn merge_property(props: &mut Map<String, Value>, key: String, value: Value) {
    match (props.get_mut(&key), value) {
        (Some(Value::Array(existing)), Value::Array(items)) => {
            for item in items {
                if !existing.contains(&item) {
                    existing.push(item);
                }
            }
        }
        (Some(Value::Object(existing)), Value::Object(entries)) => existing.extend(entries),
        (_, value) => {
            props.insert(key, value);
        }
    }
}
