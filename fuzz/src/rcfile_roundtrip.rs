//! Structured write-then-read of RCFile containers: arbitrary rows of raw cells, written with
//! an arbitrary codec, header version, row-group cuts and metadata, must read back cell for
//! cell (short rows padded with empty cells).
use arbitrary::{Arbitrary, Unstructured};
use colfile::compress::HadoopCodec;
use colfile::rcfile::{HeaderVersion, RcFileReader, RcFileWriter};

#[derive(Debug, Arbitrary)]
struct Spec {
    columns: u8,
    codec: u8,
    seq6: bool,
    validate: bool,
    group_rows: u8,
    group_bytes: u16,
    metadata: Vec<(String, String)>,
    rows: Vec<Vec<Vec<u8>>>,
}

/// The target body.
pub fn run(data: &[u8]) {
    let Ok(spec) = Spec::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let ncols = 1 + spec.columns as usize % 8;
    let codec = HadoopCodec::ALL.get(spec.codec as usize % (HadoopCodec::ALL.len() + 1));
    let mut b = RcFileWriter::builder(Vec::new(), ncols)
        .with_codec(codec.copied())
        .with_version(if spec.seq6 {
            HeaderVersion::Seq6
        } else {
            HeaderVersion::Rcf1
        })
        .with_row_group_rows(1 + spec.group_rows as usize)
        .with_row_group_bytes(1 + spec.group_bytes as usize)
        .with_validation(spec.validate)
        .with_sync([0x5a; 16]);
    for (k, v) in spec.metadata.iter().take(4) {
        b = b.with_metadata(k.as_str(), v.as_str());
    }
    // Metadata the writer refuses (e.g. a key it writes itself) is not what is tested here.
    let Ok(mut w) = b.build() else { return };
    let mut expected: Vec<Vec<Vec<u8>>> = Vec::new();
    for row in spec.rows.iter().take(500) {
        let mut cells: Vec<Vec<u8>> = row.iter().take(ncols).cloned().collect();
        w.write_row(&cells)
            .unwrap_or_else(|e| panic!("write_row: {e}"));
        cells.resize(ncols, Vec::new());
        expected.push(cells);
    }
    let (bytes, summary) = w
        .finish_into_inner()
        .unwrap_or_else(|e| panic!("finish: {e}"));
    assert_eq!(summary.rows, expected.len() as u64);
    let mut r = RcFileReader::new(bytes.as_slice()).unwrap_or_else(|e| panic!("open: {e}"));
    let mut next = 0;
    while let Some(g) = r
        .next_row_group()
        .unwrap_or_else(|e| panic!("row group: {e}"))
    {
        assert_eq!(g.num_columns(), ncols);
        let rows = expected
            .get(next..next + g.num_rows())
            .expect("no more rows than written");
        for (i, want) in rows.iter().enumerate() {
            for (c, cell) in want.iter().enumerate() {
                let col = g.column(c).expect("every column is read");
                let got = col.cell(i);
                assert_eq!(got, Some(cell.as_slice()), "row {} col {c}", next + i);
            }
        }
        next += g.num_rows();
    }
    assert_eq!(next, expected.len(), "rows read");
}
