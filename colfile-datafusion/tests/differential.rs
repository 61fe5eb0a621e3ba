//! Differential test (issue 17, part 4): random TsFiles (table and tree model) and RCFiles,
//! random SQL over them answered by `colfile-datafusion`, and the same queries answered
//! here in plain Rust over the rows of the plain readers (`TsFileReader::query`,
//! `RowReader`). Every answer must be equal: rows as multisets (in order under ORDER BY),
//! values exactly (floats bit for bit or both NaN) except float sums (1e-9 of the summed
//! magnitudes, since the summation order differs).
//!
//! Deterministic: the base seed is fixed; `COLFILE_DIFF_SEED=N` picks another, and
//! `COLFILE_DIFF_QUERIES=N` sets the number of queries over all three parts (default 660).
//! A difference fails the test with the seed, the files (kept on disk), the SQL and both
//! answers.

mod differential {
    pub mod harness;
    pub mod model;
    pub mod query;
    pub mod rcfile;
    pub mod rng;
    pub mod ts_table;
    pub mod ts_tree;
    pub mod values;
}

use differential::harness::{run_part, Part};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tsfile_table_model_sql_equals_plain_reader() {
    run_part(Part {
        label: "tsfile table model",
        dir: "table",
        seed: 0x7AB1E,
        cases: 8,
        queries: 280,
        reader: "plain reader",
        strict_order: true,
        make: differential::ts_table::make,
        check: |_| None,
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tsfile_tree_model_sql_equals_plain_reader() {
    run_part(Part {
        label: "tsfile tree model",
        dir: "tree",
        seed: 0x7EE,
        cases: 6,
        queries: 170,
        reader: "plain reader",
        strict_order: false,
        make: differential::ts_tree::make,
        check: differential::ts_tree::check_prefix,
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rcfile_sql_equals_row_reader() {
    run_part(Part {
        label: "rcfile",
        dir: "rcfile",
        seed: 0x2CF,
        cases: 8,
        queries: 210,
        reader: "row reader",
        strict_order: true,
        make: differential::rcfile::make,
        check: |_| None,
    })
    .await;
}
