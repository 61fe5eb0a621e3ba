//! Whole-file tools behind the `colfile` command, built on the reader and the writer:
//! checking a file ([`verify`](mod@verify)), rebuilding a cut one ([`recover`](mod@recover)),
//! its physical layout ([`layout`], and the JSON [`sketch`](mod@sketch) of it), and the JSON
//! the command prints and reads ([`json`], [`dump`], [`meta_json`]).
//!
//! | file | owns |
//! | --- | --- |
//! | `verify` (+ `verify/tree`) | [`VerifyReport`](verify::VerifyReport): every page, chunk, series and index node checked |
//! | `recover` | [`recover`](recover::recover()): the valid prefix of a cut file, with a new index |
//! | `recompute` | statistics recomputed from decoded values, and when stored ones agree |
//! | `layout` | chunk groups, chunks and pages read front to back; the index tree's nodes |
//! | `tree_copy` | [`copy_tree`](tree_copy::copy_tree): a tree-model file (v3 or v4) written again as v4 |
//! | `sketch` | that layout as JSON, like Java's `TsFileSketchTool` (`json` feature) |
//! | `json`, `dump`, `meta_json` | values, rows and metadata as JSON text (`json` feature) |

#[cfg(feature = "json")]
pub mod dump;
#[cfg(feature = "json")]
pub mod json;
pub mod layout;
#[cfg(feature = "json")]
pub mod meta_json;
pub mod recompute;
pub mod recover;
#[cfg(feature = "json")]
pub mod sketch;
pub mod tree_copy;
pub mod verify;
