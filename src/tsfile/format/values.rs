//! [`Values`]: a run of decoded values of one physical type, as pages decode into and page
//! writers encode from. Byte strings are stored Arrow-style (one buffer plus offsets) so that
//! columnar batches fall out of the read path without a copy per value.

use crate::tsfile::format::{DataType, Physical};
use crate::Result;

/// Byte strings in one buffer: value `i` is `data[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryValues {
    offsets: Vec<usize>,
    data: Vec<u8>,
}

impl Default for BinaryValues {
    fn default() -> Self {
        BinaryValues {
            offsets: vec![0],
            data: Vec::new(),
        }
    }
}

impl BinaryValues {
    /// Empty, with room for `values` values of `bytes` bytes in all.
    pub fn with_capacity(values: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(values + 1);
        offsets.push(0);
        BinaryValues {
            offsets,
            data: Vec::with_capacity(bytes),
        }
    }
    /// Makes room for `values` more values of `bytes` more bytes in all.
    pub fn reserve(&mut self, values: usize, bytes: usize) {
        self.offsets.reserve(values);
        self.data.reserve(bytes);
    }
    /// Appends `window[..len]` (`len` ≤ 16) by copying the whole window and cutting it back:
    /// a fixed-size copy, without a call to `memcpy` for each short value.
    #[inline]
    pub(crate) fn push_from_window(&mut self, window: &[u8; 16], len: usize) {
        extend_short(&mut self.data, window, len);
        self.offsets.push(self.data.len());
    }
    /// Number of values.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }
    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Value `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let (&a, &b) = (self.offsets.get(i)?, self.offsets.get(i + 1)?);
        self.data.get(a..b)
    }
    /// Appends a value.
    pub fn push(&mut self, v: &[u8]) {
        self.data.extend_from_slice(v);
        self.offsets.push(self.data.len());
    }
    /// Appends the run of Arrow-style values `offsets.len() - 1` values whose bytes are
    /// `data[offsets[i]..offsets[i + 1]]` (offsets non-decreasing): one copy of their bytes.
    ///
    /// Errors: offsets that decrease or run past `data`.
    pub fn extend_from_offsets(&mut self, data: &[u8], offsets: &[i32]) -> Result<()> {
        let bad = || crate::Error::invalid("binary offsets decrease or run past their data");
        let (Some(&start), Some(&end)) = (offsets.first(), offsets.last()) else {
            return Ok(());
        };
        let (start, end) = (usize::try_from(start).map_err(|_| bad())?, end as usize);
        let bytes = data.get(start..end).ok_or_else(bad)?;
        let increasing =
            (offsets.iter().zip(offsets.iter().skip(1))).fold(true, |ok, (a, b)| ok & (a <= b));
        if !increasing {
            return Err(bad());
        }
        let base = self.data.len();
        self.data.extend_from_slice(bytes);
        let rest = offsets.get(1..).unwrap_or_default();
        self.offsets
            .extend(rest.iter().map(|&o| base + (o as usize - start)));
        Ok(())
    }
    /// The values in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.offsets.windows(2).map(|w| match *w {
            [start, end] => self.data.get(start..end).unwrap_or_default(),
            _ => &[],
        })
    }
    /// All value bytes, back to back.
    pub fn data(&self) -> &[u8] {
        &self.data
    }
    /// `len() + 1` offsets into [`data`](Self::data), starting at 0.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }
    /// Removes every value, keeping the buffers.
    pub fn clear(&mut self) {
        self.offsets.truncate(1);
        self.data.clear();
    }
    /// Bytes allocated for values and offsets (capacity).
    pub fn allocated_bytes(&self) -> usize {
        self.data.capacity() + self.offsets.capacity() * std::mem::size_of::<usize>()
    }
    /// Total bytes of all values.
    pub fn data_len(&self) -> usize {
        self.data.len()
    }
    /// The [`offsets`](Self::offsets) and [`data`](Self::data) buffers, moved out.
    pub fn into_parts(self) -> (Vec<usize>, Vec<u8>) {
        (self.offsets, self.data)
    }
}

/// Appends `window[..len]` (`len` ≤ 16) to `out` by copying the whole window and cutting
/// it back: a fixed-size copy, without a call to `memcpy` for each short value.
#[inline]
pub(crate) fn extend_short(out: &mut Vec<u8>, window: &[u8; 16], len: usize) {
    let at = out.len();
    out.extend_from_slice(window);
    out.truncate(at + len.min(16));
}

impl<'a> FromIterator<&'a [u8]> for BinaryValues {
    fn from_iter<I: IntoIterator<Item = &'a [u8]>>(iter: I) -> Self {
        let mut b = BinaryValues::default();
        for v in iter {
            b.push(v);
        }
        b
    }
}

/// Decoded values of one physical type (see [`Physical`]); DATE is `Int32`, TIMESTAMP and
/// time columns are `Int64`, TEXT/STRING/BLOB are `Binary`.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// BOOLEAN.
    Boolean(Vec<bool>),
    /// INT32 and DATE.
    Int32(Vec<i32>),
    /// INT64, TIMESTAMP and time.
    Int64(Vec<i64>),
    /// FLOAT.
    Float(Vec<f32>),
    /// DOUBLE.
    Double(Vec<f64>),
    /// TEXT, STRING, BLOB, OBJECT.
    Binary(BinaryValues),
}

impl Values {
    /// An empty run for `physical`.
    pub fn new(physical: Physical) -> Values {
        match physical {
            Physical::Boolean => Values::Boolean(Vec::new()),
            Physical::Int32 => Values::Int32(Vec::new()),
            Physical::Int64 => Values::Int64(Vec::new()),
            Physical::Float => Values::Float(Vec::new()),
            Physical::Double => Values::Double(Vec::new()),
            Physical::Binary => Values::Binary(BinaryValues::default()),
        }
    }
    /// An empty run for `data_type`.
    pub fn for_type(data_type: DataType) -> Result<Values> {
        Ok(Values::new(data_type.physical()?))
    }
    /// The physical type.
    pub fn physical(&self) -> Physical {
        match self {
            Values::Boolean(_) => Physical::Boolean,
            Values::Int32(_) => Physical::Int32,
            Values::Int64(_) => Physical::Int64,
            Values::Float(_) => Physical::Float,
            Values::Double(_) => Physical::Double,
            Values::Binary(_) => Physical::Binary,
        }
    }
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Boolean(v) => v.len(),
            Values::Int32(v) => v.len(),
            Values::Int64(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Double(v) => v.len(),
            Values::Binary(v) => v.len(),
        }
    }
    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Removes every value, keeping the buffers.
    pub fn clear(&mut self) {
        match self {
            Values::Boolean(v) => v.clear(),
            Values::Int32(v) => v.clear(),
            Values::Int64(v) => v.clear(),
            Values::Float(v) => v.clear(),
            Values::Double(v) => v.clear(),
            Values::Binary(v) => v.clear(),
        }
    }
}

impl Values {
    /// Keeps the first `n` values (all of them if there are fewer).
    pub fn truncate(&mut self, n: usize) {
        match self {
            Values::Boolean(v) => v.truncate(n),
            Values::Int32(v) => v.truncate(n),
            Values::Int64(v) => v.truncate(n),
            Values::Float(v) => v.truncate(n),
            Values::Double(v) => v.truncate(n),
            Values::Binary(v) => {
                if let Some(&end) = v.offsets.get(n) {
                    v.offsets.truncate(n + 1);
                    v.data.truncate(end);
                }
            }
        }
    }

    /// Appends `other[range]`, which must be of the same physical type.
    ///
    /// Errors: another physical type, or a range outside `other`.
    pub fn extend_from(&mut self, other: &Values, range: std::ops::Range<usize>) -> Result<()> {
        let mine = self.physical();
        let bad = || {
            crate::Error::invalid(format!(
                "cannot append {:?} values {range:?} of {} to {mine:?} values",
                other.physical(),
                other.len(),
            ))
        };
        match (&mut *self, other) {
            (Values::Boolean(a), Values::Boolean(b)) => {
                a.extend_from_slice(b.get(range.clone()).ok_or_else(bad)?)
            }
            (Values::Int32(a), Values::Int32(b)) => {
                a.extend_from_slice(b.get(range.clone()).ok_or_else(bad)?)
            }
            (Values::Int64(a), Values::Int64(b)) => {
                a.extend_from_slice(b.get(range.clone()).ok_or_else(bad)?)
            }
            (Values::Float(a), Values::Float(b)) => {
                a.extend_from_slice(b.get(range.clone()).ok_or_else(bad)?)
            }
            (Values::Double(a), Values::Double(b)) => {
                a.extend_from_slice(b.get(range.clone()).ok_or_else(bad)?)
            }
            (Values::Binary(a), Values::Binary(b)) => {
                if range.end > b.len() || range.start > range.end {
                    return Err(bad());
                }
                let offsets = &b.offsets;
                let (Some(&lo), Some(&hi), Some(ends)) = (
                    offsets.get(range.start),
                    offsets.get(range.end),
                    offsets.get(range.start + 1..=range.end),
                ) else {
                    return Err(bad());
                };
                let base = a.data.len();
                a.data
                    .extend_from_slice(b.data.get(lo..hi).ok_or_else(bad)?);
                a.offsets.extend(ends.iter().map(|&o| o - lo + base));
            }
            _ => return Err(bad()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::BinaryValues;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_run_of_offsets_appends_as_value_by_value_pushes(
            before in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..5), 0..4),
            values in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..5), 0..12),
            cut in (0usize..13, 0usize..13),
        ) {
            let (mut data, mut offsets) = (Vec::new(), vec![0i32]);
            for v in &values {
                data.extend_from_slice(v);
                offsets.push(data.len() as i32);
            }
            let (a, b) = (cut.0.min(values.len()), cut.1.min(values.len()));
            let (a, b) = (a.min(b), a.max(b));
            let (mut bulk, mut one_by_one) = (BinaryValues::default(), BinaryValues::default());
            for v in &before {
                bulk.push(v);
                one_by_one.push(v);
            }
            bulk.extend_from_offsets(&data, &offsets[a..=b]).unwrap();
            for v in &values[a..b] {
                one_by_one.push(v);
            }
            prop_assert_eq!(bulk, one_by_one);
        }
    }

    #[test]
    fn bad_offsets_are_refused() {
        let mut v = BinaryValues::default();
        assert!(v.extend_from_offsets(b"abc", &[0, 2, 1]).is_err());
        assert!(v.extend_from_offsets(b"abc", &[0, 4]).is_err());
        assert!(v.extend_from_offsets(b"abc", &[-1, 2]).is_err());
        assert!(v.is_empty());
        v.extend_from_offsets(b"abc", &[1, 3]).unwrap();
        assert_eq!(v.get(0), Some(&b"bc"[..]));
    }
}
