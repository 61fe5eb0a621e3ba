//! The help of the commands that write (`write`, `convert`) and of `sql`, kept apart from
//! help.rs only for its length; `help::COMMANDS` lists them with the others.

use crate::help::{Help, Opt, HELP_OPT, PROGRESS, RC_READ, TS_QUERY};

/// `write`'s and `convert`'s RCFile output flags.
const RC_OUT: &[Opt] = &[
    (
        "--codec C",
        "none (default), deflate, gzip, snappy, lz4, zstd or bzip2",
    ),
    ("--row-group-rows N", "start a new row group after N rows"),
    (
        "--row-group-bytes N",
        "start a new row group after about N bytes",
    ),
];

const FSYNC: &[Opt] = &[("--fsync", "fsync the file and its directory before exiting")];

pub const WRITE: Help = Help {
    name: "write",
    summary: "write JSON lines as an RCFile or a TsFile (under a temporary name, renamed at the end)",
    usage: &[
        "write OUT [--format rcfile] --schema S [--serde text|binary] [--codec C] [options] [--input FILE|-]",
        "write OUT --format tsfile (--table T | --device PATH [--aligned]) --schema 'name:TYPE:CATEGORY[:ENCODING[:COMPRESSION]],...' [options] [--input FILE|-]",
        "write OUT --format tsfile --spec SPEC.json",
        "write OUT --format tsfile --from IN.tsfile [options]",
    ],
    options: &[
        (
            "",
            &[
                ("--format rcfile|tsfile", "the output format (default rcfile)"),
                (
                    "--schema S",
                    "RCFile: name:type,... or Hive DDL 'a int, b array<string>' (Hive types; @FILE: \
                     from a file, a CREATE TABLE statement too); TsFile: \
                     name:TYPE:CATEGORY[:ENCODING[:COMPRESSION]],...",
                ),
                ("--input FILE|-", "the JSON lines to write (default and -: stdin)"),
            ],
        ),
        ("", FSYNC),
        ("", PROGRESS),
        (
            "RCFile",
            &[
                ("--serde text|binary", "how cells are encoded (default binary)"),
                ("--serde-prop k=v", "a serde property, repeatable"),
                ("--time-zone Z", "time zone of timestamps"),
                (
                    "--calendar proleptic|hybrid",
                    "how dates count days (hybrid: Hive 2's Julian/Gregorian)",
                ),
            ],
        ),
        ("", RC_OUT),
        (
            "",
            &[
                ("--seq-header", "write the SEQ6 header instead of RCF1"),
                ("--sync HEX32", "the 16-byte sync marker, as 32 hex digits"),
                ("--meta k=v", "a header metadata entry, repeatable"),
                ("--validate", "check every row against the schema as it is written"),
            ],
        ),
        (
            "TsFile",
            &[
                ("--table T", "the table-model table to write"),
                ("--device PATH", "tree model: the device to write (root.sg.d1)"),
                ("--aligned", "tree model: an aligned device"),
                ("--spec SPEC.json", "write the file the TsFile oracle's spec describes"),
                ("--from IN.tsfile", "rewrite a TsFile (the options here apply)"),
                ("--page-max-points N", "points per page at most"),
                ("--page-max-bytes N", "bytes per page at most"),
                ("--max-index-degree N", "children per metadata index node at most"),
                (
                    "--memory-threshold BYTES",
                    "buffered bytes before a chunk group is flushed",
                ),
                ("--property k=v", "a file property, repeatable"),
                ("--no-role-masks", "leave the column role masks out of the schema"),
                (
                    "--profile portable|java",
                    "java: IoTDB's bytes (RLE runs, BOOLEAN RLE, ZSTD 22)",
                ),
            ],
        ),
        ("", HELP_OPT),
    ],
    notes: "Input rows: JSON objects {\"col\":v,...} (RCFile), or for a TsFile \
{\"time\":t,\"col\":v} or [time, v1, v2, ...] in schema order. Prints a JSON summary line. \
The progress display counts input lines (and the percent of an --input file).",
    examples: &[
        "printf '{\"a\":1,\"b\":\"x\"}\\n{\"a\":2,\"b\":\"y\"}\\n' | colfile write /tmp/t.rc --schema 'a:int,b:string' --serde text --codec gzip",
        "printf '{\"a\":1,\"b\":[\"x\"]}\\n' | colfile write /tmp/t.rc --schema 'a INT, b ARRAY<STRING>'",
        "printf '{\"time\":1,\"city\":\"x\",\"temp\":20.5}\\n' | colfile write /tmp/t.tsfile --format tsfile --table weather --schema 'city:STRING:TAG,temp:DOUBLE:FIELD'",
        "colfile write /tmp/java.tsfile --format tsfile --from fixtures/tsfile/basic.tsfile --profile java --fsync",
    ],
    overview: "  write OUT    --format rcfile --schema S --serde text|binary
               --codec none|deflate|gzip|snappy|lz4|zstd|bzip2 [--row-group-rows N]
               [--row-group-bytes N] [--seq-header] [--sync HEX32] [--meta k=v]...
               [--serde-prop k=v]... [--validate] [--input FILE|-]   (input: JSON lines)
  write ... [--fsync]   (either format: fsync the file and its directory before exiting)
  write ... [--progress|--no-progress]   (input lines read, on stderr)
  write OUT    --format tsfile (--table T | --device PATH [--aligned])
               --schema 'name:TYPE:CATEGORY[:ENCODING[:COMPRESSION]],...' [--input FILE|-]
               [--page-max-points N] [--page-max-bytes N] [--max-index-degree N]
               [--memory-threshold BYTES] [--property k=v]... [--no-role-masks]
               [--profile portable|java]   (java: IoTDB's bytes: RLE runs, BOOLEAN RLE, ZSTD 22)
               input rows: [time, v1, v2, ...] in schema order, or {\"time\":t, \"col\":v}
  write OUT    --format tsfile --spec SPEC.json   (the TsFile oracle's spec format)
  write OUT    --format tsfile --from IN.tsfile   (rewrite a TsFile; the options above apply)",
};

pub const CONVERT: Help = Help {
    name: "convert",
    summary: "convert between rcfile, tsfile, csv and jsonl (and parquet, arrow and arrows with the parquet feature)",
    usage: &["convert IN OUT [--from FMT] [--to FMT] [input options] [output options]"],
    options: &[
        (
            "formats (default: from the extensions .rc .tsfile .csv .jsonl .parquet .arrow .feather .arrows, or the magic bytes)",
            &[
                (
                    "--from FMT",
                    "the input's format: rcfile, tsfile, csv, jsonl, parquet, arrow (IPC file), arrows (IPC stream)",
                ),
                ("--to FMT", "the output's format"),
            ],
        ),
        (
            "input (as cat; CSV/JSONL input needs --schema: Hive types, or name:TYPE:CATEGORY for a TsFile)",
            RC_READ,
        ),
        (
            "CSV input and output (both, when converting CSV to CSV)",
            crate::help::CSV_OPTS,
        ),
        ("TsFile input (--table also names the output table)", TS_QUERY),
        (
            "output",
            &[
                (
                    "--out-schema S",
                    "the output's schema in write's --schema syntax",
                ),
                (
                    "--out-serde text|binary",
                    "RCFile output serde (default: --serde, else binary)",
                ),
                (
                    "--sync HEX32",
                    "RCFile output: the 16-byte sync marker, as 32 hex digits (default: random)",
                ),
            ],
        ),
        ("", RC_OUT),
        (
            "",
            &[
                ("--tags a,b", "TsFile output: the TAG columns"),
                (
                    "--keep-encodings",
                    "tree-model TsFile to TsFile (v3 to v4): keep encodings the official C++ \
                     reader cannot read (FLOAT/DOUBLE RLE, ...); by default they become the \
                     type's portable default",
                ),
                ("--time-column NAME", "TsFile output: the time column (default time)"),
                (
                    "--memory-threshold BYTES",
                    "TsFile output: buffered bytes before a chunk group is flushed (what the \
                     writer holds; as write's)",
                ),
                (
                    "--time-as bigint|timestamp",
                    "RCFile output from a TsFile: time as bigint ms or Hive timestamp",
                ),
                (
                    "--timestamp-unit s|ms|us|ns",
                    "Parquet/Arrow output: the unit of timestamp columns (default: ns for Hive, ms for TsFile); values rescaled, rounding down",
                ),
            ],
        ),
        ("", FSYNC),
        ("", PROGRESS),
        ("", HELP_OPT),
    ],
    notes: "- is stdin/stdout for csv and jsonl. Arrow IPC (.arrow and .feather: the file \
format; .arrows: the stream format) holds the same batches as Parquet, unions included.",
    examples: &[
        "colfile convert fixtures/tsfile/basic.tsfile /tmp/basic.rc --codec zstd",
        "colfile convert fixtures/tsfile/basic.tsfile /tmp/basic.arrows --timestamp-unit us",
        "colfile convert fixtures/tsfile/basic.tsfile - --to csv --tag city=beijing",
        "colfile convert fixtures/tsfile/basic.tsfile /tmp/basic.jsonl --no-progress",
        "colfile convert fixtures/tsfile/basic.tsfile /tmp/basic.csv --delimiter ';' --null NULL",
        "colfile convert /tmp/basic.csv /tmp/basic.rc --delimiter ';' --null NULL --schema 'table string, time bigint, city string, station string, temp double, count bigint, status string'",
    ],
    overview: "  convert IN OUT  between rcfile, tsfile, csv and jsonl (parquet, arrow, arrows with the
               parquet feature), formats from the extensions (.rc .tsfile .csv .jsonl
               .parquet .arrow .feather .arrows), the magic
               bytes, or [--from FMT] [--to FMT]; - is stdin/stdout for csv and jsonl
               input: cat's options (--schema --serde --serde-prop --time-zone --calendar;
               TsFile: --table --columns --start --end --tag --where); CSV/JSONL input
               needs --schema (Hive types, or name:TYPE:CATEGORY for a TsFile)
               CSV in and out: [--delimiter C] [--quote C] [--no-header] [--null STR]
               output: [--out-schema S] [--codec C] [--row-group-rows N] [--row-group-bytes N]
               [--out-serde text|binary] [--sync HEX32] [--table T] [--tags a,b]
               [--time-column NAME] [--time-as bigint|timestamp] [--timestamp-unit s|ms|us|ns]
               [--fsync] [--progress|--no-progress]",
};

pub const SQL: Help = Help {
    name: "sql",
    summary: "SQL over files, directories or globs, each a table (runs colfile-sql, the DataFusion build)",
    usage: &["sql 'SELECT ...' [NAME=]LOCATION... [options]"],
    options: &[
        (
            "",
            &[
                (
                    "--table T",
                    "a TsFile table, or for tree-model files a path prefix (root.sg1) whose devices form the table",
                ),
                ("--time-unit s|ms|us|ns", "the unit of TsFile times"),
                (
                    "--schema S",
                    "RCFile: the table's Hive schema, name:type,... or Hive DDL (@FILE: from a \
                     file, a CREATE TABLE too)",
                ),
                ("--serde text|binary", "RCFile: how cells are encoded"),
                ("--format table|csv|jsonl", "how to print the result (default table)"),
                ("--partitions N", "DataFusion's target partitions"),
                ("--explain", "print the plan instead of running the query"),
                (
                    "--trust-statistics",
                    "answer count/min/max from TsFile statistics and skip pages by them \
                     (faster, wrong where statistics disagree with the values)",
                ),
                crate::help::MODS,
                crate::help::NO_MERGE,
            ],
        ),
        ("", PROGRESS),
        ("", HELP_OPT),
    ],
    notes: "LOCATION (a file, a directory or a glob) becomes table NAME (default: the file or \
directory name). The SQL may hold several statements separated by ';' (CREATE EXTERNAL TABLE \
... STORED AS TSFILE|RCFILE LOCATION '...' defines a table); the last one's result is printed.
Needs colfile-sql ($COLFILE_SQL, next to colfile, or on PATH): \
cargo build --release -p colfile-datafusion",
    examples: &[
        "colfile sql 'SELECT city, avg(temp) FROM basic GROUP BY city' fixtures/tsfile/basic.tsfile",
        "colfile sql 'SELECT count(*) FROM w' w=fixtures/tsfile/basic.tsfile --trust-statistics --format jsonl",
        "colfile sql 'SELECT * FROM t LIMIT 3' t=fixtures/tsfile/tree_basic.tsfile --table root",
    ],
    overview: "  sql 'SELECT ...' [NAME=]LOCATION...   SQL over files, directories or globs (each a table)
               [--table T] [--time-unit s|ms|us|ns] [--schema S --serde text|binary]
               [--format table|csv|jsonl] [--partitions N] [--explain] [--progress|--no-progress]
               [--trust-statistics] [--no-mods] [--no-merge]
               (runs colfile-sql from the colfile-datafusion crate:
                cargo build --release -p colfile-datafusion)",
};
