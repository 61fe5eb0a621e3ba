//! The corpus of damaged files in `fixtures/bad/`: each is read fully and must fail with its
//! own specific, located error (kind, message and location, from the tables below). The
//! files are made by `bad_fixtures/gen.rs` and must stay byte-equal to what it makes; a file
//! without a table entry, or an entry without a file, fails the guard test.

use colfile_testkit as common;

#[path = "bad_fixtures/expect.rs"]
mod expect;
#[path = "bad_fixtures/gen.rs"]
mod gen;
#[path = "bad_fixtures/mods_gen.rs"]
mod mods_gen;
#[path = "bad_fixtures/mods_table.rs"]
mod mods_table;
#[path = "bad_fixtures/rc_gen.rs"]
mod rc_gen;
#[path = "bad_fixtures/ts_data_gen.rs"]
mod ts_data_gen;
#[path = "bad_fixtures/ts_gen.rs"]
mod ts_gen;
#[path = "bad_fixtures/v3_gen.rs"]
mod v3_gen;
#[path = "bad_fixtures/v3_table.rs"]
mod v3_table;
#[path = "tsfile_v3/gen.rs"]
mod v3_writer;

use colfile::rcfile::{ColumnBatch, RcFileReader, RowReader, Schema, Serde};
use colfile::tsfile::mods::Modifications;
use colfile::tsfile::{verify, VerifyOptions};
use colfile::tsfile::{Query, TsFileReader};
use colfile::Limits;
use expect::{expect, Expect, Kind::*, Pos::*};
use gen::{Format, Made};
use std::path::Path;

/// What each file of `fixtures/bad/rcfile/` fails with. `Mark` is the offset (for a
/// damaged cell: the row) that the generator recorded for the damage.
fn rcfile_table() -> Vec<(&'static str, Expect)> {
    let key = "key section";
    vec![
        (
            "empty_file.rc",
            expect(Corrupt, "file is empty").offset(Abs(0)),
        ),
        (
            "bad_magic.rc",
            expect(
                Corrupt,
                r#"not an RCFile: magic bytes 0x58595a01 ("XYZ\x01") are neither "RCF" nor "SEQ""#,
            )
            .offset(Abs(0)),
        ),
        (
            "unknown_version.rc",
            expect(Unsupported, "RCFile version 2").offset(Abs(3)),
        ),
        (
            "truncated_header.rc",
            expect(Truncated, "truncated metadata key")
                .section("header")
                .ends_at_mark(),
        ),
        (
            "seq6_wrong_key_class.rc",
            expect(
                Corrupt,
                "\"org.apache.hadoop.io.Text\" is a SequenceFile, not an RCFile",
            )
            .offset(Abs(4)),
        ),
        (
            "seq6_block_compressed.rc",
            expect(Corrupt, "block-compressed flag is set").offset(Mark),
        ),
        (
            "unknown_codec_name.rc",
            expect(UnknownCodec, "\"org.example.MagicCodec\"")
                .offset(Abs(5))
                .section("header"),
        ),
        (
            "metadata_count_negative.rc",
            expect(Corrupt, "negative metadata entry count -3").offset(Mark),
        ),
        (
            "metadata_count_huge.rc",
            expect(Limit, "metadata entry count is 2147483647").offset(Mark),
        ),
        (
            "metadata_string_length_huge.rc",
            expect(Limit, "metadata key is 2147483647")
                .offset(Mark)
                .section("header"),
        ),
        (
            "column_count_not_a_number.rc",
            expect(
                Corrupt,
                "hive.io.rcfile.column.number is \"eleven\", not a number",
            )
            .section("header"),
        ),
        (
            "column_count_mismatch.rc",
            expect(Truncated, "truncated VLong")
                .section(key)
                .offset(Mark)
                .row_group(0)
                .column(11),
        ),
        (
            "sync_marker_damaged.rc",
            expect(Corrupt, "sync marker does not match")
                .offset(Mark)
                .row_group(1),
        ),
        (
            "record_length_negative.rc",
            expect(Corrupt, "negative row group lengths (record -7")
                .offset(Mark)
                .row_group(0),
        ),
        (
            "key_length_exceeds_record.rc",
            expect(Corrupt, "exceeds record length")
                .offset(Mark)
                .row_group(0),
        ),
        (
            "compressed_key_length_mismatch.rc",
            expect(Corrupt, "uncompressed file with key length")
                .offset(Mark)
                .row_group(0),
        ),
        (
            "truncated_mid_row_group.rc",
            expect(Truncated, "truncated row group")
                .offset(Mark)
                .row_group(2),
        ),
        (
            "key_row_count_negative.rc",
            expect(Corrupt, "negative row count -5")
                .section(key)
                .offset(Mark)
                .row_group(0),
        ),
        (
            "key_section_truncated.rc",
            expect(Truncated, "truncated cell lengths")
                .section(key)
                .offset(Mark)
                .row_group(0)
                .column(10),
        ),
        (
            "column_length_past_record.rc",
            expect(Corrupt, "column lengths add up to")
                .section(key)
                .offset(Mark)
                .row_group(0),
        ),
        (
            "decompression_bomb_key_section.rc",
            expect(
                Limit,
                "decompressed size for the compressed length is 67108864",
            )
            .section(key)
            .offset(Mark)
            .row_group(0),
        ),
        garbage("deflate", expect(Codec, "deflate codec error"), 19),
        garbage("gzip", expect(Corrupt, "corrupt gzip data: bad magic"), 19),
        garbage("snappy", expect(Codec, "snappy codec error"), 19),
        garbage("lz4", expect(Codec, "lz4 codec error"), 19),
        garbage("bzip2", expect(Codec, "bzip2 codec error"), 19),
        (
            "binary_serde_varint_overflow.rc",
            expect(Corrupt, "VInt 4294967295 does not fit in 32 bits")
                .section("cell")
                .row_group(0)
                .column(2)
                .row_at_mark(),
        ),
        (
            "nulled_columns_huge_row_count.rc",
            expect(
                Limit,
                "row group decoded size is 114400000610, above the limit of 1073741824",
            )
            .offset(Mark)
            .row_group(0),
        ),
        (
            "zstd_bombs_across_columns.rc",
            expect(
                Limit,
                "row group decoded size is 1258293396, above the limit of 1073741824",
            )
            .offset(Mark)
            .row_group(0),
        ),
    ]
}

fn garbage(codec: &str, e: Expect, column: usize) -> (&'static str, Expect) {
    let name = format!("compressed_column_garbage_{codec}.rc").leak();
    (name, e.offset(Mark).row_group(0).column(column))
}

/// What each file of `fixtures/bad/tsfile/` fails with (the `v3_` files: see
/// [`v3_table::v3_table`]). `Mark` is the offset the generator recorded for the damage,
/// `Chunk` the chunk it is in.
fn tsfile_table() -> Vec<(&'static str, Expect)> {
    let meta = "file metadata";
    let dev = "weather.beijing.d1"; // basic's first device
    let page = |e: Expect, series: &'static str| e.chunk(Chunk).damaged_page().series(series);
    let mut all = vec![
        (
            "bad_head_magic.tsfile",
            expect(
                Corrupt,
                r#"not a TsFile: bad head magic 0x587346696c65 ("XsFile"), expected "TsFile""#,
            )
            .offset(Abs(0)),
        ),
        (
            "wrong_version.tsfile",
            // Byte 3 now means v3: the v4 footer then reads as a v3 one and fails.
            expect(Corrupt, "unknown index node type 110").offset(Abs(875)),
        ),
        (
            "bad_tail_magic.tsfile",
            expect(Corrupt, "bad tail magic").offset(Mark),
        ),
        (
            "truncated_mid_chunk.tsfile",
            expect(Corrupt, "bad tail magic").offset(Mark),
        ),
        (
            "metadata_size_huge.tsfile",
            expect(Corrupt, "file metadata length 2147483647 points outside").offset(Mark),
        ),
        (
            "footer_leftover_bytes.tsfile",
            expect(Corrupt, "3 bytes left over after the file metadata")
                .offset(Mark)
                .section(meta),
        ),
        (
            "table_count_huge.tsfile",
            expect(Limit, "tables is 1000000")
                .offset(Mark)
                .section(meta),
        ),
        (
            "string_length_huge.tsfile",
            expect(Truncated, "table name: needed 2147483647")
                .offset(Mark)
                .section(meta),
        ),
        (
            "device_id_segment_count_huge.tsfile",
            expect(Limit, "device id segments is 1000000")
                .offset(Mark)
                .section(meta),
        ),
        (
            "meta_offset_past_end.tsfile",
            expect(Corrupt, "is outside the file").offset(Mark),
        ),
        (
            "meta_offset_not_separator.tsfile",
            expect(Corrupt, "meta_offset points at 0x00, not the separator").offset(Mark),
        ),
        (
            "bloom_filter_size_huge.tsfile",
            expect(Truncated, "bloom filter bits: needed 1000000")
                .offset(Mark)
                .section(meta),
        ),
        (
            "bloom_filter_bit_count_small.tsfile",
            expect(Corrupt, "bytes for 8 bits")
                .offset(Mark)
                .section(meta),
        ),
        (
            "index_node_type_invalid.tsfile",
            expect(Corrupt, "unknown index node type 9").offset(Mark),
        ),
        (
            "index_node_wrong_level.tsfile",
            expect(
                Corrupt,
                "type LEAF_DEVICE where a measurement-level node belongs",
            )
            .offset(Mark),
        ),
        (
            "index_offset_outside_region.tsfile",
            expect(Corrupt, "is outside the metadata region").offset(Mark),
        ),
        (
            "index_cycle.tsfile",
            expect(Corrupt, "index cycle").offset(Mark).series(dev),
        ),
        (
            "index_too_deep.tsfile",
            expect(Limit, "index depth is 41, above the limit of 40")
                .offset(Mark)
                .series(dev),
        ),
        (
            "statistics_truncated.tsfile",
            expect(Truncated, "truncated").ends_at_mark().series(dev),
        ),
        (
            "chunk_offset_past_end.tsfile",
            expect(Corrupt, "chunk offset is past the end of the file")
                .offset(Mark)
                .chunk(Mark)
                .series(dev),
        ),
        (
            "chunk_offset_not_a_chunk.tsfile",
            expect(Corrupt, "marker 0x00 is not a chunk header")
                .offset(Mark)
                .chunk(Mark)
                .series(dev),
        ),
        (
            "chunk_header_bad_marker.tsfile",
            expect(Corrupt, "unknown marker 0x07")
                .offset(Mark)
                .chunk(Chunk)
                .series(dev),
        ),
        (
            "chunk_header_unknown_compression.tsfile",
            expect(Corrupt, "unknown compression code 127")
                .offset(Mark)
                .chunk(Chunk)
                .series(dev),
        ),
        (
            "chunk_data_size_past_end.tsfile",
            expect(Truncated, "chunk data: needed 16383")
                .offset(Mark)
                .chunk(Chunk)
                .series("mp."),
        ),
        (
            "page_uncompressed_size_bomb.tsfile",
            page(
                expect(Limit, "decompressed size for the compressed length").offset(Mark),
                "comp.",
            ),
        ),
        garbage_page("lz4", expect(Codec, "lz4 codec error")),
        garbage_page("snappy", expect(Codec, "snappy codec error")),
        garbage_page("gzip", expect(Corrupt, "corrupt gzip data: bad magic")),
        garbage_page("zstd", expect(Codec, "zstd codec error")),
        garbage_page("lzma2", expect(Codec, "lzma2 codec error")),
        garbage_page("lzo", expect(Corrupt, "corrupt lzo data")),
        (
            "ts2diff_width_too_large.tsfile",
            page(
                expect(Corrupt, "TS_2DIFF block of 127 deltas of width 65").section("page payload"),
                "comp.",
            ),
        ),
        (
            "ts2diff_pages_claim_huge_counts.tsfile",
            page(
                expect(
                    Corrupt,
                    "page holds more points than the 128 its statistics count",
                )
                .offset(Mark),
                "comp.",
            ),
        ),
        (
            "gorilla_stream_truncated.tsfile",
            page(
                expect(Truncated, "truncated GORILLA stream").section("page payload"),
                "enc_gorilla.",
            ),
        ),
        (
            "dictionary_index_out_of_range.tsfile",
            page(
                expect(Corrupt, "DICTIONARY index 127 of 97 entries").section("page payload"),
                "enc_dictionary.",
            ),
        ),
    ];
    all.extend(v3_table::v3_table());
    all
}

fn garbage_page(codec: &str, e: Expect) -> (&'static str, Expect) {
    let name = format!("page_garbage_{codec}.tsfile").leak();
    let e = e.offset(Mark).chunk(Chunk).damaged_page().series("comp.");
    (name, e)
}

fn table(f: Format) -> Vec<(&'static str, Expect)> {
    match f {
        Format::RcFile => rcfile_table(),
        Format::TsFile => tsfile_table(),
        Format::Mods => mods_table::mods_table(),
    }
}

/// Reads every file of `f` the way its format is read and checks its error; also checks
/// that each file is still exactly what the generator makes. All problems are listed.
fn check_format(f: Format) {
    let table = table(f);
    let mut problems = Vec::new();
    for case in f.cases() {
        let Some((_, want)) = table.iter().find(|(n, _)| *n == case.file) else {
            problems.push(format!("{}: no table entry", case.file));
            continue;
        };
        let path = gen::bad_dir(f).join(case.file);
        let Ok(bytes) = std::fs::read(&path) else {
            problems.push(format!("{}: missing (regenerate)", case.file));
            continue;
        };
        let made: Made = gen::make(f, &case);
        if made.bytes != bytes {
            problems.push(format!(
                "{}: differs from what the generator makes",
                case.file
            ));
        }
        // RCFile: both typed decoders (rows and column batches); TsFile: a query of all;
        // deletion files: loading the file. With `async`, RCFile and TsFile also through a
        // planned read of the file (the same errors, at the same places).
        let mut readers: Vec<(&str, Read)> = match f {
            Format::RcFile => vec![("rows", read_rc_rows), ("batches", read_rc_batches)],
            Format::TsFile => vec![("query", read_ts)],
            Format::Mods => vec![("load", read_mods)],
        };
        #[cfg(feature = "async")]
        match f {
            Format::RcFile => readers.push(("planned rows", planned::read_rc_rows)),
            Format::TsFile => readers.push(("planned query", planned::read_ts)),
            Format::Mods => {}
        }
        for (how, read) in &readers {
            let file = case.file;
            match std::panic::catch_unwind(|| read(&path, &bytes, case.source)) {
                Err(_) => problems.push(format!("{file} ({how}): reading panicked")),
                Ok(Ok(())) => problems.push(format!("{file} ({how}): read without an error")),
                Ok(Err(e)) => {
                    if let Err(m) = want.check(&e, &made) {
                        problems.push(format!("{file} ({how}): {m}"));
                    }
                }
            }
        }
        if f == Format::TsFile {
            match verify(&bytes[..], &VerifyOptions::default()) {
                Ok(r) if r.is_ok() => problems.push(format!("{}: verify finds nothing", case.file)),
                Ok(_) => {}
                Err(e) => problems.push(format!("{}: verify failed: {e}", case.file)),
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn rcfile_bad_fixtures_fail_with_their_errors() {
    check_format(Format::RcFile);
}

#[test]
fn tsfile_bad_fixtures_fail_with_their_errors() {
    check_format(Format::TsFile);
}

#[test]
fn mods_bad_fixtures_fail_with_their_errors() {
    check_format(Format::Mods);
}

/// Every file in `fixtures/bad/{rcfile,tsfile,mods}/` has a table entry, a generator case and a
/// README line; every entry has its file; files stay small.
#[test]
fn every_bad_fixture_is_listed() {
    let readme_path = gen::bad_dir(Format::RcFile).join("../README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let mut problems = Vec::new();
    let mut total = 0;
    for f in Format::ALL {
        let dir = gen::bad_dir(f);
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| {
                total += e.metadata().unwrap().len();
                e.file_name().to_string_lossy().into_owned()
            })
            .collect();
        files.sort();
        let table: Vec<&str> = table(f).iter().map(|(n, _)| *n).collect();
        let cases: Vec<&str> = f.cases().iter().map(|c| c.file).collect();
        let d = f.dir_name();
        for n in &files {
            if !table.contains(&n.as_str()) {
                problems.push(format!("{d}/{n} has no entry in the expectation table"));
            }
            if !readme.contains(&format!("`{d}/{n}`")) {
                problems.push(format!(
                    "{d}/{n} is not described in fixtures/bad/README.md"
                ));
            }
            let len = std::fs::metadata(dir.join(n)).unwrap().len() as usize;
            if len >= gen::MAX_FILE {
                problems.push(format!("{d}/{n} is {len} bytes"));
            }
        }
        for n in &table {
            if !files.iter().any(|x| x == n) {
                problems.push(format!(
                    "{d}/{n} is in the table but not in {}",
                    dir.display()
                ));
            }
            if !cases.contains(n) {
                problems.push(format!(
                    "{d}/{n} is in the table but the generator lacks it"
                ));
            }
        }
        let mut unique = table.clone();
        unique.sort();
        unique.dedup();
        if unique.len() != table.len() {
            problems.push(format!("{d}: duplicate table entries"));
        }
    }
    assert!(total < 1 << 20, "fixtures/bad holds {total} bytes");
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// Reads a damaged file fully (at `path`, holding `bytes`); `source` is the fixture it was
/// made from.
type Read = fn(&Path, &[u8], &str) -> colfile::Result<()>;

/// The schema and serde of an RCFile fixture, from its dump.
fn rc_schema(source: &str) -> colfile::Result<(Schema, Serde)> {
    let dump = common::load(&common::fixtures_dir().join(format!("{source}.json")));
    let schema: Schema = common::schema_text(&dump).parse()?;
    let props = common::serde_props(&dump);
    let serde = Serde::from_options(dump["serde"].as_str().unwrap(), &props, None, None)?;
    Ok((schema, serde))
}

/// Reads an RCFile fully: every row group and column, then every row decoded with the
/// schema and serde of the fixture it was made from.
fn read_rc_rows(_: &Path, bytes: &[u8], source: &str) -> colfile::Result<()> {
    let mut r = RcFileReader::new(bytes)?;
    while r.next_row_group()?.is_some() {}
    let (schema, serde) = rc_schema(source)?;
    let mut rows = RowReader::builder(bytes, schema, serde).build()?;
    while rows.next_row()?.is_some() {}
    Ok(())
}

/// Reads an RCFile fully with the column-batch decoder: every column of every row group.
fn read_rc_batches(_: &Path, bytes: &[u8], source: &str) -> colfile::Result<()> {
    let (schema, serde) = rc_schema(source)?;
    let mut r = RcFileReader::new(bytes)?;
    let mut batch = ColumnBatch::default();
    while let Some(g) = r.next_row_group()? {
        for (i, field) in schema.columns().iter().enumerate() {
            g.decode_batch(i, &field.ty, &serde, &mut batch)?;
        }
    }
    Ok(())
}

/// Opens a TsFile and reads every batch of every table and device.
fn read_ts(_: &Path, bytes: &[u8], _source: &str) -> colfile::Result<()> {
    let r = TsFileReader::open(bytes)?;
    for b in r.query(&Query::all())? {
        b?;
    }
    Ok(())
}

/// Loads a deletion file by its path (text or binary by its name), as IoTDB's are found.
fn read_mods(path: &Path, _: &[u8], _source: &str) -> colfile::Result<()> {
    Modifications::load(path, &Limits::default()).map(|_| ())
}

/// The same reads through a [`PlannedSource`](colfile::source::PlannedSource) over the file.
#[cfg(feature = "async")]
mod planned {
    use super::*;
    use colfile::source::{FileSource, PlannedSource};

    fn open(path: &Path) -> colfile::Result<PlannedSource<FileSource>> {
        Ok(PlannedSource::new(FileSource::open(path)?))
    }

    pub(super) fn read_rc_rows(path: &Path, _: &[u8], source: &str) -> colfile::Result<()> {
        let mut r = RcFileReader::new(open(path)?)?;
        while r.next_row_group()?.is_some() {}
        let (schema, serde) = rc_schema(source)?;
        let mut rows = RowReader::builder(open(path)?, schema, serde).build()?;
        while rows.next_row()?.is_some() {}
        Ok(())
    }

    pub(super) fn read_ts(path: &Path, _: &[u8], _source: &str) -> colfile::Result<()> {
        let r = TsFileReader::open(open(path)?)?;
        for b in r.query(&Query::all())?.planned() {
            b?;
        }
        Ok(())
    }
}
