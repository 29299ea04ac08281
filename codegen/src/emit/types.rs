//! `types.rs`: structures, unions and enums with their value conversions.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value as Node;

use super::{ServiceGen, HEADER, UNIT};
use crate::model::{Kind, ShapeDef};
use crate::names;
use crate::Error;

impl ServiceGen<'_> {
    pub(super) fn types_rs(&self) -> Result<String, Error> {
        let mut out =
            format!("{HEADER}\n//! Typed values of every shape the operations reach.\n\nuse stratus_core as rt;\n");
        let mut defaultable = BTreeMap::new();
        for id in &self.shapes {
            let shape = self.shape(id)?;
            match self.kind(id)? {
                Kind::Structure => self.structure(&mut out, shape, &mut defaultable)?,
                Kind::Union => self.union(&mut out, shape)?,
                Kind::Enum => self.enumeration(&mut out, shape)?,
                _ => {}
            }
        }
        Ok(out)
    }

    fn field_type(&self, shape: &ShapeDef, member: &crate::model::MemberDef) -> Result<String, Error> {
        let ty = self.rust_type(&member.target)?;
        Ok(if self.boxed.contains(&(shape.id.clone(), member.name.clone())) {
            format!("Box<{ty}>")
        } else {
            ty
        })
    }

    fn structure(
        &self,
        out: &mut String,
        shape: &ShapeDef,
        defaultable: &mut BTreeMap<String, bool>,
    ) -> Result<(), Error> {
        let name = &self.type_names[&shape.id];
        let mut fields = Vec::new();
        for m in &shape.members {
            let ty = self.field_type(shape, m)?;
            let required = m.traits.contains_key("smithy.api#required");
            let default = self.default_expr(m)?;
            let field = names::field_name(&m.name);
            let (decl, take) = match (&default, required) {
                (Some(expr), _) => {
                    // `Vec::new()` is passed as the function itself, anything else in a closure.
                    let function = expr.strip_suffix("()").filter(|f| !f.contains(['(', ')']));
                    let default = function.map_or_else(|| format!("|| {expr}"), String::from);
                    (ty.clone(), format!("f.or_else({default})?"))
                }
                (None, true) => (ty.clone(), "f.required()?".to_string()),
                (None, false) => (format!("Option<{ty}>"), "f.optional()?".to_string()),
            };
            let push = if decl.starts_with("Option<") {
                "push_optional"
            } else {
                "push"
            };
            fields.push((field, decl, take, push, m.target.clone()));
        }
        let derive_default = self.is_defaultable(&shape.id, defaultable)?;
        let derives = if derive_default {
            "Debug, Clone, PartialEq, Default"
        } else {
            "Debug, Clone, PartialEq"
        };
        let _ = writeln!(out, "\n#[derive({derives})]\npub struct {name} {{");
        for (field, decl, ..) in &fields {
            let _ = writeln!(out, "    pub {field}: {decl},");
        }
        out.push_str("}\n");
        let n = fields.len();
        if self.from_value.contains(&shape.id) {
            let _ = writeln!(
                out,
                "\nimpl rt::FromValue for {name} {{\n    fn from_value(value: rt::Value) -> Result<Self, rt::ConvertError> {{"
            );
            if n == 0 {
                let _ = writeln!(out, "        rt::Fields::open(value, 0)?;\n        Ok({name} {{}})");
            } else {
                let _ = writeln!(
                    out,
                    "        let mut f = rt::Fields::open(value, {n})?;\n        Ok({name} {{"
                );
                for (field, _, take, ..) in &fields {
                    let _ = writeln!(out, "            {field}: {take},");
                }
                out.push_str("        })\n");
            }
            out.push_str("    }\n}\n");
        }
        if self.into_value.contains(&shape.id) {
            let _ = writeln!(
                out,
                "\nimpl rt::IntoValue for {name} {{\n    fn into_value(self) -> rt::Value {{"
            );
            let _ = write!(out, "        rt::StructBuilder::new({n})");
            for (field, _, _, push, _) in &fields {
                let _ = write!(out, ".{push}(self.{field})");
            }
            out.push_str(".build()\n    }\n}\n");
        }
        Ok(())
    }

    /// Whether the Rust type for shape `id` can derive or has `Default`.
    fn is_defaultable(&self, id: &str, memo: &mut BTreeMap<String, bool>) -> Result<bool, Error> {
        if id == UNIT {
            return Ok(true);
        }
        if let Some(known) = memo.get(id) {
            return Ok(*known);
        }
        let result = match self.kind(id)? {
            Kind::Timestamp | Kind::Document | Kind::Enum | Kind::Union => false,
            Kind::Structure => {
                // A cycle back to a structure being decided is assumed not defaultable.
                memo.insert(id.to_string(), false);
                let shape = self.shape(id)?;
                let mut all = true;
                for m in &shape.members {
                    let plain = m.traits.contains_key("smithy.api#required") || self.default_expr(m)?.is_some();
                    if plain && !self.is_defaultable(&m.target, memo)? {
                        all = false;
                    }
                }
                all
            }
            _ => true,
        };
        memo.insert(id.to_string(), result);
        Ok(result)
    }

    fn union(&self, out: &mut String, shape: &ShapeDef) -> Result<(), Error> {
        let name = &self.type_names[&shape.id];
        let mut variants = Vec::new();
        for (i, m) in shape.members.iter().enumerate() {
            let variant = names::variant_name(&m.name);
            let ty = if m.target == UNIT {
                None
            } else {
                Some(self.field_type(shape, m)?)
            };
            variants.push((i, variant, ty));
        }
        let _ = writeln!(out, "\n#[derive(Debug, Clone, PartialEq)]\npub enum {name} {{");
        for (_, variant, ty) in &variants {
            match ty {
                Some(ty) => {
                    let _ = writeln!(out, "    {variant}({ty}),");
                }
                None => {
                    let _ = writeln!(out, "    {variant},");
                }
            }
        }
        out.push_str("}\n");
        if self.from_value.contains(&shape.id) {
            let _ = writeln!(
                out,
                "\nimpl rt::FromValue for {name} {{\n    fn from_value(value: rt::Value) -> Result<Self, rt::ConvertError> {{\n        \
                 match value {{\n            rt::Value::Union(index, value) => match index {{"
            );
            for (i, variant, ty) in &variants {
                match ty {
                    Some(_) => {
                        let _ = writeln!(
                            out,
                            "                {i} => Ok({name}::{variant}(rt::FromValue::from_value(*value)?)),"
                        );
                    }
                    None => {
                        let _ = writeln!(out, "                {i} => Ok({name}::{variant}),");
                    }
                }
            }
            let _ = writeln!(
                out,
                "                _ => Err(rt::ConvertError {{ expected: \"a member of {name}\", found: \"another member\" }}),\n            \
                 }},\n            other => Err(rt::ConvertError::new(\"union\", &other)),\n        }}\n    }}\n}}"
            );
        }
        if self.into_value.contains(&shape.id) {
            let _ = writeln!(
                out,
                "\nimpl rt::IntoValue for {name} {{\n    fn into_value(self) -> rt::Value {{\n        match self {{"
            );
            for (i, variant, ty) in &variants {
                match ty {
                    Some(_) => {
                        let _ = writeln!(
                            out,
                            "            {name}::{variant}(v) => rt::Value::Union({i}, Box::new(rt::IntoValue::into_value(v))),"
                        );
                    }
                    None => {
                        let _ = writeln!(
                            out,
                            "            {name}::{variant} => rt::Value::Union({i}, Box::new(rt::Value::Struct(Vec::new()))),"
                        );
                    }
                }
            }
            out.push_str("        }\n    }\n}\n");
        }
        Ok(())
    }

    fn enumeration(&self, out: &mut String, shape: &ShapeDef) -> Result<(), Error> {
        let name = &self.type_names[&shape.id];
        let values = enum_values(shape)?;
        let mut variants: Vec<(String, String)> = Vec::new();
        for value in &values {
            let mut variant = names::variant_name(&value.name);
            while variants.iter().any(|(v, _)| *v == variant) {
                variant.push('_');
            }
            variants.push((variant, value.value.clone()));
        }
        let mut unknown = "Unknown".to_string();
        while variants.iter().any(|(v, _)| *v == unknown) {
            unknown.push_str("Value");
        }
        let _ = writeln!(
            out,
            "\n#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]\npub enum {name} {{"
        );
        for (variant, _) in &variants {
            let _ = writeln!(out, "    {variant},");
        }
        let _ = writeln!(
            out,
            "    /// A value this model does not list, kept as sent.\n    {unknown}(String),\n}}"
        );
        let _ = writeln!(out, "\nimpl {name} {{\n    /// The wire values the model lists, in model order.\n    pub const VALUES: &'static [&'static str] = &[");
        for (_, value) in &variants {
            let _ = writeln!(out, "        {value:?},");
        }
        let _ = writeln!(
            out,
            "    ];\n\n    /// The wire value.\n    pub fn as_str(&self) -> &str {{\n        match self {{"
        );
        for (variant, value) in &variants {
            let _ = writeln!(out, "            {name}::{variant} => {value:?},");
        }
        let _ = writeln!(
            out,
            "            {name}::{unknown}(s) => s,\n        }}\n    }}\n\n    /// The variant for a wire value.\n    \
             pub fn from_wire(s: &str) -> {name} {{\n        match s {{"
        );
        for (variant, value) in &variants {
            let _ = writeln!(out, "            {value:?} => {name}::{variant},");
        }
        let _ = writeln!(
            out,
            "            other => {name}::{unknown}(other.to_string()),\n        }}\n    }}\n}}\n\n\
             impl rt::FromValue for {name} {{\n    fn from_value(value: rt::Value) -> Result<Self, rt::ConvertError> {{\n        \
             match value {{\n            rt::Value::String(s) => Ok({name}::from_wire(&s)),\n            \
             other => Err(rt::ConvertError::new(\"string\", &other)),\n        }}\n    }}\n}}\n\n\
             impl rt::IntoValue for {name} {{\n    fn into_value(self) -> rt::Value {{\n        match self {{\n            \
             {name}::{unknown}(s) => rt::Value::String(s),\n            known => rt::Value::String(known.as_str().to_string()),\n        \
             }}\n    }}\n}}"
        );
        Ok(())
    }
}

/// One value of an `enum` or `intEnum` shape, or of a string with the legacy `@enum` trait.
pub(crate) struct EnumValue {
    /// The member (or `@enum` entry) name.
    pub name: String,
    /// The wire value.
    pub value: String,
    /// `@internal` on the member, or the `internal` tag on an `@enum` entry: the value is
    /// accepted but left out of the values a validation message lists.
    pub internal: bool,
}

/// The values of an `enum` or `intEnum` shape, or of a string with the legacy `@enum` trait.
pub(crate) fn enum_values(shape: &ShapeDef) -> Result<Vec<EnumValue>, Error> {
    if let Some(Node::Array(defs)) = shape.traits.get("smithy.api#enum") {
        return defs
            .iter()
            .map(|d| {
                let value = d
                    .get("value")
                    .and_then(Node::as_str)
                    .ok_or_else(|| Error::unsupported(&shape.id, "@enum entry without a value"))?;
                let internal = matches!(d.get("tags"), Some(Node::Array(tags)) if tags.iter().any(|t| t.as_str() == Some("internal")));
                Ok(EnumValue {
                    name: d.get("name").and_then(Node::as_str).unwrap_or(value).to_string(),
                    value: value.to_string(),
                    internal,
                })
            })
            .collect();
    }
    shape
        .members
        .iter()
        .map(|m| {
            let value = match m.traits.get("smithy.api#enumValue") {
                Some(Node::String(s)) => s.clone(),
                Some(Node::Number(n)) if shape.kind == Kind::IntEnum => n.to_string(),
                None => m.name.clone(),
                Some(other) => {
                    return Err(Error::unsupported(
                        &shape.id,
                        format!("enum value {other} is not a string"),
                    ))
                }
            };
            Ok(EnumValue {
                name: m.name.clone(),
                value,
                internal: m.traits.contains_key("smithy.api#internal"),
            })
        })
        .collect()
}
