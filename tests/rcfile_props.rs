//! Property tests of the container: whatever the cells, row-group cuts and codec, what the
//! writer writes the reader reads back; and any set of byte-range splits that covers a file
//! returns every row exactly once, in order.

use colfile::compress::HadoopCodec;
use colfile::rcfile::{RcFileReader, RcFileWriter};
use proptest::prelude::*;

type Rows = Vec<Vec<Vec<u8>>>;

fn rows_strategy() -> impl Strategy<Value = (usize, Rows)> {
    (0usize..6).prop_flat_map(|cols| {
        let cell = prop_oneof![
            3 => proptest::collection::vec(any::<u8>(), 0..12),
            1 => Just(Vec::new()),
            1 => proptest::collection::vec(Just(b'x'), 0..300),
        ];
        let row = proptest::collection::vec(cell, cols);
        (Just(cols), proptest::collection::vec(row, 0..400))
    })
}

fn codec_strategy() -> impl Strategy<Value = Option<HadoopCodec>> {
    prop_oneof![
        3 => Just(None),
        1 => Just(Some(HadoopCodec::Default)),
        1 => Just(Some(HadoopCodec::Gzip)),
        1 => Just(Some(HadoopCodec::Snappy)),
        1 => Just(Some(HadoopCodec::Lz4)),
        1 => Just(Some(HadoopCodec::ZStandard)),
    ]
}

fn write(
    cols: usize,
    rows: &Rows,
    group_rows: usize,
    group_bytes: usize,
    codec: Option<HadoopCodec>,
) -> Vec<u8> {
    let mut w = RcFileWriter::builder(Vec::new(), cols)
        .with_codec(codec)
        .with_row_group_rows(group_rows)
        .with_row_group_bytes(group_bytes)
        .with_validation(true)
        .build()
        .unwrap();
    for r in rows {
        w.write_row(r).unwrap();
    }
    let (bytes, summary) = w.finish_into_inner().unwrap();
    assert_eq!(summary.rows, rows.len() as u64);
    assert_eq!(summary.bytes, bytes.len() as u64);
    bytes
}

fn read(bytes: &[u8], split: Option<std::ops::Range<u64>>) -> Rows {
    let mut b = RcFileReader::builder(bytes);
    if let Some(s) = split {
        b = b.with_split(s);
    }
    let mut r = b.build().unwrap();
    let cols = r.header().column_count;
    let mut out = Vec::new();
    while let Some(g) = r.next_row_group().unwrap() {
        for row in 0..g.num_rows() {
            out.push(
                (0..cols)
                    .map(|c| g.column(c).unwrap().cell(row).unwrap().to_vec())
                    .collect(),
            );
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn write_then_read((cols, rows) in rows_strategy(), group_rows in 1usize..60, group_bytes in 16usize..5000, codec in codec_strategy()) {
        let bytes = write(cols, &rows, group_rows, group_bytes, codec);
        let back = read(&bytes, None);
        if cols == 0 {
            prop_assert_eq!(back.len(), rows.len());
        } else {
            prop_assert_eq!(back, rows);
        }
    }

    #[test]
    fn splits_cover_every_row_once((cols, rows) in rows_strategy(), group_rows in 1usize..40, cuts in proptest::collection::vec(any::<u64>(), 0..8)) {
        prop_assume!(cols > 0);
        let bytes = write(cols, &rows, group_rows, 1 << 20, None);
        let len = bytes.len() as u64;
        let mut points: Vec<u64> = cuts.iter().map(|c| c % (len + 1)).collect();
        points.push(0);
        points.push(len);
        points.sort_unstable();
        points.dedup();
        let mut all = Vec::new();
        for w in points.windows(2) {
            all.extend(read(&bytes, Some(w[0]..w[1])));
        }
        prop_assert_eq!(all, rows);
    }
}

/// Hive's own split boundary cases (TestRCFile.testSynAndSplit): splits that end right
/// before, inside, and right after a sync block.
#[test]
fn split_boundaries_around_a_sync() {
    let rows: Rows = (0..1000)
        .map(|i| vec![format!("{i:06}").into_bytes(), vec![b'v'; i % 50]])
        .collect();
    let bytes = write(2, &rows, 100, 1 << 20, None);
    let mut r = RcFileReader::new(bytes.as_slice()).unwrap();
    let mut syncs = Vec::new();
    while let Some(g) = r.next_row_group().unwrap() {
        if g.sync_before() {
            syncs.push(g.byte_range().start);
        }
    }
    assert!(
        syncs.len() >= 3,
        "expected several sync blocks, got {syncs:?}"
    );
    let len = bytes.len() as u64;
    for &s in &syncs {
        for cut in [s - 1, s, s + 1, s + 4, s + 19, s + 20, s + 21] {
            let mut all = read(&bytes, Some(0..cut));
            all.extend(read(&bytes, Some(cut..len)));
            assert_eq!(all.len(), rows.len(), "cut at {cut} (sync at {s})");
            assert_eq!(all, rows);
        }
    }
    // A split entirely inside one segment returns nothing.
    let inside = read(&bytes, Some(syncs[0] + 30..syncs[0] + 60));
    assert!(inside.is_empty());
}
