//! What a [`TsFileArrowReaderBuilder`] reads: the model (one table, or tree devices), the
//! query as run, the Arrow schema and which column of a batch goes where.

use arrow_schema::SchemaRef;

use super::super::tsfile_types::{selected_columns, tree_to_arrow, tsfile_table_to_arrow};
use super::TsFileArrowReaderBuilder;
use crate::source::ByteSource;
use crate::tsfile::format::{ColumnCategory, DataType};
use crate::tsfile::Query;
use crate::{Error, Result};

/// One output column after `time` (and, in the tree model, `device`).
#[derive(Debug, Clone)]
pub(super) enum OutColumn {
    /// A TAG column: the device's value repeated.
    Tag(String),
    /// A FIELD column or measurement and its type.
    Field(String, DataType),
}

/// What the reader returns and how batches become Arrow columns.
#[derive(Debug)]
pub(super) struct Plan {
    /// The query as run: table and batch size filled in.
    pub query: Query,
    /// The batches' schema.
    pub schema: SchemaRef,
    /// Tree model: batches start with the `device` column.
    pub tree: bool,
    /// The columns after `time`, in schema order.
    pub columns: Vec<OutColumn>,
}

impl<S: ByteSource> TsFileArrowReaderBuilder<S> {
    /// Works out the model, the schema and the query to run.
    pub(super) fn plan(&self) -> Result<Plan> {
        let mut query = self.query.clone().batch_size(self.batch_size);
        let md = self.reader.metadata();
        let table = match &query.table {
            Some(t) => {
                if md.table_schema(t).is_none() && !md.tables().any(|x| x == t) {
                    return Err(Error::invalid(format!(
                        "no table {t} in this file (tables: {})",
                        self.table_list()
                    )));
                }
                Some(t.clone())
            }
            None => self.default_table(&query)?,
        };
        match table.as_deref().and_then(|t| md.table_schema(t)) {
            Some(schema) => {
                query.table = Some(schema.name.clone());
                let cols = query.columns.as_deref();
                let arrow = tsfile_table_to_arrow(schema, cols, self.unit)?;
                let columns = selected_columns(schema, cols)?
                    .into_iter()
                    .map(|c| match c.category {
                        ColumnCategory::Tag => OutColumn::Tag(c.schema.name.clone()),
                        _ => OutColumn::Field(c.schema.name.clone(), c.schema.data_type),
                    })
                    .collect();
                Ok(Plan {
                    query,
                    schema: arrow,
                    tree: false,
                    columns,
                })
            }
            None => {
                let measurements = self.tree_measurements(&query)?;
                Ok(Plan {
                    schema: tree_to_arrow(&measurements, self.unit)?,
                    query,
                    tree: true,
                    columns: measurements
                        .into_iter()
                        .map(|(n, t)| OutColumn::Field(n, t))
                        .collect(),
                })
            }
        }
    }

    /// The table names of the file (those with data and those with a schema), sorted.
    fn table_list(&self) -> String {
        let md = self.reader.metadata();
        let mut names: Vec<&str> = md.tables().collect();
        names.extend(md.footer().schemas.iter().map(|s| s.name.as_str()));
        names.sort_unstable();
        names.dedup();
        names.join(", ")
    }

    /// The table read when the query names none: the table of the devices it names, the
    /// file's only table, or `None` (tree model) for a file without table schemas.
    fn default_table(&self, query: &Query) -> Result<Option<String>> {
        let md = self.reader.metadata();
        if let Some(devices) = &query.devices {
            let mut tables: Vec<&str> = devices.iter().map(|d| d.table_name()).collect();
            tables.sort_unstable();
            tables.dedup();
            match tables.as_slice() {
                [one] if md.table_schema(one).is_some() => return Ok(Some((*one).to_owned())),
                _ if tables.iter().all(|t| md.table_schema(t).is_none()) => return Ok(None),
                _ => {
                    return Err(Error::invalid(format!(
                        "the query's devices belong to several tables ({}); name one",
                        tables.join(", ")
                    )))
                }
            }
        }
        let schemas = &md.footer().schemas;
        if schemas.is_empty() {
            return Ok(None);
        }
        let mut names: Vec<&str> = md.tables().collect();
        names.extend(schemas.iter().map(|s| s.name.as_str()));
        names.sort_unstable();
        names.dedup();
        match names.as_slice() {
            [one] => Ok(Some((*one).to_owned())),
            _ => Err(Error::invalid(format!(
                "the file has tables {}; name one with Query::table",
                names.join(", ")
            ))),
        }
    }

    /// The measurements of the devices `query` selects: every one in order of first
    /// appearance (devices in index order), or the query's columns in its order.
    fn tree_measurements(&self, query: &Query) -> Result<Vec<(String, DataType)>> {
        let r = &self.reader;
        let mut found: Vec<(String, DataType, String)> = Vec::new();
        for d in r.devices(query)? {
            for s in r.metadata().timeseries(r.source(), &d)? {
                if s.measurement_id.is_empty() || s.data_type == DataType::Vector {
                    continue;
                }
                let wanted = query.columns.as_ref();
                if wanted.is_some_and(|c| !c.contains(&s.measurement_id)) {
                    continue;
                }
                match found.iter().find(|(n, _, _)| *n == s.measurement_id) {
                    Some((_, t, _)) if *t == s.data_type => {}
                    Some((n, t, first)) => {
                        return Err(Error::schema(format!(
                            "measurement {n} is {t} in {first} but {} in {d}",
                            s.data_type
                        )))
                    }
                    None => found.push((s.measurement_id.clone(), s.data_type, d.to_string())),
                }
            }
        }
        if let Some(cols) = &query.columns {
            let mut ordered = Vec::with_capacity(cols.len());
            for c in cols {
                match found.iter().find(|(n, _, _)| n == c) {
                    Some((n, t, _)) => ordered.push((n.clone(), *t)),
                    None => {
                        return Err(Error::schema(format!(
                            "no selected device has a measurement {c}"
                        )))
                    }
                }
            }
            return Ok(ordered);
        }
        Ok(found.into_iter().map(|(n, t, _)| (n, t)).collect())
    }
}
