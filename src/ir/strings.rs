//! Literal strings that are not UTF-8, kept in a Rust `String`.
//!
//! SPIR-V strings are nul-terminated bytes; the spec asks for UTF-8, but tools do not check it:
//! `glslangValidator -g` embeds the source text in `OpSource` byte for byte, so a comment in
//! Latin-1 makes a string that is not UTF-8, and `spirv-val` accepts it. rspirv's
//! `dr::Operand::LiteralString` is a `String`, so such bytes are carried in it reversibly:
//!
//! - a byte that is not part of a valid UTF-8 sequence becomes the private-use code point
//!   `ESCAPE + byte` (U+10FF00..=U+10FFFF);
//! - a code point of that range that the input really holds is escaped the same way, byte by
//!   byte, so that every string maps back to exactly the bytes it was read from.
//!
//! The writer turns a string back into bytes with [`to_bytes`]; whatever shows a string to a
//! person uses [`display`], where the bytes that are not UTF-8 are U+FFFD.

use std::borrow::Cow;

/// The code point a byte `b` is escaped to is `ESCAPE + b`.
pub const ESCAPE: u32 = 0x10_FF00;

fn is_escape(c: char) -> bool {
    u32::from(c) >= ESCAPE
}

fn escaped(b: u8) -> char {
    char::from_u32(ESCAPE + u32::from(b)).expect("U+10FF00..=U+10FFFF are code points")
}

/// The string for the bytes of a literal (without its nul): valid UTF-8 is kept as it is,
/// every other byte is escaped (see the module documentation).
pub fn from_bytes(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                push_escaping(s, &mut out);
                return out;
            }
            Err(e) => {
                let (good, bad) = bytes.split_at(e.valid_up_to());
                push_escaping(
                    std::str::from_utf8(good).expect("valid up to here"),
                    &mut out,
                );
                // A sequence cut off by the end of the string is bad byte by byte too.
                let n = e.error_len().unwrap_or(bad.len());
                for &b in &bad[..n] {
                    out.push(escaped(b));
                }
                bytes = &bad[n..];
            }
        }
    }
}

/// Appends `s`, escaping the code points of the escape range it really holds.
fn push_escaping(s: &str, out: &mut String) {
    for c in s.chars() {
        if is_escape(c) {
            let mut buf = [0; 4];
            for &b in c.encode_utf8(&mut buf).as_bytes() {
                out.push(escaped(b));
            }
        } else {
            out.push(c);
        }
    }
}

/// Whether `s` holds escaped bytes (then its bytes are not `s.as_bytes()`).
pub fn has_escapes(s: &str) -> bool {
    s.chars().any(is_escape)
}

/// Re-escapes a string read as UTF-8 so that it follows the mapping (a no-op unless it holds
/// code points of the escape range).
pub fn escape_utf8(s: String) -> String {
    if !has_escapes(&s) {
        return s;
    }
    let mut out = String::with_capacity(s.len() * 2);
    push_escaping(&s, &mut out);
    out
}

/// The bytes a string stands for (without its nul).
pub fn to_bytes(s: &str) -> Cow<'_, [u8]> {
    if !has_escapes(s) {
        return Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        if is_escape(c) {
            out.push((u32::from(c) - ESCAPE) as u8);
        } else {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    Cow::Owned(out)
}

/// The number of bytes a string stands for (without its nul).
pub fn byte_len(s: &str) -> usize {
    s.chars()
        .map(|c| if is_escape(c) { 1 } else { c.len_utf8() })
        .sum()
}

/// The string as a person reads it: bytes that are not UTF-8 are U+FFFD.
pub fn display(s: &str) -> Cow<'_, str> {
    match to_bytes(s) {
        Cow::Borrowed(_) => Cow::Borrowed(s),
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()),
    }
}

/// Encodes a string's bytes as SPIR-V words: nul-terminated, padded with nuls, little-endian.
pub fn encode_words(s: &str, out: &mut Vec<u32>) {
    let bytes = to_bytes(s);
    for chunk in bytes.chunks(4) {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        out.push(u32::from_le_bytes(w));
    }
    if bytes.len().is_multiple_of(4) {
        out.push(0);
    }
}

/// The words a string literal takes.
pub fn word_count(s: &str) -> usize {
    byte_len(s) / 4 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_utf8_come_back() {
        let cases: &[&[u8]] = &[
            b"",
            b"plain",
            b"caf\xe9 // comment en fran\xe7ais",
            b"\xff\xfe",
            "already \u{10FF41} escaped, and \u{10FFFF}".as_bytes(),
            b"\xf4\x8f\xbd",            // a cut-off escape-range sequence
            "\u{e9}t\u{e9}".as_bytes(), // valid UTF-8 stays as it is
        ];
        for &bytes in cases {
            let s = from_bytes(bytes);
            assert_eq!(&*to_bytes(&s), bytes, "{s:?}");
            assert_eq!(byte_len(&s), bytes.len());
            assert_eq!(display(&s), String::from_utf8_lossy(bytes));
        }
        assert_eq!(from_bytes("été".as_bytes()), "été");
        assert_eq!(display(&from_bytes(b"caf\xe9!")), "caf\u{fffd}!");
    }

    #[test]
    fn a_utf8_string_with_escape_range_code_points_is_escaped() {
        let s = escape_utf8("x\u{10FF00}".to_string());
        assert_eq!(&*to_bytes(&s), "x\u{10FF00}".as_bytes());
        assert_eq!(escape_utf8("plain".into()), "plain");
    }

    #[test]
    fn words_are_nul_terminated() {
        let mut w = Vec::new();
        encode_words(&from_bytes(b"ab\xe9"), &mut w);
        assert_eq!(w, vec![u32::from_le_bytes([b'a', b'b', 0xe9, 0])]);
        w.clear();
        encode_words(&from_bytes(b"abc\xe9"), &mut w);
        assert_eq!(w.len(), 2);
        assert_eq!(word_count(&from_bytes(b"abc\xe9")), 2);
    }
}
