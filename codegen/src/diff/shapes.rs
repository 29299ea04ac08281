//! Compares two versions of one shape — any kind: a structure's members, an enum's values, an
//! operation's input, output and errors, the service shape's version — and their traits.

use std::collections::BTreeMap;

use super::change::{Change, Io};
use super::shape_name;
use crate::emit::{enum_values, UNIT};
use crate::model::{understood_trait, Kind, MemberDef, ShapeDef, Traits};
use crate::Error;

/// Traits compared by something more specific than their value.
const COMPARED_OTHERWISE: &[&str] = &[
    // Member requiredness is a `Change::Required`.
    "smithy.api#required",
    // Enum values are a `Change::EnumValues`, whichever way the model spells them.
    "smithy.api#enum",
    "smithy.api#enumValue",
];

/// Everything that differs between `old` and `new`, two versions of the same shape id, that
/// the generator turns into code. Traits it does not understand are left out: the caller
/// reports those on their own.
pub fn shape_changes(old: &ShapeDef, new: &ShapeDef) -> Result<Vec<Change>, Error> {
    let mut changes = Vec::new();
    if old.kind != new.kind {
        changes.push(Change::Kind {
            from: old.kind,
            to: new.kind,
        });
    }
    trait_changes(None, &old.traits, &new.traits, &mut changes);
    if is_enum(old) || is_enum(new) {
        enum_changes(old, new, &mut changes)?;
    } else {
        member_changes(&old.members, &new.members, &mut changes);
    }
    for (which, from, to) in [
        (Io::Input, &old.input, &new.input),
        (Io::Output, &old.output, &new.output),
    ] {
        if from != to {
            let name = |id: &Option<String>| shape_name(id.as_deref().unwrap_or(UNIT)).to_string();
            changes.push(Change::Io {
                which,
                from: name(from),
                to: name(to),
            });
        }
    }
    let names = |ids: Vec<String>| -> Vec<String> { ids.iter().map(|id| shape_name(id).to_string()).collect() };
    let (added, removed) = added_and_removed(&old.errors, &new.errors);
    let (added, removed) = (names(added), names(removed));
    if !added.is_empty() || !removed.is_empty() {
        changes.push(Change::Errors { added, removed });
    }
    if old.version != new.version {
        changes.push(Change::Version {
            from: old.version.clone(),
            to: new.version.clone(),
        });
    }
    Ok(changes)
}

/// Whether `shape`'s values are a closed list: enum, intEnum, or a string with `@enum`.
fn is_enum(shape: &ShapeDef) -> bool {
    matches!(shape.kind, Kind::Enum | Kind::IntEnum) || shape.has_trait("smithy.api#enum")
}

fn enum_changes(old: &ShapeDef, new: &ShapeDef, changes: &mut Vec<Change>) -> Result<(), Error> {
    let values = |shape: &ShapeDef| -> Result<Vec<String>, Error> {
        Ok(enum_values(shape)?.into_iter().map(|v| v.value).collect())
    };
    let (added, removed) = added_and_removed(&values(old)?, &values(new)?);
    if !added.is_empty() || !removed.is_empty() {
        changes.push(Change::EnumValues { added, removed });
    }
    Ok(())
}

fn member_changes(old: &[MemberDef], new: &[MemberDef], changes: &mut Vec<Change>) {
    let old_by_name: BTreeMap<&str, &MemberDef> = old.iter().map(|m| (m.name.as_str(), m)).collect();
    for member in new {
        let Some(before) = old_by_name.get(member.name.as_str()) else {
            changes.push(Change::MemberAdded {
                member: member.name.clone(),
                target: shape_name(&member.target).to_string(),
            });
            continue;
        };
        if before.target != member.target {
            changes.push(Change::Target {
                member: member.name.clone(),
                from: shape_name(&before.target).to_string(),
                to: shape_name(&member.target).to_string(),
            });
        }
        let required = |m: &MemberDef| m.traits.contains_key("smithy.api#required");
        if required(before) != required(member) {
            changes.push(Change::Required {
                member: member.name.clone(),
                now: required(member),
            });
        }
        trait_changes(Some(&member.name), &before.traits, &member.traits, changes);
    }
    for member in old {
        if !new.iter().any(|m| m.name == member.name) {
            changes.push(Change::MemberRemoved {
                member: member.name.clone(),
            });
        }
    }
}

/// A `Change::Trait` for every understood trait whose value differs, in trait id order.
fn trait_changes(member: Option<&str>, old: &Traits, new: &Traits, changes: &mut Vec<Change>) {
    let ids: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for id in ids {
        if COMPARED_OTHERWISE.contains(&id.as_str()) || !understood_trait(id) {
            continue;
        }
        let (from, to) = (old.get(id), new.get(id));
        if from != to {
            changes.push(Change::Trait {
                member: member.map(String::from),
                id: id.clone(),
                from: from.cloned(),
                to: to.cloned(),
            });
        }
    }
}

/// What `new` has that `old` has not (in `new`'s order), and the other way round.
fn added_and_removed(old: &[String], new: &[String]) -> (Vec<String>, Vec<String>) {
    let missing_from = |list: &[String], other: &[String]| -> Vec<String> {
        list.iter().filter(|x| !other.contains(x)).cloned().collect()
    };
    (missing_from(new, old), missing_from(old, new))
}
