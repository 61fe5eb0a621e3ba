//! The text `<tsfile>.mods` of IoTDB 0.12–1.3: one deletion a line,
//! `DELETION,<path pattern>,<file offset>,<start>,<end>`.
//!
//! The last three comma-separated fields are the numbers and everything between `DELETION`
//! and them is the pattern (back-quoted nodes may hold commas). The legacy point form
//! `DELETION,<path>,<version>,<end>` (when the third field from the end is not a number)
//! deletes everything up to `end`, the version taking the file offset's place. Lines end in
//! `\n` or `\r\n`. A last line without its terminator that does not parse is a torn append and
//! is ignored; any other bad line is [`ErrorKind::Corrupt`](crate::ErrorKind::Corrupt) naming
//! the file, the line and its byte offset.
//!
//! ```
//! use colfile::tsfile::mods::text;
//! let file = b"DELETION,root.sg.`a,b`.s1,1024,100,300\r\nDELETION,root.sg.d1.s1,7,50\nDELET";
//! let found = text::parse(file, "x.tsfile.mods", &colfile::Limits::default())?;
//! assert_eq!(found.len(), 2);
//! assert_eq!((found[0].start, found[0].end, found[0].file_offset), (100, 300, Some(1024)));
//! assert_eq!((found[1].start, found[1].end, found[1].file_offset), (i64::MIN, 50, Some(7)));
//! # Ok::<(), colfile::Error>(())
//! ```

use super::{Deletion, PathPattern, Target};
use crate::{Error, Limits, Result};

/// The format name in errors.
const FORMAT: &str = "iotdb mods";

/// Parses a whole `.mods` file; every error names `name` as its file
/// ([`Location::file`](crate::Location)). At most [`Limits::max_mods_entries`] lines, each at
/// most [`Limits::max_string_len`] bytes.
pub fn parse(bytes: &[u8], name: &str, limits: &Limits) -> Result<Vec<Deletion>> {
    parse_lines(bytes, limits).map_err(|e| e.in_file(name))
}

fn parse_lines(bytes: &[u8], limits: &Limits) -> Result<Vec<Deletion>> {
    let mut out = Vec::new();
    let mut at = 0usize;
    let mut line_no = 0u64;
    while at < bytes.len() {
        line_no += 1;
        let rest = bytes.get(at..).unwrap_or_default();
        let (line, next, terminated) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (rest.split_at(i).0, at + i + 1, true),
            None => (rest, bytes.len(), false),
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let fail = |why: String| {
            Error::corrupt(FORMAT, format!("line {line_no}: {why}")).at_offset(at as u64)
        };
        if line.len() > limits.max_string_len {
            if !terminated {
                break;
            }
            return Err(Error::limit(
                "modification line length",
                line.len() as u64,
                limits.max_string_len as u64,
            )
            .at_offset(at as u64));
        }
        match parse_line(line) {
            Ok(d) => super::push_limited(&mut out, d, limits, at as u64)?,
            Err(_) if !terminated => break,
            Err(why) => return Err(fail(why)),
        }
        at = next;
    }
    Ok(out)
}

/// One line without its terminator.
fn parse_line(line: &[u8]) -> std::result::Result<Deletion, String> {
    let line = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_string())?;
    let fields: Vec<&str> = line.split(',').collect();
    let Some((kind, rest)) = fields.split_first() else {
        return Err("empty line".into());
    };
    if *kind != "DELETION" {
        return Err(format!("unknown modification type {kind:?}"));
    }
    let [path_fields @ .., third, second, last] = rest else {
        return Err(format!(
            "{} fields, a deletion has at least 4",
            fields.len()
        ));
    };
    let num = |s: &str, what: &str| {
        s.parse::<i64>()
            .map_err(|_| format!("{what} {s:?} is not an integer"))
    };
    let end = num(last, "end time")?;
    let (path, offset, start) = match third.parse::<i64>() {
        Ok(offset) if !path_fields.is_empty() => {
            (path_fields.join(","), offset, num(second, "start time")?)
        }
        // The point form: `DELETION,<path>,<version>,<end>`.
        _ => {
            let mut path = path_fields.to_vec();
            path.push(third);
            (path.join(","), num(second, "version")?, i64::MIN)
        }
    };
    let pattern: PathPattern = path
        .parse()
        .map_err(|_| format!("{path:?} is not a valid path pattern"))?;
    Ok(Deletion {
        target: Target::Tree(pattern),
        start,
        end,
        file_offset: Some(offset),
    })
}

/// Writes deletions as `.mods` text (`\n` line ends), the form IoTDB 1.x writes. Only tree
/// deletions can be written; a missing file offset is written as `i64::MAX` (every chunk).
///
/// ```
/// use colfile::tsfile::mods::{text, Deletion};
/// let d = Deletion::tree("root.sg.d1.s1".parse()?, 1, 2).with_file_offset(9);
/// let bytes = text::write(&[d.clone()])?;
/// assert_eq!(bytes, b"DELETION,root.sg.d1.s1,9,1,2\n");
/// assert_eq!(text::parse(&bytes, "x.mods", &Default::default())?, [d]);
/// # Ok::<(), colfile::Error>(())
/// ```
#[cfg(any(test, feature = "unstable"))]
#[cfg_attr(docsrs, doc(cfg(feature = "unstable")))]
pub fn write(deletions: &[Deletion]) -> Result<Vec<u8>> {
    let mut out = String::new();
    for d in deletions {
        let Target::Tree(p) = &d.target else {
            return Err(Error::invalid(
                "a table deletion cannot be written to a text .mods file",
            ));
        };
        let offset = d.file_offset.unwrap_or(i64::MAX);
        out.push_str(&format!("DELETION,{p},{offset},{},{}\n", d.start, d.end));
    }
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(bytes: &[u8]) -> String {
        parse(bytes, "f.mods", &Limits::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bad_lines() {
        let e = err(b"DELETION,root.a.s,1,2,3\nUPDATE,root.a.s,1,2,3\n");
        assert!(
            e.contains("line 2") && e.contains("file f.mods, at byte 24"),
            "{e}"
        );
        assert!(err(b"DELETION,root.a.s,1\n").contains("3 fields"));
        assert!(err(b"DELETION,root.a.s,1,x,3\n").contains("start time"));
        assert!(err(b"DELETION,root.a.s,x,3\n").contains("version"));
        assert!(err(b"DELETION,root..s,1,2,3\n").contains("valid path"));
        assert!(err(b"\n").contains("line 1"));
        let torn = parse(
            b"DELETION,root.a.s,1,2,3\nDELETION,root.a.s,1,2,",
            "f",
            &Limits::default(),
        );
        assert_eq!(torn.unwrap().len(), 1);
        let limited = Limits::default().with_max_mods_entries(1);
        let e = parse(b"DELETION,a.s,1,2,3\nDELETION,a.s,1,2,3\n", "f", &limited).unwrap_err();
        assert!(
            matches!(e.kind(), crate::ErrorKind::LimitExceeded { .. }),
            "{e}"
        );
    }

    #[test]
    fn commas_in_back_quotes() {
        let d = parse(b"DELETION,root.`x,y,1`.s,5,6,7", "f", &Limits::default()).unwrap();
        assert_eq!(d[0].target, Target::Tree("root.`x,y,1`.s".parse().unwrap()));
        assert_eq!((d[0].file_offset, d[0].start, d[0].end), (Some(5), 6, 7));
    }
}
