//! Table records: what CreateTable accepts (checked with AWS's messages, in the order AWS
//! checks them — dynalite's validations/createTable.js records the answers), how a table is
//! stored, and the `TableDescription` it is described with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stratus_core::arn::Arn;
use stratus_core::DateTime;
use stratus_gen_dynamodb::{
    AttributeDefinition, BillingMode, BillingModeSummary, CreateTableInput, GlobalSecondaryIndexDescription,
    GlobalSecondaryIndexWarmThroughputDescription, GlobalTableSettingsReplicationMode, IndexStatus, KeySchemaElement,
    KeyType as SchemaKeyType, LocalSecondaryIndexDescription, Projection as ProjectionShape, ProjectionType,
    ProvisionedThroughput, ProvisionedThroughputDescription, ScalarAttributeType, StreamSpecification, StreamViewType,
    TableClass, TableClassSummary, TableDescription, TableStatus, TableWarmThroughputDescription, WarmThroughput,
};

use crate::error::DdbError;
use crate::key::KeyType;
use crate::size::item_size;
use crate::{AttributeValue, Item};

/// AWS's upper bound on capacity units.
const MAX_CAPACITY: i64 = 1_000_000_000_000;
const MAX_LOCAL_INDEXES: usize = 5;
const MAX_GLOBAL_INDEXES: usize = 20;

/// A key attribute: its name and type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyAttr {
    pub name: String,
    pub kind: KeyType,
}

/// A table's or index's key: its partition key attributes and its sort key attributes, in
/// key schema order. A table or local index has one partition attribute and at most one sort
/// attribute; a global index up to four of each (multi-attribute keys).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeySchema {
    #[serde(deserialize_with = "stored::one_or_many")]
    pub hash: Vec<KeyAttr>,
    #[serde(deserialize_with = "stored::none_or_many")]
    pub range: Vec<KeyAttr>,
}

impl KeySchema {
    /// A key of one partition attribute and perhaps one sort attribute.
    pub fn simple(hash: KeyAttr, range: Option<KeyAttr>) -> KeySchema {
        KeySchema {
            hash: vec![hash],
            range: range.into_iter().collect(),
        }
    }

    pub fn attrs(&self) -> impl Iterator<Item = &KeyAttr> {
        self.hash.iter().chain(&self.range)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.attrs().any(|a| a.name == name)
    }

    /// The first partition attribute: a table's (and a local index's) only one.
    pub fn partition(&self) -> &KeyAttr {
        &self.hash[0]
    }

    /// The first sort attribute: a table's (and a local index's) only one, if it has one.
    pub fn sort(&self) -> Option<&KeyAttr> {
        self.range.first()
    }

    fn describe(&self) -> Vec<KeySchemaElement> {
        let element = |attr: &KeyAttr, key_type: SchemaKeyType| KeySchemaElement {
            attribute_name: attr.name.clone(),
            key_type,
        };
        self.hash
            .iter()
            .map(|h| element(h, SchemaKeyType::Hash))
            .chain(self.range.iter().map(|r| element(r, SchemaKeyType::Range)))
            .collect()
    }
}

/// Reading key schemas stored before multi-attribute keys, when `hash` was one attribute and
/// `range` one or none.
mod stored {
    use serde::{Deserialize, Deserializer};

    use super::KeyAttr;

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(KeyAttr),
        Many(Vec<KeyAttr>),
    }

    pub(super) fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<KeyAttr>, D::Error> {
        Ok(match OneOrMany::deserialize(d)? {
            OneOrMany::One(attr) => vec![attr],
            OneOrMany::Many(attrs) => attrs,
        })
    }

    pub(super) fn none_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<KeyAttr>, D::Error> {
        Ok(match Option::<OneOrMany>::deserialize(d)? {
            None => Vec::new(),
            Some(OneOrMany::One(attr)) => vec![attr],
            Some(OneOrMany::Many(attrs)) => attrs,
        })
    }
}

/// Which attributes an index copies from the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum IndexProjection {
    All,
    KeysOnly,
    Include(Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Throughput {
    pub read: i64,
    pub write: i64,
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct IndexRecord {
    pub name: String,
    pub global: bool,
    pub key: KeySchema,
    pub projection: IndexProjection,
    pub throughput: Option<Throughput>,
}

impl IndexRecord {
    /// The item as the index stores it: its projected attributes plus every key attribute
    /// of the index and the table.
    pub(crate) fn project(&self, item: &Item, table_key: &KeySchema) -> Item {
        let keep = |name: &str| {
            self.key.contains(name)
                || table_key.contains(name)
                || match &self.projection {
                    IndexProjection::All => true,
                    IndexProjection::KeysOnly => false,
                    IndexProjection::Include(names) => names.iter().any(|n| n == name),
                }
        };
        item.iter()
            .filter(|(name, _)| keep(name))
            .map(|(n, v)| (n.clone(), v.clone()))
            .collect()
    }

    fn describe_projection(&self) -> ProjectionShape {
        let (projection_type, non_key_attributes) = match &self.projection {
            IndexProjection::All => (ProjectionType::All, None),
            IndexProjection::KeysOnly => (ProjectionType::KeysOnly, None),
            IndexProjection::Include(names) => (ProjectionType::Include, Some(names.clone())),
        };
        ProjectionShape {
            projection_type: Some(projection_type),
            non_key_attributes,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stream {
    pub view_type: String,
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Ttl {
    pub attribute: String,
    pub enabled: bool,
}

/// A table as stored in the `tables` storage table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TableRecord {
    pub name: String,
    pub id: String,
    pub created_ms: i64,
    pub attributes: Vec<KeyAttr>,
    pub key: KeySchema,
    /// `None` for on-demand (PAY_PER_REQUEST) tables.
    pub throughput: Option<Throughput>,
    /// When the table last switched to on-demand.
    pub on_demand_since_ms: Option<i64>,
    pub indexes: Vec<IndexRecord>,
    pub stream: Option<Stream>,
    pub tags: Vec<(String, String)>,
    pub table_class: Option<String>,
    pub deletion_protection: bool,
    pub ttl: Option<Ttl>,
    /// Point-in-time recovery, when enabled.
    #[serde(default)]
    pub recovery: Option<Recovery>,
    /// Contributor insights settings of the table (index `None`) and its indexes.
    #[serde(default)]
    pub insights: Vec<Insights>,
    /// The resource-based policy attached to the table.
    #[serde(default)]
    pub policy: Option<Policy>,
    /// `GlobalTableSettingsReplicationMode` as last set: whether a global table's replicas
    /// would share this table's settings (nothing is replicated).
    #[serde(default)]
    pub settings_replication: Option<String>,
    /// `WarmThroughput` as requested; `None`: the default (the provisioned capacity, or
    /// on-demand's 12,000 reads and 4,000 writes a second).
    #[serde(default)]
    pub warm: Option<Warm>,
    /// Kinesis data streams the table's item changes are sent to
    /// (EnableKinesisStreamingDestination).
    #[serde(default)]
    pub kinesis: Vec<KinesisDestination>,
    /// The ARN of the KMS key the table is encrypted under; `None`: an AWS owned key.
    #[serde(default)]
    pub sse_key: Option<String>,
}

/// A Kinesis streaming destination of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KinesisDestination {
    pub stream_arn: String,
    /// Whether changes are sent: `false` once disabled (AWS lists it as `DISABLED`).
    pub active: bool,
    /// `ApproximateCreationDateTimePrecision`, when set: `MILLISECOND` or `MICROSECOND`.
    pub precision: Option<String>,
}

impl TableRecord {
    /// Whether item changes are to be sent to some Kinesis stream.
    pub(crate) fn streams_to_kinesis(&self) -> bool {
        self.kinesis.iter().any(|d| d.active)
    }
}

/// Warm throughput: the reads and writes a second a table is ready for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Warm {
    pub read: i64,
    pub write: i64,
}

/// On-demand tables' and indexes' warm throughput, as DescribeTable reports it.
const ON_DEMAND_WARM: Warm = Warm {
    read: 12_000,
    write: 4_000,
};

impl Warm {
    /// A requested warm throughput; a missing half is the default's.
    pub(crate) fn requested(input: Option<&WarmThroughput>, default: Warm) -> Option<Warm> {
        input.map(|w| Warm {
            read: w.read_units_per_second.unwrap_or(default.read),
            write: w.write_units_per_second.unwrap_or(default.write),
        })
    }

    pub(crate) fn of(throughput: Option<Throughput>) -> Warm {
        throughput.map_or(ON_DEMAND_WARM, |t| Warm {
            read: t.read,
            write: t.write,
        })
    }
}

/// Which answer a table's description is for: AWS describes a table differently in each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// CreateTable: `CREATING`, no billing date yet, warm throughput only if requested.
    Created,
    /// DescribeTable: `ACTIVE`, with warm throughput.
    Described,
    /// UpdateTable: as described, but `UPDATING` (recorded against AWS), as the change is
    /// under way when AWS answers.
    Updated,
    /// DeleteTable: `DELETING`, without the key schema, attributes, dates and indexes.
    Deleted,
}

/// Contributor insights as last set by UpdateContributorInsights.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Insights {
    pub index: Option<String>,
    pub enabled: bool,
    pub mode: String,
    pub updated_ms: i64,
}

/// A resource-based policy document and its revision id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Policy {
    pub document: String,
    pub revision: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Recovery {
    pub since_ms: i64,
    pub days: i32,
}

/// The item count and size the description reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    pub items: u64,
    pub bytes: u64,
}

impl Stats {
    /// Accounts for `old` (if any) replaced by `new` (if any).
    pub(crate) fn replace(&mut self, old: Option<&Item>, new: Option<&Item>) {
        if let Some(old) = old {
            self.items = self.items.saturating_sub(1);
            self.bytes = self.bytes.saturating_sub(item_size(old) as u64);
        }
        if let Some(new) = new {
            self.items += 1;
            self.bytes += item_size(new) as u64;
        }
    }
}

fn key_type(t: &ScalarAttributeType) -> KeyType {
    match t {
        ScalarAttributeType::N => KeyType::N,
        ScalarAttributeType::B => KeyType::B,
        _ => KeyType::S,
    }
}

pub(crate) fn type_letter(t: KeyType) -> &'static str {
    match t {
        KeyType::S => "S",
        KeyType::N => "N",
        KeyType::B => "B",
    }
}

fn check_throughput(t: &ProvisionedThroughput) -> Result<Throughput, DdbError> {
    for (name, value) in [
        ("ReadCapacityUnits", t.read_capacity_units),
        ("WriteCapacityUnits", t.write_capacity_units),
    ] {
        if value > MAX_CAPACITY {
            return Err(DdbError::validation(format!(
                "Given value {value} for {name} is out of bounds"
            )));
        }
    }
    Ok(Throughput {
        read: t.read_capacity_units,
        write: t.write_capacity_units,
    })
}

/// The attribute definitions as key attributes, refusing a name defined twice.
pub(crate) fn definitions(defs: &[AttributeDefinition]) -> Result<Vec<KeyAttr>, DdbError> {
    let mut out: Vec<KeyAttr> = Vec::with_capacity(defs.len());
    for def in defs {
        if out.iter().any(|a| a.name == def.attribute_name) {
            return Err(DdbError::validation("Cannot have two attributes with the same name"));
        }
        out.push(KeyAttr {
            name: def.attribute_name.clone(),
            kind: key_type(&def.attribute_type),
        });
    }
    Ok(out)
}

/// Whose key a key schema is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyOwner {
    Table,
    LocalIndex,
    GlobalIndex,
}

/// How many partition and sort attributes a global index's key may have.
const MAX_GLOBAL_KEY_ATTRIBUTES: usize = 4;

/// Checks an index's (or the table's) key schema against the definitions.
fn index_key(elements: &[KeySchemaElement], defs: &[KeyAttr], owner: KeyOwner) -> Result<KeySchema, DdbError> {
    let names: Vec<&str> = elements.iter().map(|e| e.attribute_name.as_str()).collect();
    let defined = |name: &str| defs.iter().find(|a| a.name == name);
    let undefined = names.iter().any(|n| defined(n).is_none());
    let def_names: Vec<&str> = defs.iter().map(|a| a.name.as_str()).collect();
    if owner == KeyOwner::Table && names.len() == 2 && (undefined || (names[0] == names[1] && defs.len() == 1)) {
        return Err(DdbError::validation(
            "Invalid KeySchema: Some index key attribute have no definition",
        ));
    }
    if undefined {
        return Err(DdbError::invalid(format!(
            "Some index key attributes are not defined in AttributeDefinitions. Keys: [{}], AttributeDefinitions: [{}]",
            names.join(", "),
            def_names.join(", ")
        )));
    }
    let count = |kind: SchemaKeyType| elements.iter().filter(|e| e.key_type == kind).count();
    // Multi-attribute keys' refusals, as AWS words them (probed against AWS, 2026-10).
    for (kind, name) in [(SchemaKeyType::Hash, "HASH"), (SchemaKeyType::Range, "RANGE")] {
        if count(kind) > MAX_GLOBAL_KEY_ATTRIBUTES {
            return Err(DdbError::validation(format!(
                "The KeySchema exceeds the maximum allowed number of {name} key attributes"
            )));
        }
    }
    if names.len() == 2 && names[0] == names[1] {
        return Err(DdbError::validation(
            "Both the Hash Key and the Range Key element in the KeySchema have the same name",
        ));
    }
    if elements[0].key_type != SchemaKeyType::Hash {
        return Err(DdbError::validation(
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
        ));
    }
    if owner != KeyOwner::GlobalIndex && elements.get(1).is_some_and(|e| e.key_type != SchemaKeyType::Range) {
        return Err(DdbError::validation(
            "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type",
        ));
    }
    let first_range = elements.iter().position(|e| e.key_type == SchemaKeyType::Range);
    if first_range.is_some_and(|at| elements[at..].iter().any(|e| e.key_type == SchemaKeyType::Hash)) {
        return Err(DdbError::validation(
            "All HASH key attributes must precede RANGE key attributes in the KeySchema",
        ));
    }
    if names.iter().enumerate().any(|(i, n)| names[..i].contains(n)) {
        return Err(DdbError::validation(
            "The KeySchema contains multiple key attributes with the same name",
        ));
    }
    let attrs = |kind: SchemaKeyType| {
        elements
            .iter()
            .filter(|e| e.key_type == kind)
            .filter_map(|e| defined(&e.attribute_name).cloned())
            .collect()
    };
    Ok(KeySchema {
        hash: attrs(SchemaKeyType::Hash),
        range: attrs(SchemaKeyType::Range),
    })
}

/// What the model no longer states (since a replica needs no key schema, and a global index
/// may have a longer key): KeySchema and AttributeDefinitions are present, and a table's and
/// a local index's key schema have at most two elements — refused as the model's constraints
/// once were.
fn check_key_schema_presence_and_lengths(input: &CreateTableInput) -> Result<(), DdbError> {
    let render = |elements: &[KeySchemaElement]| {
        let items: Vec<String> = elements
            .iter()
            .map(|e| {
                format!(
                    "KeySchemaElement(attributeName={}, keyType={})",
                    e.attribute_name,
                    e.key_type.as_str()
                )
            })
            .collect();
        format!("[{}]", items.join(", "))
    };
    let too_long = |path: String, elements: &[KeySchemaElement]| {
        (elements.len() > 2).then(|| {
            format!(
                "Value '{}' at '{path}' failed to satisfy constraint: Member must have length less than or equal to 2",
                render(elements)
            )
        })
    };
    let mut violations: Vec<String> = Vec::new();
    if input.attribute_definitions.is_none() {
        violations
            .push("Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null".into());
    }
    match &input.key_schema {
        None => {
            violations.push("Value null at 'keySchema' failed to satisfy constraint: Member must not be null".into())
        }
        Some(key) => violations.extend(too_long("keySchema".into(), key)),
    }
    for (i, lsi) in input.local_secondary_indexes.iter().flatten().enumerate() {
        violations.extend(too_long(
            format!("localSecondaryIndexes.{}.member.keySchema", i + 1),
            &lsi.key_schema,
        ));
    }
    match violations.len() {
        0 => Ok(()),
        1 => Err(DdbError::validation(format!(
            "1 validation error detected: {}",
            violations[0]
        ))),
        n => Err(DdbError::validation(format!(
            "{n} validation errors detected: {}",
            violations.join("; ")
        ))),
    }
}

fn projection(name: &str, shape: &ProjectionShape) -> Result<IndexProjection, DdbError> {
    let kind = shape
        .projection_type
        .as_ref()
        .ok_or_else(|| DdbError::invalid("Unknown ProjectionType: null"))?;
    if shape.non_key_attributes.is_some() && *kind != ProjectionType::Include {
        return Err(DdbError::invalid(format!(
            "ProjectionType is {}, but NonKeyAttributes is specified",
            kind.as_str()
        )));
    }
    Ok(match kind {
        ProjectionType::All => IndexProjection::All,
        ProjectionType::KeysOnly => IndexProjection::KeysOnly,
        _ => IndexProjection::Include(shape.non_key_attributes.clone().ok_or_else(|| {
            DdbError::invalid(format!(
                "NonKeyAttributes must be specified for INCLUDE projection of index: {name}"
            ))
        })?),
    })
}

/// A new GSI: its key, projection and throughput, checked against the table's billing.
pub(crate) fn global_index(
    name: &str,
    key: &[KeySchemaElement],
    shape: &ProjectionShape,
    throughput: Option<&ProvisionedThroughput>,
    defs: &[KeyAttr],
    on_demand: bool,
) -> Result<IndexRecord, DdbError> {
    let key = index_key(key, defs, KeyOwner::GlobalIndex)?;
    let projection = projection(name, shape)?;
    let throughput = match (throughput, on_demand) {
        (Some(_), true) => {
            return Err(DdbError::invalid(format!(
                "ProvisionedThroughput should not be specified for index: {name} when BillingMode is PAY_PER_REQUEST"
            )))
        }
        (None, false) => {
            return Err(DdbError::invalid(format!(
                "ProvisionedThroughput must be specified for index: {name}"
            )))
        }
        (Some(t), false) => Some(check_throughput(t)?),
        (None, true) => None,
    };
    Ok(IndexRecord {
        name: name.to_owned(),
        global: true,
        key,
        projection,
        throughput,
    })
}

/// The billing mode and throughput a request asks for.
pub(crate) fn billing(
    mode: Option<&BillingMode>,
    throughput: Option<&ProvisionedThroughput>,
) -> Result<Option<Throughput>, DdbError> {
    match (mode, throughput) {
        (Some(BillingMode::PayPerRequest), Some(_)) => Err(DdbError::invalid(
            "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
        )),
        (Some(BillingMode::PayPerRequest), None) => Ok(None),
        (_, None) => Err(DdbError::invalid(
            "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED",
        )),
        (_, Some(t)) => check_throughput(t).map(Some),
    }
}

/// Refuses attribute definitions no key uses.
pub(crate) fn check_definitions_used(record: &TableRecord, has_indexes: bool) -> Result<(), DdbError> {
    let used = |a: &KeyAttr| record.is_key_attribute(&a.name);
    if record.attributes.iter().all(used) {
        return Ok(());
    }
    if !has_indexes {
        return Err(DdbError::invalid(
            "Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions",
        ));
    }
    let names = |attrs: Vec<&KeyAttr>| attrs.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ");
    let keys: Vec<&KeyAttr> = record.attributes.iter().filter(|a| used(a)).collect();
    Err(DdbError::invalid(format!(
        "Some AttributeDefinitions are not used. AttributeDefinitions: [{}], keys used: [{}]",
        names(record.attributes.iter().collect()),
        names(keys)
    )))
}

pub(crate) fn stream(spec: &StreamSpecification, now_ms: i64) -> Result<Option<Stream>, DdbError> {
    if !spec.stream_enabled {
        if spec.stream_view_type.is_some() {
            return Err(DdbError::validation(
                "One or more parameter values were invalid: StreamViewType is specified but StreamEnabled is false",
            ));
        }
        return Ok(None);
    }
    let view_type = spec
        .stream_view_type
        .as_ref()
        .ok_or_else(|| DdbError::invalid("StreamViewType is required when StreamEnabled is true"))?;
    Ok(Some(Stream {
        view_type: view_type.as_str().to_owned(),
        label: stream_label(now_ms),
    }))
}

/// A stream label: the creation time as `YYYY-MM-DDTHH:MM:SS.mmm`.
pub(crate) fn stream_label(now_ms: i64) -> String {
    let formatted = DateTime::from_millis(now_ms)
        .fmt(aws_smithy_types::date_time::Format::DateTime)
        .unwrap_or_default();
    // `2024-01-02T03:04:05.678Z` or without fraction; AWS's label always has milliseconds.
    let trimmed = formatted.trim_end_matches('Z');
    let (seconds, fraction) = trimmed.split_once('.').unwrap_or((trimmed, ""));
    format!("{seconds}.{:0<3}", &fraction[..fraction.len().min(3)])
}

impl TableRecord {
    /// Checks a CreateTable request and builds the record.
    pub(crate) fn create(input: &CreateTableInput, id: String, now_ms: i64) -> Result<TableRecord, DdbError> {
        if input.global_table_source_arn.is_some() {
            return Err(DdbError::NotImplemented(
                "Stratus does not create global table replicas: one Stratus serves each region separately and replicates nothing between them"
                    .into(),
            ));
        }
        check_key_schema_presence_and_lengths(input)?;
        let on_demand = input.billing_mode == Some(BillingMode::PayPerRequest);
        let throughput = billing(input.billing_mode.as_ref(), input.provisioned_throughput.as_ref())?;
        let attributes = definitions(input.attribute_definitions.as_deref().unwrap_or_default())?;
        let key = index_key(
            input.key_schema.as_deref().unwrap_or_default(),
            &attributes,
            KeyOwner::Table,
        )?;
        let mut indexes = Vec::new();
        if let Some(lsis) = &input.local_secondary_indexes {
            if lsis.is_empty() {
                return Err(DdbError::invalid("List of LocalSecondaryIndexes is empty"));
            }
            if key.range.is_empty() {
                return Err(DdbError::invalid(
                    "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex",
                ));
            }
            for lsi in lsis {
                let index_key = index_key(&lsi.key_schema, &attributes, KeyOwner::LocalIndex)?;
                if index_key.range.is_empty() {
                    return Err(DdbError::invalid(format!(
                        "Index KeySchema does not have a range key for index: {}",
                        lsi.index_name
                    )));
                }
                if index_key.hash != key.hash {
                    return Err(DdbError::invalid(format!(
                        "Index KeySchema does not have the same leading hash key as table KeySchema for index: {}. index hash key: {}, table hash key: {}",
                        lsi.index_name,
                        index_key.partition().name,
                        key.partition().name
                    )));
                }
                let projection = projection(&lsi.index_name, &lsi.projection)?;
                push_index(
                    &mut indexes,
                    IndexRecord {
                        name: lsi.index_name.clone(),
                        global: false,
                        key: index_key,
                        projection,
                        throughput: None,
                    },
                )?;
            }
            if lsis.len() > MAX_LOCAL_INDEXES {
                return Err(DdbError::invalid(
                    "Number of LocalSecondaryIndexes exceeds per-table limit of 5",
                ));
            }
        }
        if let Some(gsis) = &input.global_secondary_indexes {
            if gsis.is_empty() {
                return Err(DdbError::invalid("List of GlobalSecondaryIndexes is empty"));
            }
            for gsi in gsis {
                let index = global_index(
                    &gsi.index_name,
                    &gsi.key_schema,
                    &gsi.projection,
                    gsi.provisioned_throughput.as_ref(),
                    &attributes,
                    on_demand,
                )?;
                push_index(&mut indexes, index)?;
            }
            if gsis.len() > MAX_GLOBAL_INDEXES {
                return Err(DdbError::invalid(
                    "GlobalSecondaryIndex count exceeds the per-table limit of 20",
                ));
            }
        }
        let stream = match &input.stream_specification {
            Some(spec) => stream(spec, now_ms)?,
            None => None,
        };
        let record = TableRecord {
            name: input.table_name.clone(),
            id,
            created_ms: now_ms,
            attributes,
            key,
            throughput,
            on_demand_since_ms: on_demand.then_some(now_ms),
            warm: Warm::requested(input.warm_throughput.as_ref(), Warm::of(throughput)),
            indexes,
            stream,
            tags: Vec::new(),
            table_class: input.table_class.as_ref().map(|c| c.as_str().to_owned()),
            deletion_protection: input.deletion_protection_enabled.unwrap_or(false),
            ttl: None,
            recovery: None,
            insights: Vec::new(),
            policy: None,
            settings_replication: input
                .global_table_settings_replication_mode
                .as_ref()
                .map(|m| m.as_str().to_owned()),
            kinesis: Vec::new(),
            sse_key: None,
        };
        let has_indexes = input.local_secondary_indexes.is_some() || input.global_secondary_indexes.is_some();
        check_definitions_used(&record, has_indexes)?;
        Ok(record)
    }

    /// What a DynamoDB ARN of this region and account names after `table/`: a table's name,
    /// followed by `/index/NAME` or `/stream/LABEL` for what lives under the table.
    pub(crate) fn path_in_arn(arn: &str, region: &str, account: &str) -> Option<String> {
        let arn = Arn::parse(arn).ok().filter(|a| a.is_in("dynamodb", region, account))?;
        arn.resource.strip_prefix("table/").map(str::to_owned)
    }

    pub(crate) fn arn(&self, region: &str, account: &str) -> String {
        Arn::new("dynamodb", region, account, &format!("table/{}", self.name)).to_string()
    }

    /// Whether the table's or an index's key uses the attribute.
    pub(crate) fn is_key_attribute(&self, name: &str) -> bool {
        self.key.contains(name) || self.indexes.iter().any(|i| i.key.contains(name))
    }

    pub(crate) fn index(&self, name: &str) -> Option<&IndexRecord> {
        self.indexes.iter().find(|i| i.name == name)
    }

    /// The primary key attributes of an item (or a key map), by schema.
    pub(crate) fn key_of(&self, item: &Item) -> Item {
        self.key
            .attrs()
            .filter_map(|a| item.get(&a.name).map(|v| (a.name.clone(), v.clone())))
            .collect()
    }

    /// The description, given the table's statistics and each index's by name.
    pub(crate) fn describe(
        &self,
        region: &str,
        account: &str,
        stats: Stats,
        index_stats: &BTreeMap<String, Stats>,
        answer: Answer,
    ) -> TableDescription {
        let deleted = answer == Answer::Deleted;
        let status = match answer {
            Answer::Created => TableStatus::Creating,
            Answer::Described => TableStatus::Active,
            Answer::Updated => TableStatus::Updating,
            Answer::Deleted => TableStatus::Deleting,
        };
        let index_stats = |i: &IndexRecord| index_stats.get(&i.name).copied().unwrap_or_default();
        let arn = self.arn(region, account);
        let throughput = |t: Option<Throughput>| ProvisionedThroughputDescription {
            last_increase_date_time: None,
            last_decrease_date_time: None,
            number_of_decreases_today: Some(0),
            read_capacity_units: Some(t.map_or(0, |t| t.read)),
            write_capacity_units: Some(t.map_or(0, |t| t.write)),
        };
        let (globals, locals): (Vec<&IndexRecord>, Vec<&IndexRecord>) = self.indexes.iter().partition(|i| i.global);
        let index_arn = |i: &IndexRecord| format!("{arn}/index/{}", i.name);
        let gsis: Vec<GlobalSecondaryIndexDescription> = globals
            .iter()
            .map(|i| GlobalSecondaryIndexDescription {
                index_name: Some(i.name.clone()),
                key_schema: Some(i.key.describe()),
                projection: Some(i.describe_projection()),
                index_status: Some(IndexStatus::Active),
                backfilling: None,
                provisioned_throughput: Some(throughput(i.throughput)),
                index_size_bytes: Some(index_stats(i).bytes as i64),
                item_count: Some(index_stats(i).items as i64),
                index_arn: Some(index_arn(i)),
                on_demand_throughput: None,
                warm_throughput: matches!(answer, Answer::Described | Answer::Updated).then(|| {
                    let warm = Warm::of(i.throughput);
                    GlobalSecondaryIndexWarmThroughputDescription {
                        read_units_per_second: Some(warm.read),
                        write_units_per_second: Some(warm.write),
                        status: Some(IndexStatus::Active),
                    }
                }),
            })
            .collect();
        let lsis: Vec<LocalSecondaryIndexDescription> = locals
            .iter()
            .map(|i| LocalSecondaryIndexDescription {
                index_name: Some(i.name.clone()),
                key_schema: Some(i.key.describe()),
                projection: Some(i.describe_projection()),
                index_size_bytes: Some(index_stats(i).bytes as i64),
                item_count: Some(index_stats(i).items as i64),
                index_arn: Some(index_arn(i)),
            })
            .collect();
        // AWS summarises the billing mode only of tables that are or were on demand.
        let billing_mode_summary =
            (!deleted && (self.throughput.is_none() || self.on_demand_since_ms.is_some())).then(|| {
                BillingModeSummary {
                    billing_mode: Some(if self.throughput.is_some() {
                        BillingMode::Provisioned
                    } else {
                        BillingMode::PayPerRequest
                    }),
                    last_update_to_pay_per_request_date_time: self
                        .on_demand_since_ms
                        .filter(|_| answer != Answer::Created)
                        .map(DateTime::from_millis),
                }
            });
        let warm_throughput = match answer {
            Answer::Created => self.warm.map(|w| (w, TableStatus::Updating)),
            Answer::Described | Answer::Updated => {
                Some((self.warm.unwrap_or(Warm::of(self.throughput)), TableStatus::Active))
            }
            Answer::Deleted => None,
        }
        .map(|(warm, status)| TableWarmThroughputDescription {
            read_units_per_second: Some(warm.read),
            write_units_per_second: Some(warm.write),
            status: Some(status),
        });
        TableDescription {
            attribute_definitions: (!deleted).then(|| {
                self.attributes
                    .iter()
                    .map(|a| AttributeDefinition {
                        attribute_name: a.name.clone(),
                        attribute_type: ScalarAttributeType::from_wire(type_letter(a.kind)),
                    })
                    .collect()
            }),
            table_name: Some(self.name.clone()),
            key_schema: (!deleted).then(|| self.key.describe()),
            table_status: Some(status),
            creation_date_time: (!deleted).then(|| DateTime::from_millis(self.created_ms)),
            provisioned_throughput: Some(throughput(self.throughput)),
            table_size_bytes: Some(stats.bytes as i64),
            item_count: Some(stats.items as i64),
            table_arn: Some(arn.clone()),
            table_id: Some(self.id.clone()),
            billing_mode_summary,
            local_secondary_indexes: (!deleted && !lsis.is_empty()).then_some(lsis),
            global_secondary_indexes: (!deleted && !gsis.is_empty()).then_some(gsis),
            stream_specification: self.stream.as_ref().map(|s| StreamSpecification {
                stream_enabled: true,
                stream_view_type: Some(StreamViewType::from_wire(&s.view_type)),
            }),
            latest_stream_label: self.stream.as_ref().map(|s| s.label.clone()),
            latest_stream_arn: self.stream.as_ref().map(|s| format!("{arn}/stream/{}", s.label)),
            global_table_version: None,
            global_table_settings_replication_mode: self
                .settings_replication
                .as_deref()
                .map(GlobalTableSettingsReplicationMode::from_wire),
            replicas: None,
            global_table_witnesses: None,
            restore_summary: None,
            sse_description: self
                .sse_key
                .as_deref()
                .map(|key| crate::encryption::description(key, stratus_gen_dynamodb::SSEStatus::Enabled)),
            archival_summary: None,
            table_class_summary: self.table_class.as_ref().map(|c| TableClassSummary {
                table_class: Some(TableClass::from_wire(c)),
                last_update_date_time: None,
            }),
            deletion_protection_enabled: Some(self.deletion_protection),
            on_demand_throughput: None,
            warm_throughput,
            multi_region_consistency: None,
        }
    }
}

fn push_index(indexes: &mut Vec<IndexRecord>, index: IndexRecord) -> Result<(), DdbError> {
    if indexes.iter().any(|i| i.name == index.name) {
        return Err(DdbError::invalid(format!("Duplicate index name: {}", index.name)));
    }
    indexes.push(index);
    Ok(())
}

pub(crate) fn matches_type(value: &AttributeValue, kind: KeyType) -> bool {
    matches!(
        (value, kind),
        (AttributeValue::S(_), KeyType::S) | (AttributeValue::N(_), KeyType::N) | (AttributeValue::B(_), KeyType::B)
    )
}

/// Sorted tag list after applying `tags` (a later value for a key replaces the earlier).
pub(crate) fn merge_tags(existing: &mut Vec<(String, String)>, tags: impl IntoIterator<Item = (String, String)>) {
    let mut map: BTreeMap<String, String> = existing.drain(..).collect();
    map.extend(tags);
    existing.extend(map);
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratus_gen_dynamodb::{GlobalSecondaryIndex, LocalSecondaryIndex};

    fn def(name: &str, t: ScalarAttributeType) -> AttributeDefinition {
        AttributeDefinition {
            attribute_name: name.into(),
            attribute_type: t,
        }
    }

    fn key(name: &str, key_type: SchemaKeyType) -> KeySchemaElement {
        KeySchemaElement {
            attribute_name: name.into(),
            key_type,
        }
    }

    fn input(defs: Vec<AttributeDefinition>, schema: Vec<KeySchemaElement>) -> CreateTableInput {
        CreateTableInput {
            attribute_definitions: Some(defs),
            table_name: "t".into(),
            key_schema: Some(schema),
            billing_mode: Some(BillingMode::PayPerRequest),
            ..Default::default()
        }
    }

    fn message(input: &CreateTableInput) -> String {
        match TableRecord::create(input, "id".into(), 0) {
            Err(DdbError::Validation(m)) => m,
            other => panic!("expected a ValidationException, got {other:?}"),
        }
    }

    fn projection(kind: ProjectionType, non_key: Option<Vec<&str>>) -> ProjectionShape {
        ProjectionShape {
            projection_type: Some(kind),
            non_key_attributes: non_key.map(|n| n.into_iter().map(String::from).collect()),
        }
    }

    #[test]
    fn key_schema_checks_follow_aws_order() {
        let s = ScalarAttributeType::S;
        let two = input(
            vec![def("a", s.clone())],
            vec![key("a", SchemaKeyType::Hash), key("b", SchemaKeyType::Range)],
        );
        assert_eq!(
            message(&two),
            "Invalid KeySchema: Some index key attribute have no definition"
        );
        let same = input(
            vec![def("a", s.clone()), def("b", s.clone())],
            vec![key("a", SchemaKeyType::Hash), key("a", SchemaKeyType::Range)],
        );
        assert_eq!(
            message(&same),
            "Both the Hash Key and the Range Key element in the KeySchema have the same name"
        );
        let order = input(
            vec![def("a", s.clone()), def("b", s.clone())],
            vec![key("a", SchemaKeyType::Range), key("b", SchemaKeyType::Hash)],
        );
        assert_eq!(
            message(&order),
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
        );
        let dup = input(
            vec![def("a", s.clone()), def("a", s)],
            vec![key("a", SchemaKeyType::Hash)],
        );
        assert_eq!(message(&dup), "Cannot have two attributes with the same name");
    }

    #[test]
    fn indexes_are_checked() {
        let s = ScalarAttributeType::S;
        let mut create = input(
            vec![def("a", s.clone()), def("b", s.clone()), def("c", s.clone())],
            vec![key("a", SchemaKeyType::Hash), key("b", SchemaKeyType::Range)],
        );
        create.local_secondary_indexes = Some(vec![LocalSecondaryIndex {
            index_name: "lsi".into(),
            key_schema: vec![key("c", SchemaKeyType::Hash), key("b", SchemaKeyType::Range)],
            projection: projection(ProjectionType::All, None),
        }]);
        assert_eq!(
            message(&create),
            "One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: lsi. index hash key: c, table hash key: a"
        );
        create.local_secondary_indexes = None;
        create.global_secondary_indexes = Some(vec![GlobalSecondaryIndex {
            index_name: "gsi".into(),
            key_schema: vec![key("c", SchemaKeyType::Hash)],
            projection: projection(ProjectionType::KeysOnly, Some(vec!["x"])),
            ..Default::default()
        }]);
        assert_eq!(
            message(&create),
            "One or more parameter values were invalid: ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified"
        );
        create.global_secondary_indexes.as_mut().unwrap()[0].projection =
            projection(ProjectionType::Include, Some(vec!["x"]));
        let record = TableRecord::create(&create, "id".into(), 0).unwrap();
        let index = record.index("gsi").unwrap();
        assert_eq!(index.projection, IndexProjection::Include(vec!["x".into()]));
        assert!(index.throughput.is_none());
        let item: Item = [("a", "1"), ("b", "2"), ("c", "3"), ("x", "4"), ("y", "5")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), AttributeValue::S(v.into())))
            .collect();
        assert_eq!(
            index.project(&item, &record.key).keys().collect::<Vec<_>>(),
            ["a", "b", "c", "x"]
        );
    }

    #[test]
    fn billing_rules() {
        let mut create = input(
            vec![def("a", ScalarAttributeType::S)],
            vec![key("a", SchemaKeyType::Hash)],
        );
        create.billing_mode = None;
        assert!(message(&create).contains("must both be specified when BillingMode is PROVISIONED"));
        create.provisioned_throughput = Some(ProvisionedThroughput {
            read_capacity_units: 1_000_000_000_001,
            write_capacity_units: 1,
        });
        assert_eq!(
            message(&create),
            "Given value 1000000000001 for ReadCapacityUnits is out of bounds"
        );
        create.provisioned_throughput = Some(ProvisionedThroughput {
            read_capacity_units: 5,
            write_capacity_units: 5,
        });
        let record = TableRecord::create(&create, "id".into(), 0).unwrap();
        assert_eq!(record.throughput, Some(Throughput { read: 5, write: 5 }));
    }

    #[test]
    fn stream_labels_have_milliseconds() {
        assert_eq!(stream_label(1_700_000_000_000), "2023-11-14T22:13:20.000");
        assert_eq!(stream_label(1_700_000_000_123), "2023-11-14T22:13:20.123");
    }

    fn with_gsi(attrs: &[&str], key_schema: Vec<KeySchemaElement>) -> CreateTableInput {
        let s = ScalarAttributeType::S;
        let mut defs = vec![def("pk", s.clone())];
        defs.extend(attrs.iter().map(|a| def(a, s.clone())));
        let mut create = input(defs, vec![key("pk", SchemaKeyType::Hash)]);
        create.global_secondary_indexes = Some(vec![GlobalSecondaryIndex {
            index_name: "gsi".into(),
            key_schema,
            projection: projection(ProjectionType::All, None),
            ..Default::default()
        }]);
        create
    }

    // Multi-attribute keys of global indexes (AWS's refusals as probed against AWS, 2026-10).
    #[test]
    fn global_indexes_take_up_to_four_partition_and_four_sort_attributes() {
        let (h, r) = (SchemaKeyType::Hash, SchemaKeyType::Range);
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        let schema = |kinds: &[&SchemaKeyType]| -> Vec<KeySchemaElement> {
            kinds.iter().zip(names).map(|(k, n)| key(n, (*k).clone())).collect()
        };
        let four_and_four = with_gsi(&names[..8], schema(&[&h, &h, &h, &h, &r, &r, &r, &r]));
        let record = TableRecord::create(&four_and_four, "id".into(), 0).unwrap();
        let index = record.index("gsi").unwrap();
        assert_eq!(index.key.hash.len(), 4);
        assert_eq!(index.key.range.len(), 4);
        assert_eq!(
            index.key.describe(),
            four_and_four.global_secondary_indexes.unwrap()[0].key_schema
        );
        assert_eq!(
            message(&with_gsi(&names[..5], schema(&[&h, &h, &h, &h, &h]))),
            "The KeySchema exceeds the maximum allowed number of HASH key attributes"
        );
        assert_eq!(
            message(&with_gsi(&names[..6], schema(&[&h, &r, &r, &r, &r, &r]))),
            "The KeySchema exceeds the maximum allowed number of RANGE key attributes"
        );
        assert_eq!(
            message(&with_gsi(&names[..3], schema(&[&h, &r, &h]))),
            "All HASH key attributes must precede RANGE key attributes in the KeySchema"
        );
        assert_eq!(
            message(&with_gsi(
                &names[..2],
                vec![key("a", h.clone()), key("b", r.clone()), key("a", r.clone())]
            )),
            "The KeySchema contains multiple key attributes with the same name"
        );
    }

    #[test]
    fn tables_and_local_indexes_keep_two_key_elements_at_most() {
        let s = ScalarAttributeType::S;
        let defs = vec![def("a", s.clone()), def("b", s.clone()), def("c", s)];
        let three = vec![
            key("a", SchemaKeyType::Hash),
            key("b", SchemaKeyType::Range),
            key("c", SchemaKeyType::Range),
        ];
        assert_eq!(
            message(&input(defs.clone(), three.clone())),
            "1 validation error detected: Value '[KeySchemaElement(attributeName=a, keyType=HASH), KeySchemaElement(attributeName=b, keyType=RANGE), KeySchemaElement(attributeName=c, keyType=RANGE)]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2"
        );
        let mut lsi = input(
            defs,
            vec![key("a", SchemaKeyType::Hash), key("b", SchemaKeyType::Range)],
        );
        lsi.local_secondary_indexes = Some(vec![LocalSecondaryIndex {
            index_name: "lsi".into(),
            key_schema: three,
            projection: projection(ProjectionType::All, None),
        }]);
        assert!(message(&lsi).contains("at 'localSecondaryIndexes.1.member.keySchema' failed to satisfy constraint"));
        let mut missing = input(vec![], vec![]);
        missing.attribute_definitions = None;
        missing.key_schema = None;
        assert_eq!(
            message(&missing),
            "2 validation errors detected: Value null at 'attributeDefinitions' failed to satisfy constraint: Member must not be null; Value null at 'keySchema' failed to satisfy constraint: Member must not be null"
        );
    }

    #[test]
    fn key_schemas_stored_before_multi_attribute_keys_still_read() {
        let old = r#"{"hash":{"name":"pk","kind":"S"},"range":{"name":"sk","kind":"N"}}"#;
        let schema: KeySchema = serde_json::from_str(old).unwrap();
        assert_eq!(schema.partition().name, "pk");
        assert_eq!(schema.sort().map(|a| a.name.as_str()), Some("sk"));
        let no_range: KeySchema = serde_json::from_str(r#"{"hash":{"name":"pk","kind":"S"},"range":null}"#).unwrap();
        assert!(no_range.range.is_empty());
        let again: KeySchema = serde_json::from_str(&serde_json::to_string(&schema).unwrap()).unwrap();
        assert_eq!(again, schema);
    }
}
