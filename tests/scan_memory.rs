//! What scans hold at once, measured with a counting allocator on the scanning thread.
//!
//! Files written with huge TsFile chunks (600 000 points and 4.8 MB of data each, well over
//! the 4 MiB a reader reads whole): a scan streams their pages, so what it holds stays a
//! batch of rows and a page per column whatever the chunk's size, and the rows are the ones
//! written; for the aligned (table) scan, the non-aligned (tree) merge, and a planned read
//! of a local file. And an RCFile scan is flat in file size: four times the row groups cost
//! no more. (A TsFile scan is not flat in every direction: it keeps the list of the devices
//! it will read, and a device's chunk metadata while it reads the device; four times the
//! rows of the same devices cost that metadata, not their data.)

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use colfile::source::{ByteSource, FileSource, PlannedSource};
use colfile::tsfile::tools::layout::scan_data;
use colfile::tsfile::{Query, TsFileReader, ValueRef};
use colfile::Limits;
use colfile_testkit::huge::{aligned_file, tree_file, value_of, POINTS};
use counting_alloc::{measure, Usage};

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

const MIB: usize = 1 << 20;
/// Most bytes a streaming scan may hold at once here. Reading one of these chunks whole
/// holds its 4.8 MB body, and decoding it whole 4.8 MB of times and as much of values.
const MOST: usize = 4 * MIB;

/// Scans every row of `src`, checking each against `check(row, time, values)` as it goes
/// (batches are dropped once checked); returns the rows, the largest batch and what was
/// allocated on this thread meanwhile.
fn scan<S: ByteSource>(
    src: S,
    mut check: impl FnMut(usize, i64, &[ValueRef<'_>]),
) -> (usize, usize, Usage) {
    let reader = TsFileReader::open(src).unwrap();
    let ((rows, largest), usage) = measure(|| {
        let (mut rows, mut largest) = (0, 0);
        for batch in reader.query(&Query::all()).unwrap().planned() {
            let batch = batch.unwrap();
            largest = largest.max(batch.len());
            let mut cursors: Vec<_> = batch.columns.iter().map(|c| c.cursor()).collect();
            for &t in &batch.times {
                let vals: Vec<ValueRef<'_>> = cursors.iter_mut().map(|c| c.next_value()).collect();
                check(rows, t, &vals);
                rows += 1;
            }
        }
        (rows, largest)
    });
    (rows, largest, usage)
}

fn check_aligned(row: usize, t: i64, vals: &[ValueRef<'_>]) {
    let i = row as i64;
    assert_eq!(t, i * 3, "row {row}");
    let v = value_of(i);
    let d = if i % 7 == 0 {
        ValueRef::Null
    } else {
        ValueRef::Double(v as f64 / 4.0)
    };
    assert_eq!(vals, [ValueRef::Int64(v), d], "row {row}");
}

fn check_tree(row: usize, t: i64, vals: &[ValueRef<'_>]) {
    let i = row as i64;
    assert_eq!(t, i, "row {row}");
    let v = ValueRef::Int64(value_of(i));
    let want = if i % 2 == 0 {
        [v, ValueRef::Null]
    } else {
        [ValueRef::Null, v]
    };
    assert_eq!(vals, want, "row {row}");
}

/// The chunks really are huge: one chunk per column, each over 4 MiB of data.
fn assert_huge(file: &[u8], chunks: usize) {
    let data = scan_data(file, &Limits::default()).unwrap();
    let layout: Vec<u32> = data
        .groups
        .iter()
        .flat_map(|g| &g.chunks)
        .map(|c| c.header.data_size)
        .collect();
    assert_eq!(layout.len(), chunks, "{layout:?}");
    assert!(layout.iter().all(|&n| n as usize > 4 * MIB), "{layout:?}");
}

#[test]
fn an_aligned_scan_of_huge_chunks_holds_a_batch_not_the_chunks() {
    let file = aligned_file();
    assert_huge(&file, 3);
    let (rows, largest, usage) = scan(&file[..], check_aligned);
    assert_eq!(rows, POINTS as usize);
    assert!(largest < POINTS as usize / 4, "batch of {largest} rows");
    assert!(usage.peak_live < MOST, "{usage:?}");
}

#[test]
fn a_tree_merge_of_huge_chunks_holds_pages_not_the_chunks() {
    let file = tree_file();
    assert_huge(&file, 2);
    let (rows, largest, usage) = scan(&file[..], check_tree);
    assert_eq!(rows, 2 * POINTS as usize);
    assert!(largest < POINTS as usize / 4, "batch of {largest} rows");
    assert!(usage.peak_live < MOST, "{usage:?}");
}

#[test]
fn a_planned_read_of_a_local_file_does_not_hold_huge_chunks() {
    let dir = std::env::temp_dir().join(format!("colfile-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, file, check) in [
        (
            "aligned",
            aligned_file(),
            check_aligned as fn(usize, i64, &[ValueRef<'_>]),
        ),
        ("tree", tree_file(), check_tree),
    ] {
        let path = dir.join(format!("{name}.tsfile"));
        std::fs::write(&path, &file).unwrap();
        let src = PlannedSource::new(FileSource::open(&path).unwrap());
        let (rows, _, usage) = scan(src, check);
        assert!(rows >= POINTS as usize, "{name}");
        assert!(usage.peak_live < MOST, "{name}: {usage:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Whether `big` (a scan of four times the rows) holds no more than `small` did, give or
/// take an eighth and 64 KiB (allocator rounding).
fn flat(small: Usage, big: Usage) -> bool {
    big.peak_live <= small.peak_live + small.peak_live / 8 + (64 << 10)
}

#[test]
fn rcfile_scans_are_flat_in_file_size() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use colfile::arrow::RcFileArrowReader;
    use colfile::rcfile::{RcFileWriter, Schema, Serde};

    let schema: Schema = "i:bigint,s:string".parse().unwrap();
    let usage = |rows: i64| {
        let mut w = RcFileWriter::builder(Vec::new(), 2)
            .with_row_group_rows(10_000)
            .build()
            .unwrap();
        for i in 0..rows {
            let s = format!("name {}", value_of(i));
            w.write_row(&[i.to_string().as_bytes(), s.as_bytes()])
                .unwrap();
        }
        let (file, _) = w.finish_into_inner().unwrap();
        let reader = RcFileArrowReader::builder(file.as_slice(), schema.clone(), Serde::text())
            .build()
            .unwrap();
        let (n, usage) = measure(|| {
            let mut n = 0i64;
            for batch in reader {
                let batch = batch.unwrap();
                let ids = batch.column(0).as_primitive::<Int64Type>();
                for (k, id) in ids.iter().enumerate() {
                    assert_eq!(id, Some(n + k as i64));
                }
                n += batch.num_rows() as i64;
            }
            n
        });
        assert_eq!(n, rows);
        usage
    };
    let (small, big) = (usage(20_000), usage(80_000));
    assert!(flat(small, big), "{small:?} then {big:?}");
}

/// The Arrow reader decodes a batch's rows of a row group, not the whole group: reading a
/// 200 000-row group in batches of 1024 holds at least three quarters less of its 1.6 MB of
/// values than reading it as one batch (the group's cells are held either way).
#[test]
fn rcfile_arrow_scans_hold_a_batch_of_values_not_a_group() {
    use colfile::arrow::RcFileArrowReader;
    use colfile::rcfile::{RcFileWriter, Schema, Serde};

    const ROWS: usize = 200_000;
    let schema: Schema = "i:bigint".parse().unwrap();
    let mut w = RcFileWriter::builder(Vec::new(), 1)
        .with_row_group_rows(ROWS)
        .build()
        .unwrap();
    for i in 0..ROWS {
        w.write_row(&[i.to_string().as_bytes()]).unwrap();
    }
    let (file, _) = w.finish_into_inner().unwrap();
    let peak = |batch: usize| {
        let reader = RcFileArrowReader::builder(file.as_slice(), schema.clone(), Serde::text())
            .with_batch_size(batch)
            .build()
            .unwrap();
        let (n, usage) = measure(|| reader.map(|b| b.unwrap().num_rows()).sum::<usize>());
        assert_eq!(n, ROWS);
        usage.peak_live
    };
    let (small, whole) = (peak(1024), peak(ROWS));
    assert!(small + ROWS * 8 * 3 / 4 <= whole, "{small} vs {whole}");
}

#[test]
fn tsfile_scans_grow_with_chunk_metadata_not_data() {
    // The same 8 devices with four times the rows (four times the chunk groups, flushed
    // every 8,000 rows): what a scan holds grows by the device's chunk metadata it keeps
    // (its statistics per chunk), a small part of what the file grows by; holding a
    // device's chunks would grow with the data. Rows are counted and checked as they come.
    let usage = |rows: usize| {
        let file = colfile_testkit::iot::iot_table(8, rows, 8_000);
        let reader = TsFileReader::open(&file[..]).unwrap();
        let (n, usage) = measure(|| {
            let mut n = 0usize;
            for batch in reader.query(&Query::all()).unwrap() {
                let batch = batch.unwrap();
                assert!(batch.times.windows(2).all(|w| w[0] < w[1]));
                n += batch.len();
            }
            n
        });
        assert_eq!(n, 8 * rows);
        (usage, file.len())
    };
    let ((small, small_len), (big, big_len)) = (usage(10_000), usage(40_000));
    let grew = big.peak_live.saturating_sub(small.peak_live);
    assert!(
        grew < (big_len - small_len) / 8,
        "{small:?} then {big:?}; the file grew {small_len} -> {big_len} bytes"
    );
}
