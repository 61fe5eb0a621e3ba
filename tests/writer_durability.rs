//! Writers under failing sinks and crashes (issue 5): every write, flush and fsync error is
//! returned by the call that met it and never followed by an `Ok` (for both formats, at
//! every byte of a small file), an unfinished RCFile reads back as its complete row groups,
//! an unfinished TsFile recovers every chunk group but the last one. (`colfile write --fsync`
//! is tested in colfile-cli/tests/write_fsync.rs.)

use colfile::rcfile::{RcFileReader, RcFileWriter, RcFileWriterBuilder};
use colfile::sink::SyncWrite;
use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, DataType};
use colfile::tsfile::{recover, Query, TsFileReader, TsFileWriter, Value, WriterOptions};
use colfile::{Error, ErrorKind};
use std::collections::BTreeMap;
use std::io::{self, Write};

const INJECTED: &str = "injected failure";

/// A sink that takes `limit` bytes (the write crossing it is partial) and then fails every
/// write; optionally fails every flush or fsync.
#[derive(Default)]
struct Faulty {
    bytes: Vec<u8>,
    limit: Option<usize>,
    fail_flush: bool,
    fail_sync: bool,
    /// Length of `bytes` at each successful fsync.
    synced_at: Vec<usize>,
}

impl Faulty {
    fn failing_after(n: usize) -> Self {
        Faulty {
            limit: Some(n),
            ..Faulty::default()
        }
    }
}

impl Write for Faulty {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self
            .limit
            .map_or(usize::MAX, |l| l.saturating_sub(self.bytes.len()));
        if room == 0 && !buf.is_empty() {
            return Err(io::Error::other(INJECTED));
        }
        let n = buf.len().min(room);
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        if self.fail_flush {
            return Err(io::Error::other(INJECTED));
        }
        Ok(())
    }
}

impl SyncWrite for Faulty {
    fn sync_all(&mut self) -> io::Result<()> {
        if self.fail_sync {
            return Err(io::Error::other(INJECTED));
        }
        self.synced_at.push(self.bytes.len());
        Ok(())
    }
}

fn assert_injected(e: &Error, what: &str) {
    assert!(
        matches!(e.kind(), ErrorKind::Io(io) if io.to_string() == INJECTED),
        "{what}: expected the sink's I/O error, got {e}"
    );
}

/// Tracks a sequence of calls: the first error must be the sink's, every later call must
/// fail too (the writer refuses to go on), and the last call (`finish`) must fail.
#[derive(Default)]
struct Calls {
    failed: bool,
}

impl Calls {
    fn check<T>(&mut self, r: Result<T, Error>, what: &str) {
        match r {
            Ok(_) => assert!(!self.failed, "{what} succeeded after an earlier error"),
            Err(e) if self.failed => assert!(
                matches!(e.kind(), ErrorKind::InvalidArgument(_)),
                "{what} after an error: {e}"
            ),
            Err(e) => {
                assert_injected(&e, what);
                self.failed = true;
            }
        }
    }
}

// ---------------------------------------------------------------- RCFile

fn rc_rows() -> Vec<[Vec<u8>; 3]> {
    (0..20u8)
        .map(|i| {
            [
                i.to_string().into_bytes(),
                vec![b'a' + i % 26; 300 + i as usize],
                format!("row {i}").into_bytes(),
            ]
        })
        .collect()
}

fn rc_builder<W: Write>(sink: W) -> RcFileWriterBuilder<W> {
    RcFileWriter::builder(sink, 3)
        .with_sync([9; 16])
        .with_row_group_rows(4)
}

/// Every row of `bytes`, and whether reading ended with an error.
fn rc_read(bytes: &[u8]) -> (Vec<[Vec<u8>; 3]>, bool) {
    let Ok(mut r) = RcFileReader::new(bytes) else {
        return (Vec::new(), true);
    };
    let mut rows = Vec::new();
    loop {
        match r.next_row_group() {
            Ok(Some(g)) => {
                for i in 0..g.num_rows() {
                    let cell = |c: usize| g.column(c).and_then(|d| d.cell(i)).unwrap().to_vec();
                    rows.push([cell(0), cell(1), cell(2)]);
                }
            }
            Ok(None) => return (rows, false),
            Err(e) => {
                assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
                return (rows, true);
            }
        }
    }
}

#[test]
fn rcfile_write_errors_are_returned_at_every_byte() {
    let rows = rc_rows();
    let mut w = rc_builder(Vec::new()).build().unwrap();
    let header_len = w.bytes_written() as usize;
    for r in &rows {
        w.write_row(r).unwrap();
    }
    let (full, summary) = w.finish_into_inner().unwrap();
    assert!(summary.syncs >= 1 && summary.row_groups == 5, "{summary:?}");
    // Where each row group ends, and the offsets after which the file is cleanly readable.
    let mut r = RcFileReader::new(full.as_slice()).unwrap();
    let mut ends = vec![header_len];
    while r.next_row_group().unwrap().is_some() {
        ends.push(r.position() as usize);
    }
    let mut sync = vec![0xff; 4];
    sync.extend_from_slice(&[9; 16]);
    let clean = |n: usize| {
        ends.contains(&n) || (n >= 20 && ends.contains(&(n - 20)) && full[n - 20..n] == sync[..])
    };

    for n in 0..full.len() {
        let mut sink = Faulty::failing_after(n);
        let mut calls = Calls::default();
        match rc_builder(&mut sink).build() {
            Err(e) => {
                assert!(n < header_len);
                assert_injected(&e, "build");
            }
            Ok(mut w) => {
                for r in &rows {
                    calls.check(w.write_row(r), "write_row");
                }
                let f = w.finish();
                assert!(f.is_err(), "finish with {n} of {} bytes: Ok", full.len());
                calls.check(f, "finish");
            }
        }
        assert_eq!(sink.bytes[..], full[..n], "the sink got other bytes");
        // What reached the sink: the rows of every complete row group, then a cut one.
        let (back, cut) = rc_read(&sink.bytes);
        let complete = ends.iter().filter(|&&e| e > header_len && e <= n).count();
        assert_eq!(back, rows[..4 * complete], "cut at {n}");
        assert_eq!(cut, !clean(n), "cut at {n}: error at the end");
    }
}

#[test]
fn rcfile_flush_and_fsync_errors_are_returned() {
    let rows = rc_rows();
    // A failing flush: returned by flush(), and the writer refuses to go on.
    let mut sink = Faulty {
        fail_flush: true,
        ..Faulty::default()
    };
    let mut w = rc_builder(&mut sink).build().unwrap();
    w.write_row(&rows[0]).unwrap();
    assert_injected(&w.flush().unwrap_err(), "flush");
    assert!(w.write_row(&rows[1]).is_err());
    assert!(w.finish().is_err());
    // finish() flushes: its error is returned too.
    let mut sink = Faulty {
        fail_flush: true,
        ..Faulty::default()
    };
    let w = rc_builder(&mut sink).build().unwrap();
    assert_injected(&w.finish().unwrap_err(), "finish");
    // A failing fsync.
    let mut sink = Faulty {
        fail_sync: true,
        ..Faulty::default()
    };
    let mut w = rc_builder(&mut sink).build().unwrap();
    w.write_row(&rows[0]).unwrap();
    assert_injected(&w.flush_sync().unwrap_err(), "flush_sync");
    assert!(w.write_row(&rows[1]).is_err());
    assert!(w.finish().is_err());
    let mut sink = Faulty {
        fail_sync: true,
        ..Faulty::default()
    };
    let mut w = rc_builder(&mut sink).build().unwrap();
    w.write_row(&rows[0]).unwrap();
    assert_injected(&w.finish_sync().unwrap_err(), "finish_sync");
    // A working fsync comes after the last byte.
    let mut sink = Faulty::default();
    let mut w = rc_builder(&mut sink).build().unwrap();
    for r in &rows {
        w.write_row(r).unwrap();
    }
    let s = w.finish_sync().unwrap();
    assert_eq!(sink.synced_at, [sink.bytes.len()]);
    assert_eq!(s.bytes, sink.bytes.len() as u64);
}

#[test]
fn dropped_rcfile_writer_leaves_its_complete_row_groups() {
    let rows = rc_rows();
    let mut sink = Vec::new();
    let mut w = rc_builder(&mut sink).build().unwrap();
    for r in &rows[..10] {
        w.write_row(r).unwrap();
    }
    w.flush_row_group().unwrap(); // rows 8 and 9: a short group
    w.write_row(&rows[10]).unwrap(); // buffered only
    drop(w);
    let (back, cut) = rc_read(&sink);
    assert!(!cut, "a dropped writer's file reads without an error");
    assert_eq!(back, rows[..10]);
}

// ---------------------------------------------------------------- TsFile

fn ts_schema() -> TableSchema {
    TableSchema::new(
        "t",
        vec![
            TableColumn::new("dev", DataType::String, ColumnCategory::Tag),
            TableColumn::new("a", DataType::Int64, ColumnCategory::Field),
            TableColumn::new("s", DataType::String, ColumnCategory::Field),
        ],
    )
}

/// `(device tag, time, a, s)`; a flush after every `FLUSH_EVERY` rows.
fn ts_rows() -> Vec<(String, i64, Value, Value)> {
    (0..30i64)
        .map(|i| {
            let dev = format!("d{}", i % 2);
            let s = Value::string(&format!("v{i}"));
            (dev, 100 + i, Value::Int64(i * i - 7), s)
        })
        .collect()
}
const FLUSH_EVERY: usize = 10;

fn ts_options() -> WriterOptions {
    WriterOptions::default().with_threads(1)
}

/// Runs the writes on `w`, checking each call with `calls`; the writer is left unfinished.
fn ts_write<W: Write>(
    w: &mut TsFileWriter<W>,
    rows: &[(String, i64, Value, Value)],
    calls: &mut Calls,
) {
    calls.check(w.register_table(ts_schema()), "register_table");
    for (i, (dev, t, a, s)) in rows.iter().enumerate() {
        let r = w.write_row("t", *t, &[Value::string(dev), a.clone(), s.clone()]);
        calls.check(r, "write_row");
        if (i + 1) % FLUSH_EVERY == 0 {
            calls.check(w.flush(), "flush");
        }
    }
}

/// Rows of a TsFile per device tag, in time order: `(time, a, s)`.
type TsRows = BTreeMap<String, Vec<(i64, Value, Value)>>;

fn ts_read(bytes: Vec<u8>) -> TsRows {
    let r = TsFileReader::open(bytes).unwrap();
    let mut out = TsRows::new();
    for b in r.query(&Query::all()).unwrap() {
        let b = b.unwrap();
        // The one tag (named `tag1` in a schema that recover inferred).
        let tag = b.tags.first().and_then(|(_, v)| v.clone());
        let col = |name: &str| b.columns.iter().find(|c| c.name == name).unwrap().cursor();
        let (mut a, mut s) = (col("a"), col("s"));
        let rows = out.entry(tag.unwrap()).or_default();
        for &t in &b.times {
            rows.push((t, a.next_value().to_owned(), s.next_value().to_owned()));
        }
    }
    out
}

fn by_device(rows: &[(String, i64, Value, Value)]) -> TsRows {
    let mut out = TsRows::new();
    for (d, t, a, s) in rows {
        out.entry(d.clone())
            .or_default()
            .push((*t, a.clone(), s.clone()));
    }
    out
}

/// Recovers `bytes` and reads the result back.
fn ts_recovered(bytes: &[u8]) -> (colfile::tsfile::RecoverySummary, TsRows) {
    let mut fixed = Vec::new();
    let summary = recover(bytes, &mut fixed).unwrap();
    (summary, ts_read(fixed))
}

#[test]
fn tsfile_write_errors_are_returned_at_every_byte() {
    // Three threads: a write error while groups are still being encoded on other threads.
    for threads in [1, 3] {
        tsfile_write_errors_at_every_byte(ts_options().with_threads(threads));
    }
}

fn tsfile_write_errors_at_every_byte(options: WriterOptions) {
    let rows = ts_rows();
    let mut w = TsFileWriter::new(Vec::new(), options.clone()).unwrap();
    let mut calls = Calls::default();
    ts_write(&mut w, &rows, &mut calls);
    let (full, _) = w.finish_into_inner().unwrap();
    assert_eq!(ts_read(full.clone()), by_device(&rows));
    let data_end = recover(full.as_slice(), io::sink()).unwrap().data_end as usize;

    let mut kept_before = 0;
    for n in 0..full.len() {
        let mut sink = Faulty::failing_after(n);
        let mut calls = Calls::default();
        match TsFileWriter::new(&mut sink, options.clone()) {
            Err(e) => {
                assert!(n < 7);
                assert_injected(&e, "new");
            }
            Ok(mut w) => {
                ts_write(&mut w, &rows, &mut calls);
                let f = w.finish();
                assert!(f.is_err(), "finish with {n} of {} bytes: Ok", full.len());
                calls.check(f, "finish");
            }
        }
        assert_eq!(sink.bytes[..], full[..n], "the sink got other bytes");
        if n < 7 {
            continue;
        }
        // What reached the sink recovers to a prefix of each device's rows, growing with n.
        let (_, back) = ts_recovered(&sink.bytes);
        let written = by_device(&rows);
        for (dev, got) in &back {
            assert_eq!(got[..], written[dev][..got.len()], "cut at {n}, {dev}");
        }
        let kept: usize = back.values().map(Vec::len).sum();
        assert!(kept >= kept_before, "cut at {n}: fewer rows than before");
        if n > data_end {
            assert_eq!(back, written, "cut at {n}, after the data section");
        }
        kept_before = kept;
    }
}

#[test]
fn tsfile_flush_and_fsync_errors_are_returned() {
    let rows = ts_rows();
    let mut calls = Calls::default();
    // A failing flush of the output.
    let mut sink = Faulty {
        fail_flush: true,
        ..Faulty::default()
    };
    let mut w = TsFileWriter::new(&mut sink, ts_options()).unwrap();
    ts_write(&mut w, &rows[..FLUSH_EVERY - 1], &mut calls);
    assert_injected(&w.flush().unwrap_err(), "flush");
    assert!(w
        .write_row("t", 1000, &[Value::Null, Value::Null, Value::Null])
        .is_err());
    assert!(w.finish().is_err());
    let mut sink = Faulty {
        fail_flush: true,
        ..Faulty::default()
    };
    let w = TsFileWriter::new(&mut sink, ts_options()).unwrap();
    assert_injected(&w.finish().unwrap_err(), "finish");
    // A failing fsync.
    let mut sink = Faulty {
        fail_sync: true,
        ..Faulty::default()
    };
    let mut w = TsFileWriter::new(&mut sink, ts_options()).unwrap();
    ts_write(&mut w, &rows[..3], &mut calls);
    assert_injected(&w.flush_sync().unwrap_err(), "flush_sync");
    assert!(w.finish().is_err());
    let mut sink = Faulty {
        fail_sync: true,
        ..Faulty::default()
    };
    let mut w = TsFileWriter::new(&mut sink, ts_options()).unwrap();
    ts_write(&mut w, &rows[..3], &mut calls);
    assert_injected(&w.finish_sync().unwrap_err(), "finish_sync");
    // A working fsync comes after the last byte.
    let mut sink = Faulty::default();
    let mut w = TsFileWriter::new(&mut sink, ts_options()).unwrap();
    ts_write(&mut w, &rows, &mut calls);
    let s = w.finish_sync().unwrap();
    assert_eq!(sink.synced_at, [sink.bytes.len()]);
    assert_eq!(s.bytes, sink.bytes.len() as u64);
    assert!(!calls.failed);
}

#[test]
fn tsfile_flush_triggered_by_memory_returns_its_error_from_write_row() {
    let mut sink = Faulty::failing_after(20);
    let options = ts_options().with_memory_threshold(1);
    let mut w = TsFileWriter::new(&mut sink, options).unwrap();
    w.register_table(ts_schema()).unwrap();
    let row = |i: i64| [Value::string("d"), Value::Int64(i), Value::Null];
    let failed = (0..1000).find_map(|i| w.write_row("t", i, &row(i)).err().map(|e| (i, e)));
    let (i, e) = failed.expect("a memory-triggered flush hit the failing sink");
    assert_injected(&e, "write_row");
    let again = w.write_row("t", i + 1, &row(i + 1)).unwrap_err();
    assert!(
        matches!(again.kind(), ErrorKind::InvalidArgument(_)),
        "{again}"
    );
    assert!(w.finish().is_err());
}

#[test]
fn dropped_tsfile_writer_recovers_all_but_the_last_chunk_group() {
    let rows = ts_rows();
    let mut sink = Vec::new();
    let mut w = TsFileWriter::new(&mut sink, ts_options()).unwrap();
    let mut calls = Calls::default();
    ts_write(&mut w, &rows, &mut calls);
    // Buffered only: lost with the writer.
    let extra = [Value::string("d0"), Value::Int64(1), Value::Null];
    w.write_row("t", 1000, &extra).unwrap();
    drop(w);
    assert!(!calls.failed);
    assert!(TsFileReader::open(sink.clone()).is_err(), "no footer yet");
    let (summary, back) = ts_recovered(&sink);
    // Three flushes of two devices: six chunk groups; the last one (d1's of the last flush)
    // ends the file, so recover cannot tell it is complete and drops it.
    assert_eq!((summary.chunk_groups, summary.dropped_chunk_groups), (5, 1));
    let last_flush = rows.len() - FLUSH_EVERY;
    let kept: Vec<_> = rows
        .iter()
        .enumerate()
        .filter(|(i, r)| *i < last_flush || r.0 == "d0")
        .map(|(_, r)| r.clone())
        .collect();
    assert_eq!(back, by_device(&kept));
}
