//! `models/authorization/<sdk-id>.toml`: a service's IAM prefix, resource types and, per
//! operation, where it departs from the default rule (docs/authorization.md).
//!
//! This module only reads the file; `emit::authorization` checks it against the model and
//! writes the table.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::Error;

/// One service's authorization data.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Data {
    /// The IAM service prefix (`s3`, `states`).
    pub prefix: String,
    /// Whether actions are the HTTP method of the operation's route on the route's path
    /// (`apigateway:GET` on `arn:aws:apigateway:us-east-1::/restapis/a1b2`), as API Gateway's
    /// management API is authorized, instead of `<prefix>:<Operation>` on `*`.
    #[serde(default)]
    pub http_actions: bool,
    /// Resource types by name.
    #[serde(default)]
    pub resource: BTreeMap<String, ResourceDef>,
    /// Operations that depart from the default rule, by operation name.
    #[serde(default)]
    pub operation: BTreeMap<String, ActionDef>,
}

/// A resource type.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceDef {
    /// The ARN template, with `${Variable}`s.
    pub arn: String,
    /// How an operation that names the type fills its variables, unless it says otherwise.
    #[serde(default)]
    pub bind: BTreeMap<String, Pieces>,
    /// Whether an operation that names no resource, and whose input has every member these
    /// bindings read, gets this resource (the one with the most bindings, when several fit).
    #[serde(default)]
    pub infer: bool,
}

/// A binding's sources: one member path, or several whose texts are concatenated.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Pieces {
    One(String),
    Many(Vec<String>),
}

impl Pieces {
    pub fn list(&self) -> Vec<&str> {
        match self {
            Pieces::One(s) => vec![s.as_str()],
            Pieces::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// What an operation needs: one action, or several in `actions` (each without `actions` of
/// its own).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionDef {
    /// The action, when it is not `<prefix>:<Operation>`; a name without a colon takes the
    /// service's prefix.
    pub action: Option<String>,
    /// `"*"`, a resource type, or a list of them.
    pub resource: Option<ResourceRefs>,
    /// Bindings for the (single) resource named by `resource`, instead of the type's own.
    pub bind: Option<BTreeMap<String, Pieces>>,
    /// Condition key → member path.
    #[serde(default)]
    pub conditions: BTreeMap<String, String>,
    /// The action is needed only when this member is present.
    pub when: Option<String>,
    /// The action is needed only when this member is absent.
    pub unless: Option<String>,
    /// Several actions, instead of the fields above.
    pub actions: Option<Vec<ActionDef>>,
}

/// `resource = …`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ResourceRefs {
    One(String),
    Many(Vec<ResourceRef>),
}

/// One entry of a resource list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ResourceRef {
    Named(String),
    Full(FullRef),
}

/// A resource type with its own bindings, or a member that is an ARN (`arn = "Role"`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FullRef {
    #[serde(rename = "type")]
    pub resource_type: Option<String>,
    #[serde(default)]
    pub bind: BTreeMap<String, Pieces>,
    /// A member holding a whole ARN of any service.
    pub arn: Option<String>,
}

impl Data {
    /// Reads `path`.
    pub fn load(path: &Path) -> Result<Data, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Data::parse(&text).map_err(|reason| Error::Authorization {
            file: path.display().to_string(),
            reason,
        })
    }

    /// Parses the text of a data file.
    pub fn parse(text: &str) -> Result<Data, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }
}
