//! A test-only TsFile v3 writer: our v4 writer's data section with every chunk-group header
//! rewritten to the v3 form (`00` + the device path as one `VarStr`), then `recover`, which
//! keeps a v3 data section v3 and writes the v3 index and footer for it. Chunks, pages and
//! codecs are byte-identical to the v4 file, so the v3 and v4 files hold the same data.

use colfile::tsfile::tools::layout::scan_data;
use colfile::Limits;

/// Appends a zigzag `VarInt` length and the bytes.
fn put_var_str(out: &mut Vec<u8>, s: &str) {
    let n = s.len() as i64;
    let mut z = ((n << 1) ^ (n >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
    out.extend_from_slice(s.as_bytes());
}

/// The v3 data section of `v4` (head, chunk groups with v3 headers, the `02` separator),
/// without metadata.
pub fn v3_data_section(v4: &[u8]) -> Vec<u8> {
    let data = scan_data(v4, &Limits::default()).expect("a v4 file we wrote scans");
    assert!(data.stop.is_none(), "{:?}", data.stop);
    let sep = data.separator.expect("separator") as usize;
    let mut out = b"TsFile\x03".to_vec();
    let mut pos = 7usize;
    for g in &data.groups {
        let start = g.offset as usize;
        out.extend_from_slice(&v4[pos..start]);
        let body = g.chunks.first().map_or(sep, |c| c.offset as usize);
        out.push(0x00);
        put_var_str(&mut out, &g.device.to_string());
        pos = body;
    }
    out.extend_from_slice(&v4[pos..=sep]);
    out
}

/// A complete v3 file with the same data as the v4 file `v4`.
pub fn to_v3(v4: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    colfile::tsfile::recover(v3_data_section(v4).as_slice(), &mut out).expect("recover v3");
    out
}
