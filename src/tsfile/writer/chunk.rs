//! One chunk under construction: the open page's buffered points, the sealed pages
//! (encoded, compressed, with their statistics) and the chunk statistics. A chunk becomes
//! bytes — header and pages — when its chunk group is flushed (`spec/tsfile.md` §5.3–5.5, §11).

use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::encoding::page::encode_value_page;
use crate::tsfile::encoding::{self, EncodeOptions};
use crate::tsfile::format::headers::{ChunkHeader, ChunkKind, Marker, PageHeader};
use crate::tsfile::format::statistics::Statistics;
use crate::tsfile::format::values::Values;
use crate::tsfile::format::varint::put_uvarint;
use crate::tsfile::format::{Compression, DataType, Encoding};
use crate::{Error, Result};

/// How a column's pages are encoded.
#[derive(Clone, Debug)]
pub(crate) struct ColumnCodec {
    pub data_type: DataType,
    pub encoding: Encoding,
    pub compression: Compression,
    pub options: EncodeOptions,
}

/// What sealing pages needs besides the chunk itself: the compression codecs and the
/// buffers a page passes through (raw payload, value stream, compressed bytes, the value
/// page's timestamps). One per thread, reused for every page, so sealing allocates only
/// the stored page itself.
#[derive(Debug)]
pub(crate) struct PageWork {
    pub codecs: PageCodecs,
    payload: Vec<u8>,
    scratch: Vec<u8>,
    packed: Vec<u8>,
    times: Vec<i64>,
}

impl PageWork {
    /// Work buffers around `codecs`.
    pub fn new(codecs: PageCodecs) -> Self {
        PageWork {
            codecs,
            payload: Vec::new(),
            scratch: Vec::new(),
            packed: Vec::new(),
            times: Vec::new(),
        }
    }

    /// Bytes the buffers hold on to.
    pub fn mem_size(&self) -> usize {
        self.payload.capacity()
            + self.scratch.capacity()
            + self.packed.capacity()
            + self.times.capacity() * 8
    }
}

/// A sealed page: its header fields, statistics and stored (compressed) payload.
#[derive(Debug)]
struct SealedPage {
    uncompressed_size: u32,
    /// `None` for the empty (all-null) value page.
    statistics: Option<Statistics>,
    data: Vec<u8>,
}

/// A chunk being built for one column of one chunk group.
#[derive(Debug)]
pub(crate) struct ChunkBuilder {
    pub measurement: String,
    pub kind: ChunkKind,
    pub codec: ColumnCodec,
    /// Time codec of a non-aligned chunk's time stream.
    time_codec: Option<ColumnCodec>,
    // The open page.
    times: Vec<i64>,
    values: Values,
    present: Vec<bool>,
    // Sealed pages and their merged statistics.
    pages: Vec<SealedPage>,
    pub statistics: Statistics,
    sealed_bytes: usize,
}

impl ChunkBuilder {
    /// A chunk of `kind`; `time_codec` is required for non-aligned chunks.
    pub fn new(
        measurement: &str,
        kind: ChunkKind,
        codec: ColumnCodec,
        time_codec: Option<ColumnCodec>,
    ) -> Result<Self> {
        let stat_type = if kind == ChunkKind::Time {
            DataType::Vector
        } else {
            codec.data_type
        };
        Ok(ChunkBuilder {
            measurement: measurement.to_owned(),
            kind,
            values: Values::for_type(codec.data_type)?,
            statistics: Statistics::new(stat_type),
            codec,
            time_codec,
            times: Vec::new(),
            present: Vec::new(),
            pages: Vec::new(),
            sealed_bytes: 0,
        })
    }

    /// Points (positions, for value chunks) in the open page.
    pub fn open_points(&self) -> usize {
        match self.kind {
            ChunkKind::Value => self.present.len(),
            _ => self.times.len(),
        }
    }

    /// Bytes held: sealed pages plus an estimate of the open page.
    /// Counts what is allocated (capacities, scratch buffers), not just what is in use, so
    /// that the memory threshold bounds the process's real footprint.
    pub fn mem_size(&self) -> usize {
        self.sealed_bytes
            + self.values.allocated_bytes()
            + self.times.capacity() * 8
            + self.present.capacity()
    }

    /// Bytes of the sealed pages, about what [`write_chunk`](Self::write_chunk) writes.
    pub fn sealed_bytes(&self) -> usize {
        self.sealed_bytes
    }

    /// Bytes the open page would take raw (for the page byte limit).
    pub fn open_page_bytes(&self) -> usize {
        self.values.mem_size() + self.times.len() * 8
    }

    /// Time chunk: buffers timestamps. Non-aligned chunk: buffers timestamps and values.
    pub fn times_mut(&mut self) -> &mut Vec<i64> {
        &mut self.times
    }

    /// Buffered values of the open page (non-null only, for value chunks).
    pub fn values_mut(&mut self) -> &mut Values {
        &mut self.values
    }

    /// Value chunk: presence flags of the open page.
    pub fn present_mut(&mut self) -> &mut Vec<bool> {
        &mut self.present
    }

    /// Seals the open page. `page_times` are the timestamps of the page's positions (value
    /// chunks take them from the time chunk's open page). Nothing happens for an empty page
    /// of a time or non-aligned chunk.
    pub fn seal_page(&mut self, work: &mut PageWork, page_times: Option<&[i64]>) -> Result<()> {
        let PageWork {
            codecs,
            payload,
            scratch,
            packed,
            times: value_times,
        } = work;
        payload.clear();
        let stats = match self.kind {
            ChunkKind::Time => {
                if self.times.is_empty() {
                    return Ok(());
                }
                let mut stats = Statistics::new(DataType::Vector);
                stats.update_times(&self.times);
                encode_times(&self.codec, &self.times, payload)?;
                stats
            }
            ChunkKind::NonAligned => {
                if self.times.is_empty() {
                    return Ok(());
                }
                let mut stats = Statistics::new(self.codec.data_type);
                stats.update_values(&self.times, &self.values)?;
                let tc = self
                    .time_codec
                    .as_ref()
                    .ok_or_else(|| Error::invalid("a non-aligned chunk needs a time codec"))?;
                scratch.clear();
                encode_times(tc, &self.times, scratch)?;
                put_uvarint(payload, len_u32(scratch.len())?);
                payload.extend_from_slice(scratch);
                encode_values(&self.codec, &self.values, payload)?;
                stats
            }
            ChunkKind::Value => {
                if self.present.is_empty() {
                    return Ok(());
                }
                let times = page_times.unwrap_or(&[]);
                if times.len() != self.present.len() {
                    return Err(Error::invalid("value page and time page differ in length"));
                }
                if self.values.is_empty() {
                    // Positions but no value: the empty page.
                    self.pages.push(SealedPage {
                        uncompressed_size: 0,
                        statistics: None,
                        data: Vec::new(),
                    });
                    self.present.clear();
                    self.sealed_bytes += 1;
                    return Ok(());
                }
                // The timestamps of the values: the page's own when every position has one.
                let times = if self.values.len() == times.len() {
                    times
                } else {
                    value_times.clear();
                    value_times.extend(
                        times
                            .iter()
                            .zip(&self.present)
                            .filter(|(_, &p)| p)
                            .map(|(&t, _)| t),
                    );
                    value_times.as_slice()
                };
                let mut stats = Statistics::new(self.codec.data_type);
                stats.update_values(times, &self.values)?;
                scratch.clear();
                encode_values(&self.codec, &self.values, scratch)?;
                encode_value_page(&self.present, scratch, payload)?;
                stats
            }
        };
        let uncompressed_size = len_u32(payload.len())?;
        packed.clear();
        codecs.compress(self.codec.compression, payload, packed)?;
        let data = packed.to_vec();
        self.statistics.merge(&stats)?;
        self.sealed_bytes += data.len() + 16;
        self.pages.push(SealedPage {
            uncompressed_size,
            statistics: Some(stats),
            data,
        });
        self.times.clear();
        self.values.clear();
        self.present.clear();
        Ok(())
    }

    /// True when no page was sealed.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Appends the chunk (header and pages) to `out`, with TsFile's statistics rule: one page
    /// → single-page marker, no page statistics; several → every non-empty page carries its
    /// statistics. A value chunk without any value is a header with no pages, as Java writes.
    /// Resets the builder for the next chunk group and returns the chunk statistics.
    pub fn write_chunk(&mut self, out: &mut Vec<u8>) -> Result<Statistics> {
        let all_null = self.kind == ChunkKind::Value && self.statistics.count == 0;
        let multi = self.pages.len() > 1 && !all_null;
        let pages: &[SealedPage] = if all_null { &[] } else { &self.pages };
        // Page headers first, so the chunk header can state the data size.
        let mut headers = Vec::with_capacity(pages.len() * 8);
        let mut ends = Vec::with_capacity(pages.len());
        for p in pages {
            let header = PageHeader {
                uncompressed_size: p.uncompressed_size,
                compressed_size: len_u32(p.data.len())?,
                statistics: if multi { p.statistics.clone() } else { None },
            };
            header.write_to(&mut headers)?;
            ends.push(headers.len());
        }
        let data_size = headers.len() + pages.iter().map(|p| p.data.len()).sum::<usize>();
        let header = ChunkHeader {
            marker: Marker::chunk(self.kind, multi),
            measurement_id: self.measurement.clone(),
            data_size: len_u32(data_size)?,
            data_type: if self.kind == ChunkKind::Time {
                DataType::Vector
            } else {
                self.codec.data_type
            },
            compression: self.codec.compression,
            encoding: self.codec.encoding,
        };
        header.write_to(out)?;
        out.reserve(data_size);
        let mut start = 0;
        for (p, &end) in pages.iter().zip(&ends) {
            out.extend_from_slice(headers.get(start..end).unwrap_or_default());
            out.extend_from_slice(&p.data);
            start = end;
        }
        self.pages = Vec::new();
        self.sealed_bytes = 0;
        // The chunk group is written: give back the open-page buffers too, so that a device
        // that is idle until the next flush holds no memory.
        self.times = Vec::new();
        self.values = Values::new(self.values.physical());
        self.present = Vec::new();
        let fresh = Statistics::new(self.statistics_type());
        Ok(std::mem::replace(&mut self.statistics, fresh))
    }

    fn statistics_type(&self) -> DataType {
        if self.kind == ChunkKind::Time {
            DataType::Vector
        } else {
            self.codec.data_type
        }
    }
}

fn encode_times(codec: &ColumnCodec, times: &[i64], out: &mut Vec<u8>) -> Result<()> {
    if codec.encoding == Encoding::Ts2Diff {
        encoding::encode_ts2diff_i64(times, out);
        return Ok(());
    }
    // Other time encodings (PLAIN) go through a `Values` run, which takes a copy.
    let v = Values::Int64(times.to_vec());
    encoding::encode(codec.encoding, DataType::Int64, &v, &codec.options, out)
}

fn encode_values(codec: &ColumnCodec, values: &Values, out: &mut Vec<u8>) -> Result<()> {
    encoding::encode(codec.encoding, codec.data_type, values, &codec.options, out)
}

fn len_u32(n: usize) -> Result<u32> {
    u32::try_from(n)
        .ok()
        .filter(|&n| n <= i32::MAX as u32)
        .ok_or_else(|| Error::invalid(format!("{n} bytes do not fit a TsFile size field")))
}
