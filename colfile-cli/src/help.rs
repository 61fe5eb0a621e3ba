//! The help texts: one [`Help`] per command, from which both `colfile <command> --help`
//! and the overall usage (`colfile --help`) are printed. Each entry's `options` must list
//! every flag that command's parser (args.rs, convert/args.rs, ts_tools.rs, sql_cmd.rs)
//! accepts; the examples run from the repository root, on the shipped fixtures.

/// One option: its syntax and a short explanation.
pub type Opt = (&'static str, &'static str);

/// The help of one command.
pub struct Help {
    pub name: &'static str,
    /// One line: what the command does.
    pub summary: &'static str,
    /// The usage lines, without the leading `colfile `.
    pub usage: &'static [&'static str],
    /// Groups of options, each under a heading.
    pub options: &'static [(&'static str, &'static [Opt])],
    /// Anything worth knowing that is not an option.
    pub notes: &'static str,
    /// Command lines that run from the repository root.
    pub examples: &'static [&'static str],
    /// The command's entry in the overall usage.
    pub overview: &'static str,
}

pub const HELP_OPT: &[Opt] = &[("-h, --help", "print this help and exit")];

/// `cat`'s, `head`'s and `scan`'s way of reading an RCFile (RCFile stores no column types).
pub const RC_READ: &[Opt] = &[
    (
        "--schema S",
        "column names and Hive types: name:type,... or Hive DDL 'a string, b array<int>' \
         (RCFile; TsFile: ignored)",
    ),
    (
        "--schema @FILE",
        "the schema from FILE: either form, or a whole CREATE TABLE statement",
    ),
    (
        "--serde text|binary",
        "how the RCFile's cells are encoded (without --schema: raw cells as escaped text, \
         with a warning)",
    ),
    ("--serde-prop k=v", "a serde property, repeatable"),
    ("--columns a,b", "only these columns, in this order"),
    (
        "--time-zone Z",
        "time zone of timestamps (e.g. UTC, Asia/Shanghai)",
    ),
    (
        "--calendar proleptic|hybrid",
        "how dates count days (hybrid: Hive 2's Julian/Gregorian)",
    ),
];

/// The TsFile query flags `cat`, `scan` and `convert` share.
pub const TS_QUERY: &[Opt] = &[
    (
        "--table T",
        "the table to read (tree model: the leading path nodes, e.g. root.sg1)",
    ),
    ("--start T0", "first time to read (inclusive, file's unit)"),
    ("--end T1", "last time to read (inclusive)"),
    (
        "--tag col=value",
        "only rows whose tag equals value, repeatable (AND)",
    ),
    (
        "--where EXPR",
        "row filter: city = 'x' and (temp > 20 or temp is null)",
    ),
    MODS,
];

/// `--no-merge`: a directory laid out as IoTDB writes data is read as one merged dataset
/// unless told not to (dataset_cmd.rs).
pub const NO_MERGE: Opt = (
    "--no-merge",
    "an IoTDB data directory (sequence/, unsequence/): its files one by one, not merged",
);

const DATASET: &[Opt] = &[NO_MERGE];

/// `--no-mods`: every TsFile reading command applies IoTDB's deletions unless told not to.
pub const MODS: Opt = (
    "--no-mods",
    "ignore IoTDB deletions (FILE.mods, FILE.mods2): every stored point",
);

/// The CSV flags of `csv_opts::CSV_FLAGS` (`cat`, `head`, `convert`).
pub const CSV_OPTS: &[Opt] = &[
    (
        "--delimiter C",
        "field separator: one character, or tab (also '\\t'), comma, semicolon, pipe, space \
         (default ,)",
    ),
    ("--quote C", "quote character (default \")"),
    (
        "--no-header",
        "no header line: not written; reading, the columns come from --schema",
    ),
    (
        "--null STR",
        "text of a null cell (default: empty); reading, a cell of exactly STR is null",
    ),
];

const EXPLAIN: &[Opt] = &[("--explain", "print the pruning report on stderr")];

/// `--progress` and `--no-progress`, the flags of the long commands (progress.rs).
pub const PROGRESS: &[Opt] = &[
    (
        "--progress",
        "show progress on stderr (default: when a terminal)",
    ),
    ("--no-progress", "never show progress"),
];

/// The limit flags of `args::LIMIT_FLAGS`.
pub const LIMITS: &[Opt] = &[
    (
        "--max-alloc BYTES",
        "largest single buffer the reader allocates",
    ),
    (
        "--max-decompressed BYTES",
        "largest output of one compressed buffer",
    ),
    (
        "--max-row-group-bytes BYTES",
        "largest RCFile row group in total",
    ),
    ("--max-chunk-points N", "most points in one TsFile chunk"),
];

/// Every command, in the order of the overall usage.
pub const COMMANDS: &[Help] = &[
    Help {
        name: "cat",
        summary: "print rows as JSON lines or CSV",
        usage: &["cat FILE|DIR... [options]"],
        options: &[
            ("reading an RCFile", RC_READ),
            (
                "output",
                &[
                    (
                        "--format jsonl|csv|dump",
                        "JSON lines (default), CSV, or the TsFile oracle's dump lines",
                    ),
                    ("--limit N", "print at most N rows"),
                    ("--offset N", "TsFile: skip the first N rows"),
                ],
            ),
            ("CSV output", CSV_OPTS),
            ("TsFile", TS_QUERY),
            ("", DATASET),
            ("", EXPLAIN),
            ("limits", LIMITS),
            ("", HELP_OPT),
        ],
        notes: "Several FILEs, or a DIR (its .rc, .rcfile and .tsfile files, recursively, in \
name order, skipping names that start with . or _ such as Hive's _SUCCESS): their rows one \
after the other, read with the same options; CSV has one header, --limit counts over all \
files, --offset applies to each.
An IoTDB data directory (holding sequence/ or unsequence/, or a database, region or partition \
folder inside one) is one dataset: its live TsFiles merged device by device as IoTDB answers \
(unsequence over sequence, then the higher version; .resource time ranges skip files; each \
file's .mods applied); CSV then needs --columns; --no-merge reads its files one by one.
A FILE may be a URL (s3://, gs://, az://, http(s)://, file://), read by range requests with \
the credentials and endpoint of the environment (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, \
AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ALLOW_HTTP, and the GOOGLE_/AZURE_ equivalents).
Limits take a K, M, G or T suffix (powers of 1024); a file that needs more fails with exit \
code 1.
--schema takes Hive's DDL column form ('id bigint, tags array<string>, price decimal(10,2)': \
backquoted names, types in any case, COMMENT clauses skipped) as well as name:type; @FILE \
reads it from a file, which may hold a whole CREATE [EXTERNAL] TABLE statement (its column \
list is used; PARTITIONED BY columns are not stored in the files and are left out; without \
--serde, its ROW FORMAT SERDE ColumnarSerDe or LazyBinaryColumnarSerDe sets the serde).
CSV has one header: a TsFile whose selected tables or devices have different columns fails \
before printing anything (pick one with --table or --columns); nested Hive values are written \
as their JSON text.",
        examples: &[
            "colfile cat fixtures/tsfile/basic.tsfile --limit 3",
            "colfile cat fixtures/tsfile/basic.tsfile fixtures/tsfile/tree_basic.tsfile --limit 12",
            "colfile cat fixtures/tsfile/basic.tsfile --tag city=beijing --format csv",
            "colfile cat fixtures/tsfile/basic.tsfile --format csv --delimiter ';' --null NULL",
            "colfile cat fixtures/rcfile/nested_binary.rc --schema 'aa array<array<int>>, m map<string,array<struct<p:int,q:map<int,string>>>>, s struct<a:struct<b:struct<c:array<string>>>>, u uniontype<int,string,array<int>,struct<x:double>>, mm map<int,map<string,boolean>>'",
            "colfile cat fixtures/rcfile/edge_values_text.rc --limit 2 --max-alloc 64M",
        ],
        overview: "  cat FILE|DIR...  print rows as JSON lines or CSV (several files: one after the other)
               [--schema S] [--serde text|binary] [--serde-prop k=v]... [--columns a,b]
               [--format jsonl|csv] [--limit N] [--time-zone Z] [--calendar proleptic|hybrid]
               (S: name:type,... or Hive DDL 'a string, b array<int>'; @FILE: from a file,
               a CREATE TABLE statement too)
               CSV: [--delimiter C] [--quote C] [--no-header] [--null STR]
               TsFile: [--table T] [--columns a,b] [--start T0] [--end T1]
               [--tag col=value]... [--where EXPR] [--offset N] [--explain]
               (EXPR: city = 'x' and (temp > 20 or temp is null); --explain: pruning report on stderr)
               [--format jsonl|csv|dump]   (dump: the official oracle's dump lines)
               limits (cat, head, count, scan, verify, recover; suffixes K M G T, powers of 1024):
               [--max-alloc BYTES] [--max-decompressed BYTES] [--max-row-group-bytes BYTES]
               [--max-chunk-points N]   (a file that needs more fails with exit code 1)",
    },
    Help {
        name: "head",
        summary: "print the first N rows, as `cat --limit N` prints them",
        usage: &["head FILE|DIR... [-n N | --rows N] [options]"],
        options: &[
            (
                "",
                &[("-n N, --rows N", "how many rows to print (default 10)")],
            ),
            ("reading an RCFile", RC_READ),
            (
                "output",
                &[
                    (
                        "--format jsonl|csv|dump",
                        "JSON lines (default), CSV, or the TsFile oracle's dump lines",
                    ),
                    ("--offset N", "TsFile: skip the first N rows"),
                ],
            ),
            ("CSV output", CSV_OPTS),
            ("TsFile", TS_QUERY),
            ("", DATASET),
            ("", EXPLAIN),
            ("limits", LIMITS),
            ("", HELP_OPT),
        ],
        notes: "Takes cat's options but --limit (see colfile cat --help for --schema forms), and \
like cat several FILEs or a DIR (the first N rows of their rows one after the other). Limits \
take a K, M, G or T suffix (powers of \
1024); a file that needs more fails with exit code 1.",
        examples: &[
            "colfile head fixtures/tsfile/basic.tsfile -n 3",
            "colfile head fixtures/rcfile/edge_values_text.rc --rows 2 --format csv",
            "colfile head fixtures/tsfile/basic.tsfile --format csv --delimiter tab --no-header",
        ],
        overview: "  head FILE|DIR...  the first rows, as cat --limit N prints them
               [-n N | --rows N]   (default 10; the other options as cat's, but --limit)",
    },
    Help {
        name: "count",
        summary: "print the number of rows of one or more files",
        usage: &["count FILE|DIR... [--table T] [limits]"],
        options: &[
            (
                "",
                &[
                    (
                        "--table T",
                        "TsFile: count only this table (tree model: the leading path nodes)",
                    ),
                    MODS,
                    NO_MERGE,
                ],
            ),
            ("limits", LIMITS),
            ("", HELP_OPT),
        ],
        notes: "One file: prints N. Several files, or a directory (its .rc, .rcfile and .tsfile \
files, recursively, skipping names that start with . or _): PATH<TAB>N per file, then total<TAB>N. RCFile: the row counts of the row \
groups' key sections (no column is read); TsFile: the rows cat prints (every table and device), \
never the statistics. A file that cannot be read fails with exit code 1 and a located error.",
        examples: &[
            "colfile count fixtures/tsfile/tree_basic.tsfile",
            "colfile count fixtures/tsfile/basic.tsfile fixtures/rcfile/multi_group_text.rc",
        ],
        overview: "  count FILE|DIR...  the number of rows: N for one file, else PATH<TAB>N per file and
               total<TAB>N   [--table T] [limits]   (a directory: its .rc/.rcfile/.tsfile files)",
    },
    Help {
        name: "scan",
        summary: "decode every selected value and print a JSON summary",
        usage: &["scan FILE|DIR... [options]"],
        options: &[
            ("reading an RCFile", RC_READ),
            (
                "scanning",
                &[
                    ("--raw", "read the cells without decoding them"),
                    (
                        "--threads N",
                        "threads decoding an RCFile row group's columns, or reading a local TsFile's devices (default: all cores)",
                    ),
                ],
            ),
            ("TsFile", TS_QUERY),
            ("", DATASET),
            ("", EXPLAIN),
            ("", PROGRESS),
            ("limits", LIMITS),
            ("", HELP_OPT),
        ],
        notes: "Prints {\"rows\":N,\"values\":M,\"bytes\":B,\"seconds\":S}. Several FILEs, or a \
DIR (as cat takes them): PATH<TAB>{...} per file, then total<TAB>{...} with the sums.",
        examples: &[
            "colfile scan fixtures/tsfile/basic.tsfile",
            "colfile scan fixtures/rcfile/edge_values_text.rc --raw --threads 2",
            "colfile scan fixtures/tsfile/basic.tsfile --max-chunk-points 1M",
            "colfile scan fixtures/tsfile/basic.tsfile fixtures/tsfile/tree_basic.tsfile --no-progress",
        ],
        overview: "  scan FILE|DIR...  decode every selected value, print a JSON summary (per file, and a total)
               {\"rows\":N,\"values\":M,\"bytes\":B,\"seconds\":S}  (same options as cat; --raw: cells only)
               [--progress|--no-progress]",
    },
    Help {
        name: "meta",
        summary: "print the header and every row group (RCFile) or the metadata (TsFile) as JSON",
        usage: &["meta FILE"],
        options: &[("", HELP_OPT)],
        notes: "",
        examples: &[
            "colfile meta fixtures/rcfile/edge_values_text.rc",
            "colfile meta fixtures/tsfile/basic.tsfile",
        ],
        overview: "  meta FILE    JSON of the header and every row group",
    },
    Help {
        name: "schema",
        summary: "print what the file says about its columns, as JSON or Hive DDL",
        usage: &["schema FILE [--format json|ddl]"],
        options: &[
            (
                "",
                &[(
                    "--format json|ddl",
                    "JSON (default), or Hive DDL: RCFile, its _colN string columns; TsFile, \
                     a CREATE TABLE per table of what convert makes of it",
                )],
            ),
            ("", HELP_OPT),
        ],
        notes: "The DDL is what --schema @FILE reads. A tree-model TsFile has no tables, so no DDL.",
        examples: &[
            "colfile schema fixtures/tsfile/basic.tsfile",
            "colfile schema fixtures/tsfile/tree_basic.tsfile",
            "colfile schema fixtures/tsfile/basic.tsfile --format ddl",
        ],
        overview: "  schema FILE  what the file says about its columns [--format json|ddl]",
    },
    crate::help_write::WRITE,
    Help {
        name: "recover",
        summary: "rebuild a TsFile cut off mid-write from its complete chunk groups",
        usage: &["recover IN OUT [--schema-from FILE.tsfile] [limits]"],
        options: &[
            (
                "",
                &[(
                    "--schema-from FILE",
                    "take table schemas from this TsFile instead of inferring them",
                )],
            ),
            ("", PROGRESS),
            ("limits", LIMITS),
            ("", HELP_OPT),
        ],
        notes: "OUT must not be IN. Prints one line saying what was kept.",
        examples: &[
            "colfile recover fixtures/bad/tsfile/truncated_mid_chunk.tsfile /tmp/recovered.tsfile",
            "colfile recover fixtures/bad/tsfile/truncated_mid_chunk.tsfile /tmp/recovered.tsfile --schema-from fixtures/tsfile/basic.tsfile",
        ],
        overview: "  recover IN OUT  TsFile: rebuild a file cut off mid-write from its complete chunk groups
               [--schema-from FILE.tsfile]   (table schemas to use instead of inferred ones)
               [--progress|--no-progress]",
    },
    Help {
        name: "sketch",
        summary: "TsFile: print the physical layout with offsets",
        usage: &["sketch FILE [--format text|json]"],
        options: &[
            ("", &[("--format text|json", "text (default) or JSON")]),
            ("", HELP_OPT),
        ],
        notes: "",
        examples: &[
            "colfile sketch fixtures/tsfile/basic.tsfile",
            "colfile sketch fixtures/tsfile/multi_page.tsfile --format json",
        ],
        overview: "  sketch FILE  TsFile: physical layout with offsets [--format text|json]",
    },
    Help {
        name: "mods",
        summary: "IoTDB: print the deletions of a TsFile's .mods/.mods2 files as JSON lines",
        usage: &["mods FILE.tsfile|FILE.mods|FILE.mods2"],
        options: &[("", HELP_OPT)],
        notes: "Given a TsFile, reads FILE.tsfile.mods (IoTDB 0.12-1.3) and FILE.tsfile.mods2 \
                (IoTDB 2.x), both if both exist (nothing printed when neither does); \
                *.compaction.mods* files are ignored. One line a deletion: kind (tree or \
                table), pattern or table/devices/columns, start and end (inclusive) and, from \
                a .mods file, file_offset (it applies to chunks starting before that byte).",
        examples: &[
            "colfile mods fixtures/mods/deletions.tsfile",
            "colfile mods fixtures/mods/deletions.tsfile.mods2",
        ],
        overview: "  mods FILE    IoTDB: deletions of FILE.tsfile.mods/.mods2 as JSON lines",
    },
    Help {
        name: "verify",
        summary: "TsFile: decode every page, check statistics, index and Bloom filter",
        usage: &["verify FILE|DIR... [--max-problems N] [limits]"],
        options: &[
            (
                "",
                &[(
                    "--max-problems N",
                    "stop after N problems (one located line each)",
                )],
            ),
            ("", PROGRESS),
            ("limits", LIMITS),
            ("", HELP_OPT),
        ],
        notes: "A sound file prints one summary line; otherwise one line per problem and exit code 1. \
Several FILEs, or a DIR (its .tsfile files, recursively, skipping names that start with . or _): \
each file's lines, then total: N file(s), S sound, P with problems; exit code 1 if any has a \
problem or cannot be read.",
        examples: &[
            "colfile verify fixtures/tsfile/basic.tsfile",
            "colfile verify fixtures/tsfile/many_devices.tsfile --max-problems 5 --max-alloc 256M",
            "colfile verify fixtures/tsfile/basic.tsfile fixtures/tsfile/tree_basic.tsfile --progress",
        ],
        overview: "  verify FILE|DIR...  TsFile: decode every page, check statistics, index and Bloom filter
               [--max-problems N]   (exit 1 and one located line per problem)
               [--progress|--no-progress]   (several files: per file, then a total)",
    },
    crate::help_write::CONVERT,
    crate::help_write::SQL,
    crate::shell_docs::COMPLETIONS,
    crate::shell_docs::MAN,
];

/// The help of `name`, if it is a command.
pub fn find(name: &str) -> Option<&'static Help> {
    COMMANDS.iter().find(|h| h.name == name)
}

/// `colfile --help`: every command's overview entry.
pub fn usage() -> String {
    let mut s = String::from("usage: colfile <command> [options]\n\ncommands:\n");
    for h in COMMANDS {
        s.push_str(h.overview);
        s.push('\n');
    }
    s.push_str(
        "\nThe file format is detected from its magic bytes.\n\
         `colfile <command> --help` (or `colfile help <command>`) explains a command's options.",
    );
    s
}

impl Help {
    /// `colfile <command> --help`.
    pub fn render(&self) -> String {
        let mut s = format!("colfile {}: {}\n\nusage:\n", self.name, self.summary);
        for u in self.usage {
            s.push_str(&format!("  colfile {u}\n"));
        }
        s.push_str("\noptions:\n");
        for (heading, opts) in self.options {
            if !heading.is_empty() {
                s.push_str(&format!(" {heading}:\n"));
            }
            for (flag, what) in opts.iter() {
                let indent = format!("\n  {:28}  ", "");
                let what = wrap(what, 60).join(&indent);
                if flag.len() > 28 {
                    s.push_str(&format!("  {flag}{indent}{what}\n"));
                } else {
                    s.push_str(&format!("  {flag:28}  {what}\n"));
                }
            }
        }
        if !self.notes.is_empty() {
            s.push('\n');
            for line in self.notes.lines().flat_map(|l| wrap(l, 90)) {
                s.push_str(&format!("{line}\n"));
            }
        }
        s.push_str("\nexamples:\n");
        for e in self.examples {
            s.push_str(&format!("  {e}\n"));
        }
        s.pop();
        s
    }
}

/// `text` broken at spaces into lines of at most `width` characters (longer words alone).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        match lines.last_mut() {
            Some(l) if l.len() + 1 + word.len() <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// `--help` or `-h` among `args` (before a `--`).
pub fn asked(args: &[std::ffi::OsString]) -> bool {
    args.iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--help" || a == "-h")
}
