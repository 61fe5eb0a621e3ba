//! `colfile mods FILE`: the deletions of an IoTDB modification file as JSON lines (library
//! code in `colfile::tsfile::mods`).

use crate::Failure;
use colfile::tsfile::mods::{Deletion, DevicePredicate, Modifications, Target};
use colfile::Limits;
use serde_json::{json, Value};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

/// `colfile mods FILE.tsfile|FILE.mods|FILE.mods2`: a TsFile's `.mods` and `.mods2` (none:
/// no output), or one modification file, one JSON object a deletion.
pub fn mods(args: Vec<OsString>) -> Result<(), Failure> {
    let mut p = lexopt::Parser::from_args(args);
    let mut file = None;
    while let Some(arg) = p.next()? {
        match arg {
            lexopt::Arg::Value(v) if file.is_none() => file = Some(PathBuf::from(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let usage = "usage: colfile mods FILE.tsfile|FILE.mods|FILE.mods2";
    let file = file.ok_or_else(|| Failure::usage(usage))?;
    let one_file = file
        .extension()
        .is_some_and(|e| e == "mods" || e == "mods2");
    let limits = Limits::default();
    let mods = if one_file {
        Modifications::load(&file, &limits)
    } else {
        Modifications::for_tsfile_with(&file, &limits)
    }
    .map_err(|e| Failure::from(e).context(&file))?;
    let mut out = std::io::stdout().lock();
    for d in mods.deletions() {
        writeln!(out, "{}", to_json(d))?;
    }
    Ok(())
}

fn to_json(d: &Deletion) -> Value {
    let mut v = match &d.target {
        Target::Tree(p) => json!({"kind": "tree", "pattern": p.as_str()}),
        Target::Table(t) => json!({
            "kind": "table",
            "table": t.table,
            "devices": predicate(&t.device),
            "columns": t.measurements,
        }),
    };
    v["start"] = json!(d.start);
    v["end"] = json!(d.end);
    if let Some(o) = d.file_offset {
        v["file_offset"] = json!(o);
    }
    v
}

fn predicate(p: &DevicePredicate) -> Value {
    match p {
        DevicePredicate::All => json!("all"),
        DevicePredicate::Exact(d) => json!({"exact": d.segments()}),
        DevicePredicate::Segment { value, index } => {
            json!({"segment": {"index": index, "value": value}})
        }
        DevicePredicate::And(all) => {
            json!({"and": all.iter().map(predicate).collect::<Vec<_>>()})
        }
    }
}
