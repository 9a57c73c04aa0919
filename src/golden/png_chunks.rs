//! The PNG chunk checks quadstep makes before the `png` crate decodes a file.
//!
//! Why: the decoder trusts a `PLTE` chunk to hold whole RGB entries, and panics when its
//! length is not a multiple of 3 (or longer than 256 entries) in a paletted picture. A
//! golden or an Amber `FILE PNG` comes from outside, so such a file must be a clear
//! `Error::Io`, not a panic. Everything else (CRCs, sizes, compressed data) the decoder
//! checks itself.

use crate::{Error, Result};

/// The eight bytes every PNG starts with.
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// Walk the chunks of `bytes` and refuse a `PLTE` the decoder would mishandle. A file cut
/// short, or without the signature, passes: the decoder reports those itself.
pub(super) fn check(bytes: &[u8]) -> Result<()> {
    let Some(mut rest) = bytes.strip_prefix(&SIGNATURE[..]) else {
        return Ok(());
    };
    // Each chunk: length (4 bytes, big-endian), type (4), data (length), CRC (4).
    while let (Some(len), Some(kind)) = (rest.get(0..4), rest.get(4..8)) {
        let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
        if kind == b"PLTE" && (!len.is_multiple_of(3) || len > 3 * 256) {
            return Err(Error::Io(format!(
                "not a readable PNG: its PLTE chunk is {len} bytes, not 3 to 768 bytes \
                 in whole RGB entries"
            )));
        }
        if kind == b"IEND" {
            break;
        }
        let Some(next) = rest.get(len.saturating_add(12)..) else {
            break;
        };
        rest = next;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG made of the signature and one chunk (its CRC left zero: `check` does not read
    /// it).
    fn one_chunk(kind: &[u8; 4], len: u32) -> Vec<u8> {
        let mut v = SIGNATURE.to_vec();
        v.extend(len.to_be_bytes());
        v.extend(kind);
        v.extend(std::iter::repeat_n(7u8, len as usize));
        v.extend([0; 4]);
        v
    }

    #[test]
    fn palettes_of_whole_entries_pass_and_others_are_refused() {
        for len in [3, 24, 768] {
            assert!(check(&one_chunk(b"PLTE", len)).is_ok(), "{len}");
        }
        for len in [1, 25, 771] {
            let e = check(&one_chunk(b"PLTE", len)).unwrap_err().to_string();
            assert!(e.contains(&format!("PLTE chunk is {len} bytes")), "{e}");
        }
    }

    #[test]
    fn other_chunks_and_short_files_are_left_to_the_decoder() {
        assert!(check(&one_chunk(b"tEXt", 25)).is_ok());
        assert!(check(b"").is_ok());
        assert!(check(&SIGNATURE[..5]).is_ok());
        let mut cut = one_chunk(b"IHDR", 13);
        cut.truncate(20);
        assert!(check(&cut).is_ok());
        // A length past the end of the file stops the walk.
        let mut huge = SIGNATURE.to_vec();
        huge.extend(u32::MAX.to_be_bytes());
        huge.extend(b"IDAT");
        assert!(check(&huge).is_ok());
    }
}
