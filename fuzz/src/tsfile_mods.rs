//! Any bytes as an IoTDB modification file: the first byte picks text `.mods` (even) or binary
//! `.mods2` (odd), the rest is the file. Parsing must never panic; what parses must write back
//! as a file that parses to the same deletions, and matching them against a few series must
//! not panic either.
use colfile::tsfile::mods::{binary, text, Modifications};
use colfile::tsfile::DeviceId;
use colfile::Limits;

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
    let mods = Modifications::new(deletions);
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
}
