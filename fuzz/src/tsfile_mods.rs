//! Any bytes as an IoTDB modification file: the first byte picks text `.mods` (even) or binary
//! `.mods2` (odd), the rest is the file. Parsing must never panic; what parses must write back
//! as a file that parses to the same deletions, and matching them against a few series must
//! not panic either. Applied by the reader to a small tree-model file (aligned and
//! non-aligned devices, several chunks and pages), they must not make reading fail, and no
//! point that a deletion reaching every chunk covers may come back.
use std::sync::OnceLock;

use colfile::tsfile::mods::{binary, text, Deletion, Modifications, Target};
use colfile::tsfile::{
    Compression, DataType, DeviceId, Encoding, MeasurementSchema, Query, TsFileReader,
    TsFileWriter, ValueRef, WriterOptions,
};
use colfile::Limits;

/// The file the deletions are applied to: `root.sg.d1` (non-aligned) and `root.sg.a1`
/// (aligned), `s1` and `s2`, times 0..12 in three chunk groups of two-point pages.
fn target_file() -> &'static [u8] {
    static FILE: OnceLock<Vec<u8>> = OnceLock::new();
    FILE.get_or_init(|| {
        let mut options = WriterOptions::default();
        options.page_max_points = 2;
        let mut w = TsFileWriter::new(Vec::new(), options).expect("writer");
        let m = |n: &str| {
            MeasurementSchema::new(
                n,
                DataType::Int64,
                Encoding::Plain,
                Compression::Uncompressed,
            )
        };
        for (d, aligned) in [("root.sg.d1", false), ("root.sg.a1", true)] {
            w.register_device(d, aligned, vec![m("s1"), m("s2")])
                .expect("device");
        }
        for t in 0..12i64 {
            for d in ["root.sg.d1", "root.sg.a1"] {
                let row = [("s1", ValueRef::Int64(t)), ("s2", ValueRef::Int64(-t))];
                let n = if t % 3 == 0 { 1 } else { 2 };
                w.write_record(d, t, &row[..n]).expect("record");
            }
            if t % 4 == 3 {
                w.flush().expect("flush");
            }
        }
        w.finish_into_inner().expect("finish").0
    })
}

/// Whether a deletion that reaches every chunk of the file hides `device.measurement` at `t`.
fn surely_deleted(deletions: &[Deletion], device: &str, measurement: &str, t: i64) -> bool {
    let len = target_file().len() as i64;
    deletions.iter().any(|d| {
        let everywhere = d.file_offset.is_none_or(|o| o >= len);
        let hits = match &d.target {
            Target::Tree(p) => p.matches_path(device, measurement),
            Target::Table(_) => false,
        };
        everywhere && hits && d.start <= t && t <= d.end
    })
}

/// The target body.
pub fn run(data: &[u8]) {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let limits = Limits::default()
        .with_max_mods_entries(1000)
        .with_max_string_len(4096)
        .with_max_columns(1000);
    let parsed = if pick % 2 == 0 {
        text::parse(file, "fuzz.mods", &limits)
    } else {
        binary::parse(file, "fuzz.mods2", &limits)
    };
    let Ok(deletions) = parsed else {
        return;
    };
    if pick % 2 == 0 {
        let again = text::write(&deletions).expect("text deletions write back");
        let back = text::parse(&again, "again.mods", &limits).expect("written text parses");
        assert_eq!(back, deletions);
    } else {
        let again = binary::write(&deletions).expect("binary deletions write back");
        let back = binary::parse(&again, "again.mods2", &limits).expect("written bytes parse");
        assert_eq!(back, deletions);
    }
    let mods = Modifications::new(deletions.clone());
    for (device, measurement) in [
        ("root.sg.d1", "s1"),
        ("root.sg.`a.b`.d1", ""),
        ("root", "x"),
    ] {
        let r = mods.for_tree_series(device, measurement);
        let _ = (
            r.deletes(0, 0),
            r.covers(0, -1, 1),
            r.overlaps(u64::MAX, i64::MIN, i64::MAX),
        );
    }
    if let Ok(dev) = DeviceId::from_table("t", [Some("a"), None, Some("c")]) {
        let _ = mods.for_series(&dev, "s1").for_chunk(10);
    }
    let reader = TsFileReader::builder(target_file().to_vec())
        .with_modifications(mods)
        .build()
        .expect("the file opens");
    for batch in reader.query(&Query::all()).expect("query") {
        let b = batch.expect("deletions never make reading fail");
        let device = b.device.to_string();
        for c in &b.columns {
            let mut cur = c.cursor();
            for &t in &b.times {
                if !matches!(cur.next_value(), ValueRef::Null) {
                    assert!(
                        !surely_deleted(&deletions, &device, &c.name, t),
                        "{device}.{} at {t} survived its deletion",
                        c.name
                    );
                }
            }
        }
    }
}
