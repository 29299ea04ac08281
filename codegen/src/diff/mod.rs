//! `stratus-codegen diff`: what changed between two sets of AWS models, in the terms the
//! generator cares about, and which hand-written operations it reaches.
//!
//! ```text
//! stratus-codegen diff --from models/json --to path/to/newer/models --services services
//! ```
//!
//! [`compare_dirs`] pairs the model files of two directories by sdk id (either layout
//! [`crate::sync`] reads), loads each changed pair with the generator's own loader — keeping
//! traits it does not understand yet, which are reported instead of refused — and compares
//! operations, shapes and the service shape ([`shapes`]). Only what reaches generated code
//! counts: documentation, examples and the other traits the loader drops are not compared.
//! With a services root, the operations a service crate implements ([`handwritten`]) are
//! marked affected when their own shape changed or any shape they reach from their input,
//! output or errors did. [`render`] writes the result as Markdown.

pub mod change;
pub mod handwritten;
pub mod render;
pub mod shapes;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use self::change::Change;
use self::handwritten::ServiceCrates;
use crate::emit::collect_operations;
use crate::model::{understood_trait, Kind, Model, ShapeDef};
use crate::sync::model_files;
use crate::Error;

/// Everything that differs between two model directories.
#[derive(Debug, Default)]
pub struct Report {
    /// Services whose file differs, by sdk id.
    pub changed: Vec<ServiceDiff>,
    /// Services whose file is the same byte for byte.
    pub unchanged: Vec<String>,
    /// Models only in the newer directory.
    pub added: Vec<String>,
    /// Models only in the older directory.
    pub removed: Vec<String>,
}

/// What changed in one service's model.
#[derive(Debug, Default)]
pub struct ServiceDiff {
    pub sdk_id: String,
    /// The service shape's own changes: version, protocols, errors every operation answers.
    pub service: Vec<Change>,
    pub operations_added: Vec<String>,
    pub operations_removed: Vec<String>,
    pub operations_changed: Vec<ShapeDiff>,
    pub shapes_added: Vec<String>,
    pub shapes_removed: Vec<String>,
    pub shapes_changed: Vec<ShapeDiff>,
    /// Traits in the newer model that the generator would refuse.
    pub not_understood: Vec<UnknownTrait>,
    /// The hand-written side, when a service crate implements this service.
    pub hand_written: Option<HandWritten>,
}

/// The changes to one shape or operation.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeDiff {
    pub id: String,
    pub name: String,
    pub kind: Kind,
    pub changes: Vec<Change>,
}

/// A trait the generator does not understand, and where the newer model uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownTrait {
    pub id: String,
    /// Shapes (or `Shape$member`) carrying it, sorted.
    pub on: Vec<String>,
}

/// The hand-written operations of one service the change reaches.
#[derive(Debug, Default)]
pub struct HandWritten {
    /// The service crate's folder.
    pub crate_dir: String,
    /// How many of the older model's operations the crate implements.
    pub implemented: usize,
    pub affected: Vec<Affected>,
    /// Implemented operations the newer model no longer has.
    pub removed: Vec<String>,
}

/// One implemented operation and the changed shapes that reach it.
#[derive(Debug, Clone, PartialEq)]
pub struct Affected {
    pub operation: String,
    /// Changed shapes it reaches (its own name first when the operation shape changed;
    /// `service` when the service shape did), sorted after that.
    pub because: Vec<String>,
}

impl ServiceDiff {
    /// Whether nothing the generator reads changed (the file may differ in documentation).
    pub fn is_empty(&self) -> bool {
        self.service.is_empty()
            && self.operations_added.is_empty()
            && self.operations_removed.is_empty()
            && self.operations_changed.is_empty()
            && self.shapes_added.is_empty()
            && self.shapes_removed.is_empty()
            && self.shapes_changed.is_empty()
            && self.not_understood.is_empty()
    }
}

/// Compares the models in `from` with those in `to`; with `services`, also which operations
/// the service crates under it implement are affected.
pub fn compare_dirs(from: &Path, to: &Path, services: Option<&Path>) -> Result<Report, Error> {
    let crates = services.map(ServiceCrates::scan).transpose()?.unwrap_or_default();
    let (old_files, new_files) = (model_files(from)?, model_files(to)?);
    let mut report = Report {
        added: new_files
            .keys()
            .filter(|id| !old_files.contains_key(*id))
            .cloned()
            .collect(),
        removed: old_files
            .keys()
            .filter(|id| !new_files.contains_key(*id))
            .cloned()
            .collect(),
        ..Report::default()
    };
    for (sdk_id, old_path) in &old_files {
        let Some(new_path) = new_files.get(sdk_id) else {
            continue;
        };
        let read = |path: &Path| std::fs::read(path).map_err(|e| Error::io(path, e));
        if read(old_path)? == read(new_path)? {
            report.unchanged.push(sdk_id.clone());
            continue;
        }
        let old = Model::load_json_keeping_unknown_traits(old_path)?;
        let new = Model::load_json_keeping_unknown_traits(new_path)?;
        report.changed.push(compare_models(sdk_id, &old, &new, &crates)?);
    }
    Ok(report)
}

/// Compares two versions of service `sdk_id`'s model.
pub fn compare_models(sdk_id: &str, old: &Model, new: &Model, crates: &ServiceCrates) -> Result<ServiceDiff, Error> {
    let (old_service, new_service) = (old.service()?, new.service()?);
    let mut diff = ServiceDiff {
        sdk_id: sdk_id.to_string(),
        service: shapes::shape_changes(old_service, new_service)?,
        not_understood: not_understood(new),
        ..ServiceDiff::default()
    };

    let old_ops = operations(old, old_service)?;
    let new_ops = operations(new, new_service)?;
    let operations = compare_sets(&old_ops, &new_ops)?;
    (diff.operations_added, diff.operations_removed, diff.operations_changed) =
        (operations.added, operations.removed, operations.changed);

    let data = compare_sets(&data_shapes(old), &data_shapes(new))?;
    (diff.shapes_added, diff.shapes_removed, diff.shapes_changed) = (data.added, data.removed, data.changed);

    if let Some(service_crate) = crates.for_service(sdk_id) {
        let changed_shapes: BTreeSet<&str> = (diff.operations_changed.iter())
            .chain(&diff.shapes_changed)
            .map(|shape| shape.id.as_str())
            .collect();
        let mut hand_written = HandWritten {
            crate_dir: service_crate.dir.display().to_string(),
            ..HandWritten::default()
        };
        for (id, op) in &old_ops {
            if !service_crate.implements(op.name()) {
                continue;
            }
            hand_written.implemented += 1;
            let Some(new_op) = new_ops.get(id) else {
                hand_written.removed.push(op.name().to_string());
                continue;
            };
            let mut because = Vec::new();
            if !diff.service.is_empty() {
                because.push("service".to_string());
            }
            if changed_shapes.contains(id.as_str()) {
                because.push(op.name().to_string());
            }
            let mut reached: Vec<String> = reachable(old, old_service, op)
                .union(&reachable(new, new_service, new_op))
                .filter(|id| changed_shapes.contains(**id))
                .map(|id| shape_name(id).to_string())
                .collect();
            reached.sort();
            because.extend(reached);
            if !because.is_empty() {
                hand_written.affected.push(Affected {
                    operation: op.name().to_string(),
                    because,
                });
            }
        }
        hand_written.affected.sort_by(|a, b| a.operation.cmp(&b.operation));
        diff.hand_written = Some(hand_written);
    }
    Ok(diff)
}

/// `com.amazonaws.sqs#QueueName` → `QueueName`.
pub fn shape_name(id: &str) -> &str {
    id.rsplit('#').next().unwrap_or(id)
}

/// The shapes that hold data (not operations, services or resources), by id.
fn data_shapes(model: &Model) -> BTreeMap<String, &ShapeDef> {
    let is_data = |s: &ShapeDef| !matches!(s.kind, Kind::Operation | Kind::Service | Kind::Resource);
    model
        .shapes
        .values()
        .filter(|s| is_data(s))
        .map(|s| (s.id.clone(), s))
        .collect()
}

/// The operations `service` binds, by id.
fn operations<'m>(model: &'m Model, service: &'m ShapeDef) -> Result<BTreeMap<String, &'m ShapeDef>, Error> {
    let mut ops = Vec::new();
    collect_operations(model, service, &mut ops)?;
    Ok(ops.into_iter().map(|op| (op.id.clone(), op)).collect())
}

/// One sort of shape (operations, or the data shapes) compared between two models.
struct Compared {
    /// Names of those only in the newer model, sorted.
    added: Vec<String>,
    /// Names of those only in the older model, sorted.
    removed: Vec<String>,
    /// The changes of those in both, sorted by name.
    changed: Vec<ShapeDiff>,
}

/// Compares the shapes of `old` with those of `new`, by id.
fn compare_sets(old: &BTreeMap<String, &ShapeDef>, new: &BTreeMap<String, &ShapeDef>) -> Result<Compared, Error> {
    let names_missing_from = |these: &BTreeMap<String, &ShapeDef>, other: &BTreeMap<String, &ShapeDef>| {
        let mut names: Vec<String> = these
            .values()
            .filter(|s| !other.contains_key(&s.id))
            .map(|s| s.name().to_string())
            .collect();
        names.sort();
        names
    };
    let mut changed = Vec::new();
    for (id, before) in old {
        if let Some(after) = new.get(id) {
            let changes = shapes::shape_changes(before, after)?;
            if !changes.is_empty() {
                changed.push(ShapeDiff {
                    id: id.clone(),
                    name: after.name().to_string(),
                    kind: after.kind,
                    changes,
                });
            }
        }
    }
    changed.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Compared {
        added: names_missing_from(new, old),
        removed: names_missing_from(old, new),
        changed,
    })
}

/// Every shape id `op` reaches through its input, output and errors (the service's common
/// errors included), following members.
fn reachable<'m>(model: &'m Model, service: &'m ShapeDef, op: &'m ShapeDef) -> BTreeSet<&'m str> {
    let mut seen = BTreeSet::new();
    let mut pending: Vec<&str> = op
        .input
        .iter()
        .chain(&op.output)
        .chain(&op.errors)
        .chain(&service.errors)
        .map(String::as_str)
        .collect();
    while let Some(id) = pending.pop() {
        if !seen.insert(id) {
            continue;
        }
        if let Some(shape) = model.shapes.get(id) {
            pending.extend(shape.members.iter().map(|m| m.target.as_str()));
        }
    }
    seen
}

/// The traits in `model` that the generator does not understand, with where they are.
fn not_understood(model: &Model) -> Vec<UnknownTrait> {
    let mut found: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for shape in model.shapes.values() {
        if shape.has_trait("smithy.api#trait") {
            continue;
        }
        let on_shape = shape.traits.keys().map(|id| (id, shape.name().to_string()));
        let on_members = shape.members.iter().flat_map(|m| {
            m.traits
                .keys()
                .map(move |id| (id, format!("{}${}", shape.name(), m.name)))
        });
        for (id, place) in on_shape.chain(on_members) {
            if !understood_trait(id) {
                found.entry(id).or_default().push(place);
            }
        }
    }
    found
        .into_iter()
        .map(|(id, mut on)| {
            on.sort();
            UnknownTrait { id: id.to_string(), on }
        })
        .collect()
}
