//! Command-line parsing for each command (lexopt), kept apart from what the commands do.

use crate::csv_opts::{CsvOptions, CSV_FLAGS};
use crate::schema_arg::schema_and_serde;
use crate::Failure;
use colfile::Limits;
use lexopt::prelude::*;
use std::ffi::OsString;
use std::path::PathBuf;

/// Options shared by `cat` and `scan`.
#[derive(Clone)]
pub struct ReadArgs {
    /// The file read (the first of `paths`, or the one a multi-file command is on).
    pub file: PathBuf,
    /// Every FILE or DIR argument, in order (multi.rs expands directories).
    pub paths: Vec<PathBuf>,
    /// Several files are printed as one: the CSV header only before the first.
    pub skip_csv_header: bool,
    pub schema: Option<String>,
    pub serde: Option<String>,
    pub serde_props: Vec<(String, String)>,
    pub columns: Option<Vec<String>>,
    pub format: String,
    pub limit: Option<u64>,
    pub raw: bool,
    /// `scan`: threads that decode an RCFile row group's columns, or read a local TsFile's
    /// devices (default: the machine's cores).
    pub threads: Option<usize>,
    pub time_zone: Option<String>,
    pub calendar: Option<String>,
    /// TsFile: the table to read.
    pub table: Option<String>,
    /// TsFile: the time range to read (inclusive).
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// TsFile: `--tag col=value` filters (AND-ed), `--where` expression, `--offset`, and
    /// `--explain` (the pruning report on stderr).
    pub tags: Vec<(String, String)>,
    pub filter: Option<String>,
    pub offset: Option<u64>,
    pub explain: bool,
    /// `--max-alloc` and the other [`LIMIT_FLAGS`].
    pub limits: Limits,
    /// `cat --format csv` (and `convert`'s CSV input and output): [`CSV_FLAGS`].
    pub csv: CsvOptions,
    /// `scan`: `Some(true)` for `--progress`, `Some(false)` for `--no-progress`.
    pub progress: Option<bool>,
    /// TsFile: `--no-mods`, return the stored points without IoTDB's deletions.
    pub no_mods: bool,
    /// `--no-merge`: an IoTDB data directory read file by file, not as one dataset.
    pub no_merge: bool,
}

/// Flags of the read commands (`cat`, `scan`, `verify`, `recover`) that set [`Limits`]:
/// `--max-alloc BYTES` (one buffer), `--max-decompressed BYTES` (one compressed buffer's
/// output), `--max-row-group-bytes BYTES` (an RCFile row group in total),
/// `--max-chunk-points N` (a TsFile chunk's points). Values take a K, M, G or T suffix
/// (powers of 1024).
pub const LIMIT_FLAGS: [&str; 4] = [
    "max-alloc",
    "max-decompressed",
    "max-row-group-bytes",
    "max-chunk-points",
];

/// `64M`, `1G`, `4096`, `2KiB`: a count with an optional binary suffix.
pub fn parse_size(s: &str) -> Option<usize> {
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 10),
        (i, 'm' | 'M') => (&t[..i], 20),
        (i, 'g' | 'G') => (&t[..i], 30),
        (i, 't' | 'T') => (&t[..i], 40),
        _ => (t, 0),
    };
    let n: usize = digits.parse().ok()?;
    n.checked_mul(1usize.checked_shl(shift)?)
}

/// Applies `--flag VALUE`, one of [`LIMIT_FLAGS`], to `limits`.
pub fn set_limit(limits: &mut Limits, flag: &str, value: OsString) -> Result<(), Failure> {
    let v = string(value)?;
    let n = parse_size(&v).ok_or_else(|| {
        Failure::usage(format!(
            "--{flag} wants a number with an optional K, M, G or T suffix, got {v:?}"
        ))
    })?;
    let l = limits.clone();
    *limits = match flag {
        "max-alloc" => l.with_max_alloc_bytes(n),
        "max-decompressed" => l.with_max_decompressed_bytes(n),
        "max-row-group-bytes" => l.with_max_row_group_bytes(n),
        "max-chunk-points" => l.with_max_chunk_points(n),
        _ => return Err(Failure::usage(format!("unknown limit flag --{flag}"))),
    };
    Ok(())
}

fn key_value(s: String, flag: &str) -> Result<(String, String), Failure> {
    match s.split_once('=') {
        Some((k, v)) => Ok((k.to_string(), v.to_string())),
        None => Err(Failure::usage(format!("{flag} wants key=value, got {s:?}"))),
    }
}

fn string(v: OsString) -> Result<String, Failure> {
    v.into_string()
        .map_err(|v| Failure::usage(format!("argument {v:?} is not valid UTF-8")))
}

impl ReadArgs {
    /// `scan`'s threads: `--threads`, else the machine's cores.
    pub fn scan_threads(&self) -> usize {
        self.threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    pub fn parse(args: Vec<OsString>, is_cat: bool) -> Result<Self, Failure> {
        let mut p = lexopt::Parser::from_args(args);
        let mut a = ReadArgs {
            file: PathBuf::new(),
            paths: Vec::new(),
            skip_csv_header: false,
            schema: None,
            serde: None,
            serde_props: Vec::new(),
            columns: None,
            format: "jsonl".into(),
            limit: None,
            raw: false,
            threads: None,
            time_zone: None,
            calendar: None,
            table: None,
            start: None,
            end: None,
            tags: Vec::new(),
            filter: None,
            offset: None,
            explain: false,
            limits: Limits::default(),
            csv: CsvOptions::default(),
            progress: None,
            no_mods: false,
            no_merge: false,
        };
        let mut ddl_serde = None;
        while let Some(arg) = p.next()? {
            match arg {
                Long(f) if LIMIT_FLAGS.contains(&f) => {
                    let f = f.to_string();
                    set_limit(&mut a.limits, &f, p.value()?)?
                }
                Long(f) if is_cat && CSV_FLAGS.contains(&f) => {
                    let f = f.to_string();
                    a.csv.set(&f, || string(p.value()?))?
                }
                Long("schema") => {
                    let (schema, serde) = schema_and_serde("schema", p.value()?)?;
                    a.schema = Some(schema);
                    ddl_serde = serde;
                }
                Long("serde") => a.serde = Some(string(p.value()?)?),
                Long("serde-prop") => a
                    .serde_props
                    .push(key_value(string(p.value()?)?, "--serde-prop")?),
                Long("columns") => {
                    a.columns = Some(
                        string(p.value()?)?
                            .split(',')
                            .map(|s| s.trim().to_string())
                            .collect(),
                    )
                }
                Long("time-zone") => a.time_zone = Some(string(p.value()?)?),
                Long("calendar") => a.calendar = Some(string(p.value()?)?),
                Long("format") if is_cat => a.format = string(p.value()?)?,
                Long("limit") if is_cat => a.limit = Some(p.value()?.parse()?),
                Long("raw") if !is_cat => a.raw = true,
                Long("threads") if !is_cat => a.threads = Some(p.value()?.parse()?),
                Long("table") => a.table = Some(string(p.value()?)?),
                Long("start") => a.start = Some(p.value()?.parse()?),
                Long("end") => a.end = Some(p.value()?.parse()?),
                Long("tag") => a.tags.push(key_value(string(p.value()?)?, "--tag")?),
                Long("where") => a.filter = Some(string(p.value()?)?),
                Long("offset") if is_cat => a.offset = Some(p.value()?.parse()?),
                Long("explain") => a.explain = true,
                Long("no-mods") => a.no_mods = true,
                Long("no-merge") => a.no_merge = true,
                Long("progress") if !is_cat => a.progress = Some(true),
                Long("no-progress") if !is_cat => a.progress = Some(false),
                Value(v) => a.paths.push(PathBuf::from(v)),
                _ => return Err(arg.unexpected().into()),
            }
        }
        a.file = a
            .paths
            .first()
            .cloned()
            .ok_or_else(|| Failure::usage("missing FILE"))?;
        if a.serde.is_none() {
            a.serde = ddl_serde;
        }
        a.csv.check()?;
        if !matches!(a.format.as_str(), "jsonl" | "csv" | "dump") {
            return Err(Failure::usage(format!(
                "--format must be jsonl, csv or dump, not {:?}",
                a.format
            )));
        }
        Ok(a)
    }
}

/// The single FILE argument of `meta` and `schema`.
pub fn file_only(args: Vec<OsString>) -> Result<PathBuf, Failure> {
    let mut p = lexopt::Parser::from_args(args);
    let mut file = None;
    while let Some(arg) = p.next()? {
        match arg {
            Value(v) if file.is_none() => file = Some(PathBuf::from(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    file.ok_or_else(|| Failure::usage("missing FILE"))
}

/// `schema FILE [--format json|ddl]`: the file and whether to print Hive DDL.
pub fn schema_args(args: Vec<OsString>) -> Result<(PathBuf, bool), Failure> {
    let mut p = lexopt::Parser::from_args(args);
    let (mut file, mut ddl) = (None, false);
    while let Some(arg) = p.next()? {
        match arg {
            Long("format") => match string(p.value()?)?.as_str() {
                "json" => ddl = false,
                "ddl" => ddl = true,
                other => {
                    return Err(Failure::usage(format!(
                        "--format must be json or ddl, not {other:?}"
                    )))
                }
            },
            Value(v) if file.is_none() => file = Some(PathBuf::from(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    Ok((file.ok_or_else(|| Failure::usage("missing FILE"))?, ddl))
}

/// Options of `write`.
pub struct WriteArgs {
    pub out: PathBuf,
    pub format: String,
    pub schema: String,
    pub serde: String,
    pub serde_props: Vec<(String, String)>,
    pub codec: String,
    pub row_group_rows: Option<usize>,
    pub row_group_bytes: Option<usize>,
    pub seq_header: bool,
    pub sync: Option<[u8; 16]>,
    pub meta: Vec<(String, String)>,
    pub input: Option<PathBuf>,
    pub validate: bool,
    /// fsync the file before renaming it into place, and its directory after.
    pub fsync: bool,
    /// `Some(true)`: `--progress`, `Some(false)`: `--no-progress`.
    pub progress: Option<bool>,
    pub time_zone: Option<String>,
    pub calendar: Option<String>,
    /// TsFile options.
    pub ts: TsWriteArgs,
}

/// `write --format tsfile` options.
#[derive(Default)]
pub struct TsWriteArgs {
    pub table: Option<String>,
    pub device: Option<String>,
    pub aligned: bool,
    pub spec: Option<PathBuf>,
    pub page_max_points: Option<usize>,
    pub page_max_bytes: Option<usize>,
    pub max_index_degree: Option<usize>,
    pub memory_threshold: Option<usize>,
    pub properties: Vec<(String, String)>,
    pub no_role_masks: bool,
    pub java_profile: bool,
    pub from: Option<PathBuf>,
}

pub(crate) fn parse_sync(s: &str) -> Result<[u8; 16], Failure> {
    let bytes = colfile::rcfile::json::parse_hex(s)
        .filter(|b| b.len() == 16)
        .ok_or_else(|| Failure::usage(format!("--sync wants 32 hex digits, got {s:?}")))?;
    let mut a = [0u8; 16];
    a.copy_from_slice(&bytes);
    Ok(a)
}

impl WriteArgs {
    pub fn parse(args: Vec<OsString>) -> Result<Self, Failure> {
        let mut p = lexopt::Parser::from_args(args);
        let mut out = None;
        let (mut format, mut schema, mut serde, mut codec) = (None, None, None, None);
        let mut ddl_serde = None;
        let mut a = WriteArgs {
            out: PathBuf::new(),
            format: String::new(),
            schema: String::new(),
            serde: String::new(),
            serde_props: Vec::new(),
            codec: String::new(),
            row_group_rows: None,
            row_group_bytes: None,
            seq_header: false,
            sync: None,
            meta: Vec::new(),
            input: None,
            validate: false,
            fsync: false,
            progress: None,
            time_zone: None,
            calendar: None,
            ts: TsWriteArgs::default(),
        };
        while let Some(arg) = p.next()? {
            match arg {
                Long("table") => a.ts.table = Some(string(p.value()?)?),
                Long("device") => a.ts.device = Some(string(p.value()?)?),
                Long("aligned") => a.ts.aligned = true,
                Long("spec") => a.ts.spec = Some(PathBuf::from(p.value()?)),
                Long("from") => a.ts.from = Some(PathBuf::from(p.value()?)),
                Long("page-max-points") => a.ts.page_max_points = Some(p.value()?.parse()?),
                Long("page-max-bytes") => a.ts.page_max_bytes = Some(p.value()?.parse()?),
                Long("max-index-degree") => a.ts.max_index_degree = Some(p.value()?.parse()?),
                Long("memory-threshold") => a.ts.memory_threshold = Some(p.value()?.parse()?),
                Long("property") => {
                    a.ts.properties
                        .push(key_value(string(p.value()?)?, "--property")?)
                }
                Long("no-role-masks") => a.ts.no_role_masks = true,
                Long("profile") => match string(p.value()?)?.as_str() {
                    "java" => a.ts.java_profile = true,
                    "portable" => a.ts.java_profile = false,
                    other => {
                        return Err(Failure::usage(format!(
                            "--profile {other:?}: portable or java"
                        )))
                    }
                },
                Long("format") => format = Some(string(p.value()?)?),
                Long("schema") => {
                    let (text, serde) = schema_and_serde("schema", p.value()?)?;
                    schema = Some(text);
                    ddl_serde = serde;
                }
                Long("serde") => serde = Some(string(p.value()?)?),
                Long("codec") => codec = Some(string(p.value()?)?),
                Long("serde-prop") => a
                    .serde_props
                    .push(key_value(string(p.value()?)?, "--serde-prop")?),
                Long("row-group-rows") => a.row_group_rows = Some(p.value()?.parse()?),
                Long("row-group-bytes") => a.row_group_bytes = Some(p.value()?.parse()?),
                Long("seq-header") => a.seq_header = true,
                Long("sync") => a.sync = Some(parse_sync(&string(p.value()?)?)?),
                Long("meta") => a.meta.push(key_value(string(p.value()?)?, "--meta")?),
                Long("input") => a.input = Some(PathBuf::from(p.value()?)),
                Long("validate") => a.validate = true,
                Long("fsync") => a.fsync = true,
                Long("progress") => a.progress = Some(true),
                Long("no-progress") => a.progress = Some(false),
                Long("time-zone") => a.time_zone = Some(string(p.value()?)?),
                Long("calendar") => a.calendar = Some(string(p.value()?)?),
                Value(v) if out.is_none() => out = Some(PathBuf::from(v)),
                _ => return Err(arg.unexpected().into()),
            }
        }
        a.out = out.ok_or_else(|| Failure::usage("missing OUT"))?;
        a.format = format.unwrap_or_else(|| "rcfile".into());
        match a.format.as_str() {
            "rcfile" => {}
            "tsfile" => {
                let whole_file = a.ts.spec.is_some() || a.ts.from.is_some();
                if !whole_file && a.ts.table.is_none() == a.ts.device.is_none() {
                    return Err(Failure::usage(
                        "write --format tsfile needs --table T or --device PATH (or --spec FILE, or --from TSFILE)",
                    ));
                }
                if whole_file {
                    schema.get_or_insert_with(String::new);
                }
            }
            other => {
                return Err(Failure::usage(format!(
                    "--format {other:?}: rcfile or tsfile"
                )))
            }
        }
        a.schema = schema.ok_or_else(|| Failure::usage("write needs --schema"))?;
        a.serde = serde.or(ddl_serde).unwrap_or_else(|| "binary".into());
        a.codec = codec.unwrap_or_else(|| "none".into());
        if a.input.as_deref() == Some(std::path::Path::new("-")) {
            a.input = None;
        }
        Ok(a)
    }
}
