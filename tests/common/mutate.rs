//! Random mutations of SPIR-V binaries, for the tests that feed them to the front end and expect
//! an error or a result but never a panic or a hang: the front end's unit tests (which include
//! this file with `#[path]`) and the Amber corpus test (`common::mutate`).

/// Mutates one to three words after the five-word header of `w` (which must be longer than
/// that), biased towards what parsers trip on: a random word, a small id, one bit flipped, or
/// the low half of a word (an instruction's opcode) replaced by a number below 400.
pub fn words(rng: &mut fastrand::Rng, w: &mut [u32]) {
    for _ in 0..1 + rng.usize(..3) {
        let k = rng.usize(5..w.len());
        w[k] = match rng.u32(..4) {
            0 => rng.u32(..),
            1 => rng.u32(..64),
            2 => w[k] ^ (1 << rng.u32(..32)),
            _ => (w[k] & 0xffff_0000) | rng.u32(..400),
        };
    }
}
