//! Decompression bombs (small inputs claiming huge outputs) and the codec registry (class names, levels).

use super::*;

/// A small input that claims a huge output fails quickly and leaves `out` untouched.
#[test]
fn small_input_claiming_huge_output_fails_fast() {
    const HUGE: usize = 1 << 30;
    for mut codec in all_codecs() {
        let packed = compress(codec.as_mut(), &text_like(1000, 1));
        // The second buffer has (virtual, untouched) room for all of it, if the system lets us
        // reserve that much address space.
        let mut roomy = Vec::new();
        let _ = roomy.try_reserve_exact(HUGE + 1);
        for mut out in [Vec::new(), roomy] {
            let start = Instant::now();
            let err = codec.decompress(&packed, &mut out, HUGE).unwrap_err();
            assert!(
                matches!(
                    err.kind(),
                    ErrorKind::Truncated { .. }
                        | ErrorKind::Corrupt { .. }
                        | ErrorKind::LimitExceeded { .. }
                        | ErrorKind::Io(_) // could not reserve the address space
                ),
                "{codec:?}: {err}"
            );
            assert!(out.is_empty());
            let took = start.elapsed();
            assert!(took < Duration::from_secs(2), "{codec:?} took {took:?}");
        }
    }
    // A snappy chunk whose header claims a gigabyte.
    let mut snappy = HadoopCodec::Snappy.codec().expect("codec");
    let lie = [0x80, 0x80, 0x80, 0x80, 0x04, 0x00, 0x61]; // varint 2^30, then a literal "a"
    let mut framed = be32(HUGE).to_vec();
    framed.extend(be32(lie.len()));
    framed.extend(lie);
    let start = Instant::now();
    let err = snappy
        .as_mut()
        .decompress(&framed, &mut Vec::new(), HUGE)
        .unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Corrupt { .. }), "{err}");
    assert!(start.elapsed() < Duration::from_millis(500));
}

/// A stream that holds more than the declared length is rejected without decoding the excess
/// or making `out` bigger than the declared length.
#[test]
fn stream_holding_more_than_expected_is_cut_or_rejected() {
    let bomb = vec![0u8; 4 << 20];
    for mut codec in all_codecs() {
        let size = if codec.algorithm() == Algorithm::Bzip2 {
            1 << 20 // slow without optimisation
        } else {
            bomb.len()
        };
        let packed = compress(codec.as_mut(), &bomb[..size]);
        assert!(
            packed.len() < size / 20,
            "{codec:?} packs zeros to {}",
            packed.len()
        );
        for (mut out, capacity) in [(Vec::new(), 1000), (Vec::with_capacity(5000), 5000)] {
            let start = Instant::now();
            let err = codec.decompress(&packed, &mut out, 1000).unwrap_err();
            let kind = err.kind();
            assert!(
                matches!(kind, ErrorKind::Corrupt { .. } | ErrorKind::Codec { .. }),
                "{err}"
            );
            assert!(out.is_empty());
            assert_eq!(out.capacity(), capacity, "{codec:?} allocated more");
            let took = start.elapsed();
            assert!(took < Duration::from_secs(2), "{codec:?} took {took:?}");
        }
    }
}

// ------------------------------------------------------------------------------------------
// Registry

#[test]
fn class_names_and_short_names() {
    for codec in HadoopCodec::ALL {
        assert_eq!(
            HadoopCodec::from_class_name(codec.class_name()).expect("class"),
            codec
        );
        assert!(codec
            .class_name()
            .starts_with("org.apache.hadoop.io.compress."));
        let c = codec.codec().expect("codec");
        assert_eq!(
            (c.algorithm(), c.framing()),
            (codec.algorithm(), codec.framing())
        );
    }
    let pairs = [
        ("deflate", HadoopCodec::Default),
        ("gzip", HadoopCodec::Gzip),
        ("snappy", HadoopCodec::Snappy),
        ("lz4", HadoopCodec::Lz4),
        ("zstd", HadoopCodec::ZStandard),
        ("bzip2", HadoopCodec::BZip2),
        ("GZIP", HadoopCodec::Gzip),
    ];
    for (short, codec) in pairs {
        assert_eq!(HadoopCodec::from_short_name(short).expect("short"), codec);
    }
    assert_eq!(HadoopCodec::Deflate.short_name(), "deflate");
    assert_eq!(
        HadoopCodec::from_class_name("org.apache.hadoop.io.compress.DeflateCodec").expect("alias"),
        HadoopCodec::Deflate
    );
    assert_eq!(HadoopCodec::Deflate.framing(), Framing::Zlib);
}

#[test]
fn unknown_and_lzo_classes() {
    let err = HadoopCodec::from_class_name("com.example.FancyCodec").unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::UnknownCodec(name) if name == "com.example.FancyCodec")
    );
    assert!(err.to_string().contains("com.example.FancyCodec"), "{err}");
    // Class names are case-sensitive.
    assert!(HadoopCodec::from_class_name("org.apache.hadoop.io.compress.gzipcodec").is_err());
    for lzo in [
        "org.apache.hadoop.io.compress.LzoCodec",
        "com.hadoop.compression.lzo.LzoCodec",
        "com.hadoop.compression.lzo.LzopCodec",
    ] {
        let err = HadoopCodec::from_class_name(lzo).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Unsupported(_)), "{err}");
        assert!(err.to_string().contains(lzo), "{err}");
    }
    let err = HadoopCodec::from_short_name("lzo").unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::UnknownCodec(_)));
}

#[test]
fn levels_are_checked() {
    let bad = [
        (HadoopCodec::Default, 10),
        (HadoopCodec::Gzip, -1),
        (HadoopCodec::ZStandard, 23),
        (HadoopCodec::BZip2, 0),
        (HadoopCodec::Snappy, 1),
        (HadoopCodec::Lz4, 1),
    ];
    for (codec, level) in bad {
        let err = codec.codec_with_level(Some(level)).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidArgument(_)),
            "{codec:?} {level}: {err}"
        );
    }
    let err = new_codec(Algorithm::Zstd, Framing::HadoopBlock, None).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unsupported(_)), "{err}");
}
