//! TsFile v3 (IoTDB 0.12–1.3, TsFile 1.x) as differences from v4
//! (`docs/design/tsfile-v3-and-mods.md` §1), and the recognition of older heads (§2).
//!
//! Only four things differ: the chunk-group header and the device-level index entries hold the
//! device as one `VarStr` tree path instead of segments; the footer is a single device-level
//! root, `meta_offset` and an optional Bloom filter (no tables, schemas or properties). The
//! Bloom keys are `device + "." + measurement`, which is what the v4 code computes from the
//! device's display form. Everything else is read by the v4 code.
//!
//! A v3 device is kept as a [`DeviceId`] whose display form is exactly the stored string:
//! Java's segmentation (`from_tree_path`) when the path is valid, else the whole string as
//! the only segment.

use super::bloom::BloomFilter;
use super::device::DeviceId;
use super::footer::TsFileMetadata;
use super::footer::MAGIC;
use super::index::{MetadataIndexNode, NodeEntries, NodeType};
use super::types::DataType;
use super::varint::{put_uvarint, put_var_bytes};
use crate::cursor::Cursor;
use crate::source::ByteSource;
use crate::{Error, Limits, Result};

/// The v3 version byte.
pub const VERSION_V3: u8 = 3;

/// A device from its v3 string, displayed exactly as stored.
///
/// ```
/// use colfile::tsfile::format::v3::device_from_path;
/// let d = device_from_path("root.sg1.d1")?;
/// assert_eq!(d.to_string(), "root.sg1.d1");
/// assert_eq!(d.table_name(), "root.sg1");
/// assert_eq!(device_from_path("d1")?.to_string(), "d1");
/// assert_eq!(device_from_path("a..b")?.to_string(), "a..b");
/// # Ok::<(), colfile::Error>(())
/// ```
pub fn device_from_path(path: &str) -> Result<DeviceId> {
    match DeviceId::from_tree_path(path) {
        Ok(d) if d.to_string() == path => Ok(d),
        _ => DeviceId::new(vec![Some(path.to_owned())]),
    }
}

/// Checks that `t` is a type a v3 writer could store: UNKNOWN (7) was never on disk and
/// OBJECT (12) came with v4 (design note §1.5).
///
/// ```
/// use colfile::tsfile::format::{v3::check_data_type, DataType};
/// assert!(check_data_type(DataType::Vector).is_ok());
/// assert!(check_data_type(DataType::Object).is_err());
/// ```
pub fn check_data_type(t: DataType) -> Result<()> {
    match t {
        DataType::Unknown | DataType::Object => Err(Error::corrupt(
            "tsfile",
            format!(
                "data type {t:?} (code {}) does not exist in TsFile v3",
                t.code()
            ),
        )),
        _ => Ok(()),
    }
}

/// Reads a v3 device string (`VarStr`, not null, at most `limits.max_string_len` bytes).
pub fn read_device(c: &mut Cursor<'_>, limits: &Limits) -> Result<DeviceId> {
    let at = c.offset();
    let s = c.read_var_str("v3 device id")?;
    if s.len() > limits.max_string_len {
        return Err(
            Error::limit("v3 device id", s.len() as u64, limits.max_string_len as u64)
                .at_offset(at),
        );
    }
    device_from_path(s).map_err(|e| e.at_offset(at))
}

/// Parses the v3 footer from exactly the bytes of `c`: the device-level root, `meta_offset`
/// and, if bytes remain, a Bloom filter that must end exactly at the end. The result has one
/// table root named `""` (as Java models v3) and no schemas or properties.
pub fn read_footer(c: &mut Cursor<'_>, limits: &Limits) -> Result<TsFileMetadata> {
    let root = if c.rest().first() == Some(&0) {
        // A file without devices: an empty device-level root (as `write_footer` writes).
        let at = c.offset();
        c.read_u8()?;
        let end_offset = c.read_i64_be()?;
        let node_type = NodeType::from_code(c.read_u8()?).map_err(|e| e.at_offset(at))?;
        if !node_type.is_device_level() {
            return Err(
                Error::corrupt("tsfile", "v3 root is not a device-level node").at_offset(at),
            );
        }
        MetadataIndexNode {
            entries: NodeEntries::Device(Vec::new()),
            end_offset,
            node_type,
        }
    } else {
        MetadataIndexNode::read_device_level_v3(c, limits)?
    };
    let meta_offset = c.read_i64_be()?;
    let bloom = if c.is_empty() {
        None
    } else if c.rest().first() == Some(&0) {
        // An empty bit array still carries its bit and hash counts.
        c.read_uvarint()?;
        c.read_uvarint()?;
        c.read_uvarint()?;
        None
    } else {
        BloomFilter::read(c)?
    };
    if !c.is_empty() {
        return Err(Error::corrupt(
            "tsfile",
            format!(
                "{} bytes left over after the v3 file metadata",
                c.remaining()
            ),
        )
        .at_offset(c.offset()));
    }
    Ok(TsFileMetadata {
        table_roots: vec![(String::new(), root)],
        schemas: Vec::new(),
        meta_offset,
        bloom,
        properties: Vec::new(),
    })
}

/// Reads and checks the head of `src`: the magic (else `Corrupt` at 0) and the version
/// ([`check_version`]). Returns the version byte, 3 or 4.
pub fn read_head<S: ByteSource + ?Sized>(src: &S) -> Result<u8> {
    let len = src.len();
    if len < 7 {
        return Err(Error::truncated("TsFile header", 7, len).at_offset(0));
    }
    let mut head = [0u8; 7];
    src.read_exact_at(0, &mut head)?;
    if !head.starts_with(MAGIC) {
        return Err(Error::corrupt(
            "tsfile",
            format!(
                "not a TsFile: bad head magic {}, expected \"TsFile\"",
                crate::cursor::show_magic(head.get(..6).unwrap_or_default())
            ),
        )
        .at_offset(0));
    }
    if len >= 12 && !matches!(head[6], 3 | 4) {
        let mut long = [0u8; 12];
        src.read_exact_at(0, &mut long)?;
        return check_version(&long);
    }
    check_version(&head)
}

/// Checks the 7..13 bytes after offset 0 (`head`, the first bytes of the file) and returns
/// the version byte (3 or 4). Older heads (`TsFile` + an ASCII version) and other version
/// bytes give `Unsupported` naming the version. `head` must start with the magic.
pub fn check_version(head: &[u8]) -> Result<u8> {
    let v = head.get(6).copied().unwrap_or(0);
    if v == 3 || v == 4 {
        return Ok(v);
    }
    let ascii = head.get(6..12).and_then(|b| std::str::from_utf8(b).ok());
    let msg = match ascii {
        Some("000001") => "TsFile v1 (IoTDB 0.9) is not supported".to_owned(),
        Some("000002") => "TsFile v2 (IoTDB 0.10–0.11) is not supported".to_owned(),
        Some(s)
            if s.starts_with('v') && s[1..].bytes().all(|b| b.is_ascii_digit() || b == b'.') =>
        {
            format!("TsFile {s} (IoTDB 0.x, before v3) is not supported")
        }
        _ => format!("TsFile format version byte {v} is not supported (only 3 and 4 are)"),
    };
    Err(Error::unsupported(msg).at_offset(6))
}

/// Appends a v3 index node: device-level entries keyed by the device's path string
/// (`VarStr`), measurement-level nodes as in v4.
pub fn write_node(n: &MetadataIndexNode, out: &mut Vec<u8>) -> Result<()> {
    let NodeEntries::Device(entries) = &n.entries else {
        return n.write_to(out);
    };
    put_uvarint(out, entries.len() as u32);
    for e in entries {
        put_var_bytes(out, Some(e.device.to_string().as_bytes()))?;
        out.extend_from_slice(&e.offset.to_be_bytes());
    }
    out.extend_from_slice(&n.end_offset.to_be_bytes());
    out.push(n.node_type.code());
    Ok(())
}

/// Appends a v3 footer: the single root (of `footer.table_roots`, which must hold at most
/// one; none gives an empty LEAF_DEVICE root), `meta_offset` and the Bloom filter if any. Schemas and properties have no place in
/// v3 and are refused.
pub fn write_footer(footer: &TsFileMetadata, out: &mut Vec<u8>) -> Result<()> {
    let empty = MetadataIndexNode {
        entries: NodeEntries::Device(Vec::new()),
        end_offset: footer.meta_offset + 1,
        node_type: NodeType::LeafDevice,
    };
    let root = match footer.table_roots.as_slice() {
        [] => &empty,
        [(_, root)] => root,
        more => {
            return Err(Error::invalid(format!(
                "a v3 file has one index root, not {}",
                more.len()
            )))
        }
    };
    if !footer.schemas.is_empty() || !footer.properties.is_empty() {
        return Err(Error::invalid(
            "a v3 file holds no table schemas or properties",
        ));
    }
    write_node(root, out)?;
    out.extend_from_slice(&footer.meta_offset.to_be_bytes());
    if let Some(b) = &footer.bloom {
        b.write_to(out);
    }
    Ok(())
}
