//! Any bytes as an RCFile: header, every row group, the first columns' cells decoded with
//! both serdes as types from [`super::HIVE_TYPES`]. Must never panic; allocations are capped
//! by Limits.
use colfile::rcfile::{HiveType, RcFileReader, Serde};
use colfile::Limits;

/// The target body.
pub fn run(data: &[u8]) {
    let limits = Limits::default()
        .with_max_alloc_bytes(1 << 24)
        .with_max_columns(4096);
    let Ok(mut r) = RcFileReader::builder(data).with_limits(limits).build() else {
        return;
    };
    let types: Vec<HiveType> = super::HIVE_TYPES
        .iter()
        .map(|t| t.parse().expect("a valid type"))
        .collect();
    let serdes = [Serde::text(), Serde::binary()];
    let mut out = Vec::new();
    let mut group = 0;
    while let Ok(Some(g)) = r.next_row_group() {
        for c in 0..g.num_columns().min(8) {
            for (i, serde) in serdes.iter().enumerate() {
                out.clear();
                let ty = &types[(c * 3 + i + group) % types.len()];
                let _ = g.decode_column(c, ty, serde, &mut out);
            }
        }
        group += 1;
    }
}
