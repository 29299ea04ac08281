//! The parts of item requests that single-item operations, batches and transactions share:
//! placeholder maps, projections, conditions, checked puts and updates.

use std::collections::BTreeMap;

use stratus_gen_dynamodb::*;

use crate::error::DdbError;
use crate::expr::{self, parse_projection, parse_update, Element, Placeholders};
use crate::keys::{self, MissingKey};
use crate::table::TableRecord;
use crate::value::validate_item;
use crate::{size, Item};

/// Refuses a legacy (pre-expression) parameter, which Stratus does not implement.
pub(crate) fn refuse_legacy(present: bool, parameter: &str, instead: &str) -> Result<(), DdbError> {
    if present {
        return Err(DdbError::validation(format!(
            "Stratus does not support the legacy parameter {parameter}; use {instead} instead"
        )));
    }
    Ok(())
}

/// The request's placeholder maps, refused when no expression could use them (dynalite
/// test/putItem.js records AWS's wording).
pub(crate) fn placeholders<'a>(
    names: Option<&'a BTreeMap<String, String>>,
    values: Option<&'a BTreeMap<String, AttributeValue>>,
    any_expression: bool,
) -> Result<Placeholders<'a>, DdbError> {
    if !any_expression {
        if names.is_some() {
            return Err(DdbError::validation(
                "ExpressionAttributeNames can only be specified when using expressions",
            ));
        }
        if values.is_some() {
            return Err(DdbError::validation(
                "ExpressionAttributeValues can only be specified when using expressions",
            ));
        }
    }
    Ok(Placeholders::new(names, values)?)
}

/// Which attributes a read returns: all, a ProjectionExpression, or legacy AttributesToGet.
pub(crate) enum Selection<'a> {
    All,
    Expression(expr::Projection<'a>),
    Names(&'a [String]),
}

impl<'a> Selection<'a> {
    pub(crate) fn parse(
        expression: Option<&'a str>,
        attributes_to_get: Option<&'a [String]>,
        placeholders: &mut Placeholders<'a>,
    ) -> Result<Selection<'a>, DdbError> {
        match (expression, attributes_to_get) {
            (Some(_), Some(_)) => Err(DdbError::validation(
                "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
            )),
            (Some(expression), None) => Ok(Selection::Expression(parse_projection(expression, placeholders)?)),
            (None, Some(names)) => Ok(Selection::Names(names)),
            (None, None) => Ok(Selection::All),
        }
    }

    pub(crate) fn apply(&self, item: Item) -> Item {
        match self {
            Selection::All => item,
            Selection::Expression(projection) => projection.apply(&item),
            Selection::Names(names) => item.into_iter().filter(|(name, _)| names.contains(name)).collect(),
        }
    }
}

/// Refuses a condition that does not hold for `old` (a missing item is an empty one).
pub(crate) fn check_condition(
    condition: Option<&expr::Condition<'_>>,
    old: Option<&Item>,
    on_failure: Option<&ReturnValuesOnConditionCheckFailure>,
) -> Result<(), DdbError> {
    let Some(condition) = condition else { return Ok(()) };
    let holds = match old {
        Some(item) => condition.evaluate(item),
        None => condition.evaluate(&Item::new()),
    };
    if holds {
        return Ok(());
    }
    let report = on_failure == Some(&ReturnValuesOnConditionCheckFailure::AllOld);
    Err(DdbError::ConditionalCheckFailed(old.filter(|_| report).cloned()))
}

/// A checked Put: the item and its storage key.
pub(crate) fn check_put(table: &TableRecord, item: &Item, missing: MissingKey) -> Result<Vec<u8>, DdbError> {
    validate_item(item)?;
    let key = keys::check_item_keys(table, item, missing)?;
    size::check_item(item)?;
    Ok(key)
}

/// A checked update: its expression, and the paths it writes.
pub(crate) struct CheckedUpdate<'a> {
    update: Option<expr::Update<'a>>,
    touched: expr::Projection<'a>,
}

impl<'a> CheckedUpdate<'a> {
    /// Parses an UpdateExpression, refusing writes to key attributes.
    pub(crate) fn parse(
        table: &TableRecord,
        expression: Option<&'a str>,
        placeholders: &mut Placeholders<'a>,
    ) -> Result<CheckedUpdate<'a>, DdbError> {
        let Some(expression) = expression else {
            return Ok(CheckedUpdate {
                update: None,
                touched: expr::Projection::of_paths(Vec::new()),
            });
        };
        let update = parse_update(expression, placeholders)?;
        for action in update.actions() {
            if let Some(Element::Name(name)) = action.path().0.first() {
                if table.key.contains(name) {
                    return Err(DdbError::invalid(format!(
                        "Cannot update attribute {name}. This attribute is part of the key"
                    )));
                }
            }
        }
        let touched = expr::Projection::of_paths(update.actions().iter().map(|a| a.path().clone()).collect());
        Ok(CheckedUpdate {
            update: Some(update),
            touched,
        })
    }

    /// The item after the update; a missing item starts as its key.
    pub(crate) fn apply(&self, table: &TableRecord, key: &Item, old: Option<&Item>) -> Result<Item, DdbError> {
        let base = old.cloned().unwrap_or_else(|| key.clone());
        let new = match &self.update {
            Some(update) => update.apply(&base).map_err(|e| DdbError::validation(e.to_string()))?,
            None => base,
        };
        keys::check_index_keys(table, &new)?;
        size::check_updated_item(&new)?;
        Ok(new)
    }

    /// The parts of `item` the update writes (`UPDATED_OLD`, `UPDATED_NEW`).
    pub(crate) fn written(&self, item: &Item) -> Item {
        self.touched.apply(item)
    }
}
