//! [`TsFileMetadata`]: the footer structure at `[F-10-L, F-10)` (`spec/tsfile.md` §8.5) —
//! inline table roots, table schemas, the separator's offset, the Bloom filter and the
//! file properties.

use super::bloom::{self, BloomFilter};
use super::index::MetadataIndexNode;
use super::schema::{read_var_name, TableSchema};
use super::varint::{put_uvarint, put_var_bytes, put_varint};
use crate::cursor::Cursor;
use crate::{Error, Limits, Result};

/// `TsFile`, at both ends of a file.
pub const MAGIC: &[u8; 6] = b"TsFile";
/// The format version byte this crate reads and writes.
pub const VERSION: u8 = 4;

/// The properties Java writes when the user adds none, in Java's order.
pub fn default_properties() -> Vec<(String, Option<Vec<u8>>)> {
    vec![
        ("encryptLevel".into(), Some(b"0".to_vec())),
        ("encryptKey".into(), None),
        (
            "encryptType".into(),
            Some(b"org.apache.tsfile.encrypt.UNENCRYPTED".to_vec()),
        ),
    ]
}

/// The decoded footer.
#[derive(Clone, Debug, PartialEq)]
pub struct TsFileMetadata {
    /// Each table's device-level root node, in file order (Java: sorted by name).
    pub table_roots: Vec<(String, MetadataIndexNode)>,
    /// Table schemas in file order.
    pub schemas: Vec<TableSchema>,
    /// Offset of the `0x02` separator that ends the data section.
    pub meta_offset: i64,
    /// The series-path filter; `None` when absent (or with no bit set).
    pub bloom: Option<BloomFilter>,
    /// Properties in file order; values are raw bytes, `None` for null.
    pub properties: Vec<(String, Option<Vec<u8>>)>,
}

impl TsFileMetadata {
    /// Parses the footer from exactly the bytes of `c` (`L` bytes); anything left over is an
    /// error. Properties are read only if bytes remain after the Bloom filter.
    pub fn read(c: &mut Cursor<'_>, limits: &Limits) -> Result<TsFileMetadata> {
        let n = c.read_ucount("tables", limits.max_metadata_entries)?;
        c.need("tables", n.saturating_mul(2))?;
        let mut table_roots = Vec::with_capacity(n);
        for _ in 0..n {
            let name = read_var_name(c, "table name", limits)?;
            let root = MetadataIndexNode::read_device_level(c, limits)?;
            table_roots.push((name, root));
        }
        let n = c.read_ucount("table schemas", limits.max_metadata_entries)?;
        c.need("table schemas", n.saturating_mul(2))?;
        let mut schemas = Vec::with_capacity(n);
        for _ in 0..n {
            schemas.push(TableSchema::read(c, limits)?);
        }
        let meta_offset = c.read_i64_be()?;
        let bloom = BloomFilter::read(c)?;
        let mut properties = Vec::new();
        if !c.is_empty() {
            let at = c.offset();
            let n = c.read_varint()?;
            let n = usize::try_from(n).map_err(|_| {
                Error::corrupt("tsfile", format!("negative property count {n}")).at_offset(at)
            })?;
            if n > limits.max_metadata_entries {
                return Err(Error::limit(
                    "file properties",
                    n as u64,
                    limits.max_metadata_entries as u64,
                )
                .at_offset(at));
            }
            c.need("file properties", n.saturating_mul(2))?;
            properties.reserve(n);
            for _ in 0..n {
                let key = read_var_name(c, "property key", limits)?;
                let v_at = c.offset();
                let value = c.read_var_bytes("property value")?;
                if let Some(v) = value {
                    if v.len() > limits.max_string_len {
                        return Err(Error::limit(
                            "property value",
                            v.len() as u64,
                            limits.max_string_len as u64,
                        )
                        .at_offset(v_at));
                    }
                }
                properties.push((key, value.map(<[u8]>::to_vec)));
            }
        }
        if !c.is_empty() {
            return Err(Error::corrupt(
                "tsfile",
                format!("{} bytes left over after the file metadata", c.remaining()),
            )
            .at_offset(c.offset()));
        }
        Ok(TsFileMetadata {
            table_roots,
            schemas,
            meta_offset,
            bloom,
            properties,
        })
    }

    /// Appends the wire form (without `L` and the tail magic).
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        put_uvarint(out, self.table_roots.len() as u32);
        for (name, root) in &self.table_roots {
            put_var_bytes(out, Some(name.as_bytes()))?;
            root.write_to(out)?;
        }
        put_uvarint(out, self.schemas.len() as u32);
        for s in &self.schemas {
            s.write_to(out)?;
        }
        out.extend_from_slice(&self.meta_offset.to_be_bytes());
        match &self.bloom {
            Some(b) => b.write_to(out),
            None => bloom::write_absent(out),
        }
        let n = i32::try_from(self.properties.len())
            .map_err(|_| Error::invalid("too many file properties"))?;
        put_varint(out, n);
        for (k, v) in &self.properties {
            put_var_bytes(out, Some(k.as_bytes()))?;
            put_var_bytes(out, v.as_deref())?;
        }
        Ok(())
    }

    /// The root node of `table`, falling back to the table named `""` (v3-style files).
    pub fn table_root(&self, table: &str) -> Option<&MetadataIndexNode> {
        let find = |t: &str| {
            self.table_roots
                .iter()
                .find(|(n, _)| n == t)
                .map(|(_, r)| r)
        };
        find(table).or_else(|| find(""))
    }

    /// The property `key` (the outer `None` = absent, inner = null value).
    pub fn property(&self, key: &str) -> Option<Option<&[u8]>> {
        self.properties
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_deref())
    }
}
