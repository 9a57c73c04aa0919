//! Lane sets as bit sets: the lanes waiting at each block of the schedule, and the
//! conversions between a bit set and the per-lane mask words (`0` / `!0`) the lane kernels
//! blend under.
//!
//! The scheduler's questions are set questions — which is the lowest block some lane waits at,
//! which lanes wait there, where does a branch send each active lane, is any quad left without
//! a live lane — so they are asked of bit sets: one bit per lane (`n.div_ceil(64)` words per
//! set), one set per block, and a bit set over the blocks that have waiting lanes. A branch
//! turns its condition row into bits (four lanes per compare and `movemask`), splits the
//! active set with two `and`s, and ORs the halves into its successors' sets; the next block is
//! the lowest set bit of the block set. The per-lane mask words the kernels read are written
//! from the bits only when the active set changes. Per-lane block numbers would need a scan
//! of every lane for the minimum and a second one to rebuild the mask before each block.
//!
//! Invariant between runs: every block's set is empty and the block set is zero (a run
//! leaves them so when it ends normally; after an error, [`Waiting::start`] clears them).

/// Words of a bit set over `n` lanes.
#[inline(always)]
pub(crate) fn words(n: usize) -> usize {
    n.div_ceil(64)
}

/// `f(words)`, with `words` a constant in the calls for the common set lengths (4 words: a
/// fragment batch of 64 quads; 1: up to 64 lanes): the scheduler's loops over a few words
/// of bits are then unrolled straight-line code, not vector loops whose setup costs more
/// than the words.
#[inline(always)]
pub(crate) fn by_words<R>(words: usize, f: impl FnOnce(usize) -> R) -> R {
    match words {
        4 => f(4),
        1 => f(1),
        w => f(w),
    }
}

/// The bit set of the first `n` lanes.
pub(crate) fn all(n: usize, out: &mut Vec<u64>) {
    out.clear();
    out.resize(words(n), !0);
    if !n.is_multiple_of(64) {
        if let Some(last) = out.last_mut() {
            *last = (1u64 << (n % 64)) - 1;
        }
    }
}

/// `out[w]` bit `k` = `row[64w + k] != 0` (the lanes of `row`; `out` has `words(row.len())`
/// words).
pub(crate) fn row_bits(row: &[u32], out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        return unsafe { row_bits_avx2(row, out) };
    }
    row_bits_body(row, out)
}

/// [`row_bits`] in its plain form: [`nonzero64`] per 64 lanes.
#[inline(always)]
fn row_bits_body(row: &[u32], out: &mut [u64]) {
    let (chunks, rest) = row.as_chunks::<64>();
    for (o, c) in out.iter_mut().zip(chunks) {
        *o = nonzero64(c);
    }
    rest_bits(rest, out.get_mut(chunks.len()));
}

/// The bits of the lanes after the last whole 64 (`rest`) into `out`, the last word.
#[inline(always)]
fn rest_bits(rest: &[u32], out: Option<&mut u64>) {
    if let Some(o) = out {
        *o = rest
            .iter()
            .enumerate()
            .fold(0, |m, (k, &x)| m | ((x != 0) as u64) << k);
    }
}

/// [`row_bits`] 32 lanes at a time: four compares with zero, two packs to bytes, one
/// permute (the packs work within 128-bit halves, so the bytes come out as groups of four
/// lanes in the order 0 2 4 6 1 3 5 7) and a byte `movemask`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn row_bits_avx2(row: &[u32], out: &mut [u64]) {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    let zero = _mm256_setzero_si256();
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let (chunks, rest) = row.as_chunks::<64>();
    for (o, c) in out.iter_mut().zip(chunks) {
        let (halves, _) = c.as_chunks::<32>();
        let mut m = 0u64;
        for (h, half) in halves.iter().enumerate() {
            let [a, b, c, d] = cast::<[u32; 32], [__m256i; 4]>(*half);
            let ab = _mm256_packs_epi32(_mm256_cmpeq_epi32(a, zero), _mm256_cmpeq_epi32(b, zero));
            let cd = _mm256_packs_epi32(_mm256_cmpeq_epi32(c, zero), _mm256_cmpeq_epi32(d, zero));
            let bytes = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(ab, cd), order);
            m |= u64::from(!(_mm256_movemask_epi8(bytes) as u32)) << (32 * h);
        }
        *o = m;
    }
    rest_bits(rest, out.get_mut(chunks.len()));
}

/// Bits of the nonzero words of 64 lanes: sixteen lanes per four compares, two packs and a
/// byte `movemask` (SSE2).
#[inline(always)]
fn nonzero64(c: &[u32; 64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        use wide::bytemuck::cast;
        let q = c.as_chunks::<4>().0;
        let mut m = 0u64;
        for (k, q) in q.chunks_exact(4).enumerate() {
            let [a, b, c, d] = [q[0], q[1], q[2], q[3]].map(cast::<[u32; 4], __m128i>);
            // SAFETY: SSE2 is part of x86-64 itself (every x86_64 CPU has it), and these
            // intrinsics only compute on registers (no memory access).
            let zero = unsafe {
                let z = _mm_setzero_si128();
                let ab = _mm_packs_epi32(_mm_cmpeq_epi32(a, z), _mm_cmpeq_epi32(b, z));
                let cd = _mm_packs_epi32(_mm_cmpeq_epi32(c, z), _mm_cmpeq_epi32(d, z));
                _mm_movemask_epi8(_mm_packs_epi16(ab, cd)) as u64
            };
            m |= (zero ^ 0xffff) << (16 * k);
        }
        m
    }
    #[cfg(not(target_arch = "x86_64"))]
    c.iter()
        .enumerate()
        .fold(0, |m, (k, &x)| m | ((x != 0) as u64) << k)
}

/// Eight lanes' mask words for each value of a byte of a bit set.
static BYTE_LANES: [[u32; 8]; 256] = {
    let mut t = [[0u32; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        while k < 8 {
            t[b][k] = if b >> k & 1 != 0 { !0 } else { 0 };
            k += 1;
        }
        b += 1;
    }
    t
};

/// The per-lane mask words of bit set `bits`: `out[l] = !0` where bit `l` is set, else 0
/// (eight lanes per byte, copied from a table: two vector moves, or one in the AVX2 form).
pub(crate) fn expand(bits: &[u64], out: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        return unsafe { expand_avx2(bits, out) };
    }
    expand_body(bits, out)
}

/// Lane `k` of group `g` of 32 lanes: bit `8g + k` (the selectors of [`expand_avx2`]).
const LANE_BITS: [[u32; 8]; 4] = {
    let mut t = [[0u32; 8]; 4];
    let mut b = 0;
    while b < 32 {
        t[b / 8][b % 8] = 1 << b;
        b += 1;
    }
    t
};

/// [`expand_body`] computed rather than looked up: per 32 lanes one broadcast of their
/// bits, then per eight lanes an `and` with the eight lanes' bits, a compare with them and a
/// store (three instructions, where a table row is a shift, a mask, a load and a store).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn expand_avx2(bits: &[u64], out: &mut [u32]) {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    let sel = cast::<[[u32; 8]; 4], [__m256i; 4]>(LANE_BITS);
    let (chunks, rest) = out.as_chunks_mut::<64>();
    let whole = chunks.len();
    for (o, &w) in chunks.iter_mut().zip(bits) {
        let (halves, _) = o.as_chunks_mut::<32>();
        for (h, half) in halves.iter_mut().enumerate() {
            let v = _mm256_set1_epi32((w >> (32 * h)) as i32);
            let (groups, _) = half.as_chunks_mut::<8>();
            for (g, &s) in groups.iter_mut().zip(&sel) {
                *g = cast::<__m256i, [u32; 8]>(_mm256_cmpeq_epi32(_mm256_and_si256(v, s), s));
            }
        }
    }
    let w = bits.get(whole).copied().unwrap_or(0);
    for (k, o) in rest.iter_mut().enumerate() {
        *o = 0u32.wrapping_sub((w >> k) as u32 & 1);
    }
}

/// 64 lanes per bit-set word, a table row per byte: eight 32-byte copies per word, with the
/// word read once (no index arithmetic or bounds check per group of eight lanes).
#[inline(always)]
fn expand_body(bits: &[u64], out: &mut [u32]) {
    let (chunks, rest) = out.as_chunks_mut::<64>();
    let whole = chunks.len();
    for (o, &w) in chunks.iter_mut().zip(bits) {
        let (groups, _) = o.as_chunks_mut::<8>();
        for (k, g) in groups.iter_mut().enumerate() {
            *g = BYTE_LANES[(w >> (8 * k)) as usize & 0xff];
        }
    }
    let w = bits.get(whole).copied().unwrap_or(0);
    for (k, o) in rest.iter_mut().enumerate() {
        *o = 0u32.wrapping_sub((w >> k) as u32 & 1);
    }
}

/// The index of the first set bit of `bits`, if any.
#[inline]
pub(crate) fn first(bits: &[u64]) -> Option<usize> {
    bits.iter()
        .position(|&w| w != 0)
        .map(|i| i * 64 + bits[i].trailing_zeros() as usize)
}

/// What [`Waiting::pop`] took: the block, whether its lanes are the ones the set held before,
/// and whether they are all the run's lanes.
pub(crate) struct Popped {
    pub block: u32,
    pub same: bool,
    pub all: bool,
}

/// The lanes waiting at each block of a program's schedule.
#[derive(Default)]
pub(crate) struct Waiting {
    /// Words per lane set.
    words: usize,
    /// The last word of the set of every lane (the bits of lanes `64 * (words - 1)..n`).
    last: u64,
    /// Block `b`'s set: `sets[b * words..][..words]`.
    sets: Vec<u64>,
    /// Bit `b`: block `b`'s set may be non-empty (never clear while it is non-empty).
    blocks: Vec<u64>,
    /// A run ended early (an error): some set may be non-empty.
    dirty: bool,
}

impl Waiting {
    /// Empty sets for `blocks` blocks of `n` lanes, for a run that starts now.
    pub fn start(&mut self, blocks: usize, n: usize) {
        let words = words(n);
        let (len, nbw) = (blocks * words, blocks.div_ceil(64));
        if self.dirty || self.words != words || self.sets.len() != len {
            self.sets.clear();
            self.sets.resize(len, 0);
            self.blocks.clear();
        }
        self.blocks.resize(nbw, 0);
        self.words = words;
        self.last = !0 >> ((64 - n % 64) % 64);
        self.dirty = true;
    }

    /// The run ended with every set empty (no lane waits anywhere).
    pub fn finish(&mut self) {
        self.dirty = false;
    }

    /// Add the lanes `bits` to block `b`'s set.
    #[inline]
    pub fn add(&mut self, b: u32, bits: &[u64]) {
        let b = b as usize;
        let (sets, blocks) = (&mut self.sets, &mut self.blocks);
        by_words(self.words, |words| {
            let Some(set) = sets.get_mut(b * words..(b + 1) * words) else {
                return;
            };
            let mut any = 0;
            for (s, &x) in set.iter_mut().zip(bits) {
                *s |= x;
                any |= x;
            }
            if any != 0 {
                blocks[b / 64] |= 1 << (b % 64);
            }
        })
    }

    /// Add lane `l` to block `b`'s set.
    #[inline]
    pub fn add_lane(&mut self, b: u32, l: usize) {
        let (b, w) = (b as usize, l / 64);
        if let Some(s) = self
            .sets
            .get_mut(b * self.words + w)
            .filter(|_| w < self.words)
        {
            *s |= 1 << (l % 64);
            self.blocks[b / 64] |= 1 << (b % 64);
        }
    }

    /// The lowest block with waiting lanes, its set moved into `act` (and emptied), in one
    /// pass that also says whether `act` held the same lanes before and whether the set held
    /// every lane (compared word by word with the set of every lane: no bit count, which
    /// is a software popcount on baseline x86-64).
    pub fn pop(&mut self, act: &mut [u64]) -> Option<Popped> {
        loop {
            let b = first(&self.blocks)?;
            self.blocks[b / 64] &= !(1 << (b % 64));
            let (sets, full_last) = (&mut self.sets, self.last);
            let (any, changed, missing) = by_words(self.words, |words| {
                let set = &mut sets[b * words..][..words];
                let (mut any, mut changed, mut missing) = (0, 0, 0);
                let last = words.wrapping_sub(1);
                for (i, (a, s)) in act.iter_mut().zip(set.iter_mut()).enumerate() {
                    let new = std::mem::take(s);
                    changed |= *a ^ new;
                    any |= new;
                    missing |= new ^ if i == last { full_last } else { !0 };
                    *a = new;
                }
                (any, changed, missing)
            });
            if any != 0 {
                return Some(Popped {
                    block: b as u32,
                    same: changed == 0,
                    all: missing == 0,
                });
            }
        }
    }

    /// The lanes waiting anywhere, into `out`.
    pub fn any(&self, out: &mut [u64]) {
        out.fill(0);
        for b in self.waiting() {
            for (o, &s) in out
                .iter_mut()
                .zip(&self.sets[b * self.words..][..self.words])
            {
                *o |= s;
            }
        }
    }

    /// Keep only the lanes of `keep` in every set.
    pub fn retain(&mut self, keep: &[u64]) {
        let words = self.words;
        for b in self.waiting().collect::<Vec<_>>() {
            for (s, &k) in self.sets[b * words..][..words].iter_mut().zip(keep) {
                *s &= k;
            }
        }
    }

    /// The blocks whose sets may be non-empty.
    fn waiting(&self) -> impl Iterator<Item = usize> + '_ {
        self.blocks.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let k = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + k
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_bits_and_expand_agree_with_a_lane_loop() {
        for n in [0, 4, 8, 13, 60, 64, 68, 128, 256, 4096] {
            let row: Vec<u32> = (0..n)
                .map(|l: usize| {
                    if (l * 7 + l / 5).is_multiple_of(3) {
                        0
                    } else {
                        (l as u32 * 3 + 1).rotate_left(l as u32 % 32)
                    }
                })
                .collect();
            let mut bits = vec![0u64; words(n)];
            row_bits(&row, &mut bits);
            let mut plain_bits = vec![0u64; words(n)];
            row_bits_body(&row, &mut plain_bits);
            assert_eq!(plain_bits, bits, "plain form of row_bits, {n} lanes");
            for (l, &x) in row.iter().enumerate() {
                assert_eq!(
                    bits[l / 64] >> (l % 64) & 1,
                    (x != 0) as u64,
                    "lane {l} of {n}"
                );
            }
            let mut out = vec![5u32; n];
            expand(&bits, &mut out);
            for (l, &x) in row.iter().enumerate() {
                assert_eq!(out[l], if x != 0 { !0 } else { 0 }, "lane {l} of {n}");
            }
            let mut plain = vec![5u32; n];
            expand_body(&bits, &mut plain);
            assert_eq!(plain, out, "plain form, {n} lanes");
            let mut a = Vec::new();
            all(n, &mut a);
            assert_eq!(a.iter().map(|w| w.count_ones() as usize).sum::<usize>(), n);
        }
    }

    #[test]
    fn waiting_pops_the_lowest_block_with_its_lanes() {
        let mut w = Waiting::default();
        w.start(70, 130);
        let mut act = vec![0u64; words(130)];
        w.add_lane(69, 129);
        w.add(3, &[1, 0, 2]);
        w.add_lane(3, 5);
        w.add(5, &[0, 0, 0]);
        let p = w.pop(&mut act).expect("block 3");
        assert_eq!((p.block, p.same, p.all), (3, false, false));
        assert_eq!(act, [1 | 1 << 5, 0, 2]);
        w.add(4, &[1 | 1 << 5, 0, 2]);
        let p = w.pop(&mut act).expect("block 4");
        assert_eq!((p.block, p.same, p.all), (4, true, false));
        w.retain(&[!0, !0, 0]);
        assert!(w.pop(&mut act).is_none());
        w.finish();
        w.start(70, 130);
        assert!(w.pop(&mut act).is_none());
        // every lane, by lane counts with and without a partial last word
        for n in [4, 60, 64, 128, 130, 256] {
            let mut every = Vec::new();
            all(n, &mut every);
            let mut act = vec![0u64; words(n)];
            w.finish();
            w.start(8, n);
            w.add(2, &every);
            let p = w.pop(&mut act).expect("block 2");
            assert_eq!((p.block, p.all), (2, true), "{n} lanes");
            // one lane short of all, in each word
            for word in 0..every.len() {
                let mut short = every.clone();
                short[word] &= short[word] - 1;
                w.add(5, &short);
                let p = w.pop(&mut act).expect("block 5");
                assert_eq!((p.block, p.all), (5, false), "{n} lanes, word {word}");
            }
            // lanes beyond n are never waited for
            for l in 0..n {
                w.add_lane(1, l);
            }
            assert!(w.pop(&mut act).expect("block 1").all, "{n} lanes");
        }
    }

    /// `add` and `pop` at every set length, the unrolled ones (1 and 4 words) and the
    /// general loop (2, 3, 5), against a model of one `Vec<bool>` per block: which block is
    /// lowest, which lanes it takes, and the `same` and `all` answers.
    #[test]
    fn waiting_matches_a_lane_model_at_every_set_length() {
        for n in [4, 60, 64, 100, 128, 188, 192, 252, 256, 300, 320] {
            let blocks = 9;
            let mut w = Waiting::default();
            w.start(blocks, n);
            let mut model = vec![vec![false; n]; blocks];
            let mut act = vec![0u64; words(n)];
            let mut model_act = vec![false; n];
            let mut seed = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            for step in 0..60 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                if step % 3 != 2 {
                    // add a pseudo-random set of lanes (sometimes all, sometimes none)
                    let b = (seed >> 40) as usize % blocks;
                    let lanes: Vec<bool> = (0..n)
                        .map(|l| match step % 7 {
                            0 => true,
                            1 => false,
                            _ => (seed >> (l % 61))
                                .wrapping_add(l as u64 * 7)
                                .is_multiple_of(3),
                        })
                        .collect();
                    let mut bits = vec![0u64; words(n)];
                    for (l, &on) in lanes.iter().enumerate() {
                        bits[l / 64] |= (on as u64) << (l % 64);
                        model[b][l] |= on;
                    }
                    w.add(b as u32, &bits);
                } else {
                    let want = model.iter().position(|m| m.iter().any(|&x| x));
                    let got = w.pop(&mut act);
                    assert_eq!(got.as_ref().map(|p| p.block as usize), want, "{n} lanes");
                    let (Some(p), Some(b)) = (got, want) else {
                        continue;
                    };
                    let taken = std::mem::replace(&mut model[b], vec![false; n]);
                    assert_eq!(p.same, taken == model_act, "{n} lanes, block {b}");
                    assert_eq!(p.all, taken.iter().all(|&x| x), "{n} lanes, block {b}");
                    for (l, &on) in taken.iter().enumerate() {
                        assert_eq!(act[l / 64] >> (l % 64) & 1, on as u64, "lane {l} of {n}");
                    }
                    model_act = taken;
                }
            }
        }
    }
}
