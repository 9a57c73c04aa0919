//! Which instruction-set extensions the hot loops may use, decided once per process.
//!
//! A few inner loops (the texture unit's plane routes, the tile shader's interpolation and
//! colour conversion, the interpreter's row scatter, the early depth test of a block) are
//! compiled twice: plain (SSE2, baseline x86-64) and with `#[target_feature(enable = "avx2")]`
//! (VEX three-operand forms: ~10-15 % fewer instructions), and [`avx2`] chooses per call.
//! Both forms do the same IEEE operations in the same order and FMA is never enabled, so
//! they give the same bits; every frame's hash is the same either way. One exception, in the
//! interpreter's lane kernels (`exec/kernels.rs`), whose loops the compiler vectorises: an
//! operation on two NaNs returns one of them, and which one follows the operand order the
//! compiler chose for that form (Vulkan leaves NaN payloads undefined; their test compares
//! float results with every NaN as one value).
//!
//! `QUADSTEP_NO_AVX2=1` in the environment makes [`avx2`] false, so that the plain forms,
//! which a CPU with AVX2 never runs otherwise, are tested on such a CPU too (`.ci/run` runs
//! the library's tests a second time that way).

use std::sync::atomic::{AtomicU8, Ordering};

/// 0: not decided yet, 1: no, 2: yes.
static AVX2: AtomicU8 = AtomicU8::new(0);

/// Whether the AVX2 forms may run: the CPU has AVX2 (run-time detection) and
/// `QUADSTEP_NO_AVX2` is not set. A caller may rely on `true` meaning the CPU has AVX2.
#[inline]
pub(crate) fn avx2() -> bool {
    match AVX2.load(Ordering::Relaxed) {
        0 => decide(),
        v => v == 2,
    }
}

#[cold]
fn decide() -> bool {
    #[cfg(target_arch = "x86_64")]
    let yes = std::arch::is_x86_feature_detected!("avx2")
        && std::env::var_os("QUADSTEP_NO_AVX2").is_none_or(|v| v.is_empty() || v == "0");
    #[cfg(not(target_arch = "x86_64"))]
    let yes = false;
    AVX2.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
    yes
}

/// Which cache a [`prefetch`] fills.
#[derive(Clone, Copy)]
pub(crate) enum Cache {
    /// L1 (`prefetcht0`): lines wanted soon, e.g. the next primitives of a tile's bin.
    L1,
    /// L2 only (`prefetcht1`): lines wanted a while later, e.g. the next tile's pixel rows,
    /// which should not push the current tile's data out of L1.
    L2,
}

/// Ask for the cache lines of `bytes` bytes from `p`: a hint that hides a miss the
/// out-of-order window is too short to reach. Any address is allowed; nothing is read.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T, bytes: usize, into: Cache) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _MM_HINT_T1};
        match into {
            Cache::L1 => prefetch_lines::<_MM_HINT_T0>(p.cast(), bytes),
            Cache::L2 => prefetch_lines::<_MM_HINT_T1>(p.cast(), bytes),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, bytes, into);
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_lines<const HINT: i32>(p: *const i8, bytes: usize) {
    use std::arch::x86_64::_mm_prefetch;
    let mut o = 0;
    while o < bytes {
        // SAFETY: a prefetch reads nothing architecturally and never faults, whatever the
        // address (`wrapping_add` makes no claim about it either).
        unsafe { _mm_prefetch::<HINT>(p.wrapping_add(o)) };
        o += 64;
    }
    if let Some(last) = bytes.checked_sub(1) {
        // SAFETY: as above (the last byte, whose line the 64-byte steps miss when `p` is not
        // line-aligned)
        unsafe { _mm_prefetch::<HINT>(p.wrapping_add(last)) };
    }
}
