//! Reading and writing inside items along document paths.

use super::ast::{Element, Path};
use crate::{AttributeValue, Item};

/// The value at `path`, if every step exists and has the type the step needs.
pub(super) fn get<'v>(item: &'v Item, path: &Path<'_>) -> Option<&'v AttributeValue> {
    let (first, rest) = path.0.split_first()?;
    let Element::Name(name) = first else { return None };
    rest.iter()
        .try_fold(item.get(*name)?, |value, element| step(value, element))
}

fn step<'v>(value: &'v AttributeValue, element: &Element<'_>) -> Option<&'v AttributeValue> {
    match (value, element) {
        (AttributeValue::M(map), Element::Name(name)) => map.get(*name),
        (AttributeValue::L(list), Element::Index(index)) => list.get(*index),
        _ => None,
    }
}

fn step_mut<'v>(value: &'v mut AttributeValue, element: &Element<'_>) -> Option<&'v mut AttributeValue> {
    match (value, element) {
        (AttributeValue::M(map), Element::Name(name)) => map.get_mut(*name),
        (AttributeValue::L(list), Element::Index(index)) => list.get_mut(*index),
        _ => None,
    }
}

/// Where a path's last step lands: the item itself, or a value that must be a container.
pub(super) enum Parent<'v> {
    Item(&'v mut Item),
    Value(&'v mut AttributeValue),
}

/// The container holding the last step of `path`, or `None` when a step before it is missing.
pub(super) fn parent_mut<'v>(item: &'v mut Item, path: &Path<'_>) -> Option<Parent<'v>> {
    let steps = &path.0[..path.0.len() - 1];
    let Some((first, rest)) = steps.split_first() else {
        return Some(Parent::Item(item));
    };
    let Element::Name(name) = first else { return None };
    let start = item.get_mut(*name)?;
    rest.iter()
        .try_fold(start, |value, element| step_mut(value, element))
        .map(Parent::Value)
}
