//! TransactWriteItems and TransactGetItems. A write transaction checks every condition and
//! applies every action in one storage transaction, so it commits all or nothing; a
//! cancellation reports a reason per action, in request order.
//!
//! Client request tokens are kept for ten minutes in the `tokens` storage table with a
//! digest of the request: a repeat with the same request succeeds without running again, a
//! repeat with another request is refused.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};
use stratus_gen_dynamodb::*;

use crate::db::{self, Scope, TOKENS};
use crate::error::DdbError;
use crate::expr::{self, parse_condition, ExpressionKind};
use crate::keys::{self, MissingKey};
use crate::request::{check_condition, check_put, placeholders, CheckedUpdate, Selection};
use crate::size::item_size;
use crate::table::TableRecord;
use crate::{capacity, Item};

/// Transactional reads and writes cost twice the plain ones.
const TRANSACTION_COST: f64 = 2.0;
pub(crate) const TOKEN_LIFETIME_MS: i64 = 10 * 60 * 1000;

enum Op<'a> {
    Check,
    Put(&'a Item),
    Delete,
    Update(CheckedUpdate<'a>, &'a Item),
}

struct Action<'a> {
    table: &'a TableRecord,
    key: Vec<u8>,
    condition: Option<expr::Condition<'a>>,
    on_failure: Option<&'a ReturnValuesOnConditionCheckFailure>,
    op: Op<'a>,
}

/// The parts every kind of action has.
struct Parts<'a> {
    table_name: &'a str,
    condition: Option<&'a str>,
    names: Option<&'a BTreeMap<String, String>>,
    values: Option<&'a BTreeMap<String, AttributeValue>>,
    on_failure: Option<&'a ReturnValuesOnConditionCheckFailure>,
}

fn parts(item: &TransactWriteItem) -> Result<Parts<'_>, DdbError> {
    let given = [
        item.condition_check.is_some(),
        item.put.is_some(),
        item.delete.is_some(),
        item.update.is_some(),
    ];
    if given.iter().filter(|g| **g).count() != 1 {
        return Err(DdbError::validation(
            "TransactItems can only contain one of Check, Put, Update or Delete",
        ));
    }
    Ok(if let Some(c) = &item.condition_check {
        Parts {
            table_name: &c.table_name,
            condition: Some(&c.condition_expression),
            names: c.expression_attribute_names.as_ref(),
            values: c.expression_attribute_values.as_ref(),
            on_failure: c.return_values_on_condition_check_failure.as_ref(),
        }
    } else if let Some(p) = &item.put {
        Parts {
            table_name: &p.table_name,
            condition: p.condition_expression.as_deref(),
            names: p.expression_attribute_names.as_ref(),
            values: p.expression_attribute_values.as_ref(),
            on_failure: p.return_values_on_condition_check_failure.as_ref(),
        }
    } else if let Some(d) = &item.delete {
        Parts {
            table_name: &d.table_name,
            condition: d.condition_expression.as_deref(),
            names: d.expression_attribute_names.as_ref(),
            values: d.expression_attribute_values.as_ref(),
            on_failure: d.return_values_on_condition_check_failure.as_ref(),
        }
    } else {
        let u = item.update.as_ref().expect("one action given");
        Parts {
            table_name: &u.table_name,
            condition: u.condition_expression.as_deref(),
            names: u.expression_attribute_names.as_ref(),
            values: u.expression_attribute_values.as_ref(),
            on_failure: u.return_values_on_condition_check_failure.as_ref(),
        }
    })
}

fn action<'a>(item: &'a TransactWriteItem, tables: &'a BTreeMap<String, TableRecord>) -> Result<Action<'a>, DdbError> {
    let parts = parts(item)?;
    let table = &tables[parts.table_name];
    let update_expression = item.update.as_ref().map(|u| u.update_expression.as_str());
    let mut placeholders = placeholders(
        parts.names,
        parts.values,
        parts.condition.is_some() || update_expression.is_some(),
    )?;
    let update = item
        .update
        .as_ref()
        .map(|u| CheckedUpdate::parse(table, Some(&u.update_expression), &mut placeholders))
        .transpose()?;
    let condition = parts
        .condition
        .map(|c| parse_condition(c, ExpressionKind::Condition, &mut placeholders))
        .transpose()?;
    placeholders.check_unused()?;
    let (key, op) = if let Some(c) = &item.condition_check {
        (keys::check_key(table, &c.key)?, Op::Check)
    } else if let Some(p) = &item.put {
        (check_put(table, &p.item, MissingKey::Named)?, Op::Put(&p.item))
    } else if let Some(d) = &item.delete {
        (keys::check_key(table, &d.key)?, Op::Delete)
    } else {
        let u = item.update.as_ref().expect("one action given");
        let update = update.expect("parsed above");
        (keys::check_key(table, &u.key)?, Op::Update(update, &u.key))
    };
    Ok(Action {
        table,
        key,
        condition,
        on_failure: parts.on_failure,
        op,
    })
}

fn digest(input: &TransactWriteItemsInput) -> Vec<u8> {
    Sha256::digest(format!("{:?}", input.transact_items).as_bytes()).to_vec()
}

/// Whether the request repeats one already done under `token` (refusing another request
/// under the same token).
pub(crate) fn check_token(
    tx: &stratus_storage::Tx<'_>,
    token: &str,
    digest: &[u8],
    now: i64,
) -> Result<bool, DdbError> {
    let Some(stored) = tx.get(TOKENS, token.as_bytes())? else {
        return Ok(false);
    };
    let (expires, stored_digest) = stored.split_at(8);
    if i64::from_be_bytes(expires.try_into().expect("8 bytes")) <= now {
        return Ok(false);
    }
    if stored_digest != digest {
        return Err(DdbError::IdempotentParameterMismatch(
            "Request token already used with different parameters".into(),
        ));
    }
    Ok(true)
}

pub(crate) fn transact_write_items(
    scope: &Scope,
    input: TransactWriteItemsInput,
) -> Result<TransactWriteItemsOutput, DdbError> {
    let mut tables = BTreeMap::new();
    for item in &input.transact_items {
        let name = parts(item)?.table_name;
        if !tables.contains_key(name) {
            tables.insert(name.to_owned(), scope.named_table(name)?);
        }
    }
    let actions = input
        .transact_items
        .iter()
        .map(|item| action(item, &tables))
        .collect::<Result<Vec<_>, _>>()?;
    let mut seen = BTreeSet::new();
    if actions.iter().any(|a| !seen.insert(&a.key)) {
        return Err(DdbError::validation(
            "Transaction request cannot include multiple operations on one item",
        ));
    }
    let digest = digest(&input);
    let now = scope.now_ms();
    let spent = scope.store.transact(|tx| {
        let mut spent = Vec::with_capacity(actions.len());
        if let Some(token) = &input.client_request_token {
            if check_token(tx, token, &digest, now)? {
                return Ok(spent);
            }
            let mut record = (now + TOKEN_LIFETIME_MS).to_be_bytes().to_vec();
            record.extend_from_slice(&digest);
            tx.put(TOKENS, token.as_bytes(), record);
        }
        let current = tables
            .values()
            .map(|table| Ok((table.name.as_str(), db::current(tx, table)?)))
            .collect::<Result<BTreeMap<_, _>, DdbError>>()?;
        let mut olds = Vec::with_capacity(actions.len());
        let mut reasons = Vec::with_capacity(actions.len());
        let mut failed = false;
        for action in &actions {
            let old = db::get_item(tx, &action.key)?;
            let reason = match check_condition(action.condition.as_ref(), old.as_ref(), action.on_failure) {
                Ok(()) => CancellationReason {
                    code: Some("None".into()),
                    ..Default::default()
                },
                Err(DdbError::ConditionalCheckFailed(item)) => {
                    failed = true;
                    CancellationReason {
                        item,
                        code: Some("ConditionalCheckFailed".into()),
                        message: Some("The conditional request failed".into()),
                    }
                }
                Err(other) => return Err(other),
            };
            reasons.push(reason);
            olds.push(old);
        }
        if failed {
            return Err(DdbError::TransactionCanceled(reasons));
        }
        for (index, (action, old)) in actions.iter().zip(&olds).enumerate() {
            let new = match &action.op {
                Op::Check => {
                    spent.push((
                        action.table.name.clone(),
                        TRANSACTION_COST * capacity::write_units(old.as_ref(), None),
                    ));
                    continue;
                }
                Op::Put(item) => Some((*item).clone()),
                Op::Delete => None,
                Op::Update(update, key) => match update.apply(action.table, key, old.as_ref()) {
                    Ok(new) => Some(new),
                    Err(DdbError::Validation(message)) => {
                        reasons[index] = CancellationReason {
                            item: None,
                            code: Some("ValidationError".into()),
                            message: Some(message),
                        };
                        return Err(DdbError::TransactionCanceled(reasons));
                    }
                    Err(other) => return Err(other),
                },
            };
            spent.push((
                action.table.name.clone(),
                TRANSACTION_COST * capacity::write_units(old.as_ref(), new.as_ref()),
            ));
            if old.is_some() || new.is_some() {
                let table = &current[action.table.name.as_str()];
                db::write_item(tx, table, &action.key, old.as_ref(), new.as_ref(), now)?;
            }
        }
        Ok(spent)
    })?;
    Ok(TransactWriteItemsOutput {
        consumed_capacity: capacity::per_table(input.return_consumed_capacity.as_ref(), spent, true),
        item_collection_metrics: None,
    })
}

pub(crate) fn transact_get_items(
    scope: &Scope,
    input: TransactGetItemsInput,
) -> Result<TransactGetItemsOutput, DdbError> {
    let mut reads = Vec::with_capacity(input.transact_items.len());
    let mut seen = BTreeSet::new();
    for item in &input.transact_items {
        let get = &item.get;
        let table = scope.named_table(&get.table_name)?;
        let mut placeholders = placeholders(
            get.expression_attribute_names.as_ref(),
            None,
            get.projection_expression.is_some(),
        )?;
        let selection = Selection::parse(get.projection_expression.as_deref(), None, &mut placeholders)?;
        placeholders.check_unused()?;
        let key = keys::check_key(&table, &get.key)?;
        if !seen.insert(key.clone()) {
            return Err(DdbError::validation(
                "Transaction request cannot include multiple operations on one item",
            ));
        }
        reads.push((table.name, key, selection));
    }
    let mut spent = Vec::with_capacity(reads.len());
    let mut responses = Vec::with_capacity(reads.len());
    for (table, key, selection) in reads {
        let item = db::get_item(&*scope.store, &key)?;
        let units = capacity::read_units(item.as_ref().map_or(0, item_size), Some(true));
        spent.push((table, TRANSACTION_COST * units));
        responses.push(ItemResponse {
            item: item.map(|item| selection.apply(item)),
        });
    }
    Ok(TransactGetItemsOutput {
        consumed_capacity: capacity::per_table(input.return_consumed_capacity.as_ref(), spent, false),
        responses: Some(responses),
    })
}
