//! Character classes of RFC 3986 and RFC 6570, percent-encoding and decoding.

/// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 §2.3).
pub(crate) fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// `reserved = gen-delims / sub-delims` (RFC 3986 §2.2).
pub(crate) fn is_reserved(byte: u8) -> bool {
    matches!(
        byte,
        b':' | b'/'
            | b'?'
            | b'#'
            | b'['
            | b']'
            | b'@'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
    )
}

/// The ASCII characters RFC 6570's `literals` rule admits outside expressions:
/// `%x21 / %x23-24 / %x26 / %x28-3B / %x3D / %x3F-5B / %x5D / %x5F / %x61-7A / %x7E`.
fn is_ascii_literal(c: char) -> bool {
    matches!(c, '!' | '#' | '$' | '&' | '('..=';' | '=' | '?'..='[' | ']' | '_' | 'a'..='z' | '~')
}

/// `ucschar` and `iprivate` (RFC 3987), which templates may hold as literals.
fn is_ucschar_or_iprivate(c: char) -> bool {
    let c = c as u32;
    matches!(c, 0xA0..=0xD7FF | 0xE000..=0xFDCF | 0xFDF0..=0xFFEF)
        || (0x1_0000..=0x10_FFFD).contains(&c) && (c & 0xFFFF) <= 0xFFFD
}

/// Whether `c` may appear as itself in a template's literal text.
pub(crate) fn is_literal_char(c: char) -> bool {
    is_ascii_literal(c) || is_ucschar_or_iprivate(c)
}

pub(crate) fn is_hex(byte: u8) -> bool {
    byte.is_ascii_hexdigit()
}

/// Whether `bytes[at..]` starts with a percent-encoded triplet `%XX`.
pub(crate) fn is_pct_triplet(bytes: &[u8], at: usize) -> bool {
    bytes.get(at) == Some(&b'%')
        && bytes.get(at + 1).is_some_and(|&b| is_hex(b))
        && bytes.get(at + 2).is_some_and(|&b| is_hex(b))
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

pub(crate) fn push_pct(out: &mut String, byte: u8) {
    out.push('%');
    out.push(char::from(HEX[usize::from(byte >> 4)]));
    out.push(char::from(HEX[usize::from(byte & 0xF)]));
}

/// Append `value` encoded for an expression: unreserved characters as they are,
/// and with `allow_reserved` (operators `+` and `#`) reserved characters and
/// existing percent-encoded triplets too; everything else percent-encoded as UTF-8.
pub(crate) fn encode_value(out: &mut String, value: &str, allow_reserved: bool) {
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if is_unreserved(byte) || allow_reserved && is_reserved(byte) {
            out.push(char::from(byte));
        } else if allow_reserved && is_pct_triplet(bytes, i) {
            out.push_str(&value[i..i + 3]);
            i += 3;
            continue;
        } else {
            push_pct(out, byte);
        }
        i += 1;
    }
}

/// The first `max` characters of `value`; with `allow_reserved`, a percent-encoded
/// triplet counts as one character so that a prefix never splits it.
pub(crate) fn prefix(value: &str, max: usize, allow_reserved: bool) -> &str {
    let bytes = value.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        if count == max {
            return &value[..i];
        }
        if allow_reserved && is_pct_triplet(bytes, i) {
            i += 3;
        } else {
            i += value[i..].chars().next().map_or(1, char::len_utf8);
        }
        count += 1;
    }
    value
}

/// Percent-decode `raw`, a value as it appears in a URI. `None` when a byte is
/// not allowed in such a value (see [`is_value_byte`]), a `%` does not start a
/// triplet, or the decoded bytes are not UTF-8.
pub(crate) fn decode_value(raw: &[u8], allow_reserved: bool) -> Option<String> {
    let mut out = Vec::with_capacity(raw.len());
    if !decode_into(raw, allow_reserved, &mut out) {
        return None;
    }
    String::from_utf8(out).ok()
}

/// Percent-decode `raw` onto the end of `out`, without checking that the
/// bytes are UTF-8 (the caller checks the whole value once); `false` when a
/// byte is not allowed in a value or a `%` does not start a triplet.
#[inline]
pub(crate) fn decode_into(raw: &[u8], allow_reserved: bool, out: &mut Vec<u8>) -> bool {
    out.reserve(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let byte = raw[i];
        if byte == b'%' {
            if !is_pct_triplet(raw, i) {
                return false;
            }
            out.push(hex_value(raw[i + 1]) << 4 | hex_value(raw[i + 2]));
            i += 3;
            continue;
        }
        if !is_value_byte(byte, allow_reserved) {
            return false;
        }
        out.push(byte);
        i += 1;
    }
    true
}

/// A byte that an expanded value may hold unencoded: unreserved, reserved for
/// `+`/`#`, and (leniently, for IRIs) any non-ASCII byte.
pub(crate) fn is_value_byte(byte: u8, allow_reserved: bool) -> bool {
    is_unreserved(byte) || byte >= 0x80 || allow_reserved && is_reserved(byte)
}

fn hex_value(byte: u8) -> u8 {
    match byte {
        b'0'..=b'9' => byte - b'0',
        b'a'..=b'f' => byte - b'a' + 10,
        _ => byte - b'A' + 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_keeps_unreserved_and_encodes_utf8() {
        let mut out = String::new();
        encode_value(&mut out, "a b/ü~", false);
        assert_eq!(out, "a%20b%2F%C3%BC~");
        out.clear();
        encode_value(&mut out, "a b/%2F%zz", true);
        assert_eq!(out, "a%20b/%2F%25zz");
    }

    #[test]
    fn decoding_rejects_bad_triplets_and_bytes_out_of_class() {
        assert_eq!(decode_value(b"caf%C3%A9", false).as_deref(), Some("café"));
        assert_eq!(decode_value(b"50%2", false), None);
        assert_eq!(decode_value(b"%FF", false), None, "not UTF-8");
        assert_eq!(decode_value(b"a/b", false), None, "`/` is reserved");
        assert_eq!(decode_value(b"a/b", true).as_deref(), Some("a/b"));
    }

    #[test]
    fn prefixes_count_characters() {
        assert_eq!(prefix("value", 3, false), "val");
        assert_eq!(prefix("héllo", 2, false), "hé");
        assert_eq!(prefix("%2Ffoo", 2, true), "%2Ff");
        assert_eq!(prefix("ab", 30, false), "ab");
    }
}
