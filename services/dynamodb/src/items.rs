//! PutItem, GetItem, DeleteItem and UpdateItem.

use stratus_gen_dynamodb::*;

use crate::db::{self, Scope};
use crate::error::DdbError;
use crate::expr::{self, parse_condition, ExpressionKind, Placeholders};
use crate::keys::{self, MissingKey};
use crate::request::{check_condition, check_put, placeholders, refuse_legacy, CheckedUpdate, Selection};
use crate::{capacity, size};

fn parse_optional_condition<'a>(
    expression: Option<&'a str>,
    placeholders: &mut Placeholders<'a>,
) -> Result<Option<expr::Condition<'a>>, DdbError> {
    expression
        .map(|e| parse_condition(e, ExpressionKind::Condition, placeholders))
        .transpose()
        .map_err(DdbError::from)
}

/// Refuses ReturnValues other than NONE and ALL_OLD (PutItem, DeleteItem).
fn old_or_none(return_values: Option<&ReturnValue>) -> Result<bool, DdbError> {
    match return_values {
        None | Some(ReturnValue::None) => Ok(false),
        Some(ReturnValue::AllOld) => Ok(true),
        Some(_) => Err(DdbError::validation("Return values set to invalid value")),
    }
}

pub(crate) fn put_item(scope: &Scope, input: PutItemInput) -> Result<PutItemOutput, DdbError> {
    refuse_legacy(input.expected.is_some(), "Expected", "ConditionExpression")?;
    let table = scope.named_table(&input.table_name)?;
    let return_old = old_or_none(input.return_values.as_ref())?;
    let mut placeholders = placeholders(
        input.expression_attribute_names.as_ref(),
        input.expression_attribute_values.as_ref(),
        input.condition_expression.is_some(),
    )?;
    let condition = parse_optional_condition(input.condition_expression.as_deref(), &mut placeholders)?;
    placeholders.check_unused()?;
    let key = check_put(&table, &input.item, MissingKey::Named)?;
    let old = scope.store.transact(|tx| {
        let table = db::current(tx, &table)?;
        let old = db::get_item(tx, &key)?;
        check_condition(
            condition.as_ref(),
            old.as_ref(),
            input.return_values_on_condition_check_failure.as_ref(),
        )?;
        db::write_item(tx, &table, &key, old.as_ref(), Some(&input.item), scope.now_ms())?;
        Ok::<_, DdbError>(old)
    })?;
    let units = capacity::write_units(old.as_ref(), Some(&input.item));
    Ok(PutItemOutput {
        attributes: old.filter(|_| return_old),
        consumed_capacity: capacity::consumed(input.return_consumed_capacity.as_ref(), &table.name, units, true),
        ..Default::default()
    })
}

pub(crate) fn get_item(scope: &Scope, input: GetItemInput) -> Result<GetItemOutput, DdbError> {
    let table = scope.named_table(&input.table_name)?;
    let mut placeholders = placeholders(
        input.expression_attribute_names.as_ref(),
        None,
        input.projection_expression.is_some(),
    )?;
    let selection = Selection::parse(
        input.projection_expression.as_deref(),
        input.attributes_to_get.as_deref(),
        &mut placeholders,
    )?;
    placeholders.check_unused()?;
    let key = keys::check_key(&table, &input.key)?;
    let item = db::get_item(&*scope.store, &key)?;
    let units = capacity::read_units(item.as_ref().map_or(0, size::item_size), input.consistent_read);
    Ok(GetItemOutput {
        item: item.map(|item| selection.apply(item)),
        consumed_capacity: capacity::consumed(input.return_consumed_capacity.as_ref(), &table.name, units, false),
    })
}

pub(crate) fn delete_item(scope: &Scope, input: DeleteItemInput) -> Result<DeleteItemOutput, DdbError> {
    refuse_legacy(input.expected.is_some(), "Expected", "ConditionExpression")?;
    let table = scope.named_table(&input.table_name)?;
    let return_old = old_or_none(input.return_values.as_ref())?;
    let mut placeholders = placeholders(
        input.expression_attribute_names.as_ref(),
        input.expression_attribute_values.as_ref(),
        input.condition_expression.is_some(),
    )?;
    let condition = parse_optional_condition(input.condition_expression.as_deref(), &mut placeholders)?;
    placeholders.check_unused()?;
    let key = keys::check_key(&table, &input.key)?;
    let old = scope.store.transact(|tx| {
        let table = db::current(tx, &table)?;
        let old = db::get_item(tx, &key)?;
        check_condition(
            condition.as_ref(),
            old.as_ref(),
            input.return_values_on_condition_check_failure.as_ref(),
        )?;
        if old.is_some() {
            db::write_item(tx, &table, &key, old.as_ref(), None, scope.now_ms())?;
        }
        Ok::<_, DdbError>(old)
    })?;
    let units = capacity::write_units(old.as_ref(), None);
    Ok(DeleteItemOutput {
        attributes: old.filter(|_| return_old),
        consumed_capacity: capacity::consumed(input.return_consumed_capacity.as_ref(), &table.name, units, true),
        ..Default::default()
    })
}

pub(crate) fn update_item(scope: &Scope, input: UpdateItemInput) -> Result<UpdateItemOutput, DdbError> {
    refuse_legacy(input.expected.is_some(), "Expected", "ConditionExpression")?;
    refuse_legacy(
        input.attribute_updates.is_some(),
        "AttributeUpdates",
        "UpdateExpression",
    )?;
    let table = scope.named_table(&input.table_name)?;
    let mut placeholders = placeholders(
        input.expression_attribute_names.as_ref(),
        input.expression_attribute_values.as_ref(),
        input.condition_expression.is_some() || input.update_expression.is_some(),
    )?;
    let update = CheckedUpdate::parse(&table, input.update_expression.as_deref(), &mut placeholders)?;
    let condition = parse_optional_condition(input.condition_expression.as_deref(), &mut placeholders)?;
    placeholders.check_unused()?;
    let key = keys::check_key(&table, &input.key)?;
    let (old, new) = scope.store.transact(|tx| {
        let table = db::current(tx, &table)?;
        let old = db::get_item(tx, &key)?;
        check_condition(
            condition.as_ref(),
            old.as_ref(),
            input.return_values_on_condition_check_failure.as_ref(),
        )?;
        let new = update.apply(&table, &input.key, old.as_ref())?;
        db::write_item(tx, &table, &key, old.as_ref(), Some(&new), scope.now_ms())?;
        Ok::<_, DdbError>((old, new))
    })?;
    let units = capacity::write_units(old.as_ref(), Some(&new));
    let attributes = match input.return_values.unwrap_or(ReturnValue::None) {
        ReturnValue::AllOld => old,
        ReturnValue::AllNew => Some(new),
        ReturnValue::UpdatedOld => old.map(|old| update.written(&old)),
        ReturnValue::UpdatedNew => Some(update.written(&new)),
        _ => None,
    };
    Ok(UpdateItemOutput {
        attributes: attributes.filter(|a| !a.is_empty()),
        consumed_capacity: capacity::consumed(input.return_consumed_capacity.as_ref(), &table.name, units, true),
        ..Default::default()
    })
}
