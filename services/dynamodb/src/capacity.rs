//! `ConsumedCapacity`, computed as AWS bills requests (Developer Guide, "Read/write capacity
//! mode"): a write costs one unit per KB of the larger of the old and new item, at least
//! one; a read half a unit per 4 KB read (a whole unit when strongly consistent), at least
//! half. Nothing is throttled; the numbers only report.

use std::collections::BTreeMap;

use stratus_gen_dynamodb::{Capacity, ConsumedCapacity, ReturnConsumedCapacity};

use crate::size::item_size;
use crate::Item;

const WRITE_UNIT: usize = 1024;
const READ_UNIT: usize = 4096;

/// Write units for replacing `old` with `new`.
pub(crate) fn write_units(old: Option<&Item>, new: Option<&Item>) -> f64 {
    let size = old.map_or(0, item_size).max(new.map_or(0, item_size));
    size.div_ceil(WRITE_UNIT).max(1) as f64
}

/// Read units for reading `bytes`.
pub(crate) fn read_units(bytes: usize, consistent: Option<bool>) -> f64 {
    let units = bytes.div_ceil(READ_UNIT).max(1) as f64;
    if consistent == Some(true) {
        units
    } else {
        units / 2.0
    }
}

/// What a request that asked for `mode` reports for `units` spent on `table`.
pub(crate) fn consumed(
    mode: Option<&ReturnConsumedCapacity>,
    table: &str,
    units: f64,
    write: bool,
) -> Option<ConsumedCapacity> {
    let detailed = match mode? {
        ReturnConsumedCapacity::Total => false,
        ReturnConsumedCapacity::Indexes => true,
        _ => return None,
    };
    let (read_capacity_units, write_capacity_units) = if write {
        (None, Some(units))
    } else {
        (Some(units), None)
    };
    Some(ConsumedCapacity {
        table_name: Some(table.to_owned()),
        capacity_units: Some(units),
        read_capacity_units,
        write_capacity_units,
        table: detailed.then_some(Capacity {
            read_capacity_units,
            write_capacity_units,
            capacity_units: Some(units),
        }),
        ..Default::default()
    })
}

/// What a multi-table request reports: one entry per table, units summed.
pub(crate) fn per_table(
    mode: Option<&ReturnConsumedCapacity>,
    spent: impl IntoIterator<Item = (String, f64)>,
    write: bool,
) -> Option<Vec<ConsumedCapacity>> {
    // Asked for nothing, nothing is answered, even when nothing was spent (a repeated
    // idempotent transaction), where collecting no tables would answer an empty list.
    if !matches!(
        mode,
        Some(ReturnConsumedCapacity::Total | ReturnConsumedCapacity::Indexes)
    ) {
        return None;
    }
    let mut totals: BTreeMap<String, f64> = BTreeMap::new();
    for (table, units) in spent {
        *totals.entry(table).or_default() += units;
    }
    totals
        .into_iter()
        .map(|(table, units)| consumed(mode, &table, units, write))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AttributeValue;

    #[test]
    fn units_round_up_per_kilobyte_and_four_kilobytes() {
        let item = |n: usize| Item::from([("a".to_string(), AttributeValue::S("x".repeat(n)))]);
        assert_eq!(write_units(None, Some(&item(10))), 1.0);
        assert_eq!(write_units(Some(&item(3000)), Some(&item(10))), 3.0);
        assert_eq!(read_units(5000, None), 1.0);
        assert_eq!(read_units(5000, Some(true)), 2.0);
        assert_eq!(read_units(0, None), 0.5);
    }

    #[test]
    fn only_total_and_indexes_report() {
        assert!(consumed(None, "t", 1.0, true).is_none());
        assert!(consumed(Some(&ReturnConsumedCapacity::None), "t", 1.0, true).is_none());
        let total = consumed(Some(&ReturnConsumedCapacity::Total), "t", 2.0, false).unwrap();
        assert_eq!(total.capacity_units, Some(2.0));
        assert!(total.table.is_none());
        assert!(consumed(Some(&ReturnConsumedCapacity::Indexes), "t", 2.0, false)
            .unwrap()
            .table
            .is_some());
    }
}
