//! The `authorization` module of `schema.rs`: the service's IAM table
//! (`stratus_core::authz::Authorization`), one entry per operation in `SERVICE`'s order.
//!
//! Each operation gets the default rule — action `<prefix>:<Operation>` (or the model's own
//! `aws.iam#iamAction` name), on the resource types the model's `aws.iam#iamAction` names or
//! the data file infers from the input's members, else `*` — unless the data file says
//! otherwise. Anything the data file names that the model lacks (an operation, a member, a
//! list step on a non-list) stops generation, as do unknown transforms and template variables
//! nothing fills.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value as Node;

use super::{OperationInfo, ServiceGen, UNIT};
use crate::authorization::{ActionDef, Data, Pieces, ResourceRef, ResourceRefs};
use crate::model::Kind;
use crate::Error;

const CONTEXT_VARIABLES: [&str; 3] = ["Partition", "Region", "Account"];

/// The condition key whose source is the request's tags as pairs
/// (`stratus_core::authz::REQUEST_TAG_KEY`).
const REQUEST_TAG_KEY: &str = "aws:RequestTag/${TagKey}";

const TRANSFORMS: &[(&str, &str)] = &[
    ("text", "Text"),
    ("arn", "Arn"),
    ("name_or_arn", "NameOrArn"),
    ("lambda_function", "LambdaFunction"),
    ("qualifier_suffix", "QualifierSuffix"),
    ("queue_url_name", "QueueUrlName"),
    ("queue_url_account", "QueueUrlAccount"),
    ("copy_source_bucket", "CopySourceBucket"),
    ("copy_source_key", "CopySourceKey"),
    ("copy_source_version", "CopySourceVersion"),
    ("iam_path", "IamPath"),
    ("strip_leading_slash", "StripLeadingSlash"),
    ("partiql_select", "PartiqlSelect"),
    ("partiql_insert", "PartiqlInsert"),
    ("partiql_update", "PartiqlUpdate"),
    ("partiql_delete", "PartiqlDelete"),
];

/// Transforms that give a value for an absent member, so a binding made of them alone does
/// not make a resource depend on the member.
const SPEAK_FOR_ABSENT: [&str; 2] = ["IamPath", "QualifierSuffix"];

/// A resolved member path and transform.
struct Src {
    steps: Vec<String>,
    transform: &'static str,
}

struct Res {
    resource_type: String,
    arn: String,
    bindings: Vec<(String, Vec<Src>)>,
}

struct Act {
    action: String,
    only_if: Option<(Src, bool)>,
    resources: Vec<Res>,
    conditions: Vec<(String, Src)>,
}

impl ServiceGen<'_> {
    /// The `authorization` module source.
    pub(super) fn authorization_module(&self) -> Result<String, Error> {
        let default_data;
        let data = match self.authorization {
            Some(d) => d,
            None => {
                default_data = Data {
                    prefix: self.default_prefix(),
                    http_actions: false,
                    resource: BTreeMap::new(),
                    operation: BTreeMap::new(),
                };
                &default_data
            }
        };
        let fail = |reason: String| Error::Authorization {
            file: format!("authorization/{}.toml", self.entry.sdk_id),
            reason,
        };
        for name in data.operation.keys() {
            if !self.operations.iter().any(|o| o.shape.name() == name) {
                return Err(fail(format!(
                    "operation {name} is not an operation of {}",
                    self.sdk_id_text()
                )));
            }
        }
        let mut ops = String::new();
        let mut pool = Pool::default();
        for op in &self.operations {
            let name = op.shape.name();
            let acts = self
                .operation_actions(data, op, data.operation.get(name))
                .map_err(|r| fail(format!("operation {name}: {r}")))?;
            ops.push_str("OperationAuthorization { actions: &[");
            for a in acts {
                write_action(&mut ops, &a, &mut pool);
            }
            ops.push_str("] },\n");
        }
        let mut types = String::new();
        for (name, def) in &data.resource {
            let _ = write!(types, "ResourceType {{ name: {name:?}, arn: {:?} }}, ", def.arn);
        }
        Ok(format!(
            "/// Which IAM actions each operation needs, on which resources (docs/authorization.md).\n\
             pub mod authorization {{\n\
             use stratus_core::authz::*;\n\n\
             /// One entry per operation, in the order of `SERVICE.operations`.\n\
             pub static AUTHORIZATION: Authorization = Authorization {{\n\
             prefix: {:?},\nresource_types: &[{types}],\noperations: &[\n{ops}],\n}};\n\n{}}}\n",
            data.prefix, pool.defs
        ))
    }

    /// The prefix of a service without a data file: its ARN namespace, else its signing name.
    fn default_prefix(&self) -> String {
        let svc = &self.service.traits;
        svc.get("aws.api#service")
            .and_then(|t| t.get("arnNamespace"))
            .or_else(|| svc.get("aws.auth#sigv4").and_then(|t| t.get("name")))
            .and_then(Node::as_str)
            .map_or_else(|| self.entry.sdk_id.clone(), str::to_string)
    }

    fn operation_actions(
        &self,
        data: &Data,
        op: &OperationInfo<'_>,
        def: Option<&ActionDef>,
    ) -> Result<Vec<Act>, String> {
        let iam_action = op.shape.traits.get("aws.iam#iamAction");
        let model_name = iam_action.and_then(|t| t.get("name")).and_then(Node::as_str);
        let http = op.shape.traits.get("smithy.api#http");
        let method = http.and_then(|h| h.get("method")).and_then(Node::as_str);
        let default_action = match method {
            Some(m) if data.http_actions => format!("{}:{m}", data.prefix),
            _ => format!("{}:{}", data.prefix, model_name.unwrap_or(op.shape.name())),
        };
        let Some(def) = def else {
            return Ok(vec![self.default_action(data, op, default_action)?]);
        };
        match &def.actions {
            Some(list) => {
                if def.action.is_some() || def.resource.is_some() || def.bind.is_some() || !def.conditions.is_empty() {
                    return Err("give either `actions` or the fields of one action, not both".into());
                }
                let mut out = Vec::new();
                for a in list {
                    if a.actions.is_some() {
                        return Err("an entry of `actions` has `actions` of its own".into());
                    }
                    let name = a.action.as_deref().ok_or("an entry of `actions` names no action")?;
                    out.push(self.one_action(data, op, a, qualify(&data.prefix, name))?);
                }
                Ok(out)
            }
            None => {
                let name = def
                    .action
                    .as_deref()
                    .map_or(default_action, |n| qualify(&data.prefix, n));
                Ok(vec![self.one_action(data, op, def, name)?])
            }
        }
    }

    fn default_action(&self, data: &Data, op: &OperationInfo<'_>, action: String) -> Result<Act, String> {
        Ok(Act {
            action,
            only_if: None,
            resources: self.implied_resources(data, op)?,
            conditions: Vec::new(),
        })
    }

    /// The resources of an operation whose data names none: the model's `iamAction` resource
    /// types that its input can fill, else the inferred ones.
    fn implied_resources(&self, data: &Data, op: &OperationInfo<'_>) -> Result<Vec<Res>, String> {
        let named: Vec<&str> = op
            .shape
            .traits
            .get("aws.iam#iamAction")
            .and_then(|t| t.get("resources"))
            .map(|r| {
                ["required", "optional"]
                    .iter()
                    .filter_map(|k| r.get(*k).and_then(Node::as_object))
                    .flat_map(|m| m.keys().map(String::as_str))
                    .collect()
            })
            .unwrap_or_default();
        let mut out = Vec::new();
        for name in &named {
            if let Some(def) = data.resource.get(*name) {
                if let Ok(res) = self.resource(op, name, &def.arn, &def.bind, true) {
                    out.push(res);
                }
            }
        }
        if !named.is_empty() {
            return Ok(out);
        }
        if data.http_actions {
            return self.route_resource(data, op).map(|r| vec![r]);
        }
        let mut best: Vec<Res> = Vec::new();
        for (name, def) in data.resource.iter().filter(|(_, d)| d.infer) {
            let Ok(res) = self.resource(op, name, &def.arn, &def.bind, true) else {
                continue;
            };
            let depends = |r: &Res| {
                r.bindings
                    .iter()
                    .filter(|(_, p)| p.iter().any(|s| !SPEAK_FOR_ABSENT.contains(&s.transform)))
                    .count()
            };
            match best.first().map(depends) {
                Some(n) if n > depends(&res) => {}
                Some(n) if n == depends(&res) => best.push(res),
                _ => best = vec![res],
            }
        }
        Ok(best)
    }

    fn one_action(&self, data: &Data, op: &OperationInfo<'_>, def: &ActionDef, action: String) -> Result<Act, String> {
        let only_if = match (&def.when, &def.unless) {
            (Some(_), Some(_)) => return Err("give `when` or `unless`, not both".into()),
            (Some(p), None) => Some((self.source(op, p)?, true)),
            (None, Some(p)) => Some((self.source(op, p)?, false)),
            (None, None) => None,
        };
        let resources = match &def.resource {
            None if def.bind.is_some() => return Err("`bind` without `resource`".into()),
            None => self.implied_resources(data, op)?,
            Some(ResourceRefs::One(s)) if s == "*" => Vec::new(),
            Some(ResourceRefs::One(name)) => {
                let rd = data
                    .resource
                    .get(name)
                    .ok_or_else(|| format!("no resource type {name}"))?;
                let bind = def.bind.as_ref().unwrap_or(&rd.bind);
                vec![self.resource(op, name, &rd.arn, bind, def.bind.is_none())?]
            }
            Some(ResourceRefs::Many(list)) => {
                if def.bind.is_some() {
                    return Err("`bind` beside a list of resources: give each its own".into());
                }
                let mut out = Vec::new();
                for r in list {
                    out.push(match r {
                        ResourceRef::Named(name) => {
                            let rd = data
                                .resource
                                .get(name)
                                .ok_or_else(|| format!("no resource type {name}"))?;
                            self.resource(op, name, &rd.arn, &rd.bind, true)?
                        }
                        ResourceRef::Full(f) => match (&f.resource_type, &f.arn) {
                            (Some(name), None) => {
                                let rd = data
                                    .resource
                                    .get(name)
                                    .ok_or_else(|| format!("no resource type {name}"))?;
                                let bind = if f.bind.is_empty() { &rd.bind } else { &f.bind };
                                self.resource(op, name, &rd.arn, bind, f.bind.is_empty())?
                            }
                            (None, Some(member)) if f.bind.is_empty() => {
                                let bind = BTreeMap::from([("Arn".to_string(), Pieces::One(format!("{member}|arn")))]);
                                self.resource(op, "arn", "${Arn}", &bind, false)?
                            }
                            _ => return Err("a resource entry has either `type` (and `bind`) or `arn`".into()),
                        },
                    });
                }
                out
            }
        };
        let mut conditions = Vec::new();
        for (key, spec) in &def.conditions {
            let source = match key.as_str() {
                REQUEST_TAG_KEY => self.tag_pairs(op, spec)?,
                _ => self.source(op, spec)?,
            };
            conditions.push((key.clone(), source));
        }
        Ok(Act {
            action,
            only_if,
            resources,
            conditions,
        })
    }

    /// A resource of `op`. With a type's own bindings (`lenient`), a piece that speaks for an
    /// absent member is left out where the input has no such member: a function's qualifier
    /// suffix is the type's, but not every operation on functions takes a qualifier.
    fn resource(
        &self,
        op: &OperationInfo<'_>,
        name: &str,
        arn: &str,
        bind: &BTreeMap<String, Pieces>,
        lenient: bool,
    ) -> Result<Res, String> {
        check_template(arn, bind.keys())?;
        let mut bindings = Vec::new();
        for (var, pieces) in bind {
            if !arn.contains(&format!("${{{var}}}")) {
                continue;
            }
            let mut srcs = Vec::new();
            for p in pieces.list() {
                match self.source(op, p) {
                    Ok(src) => srcs.push(src),
                    Err(_) if lenient && speaks_for_absent(p) => {}
                    Err(e) => return Err(e),
                }
            }
            bindings.push((var.clone(), srcs));
        }
        Ok(Res {
            resource_type: name.to_string(),
            arn: arn.to_string(),
            bindings,
        })
    }

    /// The resource of an HTTP-method action: the route's path under the service's ARN, each
    /// label filled from its member.
    fn route_resource(&self, data: &Data, op: &OperationInfo<'_>) -> Result<Res, String> {
        let uri = op
            .shape
            .traits
            .get("smithy.api#http")
            .and_then(|h| h.get("uri"))
            .and_then(Node::as_str)
            .ok_or("`http_actions` needs every operation to have an @http route")?;
        let path = uri.split('?').next().unwrap_or_default();
        let mut arn = format!("arn:${{Partition}}:{}:${{Region}}::", data.prefix);
        let mut bind = BTreeMap::new();
        let mut rest = path;
        while let Some(start) = rest.find('{') {
            let len = rest[start..]
                .find('}')
                .ok_or_else(|| format!("unclosed label in {uri}"))?;
            let label = rest[start + 1..start + len].trim_end_matches('+');
            arn.push_str(&rest[..start]);
            arn.push_str(&format!("${{{label}}}"));
            bind.insert(label.to_string(), Pieces::One(label.to_string()));
            rest = &rest[start + len + 1..];
        }
        arn.push_str(rest);
        self.resource(op, "route", &arn, &bind, false)
    }

    /// `Member.Path[]|transform`.
    fn source(&self, op: &OperationInfo<'_>, spec: &str) -> Result<Src, String> {
        let (path, transform) = spec.split_once('|').unwrap_or((spec, "text"));
        let transform = TRANSFORMS
            .iter()
            .find(|(n, _)| *n == transform)
            .map(|(_, v)| *v)
            .ok_or_else(|| format!("unknown transform {transform} in {spec:?}"))?;
        Ok(Src {
            steps: self.path(op, path)?,
            transform,
        })
    }

    /// The request's tags at `path` (`aws:RequestTag/${TagKey}`): a map of tag values by
    /// key, or a list of tag structures (`Key`/`Value`, or KMS's `TagKey`/`TagValue`).
    fn tag_pairs(&self, op: &OperationInfo<'_>, path: &str) -> Result<Src, String> {
        let (mut steps, target) = self.path_and_target(op, path)?;
        let shape = self.shape(&target).map_err(|e| e.to_string())?;
        let pairs = match shape.kind {
            Kind::Map => "Step::Entries".to_string(),
            Kind::List => {
                let element = self.shape(&shape.members[0].target).map_err(|e| e.to_string())?;
                let find = |names: [&str; 2]| {
                    element
                        .members
                        .iter()
                        .position(|m| names.contains(&m.name.as_str()))
                        .ok_or_else(|| format!("{path}: the elements of {} have no {} member", shape.name(), names[0]))
                };
                let key = find(["Key", "TagKey"])?;
                let value = find(["Value", "TagValue"])?;
                format!("Step::Pairs {{ key: {key}, value: {value} }}")
            }
            _ => return Err(format!("{path}: {REQUEST_TAG_KEY} needs a map or a list of tags")),
        };
        steps.push(pairs);
        Ok(Src {
            steps,
            transform: "Text",
        })
    }

    /// The steps of a member path through the operation's input.
    fn path(&self, op: &OperationInfo<'_>, path: &str) -> Result<Vec<String>, String> {
        self.path_and_target(op, path).map(|(steps, _)| steps)
    }

    /// [`Self::path`], and the shape the path ends at.
    fn path_and_target(&self, op: &OperationInfo<'_>, path: &str) -> Result<(Vec<String>, String), String> {
        let input = op.shape.name();
        if op.input == UNIT {
            return Err(format!("{input} has no input, so no member {path}"));
        }
        let mut shape_id = op.input.clone();
        let mut steps = Vec::new();
        let parts: Vec<&str> = path.split('.').collect();
        for (n, part) in parts.iter().enumerate() {
            let (name, each) = match (part.strip_suffix("[]"), part.strip_suffix("{}")) {
                (Some(n), _) => (n, Some("[]")),
                (_, Some(n)) => (n, Some("{}")),
                _ => (*part, None),
            };
            let shape = self.shape(&shape_id).map_err(|e| e.to_string())?;
            if !matches!(shape.kind, Kind::Structure | Kind::Union) {
                return Err(format!("{path}: {} is not a structure", shape.name()));
            }
            let (index, member) = shape
                .members
                .iter()
                .enumerate()
                .find(|(_, m)| m.name == name)
                .ok_or_else(|| format!("{path}: {} has no member {name}", shape.name()))?;
            steps.push(format!("Step::Member({index})"));
            shape_id = member.target.clone();
            if each == Some("{}") {
                let target = self
                    .shape(&shape_id)
                    .map_err(|_| format!("{path}: {name} is not a map"))?;
                if target.kind != Kind::Map || n + 1 != parts.len() {
                    return Err(format!("{path}: `{{}}` takes the keys of a map, at the end of a path"));
                }
                steps.push("Step::Keys".into());
            } else if each.is_some() {
                let target = self
                    .shape(&shape_id)
                    .map_err(|_| format!("{path}: {name} is not a list or map"))?;
                shape_id = match target.kind {
                    Kind::List => target.members[0].target.clone(),
                    Kind::Map => target.members[1].target.clone(),
                    _ => return Err(format!("{path}: {name} is not a list or map")),
                };
                steps.push("Step::Each".into());
            }
        }
        Ok((steps, shape_id))
    }
}

/// Whether a binding piece names a transform that speaks for an absent member.
fn speaks_for_absent(spec: &str) -> bool {
    let transform = spec.split_once('|').map_or("text", |(_, t)| t);
    TRANSFORMS
        .iter()
        .any(|(n, v)| *n == transform && SPEAK_FOR_ABSENT.contains(v))
}

fn qualify(prefix: &str, name: &str) -> String {
    if name.contains(':') {
        name.to_string()
    } else {
        format!("{prefix}:{name}")
    }
}

/// Every `${Variable}` of `arn` is bound or the request's own.
fn check_template<'a>(arn: &str, bound: impl Iterator<Item = &'a String> + Clone) -> Result<(), String> {
    let mut rest = arn;
    while let Some(start) = rest.find("${") {
        let len = rest[start..]
            .find('}')
            .ok_or_else(|| format!("unclosed variable in {arn}"))?;
        let name = &rest[start + 2..start + len];
        if !CONTEXT_VARIABLES.contains(&name) && !bound.clone().any(|b| b == name) {
            return Err(format!("nothing binds ${{{name}}} of {arn}"));
        }
        rest = &rest[start + len + 1..];
    }
    Ok(())
}

fn write_source(out: &mut String, s: &Src) {
    let _ = write!(
        out,
        "Source {{ path: &[{}], transform: Transform::{} }}",
        s.steps.join(", "),
        s.transform
    );
}

/// Resource lists many operations share (the same member fills the same template), written
/// once as statics.
#[derive(Default)]
struct Pool {
    names: BTreeMap<String, String>,
    defs: String,
}

impl Pool {
    /// The name of a static holding the array `items` of `ty`.
    fn intern(&mut self, ty: &str, count: usize, items: String) -> String {
        if let Some(name) = self.names.get(&items) {
            return name.clone();
        }
        let name = format!("R{}", self.names.len());
        let _ = writeln!(self.defs, "static {name}: [{ty}; {count}] = [{items}];");
        self.names.insert(items, name.clone());
        name
    }
}

fn write_action(out: &mut String, a: &Act, pool: &mut Pool) {
    let only_if = match &a.only_if {
        Some((src, present)) => format!(
            "Some(Presence {{ path: &[{}], transform: Transform::{}, present: {present} }})",
            src.steps.join(", "),
            src.transform
        ),
        None => "None".into(),
    };
    let resources = if a.resources.is_empty() {
        "&[]".to_string()
    } else {
        let mut items = String::new();
        for r in &a.resources {
            let _ = write!(
                items,
                "ResourceRule {{ resource_type: {:?}, arn: {:?}, bindings: &[",
                r.resource_type, r.arn
            );
            for (var, pieces) in &r.bindings {
                let _ = write!(items, "Binding {{ variable: {var:?}, pieces: &[");
                for p in pieces {
                    write_source(&mut items, p);
                    items.push(',');
                }
                items.push_str("] },");
            }
            items.push_str("] },");
        }
        format!("&{}", pool.intern("ResourceRule", a.resources.len(), items))
    };
    let _ = write!(
        out,
        "ActionRule {{ action: {:?}, only_if: {only_if}, resources: {resources}, conditions: &[",
        a.action
    );
    for (key, src) in &a.conditions {
        let _ = write!(out, "ConditionRule {{ key: {key:?}, source: ");
        write_source(out, src);
        out.push_str(" },");
    }
    out.push_str("] },");
}
