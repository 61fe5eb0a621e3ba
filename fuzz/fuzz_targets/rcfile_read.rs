//! Any bytes as an RCFile: header, every row group, every cell decoded with both serdes.
//! Must never panic; allocations are capped by Limits.
#![no_main]
use colfile::rcfile::{HiveType, Reader, Serde};
use colfile::Limits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default().with_max_alloc_bytes(1 << 24).with_max_columns(4096);
    let Ok(mut r) = Reader::builder(data).with_limits(limits).build() else { return };
    let types: [HiveType; 4] = [
        HiveType::Int,
        HiveType::String,
        "array<map<string,double>>".parse().unwrap(),
        "struct<a:timestamp,b:decimal(20,3)>".parse().unwrap(),
    ];
    let serdes = [Serde::text(), Serde::binary()];
    let mut out = Vec::new();
    while let Ok(Some(g)) = r.next_row_group() {
        for c in 0..g.num_columns().min(8) {
            for (i, serde) in serdes.iter().enumerate() {
                out.clear();
                let _ = g.decode_column(c, &types[(c + i) % types.len()], serde, &mut out);
            }
        }
    }
});
