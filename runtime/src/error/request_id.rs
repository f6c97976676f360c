//! The id of one answered request, `data.requestId` of every error a client
//! receives and the `request_id` of the call's log line and span.

/// The reference's alphabet: upper-case letters and digits.
const ALPHABET: &[u8; 36] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// A fresh request id in the reference's `XXXXX-XXXXX` form (since its
/// 0.13.10): ten characters drawn uniformly from `A-Z0-9`, about 51 bits, so
/// two requests of one server do not meet in a log, short enough to read out
/// in a bug report. Random rather than counted: it says nothing of how many
/// requests the server answered. Not a secret, so `fastrand` does.
pub(crate) fn new_request_id() -> String {
    let mut id = String::with_capacity(11);
    for index in 0..10 {
        if index == 5 {
            id.push('-');
        }
        id.push(char::from(ALPHABET[fastrand::usize(..ALPHABET.len())]));
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_reference_shape_and_differ() {
        let ids: Vec<String> = (0..200).map(|_| new_request_id()).collect();
        for id in &ids {
            let (head, tail) = id.split_once('-').expect("one hyphen");
            assert!(head.len() == 5 && tail.len() == 5, "{id}");
            assert!(id.bytes().filter(|b| *b != b'-').all(|b| ALPHABET.contains(&b)), "{id}");
        }
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
    }
}
