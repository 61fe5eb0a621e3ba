//! What one CSV cannot hold, found before anything is written: CSV has one header, so
//! every row must have the same columns. A TsFile read as CSV fails up front (exit 1, empty
//! stdout) when the selected tables have different columns, or the selected tree-model
//! devices different measurements. Nested Hive values (arrays, maps, structs, unions) *are*
//! written, as their JSON text in the cell, which `convert` reads back.

use crate::args::ReadArgs;
use crate::input::Input;
use crate::Failure;
use colfile::tsfile::format::ColumnCategory;
use colfile::tsfile::{Query, TsFileReader};
use std::path::Path;

/// The error for rows of `owner` (a table or device) with `columns` after a header of
/// `header`.
pub fn ragged(file: &Path, owner: &str, columns: &str, header: &str) -> Failure {
    Failure::input(format!(
        "{}: {owner} has columns {columns} but the CSV header has {header}: one CSV cannot \
         hold both; pick one table or column set (--table, --columns), or use --format jsonl",
        file.display()
    ))
}

/// Whether `name` is selected by `--columns` (every column when it is not given).
fn wanted(a: &ReadArgs, name: &str) -> bool {
    a.columns
        .as_ref()
        .is_none_or(|cs| cs.iter().any(|c| c.eq_ignore_ascii_case(name)))
}

/// Fails when the rows `q` selects from `r` would not all have the same columns.
pub fn check_tsfile(r: &TsFileReader<Input>, q: &Query, a: &ReadArgs) -> Result<(), Failure> {
    let ctx = |e: colfile::Error| Failure::from(e).context(&a.file);
    let meta = r.metadata();
    // (owner, its columns) of each table or device the query selects.
    let mut shapes: Vec<(String, Vec<String>)> = Vec::new();
    for d in r.devices(q).map_err(ctx)? {
        let shape: Vec<String> = match meta.table_schema(d.table_name()) {
            Some(t) if !meta.footer().schemas.is_empty() => {
                if shapes.iter().any(|(o, _)| o == &t.name) {
                    continue;
                }
                let of = |cat: ColumnCategory| {
                    t.columns
                        .iter()
                        .filter(move |c| c.category == cat && wanted(a, &c.schema.name))
                        .map(|c| c.schema.name.to_lowercase())
                };
                let mut cols: Vec<String> = of(ColumnCategory::Tag).collect();
                cols.extend(of(ColumnCategory::Field));
                shapes.push((t.name.clone(), cols));
                continue;
            }
            _ => {
                let mut m: Vec<String> = meta
                    .timeseries(r.source(), &d)
                    .map_err(ctx)?
                    .into_iter()
                    .map(|s| s.measurement_id)
                    .filter(|m| !m.is_empty() && wanted(a, m))
                    .collect();
                if m.is_empty() {
                    // Nothing selected: the device gives no rows.
                    continue;
                }
                m.sort();
                m
            }
        };
        shapes.push((d.to_string(), shape));
    }
    let Some((first_owner, first)) = shapes.first() else {
        return Ok(());
    };
    match shapes.iter().find(|(_, s)| s != first) {
        Some((owner, cols)) => Err(ragged(
            &a.file,
            owner,
            &cols.join(","),
            &format!("{} (from {first_owner})", first.join(",")),
        )),
        None => Ok(()),
    }
}
