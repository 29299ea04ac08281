//! BatchGetItem and BatchWriteItem. Every request is processed in full, so
//! `UnprocessedKeys` and `UnprocessedItems` are always empty; a batch's writes commit in
//! one storage transaction.

use std::collections::{BTreeMap, BTreeSet};

use stratus_gen_dynamodb::*;

use crate::db::{self, Scope};
use crate::error::DdbError;
use crate::keys::{self, MissingKey};
use crate::request::{check_put, placeholders, Selection};
use crate::size::item_size;
use crate::table::TableRecord;
use crate::{capacity, Item};

/// A storage key and the item to put there (`None` deletes).
type Write<'a> = (Vec<u8>, Option<&'a Item>);

const MAX_GET_KEYS: usize = 100;
const MAX_WRITES: usize = 25;

fn duplicates() -> DdbError {
    DdbError::validation("Provided list of item keys contains duplicates")
}

pub(crate) fn batch_get_item(scope: &Scope, input: BatchGetItemInput) -> Result<BatchGetItemOutput, DdbError> {
    let total: usize = input.request_items.values().map(|r| r.keys.len()).sum();
    if total > MAX_GET_KEYS {
        return Err(DdbError::validation(
            "Too many items requested for the BatchGetItem call",
        ));
    }
    let mut responses = BTreeMap::new();
    let mut spent = Vec::new();
    for (name, request) in &input.request_items {
        let table = scope.named_table(name)?;
        let mut placeholders = placeholders(
            request.expression_attribute_names.as_ref(),
            None,
            request.projection_expression.is_some(),
        )?;
        let selection = Selection::parse(
            request.projection_expression.as_deref(),
            request.attributes_to_get.as_deref(),
            &mut placeholders,
        )?;
        placeholders.check_unused()?;
        let mut seen = BTreeSet::new();
        let mut found = Vec::new();
        for key in &request.keys {
            let storage_key = keys::check_key(&table, key)?;
            if !seen.insert(storage_key.clone()) {
                return Err(duplicates());
            }
            let item = db::get_item(&*scope.store, &storage_key)?;
            spent.push((
                table.name.clone(),
                capacity::read_units(item.as_ref().map_or(0, item_size), request.consistent_read),
            ));
            if let Some(item) = item {
                found.push(selection.apply(item));
            }
        }
        responses.insert(name.clone(), found);
    }
    Ok(BatchGetItemOutput {
        responses: Some(responses),
        unprocessed_keys: Some(BTreeMap::new()),
        consumed_capacity: capacity::per_table(input.return_consumed_capacity.as_ref(), spent, false),
    })
}

pub(crate) fn batch_write_item(scope: &Scope, input: BatchWriteItemInput) -> Result<BatchWriteItemOutput, DdbError> {
    let total: usize = input.request_items.values().map(Vec::len).sum();
    if total > MAX_WRITES {
        return Err(DdbError::validation(
            "Too many items requested for the BatchWriteItem call",
        ));
    }
    let mut writes: Vec<(TableRecord, Vec<Write<'_>>)> = Vec::new();
    for (name, requests) in &input.request_items {
        let table = scope.named_table(name)?;
        let mut seen = BTreeSet::new();
        let mut table_writes = Vec::with_capacity(requests.len());
        for request in requests {
            let (key, item) = match (&request.put_request, &request.delete_request) {
                (Some(put), None) => (check_put(&table, &put.item, MissingKey::Schema)?, Some(&put.item)),
                (None, Some(delete)) => (keys::check_key(&table, &delete.key)?, None),
                _ => {
                    return Err(DdbError::validation(
                        "Supplied WriteRequest must contain exactly one of PutRequest or DeleteRequest",
                    ))
                }
            };
            if !seen.insert(key.clone()) {
                return Err(duplicates());
            }
            table_writes.push((key, item));
        }
        writes.push((table, table_writes));
    }
    let now = scope.now_ms();
    let spent = scope.store.transact(|tx| {
        let mut spent = Vec::new();
        for (table, table_writes) in &writes {
            let table = &db::current(tx, table)?;
            for (key, item) in table_writes {
                let old = db::get_item(tx, key)?;
                spent.push((table.name.clone(), capacity::write_units(old.as_ref(), *item)));
                if old.is_some() || item.is_some() {
                    db::write_item(tx, table, key, old.as_ref(), *item, now)?;
                }
            }
        }
        Ok::<_, DdbError>(spent)
    })?;
    Ok(BatchWriteItemOutput {
        unprocessed_items: Some(BTreeMap::new()),
        item_collection_metrics: None,
        consumed_capacity: capacity::per_table(input.return_consumed_capacity.as_ref(), spent, true),
    })
}
