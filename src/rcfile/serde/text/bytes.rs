//! Byte strings in text cells: Base64 binary (commons-codec's lenient decoding) and varchar /
//! char text as Java decodes, truncates and pads it.

use std::borrow::Cow;

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends standard Base64 with `=` padding and no line breaks (commons-codec
/// `encodeBase64`).
pub(super) fn write_base64(b: &[u8], out: &mut Vec<u8>) {
    // The mask keeps the index below 64, the table's length.
    let sym = |v: u32| B64.get((v & 63) as usize).copied().unwrap_or(b'=');
    for chunk in b.chunks(3) {
        let v = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &x)| acc | (x as u32) << (16 - 8 * i));
        out.extend_from_slice(&[sym(v >> 18), sym(v >> 12)]);
        out.push(if chunk.len() > 1 { sym(v >> 6) } else { b'=' });
        out.push(if chunk.len() > 2 { sym(v) } else { b'=' });
    }
}

/// The 6-bit value of a Base64 symbol of either alphabet (commons-codec decodes both).
fn b64_value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// `Character.isWhitespace` on a (signed) byte.
fn java_whitespace(c: u8) -> bool {
    matches!(c, 9..=13 | 28..=32)
}

/// `LazyBinary` (Hive 2.3, commons-codec 1.17): if every byte is a Base64 symbol, `=` or
/// whitespace, decode leniently (whitespace skipped, stop at the first `=`, leftover bits
/// dropped); keep the raw bytes when that fails the check or decodes to nothing.
pub(super) fn decode_binary_into(b: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    if b.iter()
        .all(|&c| b64_value(c).is_some() || c == b'=' || java_whitespace(c))
    {
        out.reserve(b.len() / 4 * 3 + 2);
        let (mut acc, mut n) = (0u32, 0);
        for &c in b {
            if c == b'=' {
                break;
            }
            if let Some(v) = b64_value(c) {
                acc = acc << 6 | v;
                n += 1;
                if n == 4 {
                    out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]);
                    (acc, n) = (0, 0);
                }
            }
        }
        match n {
            2 => out.push((acc >> 4) as u8),
            3 => out.extend_from_slice(&[(acc >> 10) as u8, (acc >> 2) as u8]),
            _ => {}
        }
    }
    if out.len() == start {
        out.extend_from_slice(b);
    }
}

// ---------------------------------------------------------------------------------------------
// Varchar and char

/// UTF-8 as Java's decoder reads it with replacement (`Text.decode`): valid text unchanged;
/// each malformed sequence becomes one U+FFFD, with the JDK's choice of how many bytes a
/// malformed sequence spans (an encoded surrogate is one sequence of three bytes, a truncated
/// sequence at the end is one).
pub(super) fn java_utf8_lossy(b: &[u8]) -> Cow<'_, [u8]> {
    if std::str::from_utf8(b).is_ok() {
        return Cow::Borrowed(b);
    }
    const FFFD: &[u8] = "\u{fffd}".as_bytes();
    let cont = |i: usize| b.get(i).is_some_and(|&c| c & 0xc0 == 0x80);
    let mut out = Vec::with_capacity(b.len() + 8);
    let mut i = 0;
    while let Some(&b1) = b.get(i) {
        let rest = b.len() - i;
        // (bytes of a valid sequence, or bytes to replace with one U+FFFD)
        let (valid, len) = match b1 {
            0x00..=0x7f => (true, 1),
            0xc2..=0xdf => (cont(i + 1), 1 + cont(i + 1) as usize),
            0xe0..=0xef => {
                let b2 = b.get(i + 1).copied().unwrap_or(0);
                let bad2 = (b1 == 0xe0 && b2 & 0xe0 == 0x80) || !cont(i + 1);
                if rest < 3 {
                    (false, if rest > 1 && bad2 { 1 } else { rest })
                } else if bad2 {
                    (false, 1)
                } else if !cont(i + 2) {
                    (false, 2)
                } else {
                    // ED A0..BF xx encodes a surrogate: one malformed unit of three bytes.
                    (!(b1 == 0xed && b2 >= 0xa0), 3)
                }
            }
            0xf0..=0xf7 => {
                let b2 = b.get(i + 1).copied().unwrap_or(0);
                let bad2 = b1 > 0xf4
                    || (b1 == 0xf0 && !(0x90..=0xbf).contains(&b2))
                    || (b1 == 0xf4 && b2 & 0xf0 != 0x80)
                    || !cont(i + 1);
                if rest < 4 {
                    if b1 > 0xf4 || (rest > 1 && bad2) {
                        (false, 1)
                    } else if rest > 2 && !cont(i + 2) {
                        (false, 2)
                    } else {
                        (false, rest)
                    }
                } else if bad2 {
                    (false, 1)
                } else if !cont(i + 2) {
                    (false, 2)
                } else if !cont(i + 3) {
                    (false, 3)
                } else {
                    (true, 4)
                }
            }
            _ => (false, 1),
        };
        let end = (i + len.max(1)).min(b.len());
        if valid {
            out.extend_from_slice(b.get(i..end).unwrap_or_default());
        } else {
            out.extend_from_slice(FFFD);
        }
        i = end;
    }
    Cow::Owned(out)
}

/// The first `n` code points of valid UTF-8.
pub(super) fn truncate_chars(b: &[u8], n: u32) -> &[u8] {
    let mut count = 0u32;
    for (i, &c) in b.iter().enumerate() {
        if c & 0xc0 != 0x80 {
            if count == n {
                return b.get(..i).unwrap_or(b);
            }
            count += 1;
        }
    }
    b
}

/// Appends varchar(n) / char(n) text as Hive holds it: Java-decoded, truncated to `n` code
/// points, and for char padded with spaces to `n` code points.
pub(super) fn fit_chars_into(b: &[u8], n: u32, pad: bool, out: &mut Vec<u8>) {
    let text = java_utf8_lossy(b);
    let kept = truncate_chars(&text, n);
    out.extend_from_slice(kept);
    if pad {
        let count = kept.iter().filter(|&&c| c & 0xc0 != 0x80).count() as u32;
        out.extend(std::iter::repeat_n(b' ', n.saturating_sub(count) as usize));
    }
}

/// [`fit_chars_into`] into a new vector.
pub(super) fn fit_chars(b: &[u8], n: u32, pad: bool) -> Vec<u8> {
    let mut v = Vec::with_capacity(b.len() + n as usize);
    fit_chars_into(b, n, pad, &mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary() {
        for (i, o) in [
            (&b"YWJj"[..], &b"abc"[..]),
            (b"YWI", b"ab"),
            (b"Y", b"Y"),
            (b"=", b"="),
            (b"YW Jj\n", b"abc"),
            (b"YWJj!", b"YWJj!"),
            (b"YQ==YQ==", b"a"),
            (b"-_8=", b"\xfb\xff"),
            (b"", b""),
            (b"YWJj\x0b", b"abc"),
            (b"YWJj\x7f", b"YWJj\x7f"),
        ] {
            let mut out = b"x".to_vec();
            decode_binary_into(i, &mut out);
            assert_eq!(&out[1..], o, "{:?}", String::from_utf8_lossy(i));
        }
        let mut out = Vec::new();
        write_base64(b"\x00\xff", &mut out);
        assert_eq!(out, b"AP8=");
    }

    #[test]
    fn java_utf8() {
        let l = |b: &[u8]| java_utf8_lossy(b).into_owned();
        let r = "\u{fffd}".as_bytes();
        assert_eq!(l(b"\xc3\x28"), [r, b"("].concat());
        assert_eq!(l(b"\xed\xa0\x80x"), [r, b"x"].concat());
        assert_eq!(l(b"\xe4\xb8"), r);
        assert_eq!(l(b"\xc0\xafz"), [r, r, b"z"].concat());
        assert_eq!(l(b"\xf4\x90\x80\x80"), [r, r, r, r].concat());
        assert_eq!(
            fit_chars("e\u{301}e\u{301}".as_bytes(), 3, false),
            "e\u{301}e".as_bytes()
        );
        assert_eq!(fit_chars(b"a", 3, true), b"a  ");
    }
}
