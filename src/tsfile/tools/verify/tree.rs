//! The metadata index tree checks of [`verify`](super::verify) (`spec/tsfile.md` §10, §8.3):
//! within every node the keys strictly increase and the children lie before the node (a
//! writer stores a node after everything it points at); every entry's key is the first key
//! of what it points at — the first device of a device-level child, the first measurement
//! of a measurement-level child or of the TimeseriesMetadata run under a
//! LEAF_MEASUREMENT entry. The walk itself ([`index_layout`](crate::tsfile::tools::layout::index_layout))
//! already rejects child offsets that do not increase or leave the metadata region.
//!
//! Problems are located at the entry's byte offset when the node lies between the separator
//! and the footer, else (a table root, stored inside the footer) at the footer's start.

use std::fmt;

use super::{Check, Problem, VerifyReport};
use crate::tsfile::format::device::java_str_cmp;
use crate::tsfile::format::{DeviceId, NodeEntries, NodeType};
use crate::tsfile::read::metadata::FileMetadata;
use crate::tsfile::tools::layout::{IndexLayout, NodeLayout};

/// An index key: a device or a measurement.
#[derive(PartialEq)]
enum Key<'a> {
    Device(&'a DeviceId),
    Measurement(&'a str),
}

impl fmt::Display for Key<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Device(d) => write!(f, "device {d}"),
            Key::Measurement(m) => write!(f, "{m:?}"),
        }
    }
}

fn key(entries: &NodeEntries, i: usize) -> Option<Key<'_>> {
    match entries {
        NodeEntries::Device(v) => v.get(i).map(|e| Key::Device(&e.device)),
        NodeEntries::Measurement(v) => v.get(i).map(|e| Key::Measurement(&e.measurement)),
    }
}

/// Where a node is, for messages and problem offsets.
struct Place<'a> {
    meta: &'a FileMetadata,
    node: &'a NodeLayout,
    entries: Option<Vec<u64>>,
}

impl<'a> Place<'a> {
    fn new(meta: &'a FileMetadata, node: &'a NodeLayout) -> Self {
        let entries = node.range.map(|(s, _)| node.node.entry_offsets(s));
        Place {
            meta,
            node,
            entries,
        }
    }

    /// `entry 2 ("s008") of the LEAF_MEASUREMENT node at byte 6975 of table t`, and that
    /// entry's offset (the footer's start for a root).
    fn entry(&self, i: usize) -> (String, u64) {
        let n = self.node;
        let k = key(&n.node.entries, i).map_or(String::new(), |k| format!(" ({k})"));
        let (what, at) = match (n.range, &self.entries) {
            (Some((s, _)), Some(offsets)) => (
                format!("node at byte {s}"),
                offsets.get(i).copied().unwrap_or(s),
            ),
            _ => ("root".to_owned(), self.meta.footer_start()),
        };
        let msg = format!(
            "entry {i}{k} of the {} {what} of table {}",
            n.node.node_type.name(),
            n.table
        );
        (msg, at)
    }

    /// A problem about entry `i`, with the device when one is known.
    fn problem(&self, check: Check, i: usize, what: impl fmt::Display) -> Problem {
        let (msg, at) = self.entry(i);
        let mut p = Problem::new(check, format!("{msg}: {what}")).at(at);
        p.device = match (&self.node.device, &self.node.node.entries) {
            (Some(d), _) => Some(d.to_string()),
            (None, NodeEntries::Device(v)) => v.get(i).map(|e| e.device.to_string()),
            _ => None,
        };
        p
    }
}

/// Key order, child placement and first-key agreement of every node of `index`.
pub(super) fn check_tree(
    meta: &FileMetadata,
    index: &IndexLayout,
    r: &mut VerifyReport,
    max: usize,
) {
    let places: Vec<Place<'_>> = index.nodes.iter().map(|n| Place::new(meta, n)).collect();
    for (n, place) in index.nodes.iter().zip(&places) {
        let entries = &n.node.entries;
        let unordered = match entries {
            NodeEntries::Device(v) => v
                .windows(2)
                .position(|w| matches!(w, [a, b] if a.device >= b.device)),
            NodeEntries::Measurement(v) => v.windows(2).position(
                |w| matches!(w, [a, b] if java_str_cmp(&a.measurement, &b.measurement).is_ge()),
            ),
        }
        .map(|i| i + 1);
        if let Some(i) = unordered {
            let prev = key(entries, i - 1)
                .map(|k| k.to_string())
                .unwrap_or_default();
            let msg = format!("is not after the entry before it ({prev})");
            r.push(max, place.problem(Check::IndexOrder, i, msg));
        }
        if let Some((start, _)) = n.range.filter(|(s, _)| n.node.end_offset as u64 > *s) {
            let last = entries.len().saturating_sub(1);
            let msg = format!(
                "the children end at byte {}, after the node itself at byte {start} \
                 (a node is written after its children)",
                n.node.end_offset
            );
            r.push(max, place.problem(Check::IndexOffset, last, msg));
        }
        let Some((p, i)) = n.parent else { continue };
        // `places` has one entry per node; a parent index always names a node.
        let (Some(parent), Some(parent_place)) = (index.nodes.get(p), places.get(p)) else {
            continue;
        };
        if matches!(
            parent.node.node_type,
            NodeType::InternalDevice | NodeType::InternalMeasurement
        ) {
            let (want, first) = (key(&parent.node.entries, i), key(entries, 0));
            if let (Some(want), Some(first)) = (want, first) {
                if want != first {
                    let at = n.range.map_or(0, |(s, _)| s);
                    let msg = format!("the child node at byte {at} starts with {first}");
                    r.push(max, parent_place.problem(Check::IndexOrder, i, msg));
                }
            }
        }
    }
    let mut prev = None;
    for s in &index.series {
        let first_of_run = prev != Some(s.parent);
        prev = Some(s.parent);
        let (p, i) = s.parent;
        let (want, place) = match (index.nodes.get(p), places.get(p)) {
            (Some(node), Some(place)) => (key(&node.node.entries, i), place),
            _ => continue,
        };
        let name = s.metadata.measurement_id.as_str();
        if first_of_run && want.is_some_and(|k| k != Key::Measurement(name)) {
            let msg = format!(
                "the TimeseriesMetadata run it points at (byte {}) starts with {name:?}",
                s.range.0
            );
            let mut p = place.problem(Check::IndexOrder, i, msg);
            p.measurement = Some(name.to_owned());
            r.push(max, p);
        }
    }
}
