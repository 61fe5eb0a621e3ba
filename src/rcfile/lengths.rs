//! Run-length encoding of cell lengths in the key section: each length is a VLong; a run of
//! `k` equal lengths is written as the length followed by `~(k-1)` (a negative VLong).
//! `1,1,1,2` → `01 FD 02`.

use crate::rcfile::hadoop::{decode_vlong, write_vlong};
use crate::{Error, Result};

/// Builds one column's lengths buffer as Hive's writer does, one cell at a time.
#[derive(Debug, Default, Clone)]
pub struct LengthsEncoder {
    buf: Vec<u8>,
    prev: Option<i64>,
    extra: i64,
}

impl LengthsEncoder {
    /// Records the next cell length.
    #[inline]
    pub fn push(&mut self, len: usize) {
        let len = len as i64;
        match self.prev {
            Some(p) if p == len => self.extra += 1,
            _ => {
                self.emit();
                self.prev = Some(len);
                self.extra = 0;
            }
        }
    }
    fn emit(&mut self) {
        if let Some(p) = self.prev {
            write_vlong(&mut self.buf, p);
            if self.extra > 0 {
                write_vlong(&mut self.buf, !self.extra);
            }
        }
    }
    /// Finishes the run in progress and returns the buffer, leaving the encoder empty.
    pub fn finish(&mut self) -> Vec<u8> {
        self.emit();
        self.prev = None;
        self.extra = 0;
        std::mem::take(&mut self.buf)
    }
}

/// Decodes a lengths buffer into cell end offsets: `offsets[0] = 0`, `offsets[i+1]` = end of
/// cell `i`. Checks that exactly `rows` lengths are present, that they sum to `plain_len` and
/// that no bytes are left over. Positions in errors are within the lengths buffer.
pub fn decode_offsets(
    buf: &[u8],
    rows: usize,
    plain_len: usize,
    offsets: &mut Vec<u32>,
) -> Result<()> {
    // Every slot is written below: a buffer reused from a row group of as many rows needs no
    // zeroing.
    offsets.truncate(rows + 1);
    offsets.resize(rows + 1, 0);
    if let Some(first) = offsets.first_mut() {
        *first = 0;
    }
    let corrupt = |msg: String, at: usize| {
        Error::corrupt("rcfile", msg)
            .at_offset(at as u64)
            .in_section("cell lengths")
    };
    let limit = plain_len as u64;
    let mut end: u64 = 0;
    // The previous length, for run markers (u64::MAX: none yet).
    let mut last = u64::MAX;
    // One pass over the pre-sized offsets and the length bytes, both as iterators: the
    // common one-byte lengths (0..=127) cost no bounds or capacity checks.
    let mut slots = offsets.get_mut(1..).unwrap_or_default().iter_mut();
    let mut bytes = buf.iter();
    'cells: while let Some(slot) = slots.next() {
        loop {
            if let Some(&b) = bytes.as_slice().first() {
                if b < 0x80 {
                    bytes.next();
                    end += u64::from(b);
                    *slot = end as u32;
                    last = u64::from(b);
                    continue 'cells;
                }
            }
            let pos = buf.len() - bytes.as_slice().len();
            let left = slots.len() + 1;
            let (v, n) = decode_vlong(bytes.as_slice()).ok_or_else(|| {
                corrupt(
                    format!("cell lengths end after {} of {rows} cells", rows - left),
                    pos,
                )
            })?;
            bytes = bytes.as_slice().get(n..).unwrap_or_default().iter();
            let (len, count) = if v < 0 {
                if last == u64::MAX {
                    return Err(corrupt("run marker before any cell length".into(), pos));
                }
                (last, (!v) as u64) // `~v` more cells of the previous length
            } else {
                last = v as u64;
                (v as u64, 1)
            };
            if count == 0 {
                continue; // an empty run: the cell is still to come
            }
            if count > left as u64 {
                return Err(corrupt(
                    format!("run of {count} cells overruns the row count {rows}"),
                    pos,
                ));
            }
            let total = len.checked_mul(count).and_then(|x| x.checked_add(end));
            if total.is_none_or(|t| t > limit) {
                return Err(corrupt(
                    format!("cell lengths sum past the column's {plain_len} bytes"),
                    pos,
                ));
            }
            end += len;
            *slot = end as u32;
            for slot in slots.by_ref().take(count as usize - 1) {
                end += len;
                *slot = end as u32;
            }
            continue 'cells;
        }
    }
    let pos = buf.len() - bytes.as_slice().len();
    if end > limit {
        return Err(corrupt(
            format!("cell lengths sum past the column's {plain_len} bytes"),
            pos,
        ));
    }
    if pos != buf.len() {
        return Err(corrupt(
            format!(
                "{} bytes left in the cell lengths after the last of {rows} cells",
                buf.len() - pos
            ),
            pos,
        ));
    }
    if end != limit {
        // Formatted from a copy: naming `end` itself in `format!` takes its address, which
        // kept it in memory through the loops above (a store and reload per cell).
        let sum = end;
        return Err(corrupt(
            format!("cell lengths sum to {sum}, column holds {plain_len} bytes"),
            pos,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(lens: &[usize]) -> Vec<u8> {
        let mut e = LengthsEncoder::default();
        for &l in lens {
            e.push(l);
        }
        e.finish()
    }

    #[test]
    fn spec_examples() {
        assert_eq!(enc(&[1, 1, 1, 2]), [0x01, 0xfd, 0x02]);
        assert_eq!(enc(&[1, 1, 1, 1, 2]), [0x01, 0xfc, 0x02]);
        assert_eq!(enc(&[0, 0, 0, 0, 0]), [0x00, 0xfb]);
        assert_eq!(enc(&[1, 2, 3]), [1, 2, 3]);
        assert_eq!(enc(&[2, 2, 1, 1]), [0x02, 0xfe, 0x01, 0xfe]);
        assert_eq!(enc(&[]), [] as [u8; 0]);
    }

    #[test]
    fn decode_checks() {
        let mut o = Vec::new();
        decode_offsets(&[0x01, 0xfd, 0x02], 4, 5, &mut o).unwrap();
        assert_eq!(o, [0, 1, 2, 3, 5]);
        assert!(decode_offsets(&[0x01, 0xfd, 0x02], 4, 6, &mut o).is_err());
        assert!(decode_offsets(&[0x01, 0xfd, 0x02], 5, 5, &mut o).is_err());
        assert!(decode_offsets(&[0x01, 0xfd, 0x02], 3, 3, &mut o).is_err());
        assert!(decode_offsets(&[0xfd], 3, 0, &mut o).is_err());
    }
    proptest::proptest! {
        /// Any lengths, in runs or not, short or long: the offsets are their running sums,
        /// and a wrong row count or column size is refused.
        #[test]
        fn offsets_are_running_sums(
            runs in proptest::collection::vec((0usize..300, 1usize..20), 0..60),
        ) {
            let lens: Vec<usize> = runs
                .iter()
                .flat_map(|&(l, k)| std::iter::repeat_n(l % 3 * 100 + l / 3, k))
                .collect();
            let buf = enc(&lens);
            let total: usize = lens.iter().sum();
            let mut o = vec![7u32; 3];
            decode_offsets(&buf, lens.len(), total, &mut o).unwrap();
            let mut want = vec![0u32];
            want.extend(lens.iter().scan(0u32, |e, &l| {
                *e += l as u32;
                Some(*e)
            }));
            proptest::prop_assert_eq!(&o, &want);
            proptest::prop_assert!(decode_offsets(&buf, lens.len() + 1, total, &mut o).is_err());
            proptest::prop_assert!(decode_offsets(&buf, lens.len(), total + 1, &mut o).is_err());
            if !lens.is_empty() {
                proptest::prop_assert!(decode_offsets(&buf, lens.len() - 1, total, &mut o).is_err());
            }
        }
    }
}
