//! `colfile`: read, inspect and write columnar files from the command line.
//!
//! ```text
//! colfile cat FILE|DIR... [--schema S] [--serde text|binary] [--columns a,b] [--format jsonl|csv] [--limit N]
//! colfile head FILE|DIR... [-n N | --rows N] [cat's options but --limit]
//! colfile count FILE|DIR... [--table T]
//! colfile scan FILE|DIR... [--schema S] [--serde text|binary] [--columns a,b] [--raw] [--threads N]
//! colfile meta FILE
//! colfile schema FILE [--format json|ddl]
//! colfile write OUT --format rcfile --schema S --serde text|binary --codec C [options] [--input FILE|-]
//! colfile write OUT --format tsfile --table T --schema 'name:TYPE:CATEGORY[:ENCODING[:COMPRESSION]],...' [--input FILE|-]
//! colfile recover IN OUT [--schema-from FILE]
//! colfile sketch FILE [--format text|json]
//! colfile verify FILE|DIR... [--max-problems N]
//! colfile mods FILE.tsfile|FILE.mods|FILE.mods2   (IoTDB deletions as JSON lines)
//! (write, scan, verify, recover, convert, sql: [--progress|--no-progress]; multi.rs: directories)
//! (cat, head, count, scan, verify, recover: [--max-alloc B] [--max-decompressed B]
//!  [--max-row-group-bytes B] [--max-chunk-points N], B with a K/M/G/T suffix)
//! colfile convert IN OUT [--from FMT] [--to FMT] [input options] [output options] [--timestamp-unit U]
//! colfile sql 'SELECT ...' [NAME=]LOCATION... [options]   (runs colfile-sql, the DataFusion build)
//! (cat, head, convert: [--delimiter C] [--quote C] [--no-header] [--null STR], csv_opts.rs)
//! (--schema S: name:type,... or Hive DDL, or @FILE holding either or a CREATE TABLE; schema_arg.rs)
//! colfile completions bash|zsh|fish    (shell_docs.rs)
//! colfile man                          (man_page.rs)
//! ```
//! `colfile <command> --help` (or `-h`, or `colfile help <command>`) prints that command's
//! help (help.rs). Errors are one line on stderr and a non-zero exit (1 for bad input or I/O, 2 for usage).

#![forbid(unsafe_code)]

mod args;
mod convert;
mod csv_opts;
mod csv_shape;
mod dataset_cmd;
mod head_count;
mod help;
mod help_write;
mod input;
mod json_lines;
mod man_page;
mod mods_cmd;
mod multi;
mod progress;
mod raw_text;
mod read_cmds;
mod schema_arg;
mod shell_docs;
mod sql_cmd;
mod ts_ingest;
mod ts_open;
mod ts_rows;
mod ts_tools;
mod tsfile_cmds;
mod tsfile_spec;
mod write_cmd;

use std::process::ExitCode;

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
        None => return Err(Failure::usage(help::usage())),
    };
    let rest: Vec<std::ffi::OsString> = argv.collect();
    if let Some(h) = help::find(&cmd).filter(|_| help::asked(&rest)) {
        return out_line(h.render());
    }
    match cmd.as_str() {
        "cat" => multi::cat(args::ReadArgs::parse(rest, true)?),
        "head" => head_count::head(rest),
        "count" => head_count::count(rest),
        "scan" => multi::scan(args::ReadArgs::parse(rest, false)?),
        "meta" => read_cmds::meta(args::file_only(rest)?),
        "schema" => {
            let (file, ddl) = args::schema_args(rest)?;
            read_cmds::schema(file, ddl)
        }
        "write" => write_cmd::write(args::WriteArgs::parse(rest)?),
        "recover" => ts_tools::recover(rest),
        "sketch" => ts_tools::sketch_cmd(rest),
        "verify" => ts_tools::verify(rest),
        "mods" => mods_cmd::mods(rest),
        "convert" => convert::convert(convert::ConvertArgs::parse(rest)?),
        "sql" => sql_cmd::sql(rest),
        "completions" => shell_docs::completions(rest),
        "man" => shell_docs::man(rest),
        "-h" | "--help" => out_line(help::usage()),
        "help" => match rest.first().map(|c| c.to_string_lossy()) {
            None => out_line(help::usage()),
            Some(c) => match help::find(&c) {
                Some(h) => out_line(h.render()),
                None => Err(Failure::usage(format!(
                    "help: unknown command {c:?}\n{}",
                    help::usage()
                ))),
            },
        },
        "-V" | "--version" => out_line(format_args!("colfile {}", env!("CARGO_PKG_VERSION"))),
        other => Err(Failure::usage(format!(
            "unknown command {other:?}\n{}",
            help::usage()
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
