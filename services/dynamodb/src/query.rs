//! Query and Scan: one page of a table's or index's items in key order, read from storage a
//! chunk at a time. `Limit` and the 1 MB page size count the items read before the filter,
//! as AWS counts them; `LastEvaluatedKey` is the last item read when a page stops early.

use std::ops::Bound;

use sha2::{Digest, Sha256};
use stratus_core::schema::Shape;
use stratus_core::{IntoValue, Value};
use stratus_gen_dynamodb::*;
use stratus_storage::{Direction, KeyRange};

use crate::db::{self, Scope, INDEXES, ITEMS};
use crate::error::DdbError;
use crate::expr::{self, parse_condition, parse_key_condition, Element, Expr, ExpressionKind, SortCondition};
use crate::key;
use crate::keys;
use crate::request::{placeholders, refuse_legacy, Selection};
use crate::size::item_size;
use crate::table::{matches_type, IndexProjection, IndexRecord, KeyAttr, KeySchema, TableRecord};
use crate::{capacity, codec, AttributeValue, Item};

/// The most data one page reads.
const MAX_PAGE_BYTES: usize = 1024 * 1024;
/// Entries read from storage per round trip.
const CHUNK: usize = 256;

/// What one Query or Scan page asks for, once checked.
pub(crate) struct Plan<'a> {
    pub table: &'a TableRecord,
    pub index: Option<&'a IndexRecord>,
    pub range: KeyRange,
    pub direction: Direction,
    pub limit: Option<usize>,
    /// Items outside the scan's segment, skipped without counting (a key condition is
    /// exactly the storage range, so a Query has none).
    pub in_segment: Option<&'a dyn Fn(&Item) -> bool>,
    pub filter: Option<expr::Condition<'a>>,
    pub selection: Selection<'a>,
    pub count_only: bool,
    /// Whether to read the table's item for each LSI entry (ALL_ATTRIBUTES on an LSI that
    /// projects fewer).
    pub fetch_base: bool,
}

/// Where a page puts the items it returns.
pub(crate) trait ItemSink {
    /// Whether items can go out as they are stored under `selection`, without decoding them.
    fn takes_stored(selection: &Selection<'_>) -> bool;

    /// Adds a returned item: `stored` is its stored encoding (absent when the item was read
    /// from elsewhere), `item` the item if it was decoded; one of them is always there.
    fn push(&mut self, selection: &Selection<'_>, stored: Option<&[u8]>, item: Option<Item>) -> Result<(), DdbError>;
}

fn decoded(stored: Option<&[u8]>, item: Option<Item>) -> Result<Item, DdbError> {
    match (item, stored) {
        (Some(item), _) => Ok(item),
        (None, Some(bytes)) => Ok(codec::decode(bytes)?),
        (None, None) => Err(DdbError::Internal("a page item was neither stored nor decoded".into())),
    }
}

/// Decoded items, for callers that work on them (PartiQL).
impl ItemSink for Vec<Item> {
    fn takes_stored(_: &Selection<'_>) -> bool {
        false
    }

    fn push(&mut self, selection: &Selection<'_>, stored: Option<&[u8]>, item: Option<Item>) -> Result<(), DdbError> {
        self.push(selection.apply(decoded(stored, item)?));
        Ok(())
    }
}

/// The JSON array a Query or Scan answers as `Items`, transcoded from the stored encodings
/// ([`codec::write_json`]) so that what is returned is never decoded when nothing needs it to
/// be: the response carries it as [`Value::EncodedJson`].
pub(crate) struct JsonItems(String);

impl JsonItems {
    fn new() -> JsonItems {
        JsonItems(String::from("["))
    }

    fn finish(mut self) -> Value {
        self.0.push(']');
        Value::EncodedJson(self.0)
    }
}

impl ItemSink for JsonItems {
    fn takes_stored(selection: &Selection<'_>) -> bool {
        matches!(selection, Selection::All)
    }

    fn push(&mut self, selection: &Selection<'_>, stored: Option<&[u8]>, item: Option<Item>) -> Result<(), DdbError> {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        match (selection, stored) {
            (Selection::All, Some(bytes)) => codec::write_json(bytes, &mut self.0)?,
            _ => codec::write_json(&codec::encode(&selection.apply(decoded(stored, item)?)), &mut self.0)?,
        }
        Ok(())
    }
}

pub(crate) struct Page<Items> {
    pub items: Items,
    pub count: usize,
    pub scanned: usize,
    pub bytes_read: usize,
    pub last_key: Option<Item>,
}

fn invalid_start() -> DdbError {
    DdbError::validation("The provided starting key is invalid: The provided key element does not match the schema")
}

/// The storage key an `ExclusiveStartKey` names.
pub(crate) fn start_key(table: &TableRecord, index: Option<&IndexRecord>, start: &Item) -> Result<Vec<u8>, DdbError> {
    let attrs: Vec<&KeyAttr> = table
        .key
        .attrs()
        .chain(index.iter().flat_map(|i| i.key.attrs()))
        .collect();
    if attrs
        .iter()
        .any(|a| !start.get(&a.name).is_some_and(|v| matches_type(v, a.kind)))
    {
        return Err(invalid_start());
    }
    Ok(match index {
        Some(index) => keys::index_entry_key(table, index, start).ok_or_else(invalid_start)?,
        None => keys::item_key(table, start),
    })
}

/// The range from `range` continuing after `key` in `direction`.
pub(crate) fn continue_after(range: &KeyRange, key: &[u8], direction: Direction) -> KeyRange {
    match direction {
        Direction::Forward => KeyRange::between(Bound::Excluded(key), range.end()),
        Direction::Backward => KeyRange::between(range.start(), Bound::Excluded(key)),
    }
}

/// The smallest byte string above every string starting with `prefix`.
fn after_prefix(prefix: &[u8]) -> Vec<u8> {
    let mut out = prefix.to_vec();
    while let Some(last) = out.pop() {
        if last < 0xff {
            out.push(last + 1);
            return out;
        }
    }
    out
}

pub(crate) fn run<Items: ItemSink>(scope: &Scope, plan: Plan<'_>, items: Items) -> Result<Page<Items>, DdbError> {
    let storage_table = if plan.index.is_some() { INDEXES } else { ITEMS };
    let mut range = plan.range.clone();
    let mut page = Page {
        items,
        count: 0,
        scanned: 0,
        bytes_read: 0,
        last_key: None,
    };
    let counting_only = plan.count_only && plan.filter.is_none() && plan.in_segment.is_none() && !plan.fetch_base;
    // Whether each item is decoded: something looks at it, or it does not go out as stored.
    let decode_each = plan.in_segment.is_some()
        || plan.fetch_base
        || plan.filter.is_some()
        || !(plan.count_only || Items::takes_stored(&plan.selection));
    'chunks: loop {
        let chunk = scope.store.scan(storage_table, &range, plan.direction, Some(CHUNK))?;
        let Some((last, _)) = chunk.last() else { break };
        range = continue_after(&range, last, plan.direction);
        let full_chunk = chunk.len() == CHUNK;
        for (_, value) in chunk {
            if counting_only {
                // Neither a filter nor a segment looks at the item, and none is returned: its
                // size is read off the bytes, and only the last one read is decoded.
                page.scanned += 1;
                page.count += 1;
                page.bytes_read += codec::encoded_item_size(&value)?;
                if plan.limit.is_some_and(|l| page.scanned >= l) || page.bytes_read >= MAX_PAGE_BYTES {
                    page.last_key = Some(last_key(plan.table, plan.index, &codec::decode(&value)?));
                    break 'chunks;
                }
                continue;
            }
            let mut item = if decode_each {
                Some(codec::decode(&value)?)
            } else {
                None
            };
            if let (Some(in_segment), Some(item)) = (plan.in_segment, &item) {
                if !in_segment(item) {
                    continue;
                }
            }
            let mut stored = Some(value.as_slice());
            if let (true, Some(entry)) = (plan.fetch_base, &item) {
                if let Some(base) = db::get_item(&*scope.store, &keys::item_key(plan.table, entry))? {
                    item = Some(base);
                    stored = None;
                }
            }
            page.scanned += 1;
            page.bytes_read += match stored {
                Some(bytes) => codec::encoded_item_size(bytes)?,
                None => item.as_ref().map_or(0, item_size),
            };
            if plan.limit.is_some_and(|l| page.scanned >= l) || page.bytes_read >= MAX_PAGE_BYTES {
                let read = decoded(stored, item)?;
                page.last_key = Some(last_key(plan.table, plan.index, &read));
                item = Some(read);
            }
            let returned = match (&plan.filter, &item) {
                (None, _) => true,
                (Some(filter), Some(item)) => filter.evaluate(item),
                (Some(_), None) => false,
            };
            if returned {
                page.count += 1;
                if !plan.count_only {
                    page.items.push(&plan.selection, stored, item)?;
                }
            }
            if page.last_key.is_some() {
                break 'chunks;
            }
        }
        if !full_chunk {
            break;
        }
    }
    Ok(page)
}

fn last_key(table: &TableRecord, index: Option<&IndexRecord>, item: &Item) -> Item {
    let mut key = table.key_of(item);
    for attr in index.iter().flat_map(|i| i.key.attrs()) {
        if let Some(value) = item.get(&attr.name) {
            key.insert(attr.name.clone(), value.clone());
        }
    }
    key
}

/// Resolves `IndexName` and checks `Select` against it and the projection.
fn choose_index<'t>(
    table: &'t TableRecord,
    index_name: Option<&str>,
    select: Option<&Select>,
    has_projection: bool,
) -> Result<(Option<&'t IndexRecord>, bool, bool), DdbError> {
    let index = index_name
        .map(|name| {
            table
                .index(name)
                .ok_or_else(|| DdbError::validation(format!("The table does not have the specified index: {name}")))
        })
        .transpose()?;
    let projection_refused = |what: &str| {
        DdbError::validation(format!(
            "Cannot specify the ProjectionExpression when choosing to get {what}"
        ))
    };
    match select {
        Some(Select::Count) if has_projection => return Err(projection_refused("only the Count")),
        Some(Select::AllAttributes) if has_projection => return Err(projection_refused("ALL_ATTRIBUTES")),
        Some(Select::AllProjectedAttributes) if has_projection => {
            return Err(projection_refused("ALL_PROJECTED_ATTRIBUTES"))
        }
        Some(Select::SpecificAttributes) if !has_projection => {
            return Err(DdbError::validation(
                "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
            ))
        }
        Some(Select::AllProjectedAttributes) if index.is_none() => {
            // AWS words it this way for Scan too.
            return Err(DdbError::validation(
                "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
            ));
        }
        _ => {}
    }
    let partial = index.is_some_and(|i| i.projection != IndexProjection::All);
    let mut fetch_base = false;
    if let (Some(index), Some(Select::AllAttributes), true) = (index, select, partial) {
        if index.global {
            return Err(DdbError::invalid(format!(
                "Select type ALL_ATTRIBUTES is not supported for global secondary index {} because its projection type is not ALL",
                index.name
            )));
        }
        fetch_base = true;
    }
    Ok((index, select == Some(&Select::Count), fetch_base))
}

/// The first key attribute a filter names, which a Query may not filter on.
fn key_in_filter<'a>(expr: &Expr<'a>, schema: &KeySchema) -> Option<&'a str> {
    let children: &[Expr<'a>] = match expr {
        Expr::Path(path) => {
            return match path.0.first() {
                Some(Element::Name(name)) if schema.contains(name) => Some(name),
                _ => None,
            }
        }
        Expr::Value(_) | Expr::Invalid => &[],
        Expr::Compare(_, pair) | Expr::And(pair) | Expr::Or(pair) | Expr::Arith(_, pair) => pair.as_slice(),
        Expr::Between(operands) => operands.as_slice(),
        Expr::In(first, rest) => {
            return key_in_filter(first, schema).or_else(|| rest.iter().find_map(|e| key_in_filter(e, schema)))
        }
        Expr::Not(inner) => return key_in_filter(inner, schema),
        Expr::Call(_, args) => args,
    };
    children.iter().find_map(|e| key_in_filter(e, schema))
}

fn limit(limit: Option<i32>) -> Option<usize> {
    limit.map(|l| l.max(1) as usize)
}

fn type_mismatch() -> DdbError {
    DdbError::invalid("Condition parameter type does not match schema type")
}

/// Where a key condition's items lie: the partition's prefix narrowed by the sort condition.
fn key_range(prefix: Vec<u8>, sort: Option<&SortCondition<'_>>) -> Result<KeyRange, DdbError> {
    let encode = |value: &AttributeValue| {
        let mut out = prefix.clone();
        key::encode_into(value, &mut out).map_err(|_| type_mismatch())?;
        Ok::<_, DdbError>(out)
    };
    let whole = || KeyRange::prefix(&prefix);
    let (start, end) = match sort {
        None => return Ok(whole()),
        Some(SortCondition::Eq(v)) => return Ok(KeyRange::prefix(&encode(v)?)),
        Some(SortCondition::Gt(v)) => (Bound::Included(after_prefix(&encode(v)?)), None),
        Some(SortCondition::Ge(v)) => (Bound::Included(encode(v)?), None),
        Some(SortCondition::Lt(v)) => (Bound::Included(prefix.clone()), Some(encode(v)?)),
        Some(SortCondition::Le(v)) => (Bound::Included(prefix.clone()), Some(after_prefix(&encode(v)?))),
        Some(SortCondition::Between(low, high)) => (Bound::Included(encode(low)?), Some(after_prefix(&encode(high)?))),
        Some(SortCondition::BeginsWith(v)) => {
            // An S or B encoding without its two-byte terminator prefixes every value
            // that starts with it.
            let mut start = encode(v)?;
            start.truncate(start.len() - 2);
            let end = after_prefix(&start);
            return Ok(KeyRange::new(start..end));
        }
    };
    let upper = after_prefix(&prefix);
    let end = end.unwrap_or(upper);
    let start = match &start {
        Bound::Included(s) => Bound::Included(s.as_slice()),
        _ => Bound::Unbounded,
    };
    Ok(KeyRange::between(start, Bound::Excluded(end.as_slice())))
}

fn check_sort_types(attr: &KeyAttr, sort: &SortCondition<'_>) -> Result<(), DdbError> {
    let values: Vec<&AttributeValue> = match sort {
        SortCondition::Between(low, high) => vec![low, high],
        SortCondition::Eq(v)
        | SortCondition::Lt(v)
        | SortCondition::Le(v)
        | SortCondition::Gt(v)
        | SortCondition::Ge(v)
        | SortCondition::BeginsWith(v) => vec![v],
    };
    if values.iter().any(|v| !matches_type(v, attr.kind)) {
        return Err(type_mismatch());
    }
    if let (SortCondition::BeginsWith(_), key::KeyType::N) = (sort, attr.kind) {
        return Err(DdbError::validation(
            "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
        ));
    }
    Ok(())
}

pub(crate) fn query(scope: &Scope, input: QueryInput) -> Result<Value, DdbError> {
    refuse_legacy(
        input.key_conditions.is_some(),
        "KeyConditions",
        "KeyConditionExpression",
    )?;
    refuse_legacy(input.query_filter.is_some(), "QueryFilter", "FilterExpression")?;
    let table = scope.named_table(&input.table_name)?;
    let has_projection = input.projection_expression.is_some() || input.attributes_to_get.is_some();
    let (index, count_only, fetch_base) = choose_index(
        &table,
        input.index_name.as_deref(),
        input.select.as_ref(),
        has_projection,
    )?;
    let expression = input.key_condition_expression.as_deref().ok_or_else(|| {
        DdbError::validation(
            "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
        )
    })?;
    let mut placeholders = placeholders(
        input.expression_attribute_names.as_ref(),
        input.expression_attribute_values.as_ref(),
        true,
    )?;
    let schema = index.map_or(&table.key, |i| &i.key);
    fn names(attrs: &[KeyAttr]) -> Vec<&str> {
        attrs.iter().map(|a| a.name.as_str()).collect()
    }
    let condition = parse_key_condition(
        expression,
        &mut placeholders,
        &names(&schema.hash),
        &names(&schema.range),
    )?;
    let filter = input
        .filter_expression
        .as_deref()
        .map(|f| parse_condition(f, ExpressionKind::Filter, &mut placeholders))
        .transpose()?;
    let selection = Selection::parse(
        input.projection_expression.as_deref(),
        input.attributes_to_get.as_deref(),
        &mut placeholders,
    )?;
    placeholders.check_unused()?;
    if let Some(key) = filter.as_ref().and_then(|f| key_in_filter(f.expr(), schema)) {
        return Err(DdbError::validation(format!(
            "Filter Expression can only contain non-primary key attributes: Primary key attribute: {key}"
        )));
    }
    for (value, attr) in condition.partition.iter().zip(&schema.hash) {
        if !matches_type(value, attr.kind) {
            return Err(type_mismatch());
        }
        keys::check_not_empty(attr, value)?;
    }
    for (value, attr) in condition.sort_prefix.iter().zip(&schema.range) {
        check_sort_types(attr, &SortCondition::Eq(value))?;
    }
    if let (Some(sort), Some(attr)) = (&condition.sort, schema.range.get(condition.sort_prefix.len())) {
        check_sort_types(attr, sort)?;
    }
    let mut prefix = match index {
        Some(index) => keys::index_prefix(&table.name, &index.name),
        None => keys::table_prefix(&table.name),
    };
    // Items lie under the partition's values and the leading sort equalities, narrowed by the
    // sort condition.
    for value in condition.partition.iter().chain(&condition.sort_prefix) {
        key::encode_into(value, &mut prefix).map_err(|_| type_mismatch())?;
    }
    let mut range = key_range(prefix, condition.sort.as_ref())?;
    let direction = if input.scan_index_forward.unwrap_or(true) {
        Direction::Forward
    } else {
        Direction::Backward
    };
    if let Some(start) = &input.exclusive_start_key {
        range = continue_after(&range, &start_key(&table, index, start)?, direction);
    }
    let page = run(
        scope,
        Plan {
            table: &table,
            index,
            range,
            direction,
            limit: limit(input.limit),
            in_segment: None,
            filter,
            selection,
            count_only,
            fetch_base,
        },
        JsonItems::new(),
    )?;
    let units = capacity::read_units(page.bytes_read, input.consistent_read);
    let output = QueryOutput {
        items: None,
        count: page.count as i32,
        scanned_count: page.scanned as i32,
        last_evaluated_key: page.last_key,
        consumed_capacity: capacity::consumed(input.return_consumed_capacity.as_ref(), &table.name, units, false),
    };
    Ok(with_items(
        output.into_value(),
        &schema::QUERY_OUTPUT,
        (!count_only).then_some(page.items),
    ))
}

/// Which of `total` segments an item belongs to, by a hash of its partition key.
fn segment_of(table: &TableRecord, item: &Item, total: u32) -> u32 {
    let mut encoded = Vec::new();
    if let Some(value) = item.get(&table.key.partition().name) {
        let _ = key::encode_into(value, &mut encoded);
    }
    let digest = Sha256::digest(&encoded);
    u32::from_be_bytes(digest[..4].try_into().expect("4 bytes")) % total
}

fn segments(segment: Option<i32>, total: Option<i32>) -> Result<Option<(u32, u32)>, DdbError> {
    match (segment, total) {
        (None, None) => Ok(None),
        (Some(_), None) => Err(DdbError::validation(
            "The TotalSegments parameter is required but was not present in the request when Segment parameter is present",
        )),
        (None, Some(_)) => Err(DdbError::validation(
            "The Segment parameter is required but was not present in the request when parameter TotalSegments is present",
        )),
        (Some(segment), Some(total)) if segment >= total => Err(DdbError::validation(format!(
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: {segment} is not less than TotalSegments: {total}"
        ))),
        (Some(segment), Some(total)) => Ok(Some((segment.max(0) as u32, total.max(1) as u32))),
    }
}

pub(crate) fn scan(scope: &Scope, input: ScanInput) -> Result<Value, DdbError> {
    refuse_legacy(input.scan_filter.is_some(), "ScanFilter", "FilterExpression")?;
    let table = scope.named_table(&input.table_name)?;
    let segment = segments(input.segment, input.total_segments)?;
    let has_projection = input.projection_expression.is_some() || input.attributes_to_get.is_some();
    let (index, count_only, fetch_base) = choose_index(
        &table,
        input.index_name.as_deref(),
        input.select.as_ref(),
        has_projection,
    )?;
    let any_expression = input.filter_expression.is_some() || input.projection_expression.is_some();
    let mut placeholders = placeholders(
        input.expression_attribute_names.as_ref(),
        input.expression_attribute_values.as_ref(),
        any_expression,
    )?;
    let filter = input
        .filter_expression
        .as_deref()
        .map(|f| parse_condition(f, ExpressionKind::Filter, &mut placeholders))
        .transpose()?;
    let selection = Selection::parse(
        input.projection_expression.as_deref(),
        input.attributes_to_get.as_deref(),
        &mut placeholders,
    )?;
    placeholders.check_unused()?;
    let prefix = match index {
        Some(index) => keys::index_prefix(&table.name, &index.name),
        None => keys::table_prefix(&table.name),
    };
    let mut range = KeyRange::prefix(&prefix);
    if let Some(start) = &input.exclusive_start_key {
        range = continue_after(&range, &start_key(&table, index, start)?, Direction::Forward);
    }
    let in_segment = |item: &Item| segment.is_none_or(|(segment, total)| segment_of(&table, item, total) == segment);
    let page = run(
        scope,
        Plan {
            table: &table,
            index,
            range,
            direction: Direction::Forward,
            limit: limit(input.limit),
            in_segment: segment.is_some().then_some(&in_segment as &dyn Fn(&Item) -> bool),
            filter,
            selection,
            count_only,
            fetch_base,
        },
        JsonItems::new(),
    )?;
    let units = capacity::read_units(page.bytes_read, input.consistent_read);
    let output = ScanOutput {
        items: None,
        count: page.count as i32,
        scanned_count: page.scanned as i32,
        last_evaluated_key: page.last_key,
        consumed_capacity: capacity::consumed(input.return_consumed_capacity.as_ref(), &table.name, units, false),
    };
    Ok(with_items(
        output.into_value(),
        &schema::SCAN_OUTPUT,
        (!count_only).then_some(page.items),
    ))
}

/// A Query or Scan output value with `items` (unless the request counted only) in its
/// `Items` member.
fn with_items(mut output: Value, shape: &Shape, items: Option<JsonItems>) -> Value {
    if let (Value::Struct(slots), Some(items), Some(at)) = (&mut output, items, shape.member_index("Items")) {
        slots[at] = Some(items.finish());
    }
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_prefix_bounds_every_extension() {
        assert_eq!(after_prefix(&[1, 2]), vec![1, 3]);
        assert_eq!(after_prefix(&[1, 0xff]), vec![2]);
        assert!(after_prefix(b"ab").as_slice() > b"ab\xff\xff".as_slice());
    }

    #[test]
    fn segments_need_both_parameters() {
        assert!(segments(Some(0), None).is_err());
        assert!(segments(None, Some(2)).is_err());
        assert!(segments(Some(2), Some(2)).is_err());
        assert_eq!(segments(Some(1), Some(2)).unwrap(), Some((1, 2)));
    }
}
