//! TsFile v4 metadata: structure round trips (proptest), fixture footers and indexes against
//! the independent parser's `raw.json` and the official library's `meta.jsonl`, the Bloom
//! filter bit for bit, the index writer byte for byte, and corrupt inputs.

#[path = "tsfile_format/corrupt.rs"]
mod corrupt;
#[path = "tsfile_format/fixtures.rs"]
mod fixtures;
#[path = "tsfile_format/props.rs"]
mod props;
