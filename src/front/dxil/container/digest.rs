//! The two hashes a DXC container carries: the container digest (DXC's `ComputeHashRetail`,
//! MD5's compression function with its own final block: the bit length first, the message
//! tail, the padding, and `1 | 2·length` in the last word), which the validator writes into
//! the header over everything after the digest; and the `HASH` part, plain MD5 of the
//! program's bitcode.
//!
//! Both are written here from MD5's definition (RFC 1321) because the retail digest needs
//! the bare compression function, which MD5 crates do not expose; tests hold the plain MD5
//! to the `md-5` crate.

const SHIFTS: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
    14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15,
    21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
];

/// `floor(|sin(i + 1)| · 2³²)`, RFC 1321's table T.
const SINES: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

const INIT: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

/// MD5's compression of one 64-byte block into `state`.
fn compress(state: &mut [u32; 4], block: &[u8; 64]) {
    let mut x = [0u32; 16];
    for (w, chunk) in x.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for i in 0..64 {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((b & d) | (c & !d), (5 * i + 1) % 16),
            2 => (b ^ c ^ d, (3 * i + 5) % 16),
            _ => (c ^ (b | !d), (7 * i) % 16),
        };
        let sum = a.wrapping_add(f).wrapping_add(x[g]).wrapping_add(SINES[i]);
        let rotated = b.wrapping_add(sum.rotate_left(SHIFTS[i]));
        (a, b, c, d) = (d, rotated, b, c);
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d]) {
        *s = s.wrapping_add(v);
    }
}

fn finish(state: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (chunk, s) in out.chunks_exact_mut(4).zip(state) {
        chunk.copy_from_slice(&s.to_le_bytes());
    }
    out
}

/// MD5's compression over the whole 64-byte blocks of `data`, then over the one or two final
/// blocks that `finish_blocks` lays out from the remaining tail (it returns 64 or 128).
fn hash(data: &[u8], finish_blocks: impl FnOnce(&[u8], &mut [u8; 128]) -> usize) -> [u8; 16] {
    let mut state = INIT;
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        compress(&mut state, block.try_into().expect("64-byte chunk"));
    }
    let mut last = [0u8; 128];
    let len = finish_blocks(blocks.remainder(), &mut last);
    for block in last[..len].chunks_exact(64) {
        compress(&mut state, block.try_into().expect("64-byte chunk"));
    }
    finish(state)
}

/// Plain MD5 (the `HASH` part's digest).
pub(crate) fn md5(data: &[u8]) -> [u8; 16] {
    hash(data, |tail, last| {
        last[..tail.len()].copy_from_slice(tail);
        last[tail.len()] = 0x80;
        let len = if tail.len() < 56 { 64 } else { 128 };
        last[len - 8..len].copy_from_slice(&(data.len() as u64 * 8).to_le_bytes());
        len
    })
}

/// DXC's container digest (`ComputeHashRetail`) of `data`: the lengths are 32-bit, as DXC's.
pub(crate) fn retail_hash(data: &[u8]) -> [u8; 16] {
    let n = data.len() as u32;
    hash(data, |tail, last| {
        let len = if tail.len() < 56 {
            // One final block: bit length, tail, padding, `1 | 2n`.
            last[..4].copy_from_slice(&n.wrapping_shl(3).to_le_bytes());
            last[4..4 + tail.len()].copy_from_slice(tail);
            last[4 + tail.len()] = 0x80;
            64
        } else {
            // Two: tail and padding, then bit length, zeros, `1 | 2n`.
            last[..tail.len()].copy_from_slice(tail);
            last[tail.len()] = 0x80;
            last[64..68].copy_from_slice(&n.wrapping_shl(3).to_le_bytes());
            128
        };
        last[len - 4..len].copy_from_slice(&(1 | n.wrapping_shl(1)).to_le_bytes());
        len
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use md5_crate::Digest;

    #[test]
    fn plain_md5_agrees_with_the_md5_crate() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 300] {
            let expected: [u8; 16] = md5_crate::Md5::digest(&data[..len]).into();
            assert_eq!(md5(&data[..len]), expected, "length {len}");
        }
    }
}
