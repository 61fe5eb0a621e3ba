//! What the TsFile v3 files (`fixtures/bad/tsfile/v3_*`) fail with. `Mark` is the offset
//! the generator recorded for the damage.

use super::expect::{expect, Expect, Kind::*, Pos::*};

pub fn v3_table() -> Vec<(&'static str, Expect)> {
    let meta = "file metadata";
    vec![
        (
            "v3_head_v0.8.0.tsfile",
            expect(
                Unsupported,
                "TsFile v0.8.0 (IoTDB 0.x, before v3) is not supported",
            )
            .offset(Abs(6)),
        ),
        (
            "v3_head_000002.tsfile",
            expect(Unsupported, "TsFile v2 (IoTDB 0.10–0.11) is not supported").offset(Abs(6)),
        ),
        (
            "v3_index_device_null.tsfile",
            expect(Corrupt, "v3 device id is null")
                .offset(Mark)
                .section(meta),
        ),
        (
            "v3_index_device_length_huge.tsfile",
            expect(Truncated, "v3 device id: needed 2147483647")
                .offset(Mark)
                .section(meta),
        ),
        (
            "v3_root_measurement_type.tsfile",
            expect(
                Corrupt,
                "index node of type LEAF_MEASUREMENT where a device-level node belongs",
            )
            .offset(Mark)
            .section(meta),
        ),
        (
            "v3_root_empty_not_device_level.tsfile",
            expect(Corrupt, "v3 root is not a device-level node")
                .offset(Mark)
                .section(meta),
        ),
        (
            "v3_footer_leftover_bytes.tsfile",
            expect(Corrupt, "3 bytes left over after the v3 file metadata")
                .offset(Mark)
                .section(meta),
        ),
    ]
}
