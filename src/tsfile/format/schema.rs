//! Table schemas of the footer (`spec/tsfile.md` §8.4): [`MeasurementSchema`],
//! [`TableColumn`] and [`TableSchema`].

use super::types::{ColumnCategory, Compression, DataType, Encoding};
use super::varint::{put_bytes32, put_uvarint, put_var_bytes};
use crate::cursor::Cursor;
use crate::Limits;
use crate::{Error, Result};

/// One column's name, type, encoding, compression and properties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeasurementSchema {
    /// Column (measurement) name.
    pub name: String,
    /// Data type.
    pub data_type: DataType,
    /// Value encoding.
    pub encoding: Encoding,
    /// Page compression.
    pub compression: Compression,
    /// Encoder properties such as `max_point_number`, in file order.
    pub props: Vec<(String, String)>,
}

/// A column of a table: its schema and category.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableColumn {
    /// Name, type, encoding, compression.
    pub schema: MeasurementSchema,
    /// TAG, FIELD, ATTRIBUTE or TIME.
    pub category: ColumnCategory,
}

/// A table: its name and columns in schema order (TAG columns in this order make the device id).
///
/// ```
/// use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
/// use colfile::tsfile::format::{ColumnCategory, Compression, DataType, Encoding};
/// use colfile::cursor::Cursor;
/// let t = TableSchema {
///     name: "Weather".into(),
///     columns: vec![TableColumn {
///         schema: MeasurementSchema {
///             name: "City".into(),
///             data_type: DataType::String,
///             encoding: Encoding::Plain,
///             compression: Compression::Lz4,
///             props: vec![],
///         },
///         category: ColumnCategory::Tag,
///     }],
/// }
/// .lower_cased();
/// assert_eq!((t.name.as_str(), t.columns[0].schema.name.as_str()), ("weather", "city"));
/// let mut b = Vec::new();
/// t.write_to(&mut b)?;
/// let back = TableSchema::read(&mut Cursor::new(&b, 0), &colfile::Limits::default())?;
/// assert_eq!(back, t);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSchema {
    /// Table name.
    pub name: String,
    /// Columns in schema order.
    pub columns: Vec<TableColumn>,
}

impl MeasurementSchema {
    /// Reads `String32 name, type, encoding, compression, int32 count, String32 pairs`.
    pub fn read(c: &mut Cursor<'_>, limits: &Limits) -> Result<MeasurementSchema> {
        let name = read_name32(c, "column name", limits)?;
        let at = c.offset();
        let [t, e, z] = c.array::<3>("measurement schema")?;
        let bad = |err: Error| err.at_offset(at);
        let data_type = DataType::from_code(t).map_err(bad)?;
        let encoding = Encoding::from_code(e).map_err(bad)?;
        let compression = Compression::from_code(z).map_err(bad)?;
        let n_at = c.offset();
        let n = c.read_i32_be()?;
        let n = usize::try_from(n).map_err(|_| {
            Error::corrupt("tsfile", format!("negative property count {n}")).at_offset(n_at)
        })?;
        if n > limits.max_metadata_entries {
            return Err(Error::limit(
                "measurement schema properties",
                n as u64,
                limits.max_metadata_entries as u64,
            )
            .at_offset(n_at));
        }
        // Each pair takes at least 8 bytes.
        c.need("measurement schema properties", n.saturating_mul(8))?;
        let mut props = Vec::with_capacity(n);
        for _ in 0..n {
            let k = read_name32(c, "schema property key", limits)?;
            let v = read_name32(c, "schema property value", limits)?;
            props.push((k, v));
        }
        Ok(MeasurementSchema {
            name,
            data_type,
            encoding,
            compression,
            props,
        })
    }

    /// Appends the wire form.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        put_bytes32(out, self.name.as_bytes())?;
        out.extend_from_slice(&[
            self.data_type.code(),
            self.encoding.code(),
            self.compression.code(),
        ]);
        let n = i32::try_from(self.props.len())
            .map_err(|_| Error::invalid("too many schema properties"))?;
        out.extend_from_slice(&n.to_be_bytes());
        for (k, v) in &self.props {
            put_bytes32(out, k.as_bytes())?;
            put_bytes32(out, v.as_bytes())?;
        }
        Ok(())
    }
}

impl TableSchema {
    /// Reads a `NamedTableSchema`: `VarStr` table name, `UVarInt` column count, then
    /// `MeasurementSchema, int32 category` per column.
    pub fn read(c: &mut Cursor<'_>, limits: &Limits) -> Result<TableSchema> {
        let name = read_var_name(c, "table name", limits)?;
        let n = c.read_ucount("table columns", limits.max_columns)?;
        // Each column takes at least 12 bytes.
        c.need("table columns", n.saturating_mul(12))?;
        let mut columns = Vec::with_capacity(n);
        for _ in 0..n {
            let schema = MeasurementSchema::read(c, limits)?;
            let at = c.offset();
            let category =
                ColumnCategory::from_i32(c.read_i32_be()?).map_err(|e| e.at_offset(at))?;
            columns.push(TableColumn { schema, category });
        }
        Ok(TableSchema { name, columns })
    }

    /// Appends the `NamedTableSchema` wire form.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        put_var_bytes(out, Some(self.name.as_bytes()))?;
        put_uvarint(out, self.columns.len() as u32);
        for col in &self.columns {
            col.schema.write_to(out)?;
            out.extend_from_slice(&i32::from(col.category.code()).to_be_bytes());
        }
        Ok(())
    }

    /// The same schema with the table and column names lower-cased, as Java and C++ writers
    /// store them.
    pub fn lower_cased(mut self) -> TableSchema {
        self.name = self.name.to_lowercase();
        for c in &mut self.columns {
            c.schema.name = c.schema.name.to_lowercase();
        }
        self
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&TableColumn> {
        self.columns.iter().find(|c| c.schema.name == name)
    }

    /// The TAG columns in schema order (device id segments 1..).
    pub fn tags(&self) -> impl Iterator<Item = &TableColumn> + '_ {
        self.columns
            .iter()
            .filter(|c| c.category == ColumnCategory::Tag)
    }
}

fn check_len(s: &str, what: &'static str, at: u64, limits: &Limits) -> Result<String> {
    if s.len() > limits.max_string_len {
        return Err(Error::limit(what, s.len() as u64, limits.max_string_len as u64).at_offset(at));
    }
    Ok(s.to_owned())
}

/// A `String32` checked against [`Limits::max_string_len`].
pub(crate) fn read_name32(
    c: &mut Cursor<'_>,
    what: &'static str,
    limits: &Limits,
) -> Result<String> {
    let at = c.offset();
    let s = c.read_string32(what)?;
    check_len(s, what, at, limits)
}

/// A non-null `VarStr` checked against [`Limits::max_string_len`].
pub(crate) fn read_var_name(
    c: &mut Cursor<'_>,
    what: &'static str,
    limits: &Limits,
) -> Result<String> {
    let at = c.offset();
    let s = c.read_var_str(what)?;
    check_len(s, what, at, limits)
}

impl MeasurementSchema {
    /// A column schema without properties.
    pub fn new(
        name: &str,
        data_type: DataType,
        encoding: Encoding,
        compression: Compression,
    ) -> Self {
        MeasurementSchema {
            name: name.to_owned(),
            data_type,
            encoding,
            compression,
            props: Vec::new(),
        }
    }

    /// The value of property `key` (e.g. `max_point_number`).
    pub fn property(&self, key: &str) -> Option<&str> {
        self.props
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

impl TableColumn {
    /// A column with PLAIN encoding and LZ4 compression; set `schema.encoding` and
    /// `schema.compression` to choose others.
    pub fn new(name: &str, data_type: DataType, category: ColumnCategory) -> Self {
        TableColumn {
            schema: MeasurementSchema::new(name, data_type, Encoding::Plain, Compression::Lz4),
            category,
        }
    }

    /// Sets the encoding and compression.
    pub fn with_codec(mut self, encoding: Encoding, compression: Compression) -> Self {
        self.schema.encoding = encoding;
        self.schema.compression = compression;
        self
    }
}

impl TableSchema {
    /// A table from its name and columns in schema order.
    pub fn new(name: &str, columns: Vec<TableColumn>) -> Self {
        TableSchema {
            name: name.to_owned(),
            columns,
        }
    }
}
