//! Whole-row writes of the register files and per-lane memory: a row filled with one value
//! (a uniform row made real, a broadcast load, an all-active mask), one value written under
//! the active mask, a row blended under the active mask (whose words are 0 or `!0`), and
//! one component of per-lane vectors written as a row ([`column`]). Each but the last is one loop compiled twice, plain (SSE2) and
//! inside a `#[target_feature(enable = "avx2")]` function (eight lanes per store), and
//! [`crate::cpu::avx2`] picks per call; they only move bits, so both forms give the same bits.

/// `d[i] = v` for every lane.
#[inline(always)]
pub(crate) fn fill<T: Copy>(d: &mut [T], v: T) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        return unsafe { fill_avx2(d, v) };
    }
    fill_body(d, v)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fill_avx2<T: Copy>(d: &mut [T], v: T) {
    fill_body(d, v)
}

/// Lanes a fill writes per step: a fixed-length inner loop the compiler unrolls into
/// straight stores (eight 32-byte ones for 32-bit rows), so a 256-lane row is four steps
/// rather than eight rounds of a generic loop's four stores and its counter.
const FILL_STEP: usize = 64;

#[inline(always)]
fn fill_body<T: Copy>(d: &mut [T], v: T) {
    let mut steps = d.chunks_exact_mut(FILL_STEP);
    for step in &mut steps {
        for x in step.iter_mut() {
            *x = v;
        }
    }
    for x in steps.into_remainder() {
        *x = v;
    }
}

/// A register word (`u32` or `u64`) blended under a per-lane mask word (`0` or `!0`).
pub(crate) trait Word: Copy {
    /// A word of the 32-bit register file (`u32`), the only file whose lane kernels the
    /// executor runs with an operand read from the destination row (`kernels::F1`).
    const N: bool;
    /// The mask word widened to this width (`0` or all ones).
    fn widen(m: u32) -> Self;
    /// `self` where `m` is all ones, `d` where it is zero.
    fn select(self, d: Self, m: Self) -> Self;
    /// The word zero-extended to 64 bits.
    fn to_u64(self) -> u64;
    /// The low bits of `v`.
    fn from_u64(v: u64) -> Self;
    /// The word as a `W` (zero-extended or truncated; the identity between equal widths).
    #[inline(always)]
    fn cast<W: Word>(self) -> W {
        W::from_u64(self.to_u64())
    }
}
impl Word for u32 {
    const N: bool = true;
    #[inline(always)]
    fn widen(m: u32) -> u32 {
        m
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_u64(v: u64) -> u32 {
        v as u32
    }
    #[inline(always)]
    fn select(self, d: u32, m: u32) -> u32 {
        (self & m) | (d & !m)
    }
}
impl Word for u64 {
    const N: bool = false;
    #[inline(always)]
    fn widen(m: u32) -> u64 {
        m as i32 as i64 as u64
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from_u64(v: u64) -> u64 {
        v
    }
    #[inline(always)]
    fn select(self, d: u64, m: u64) -> u64 {
        (self & m) | (d & !m)
    }
}

/// `d[i] = s[i]` where the mask word `m[i]` is `!0` (every lane with `full`); the lanes whose
/// mask word is 0 keep theirs.
#[inline(always)]
pub(crate) fn blend<T: Word>(d: &mut [T], s: &[T], m: &[u32], full: bool) {
    if full {
        d.copy_from_slice(s);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        return unsafe { blend_avx2(d, s, m) };
    }
    blend_body(d, s, m)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn blend_avx2<T: Word>(d: &mut [T], s: &[T], m: &[u32]) {
    blend_body(d, s, m)
}

/// `d[i] = v` where the mask word `m[i]` is `!0`; the lanes whose mask word is 0 keep theirs
/// (a uniform value written to the active lanes).
#[inline(always)]
pub(crate) fn fill_masked<T: Word>(d: &mut [T], v: T, m: &[u32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx2() {
        // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
        return unsafe { fill_masked_avx2(d, v, m) };
    }
    fill_masked_body(d, v, m)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fill_masked_avx2<T: Word>(d: &mut [T], v: T, m: &[u32]) {
    fill_masked_body(d, v, m)
}

#[inline(always)]
fn fill_masked_body<T: Word>(d: &mut [T], v: T, m: &[u32]) {
    let len = d.len().min(m.len());
    let (d, m) = (&mut d[..len], &m[..len]);
    for i in 0..len {
        d[i] = v.select(d[i], T::widen(m[i]));
    }
}

/// An index loop over slices cut to one length, with the blend as bit operations: no bounds
/// checks left and no conditional load, so it vectorises (four `and`/`andn`/`or` vectors per
/// 32 lanes in the AVX2 form; written as `if m != 0 { s } else { d }` it stays scalar).
#[inline(always)]
fn blend_body<T: Word>(d: &mut [T], s: &[T], m: &[u32]) {
    let len = d.len().min(s.len()).min(m.len());
    let (d, s, m) = (&mut d[..len], &s[..len], &m[..len]);
    for i in 0..len {
        d[i] = s[i].select(d[i], T::widen(m[i]));
    }
}

/// `d[i] = s[i][c]` where the mask word `m[i]` is `!0` (every lane with `full`): component
/// `c` (0 to 3) of per-lane vectors, an image instruction's results, into a row. One loop
/// per component (a constant index: strided loads and shuffles, no per-lane index check),
/// plain only (it moves bits; there is no AVX2 form to keep equal), and without the
/// mask's loads and blend when every lane is written.
#[inline(always)]
pub(crate) fn column(d: &mut [u32], s: &[[u32; 4]], c: usize, m: &[u32], full: bool) {
    match c {
        0 => column_at::<0>(d, s, m, full),
        1 => column_at::<1>(d, s, m, full),
        2 => column_at::<2>(d, s, m, full),
        // vectors have four components
        _ => column_at::<3>(d, s, m, full),
    }
}

#[inline(always)]
fn column_at<const C: usize>(d: &mut [u32], s: &[[u32; 4]], m: &[u32], full: bool) {
    let len = d.len().min(s.len()).min(m.len());
    let (d, s, m) = (&mut d[..len], &s[..len], &m[..len]);
    if full {
        for i in 0..len {
            d[i] = s[i][C];
        }
    } else {
        for i in 0..len {
            d[i] = s[i][C].select(d[i], m[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_and_blend_agree_with_a_lane_loop() {
        for n in [0usize, 1, 4, 7, 64, 68, 256, 260] {
            let s: Vec<u64> = (0..n as u64).map(|l| l * 0x9E37_79B9_7F4A_7C15).collect();
            let m: Vec<u32> = (0..n).map(|l| if l % 3 == 1 { 0 } else { !0 }).collect();
            for full in [false, true] {
                let mut d: Vec<u64> = (0..n as u64).map(|l| !l).collect();
                blend(&mut d, &s, &m, full);
                for l in 0..n {
                    let want = if full || m[l] != 0 { s[l] } else { !(l as u64) };
                    assert_eq!(d[l], want, "lane {l} of {n}, full {full}");
                }
            }
            // with `full` every mask word is `!0`, as the interpreter's are then
            let vecs: Vec<[u32; 4]> = (0..n as u32).map(|l| [l, l << 8, !l, l ^ 0x55]).collect();
            let ones = vec![!0u32; n];
            for c in 0..4 {
                for full in [false, true] {
                    let mut d: Vec<u32> = (0..n as u32).map(|l| l.wrapping_mul(31)).collect();
                    column(&mut d, &vecs, c, if full { &ones } else { &m }, full);
                    for l in 0..n {
                        let keep = !full && m[l] == 0;
                        let want = if keep {
                            (l as u32).wrapping_mul(31)
                        } else {
                            vecs[l][c]
                        };
                        assert_eq!(d[l], want, "lane {l} of {n}, component {c}, full {full}");
                    }
                }
            }
            let mut d = vec![0u32; n];
            fill(&mut d, 0xDEAD_BEEF);
            assert!(d.iter().all(|&x| x == 0xDEAD_BEEF));
            let mut d: Vec<u64> = (0..n as u64).map(|l| !l).collect();
            fill_masked(&mut d, 7, &m);
            for l in 0..n {
                let want = if m[l] != 0 { 7 } else { !(l as u64) };
                assert_eq!(d[l], want, "lane {l} of {n}, masked fill");
            }
        }
    }
}
