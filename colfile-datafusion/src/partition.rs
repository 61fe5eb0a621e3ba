//! Hive-style partitions: the `name=value/` directory levels between a table's location and
//! its files become columns, and filters on those columns drop whole directories before any
//! file in them is opened.
//!
//! Values are unescaped as Hive escapes them (`%XX`), `__HIVE_DEFAULT_PARTITION__` is NULL,
//! and a column declared with a type (`PARTITIONED BY (dt DATE)` with `dt DATE` among the
//! columns) has its values cast to it; undeclared ones are strings.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::common::{DFSchema, Result as DfResult, ScalarValue};
use datafusion::logical_expr::physical_planning_context::PhysicalPlanningContext;
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::create_physical_expr;
use datafusion::physical_expr::execution_props::ExecutionProps;

use crate::listing::TableFile;
use colfile::Error;

/// Hive's name for a NULL partition value.
pub const DEFAULT_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// The partition columns of a table and each file's values of them.
#[derive(Clone, Debug, Default)]
pub struct Partitions {
    /// The columns, in directory order.
    pub fields: Vec<Field>,
    /// Per file (in the table's file order), its value of each column, typed.
    pub values: Vec<Vec<ScalarValue>>,
}

/// The `name=value` levels of `file` below `root`, unescaped.
pub fn levels(root: &Path, file: &Path) -> Vec<(String, Option<String>)> {
    let rel = file.strip_prefix(root).unwrap_or(file);
    let dirs = rel.parent().into_iter().flat_map(|p| p.components());
    dirs.filter_map(|c| {
        let s = c.as_os_str().to_str()?;
        let (k, v) = s.split_once('=')?;
        let v = unescape(v);
        Some((unescape(k), (v != DEFAULT_PARTITION).then_some(v)))
    })
    .collect()
}

/// `%XX` escapes decoded (Hive's `FileUtils.escapePathName`); anything else kept.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |j: usize| b.get(j).and_then(|c| (*c as char).to_digit(16));
        match (b.get(i), hex(i + 1), hex(i + 2)) {
            (Some(b'%'), Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (Some(&c), _, _) => {
                out.push(c);
                i += 1;
            }
            (None, _, _) => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Partitions {
    /// The partitions of `files` under `root`. `declared`: the columns named by
    /// `PARTITIONED BY` with their types, in directory order; empty: inferred as strings
    /// when every file sits below the same `name=` levels (a table whose files disagree, or
    /// have no levels, has no partition columns: its directories are just folders).
    ///
    /// Errors: (declared) a file whose levels are not those columns in that order; a value
    /// that does not cast to its declared type.
    pub fn discover(root: &Path, files: &[TableFile], declared: &[Field]) -> colfile::Result<Self> {
        let fields: Vec<Field> = if declared.is_empty() {
            let names = |f: &TableFile| -> Vec<String> {
                levels(root, &f.path).into_iter().map(|(k, _)| k).collect()
            };
            let first = files.first().map(names).unwrap_or_default();
            if files.iter().any(|f| names(f) != first) {
                return Ok(Partitions {
                    fields: Vec::new(),
                    values: vec![Vec::new(); files.len()],
                });
            }
            first
                .into_iter()
                .map(|k| Field::new(k, DataType::Utf8, true))
                .collect()
        } else {
            declared.to_vec()
        };
        let mut values = Vec::with_capacity(files.len());
        for f in files {
            let lv = levels(root, &f.path);
            let names: Vec<&str> = lv.iter().map(|(k, _)| k.as_str()).collect();
            let want: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            if names != want {
                return Err(Error::invalid(format!(
                    "{}: partition directories {names:?}, the table's are {want:?}",
                    f.path.display()
                ))
                .in_file(&f.path));
            }
            let row = lv
                .into_iter()
                .zip(&fields)
                .map(|((_, v), field)| typed(v, field).map_err(|e| e.in_file(&f.path)))
                .collect::<colfile::Result<Vec<_>>>()?;
            values.push(row);
        }
        Ok(Partitions { fields, values })
    }

    /// The partition columns as a schema.
    pub fn schema(&self) -> SchemaRef {
        Arc::new(Schema::new(self.fields.clone()))
    }

    /// Whether `filter` reads partition columns only (and at least one): then it is
    /// decided for each directory, before its files are read.
    pub fn decides(&self, filter: &Expr) -> bool {
        let cols = filter.column_refs();
        !cols.is_empty()
            && cols
                .iter()
                .all(|c| self.fields.iter().any(|f| f.name() == &c.name))
    }

    /// Which files `filters` (those that [`decides`](Self::decides)) keep: a file is kept
    /// when every filter is true of its values (NULL drops it, as in `WHERE`).
    pub fn keep(&self, filters: &[Expr]) -> DfResult<Vec<bool>> {
        let n = self.values.len();
        let wanted: Vec<Expr> = filters
            .iter()
            .filter(|f| self.decides(f))
            .cloned()
            .collect();
        let Some(expr) = conjunction(wanted) else {
            return Ok(vec![true; n]);
        };
        let schema = self.schema();
        let columns = (0..self.fields.len())
            .map(|i| ScalarValue::iter_to_array(self.values.iter().map(|r| r[i].clone())))
            .collect::<DfResult<Vec<ArrayRef>>>()?;
        let batch = if columns.is_empty() {
            RecordBatch::new_empty(schema.clone())
        } else {
            RecordBatch::try_new(schema.clone(), columns)?
        };
        let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
        let ctx = PhysicalPlanningContext::default();
        let phys = create_physical_expr(&expr, &df_schema, &ExecutionProps::new(), &ctx)?;
        let result = phys.evaluate(&batch)?.into_array(n)?;
        let bools = result
            .as_any()
            .downcast_ref::<BooleanArray>()
            .cloned()
            .unwrap_or_else(|| BooleanArray::from(vec![false; n]));
        Ok((0..n)
            .map(|i| bools.is_valid(i) && bools.value(i))
            .collect())
    }
}

/// `value` as `field`'s type.
pub(crate) fn typed(value: Option<String>, field: &Field) -> colfile::Result<ScalarValue> {
    let text = ScalarValue::Utf8(value);
    if field.data_type() == &DataType::Utf8 {
        return Ok(text);
    }
    let arr: ArrayRef = Arc::new(StringArray::from(vec![text.to_string()]));
    let arr = match &text {
        ScalarValue::Utf8(None) => arrow_array::new_null_array(&DataType::Utf8, 1),
        _ => arr,
    };
    let cast = datafusion::arrow::compute::cast(&arr, field.data_type())
        .map_err(|e| Error::invalid(format!("partition {}: {e}", field.name())))?;
    if cast.null_count() > arr.null_count() {
        return Err(Error::invalid(format!(
            "partition {}: {text} is not a {}",
            field.name(),
            field.data_type()
        )));
    }
    ScalarValue::try_from_array(&cast, 0).map_err(|e| Error::invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::prelude::{col, lit};
    use std::path::PathBuf;

    fn file(p: &str) -> TableFile {
        TableFile {
            path: PathBuf::from(p),
            len: 1,
        }
    }

    #[test]
    fn levels_values_and_pruning() {
        let root = Path::new("/w/t");
        let files = [
            file("/w/t/dt=2024-01-01/region=eu/a.rc"),
            file("/w/t/dt=2024-01-02/region=us%2Fwest/b.rc"),
            file("/w/t/dt=2024-01-02/region=__HIVE_DEFAULT_PARTITION__/c.rc"),
        ];
        let p = Partitions::discover(root, &files, &[]).unwrap();
        assert_eq!(p.fields.len(), 2);
        assert_eq!(p.values[1][1], ScalarValue::Utf8(Some("us/west".into())));
        assert_eq!(p.values[2][1], ScalarValue::Utf8(None));
        let keep = p.keep(&[col("dt").eq(lit("2024-01-02"))]).unwrap();
        assert_eq!(keep, [false, true, true]);
        let keep = p.keep(&[col("region").eq(lit("eu")).or(col("region").is_null())]);
        assert_eq!(keep.unwrap(), [true, false, true]);
        // A filter on other columns decides nothing here.
        assert!(!p.decides(&col("x").eq(lit(1))));
        assert_eq!(p.keep(&[col("x").eq(lit(1))]).unwrap(), [true; 3]);
        // Declared types: values cast, or an error naming the file.
        let dt = [
            Field::new("dt", DataType::Date32, true),
            Field::new("region", DataType::Utf8, true),
        ];
        let typed = Partitions::discover(root, &files, &dt).unwrap();
        assert!(matches!(typed.values[0][0], ScalarValue::Date32(Some(_))));
        let bad = [
            Field::new("dt", DataType::Int32, true),
            Field::new("region", DataType::Utf8, true),
        ];
        let e = Partitions::discover(root, &files, &bad).unwrap_err();
        assert!(e.to_string().contains("not a Int32"), "{e}");
        // Files whose levels differ: no inferred columns, but declared ones must be there.
        let mixed = [file("/w/t/dt=1/a.rc"), file("/w/t/b.rc")];
        let none = Partitions::discover(root, &mixed, &[]).unwrap();
        assert!(none.fields.is_empty() && none.values.len() == 2);
        let one = [Field::new("dt", DataType::Utf8, true)];
        let e = Partitions::discover(root, &mixed, &one).unwrap_err();
        assert!(
            e.to_string().contains("b.rc: partition directories []"),
            "{e}"
        );
    }
}
