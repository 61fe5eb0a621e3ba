//! Compression codecs (placeholder; being written).
