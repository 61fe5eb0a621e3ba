//! Rows a [`TsFileArrowWriter`](super::TsFileArrowWriter) has accepted but not yet handed to
//! the TsFile writer: the batches' columns (shared, not copied) and, for every device, the
//! rows of each batch that are its. Holding rows back lets each device's rows of many
//! batches be copied once, into buffers of the right size, on several threads.

use std::collections::HashMap;
use std::ops::Range;

use arrow_array::{Array, ArrayRef};

use crate::tsfile::format::DeviceId;

/// Some rows of one batch, in order: a run (a device's rows in a batch sorted by device,
/// the common case) or a list.
#[derive(Debug, Clone)]
pub(super) enum Rows {
    Run(Range<usize>),
    List(Vec<usize>),
}

impl Rows {
    /// Adds the rows `run` (after every row held).
    pub fn push_run(&mut self, run: Range<usize>) {
        match self {
            Rows::Run(r) if r.end == run.start => r.end = run.end,
            Rows::Run(r) => {
                let mut list: Vec<usize> = r.clone().collect();
                list.extend(run);
                *self = Rows::List(list);
            }
            Rows::List(l) => l.extend(run),
        }
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        match self {
            Rows::Run(r) => r.len(),
            Rows::List(l) => l.len(),
        }
    }

    /// The rows, in order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let (run, list) = match self {
            Rows::Run(r) => (Some(r.clone()), None),
            Rows::List(l) => (None, Some(l.iter().copied())),
        };
        run.into_iter().flatten().chain(list.into_iter().flatten())
    }
}

/// The columns of one accepted batch, by role (see `Matched`).
#[derive(Debug)]
pub(super) struct Held {
    pub time: ArrayRef,
    pub values: Vec<Option<ArrayRef>>,
}

/// One device the writer has seen.
#[derive(Debug)]
pub(super) struct Device {
    /// Its TAG values (tree model: its path).
    pub key: Vec<Option<String>>,
    pub id: DeviceId,
    /// The last time accepted (held or written).
    pub last: Option<i64>,
    /// Its held rows: (index into [`Pending::held`], rows of that batch).
    pub parts: Vec<(usize, Rows)>,
}

/// Held batches and every device seen, in the order first seen.
#[derive(Debug, Default)]
pub(super) struct Pending {
    pub held: Vec<Held>,
    pub devices: Vec<Device>,
    /// Devices by their encoded key (see [`encode_key`]).
    index: HashMap<Vec<u8>, usize>,
    /// Bytes of the held rows.
    pub bytes: usize,
}

/// `key` as bytes that differ for different keys: per value, 0 for null or 1, the length
/// and the bytes.
pub(super) fn encode_key<'a>(key: impl Iterator<Item = Option<&'a str>>, out: &mut Vec<u8>) {
    out.clear();
    for v in key {
        match v {
            None => out.push(0),
            Some(s) => {
                out.push(1);
                out.extend_from_slice(&(s.len() as u64).to_le_bytes());
                out.extend_from_slice(s.as_bytes());
            }
        }
    }
}

impl Device {
    /// How many rows are held.
    pub fn rows(&self) -> usize {
        self.parts.iter().map(|(_, r)| r.len()).sum()
    }
}

impl Pending {
    /// The device of encoded key `code`, made by `new` when first seen.
    pub fn device(
        &mut self,
        code: &[u8],
        new: impl FnOnce() -> crate::Result<(Vec<Option<String>>, DeviceId)>,
    ) -> crate::Result<usize> {
        if let Some(&i) = self.index.get(code) {
            return Ok(i);
        }
        let (key, id) = new()?;
        self.devices.push(Device {
            key,
            id,
            last: None,
            parts: Vec::new(),
        });
        self.index.insert(code.to_vec(), self.devices.len() - 1);
        Ok(self.devices.len() - 1)
    }

    /// Holds `batch`'s columns and gives each device in `groups` its rows.
    pub fn hold(&mut self, batch: Held, groups: Vec<(usize, Rows, i64)>) {
        let at = self.held.len();
        let slice = |a: &ArrayRef| {
            (a.to_data().get_slice_memory_size()).unwrap_or_else(|_| a.get_array_memory_size())
        };
        self.bytes += slice(&batch.time) + batch.values.iter().flatten().map(slice).sum::<usize>();
        self.held.push(batch);
        for (d, rows, last) in groups {
            if let Some(dev) = self.devices.get_mut(d) {
                dev.parts.push((at, rows));
                dev.last = Some(last);
            }
        }
    }

    /// Forgets the held rows (once written).
    pub fn clear(&mut self) {
        self.held.clear();
        self.bytes = 0;
        for d in &mut self.devices {
            d.parts.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_stay_a_run_until_a_gap() {
        let mut r = Rows::Run(3..4);
        r.push_run(4..5);
        assert!(matches!(&r, Rows::Run(x) if *x == (3..5)));
        r.push_run(9..11);
        assert!(matches!(&r, Rows::List(_)));
        r.push_run(12..13);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![3, 4, 9, 10, 12]);
        assert_eq!(r.len(), 5);
    }

    #[test]
    fn keys_with_nulls_and_splits_differ() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        encode_key([Some("ab"), Some("c")].into_iter(), &mut a);
        encode_key([Some("a"), Some("bc")].into_iter(), &mut b);
        assert_ne!(a, b);
        encode_key([None, Some("x")].into_iter(), &mut a);
        encode_key([Some(""), Some("x")].into_iter(), &mut b);
        assert_ne!(a, b);
    }
}
