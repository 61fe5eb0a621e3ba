//! The tree model as a table: IoTDB's devices (`root.sg1.d1`) and their measurements as
//! rows of `device`, `level0` … `level{K-1}`, `time` and one column per measurement.
//!
//! - `device` is the device's path; `levelN` its N-th path node (`level0` is `root`), null
//!   past a shorter device's last node; K is the most nodes of any device of the table.
//! - Each measurement of any device (of any file) is a column, null where a device lacks it
//!   or has no value at that time. A non-aligned device's rows are its series merged by
//!   time: one row per time at which any of its series has a point, whatever the query
//!   selects, so `count(*)` counts those rows.
//! - Filters on `device` and the level columns (any expression over them alone: `=`, `IN`,
//!   `LIKE`, functions) are evaluated once per device before the scan, so devices that
//!   cannot match are never read.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use colfile::tsfile::format::DeviceId;
use datafusion::catalog::Session;
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::utils::expr_to_columns;
use datafusion::logical_expr::Expr;

use crate::exec::df_err;

/// The device column's name.
pub(crate) const DEVICE: &str = "device";

/// The name of path level `n`'s column.
pub(crate) fn level_name(n: usize) -> String {
    format!("level{n}")
}

/// Whether `name` is a column the tree model makes from the device path.
pub(crate) fn is_path_column(name: &str, levels: usize) -> bool {
    name.eq_ignore_ascii_case(DEVICE) || level_index(name).is_some_and(|n| n < levels)
}

/// `N` of a `levelN` column name.
fn level_index(name: &str) -> Option<usize> {
    let lower = name.to_ascii_lowercase();
    let digits = lower.strip_prefix("level")?;
    if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    digits.parse().ok()
}

/// A path prefix as the nodes [`under_prefix`] compares with.
pub(crate) fn prefix_nodes(prefix: &str) -> Vec<String> {
    DeviceId::from_tree_path(prefix)
        .map(|p| p.path_nodes())
        .unwrap_or_else(|_| vec![prefix.to_owned()])
}

/// Whether `device` is at or below the prefix of nodes `prefix` (see [`prefix_nodes`]):
/// `root.sg1` holds `root.sg1.d1`, not `root.sg10.d1`.
pub(crate) fn under_prefix(device: &DeviceId, prefix: &[String]) -> bool {
    let nodes = device.path_nodes();
    nodes.len() >= prefix.len() && nodes.iter().zip(prefix).all(|(a, b)| a == b)
}

/// The `device` and level fields of a table whose devices have at most `levels` nodes.
pub(crate) fn path_fields(levels: usize) -> Vec<Field> {
    let mut fields = vec![Field::new(DEVICE, DataType::Utf8, false)];
    fields.extend((0..levels).map(|n| Field::new(level_name(n), DataType::Utf8, true)));
    fields
}

/// The value of path column `name` for `device` (`None`: null).
pub(crate) fn path_value(name: &str, device: &str, nodes: &[String]) -> Option<String> {
    if name.eq_ignore_ascii_case(DEVICE) {
        return Some(device.to_owned());
    }
    level_index(name).and_then(|n| nodes.get(n).cloned())
}

/// A column of `rows` copies of `value` (or nulls).
pub(crate) fn repeated(value: Option<&str>, rows: usize) -> ArrayRef {
    Arc::new(StringArray::from(vec![value; rows]))
}

/// The filters of a scan that name only the path columns: evaluated per device.
#[derive(Debug, Default)]
pub(crate) struct DeviceFilter {
    exprs: Vec<Expr>,
}

impl DeviceFilter {
    /// Whether `filter` names path columns and nothing else (so it can decide devices).
    pub(crate) fn applies(filter: &Expr, levels: usize) -> bool {
        let mut cols = std::collections::HashSet::new();
        if expr_to_columns(filter, &mut cols).is_err() || cols.is_empty() {
            return false;
        }
        cols.iter().all(|c| is_path_column(&c.name, levels))
    }

    /// The filters of `filters` that [`applies`](Self::applies) holds for.
    pub(crate) fn new(filters: &[Expr], levels: usize) -> Self {
        DeviceFilter {
            exprs: filters
                .iter()
                .filter(|f| Self::applies(f, levels))
                .cloned()
                .collect(),
        }
    }

    /// The devices of `devices` whose path columns pass every filter (SQL's rule: a filter
    /// that is null drops the device).
    pub(crate) fn keep(
        &self,
        state: &dyn Session,
        devices: Vec<DeviceId>,
        levels: usize,
    ) -> Result<Vec<DeviceId>> {
        if self.exprs.is_empty() || devices.is_empty() {
            return Ok(devices);
        }
        let schema: SchemaRef = Arc::new(Schema::new(path_fields(levels)));
        let names: Vec<String> = devices.iter().map(DeviceId::to_string).collect();
        let nodes: Vec<Vec<String>> = devices.iter().map(DeviceId::path_nodes).collect();
        let mut columns: Vec<ArrayRef> = vec![Arc::new(StringArray::from(names.clone()))];
        for n in 0..levels {
            let name = level_name(n);
            let values: Vec<Option<String>> = names
                .iter()
                .zip(&nodes)
                .map(|(d, p)| path_value(&name, d, p))
                .collect();
            columns.push(Arc::new(StringArray::from(values)));
        }
        let batch = RecordBatch::try_new(schema.clone(), columns)?;
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        let mut keep = vec![true; devices.len()];
        for e in &self.exprs {
            let physical = state.create_physical_expr(e.clone(), &df_schema)?;
            let result = physical.evaluate(&batch)?.into_array(batch.num_rows())?;
            let mask = result
                .as_any()
                .downcast_ref::<BooleanArray>()
                .ok_or_else(|| df_err(colfile::Error::invalid("a device filter is not boolean")))?;
            for (k, m) in keep.iter_mut().zip(mask.iter()) {
                *k &= m == Some(true);
            }
        }
        Ok(devices
            .into_iter()
            .zip(keep)
            .filter_map(|(d, k)| k.then_some(d))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_names_and_prefixes() {
        assert_eq!(level_index("level0"), Some(0));
        assert_eq!(level_index("LEVEL12"), Some(12));
        assert_eq!(level_index("level"), None);
        assert_eq!(level_index("level01"), None);
        assert!(is_path_column("Device", 0));
        assert!(is_path_column("level2", 3));
        assert!(!is_path_column("level3", 3));
        let d = DeviceId::from_tree_path("root.sg1.d1").unwrap();
        assert!(under_prefix(&d, &prefix_nodes("root.sg1")));
        assert!(under_prefix(&d, &prefix_nodes("root.sg1.d1")));
        assert!(!under_prefix(&d, &prefix_nodes("root.sg")));
        assert!(!under_prefix(&d, &prefix_nodes("root.sg1.d1.x")));
        let nodes = d.path_nodes();
        assert_eq!(
            path_value("level1", "root.sg1.d1", &nodes).as_deref(),
            Some("sg1")
        );
        assert_eq!(path_value("level3", "root.sg1.d1", &nodes), None);
    }
}
