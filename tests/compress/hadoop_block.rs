//! Hadoop block framing: exact layouts, other writers' layouts, bad lengths.

use super::*;

/// One parsed block: its declared plain length and its chunks.
type Block = (usize, Vec<Vec<u8>>);

fn parse_hadoop_blocks(mut data: &[u8]) -> Vec<Block> {
    fn take(data: &mut &[u8], n: usize) -> Vec<u8> {
        let (head, rest) = data.split_at(n);
        *data = rest;
        head.to_vec()
    }
    fn int(data: &mut &[u8]) -> usize {
        u32::from_be_bytes(take(data, 4).try_into().expect("4 bytes")) as usize
    }
    let mut blocks = Vec::new();
    while !data.is_empty() {
        let plain = int(&mut data);
        let mut chunks = Vec::new();
        let mut left = plain;
        while left > 0 {
            let len = int(&mut data);
            let chunk = take(&mut data, len);
            let n = chunk_plain_len(&chunk);
            left -= n;
            chunks.push(chunk);
        }
        blocks.push((plain, chunks));
    }
    blocks
}

/// The plain length of a raw snappy or lz4 chunk, decoded with the backend crates directly.
fn chunk_plain_len(chunk: &[u8]) -> usize {
    if let Ok(n) = snap::raw::Decoder::new()
        .decompress_vec(chunk)
        .map(|v| v.len())
    {
        return n;
    }
    lz4_flex::block::decompress(chunk, 1 << 20)
        .expect("chunk is neither snappy nor lz4")
        .len()
}

#[test]
fn hadoop_block_empty_is_one_empty_block() {
    for codec in [HadoopCodec::Snappy, HadoopCodec::Lz4] {
        let mut c = codec.codec().expect("codec");
        assert_eq!(compress(c.as_mut(), b""), [0, 0, 0, 0]);
    }
}

#[test]
fn hadoop_block_small_is_one_block_one_chunk() {
    let mut snappy = HadoopCodec::Snappy.codec().expect("codec");
    let packed = compress(snappy.as_mut(), b"aaaaaaaaaa");
    // 00 00 00 0A | 00 00 00 cc | raw snappy starting with its varint length 0A
    assert_eq!(&packed[..4], &be32(10));
    assert_eq!(&packed[4..8], &be32(packed.len() - 8));
    assert_eq!(packed[8], 0x0a);
    assert_eq!(
        snap::raw::Decoder::new()
            .decompress_vec(&packed[8..])
            .expect("raw"),
        b"aaaaaaaaaa"
    );

    for (codec, max) in [
        (HadoopCodec::Snappy, SNAPPY_MAX),
        (HadoopCodec::Lz4, LZ4_MAX),
    ] {
        let mut c = codec.codec().expect("codec");
        for n in [1, 100, max] {
            let data = text_like(n, 3);
            let blocks = parse_hadoop_blocks(&compress(c.as_mut(), &data));
            assert_eq!(blocks.len(), 1, "{codec:?} n={n}");
            assert_eq!(blocks[0].0, n);
            assert_eq!(blocks[0].1.len(), 1, "{codec:?} n={n}: one chunk");
        }
    }
}

#[test]
fn hadoop_block_large_is_chunked_with_trailing_empty_block() {
    for (codec, max) in [
        (HadoopCodec::Snappy, SNAPPY_MAX),
        (HadoopCodec::Lz4, LZ4_MAX),
    ] {
        let mut c = codec.codec().expect("codec");
        for n in [max + 1, 2 * max, 3 * max + 5] {
            for data in [text_like(n, 9), random_bytes(n, 9)] {
                let packed = compress(c.as_mut(), &data);
                let blocks = parse_hadoop_blocks(&packed);
                assert_eq!(blocks.len(), 2, "{codec:?} n={n}: data block + empty block");
                assert_eq!(blocks[0].0, n);
                assert_eq!(blocks[0].1.len(), n.div_ceil(max));
                let mut plain = Vec::new();
                for (i, chunk) in blocks[0].1.iter().enumerate() {
                    let len = chunk_plain_len(chunk);
                    let last = i + 1 == blocks[0].1.len();
                    assert_eq!(len, if last { n - i * max } else { max });
                    // Hadoop's 256 KiB per-chunk buffers.
                    assert!(chunk.len() <= 262_144, "chunk of {} bytes", chunk.len());
                    plain.extend(
                        decompress(
                            new_codec(codec.algorithm(), Framing::Raw, None)
                                .expect("raw")
                                .as_mut(),
                            chunk,
                            len,
                        )
                        .expect("chunk"),
                    );
                }
                assert!(plain == data);
                assert_eq!(blocks[1], (0, vec![]));
                assert_eq!(&packed[packed.len() - 4..], &[0, 0, 0, 0]);
            }
        }
    }
}

/// One Hadoop block of `plain` bytes holding the raw blocks of `pieces` as its chunks.
fn hadoop_block(algorithm: Algorithm, plain: usize, pieces: &[&[u8]]) -> Vec<u8> {
    let mut raw = new_codec(algorithm, Framing::Raw, None).expect("raw");
    let mut out = be32(plain).to_vec();
    for piece in pieces {
        let chunk = compress(raw.as_mut(), piece);
        out.extend(be32(chunk.len()));
        out.extend(chunk);
    }
    out
}

/// Frames `pieces` the way aircompressor (Trino) does: one block per piece, one chunk each.
fn aircompressor_frame(algorithm: Algorithm, pieces: &[&[u8]]) -> Vec<u8> {
    pieces
        .iter()
        .flat_map(|piece| hadoop_block(algorithm, piece.len(), &[piece]))
        .collect()
}

#[test]
fn hadoop_block_reader_takes_other_layouts() {
    for codec in [HadoopCodec::Snappy, HadoopCodec::Lz4] {
        let mut c = codec.codec().expect("codec");
        let algorithm = codec.algorithm();
        let data = text_like(5000, 1);
        let (a, b) = data.split_at(1234);
        // aircompressor: one block per chunk, no trailing empty block.
        let air = aircompressor_frame(algorithm, &[a, b]);
        assert!(decompress(c.as_mut(), &air, data.len()).expect("air") == data);

        // Several chunks in one block, empty blocks before, between and after.
        let mut odd = vec![0, 0, 0, 0];
        odd.extend(hadoop_block(algorithm, data.len(), &[a, b]));
        odd.extend([0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(decompress(c.as_mut(), &odd, data.len()).expect("odd") == data);

        // Stops at the expected length: the rest (even garbage) is not read.
        let mut more = air.clone();
        more.extend(b"garbage that is never looked at");
        assert!(decompress(c.as_mut(), &more, data.len()).expect("more") == data);
        assert_eq!(decompress(c.as_mut(), &air, a.len()).expect("prefix"), a);
    }
}

#[test]
fn hadoop_block_rejects_bad_lengths() {
    for codec in [HadoopCodec::Snappy, HadoopCodec::Lz4] {
        let mut c = codec.codec().expect("codec");
        let algorithm = codec.algorithm();
        let data = text_like(1000, 5);
        let good = aircompressor_frame(algorithm, &[&data]);

        // A block whose chunk decodes past the block's declared length.
        let mut short_block = good.clone();
        short_block[..4].copy_from_slice(&be32(999));
        let err = decompress(c.as_mut(), &short_block, 1000).unwrap_err();
        assert!(!is_truncated(&err), "{codec:?}: {err}");

        // A chunk that decodes past the expected length.
        let err = decompress(c.as_mut(), &good, 999).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Corrupt { .. }), "{err}");

        // Negative lengths.
        let mut negative = good.clone();
        negative[4..8].copy_from_slice(&[0xff, 0xff, 0xff, 0xfe]);
        let err = decompress(c.as_mut(), &negative, 1000).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Corrupt { .. }), "{err}");

        // A chunk length beyond the input, and a partial length field.
        let mut long_chunk = good.clone();
        long_chunk[4..8].copy_from_slice(&be32(good.len()));
        assert!(is_truncated(
            &decompress(c.as_mut(), &long_chunk, 1000).unwrap_err()
        ));
        assert!(is_truncated(
            &decompress(c.as_mut(), &good[..6], 1000).unwrap_err()
        ));
        assert!(is_truncated(
            &decompress(c.as_mut(), &[0, 0], 1000).unwrap_err()
        ));

        // An empty chunk.
        let empty_chunk = [0, 0, 0, 10, 0, 0, 0, 0];
        assert!(decompress(c.as_mut(), &empty_chunk, 10).is_err());
    }
}
