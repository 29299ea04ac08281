//! Projection expressions: a comma-separated list of document paths, and the item cut down
//! to them. Elements picked from a list keep their order and close up (`a[3], a[1]` on a
//! five-element list gives a two-element list, element 1 first), as DynamoDB returns them.

use std::collections::BTreeMap;

use super::ast::{Element, Path};
use super::check::overlapping_paths;
use super::error::{ExprError, ExpressionKind};
use super::parser::Parser;
use super::Placeholders;
use crate::{AttributeValue, Item};

/// A checked projection.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection<'a> {
    paths: Vec<Path<'a>>,
    tree: Node<'a>,
}

/// The paths merged into a tree: what to keep below each map key or list index.
#[derive(Debug, Clone, PartialEq, Default)]
struct Node<'a> {
    keep_all: bool,
    names: BTreeMap<&'a str, Node<'a>>,
    indexes: BTreeMap<usize, Node<'a>>,
}

pub fn parse_projection<'a>(
    expression: &'a str,
    placeholders: &mut Placeholders<'a>,
) -> Result<Projection<'a>, ExprError> {
    let kind = ExpressionKind::Projection;
    let mut parser = Parser::new(expression, kind, placeholders)?;
    let mut paths = vec![parser.path()?];
    while parser.expect_comma_or_end()? {
        paths.push(parser.path()?);
    }
    let mut deferred = parser.deferred;
    overlapping_paths(&paths.iter().collect::<Vec<_>>(), &mut deferred);
    deferred.into_result(kind)?;
    Ok(Projection::of_paths(paths))
}

impl<'a> Projection<'a> {
    /// The projection onto paths already checked not to overlap (those an update
    /// expression writes, for `UPDATED_OLD` and `UPDATED_NEW`).
    pub fn of_paths(paths: Vec<Path<'a>>) -> Projection<'a> {
        let mut tree = Node::default();
        for path in &paths {
            let leaf = path.0.iter().fold(&mut tree, |node, element| match element {
                Element::Name(name) => node.names.entry(name).or_default(),
                Element::Index(index) => node.indexes.entry(*index).or_default(),
            });
            leaf.keep_all = true;
        }
        Projection { paths, tree }
    }

    pub fn paths(&self) -> &[Path<'a>] {
        &self.paths
    }

    /// The attributes of `item` the projection names; those missing are left out.
    pub fn apply(&self, item: &Item) -> Item {
        self.tree
            .names
            .iter()
            .filter_map(|(name, node)| Some(((*name).to_owned(), project(item.get(*name)?, node)?)))
            .collect()
    }
}

fn project(value: &AttributeValue, node: &Node<'_>) -> Option<AttributeValue> {
    if node.keep_all {
        return Some(value.clone());
    }
    match value {
        AttributeValue::M(map) if !node.names.is_empty() => {
            let kept: BTreeMap<String, AttributeValue> = node
                .names
                .iter()
                .filter_map(|(name, child)| Some(((*name).to_owned(), project(map.get(*name)?, child)?)))
                .collect();
            (!kept.is_empty()).then_some(AttributeValue::M(kept))
        }
        AttributeValue::L(list) if !node.indexes.is_empty() => {
            let kept: Vec<AttributeValue> = node
                .indexes
                .iter()
                .filter_map(|(index, child)| project(list.get(*index)?, child))
                .collect();
            (!kept.is_empty()).then_some(AttributeValue::L(kept))
        }
        _ => None,
    }
}
