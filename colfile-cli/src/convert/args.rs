//! `convert`'s command line: the input options `cat` takes, the output options `write`
//! takes, and the few of its own (formats, type mapping, progress).

use crate::args::ReadArgs;
use crate::Failure;
use lexopt::prelude::*;
use std::ffi::OsString;
use std::path::PathBuf;

pub struct ConvertArgs {
    pub input: PathBuf,
    pub output: PathBuf,
    /// `--from FMT` / `--to FMT`: formats when the names or magic bytes do not say.
    pub from: Option<String>,
    pub to: Option<String>,
    /// The input options, as `cat` takes them (`read.file` is the input).
    pub read: ReadArgs,
    /// `--out-schema`: the output's schema in its `write --schema` syntax, instead of the one
    /// derived from the input.
    pub out_schema: Option<String>,
    /// RCFile output: `--out-serde` (else `--serde`, else binary), `--codec`,
    /// `--row-group-rows`, `--row-group-bytes`.
    pub out_serde: Option<String>,
    pub codec: Option<String>,
    pub row_group_rows: Option<usize>,
    pub row_group_bytes: Option<usize>,
    /// RCFile output: `--sync HEX32`, the sync marker (random by default).
    pub sync: Option<[u8; 16]>,
    /// TsFile output: `--tags a,b` (TAG columns), `--time-column NAME` (default `time`).
    pub tags: Vec<String>,
    pub time_column: Option<String>,
    /// RCFile output from TsFile: the time (and TIMESTAMP fields) as Hive timestamps, not
    /// bigint milliseconds.
    pub time_as_timestamp: bool,
    pub fsync: bool,
    /// `--keep-encodings`: a tree TsFile copy keeps every encoding.
    pub keep_encodings: bool,
    /// `--memory-threshold`: TsFile output's buffered bytes before a chunk group is flushed.
    pub memory_threshold: Option<usize>,
    /// `Some(true)`: `--progress`, `Some(false)`: `--no-progress`.
    pub progress: Option<bool>,
    /// Parquet and Arrow output: `--timestamp-unit s|ms|us|ns`, the unit of timestamp
    /// columns (default: the reader's, nanoseconds for Hive and milliseconds for TsFile).
    pub timestamp_unit: Option<String>,
}

fn string(v: OsString) -> Result<String, Failure> {
    v.into_string()
        .map_err(|v| Failure::usage(format!("argument {v:?} is not valid UTF-8")))
}

fn list(s: &str) -> Vec<String> {
    s.split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

impl ConvertArgs {
    pub fn parse(args: Vec<OsString>) -> Result<Self, Failure> {
        // The input options are `cat`'s: collect them and let `ReadArgs` parse them.
        let mut read_args: Vec<OsString> = Vec::new();
        let mut p = lexopt::Parser::from_args(args);
        let mut files: Vec<PathBuf> = Vec::new();
        let mut a = ConvertArgs {
            input: PathBuf::new(),
            output: PathBuf::new(),
            from: None,
            to: None,
            read: ReadArgs::parse(vec!["-".into()], true)?,
            out_schema: None,
            out_serde: None,
            codec: None,
            row_group_rows: None,
            row_group_bytes: None,
            sync: None,
            tags: Vec::new(),
            time_column: None,
            time_as_timestamp: false,
            fsync: false,
            keep_encodings: false,
            memory_threshold: None,
            progress: None,
            timestamp_unit: None,
        };
        while let Some(arg) = p.next()? {
            match arg {
                Long("from") => a.from = Some(string(p.value()?)?),
                Long("to") => a.to = Some(string(p.value()?)?),
                Long("out-schema") => {
                    a.out_schema = Some(crate::schema_arg::schema_arg("out-schema", p.value()?)?)
                }
                Long("out-serde") => a.out_serde = Some(string(p.value()?)?),
                Long("codec") => a.codec = Some(string(p.value()?)?),
                Long("row-group-rows") => a.row_group_rows = Some(p.value()?.parse()?),
                Long("row-group-bytes") => a.row_group_bytes = Some(p.value()?.parse()?),
                Long("sync") => a.sync = Some(crate::args::parse_sync(&string(p.value()?)?)?),
                Long("tags") => a.tags = list(&string(p.value()?)?),
                Long("time-column") => a.time_column = Some(string(p.value()?)?),
                Long("time-as") => match string(p.value()?)?.as_str() {
                    "timestamp" => a.time_as_timestamp = true,
                    "bigint" => a.time_as_timestamp = false,
                    other => {
                        return Err(Failure::usage(format!(
                            "--time-as {other:?}: bigint or timestamp"
                        )))
                    }
                },
                Long("fsync") => a.fsync = true,
                Long("keep-encodings") => a.keep_encodings = true,
                Long("memory-threshold") => a.memory_threshold = Some(p.value()?.parse()?),
                Long("progress") => a.progress = Some(true),
                Long("no-progress") => a.progress = Some(false),
                Long("no-header") => read_args.push("--no-header".into()),
                Long("no-mods") => read_args.push("--no-mods".into()),
                Long("timestamp-unit") => {
                    let u = string(p.value()?)?;
                    if !matches!(u.as_str(), "s" | "ms" | "us" | "ns") {
                        return Err(Failure::usage(format!(
                            "--timestamp-unit {u:?}: s, ms, us or ns"
                        )));
                    }
                    a.timestamp_unit = Some(u);
                }
                Long(
                    name @ ("schema" | "serde" | "serde-prop" | "columns" | "time-zone"
                    | "calendar" | "table" | "start" | "end" | "tag" | "where"
                    | "delimiter" | "quote" | "null"),
                ) => {
                    let flag = format!("--{name}");
                    read_args.push(flag.into());
                    read_args.push(p.value()?);
                }
                Value(v) if files.len() < 2 => files.push(PathBuf::from(v)),
                _ => return Err(arg.unexpected().into()),
            }
        }
        let [input, output] = <[PathBuf; 2]>::try_from(files)
            .map_err(|_| Failure::usage("convert needs IN and OUT"))?;
        read_args.push(input.clone().into_os_string());
        a.read = ReadArgs::parse(read_args, true)?;
        a.input = input;
        a.output = output;
        Ok(a)
    }
}
