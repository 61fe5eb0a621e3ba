//! The generator of `fixtures/bad/`: every damaged file is made from a fixture of
//! `fixtures/rcfile`, `fixtures/tsfile` or `fixtures/mods` by one damage described in code
//! ([`super::rc_gen`], [`super::ts_gen`], [`super::v3_gen`], [`super::mods_gen`]), with
//! offsets found by parsing the source. Rewrite the corpus with
//! `cargo test --test bad_fixtures -- --ignored regenerate`.

use std::path::{Path, PathBuf};

/// Largest damaged file we commit.
pub const MAX_FILE: usize = 64 << 10;

/// A damaged file and where its damage is.
pub struct Made {
    pub bytes: Vec<u8>,
    /// The byte offset the damage is about (what a located error should name), as the
    /// generator computed it from the source; for a damaged RCFile cell, its row.
    pub mark: u64,
    /// TsFile: offset of the header of the chunk the damage is in.
    pub chunk: Option<u64>,
    /// TsFile: index of the damaged page in that chunk.
    pub page: Option<u32>,
}

impl Made {
    pub fn at(bytes: Vec<u8>, mark: u64) -> Made {
        Made {
            bytes,
            mark,
            chunk: None,
            page: None,
        }
    }
    pub fn in_chunk(mut self, chunk: u64) -> Made {
        self.chunk = Some(chunk);
        self
    }
    pub fn in_page(mut self, page: u32) -> Made {
        self.page = Some(page);
        self
    }
}

/// One damaged file: its name in `fixtures/bad/<format>/`, the fixture it derives from
/// (name without extension; for [`Format::Mods`] the whole file name) and the damage.
pub struct Case {
    pub file: &'static str,
    pub source: &'static str,
    pub make: fn(Vec<u8>) -> Made,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    RcFile,
    TsFile,
    /// IoTDB deletion files: `.mods` (text) and `.mods2` (binary).
    Mods,
}

impl Format {
    pub fn dir_name(self) -> &'static str {
        match self {
            Format::RcFile => "rcfile",
            Format::TsFile => "tsfile",
            Format::Mods => "mods",
        }
    }
    fn ext(self) -> &'static str {
        match self {
            Format::RcFile => "rc",
            Format::TsFile => "tsfile",
            Format::Mods => "",
        }
    }
    pub const ALL: [Format; 3] = [Format::RcFile, Format::TsFile, Format::Mods];
    pub fn cases(self) -> Vec<Case> {
        match self {
            Format::RcFile => super::rc_gen::cases(),
            Format::TsFile => {
                let mut all = super::ts_gen::cases();
                all.extend(super::v3_gen::cases());
                all
            }
            Format::Mods => super::mods_gen::cases(),
        }
    }
}

pub fn bad_dir(f: Format) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/bad")
        .join(f.dir_name())
}

pub fn source_path(f: Format, source: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(f.dir_name())
        .join(match f.ext() {
            "" => source.to_owned(),
            ext => format!("{source}.{ext}"),
        })
}

/// Applies the damage of `case` to a fresh copy of its source.
pub fn make(f: Format, case: &Case) -> Made {
    let path = source_path(f, case.source);
    let src = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let made = (case.make)(src.clone());
    assert_ne!(made.bytes, src, "{}: the damage changed nothing", case.file);
    assert!(
        made.bytes.len() < MAX_FILE,
        "{}: {} bytes",
        case.file,
        made.bytes.len()
    );
    made
}

#[test]
#[ignore]
fn regenerate_bad_fixtures() {
    for f in Format::ALL {
        let dir = bad_dir(f);
        std::fs::create_dir_all(&dir).unwrap();
        for case in f.cases() {
            let made = make(f, &case);
            std::fs::write(dir.join(case.file), &made.bytes).unwrap();
        }
    }
}
