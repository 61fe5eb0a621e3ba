//! How every command opens a TsFile for reading: with its limits and, unless `--no-mods`,
//! the IoTDB deletions recorded beside it (`FILE.mods`, `FILE.mods2`).

use crate::input::Input;
use colfile::tsfile::TsFileReader;
use colfile::Limits;
use std::path::Path;

/// Opens `src` (the file at `path`) under `limits`, applying its deletions unless `no_mods`.
pub fn reader(
    src: Input,
    path: &Path,
    limits: &Limits,
    no_mods: bool,
) -> colfile::Result<TsFileReader<Input>> {
    TsFileReader::builder(src)
        .with_limits(limits.clone())
        .with_mods_of(path)
        .with_mods(!no_mods)
        .build()
}
