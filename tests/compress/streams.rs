//! zlib, gzip, bzip2, zstd and xz (LZMA2) streams: layouts as Hadoop and liblzma write them, concatenation, check types.

use super::*;

#[test]
fn zlib_layout() {
    let mut c = HadoopCodec::Default.codec().expect("codec");
    assert_eq!(
        compress(c.as_mut(), b""),
        [0x78, 0x9c, 0x03, 0, 0, 0, 0, 0x01]
    );
    let data = text_like(10_000, 2);
    let packed = compress(c.as_mut(), &data);
    assert_eq!(&packed[..2], &[0x78, 0x9c]);
    let mut plain = Vec::new();
    flate2::read::ZlibDecoder::new(&packed[..])
        .read_to_end(&mut plain)
        .expect("flate2 reads it");
    assert!(plain == data);
    for (level, header) in [(1, 0x01), (2, 0x5e), (9, 0xda)] {
        let mut c = HadoopCodec::Default
            .codec_with_level(Some(level))
            .expect("level");
        let packed = compress(c.as_mut(), &data);
        assert_eq!(&packed[..2], &[0x78, header], "level {level}");
        check_round_trip(c.as_mut(), &data);
    }
}

#[test]
fn zlib_reads_concatenated_streams_and_verifies_adler() {
    let mut c = HadoopCodec::Default.codec().expect("codec");
    let (a, b) = (text_like(3000, 1), random_bytes(2000, 2));
    let mut two = compress(c.as_mut(), &a);
    two.extend(compress(c.as_mut(), &b));
    let plain = decompress(c.as_mut(), &two, 5000).expect("two streams");
    assert!(plain[..3000] == a[..] && plain[3000..] == b[..]);

    let mut bad = compress(c.as_mut(), &a);
    let n = bad.len();
    bad[n - 1] ^= 1; // Adler-32
    assert!(decompress(c.as_mut(), &bad, 3000).is_err());
}

#[test]
fn gzip_layout_matches_hadoop() {
    let mut c = HadoopCodec::Gzip.codec().expect("codec");
    let header = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0];
    let empty = compress(c.as_mut(), b"");
    assert_eq!(empty.len(), 20);
    assert_eq!(&empty[..10], &header);
    assert_eq!(&empty[10..], &[3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

    let data = text_like(10_000, 4);
    let packed = compress(c.as_mut(), &data);
    assert_eq!(&packed[..10], &header);
    let n = packed.len();
    assert_eq!(&packed[n - 4..], &10_000u32.to_le_bytes());
    let mut crc = flate2::Crc::new();
    crc.update(&data);
    assert_eq!(&packed[n - 8..n - 4], &crc.sum().to_le_bytes());
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&packed[..])
        .read_to_end(&mut plain)
        .expect("flate2 reads it");
    assert!(plain == data);
}

#[test]
fn gzip_reads_concatenated_members_with_any_header_fields() {
    let mut c = HadoopCodec::Gzip.codec().expect("codec");
    let (a, b, d) = (text_like(3000, 1), random_bytes(500, 2), text_like(700, 3));

    // Members from another writer, with FEXTRA, FNAME and FCOMMENT.
    let mut fancy = flate2::GzBuilder::new()
        .filename("column.txt")
        .comment("written elsewhere")
        .extra(vec![1, 2, 3, 4])
        .mtime(12345)
        .write(Vec::new(), flate2::Compression::best());
    fancy.write_all(&b).expect("write");
    let fancy = fancy.finish().expect("finish");
    assert_ne!(fancy[3], 0, "flags are set");

    // A member with a header CRC (FHCRC).
    let plain_member = compress(c.as_mut(), &d);
    let mut hcrc = plain_member[..10].to_vec();
    hcrc[3] |= 0x02;
    let mut crc = flate2::Crc::new();
    crc.update(&hcrc);
    hcrc.extend_from_slice(&(crc.sum() as u16).to_le_bytes());
    hcrc.extend_from_slice(&plain_member[10..]);

    let mut all = compress(c.as_mut(), &a);
    all.extend(&fancy);
    all.extend(&hcrc);
    let plain = decompress(c.as_mut(), &all, 4200).expect("three members");
    assert!(plain[..3000] == a[..] && plain[3000..3500] == b[..] && plain[3500..] == d[..]);

    // A wrong header CRC, a wrong CRC-32, a wrong ISIZE, reserved flags, bad magic.
    let mut bad_hcrc = hcrc.clone();
    bad_hcrc[10] ^= 1;
    let mut bad_crc = plain_member.clone();
    let n = bad_crc.len();
    bad_crc[n - 8] ^= 1;
    let mut bad_size = plain_member.clone();
    bad_size[n - 1] ^= 1;
    let mut reserved = plain_member.clone();
    reserved[3] = 0x20;
    let mut magic = plain_member.clone();
    magic[1] = 0x8c;
    for bad in [bad_hcrc, bad_crc, bad_size, reserved, magic] {
        let err = decompress(c.as_mut(), &bad, 700).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Corrupt { .. }), "{err}");
    }
    // A header cut short.
    assert!(is_truncated(
        &decompress(c.as_mut(), &fancy[..15], 500).unwrap_err()
    ));
}

// ------------------------------------------------------------------------------------------
// bzip2 and zstd

#[test]
fn bzip2_with_and_without_leading_bz() {
    let mut c = HadoopCodec::BZip2.codec().expect("codec");
    let empty = compress(c.as_mut(), b"");
    assert_eq!(empty.len(), 14);
    assert_eq!(&empty[..4], b"BZh9");

    let data = text_like(20_000, 6);
    let packed = compress(c.as_mut(), &data);
    assert_eq!(&packed[..4], b"BZh9");
    let mut plain = Vec::new();
    bzip2::read::BzDecoder::new(&packed[..])
        .read_to_end(&mut plain)
        .expect("bzip2 crate reads it");
    assert!(plain == data);

    assert!(decompress(c.as_mut(), &packed, data.len()).expect("with BZ") == data);
    assert!(decompress(c.as_mut(), &packed[2..], data.len()).expect("without BZ") == data);

    // Two concatenated streams, the second without its BZ.
    let mut two = packed.clone();
    two.extend(&compress(c.as_mut(), b"tail")[2..]);
    let plain = decompress(c.as_mut(), &two, data.len() + 4).expect("two streams");
    assert_eq!(&plain[data.len()..], b"tail");

    let mut low = HadoopCodec::BZip2
        .codec_with_level(Some(1))
        .expect("level 1");
    assert_eq!(&compress(low.as_mut(), &data)[..4], b"BZh1");
}

#[test]
fn zstd_reads_several_and_skippable_frames() {
    let mut c = HadoopCodec::ZStandard.codec().expect("codec");
    let empty = compress(c.as_mut(), b"");
    assert!(empty.len() <= 13 && empty.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]));

    let (a, b) = (text_like(5000, 1), random_bytes(3000, 2));
    let mut skippable = vec![0x50, 0x2a, 0x4d, 0x18];
    skippable.extend(5u32.to_le_bytes());
    skippable.extend(b"hello");
    let mut all = skippable.clone();
    all.extend(compress(c.as_mut(), &a));
    all.extend(&skippable);
    all.extend(zstd::bulk::compress(&b, 19).expect("zstd crate"));
    let plain = decompress(c.as_mut(), &all, 8000).expect("frames");
    assert!(plain[..5000] == a[..] && plain[5000..] == b[..]);

    // A frame without a content size (what a streaming writer such as Hadoop's emits).
    let mut streamed = zstd::stream::Encoder::new(Vec::new(), 3).expect("encoder");
    streamed.write_all(&a).expect("write");
    let streamed = streamed.finish().expect("finish");
    assert!(decompress(c.as_mut(), &streamed, 5000).expect("streamed") == a);

    let ours = compress(c.as_mut(), &a);
    assert_eq!(
        zstd::bulk::decompress(&ours, 5000).expect("zstd crate reads it"),
        a
    );
    let mut fast = HadoopCodec::ZStandard
        .codec_with_level(Some(-5))
        .expect("negative level");
    check_round_trip(fast.as_mut(), &a);
}

// ------------------------------------------------------------------------------------------
// xz (LZMA2)

fn xz(level: Option<i32>) -> Box<dyn Codec> {
    new_codec(Algorithm::Lzma2, Framing::Xz, level).expect("xz codec")
}

const XZ_HEADER_CRC64: [u8; 12] = [
    0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46,
];

#[test]
fn xz_layout_matches_liblzma_and_xz_for_java() {
    let mut c = xz(None);
    // liblzma's lzma_easy_buffer_encode(6, CRC64) of nothing: header, empty index, footer.
    assert_eq!(
        compress(c.as_mut(), b""),
        hex("fd377a585a000004e6d6b446000000001cdf44211fb6f37d010000000004595a")
    );
    let data = text_like(10_000, 8);
    for (level, dict) in [(None, 0x16), (Some(0), 0x0c), (Some(9), 0x1c)] {
        let mut c = xz(level);
        let packed = compress(c.as_mut(), &data);
        assert_eq!(&packed[..12], &XZ_HEADER_CRC64);
        // One block: header size 12, no optional sizes, one filter: LZMA2 (0x21) with its
        // dictionary size byte (8 MiB at preset 6, 256 KiB at 0, 64 MiB at 9).
        assert_eq!(
            &packed[12..18],
            &[0x02, 0x00, 0x21, 0x01, dict, 0x00],
            "{level:?}"
        );
        // The footer repeats the stream flags and ends with the magic "YZ".
        assert_eq!(&packed[packed.len() - 4..], &[0x00, 0x04, b'Y', b'Z']);
        assert_eq!(packed.len() % 4, 0);
        check_round_trip(c.as_mut(), &data);
    }
    for bad in [-1, 10] {
        let err = new_codec(Algorithm::Lzma2, Framing::Xz, Some(bad)).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::InvalidArgument(_)), "{err}");
    }
}

/// Streams written by xz 5 (`xz --check=...`, `--block-size=40`).
#[test]
fn xz_reads_every_check_type_and_several_blocks() {
    let plain = b"alpha beta gamma alpha beta gamma 0123456789";
    let body = "0200210116000000742fe5a3e0002b00215d00309b0a67248eeefa0d43988f6591aa3b72549c20438c\
                7d02750bd1cb1775cf1d1d00000000";
    let streams = [
        (
            "fd377a585a000000ff12d941",
            "0001352c7e1b6fb006729e7a010000000000595a",
        ),
        (
            "fd377a585a0000016922de36",
            "3e7227fa0001392c7254da1c9042990d010000000001595a",
        ),
        (
            "fd377a585a00000ae1fb0ca1",
            "55db3dd957e6022a5a0716b6f3aa542c380a0d159912b139daacd82b30906890\
             0001552cd97092d5189b4b9a01000000000a595a",
        ),
    ];
    let mut c = xz(None);
    for (head, tail) in streams {
        let stream = hex(&format!("{head}{body}{tail}"));
        assert_eq!(
            decompress(c.as_mut(), &stream, plain.len()).expect("xz"),
            plain
        );
        // The check (or, without one, the index) is verified.
        let mut bad = stream.clone();
        bad[stream.len() - tail.len() / 2] ^= 1;
        assert!(decompress(c.as_mut(), &bad, plain.len()).is_err(), "{head}");
    }

    let blocks = hex(concat!(
        "fd377a585a000004e6d6b4460200210116000000742fe5a3e00027001d5d00309b0a67248eeefa0d",
        "43988f6591aa3b72549c20438c7d02750b0759e100000000ae3c325ade3b5cfc0200210116000000",
        "742fe5a3e00027000b5d001b0dc36de046e6f37e000000006426c0714d747ed70200210116000000",
        "742fe5a3e0002700065d0038ee26000000000000b73a89955ebf73cf0200210116000000742fe5a3",
        "e0002700065d0038ee26000000000000b73a89955ebf73cf0200210116000000742fe5a3e0002700",
        "065d0038ee26000000000000b73a89955ebf73cf0200210116000000742fe5a3e0002700065d0038",
        "ee26000000000000b73a89955ebf73cf0200210116000000742fe5a3e0002700065d0038ee260000",
        "00000000b73a89955ebf73cf0200210116000000742fe5a3e0002700065d0038ee26000000000000",
        "b73a89955ebf73cf0200210116000000742fe5a3e0001700065d0038ee0600000000000007f582d0",
        "e9da0d8a00093928272822282228222822282228222822181d76853409f462e6050000000004595a",
    ));
    let mut expected = plain.to_vec();
    expected.extend([b'q'; 300]);
    assert_eq!(
        decompress(c.as_mut(), &blocks, 344).expect("blocks"),
        expected
    );
    // Stopping inside the second block: the first block's data is not enough.
    assert!(decompress(c.as_mut(), &blocks, 40).is_err());
}

#[test]
fn xz_reads_concatenated_padded_streams_and_ignores_what_follows() {
    let mut c = xz(Some(1));
    let (a, b) = (text_like(3000, 1), random_bytes(700, 2));
    let mut all = compress(c.as_mut(), &a);
    all.extend([0; 8]); // stream padding
    all.extend(compress(c.as_mut(), &b));
    let plain = decompress(c.as_mut(), &all, 3700).expect("two streams");
    assert!(plain[..3000] == a[..] && plain[3000..] == b[..]);
    // What follows the stream that completes the expected length is not read.
    let mut more = compress(c.as_mut(), &a);
    more.extend(b"garbage that is never looked at");
    assert!(decompress(c.as_mut(), &more, 3000).expect("more") == a);
    // Padding that is not a multiple of four is not a stream.
    let mut odd = compress(c.as_mut(), &a);
    odd.extend([0; 3]);
    odd.extend(compress(c.as_mut(), &b));
    assert!(decompress(c.as_mut(), &odd, 3700).is_err());
}

/// Pages of a TsFile written by the C++ 2.5 writer (liblzma, `PRESET_DEFAULT`, CRC64); the
/// offsets, sizes and CRC-32s of the plain pages come from the Python oracle and Python's
/// `lzma` module.
#[test]
fn xz_decompresses_liblzma_pages() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tsfile/comp_lzma2.tsfile");
    let file = std::fs::read(&path).expect("fixture");
    let mut c = xz(None);
    for (offset, compressed, plain_len, crc32) in [
        (8722, 324, 2966, 0x1877_c34e),
        (10495, 1052, 1002, 0x6d79_f72f),
        (893, 76, 22, 0x1101_722f),
    ] {
        let page = &file[offset..offset + compressed];
        assert_eq!(&page[..12], &XZ_HEADER_CRC64);
        for mut out in output_buffers(plain_len) {
            c.decompress(page, &mut out, plain_len)
                .unwrap_or_else(|e| panic!("page at {offset}: {e}"));
            assert_eq!(out.len(), plain_len);
            let mut crc = flate2::Crc::new();
            crc.update(&out);
            assert_eq!(crc.sum(), crc32, "page at {offset}");
        }
        let err = decompress(c.as_mut(), page, plain_len + 1).unwrap_err();
        assert!(is_truncated(&err), "{err}");
        assert!(decompress(c.as_mut(), page, plain_len - 1).is_err());
        let plain = decompress(c.as_mut(), page, plain_len).expect("page");
        check_round_trip(c.as_mut(), &plain);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn xz_round_trips_at_every_level(data in data_strategy(), level in 0i32..=9) {
        check_round_trip(xz(Some(level)).as_mut(), &data);
    }
}
