//! The binary `<tsfile>.mods2` of IoTDB 2.x: entries back to back until the end of the file,
//! no header, no lengths, no checksums.
//!
//! ```text
//! entry      := u8 type, i64 start, i64 end (big-endian), body
//! type 0     := table deletion: VarStr table, device predicate, VarInt n, VarStr column[n]
//! type 1     := tree deletion: VarStr path pattern
//! predicate  := u8 kind: 0 all | 1 DeviceId (UVarInt n, VarStr segment[n])
//!               | 2 VarStr value (nullable), VarInt segment index | 3 VarInt n, predicate[n]
//! ```
//!
//! An entry cut short by the end of the file is a torn append and is ignored. An unknown type
//! or predicate kind, a negative length, a null where a string is required or invalid UTF-8
//! is [`ErrorKind::Corrupt`] at its byte offset. A length that runs
//! past the end of the file cannot be told from a torn append and also ends the file.
//!
//! ```
//! use colfile::tsfile::mods::binary;
//! let mut file = vec![1u8];
//! file.extend_from_slice(&10i64.to_be_bytes());
//! file.extend_from_slice(&20i64.to_be_bytes());
//! file.extend_from_slice(&[0x0c, b'r', b'o', b'o', b't', b'.', b'*']); // VarStr "root.*"
//! let found = binary::parse(&file, "x.tsfile.mods2", &colfile::Limits::default())?;
//! assert_eq!((found[0].start, found[0].end), (10, 20));
//! # Ok::<(), colfile::Error>(())
//! ```

use super::{Deletion, DevicePredicate, PathPattern, TablePredicate, Target};
use crate::cursor::Cursor;
use crate::tsfile::format::DeviceId;
use crate::{Error, ErrorKind, Limits, Result};

/// The format name in errors.
const FORMAT: &str = "iotdb mods2";

/// Parses a whole `.mods2` file; every error names `name` as its file
/// ([`Location::file`](crate::Location)). At most [`Limits::max_mods_entries`] entries.
pub fn parse(bytes: &[u8], name: &str, limits: &Limits) -> Result<Vec<Deletion>> {
    parse_entries(bytes, limits).map_err(|e| e.in_file(name))
}

fn parse_entries(bytes: &[u8], limits: &Limits) -> Result<Vec<Deletion>> {
    let mut c = Cursor::new(bytes, 0);
    let mut out = Vec::new();
    while !c.is_empty() {
        let at = c.offset();
        match entry(&mut c, limits) {
            Ok(d) => super::push_limited(&mut out, d, limits, at)?,
            Err(e) if matches!(e.kind(), ErrorKind::Truncated { .. }) => break,
            Err(e) => {
                let entry_no = out.len() + 1;
                return Err(match e.kind() {
                    ErrorKind::Corrupt { message, .. } => {
                        let msg = format!("entry {entry_no} (at byte {at}): {message}");
                        let off = e.location().offset.unwrap_or(at);
                        Error::corrupt(FORMAT, msg).at_offset(off)
                    }
                    _ => e,
                });
            }
        }
    }
    Ok(out)
}

fn entry(c: &mut Cursor<'_>, limits: &Limits) -> Result<Deletion> {
    let at = c.offset();
    let kind = c.read_u8()?;
    if kind > 1 {
        let e = Error::corrupt(FORMAT, format!("unknown modification type {kind}"));
        return Err(e.at_offset(at));
    }
    let start = c.read_i64_be()?;
    let end = c.read_i64_be()?;
    let target = if kind == 0 {
        Target::Table(table(c, limits)?)
    } else {
        let at = c.offset();
        let text = string(c, "path pattern", limits)?;
        let p: PathPattern = text.parse().map_err(|_| {
            Error::corrupt(FORMAT, format!("{text:?} is not a valid path pattern")).at_offset(at)
        })?;
        Target::Tree(p)
    };
    Ok(Deletion {
        target,
        start,
        end,
        file_offset: None,
    })
}

/// A non-null VarStr no longer than [`Limits::max_string_len`].
fn string(c: &mut Cursor<'_>, what: &'static str, limits: &Limits) -> Result<String> {
    let at = c.offset();
    match opt_string(c, what, limits)? {
        Some(s) => Ok(s),
        None => Err(Error::corrupt(FORMAT, format!("{what} is null")).at_offset(at)),
    }
}

fn opt_string(c: &mut Cursor<'_>, what: &'static str, limits: &Limits) -> Result<Option<String>> {
    let at = c.offset();
    let mut peek = c.clone();
    let n = peek.read_varint()?;
    if n > 0 && n as u64 > limits.max_string_len as u64 {
        return Err(Error::limit(what, n as u64, limits.max_string_len as u64).at_offset(at));
    }
    let s = c.read_opt_var_str(what).map_err(|e| relabel(e, at))?;
    Ok(s.map(str::to_owned))
}

/// The shared VarStr readers say "corrupt tsfile data"; this file is not a TsFile.
fn relabel(e: Error, at: u64) -> Error {
    match e.kind() {
        ErrorKind::Corrupt { message, .. } => {
            Error::corrupt(FORMAT, message.clone()).at_offset(e.location().offset.unwrap_or(at))
        }
        _ => e,
    }
}

/// A VarInt count, at most `max` and at most the bytes left (each item takes one at least).
fn count(c: &mut Cursor<'_>, what: &'static str, max: usize) -> Result<usize> {
    let at = c.offset();
    let n = c.read_varint().map_err(|e| relabel(e, at))?;
    if n < 0 {
        return Err(Error::corrupt(FORMAT, format!("negative {what} {n}")).at_offset(at));
    }
    let n = n as usize;
    if n > max {
        return Err(Error::limit(what, n as u64, max as u64).at_offset(at));
    }
    c.need(what, n)?;
    Ok(n)
}

fn table(c: &mut Cursor<'_>, limits: &Limits) -> Result<TablePredicate> {
    let table = string(c, "table name", limits)?;
    let device = predicate(c, limits, 0)?;
    let n = count(c, "measurement count", limits.max_columns)?;
    let mut measurements = Vec::with_capacity(n);
    for _ in 0..n {
        measurements.push(string(c, "measurement", limits)?);
    }
    Ok(TablePredicate {
        table,
        device,
        measurements,
    })
}

fn predicate(c: &mut Cursor<'_>, limits: &Limits, depth: usize) -> Result<DevicePredicate> {
    let at = c.offset();
    if depth > limits.max_nesting {
        let e = Error::limit(
            "device predicate nesting",
            depth as u64,
            limits.max_nesting as u64,
        );
        return Err(e.at_offset(at));
    }
    Ok(match c.read_u8()? {
        0 => DevicePredicate::All,
        1 => {
            let d = DeviceId::read(c, limits.max_columns).map_err(|e| relabel(e, at))?;
            // A device id needs a table name; an empty one reads as `[""]`.
            DevicePredicate::Exact(d)
        }
        2 => {
            let value = opt_string(c, "segment value", limits)?;
            let at_index = c.offset();
            let index = c.read_varint().map_err(|e| relabel(e, at_index))?;
            DevicePredicate::Segment { value, index }
        }
        3 => {
            let n = count(c, "predicate count", limits.max_columns)?;
            let mut all = Vec::with_capacity(n);
            for _ in 0..n {
                all.push(predicate(c, limits, depth + 1)?);
            }
            DevicePredicate::And(all)
        }
        k => {
            return Err(
                Error::corrupt(FORMAT, format!("unknown device predicate kind {k}")).at_offset(at),
            )
        }
    })
}

/// Writes deletions as a `.mods2` file, the form IoTDB 2.x writes (file offsets are dropped).
///
/// ```
/// use colfile::tsfile::mods::{binary, Deletion};
/// let d = Deletion::tree("root.sg.**".parse()?, 1, 2);
/// let bytes = binary::write(&[d.clone()])?;
/// assert_eq!(binary::parse(&bytes, "x.mods2", &Default::default())?, [d]);
/// # Ok::<(), colfile::Error>(())
/// ```
#[cfg(any(test, feature = "unstable"))]
#[cfg_attr(docsrs, doc(cfg(feature = "unstable")))]
pub fn write(deletions: &[Deletion]) -> Result<Vec<u8>> {
    use crate::tsfile::format::varint::{put_var_bytes, put_varint};
    let mut out = Vec::new();
    for d in deletions {
        out.push(match d.target {
            Target::Table(_) => 0,
            Target::Tree(_) => 1,
        });
        out.extend_from_slice(&d.start.to_be_bytes());
        out.extend_from_slice(&d.end.to_be_bytes());
        match &d.target {
            Target::Tree(p) => put_var_bytes(&mut out, Some(p.as_str().as_bytes()))?,
            Target::Table(t) => {
                put_var_bytes(&mut out, Some(t.table.as_bytes()))?;
                write_predicate(&mut out, &t.device)?;
                put_varint(&mut out, len_i32(t.measurements.len())?);
                for m in &t.measurements {
                    put_var_bytes(&mut out, Some(m.as_bytes()))?;
                }
            }
        }
    }
    Ok(out)
}

#[cfg(any(test, feature = "unstable"))]
fn write_predicate(out: &mut Vec<u8>, p: &DevicePredicate) -> Result<()> {
    use crate::tsfile::format::varint::{put_var_bytes, put_varint};
    match p {
        DevicePredicate::All => out.push(0),
        DevicePredicate::Exact(d) => {
            out.push(1);
            d.write_to(out)?;
        }
        DevicePredicate::Segment { value, index } => {
            out.push(2);
            put_var_bytes(out, value.as_deref().map(str::as_bytes))?;
            put_varint(out, *index);
        }
        DevicePredicate::And(all) => {
            out.push(3);
            put_varint(out, len_i32(all.len())?);
            for q in all {
                write_predicate(out, q)?;
            }
        }
    }
    Ok(())
}

#[cfg(any(test, feature = "unstable"))]
fn len_i32(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::invalid(format!("{n} items do not fit a VarInt count")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(p: &str, s: i64, e: i64) -> Deletion {
        Deletion::tree(p.parse().unwrap(), s, e)
    }

    #[test]
    fn round_trip_and_torn_tail() {
        let dev = DeviceId::from_table("t", [Some("a"), None]).unwrap();
        let all = vec![
            tree("root.**", i64::MIN, i64::MAX),
            Deletion::table(
                TablePredicate {
                    table: "t".into(),
                    device: DevicePredicate::And(vec![
                        DevicePredicate::Exact(dev),
                        DevicePredicate::Segment {
                            value: None,
                            index: 2,
                        },
                        DevicePredicate::All,
                    ]),
                    measurements: vec!["s1".into(), "".into()],
                },
                5,
                6,
            ),
        ];
        let bytes = write(&all).unwrap();
        let lim = Limits::default();
        assert_eq!(parse(&bytes, "f", &lim).unwrap(), all);
        for cut in 0..bytes.len() {
            let got = parse(&bytes[..cut], "f", &lim).unwrap();
            assert!(all.starts_with(&got), "cut at {cut}");
        }
    }

    #[test]
    fn corrupt_entries() {
        let mut bytes = write(&[tree("root.a", 0, 1)]).unwrap();
        let second = bytes.len();
        bytes.extend_from_slice(&[7; 20]);
        let e = parse(&bytes, "f.mods2", &Limits::default()).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Corrupt { .. }), "{e}");
        assert_eq!(e.location().offset, Some(second as u64));
        assert!(e.to_string().contains("entry 2"), "{e}");
        assert_eq!(
            e.location().file.as_deref(),
            Some(std::path::Path::new("f.mods2"))
        );

        let mut neg = vec![1u8];
        neg.extend_from_slice(&[0; 16]);
        neg.push(0x03); // VarInt -2
        let e = parse(&neg, "f", &Limits::default()).unwrap_err();
        assert_eq!(e.location().offset, Some(17), "{e}");
    }
}
