//! `cat`, `head`, `scan` and `count` on an IoTDB data directory (a folder holding
//! `sequence/` or `unsequence/`, or a database, region or partition folder inside one): its
//! TsFiles read as one dataset, merged as IoTDB merges them (`colfile::tsfile::dataset`),
//! each file's `.mods` applied unless `--no-mods`. `--no-merge` reads the files one by one
//! instead, like any other folder.
//!
//! What the walk skipped (unsealed files, partitions being compacted, unreadable
//! `.resource`s) is reported on stderr, one `colfile: note:` line each.

use crate::args::ReadArgs;
use crate::progress::Progress;
use crate::read_cmds::ScanSummary;
use crate::Failure;
use colfile::tsfile::dataset::{Dataset, DatasetRows, Notice, ReadOptions};
use colfile::tsfile::format::batch::Column;
use colfile::tsfile::{DataType, DeviceBatch, Query, ValueRef};
use colfile::Limits;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The one directory argument when it is an IoTDB data directory to merge.
pub fn merged_dir(paths: &[PathBuf], no_merge: bool) -> Option<&Path> {
    match paths {
        [p] if !no_merge && p.is_dir() && Dataset::is_iotdb_dir(p) => Some(p),
        _ => None,
    }
}

/// Opens the dataset at `dir`, reporting its notices.
fn open(dir: &Path, limits: &Limits) -> Result<Dataset, Failure> {
    let ds = Dataset::open_with_limits(dir, limits).map_err(|e| Failure::from(e).context(dir))?;
    for n in &ds.notices {
        let text = match n {
            Notice::NoResource(p) => {
                format!("{}: no .resource, ranges read from the footer", p.display())
            }
            Notice::BadResource(p, e) => format!(
                "{}: unreadable .resource ({e}), ranges read from the footer",
                p.display()
            ),
            Notice::Unsealed(p) => format!(
                "{}: unsealed (no .resource, no footer), skipped",
                p.display()
            ),
            Notice::Compacting { partition, .. } => {
                format!(
                    "{}: a compaction is in progress, partition skipped",
                    partition.display()
                )
            }
            _ => continue,
        };
        eprintln!("colfile: note: {text}");
    }
    Ok(ds)
}

fn rows<'a>(
    ds: &'a Dataset,
    q: &Query,
    a: &ReadArgs,
    dir: &Path,
) -> Result<DatasetRows<'a>, Failure> {
    let options = ReadOptions::default()
        .with_limits(a.limits.clone())
        .with_mods(!a.no_mods);
    ds.query_with(q, options)
        .map_err(|e| Failure::from(e).context(dir))
}

/// `cat DIR` (and `head`): the merged rows, as `cat` prints a tree-model file's.
pub fn cat(a: &ReadArgs, dir: &Path) -> Result<(), Failure> {
    if a.format == "dump" {
        return Err(Failure::usage(
            "--format dump shows one file; an IoTDB data directory prints jsonl or csv (or add --no-merge)",
        ));
    }
    let csv_columns = match (a.format.as_str(), &a.columns) {
        ("csv", Some(c)) => Some(c.clone()),
        ("csv", None) => return Err(Failure::usage(
            "--format csv on an IoTDB data directory needs --columns (its devices' columns differ)",
        )),
        _ => None,
    };
    let ds = open(dir, &a.limits)?;
    let q = crate::tsfile_cmds::query_of(a)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut csv = csv_columns.as_ref().map(|_| a.csv.line_writer());
    let mut line = String::new();
    let mut header_done = !a.csv.header;
    for b in rows(&ds, &q, a, dir)? {
        let mut b = b.map_err(|e| Failure::from(e).context(dir))?;
        let owner = b.device.to_string();
        if let (Some(csv), Some(cols)) = (&mut csv, &csv_columns) {
            pad(&mut b, cols)?;
            if !header_done {
                let names: Vec<&str> = ["device", "time"]
                    .into_iter()
                    .chain(cols.iter().map(String::as_str))
                    .collect();
                line.clear();
                csv.names(&names, &mut line)?;
                writeln!(out, "{line}")?;
                header_done = true;
            }
        }
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            line.clear();
            let values: Vec<ValueRef<'_>> = cursors.iter_mut().map(|c| c.next_value()).collect();
            match &mut csv {
                Some(csv) => crate::tsfile_cmds::csv_row(csv, &mut line, &owner, t, &b, &values)?,
                None => crate::tsfile_cmds::json_row(&mut line, true, &owner, t, &b, &values),
            }
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Puts `b`'s columns in `names` order, an absent one as all nulls.
fn pad(b: &mut DeviceBatch, names: &[String]) -> Result<(), Failure> {
    let mut cols = Vec::with_capacity(names.len());
    for n in names {
        match b.columns.iter().position(|c| c.name == *n) {
            Some(i) => cols.push(b.columns.swap_remove(i)),
            None => {
                let mut c = Column::new(n, DataType::Text)?;
                c.present = vec![false; b.times.len()];
                cols.push(c);
            }
        }
    }
    b.columns = cols;
    Ok(())
}

/// `scan DIR`: one summary of the merged rows (bytes: the live TsFiles' sizes).
pub fn scan(a: &ReadArgs, dir: &Path, progress: &mut Progress) -> Result<ScanSummary, Failure> {
    let started = std::time::Instant::now();
    let ds = open(dir, &a.limits)?;
    let q = crate::tsfile_cmds::query_of(a)?;
    let mut s = ScanSummary {
        bytes: ds
            .files
            .iter()
            .filter_map(|f| std::fs::metadata(&f.path).ok())
            .map(|m| m.len())
            .sum(),
        ..ScanSummary::default()
    };
    let mut it = rows(&ds, &q, a, dir)?;
    for b in &mut it {
        let b = b.map_err(|e| Failure::from(e).context(dir))?;
        s.rows += b.len() as u64;
        s.values += b.value_count() as u64;
        progress.rows_done(b.len() as u64, None);
    }
    s.seconds = started.elapsed().as_secs_f64();
    if a.explain {
        let st = it.stats();
        eprintln!(
            "dataset: {} files; {} devices; {} file reads, {} skipped by time index; {} files with overlapping chunks",
            ds.files.len(),
            st.devices,
            st.file_reads,
            st.file_skips,
            st.overlapping
        );
    }
    Ok(s)
}

/// `count DIR`: the merged rows (of `table` when given).
pub fn count(
    dir: &Path,
    table: Option<&str>,
    limits: &Limits,
    no_mods: bool,
) -> Result<u64, Failure> {
    let ds = open(dir, limits)?;
    let mut q = Query::all();
    if let Some(t) = table {
        q = q.table(t);
    }
    let options = ReadOptions::default()
        .with_limits(limits.clone())
        .with_mods(!no_mods);
    let mut n = 0u64;
    for b in ds
        .query_with(&q, options)
        .map_err(|e| Failure::from(e).context(dir))?
    {
        n += b.map_err(|e| Failure::from(e).context(dir))?.len() as u64;
    }
    Ok(n)
}
