//! The RCFile header: magic (`RCF\x01`, or legacy `SEQ\x06` with key/value class names),
//! compression flag and codec class, the metadata map, and the 16-byte sync marker.

use crate::compress::HadoopCodec;
use crate::cursor::Cursor;
use crate::rcfile::hadoop::{write_i32_be, write_text};
use crate::{Error, ErrorKind, Limits, Result};

/// Metadata key that holds the column count (decimal ASCII). Hive requires it.
pub const COLUMN_NUMBER_KEY: &str = "hive.io.rcfile.column.number";
/// Key class name of a `SEQ6` RCFile.
pub const SEQ_KEY_CLASS: &str = "org.apache.hadoop.hive.ql.io.RCFile$KeyBuffer";
/// Value class name of a `SEQ6` RCFile.
pub const SEQ_VALUE_CLASS: &str = "org.apache.hadoop.hive.ql.io.RCFile$ValueBuffer";

/// Which header layout the file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HeaderVersion {
    /// `RCF` version 1: Hive >= 0.9 and Trino (the default).
    Rcf1,
    /// `SEQ` version 6 with RCFile's key/value class names (Hive < 0.9, or
    /// `hive.exec.rcfile.use.explicit.header=false`).
    Seq6,
}

/// A parsed RCFile header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Header layout.
    pub version: HeaderVersion,
    /// The raw magic and version bytes (e.g. `RCF` + 1).
    pub magic: [u8; 4],
    /// Codec of every key section and column buffer; `None` when uncompressed.
    pub codec: Option<HadoopCodec>,
    /// The codec class name exactly as the file spells it.
    pub codec_class: Option<String>,
    /// Metadata entries in file order (Hive writes them sorted by key bytes).
    pub metadata: Vec<(String, String)>,
    /// Number of columns (from `hive.io.rcfile.column.number`).
    pub column_count: usize,
    /// The sync marker.
    pub sync: [u8; 16],
    /// Header length in bytes, sync included: where the first row group (or sync block) starts.
    pub length: u64,
}

impl Header {
    /// The value of metadata `key` (the last one wins for duplicates, as in Hive's TreeMap).
    pub fn metadata_value(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Parses a header from the front of `buf`. A buffer that ends inside the header gives
    /// [`ErrorKind::Truncated`] (callers may retry with more bytes).
    pub fn parse(buf: &[u8], limits: &Limits) -> Result<Header> {
        let mut c = Cursor::new(buf, 0);
        let magic: [u8; 4] = c.array("magic").map_err(|_| {
            Error::corrupt(
                "rcfile",
                format!(
                    "file is {} bytes: too short for an RCFile header",
                    buf.len()
                ),
            )
            .at_offset(0)
        })?;
        let seq_layout = match &magic[..3] {
            b"RCF" if magic[3] == 1 => false,
            // Hive parses RCF version 0 with the SEQ field layout.
            b"RCF" if magic[3] == 0 => true,
            b"RCF" => {
                return Err(Error::unsupported(format!(
                    "RCFile version {} (only 0 and 1 exist)",
                    magic[3]
                ))
                .at_offset(3))
            }
            b"SEQ" if magic[3] == 6 => true,
            b"SEQ" => {
                return Err(Error::corrupt(
                    "rcfile",
                    format!(
                        "SequenceFile version {} is not an RCFile (RCFile uses SEQ version 6)",
                        magic[3]
                    ),
                )
                .at_offset(3))
            }
            _ => {
                return Err(Error::corrupt(
                    "rcfile",
                    format!(
                        "not an RCFile: magic bytes {} are neither \"RCF\" nor \"SEQ\"",
                        crate::cursor::show_magic(&magic)
                    ),
                )
                .at_offset(0))
            }
        };
        let ctx = |e: Error| e.in_section("header");
        let compressed;
        if seq_layout {
            let at = c.offset();
            let key = c
                .read_text("key class name", limits.max_string_len)
                .map_err(ctx)?;
            if key != SEQ_KEY_CLASS {
                return Err(Error::corrupt(
                    "rcfile",
                    format!("SEQ file with key class {key:?} is a SequenceFile, not an RCFile"),
                )
                .at_offset(at));
            }
            let at = c.offset();
            let value = c
                .read_text("value class name", limits.max_string_len)
                .map_err(ctx)?;
            if value != SEQ_VALUE_CLASS {
                return Err(Error::corrupt(
                    "rcfile",
                    format!("SEQ file with value class {value:?} is a SequenceFile, not an RCFile"),
                )
                .at_offset(at));
            }
            compressed = c.read_u8().map_err(ctx)? != 0;
            let at = c.offset();
            if c.read_u8().map_err(ctx)? != 0 {
                return Err(Error::corrupt("rcfile", "block-compressed flag is set; RCFile never uses SequenceFile block compression").at_offset(at));
            }
        } else {
            compressed = c.read_u8().map_err(ctx)? != 0;
        }
        let (codec, codec_class) = if compressed {
            let at = c.offset();
            let name = c
                .read_text("codec class name", limits.max_string_len)
                .map_err(ctx)?;
            let codec = HadoopCodec::from_class_name(name)
                .map_err(|e| e.at_offset(at).in_section("header"))?;
            (Some(codec), Some(name.to_string()))
        } else {
            (None, None)
        };
        let at = c.offset();
        let count = c.read_i32_be().map_err(ctx)?;
        if count < 0 {
            return Err(
                Error::corrupt("rcfile", format!("negative metadata entry count {count}"))
                    .at_offset(at),
            );
        }
        if count as usize > limits.max_metadata_entries {
            return Err(Error::limit(
                "metadata entry count",
                count as u64,
                limits.max_metadata_entries as u64,
            )
            .at_offset(at));
        }
        // Each entry takes at least two bytes, so the count is also bounded by what remains.
        c.need("metadata", count as usize * 2).map_err(ctx)?;
        let mut metadata = Vec::with_capacity(count as usize);
        // Where the column count's value is (the last entry with its key wins, as in
        // `metadata_value`); errors about it point there, or at the entry count.
        let mut column_number_at = at;
        for _ in 0..count {
            let k = c
                .read_text("metadata key", limits.max_string_len)
                .map_err(ctx)?;
            if k == COLUMN_NUMBER_KEY {
                column_number_at = c.offset();
            }
            let v = c
                .read_text("metadata value", limits.max_string_len)
                .map_err(ctx)?;
            metadata.push((k.to_string(), v.to_string()));
        }
        let sync: [u8; 16] = c.array("sync marker").map_err(ctx)?;
        let mut h = Header {
            version: if seq_layout {
                HeaderVersion::Seq6
            } else {
                HeaderVersion::Rcf1
            },
            magic,
            codec,
            codec_class,
            metadata,
            column_count: 0,
            sync,
            length: c.offset(),
        };
        let n = h.metadata_value(COLUMN_NUMBER_KEY).ok_or_else(|| {
            Error::corrupt(
                "rcfile",
                format!("header metadata lacks {COLUMN_NUMBER_KEY}"),
            )
            .in_section("header")
            .at_offset(column_number_at)
        })?;
        let n: i64 = n.trim_start_matches('+').parse().map_err(|_| {
            Error::corrupt(
                "rcfile",
                format!("{COLUMN_NUMBER_KEY} is {n:?}, not a number"),
            )
            .in_section("header")
            .at_offset(column_number_at)
        })?;
        if n < 0 || n > i32::MAX as i64 {
            return Err(
                Error::corrupt("rcfile", format!("{COLUMN_NUMBER_KEY} is {n}"))
                    .in_section("header")
                    .at_offset(column_number_at),
            );
        }
        if n as usize > limits.max_columns {
            return Err(
                Error::limit("column count", n as u64, limits.max_columns as u64)
                    .in_section("header")
                    .at_offset(column_number_at),
            );
        }
        h.column_count = n as usize;
        Ok(h)
    }

    /// Reads and parses the header at the start of `source`, reading only as much as needed.
    pub fn read(source: &dyn crate::source::ByteSource, limits: &Limits) -> Result<Header> {
        let len = source.len();
        if len == 0 {
            return Err(
                Error::corrupt("rcfile", "file is empty (0 bytes): not an RCFile").at_offset(0),
            );
        }
        // A first read of what the allocation limit allows, grown while the header goes on.
        let cap = u64::try_from(limits.max_alloc_bytes).unwrap_or(u64::MAX);
        let mut want = len.min(64 * 1024).min(cap.max(1));
        loop {
            let n = limits
                .check_alloc("header", want)
                .map_err(|e| e.at_offset(0))?;
            let mut buf = vec![0u8; n];
            source.read_exact_at(0, &mut buf)?;
            match Header::parse(&buf, limits) {
                Err(e) if matches!(e.kind(), ErrorKind::Truncated { .. }) && want < len => {
                    // Past the cap the check above refuses it.
                    want = if want >= cap {
                        want * 4
                    } else {
                        (want * 4).min(cap)
                    }
                    .min(len);
                }
                r => return r,
            }
        }
    }

    /// Serializes the header exactly as Hive's writer does (metadata sorted by key bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        match self.version {
            HeaderVersion::Rcf1 => out.extend_from_slice(b"RCF\x01"),
            HeaderVersion::Seq6 => {
                out.extend_from_slice(b"SEQ\x06");
                write_text(&mut out, SEQ_KEY_CLASS.as_bytes());
                write_text(&mut out, SEQ_VALUE_CLASS.as_bytes());
            }
        }
        out.push(self.codec.is_some() as u8);
        if self.version == HeaderVersion::Seq6 {
            out.push(0);
        }
        if let Some(c) = self.codec {
            let name = self.codec_class.as_deref().unwrap_or(c.class_name());
            write_text(&mut out, name.as_bytes());
        }
        write_i32_be(&mut out, self.metadata.len() as i32);
        for (k, v) in &self.metadata {
            write_text(&mut out, k.as_bytes());
            write_text(&mut out, v.as_bytes());
        }
        out.extend_from_slice(&self.sync);
        out
    }
}
