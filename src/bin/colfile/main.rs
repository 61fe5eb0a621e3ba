//! `colfile`: read, inspect and write columnar files from the command line.
//!
//! ```text
//! colfile cat FILE [--schema S] [--serde text|binary] [--columns a,b] [--format jsonl|csv] [--limit N]
//! colfile scan FILE [--schema S] [--serde text|binary] [--columns a,b] [--raw] [--threads N]
//! colfile meta FILE
//! colfile schema FILE
//! colfile write OUT --format rcfile --schema S --serde text|binary --codec C [options] [--input FILE|-]
//! colfile write OUT --format tsfile --table T --schema 'name:TYPE:CATEGORY[:ENCODING[:COMPRESSION]],...' [--input FILE|-]
//! colfile recover IN OUT [--schema-from FILE]
//! colfile sketch FILE [--format text|json]
//! colfile verify FILE [--max-problems N]
//! (cat, scan, verify, recover: [--max-alloc B] [--max-decompressed B]
//!  [--max-row-group-bytes B] [--max-chunk-points N], B with a K/M/G/T suffix)
//! colfile convert IN OUT [--from FMT] [--to FMT] [input options] [output options] [--progress]
//! colfile sql 'SELECT ...' [NAME=]LOCATION... [options]   (runs colfile-sql, the DataFusion build)
//! ```
//! Errors are one line on stderr and a non-zero exit (1 for bad input or I/O, 2 for usage).

mod args;
mod convert;
mod progress;
mod read_cmds;
mod sql_cmd;
mod ts_tools;
mod tsfile_cmds;
mod tsfile_spec;
mod write_cmd;

use std::process::ExitCode;

const USAGE: &str = "usage: colfile <command> [options]

commands:
  cat FILE     print rows as JSON lines or CSV
               [--schema S] [--serde text|binary] [--serde-prop k=v]... [--columns a,b]
               [--format jsonl|csv] [--limit N] [--time-zone Z] [--calendar proleptic|hybrid]
               TsFile: [--table T] [--columns a,b] [--start T0] [--end T1]
               [--tag col=value]... [--where EXPR] [--offset N] [--explain]
               (EXPR: city = 'x' and (temp > 20 or temp is null); --explain: pruning report on stderr)
               [--format jsonl|csv|dump]   (dump: the official oracle's dump lines)
               limits (cat, scan, verify, recover; suffixes K M G T, powers of 1024):
               [--max-alloc BYTES] [--max-decompressed BYTES] [--max-row-group-bytes BYTES]
               [--max-chunk-points N]   (a file that needs more fails with exit code 1)
  scan FILE    decode every selected value, print a JSON summary
               {\"rows\":N,\"values\":M,\"bytes\":B,\"seconds\":S}  (same options as cat; --raw: cells only)
  meta FILE    JSON of the header and every row group
  schema FILE  what the file says about its columns
  write OUT    --format rcfile --schema S --serde text|binary
               --codec none|deflate|gzip|snappy|lz4|zstd|bzip2 [--row-group-rows N]
               [--row-group-bytes N] [--seq-header] [--sync HEX32] [--meta k=v]...
               [--serde-prop k=v]... [--validate] [--input FILE|-]   (input: JSON lines)
  write ... [--fsync]   (either format: fsync the file and its directory before exiting)
  write OUT    --format tsfile (--table T | --device PATH [--aligned])
               --schema 'name:TYPE:CATEGORY[:ENCODING[:COMPRESSION]],...' [--input FILE|-]
               [--page-max-points N] [--page-max-bytes N] [--max-index-degree N]
               [--memory-threshold BYTES] [--property k=v]... [--no-role-masks]
               [--profile portable|java]   (java: IoTDB's bytes: RLE runs, BOOLEAN RLE, ZSTD 22)
               input rows: [time, v1, v2, ...] in schema order, or {\"time\":t, \"col\":v}
  write OUT    --format tsfile --spec SPEC.json   (the TsFile oracle's spec format)
  write OUT    --format tsfile --from IN.tsfile   (rewrite a TsFile; the options above apply)
  recover IN OUT  TsFile: rebuild a file cut off mid-write from its complete chunk groups
               [--schema-from FILE.tsfile]   (table schemas to use instead of inferred ones)
  sketch FILE  TsFile: physical layout with offsets [--format text|json]
  verify FILE  TsFile: decode every page, check statistics, index and Bloom filter
               [--max-problems N]   (exit 1 and one located line per problem)
  convert IN OUT  between rcfile, tsfile, csv and jsonl (parquet with the parquet feature),
               formats from the extensions (.rc .tsfile .csv .jsonl .parquet), the magic
               bytes, or [--from FMT] [--to FMT]; - is stdin/stdout for csv and jsonl
               input: cat's options (--schema --serde --serde-prop --time-zone --calendar;
               TsFile: --table --columns --start --end --tag --where); CSV/JSONL input
               needs --schema (Hive types, or name:TYPE:CATEGORY for a TsFile)
               output: [--out-schema S] [--codec C] [--row-group-rows N] [--row-group-bytes N]
               [--out-serde text|binary] [--table T] [--tags a,b] [--time-column NAME]
               [--time-as bigint|timestamp] [--fsync] [--progress|--no-progress]
  sql 'SELECT ...' [NAME=]LOCATION...   SQL over files, directories or globs (each a table)
               [--table T] [--time-unit s|ms|us|ns] [--schema S --serde text|binary]
               [--format table|csv|jsonl] [--partitions N] [--explain]
               (runs colfile-sql from the colfile-datafusion crate:
                cargo build --release -p colfile-datafusion)

The file format is detected from its magic bytes.";

/// A CLI failure: a message and the exit code.
pub struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn usage(m: impl Into<String>) -> Self {
        Failure {
            code: 2,
            message: m.into(),
        }
    }
}

impl From<colfile::Error> for Failure {
    fn from(e: colfile::Error) -> Self {
        Failure {
            code: 1,
            message: e.to_string(),
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure {
            code: 1,
            message: format!("I/O error: {e}"),
        }
    }
}

impl From<lexopt::Error> for Failure {
    fn from(e: lexopt::Error) -> Self {
        Failure::usage(e.to_string())
    }
}

fn run() -> Result<(), Failure> {
    let mut argv = std::env::args_os().skip(1);
    let cmd = match argv.next() {
        Some(c) => c.to_string_lossy().into_owned(),
        None => return Err(Failure::usage(USAGE)),
    };
    let rest: Vec<std::ffi::OsString> = argv.collect();
    match cmd.as_str() {
        "cat" => read_cmds::cat(args::ReadArgs::parse(rest, true)?),
        "scan" => read_cmds::scan(args::ReadArgs::parse(rest, false)?),
        "meta" => read_cmds::meta(args::file_only(rest)?),
        "schema" => read_cmds::schema(args::file_only(rest)?),
        "write" => write_cmd::write(args::WriteArgs::parse(rest)?),
        "recover" => ts_tools::recover(rest),
        "sketch" => ts_tools::sketch_cmd(rest),
        "verify" => ts_tools::verify(rest),
        "convert" => convert::convert(convert::ConvertArgs::parse(rest)?),
        "sql" => sql_cmd::sql(rest),
        "-h" | "--help" | "help" => out_line(USAGE),
        "-V" | "--version" => out_line(format_args!("colfile {}", env!("CARGO_PKG_VERSION"))),
        other => Err(Failure::usage(format!(
            "unknown command {other:?}\n{USAGE}"
        ))),
    }
}

/// Prints one line to stdout. Unlike `println!`, a closed pipe (`colfile meta F | head`) is
/// an error that `main` treats as a quiet success, not a panic.
pub fn out_line(line: impl std::fmt::Display) -> Result<(), Failure> {
    use std::io::Write;
    writeln!(std::io::stdout().lock(), "{line}")?;
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            // Broken pipe (e.g. `colfile cat | head`) is not an error worth reporting.
            if f.message.contains("Broken pipe") {
                return ExitCode::SUCCESS;
            }
            let first = f.message.lines().next().unwrap_or("").to_string();
            if f.code == 2 && f.message.contains('\n') {
                eprintln!("colfile: {}", f.message);
            } else {
                eprintln!("colfile: error: {first}");
            }
            ExitCode::from(f.code)
        }
    }
}
