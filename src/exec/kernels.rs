//! Per-instruction lane kernels: one monomorphised loop per (operation, type), chosen once by
//! [`super::program::compile`] and stored as a plain function pointer in the decoded
//! instruction. A kernel reads whole operand slices (one value per batch lane) and writes a
//! whole result slice; the executor then blends the result into the destination register under
//! the active mask. Every kernel is total: garbage in inactive lanes can never panic.

#![allow(clippy::upper_case_acronyms)] // kernel shapes: N = 32-bit, W = 64-bit operands

use super::rows::Word;
use crate::ir::{BinaryOp, ConvOp, ScalarTy, TernaryOp, UnaryOp};
#[cfg(target_arch = "x86_64")]
use crate::math::x86;
use crate::math::{self, lanes::Scalar, Float};
use half::f16;

/// Kernels take the destination row and an optional lane mask (`!0` = write the lane, `0` =
/// keep its value; no other words: the loops blend with them as bit masks; `None` = write
/// every lane). An operand slice as long as the destination is a row; a shorter one is one
/// value for every lane (its first; the executor passes a uniform register so); an empty one
/// is the destination row itself, read before it is written (`c = c + x` in place: only the
/// two- and three-operand loops of a [`Lane`] kernel take it, never two of them at once).
pub(crate) type F1<A, R> = fn(&[A], &mut [R], Option<&[u32]>);
pub(crate) type F2<A, B, R> = fn(&[A], &[B], &mut [R], Option<&[u32]>);
pub(crate) type F3<A, B, C, R> = fn(&[A], &[B], &[C], &mut [R], Option<&[u32]>);
pub(crate) type F4<A, B, C, D, R> = fn(&[A], &[B], &[C], &[D], &mut [R], Option<&[u32]>);

/// A kernel of the 32-bit register file: the row loop `rows` and, for a kernel that reads
/// only its own lane of each operand, `one`, the same rule on one value per operand (what a
/// result of uniform operands runs: a plain call of a few instructions, where the row loop
/// on one lane costs its whole dispatch). `None` for the cross-lane kernels (derivatives,
/// quad operations). The two come from one rule written once ([`lane!`]).
#[derive(Clone, Copy)]
pub(crate) struct Lane<F, S> {
    pub rows: F,
    pub one: Option<S>,
}
pub(crate) type Lane1 = Lane<F1<u32, u32>, fn(u32) -> u32>;
pub(crate) type Lane2 = Lane<F2<u32, u32, u32>, fn(u32, u32) -> u32>;
pub(crate) type Lane3 = Lane<F3<u32, u32, u32, u32>, fn(u32, u32, u32) -> u32>;

/// A unary kernel, by register files of (operand, result): N = 32-bit, W = 64-bit. The
/// all-32-bit form (`Code::N1`, run by `Batch::lane_kernel32`) apart from the rest ([`W1`],
/// what `Batch::exec` runs), so neither can be handed the other's.
#[derive(Clone, Copy)]
pub(crate) enum K1 {
    NN(Lane1),
    W(W1),
}
/// A binary kernel by register files of (a, b, result), split as [`K1`].
#[derive(Clone, Copy)]
pub(crate) enum K2 {
    NNN(Lane2),
    W(W2),
}
/// A ternary kernel by register files of (a, b, c, result), split as [`K1`].
#[derive(Clone, Copy)]
pub(crate) enum K3 {
    NNNN(Lane3),
    W(W3),
}
/// A four-operand kernel (bitfield insert, pack4x8).
#[derive(Clone, Copy)]
pub(crate) enum K4 {
    NNNNN(F4<u32, u32, u32, u32, u32>),
    WWNNW(F4<u64, u64, u32, u32, u64>),
}

/// A unary kernel with a 64-bit operand or result.
#[derive(Clone, Copy)]
pub(crate) enum W1 {
    WW(F1<u64, u64>),
    WN(F1<u64, u32>),
    NW(F1<u32, u64>),
}
/// A binary kernel with a 64-bit operand or result.
#[derive(Clone, Copy)]
pub(crate) enum W2 {
    WWW(F2<u64, u64, u64>),
    WWN(F2<u64, u64, u32>),
    WNW(F2<u64, u32, u64>),
    NNW(F2<u32, u32, u64>),
}
/// A ternary kernel with a 64-bit operand or result.
#[derive(Clone, Copy)]
pub(crate) enum W3 {
    WWWW(F3<u64, u64, u64, u64>),
    NWWW(F3<u32, u64, u64, u64>),
    WNNW(F3<u64, u32, u32, u64>),
}

/// Register storage word (u32 or u64): builds the kernel enums by double dispatch, from a
/// row loop and its rule on one value per operand (`None` for a cross-lane kernel; kept for
/// the 32-bit ones, [`Lane`]).
pub(crate) trait St: Word + Default + Send + Sync + 'static {
    fn k1<R: St>(f: F1<Self, R>, one: Option<fn(Self) -> R>) -> K1;
    fn k1_from_n(f: F1<u32, Self>, one: Option<fn(u32) -> Self>) -> K1;
    fn k1_from_w(f: F1<u64, Self>) -> K1;
    fn k2_same(f: F2<Self, Self, Self>, one: Option<fn(Self, Self) -> Self>) -> K2;
    fn k2_cmp(f: F2<Self, Self, u32>, one: Option<fn(Self, Self) -> u32>) -> K2;
    fn k2_int(f: F2<Self, u32, Self>, one: Option<fn(Self, u32) -> Self>) -> K2;
    fn k3_same(f: F3<Self, Self, Self, Self>, one: Option<fn(Self, Self, Self) -> Self>) -> K3;
    fn k3_sel(f: F3<u32, Self, Self, Self>, one: Option<fn(u32, Self, Self) -> Self>) -> K3;
    fn k3_bfe(f: F3<Self, u32, u32, Self>, one: Option<fn(Self, u32, u32) -> Self>) -> K3;
    fn k4_bfi(f: F4<Self, Self, u32, u32, Self>) -> K4;
}
impl St for u32 {
    fn k1<R: St>(f: F1<u32, R>, one: Option<fn(u32) -> R>) -> K1 {
        R::k1_from_n(f, one)
    }
    fn k1_from_n(rows: F1<u32, u32>, one: Option<fn(u32) -> u32>) -> K1 {
        K1::NN(Lane { rows, one })
    }
    fn k1_from_w(f: F1<u64, u32>) -> K1 {
        K1::W(W1::WN(f))
    }
    fn k2_same(rows: F2<u32, u32, u32>, one: Option<fn(u32, u32) -> u32>) -> K2 {
        K2::NNN(Lane { rows, one })
    }
    fn k2_cmp(rows: F2<u32, u32, u32>, one: Option<fn(u32, u32) -> u32>) -> K2 {
        K2::NNN(Lane { rows, one })
    }
    fn k2_int(rows: F2<u32, u32, u32>, one: Option<fn(u32, u32) -> u32>) -> K2 {
        K2::NNN(Lane { rows, one })
    }
    fn k3_same(rows: F3<u32, u32, u32, u32>, one: Option<fn(u32, u32, u32) -> u32>) -> K3 {
        K3::NNNN(Lane { rows, one })
    }
    fn k3_sel(rows: F3<u32, u32, u32, u32>, one: Option<fn(u32, u32, u32) -> u32>) -> K3 {
        K3::NNNN(Lane { rows, one })
    }
    fn k3_bfe(rows: F3<u32, u32, u32, u32>, one: Option<fn(u32, u32, u32) -> u32>) -> K3 {
        K3::NNNN(Lane { rows, one })
    }
    fn k4_bfi(f: F4<u32, u32, u32, u32, u32>) -> K4 {
        K4::NNNNN(f)
    }
}
impl St for u64 {
    fn k1<R: St>(f: F1<u64, R>, _: Option<fn(u64) -> R>) -> K1 {
        R::k1_from_w(f)
    }
    fn k1_from_n(f: F1<u32, u64>, _: Option<fn(u32) -> u64>) -> K1 {
        K1::W(W1::NW(f))
    }
    fn k1_from_w(f: F1<u64, u64>) -> K1 {
        K1::W(W1::WW(f))
    }
    fn k2_same(f: F2<u64, u64, u64>, _: Option<fn(u64, u64) -> u64>) -> K2 {
        K2::W(W2::WWW(f))
    }
    fn k2_cmp(f: F2<u64, u64, u32>, _: Option<fn(u64, u64) -> u32>) -> K2 {
        K2::W(W2::WWN(f))
    }
    fn k2_int(f: F2<u64, u32, u64>, _: Option<fn(u64, u32) -> u64>) -> K2 {
        K2::W(W2::WNW(f))
    }
    fn k3_same(f: F3<u64, u64, u64, u64>, _: Option<fn(u64, u64, u64) -> u64>) -> K3 {
        K3::W(W3::WWWW(f))
    }
    fn k3_sel(f: F3<u32, u64, u64, u64>, _: Option<fn(u32, u64, u64) -> u64>) -> K3 {
        K3::W(W3::NWWW(f))
    }
    fn k3_bfe(f: F3<u64, u32, u32, u64>, _: Option<fn(u64, u32, u32) -> u64>) -> K3 {
        K3::W(W3::WNNW(f))
    }
    fn k4_bfi(f: F4<u64, u64, u32, u32, u64>) -> K4 {
        K4::WWNNW(f)
    }
}

/// A lane kernel from one per-lane rule written once: `$build` (an [`St`] constructor) gets
/// the rule's row loop ([`l1`], [`m2`] or [`m3`] by arity) and the rule itself as the
/// kernel's form on one value per operand.
macro_rules! lane {
    ($build:expr, |$x:pat_param| $e:expr) => {
        $build(|a, o, mk| l1(a, o, mk, |$x| $e), Some(|$x| $e))
    };
    ($build:expr, |$x:pat_param, $y:pat_param| $e:expr) => {
        $build(
            |a, b, o, mk| m2(a, b, o, mk, |$x, $y| $e),
            Some(|$x, $y| $e),
        )
    };
    ($build:expr, |$x:pat_param, $y:pat_param, $z:pat_param| $e:expr) => {
        $build(
            |a, b, c, o, mk| m3(a, b, c, o, mk, |$x, $y, $z| $e),
            Some(|$x, $y, $z| $e),
        )
    };
}

/// An operand of a lane loop writing `R` words: a row (one value per lane), one value for
/// every lane ([`Splat`]: a uniform register kept as a scalar, so the loop reads no row for
/// it) or the destination row itself ([`Own`]: each lane's word read before it is written).
trait Src<R>: Copy {
    type T: Copy;
    /// The operand over the first `len` lanes (a row re-sliced, so indexing below `len` has
    /// no bounds checks left).
    fn cut(self, len: usize) -> Self;
    /// Lane `i`'s value, where `old` is the destination's word in that lane.
    fn at(self, i: usize, old: R) -> Self::T;
}
impl<T: Copy, R> Src<R> for &[T] {
    type T = T;
    #[inline(always)]
    fn cut(self, len: usize) -> Self {
        &self[..len]
    }
    #[inline(always)]
    fn at(self, i: usize, _: R) -> T {
        self[i]
    }
}
/// One value for every lane.
#[derive(Clone, Copy)]
struct Splat<T>(T);
impl<T: Copy, R> Src<R> for Splat<T> {
    type T = T;
    #[inline(always)]
    fn cut(self, _: usize) -> Self {
        self
    }
    #[inline(always)]
    fn at(self, _: usize, _: R) -> T {
        self.0
    }
}
/// The destination row read as an operand of type `T` (the executor passes it only where
/// the operand's register is the destination, so `T` is `R`; [`Word::cast`] is then the
/// identity).
struct Own<T>(std::marker::PhantomData<T>);
impl<T> Clone for Own<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Own<T> {}
const fn own<T>() -> Own<T> {
    Own(std::marker::PhantomData)
}
impl<T: Word, R: Word> Src<R> for Own<T> {
    type T = T;
    #[inline(always)]
    fn cut(self, _: usize) -> Self {
        self
    }
    #[inline(always)]
    fn at(self, _: usize, old: R) -> T {
        old.cast()
    }
}

/// The lane loops: `o[i] = f(a[i], ...)`, or under a mask `o[i] = (f(..) & m[i]) | (o[i] &
/// !m[i])` (computed for every lane and blended as bits, so a masked lane keeps its old word
/// exactly and the loop is branch-free `and`/`andn`/`or` vectors). An operand is a row or a
/// [`Splat`]; [`m2`] and [`m3`] pick the form from the operand slices.
///
/// Each kernel is compiled twice ([`two_forms!`]), plain (SSE2) and inside a
/// `#[target_feature(enable = "avx2")]` function (eight-lane vectors, VEX three-operand
/// forms). The kernel's closure is inlined into either; both do the same IEEE operations
/// (FMA is never enabled, so nothing is contracted) and give the same bits, but for which
/// payload an operation on two NaNs returns (the compiler may commute operands differently in
/// the two forms: `FMix` does; the same holds between a row and a splat form).
macro_rules! lane_loop {
    ($body:ident, $($a:ident: $A:ident),*) => {
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        fn $body<$($A: Src<R>,)* R: Word>(
            $($a: $A,)*
            o: &mut [R],
            mk: Option<&[u32]>,
            f: impl Fn($($A::T),*) -> R,
        ) {
            // Re-slice every operand to the output length so the indexing below has no bounds
            // checks left and the loops vectorise (all rows have the batch length).
            // (Index loops over slices of one length: with `iter_mut().enumerate()` LLVM kept
            // a scalar epilogue of a whole vector's lanes, half of a 64-lane row.)
            let len = o.len();
            let o = &mut o[..len];
            $(let $a = $a.cut(len);)*
            // (`old` is read only by an `Own` operand or the blend)
            match mk {
                None => {
                    for i in 0..len {
                        let old = o[i];
                        o[i] = f($($a.at(i, old)),*);
                    }
                }
                Some(m) => {
                    let m = &m[..len];
                    for i in 0..len {
                        let old = o[i];
                        o[i] = f($($a.at(i, old)),*).select(old, R::widen(m[i]));
                    }
                }
            }
        }
    };
}

/// Kernel `$name` (generic parameters `$g`, operands `$a: $A`, rule `f: $F`, result row `o`
/// of `R` words) as its body `$body` compiled twice, each out of line: `$plain`, and `$avx`,
/// a `#[target_feature(enable = "avx2")]` function, which [`crate::cpu::avx2`] chooses per
/// call (a one-lane call, the scalar form of a uniform register, always runs the plain one).
/// A body that picks among lane loops by its operands ([`m2`], [`m3`]) does so inside
/// either function, and `$name` inlined into a kernel's function pointer is only the choice
/// and a jump: it asks [`avx2_seen`] (a load), and leaves every other case, the first
/// decision included, to `$plain`, so that no call returns into it (a call there, or a form
/// inline, would make the pointer save and restore registers on every call).
macro_rules! two_forms {
    (
        $name:ident, $avx:ident, $plain:ident, $body:ident, [$($g:tt)*], $F:ty,
        $($a:ident: $A:ty),*
    ) => {
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        fn $name<$($g)*>($($a: $A,)* o: &mut [R], mk: Option<&[u32]>, f: $F) {
            #[cfg(target_arch = "x86_64")]
            if o.len() > 1 && avx2_seen() {
                // SAFETY: the CPU has AVX2 (`avx2_seen()` is true only then)
                return unsafe { $avx($($a,)* o, mk, f) };
            }
            $plain($($a,)* o, mk, f)
        }

        #[inline(never)]
        #[allow(clippy::too_many_arguments)]
        fn $plain<$($g)*>($($a: $A,)* o: &mut [R], mk: Option<&[u32]>, f: $F) {
            #[cfg(target_arch = "x86_64")]
            if o.len() > 1 && avx2_loops() {
                // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
                return unsafe { $avx($($a,)* o, mk, f) };
            }
            $body($($a,)* o, mk, f)
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        #[allow(clippy::too_many_arguments)]
        fn $avx<$($g)*>($($a: $A,)* o: &mut [R], mk: Option<&[u32]>, f: $F) {
            $body($($a,)* o, mk, f)
        }
    };
}
/// Whether the lane loops take their AVX2 form ([`crate::cpu::avx2`]; tests can ask for the
/// plain form on this thread, to hold the two forms to each other). A yes is also noted for
/// [`avx2_seen`].
#[inline(always)]
fn avx2_loops() -> bool {
    #[cfg(test)]
    if tests::PLAIN.with(|p| p.get()) {
        return false;
    }
    let yes = crate::cpu::avx2();
    if yes {
        AVX2_SEEN.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    yes
}

/// Set once [`avx2_loops`] has said yes.
static AVX2_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// [`avx2_loops`] where it has already said yes: one load, and no call (`cpu::avx2` calls
/// its first decision), for the kernels' hot choice of form; false means "ask
/// [`avx2_loops`]", not "plain". True only when the CPU has AVX2.
#[inline(always)]
fn avx2_seen() -> bool {
    #[cfg(test)]
    if tests::PLAIN.with(|p| p.get()) {
        return false;
    }
    AVX2_SEEN.load(std::sync::atomic::Ordering::Relaxed)
}

lane_loop!(l1_body, a: A);
lane_loop!(l2_body, a: A, b: B);
lane_loop!(l3_body, a: A, b: B, c: C);
lane_loop!(l4_body, a: A, b: B, c: C, d: D);
two_forms!(l1, l1_avx2, l1_plain, l1_body, [A: Src<R>, R: Word], impl Fn(A::T) -> R, a: A);
two_forms!(
    l4,
    l4_avx2,
    l4_plain,
    l4_body,
    [A: Src<R>, B: Src<R>, C: Src<R>, D: Src<R>, R: Word],
    impl Fn(A::T, B::T, C::T, D::T) -> R,
    a: A,
    b: B,
    c: C,
    d: D
);
two_forms!(
    m2,
    m2_avx2,
    m2_plain,
    m2_body,
    [A: Word, B: Word, R: Word],
    impl Fn(A, B) -> R,
    a: &[A],
    b: &[B]
);
two_forms!(
    m3,
    m3_avx2,
    m3_plain,
    m3_body,
    [A: Word, B: Word, C: Word, R: Word],
    impl Fn(A, B, C) -> R,
    a: &[A],
    b: &[B],
    c: &[C]
);

/// `$body` with operand slice `$x` (not empty) rebound as a lane-loop operand: the slice
/// itself when it is a row (`$len` long), else a [`Splat`] of its one value.
macro_rules! row_or_splat {
    ($x:ident, $len:ident, $body:expr) => {
        if $x.len() >= $len {
            $body
        } else {
            let $x = Splat($x[0]);
            $body
        }
    };
}

/// Whether a kernel of operand words `A`, `B`, `C` and result `R` takes an empty operand
/// slice as the destination row: the all-32-bit ones, the only ones the executor runs so
/// (other kernels compile without those forms).
#[inline(always)]
const fn own_forms<A: Word, B: Word, C: Word, R: Word>() -> bool {
    A::N && B::N && C::N && R::N
}

/// `o[i] = f(a[i], b[i])`, where an operand slice shorter than `o` is one value for every
/// lane (the executor passes a uniform register so, [`super::run`]) and, for an all-32-bit
/// kernel, an empty one is the destination row (an operand whose register is the
/// destination; at most one of them): each mix is its own loop. All-splat operands give one
/// value, written to every lane. All rows, the commonest mix, is tested first.
#[inline(always)]
fn m2_body<A: Word, B: Word, R: Word>(
    a: &[A],
    b: &[B],
    o: &mut [R],
    mk: Option<&[u32]>,
    f: impl Fn(A, B) -> R,
) {
    let len = o.len();
    let (ra, rb) = (a.len() >= len, b.len() >= len);
    if ra && rb {
        return l2_body(a, b, o, mk, f);
    }
    if own_forms::<A, B, B, R>() && (a.is_empty() || b.is_empty()) {
        return if a.is_empty() {
            row_or_splat!(b, len, l2_body(own(), b, o, mk, f))
        } else {
            row_or_splat!(a, len, l2_body(a, own(), o, mk, f))
        };
    }
    match (ra, rb) {
        (true, _) => l2_body(a, Splat(b[0]), o, mk, f),
        (_, true) => l2_body(Splat(a[0]), b, o, mk, f),
        _ => l1_body(Splat(f(a[0], b[0])), o, mk, std::convert::identity),
    }
}

/// [`m2`]'s body for three operands.
#[inline(always)]
fn m3_body<A: Word, B: Word, C: Word, R: Word>(
    a: &[A],
    b: &[B],
    c: &[C],
    o: &mut [R],
    mk: Option<&[u32]>,
    f: impl Fn(A, B, C) -> R,
) {
    let len = o.len();
    let (ra, rb, rc) = (a.len() >= len, b.len() >= len, c.len() >= len);
    if ra && rb && rc {
        return l3_body(a, b, c, o, mk, f);
    }
    if own_forms::<A, B, C, R>() && (a.is_empty() || b.is_empty() || c.is_empty()) {
        return if a.is_empty() {
            row_or_splat!(
                b,
                len,
                row_or_splat!(c, len, l3_body(own(), b, c, o, mk, f))
            )
        } else if b.is_empty() {
            row_or_splat!(
                a,
                len,
                row_or_splat!(c, len, l3_body(a, own(), c, o, mk, f))
            )
        } else {
            row_or_splat!(
                a,
                len,
                row_or_splat!(b, len, l3_body(a, b, own(), o, mk, f))
            )
        };
    }
    match (ra, rb, rc) {
        (true, true, _) => l3_body(a, b, Splat(c[0]), o, mk, f),
        (true, false, true) => l3_body(a, Splat(b[0]), c, o, mk, f),
        (true, false, false) => l3_body(a, Splat(b[0]), Splat(c[0]), o, mk, f),
        (false, true, true) => l3_body(Splat(a[0]), b, c, o, mk, f),
        (false, true, false) => l3_body(Splat(a[0]), b, Splat(c[0]), o, mk, f),
        (false, false, true) => l3_body(Splat(a[0]), Splat(b[0]), c, o, mk, f),
        (false, false, false) => l1_body(Splat(f(a[0], b[0], c[0])), o, mk, std::convert::identity),
    }
}

/// A row kernel of two operands run where an operand slice is shorter than `o` (one value
/// for every lane, or the destination row when empty, as [`m2`] takes them): 64 lanes at a
/// time, the value or the destination's lanes copied into a stack row. For the kernels whose
/// loops take rows only ([`vec2`]).
fn splat_rows2<A: Word + Default, B: Word + Default, R: Word>(
    a: &[A],
    b: &[B],
    o: &mut [R],
    mk: Option<&[u32]>,
    f: impl Fn(&[A], &[B], &mut [R], Option<&[u32]>),
) {
    const STEP: usize = 64;
    let len = o.len();
    let mut sa = [a.first().copied().unwrap_or_default(); STEP];
    let mut sb = [b.first().copied().unwrap_or_default(); STEP];
    // operand `x` over lanes `r` of chunk `o`: its row, its one value (`s` holds it) or,
    // empty, the destination's lanes copied into `s`
    fn chunk<'a, T: Word, R: Word>(
        x: &'a [T],
        s: &'a mut [T],
        o: &[R],
        r: std::ops::Range<usize>,
        len: usize,
    ) -> &'a [T] {
        if x.len() >= len {
            &x[r]
        } else {
            if x.is_empty() {
                for (s, &d) in s.iter_mut().zip(o) {
                    *s = d.cast();
                }
            }
            &s[..o.len()]
        }
    }
    for (k, o) in o.chunks_mut(STEP).enumerate() {
        let r = k * STEP..k * STEP + o.len();
        let a = chunk(a, &mut sa, o, r.clone(), len);
        let b = chunk(b, &mut sb, o, r.clone(), len);
        f(a, b, o, mk.map(|m| &m[r]))
    }
}

/// A scalar type as raw register storage (see the register encoding in `ir`).
pub(crate) trait Ty: 'static {
    type S: St;
    const W: u32;
    /// Raw bits, zero-extended (and masked to the width).
    fn u(s: Self::S) -> u64;
    /// Raw bits, sign-extended from the width.
    fn i(s: Self::S) -> i64;
    /// Truncate raw bits to the width.
    fn put(v: u64) -> Self::S;
    /// Numeric value as f64 (floats exactly, ints as signed).
    fn f(s: Self::S) -> f64;
    fn from_f64(v: f64) -> Self::S;
    fn from_i64(v: i64) -> Self::S;
    fn from_u64(v: u64) -> Self::S;
    const FLOAT: bool;
}

macro_rules! int_ty {
    ($name:ident, $s:ty, $w:expr, $ut:ty, $it:ty) => {
        pub(crate) struct $name;
        impl Ty for $name {
            type S = $s;
            const W: u32 = $w;
            const FLOAT: bool = false;
            #[inline(always)]
            fn u(s: $s) -> u64 {
                s as $ut as u64
            }
            #[inline(always)]
            fn i(s: $s) -> i64 {
                s as $ut as $it as i64
            }
            #[inline(always)]
            fn put(v: u64) -> $s {
                v as $ut as $s
            }
            #[inline(always)]
            fn f(s: $s) -> f64 {
                Self::i(s) as f64
            }
            #[inline(always)]
            fn from_f64(v: f64) -> $s {
                Self::put(v as i64 as u64)
            }
            #[inline(always)]
            fn from_i64(v: i64) -> $s {
                Self::put(v as u64)
            }
            #[inline(always)]
            fn from_u64(v: u64) -> $s {
                Self::put(v)
            }
        }
    };
}
int_ty!(I8, u32, 8, u8, i8);
int_ty!(I16, u32, 16, u16, i16);
int_ty!(I32, u32, 32, u32, i32);
int_ty!(I64, u64, 64, u64, i64);

/// The float operations the kernels need, for the two compute types f32 and f64, and the
/// lane types (`crate::math`) their vector loops run on.
pub(crate) trait Fl:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Rem<Output = Self>
    + std::ops::Neg<Output = Self>
    + Scalar
{
    /// The plain form's lanes (SSE2) and the AVX2 form's.
    type X4: Float<S = Self>;
    type X8: Float<S = Self>;
    fn c(v: f64) -> Self;
    fn to64(self) -> f64;
    fn abs(self) -> Self;
    fn is_nan(self) -> bool;
    fn is_inf(self) -> bool;
    fn min_num(self, o: Self) -> Self;
    fn max_num(self, o: Self) -> Self;
    fn fma(self, b: Self, c: Self) -> Self;
    fn ldexp(self, e: i32) -> Self;
    /// (significand in [0.5, 1), exponent); 0/Inf/NaN give (x, 0).
    fn frexp(self) -> (Self, i32);
    /// The kernel of `exp` … `atanh` (the unary transcendentals) on register type `T`.
    fn transcendental<T: FTy<F = Self>>(op: UnaryOp) -> Option<K1>;
    /// The kernel of `pow` or `atan2` on register type `T`.
    fn transcendental2<T: FTy<F = Self>>(op: BinaryOp) -> Option<K2>;
}
macro_rules! fl_impl {
    ($t:ty, $bits:ty, $mbits:expr, $ebias:expr, $fma:expr) => {
        #[inline(always)]
        fn c(v: f64) -> Self {
            v as $t
        }
        #[inline(always)]
        fn to64(self) -> f64 {
            self as f64
        }
        #[inline(always)]
        fn abs(self) -> Self {
            <$t>::abs(self)
        }
        #[inline(always)]
        fn is_nan(self) -> bool {
            <$t>::is_nan(self)
        }
        #[inline(always)]
        fn is_inf(self) -> bool {
            <$t>::is_infinite(self)
        }
        #[inline(always)]
        fn min_num(self, o: Self) -> Self {
            <$t>::min(self, o)
        }
        #[inline(always)]
        fn max_num(self, o: Self) -> Self {
            <$t>::max(self, o)
        }
        #[inline(always)]
        fn fma(self, b: Self, c: Self) -> Self {
            ($fma)(self, b, c)
        }
        fn ldexp(self, e: i32) -> Self {
            // Scale in steps of at most 2^±60 so every factor is an exact normal number;
            // the final step does the (single) rounding in all non-degenerate cases.
            let mut x = self;
            let mut e = e.clamp(-2300, 2300);
            while e > 0 {
                let s = e.min(60);
                x *= 2.0f64.powi(s) as $t;
                e -= s;
            }
            while e < 0 {
                let s = (-e).min(60);
                x *= 2.0f64.powi(-s) as $t;
                e += s;
            }
            x
        }
        fn frexp(self) -> (Self, i32) {
            if self == 0.0 || self.is_nan() || self.is_infinite() {
                return (self, 0);
            }
            let bits = self.to_bits();
            let e = ((bits >> $mbits) & ((1 << (<$bits>::BITS - 1 - $mbits)) - 1)) as i32;
            if e == 0 {
                // Subnormal: normalise first.
                let (m, e2) = (self * (2.0 as $t).powi(64)).frexp();
                return (m, e2 - 64);
            }
            let mbits = (bits & !(((1 << (<$bits>::BITS - 1 - $mbits)) - 1) << $mbits))
                | (($ebias - 1) << $mbits);
            (<$t>::from_bits(mbits), e - $ebias + 1)
        }
    };
}
impl Fl for f32 {
    #[cfg(target_arch = "x86_64")]
    type X4 = x86::F4;
    #[cfg(target_arch = "x86_64")]
    type X8 = x86::F8;
    #[cfg(not(target_arch = "x86_64"))]
    type X4 = f32;
    #[cfg(not(target_arch = "x86_64"))]
    type X8 = f32;
    // f32 fma: the product is exact in f64 and the sum is rounded once to f64, then to f32.
    // This equals the fused result except in rare double-rounding ties, is vectorisable, and
    // is more precise than Vulkan requires (an OpFMul followed by an OpFAdd).
    fl_impl!(
        f32,
        u32,
        23,
        127,
        |a: f32, b: f32, c: f32| (a as f64 * b as f64 + c as f64) as f32
    );
    /// `crate::math`'s functions, four or eight lanes at a time.
    fn transcendental<T: FTy<F = f32>>(op: UnaryOp) -> Option<K1> {
        use crate::math::ops;
        use UnaryOp::*;
        Some(match op {
            Exp => vec1::<T, ops::Exp>(),
            Exp2 => vec1::<T, ops::Exp2>(),
            Log => vec1::<T, ops::Log>(),
            Log2 => vec1::<T, ops::Log2>(),
            Sin => vec1::<T, ops::Sin>(),
            Cos => vec1::<T, ops::Cos>(),
            Tan => vec1::<T, ops::Tan>(),
            Asin => vec1::<T, ops::Asin>(),
            Acos => vec1::<T, ops::Acos>(),
            Atan => vec1::<T, ops::Atan>(),
            Sinh => vec1::<T, ops::Sinh>(),
            Cosh => vec1::<T, ops::Cosh>(),
            Tanh => vec1::<T, ops::Tanh>(),
            Asinh => vec1::<T, ops::Asinh>(),
            Acosh => vec1::<T, ops::Acosh>(),
            Atanh => vec1::<T, ops::Atanh>(),
            _ => return None,
        })
    }
    fn transcendental2<T: FTy<F = f32>>(op: BinaryOp) -> Option<K2> {
        use crate::math::ops;
        Some(match op {
            BinaryOp::Pow => vec2::<T, ops::Pow>(),
            BinaryOp::Atan2 => vec2::<T, ops::Atan2>(),
            _ => return None,
        })
    }
}
impl Fl for f64 {
    #[cfg(target_arch = "x86_64")]
    type X4 = x86::D2;
    #[cfg(target_arch = "x86_64")]
    type X8 = x86::D4;
    #[cfg(not(target_arch = "x86_64"))]
    type X4 = f64;
    #[cfg(not(target_arch = "x86_64"))]
    type X8 = f64;
    fl_impl!(f64, u64, 52, 1023, f64::mul_add);
    /// GLSL.std.450 has these for 16- and 32-bit floats only; an f64 one that reaches the
    /// interpreter anyway goes through the `libm` crate (musl's functions: < 1 ULP, plain Rust
    /// without FMA, so the same bits on every machine), lane by lane.
    fn transcendental<T: FTy<F = f64>>(op: UnaryOp) -> Option<K1> {
        use UnaryOp::*;
        macro_rules! per_lane {
            ($f:path) => {
                lane!(T::S::k1::<T::S>, |s| T::set($f(T::get(s))))
            };
        }
        Some(match op {
            Exp => per_lane!(libm::exp),
            Exp2 => per_lane!(libm::exp2),
            Log => per_lane!(libm::log),
            Log2 => per_lane!(libm::log2),
            Sin => per_lane!(libm::sin),
            Cos => per_lane!(libm::cos),
            Tan => per_lane!(libm::tan),
            Asin => per_lane!(libm::asin),
            Acos => per_lane!(libm::acos),
            Atan => per_lane!(libm::atan),
            Sinh => per_lane!(libm::sinh),
            Cosh => per_lane!(libm::cosh),
            Tanh => per_lane!(libm::tanh),
            Asinh => per_lane!(libm::asinh),
            Acosh => per_lane!(libm::acosh),
            Atanh => per_lane!(libm::atanh),
            _ => return None,
        })
    }
    fn transcendental2<T: FTy<F = f64>>(op: BinaryOp) -> Option<K2> {
        macro_rules! per_lane {
            ($f:path) => {
                lane!(T::S::k2_same, |p, q| T::set($f(T::get(p), T::get(q))))
            };
        }
        Some(match op {
            BinaryOp::Pow => per_lane!(libm::pow),
            BinaryOp::Atan2 => per_lane!(libm::atan2),
            _ => return None,
        })
    }
}

/// The lane types of register type `T`'s vector loops: plain (SSE2) and AVX2.
type X4<T> = <<T as FTy>::F as Fl>::X4;
type X8<T> = <<T as FTy>::F as Fl>::X8;

/// The vector lane loops: `o[i] = M(a[i], ...)` for a `crate::math` function `M`, `L::N` lanes
/// at a time (the last group padded with stale lanes, whose results are dropped), under the
/// mask as [`lane_loop!`]'s loops. The plain form runs `X4` (four SSE2 lanes), the AVX2 form
/// `X8` (eight), chosen as the closure loops' forms are; `math` makes them give the same bits.
/// Values cross as their encodings, so f32 and f64 rows are loaded in place and f16 rows are
/// widened to f32 lane by lane.
macro_rules! vec_loop {
    (
        $name:ident, $avx:ident, $plain:ident, $body:ident, $group:ident, $op:ident,
        $($a:ident),*
    ) => {
        /// The AVX2 form or the plain one, each out of line, chosen as [`two_forms!`] does.
        #[inline(always)]
        fn $name<T: FTy, M: math::ops::$op<X4<T>> + math::ops::$op<X8<T>>>(
            $($a: &[T::S],)*
            o: &mut [T::S],
            mk: Option<&[u32]>,
        ) {
            #[cfg(target_arch = "x86_64")]
            if avx2_seen() {
                // SAFETY: the CPU has AVX2 (`avx2_seen()` is true only then)
                return unsafe { $avx::<T, M>($($a,)* o, mk) };
            }
            $plain::<T, M>($($a,)* o, mk)
        }

        #[inline(never)]
        fn $plain<T: FTy, M: math::ops::$op<X4<T>> + math::ops::$op<X8<T>>>(
            $($a: &[T::S],)*
            o: &mut [T::S],
            mk: Option<&[u32]>,
        ) {
            #[cfg(target_arch = "x86_64")]
            if avx2_loops() {
                // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
                return unsafe { $avx::<T, M>($($a,)* o, mk) };
            }
            // SAFETY: `X4` is SSE2 lanes, which every x86-64 CPU has (or scalars elsewhere)
            unsafe { $body::<T, X4<T>, M>($($a,)* o, mk) }
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $avx<T: FTy, M: math::ops::$op<X8<T>>>(
            $($a: &[T::S],)*
            o: &mut [T::S],
            mk: Option<&[u32]>,
        ) {
            // SAFETY: the caller checked AVX2
            unsafe { $body::<T, X8<T>, M>($($a,)* o, mk) }
        }

        /// Whole groups of `L::N` lanes, then the rest. (No closures here or in `$group`:
        /// a closure is compiled without the AVX2 form's target features, so the vector
        /// instructions inside it would become calls.)
        ///
        /// # Safety
        /// The CPU runs `L`'s instructions (`Float::load`).
        #[inline(always)]
        unsafe fn $body<T: FTy, L: Float<S = T::F>, M: math::ops::$op<L>>(
            $($a: &[T::S],)*
            o: &mut [T::S],
            mk: Option<&[u32]>,
        ) {
            let len = o.len();
            $(let $a = &$a[..len];)*
            let mk = match mk {
                Some(m) => Some(&m[..len]),
                None => None,
            };
            let mut i = 0;
            while i + L::N <= len {
                let j = i + L::N;
                let m = match mk {
                    Some(m) => Some(&m[i..j]),
                    None => None,
                };
                // SAFETY: the caller's promise
                unsafe { $group::<T, L, M>($(&$a[i..j],)* &mut o[i..j], m) };
                i = j;
            }
            if i < len {
                let m = match mk {
                    Some(m) => Some(&m[i..]),
                    None => None,
                };
                // SAFETY: the caller's promise
                unsafe { $group::<T, L, M>($(&$a[i..],)* &mut o[i..], m) };
            }
        }

        /// `M` on one group of up to `L::N` lanes (`o.len()`): the encodings in, the results
        /// out under the mask; a partial group's missing lanes are zeros, their results
        /// dropped.
        ///
        /// # Safety
        /// As `$body`.
        #[inline(always)]
        unsafe fn $group<T: FTy, L: Float<S = T::F>, M: math::ops::$op<L>>(
            $($a: &[T::S],)*
            o: &mut [T::S],
            mk: Option<&[u32]>,
        ) {
            let n = o.len();
            let zero = <T::F as Scalar>::Bits::default();
            $(
                let $a = {
                    let mut v = [zero; 8];
                    for k in 0..n {
                        v[k] = T::get($a[k]).to_bits();
                    }
                    // SAFETY: the caller's promise
                    unsafe { L::load_bits(&v) }
                };
            )*
            let mut r = [zero; 8];
            M::apply($($a),*).store_bits(&mut r);
            match mk {
                None => {
                    for k in 0..n {
                        o[k] = T::set(Scalar::from_bits(r[k]));
                    }
                }
                Some(m) => {
                    for k in 0..n {
                        o[k] = T::set(Scalar::from_bits(r[k])).select(o[k], T::S::widen(m[k]));
                    }
                }
            }
        }
    };
}
vec_loop!(v1, v1_avx2, v1_plain, v1_body, v1_group, Unary, a);
vec_loop!(v2, v2_avx2, v2_plain, v2_body, v2_group, Binary, a, b);

/// The kernel of unary `crate::math` function `M` on register type `T`; its form on one
/// value is the vector loop on one lane.
fn vec1<T: FTy, M: math::ops::Unary<X4<T>> + math::ops::Unary<X8<T>>>() -> K1 {
    fn one<T: FTy, M: math::ops::Unary<X4<T>> + math::ops::Unary<X8<T>>>(x: T::S) -> T::S {
        let mut o = [x];
        v1::<T, M>(&[x], &mut o, None);
        o[0]
    }
    T::S::k1::<T::S>(|a, o, mk| v1::<T, M>(a, o, mk), Some(one::<T, M>))
}

/// The kernel of binary `crate::math` function `M` on register type `T`, as [`vec1`].
fn vec2<T: FTy, M: math::ops::Binary<X4<T>> + math::ops::Binary<X8<T>>>() -> K2 {
    fn one<T: FTy, M: math::ops::Binary<X4<T>> + math::ops::Binary<X8<T>>>(
        x: T::S,
        y: T::S,
    ) -> T::S {
        let mut o = [x];
        v2::<T, M>(&[x], &[y], &mut o, None);
        o[0]
    }
    T::S::k2_same(
        |a, b, o, mk| {
            if a.len() < o.len() || b.len() < o.len() {
                splat_rows2(a, b, o, mk, v2::<T, M>)
            } else {
                v2::<T, M>(a, b, o, mk)
            }
        },
        Some(one::<T, M>),
    )
}

/// A float register type: storage and compute type. F16 computes in f32 and rounds the result
/// of every operation back to f16 (exact for + - * / sqrt: f32 has more than 2·11+2 bits).
pub(crate) trait FTy: Ty {
    type F: Fl;
    fn get(s: Self::S) -> Self::F;
    fn set(f: Self::F) -> Self::S;
}
pub(crate) struct H;
pub(crate) struct Fs;
pub(crate) struct Fd;
macro_rules! fty_common {
    () => {
        const FLOAT: bool = true;
        #[inline(always)]
        fn i(s: Self::S) -> i64 {
            Self::u(s) as i64
        }
        #[inline(always)]
        fn f(s: Self::S) -> f64 {
            Self::get(s).to64()
        }
        #[inline(always)]
        fn from_f64(v: f64) -> Self::S {
            Self::set(<Self as FTy>::F::c(v))
        }
    };
}
impl Ty for H {
    type S = u32;
    const W: u32 = 16;
    fty_common!();
    #[inline(always)]
    fn u(s: u32) -> u64 {
        (s & 0xffff) as u64
    }
    #[inline(always)]
    fn put(v: u64) -> u32 {
        (v & 0xffff) as u32
    }
    fn from_i64(v: i64) -> u32 {
        f16::from_f64(v as f64).to_bits() as u32
    }
    fn from_u64(v: u64) -> u32 {
        f16::from_f64(v as f64).to_bits() as u32
    }
}
impl FTy for H {
    type F = f32;
    #[inline(always)]
    fn get(s: u32) -> f32 {
        f16::from_bits(s as u16).to_f32()
    }
    #[inline(always)]
    fn set(f: f32) -> u32 {
        f16::from_f32(f).to_bits() as u32
    }
}
impl Ty for Fs {
    type S = u32;
    const W: u32 = 32;
    fty_common!();
    #[inline(always)]
    fn u(s: u32) -> u64 {
        s as u64
    }
    #[inline(always)]
    fn put(v: u64) -> u32 {
        v as u32
    }
    fn from_i64(v: i64) -> u32 {
        (v as f32).to_bits()
    }
    fn from_u64(v: u64) -> u32 {
        (v as f32).to_bits()
    }
}
impl FTy for Fs {
    type F = f32;
    #[inline(always)]
    fn get(s: u32) -> f32 {
        f32::from_bits(s)
    }
    #[inline(always)]
    fn set(f: f32) -> u32 {
        f.to_bits()
    }
}
impl Ty for Fd {
    type S = u64;
    const W: u32 = 64;
    fty_common!();
    #[inline(always)]
    fn u(s: u64) -> u64 {
        s
    }
    #[inline(always)]
    fn put(v: u64) -> u64 {
        v
    }
    fn from_i64(v: i64) -> u64 {
        (v as f64).to_bits()
    }
    fn from_u64(v: u64) -> u64 {
        (v as f64).to_bits()
    }
}
impl FTy for Fd {
    type F = f64;
    #[inline(always)]
    fn get(s: u64) -> f64 {
        f64::from_bits(s)
    }
    #[inline(always)]
    fn set(f: f64) -> u64 {
        f.to_bits()
    }
}
impl H {
    /// f16 from f64 with a single rounding (FConvert from f64).
    fn from_f64_exact(v: f64) -> u32 {
        f16::from_f64(v).to_bits() as u32
    }
}

/// Dispatch a ScalarTy to an integer marker type.
macro_rules! with_int {
    ($ty:expr, $T:ident => $body:expr) => {
        match $ty {
            ScalarTy::I8 => {
                type $T = I8;
                $body
            }
            ScalarTy::I16 => {
                type $T = I16;
                $body
            }
            ScalarTy::I32 => {
                type $T = I32;
                $body
            }
            ScalarTy::I64 => {
                type $T = I64;
                $body
            }
            _ => None,
        }
    };
}
macro_rules! with_float {
    ($ty:expr, $T:ident => $body:expr) => {
        match $ty {
            ScalarTy::F16 => {
                type $T = H;
                $body
            }
            ScalarTy::F32 => {
                type $T = Fs;
                $body
            }
            ScalarTy::F64 => {
                type $T = Fd;
                $body
            }
            _ => None,
        }
    };
}
macro_rules! with_num {
    ($ty:expr, $T:ident => $body:expr) => {
        match $ty {
            ScalarTy::I8 | ScalarTy::I16 | ScalarTy::I32 | ScalarTy::I64 => {
                with_int!($ty, $T => $body)
            }
            ScalarTy::F16 | ScalarTy::F32 | ScalarTy::F64 => with_float!($ty, $T => $body),
            ScalarTy::Bool => None,
        }
    };
}

#[inline(always)]
fn bit(v: bool) -> u32 {
    v as u32
}
#[inline(always)]
fn low_mask(cnt: u32) -> u64 {
    if cnt >= 64 {
        u64::MAX
    } else {
        (1u64 << cnt) - 1
    }
}
/// (offset, count) of a bitfield op clamped into the width (out-of-range is undefined in
/// SPIR-V; we clamp so the result is always defined).
#[inline(always)]
fn bf_clamp(w: u32, off: u32, cnt: u32) -> (u32, u32) {
    let off = off.min(w);
    (off, cnt.min(w - off))
}

/// Unary kernel for `op` on operand type `ty`.
pub(crate) fn unary(op: UnaryOp, ty: ScalarTy) -> Option<K1> {
    use UnaryOp::*;
    match op {
        Mov => {
            return Some(if ty.is_wide() {
                lane!(u64::k1::<u64>, |x| x)
            } else {
                lane!(u32::k1::<u32>, |x| x)
            })
        }
        UnpackHalf2x16(c) | UnpackUnorm2x16(c) | UnpackSnorm2x16(c) if c < 2 => {
            return Some(unpack(op))
        }
        UnpackUnorm4x8(c) | UnpackSnorm4x8(c) if c < 4 => return Some(unpack(op)),
        _ => {}
    }
    match ty {
        ScalarTy::Bool => match op {
            LogicalNot => Some(lane!(u32::k1::<u32>, |x| bit(x == 0))),
            _ => None,
        },
        ScalarTy::F16 | ScalarTy::F32 | ScalarTy::F64 => with_float!(ty, T => float_unary::<T>(op)),
        _ => with_int!(ty, T => int_unary::<T>(op)),
    }
}

fn unpack(op: UnaryOp) -> K1 {
    use UnaryOp::*;
    macro_rules! k {
        ($c:expr, |$x:ident| $e:expr) => {
            match $c {
                0 => lane!(u32::k1::<u32>, |$x| {
                    let $x = $x;
                    $e
                }
                .to_bits()),
                1 => lane!(u32::k1::<u32>, |$x| {
                    let $x = $x >> 8;
                    $e
                }
                .to_bits()),
                2 => lane!(u32::k1::<u32>, |$x| {
                    let $x = $x >> 16;
                    $e
                }
                .to_bits()),
                _ => lane!(u32::k1::<u32>, |$x| {
                    let $x = $x >> 24;
                    $e
                }
                .to_bits()),
            }
        };
    }
    match op {
        UnpackHalf2x16(c) => k!(c * 2, |x| f16::from_bits(x as u16).to_f32()),
        UnpackUnorm2x16(c) => k!(c * 2, |x| (x & 0xffff) as f32 / 65535.0),
        UnpackSnorm2x16(c) => k!(c * 2, |x| (x as u16 as i16 as f32 / 32767.0).max(-1.0)),
        UnpackUnorm4x8(c) => k!(c, |x| (x & 0xff) as f32 / 255.0),
        UnpackSnorm4x8(c) => k!(c, |x| (x as u8 as i8 as f32 / 127.0).max(-1.0)),
        _ => lane!(u32::k1::<u32>, |x| x),
    }
}

fn int_unary<T: Ty>(op: UnaryOp) -> Option<K1> {
    use UnaryOp::*;
    type S<T> = <T as Ty>::S;
    Some(match op {
        SNeg => lane!(S::<T>::k1::<S<T>>, |x| T::put(0u64.wrapping_sub(T::u(x)))),
        Not => lane!(S::<T>::k1::<S<T>>, |x| T::put(!T::u(x))),
        SAbs => {
            lane!(
                S::<T>::k1::<S<T>>,
                |x| T::put(T::i(x).wrapping_abs() as u64)
            )
        }
        SSign => lane!(S::<T>::k1::<S<T>>, |x| T::put(T::i(x).signum() as u64)),
        BitReverse => lane!(S::<T>::k1::<S<T>>, |x| T::put(
            T::u(x).reverse_bits() >> (64 - T::W)
        )),
        BitCount => lane!(S::<T>::k1::<u32>, |x| T::u(x).count_ones()),
        FindILsb => lane!(S::<T>::k1::<u32>, |x| {
            let v = T::u(x);
            if v == 0 {
                u32::MAX
            } else {
                v.trailing_zeros()
            }
        }),
        FindUMsb => lane!(S::<T>::k1::<u32>, |x| msb(T::u(x))),
        FindSMsb => lane!(S::<T>::k1::<u32>, |x| {
            let v = T::i(x);
            msb(if v < 0 { !v } else { v } as u64)
        }),
        Lo32 if T::W == 64 => lane!(S::<T>::k1::<u32>, |x| T::u(x) as u32),
        Hi32 if T::W == 64 => {
            lane!(S::<T>::k1::<u32>, |x| (T::u(x) >> 32) as u32)
        }
        _ => return None,
    })
}

#[inline(always)]
fn msb(v: u64) -> u32 {
    if v == 0 {
        u32::MAX
    } else {
        63 - v.leading_zeros()
    }
}

fn float_unary<T: FTy>(op: UnaryOp) -> Option<K1> {
    use UnaryOp::*;
    type S<T> = <T as Ty>::S;
    type F<T> = <T as FTy>::F;
    macro_rules! fu {
        (|$x:ident| $e:expr) => {
            lane!(S::<T>::k1::<S<T>>, |s| {
                let $x: F<T> = T::get(s);
                T::set($e)
            })
        };
    }
    Some(match op {
        FNeg => fu!(|x| -x),
        FAbs => fu!(|x| x.abs()),
        FSign => fu!(|x| if x > F::<T>::c(0.0) {
            F::<T>::c(1.0)
        } else if x < F::<T>::c(0.0) {
            F::<T>::c(-1.0)
        } else {
            x
        }),
        Floor => vec1::<T, math::ops::Floor>(),
        Ceil => vec1::<T, math::ops::Ceil>(),
        Trunc => vec1::<T, math::ops::Trunc>(),
        Round => vec1::<T, math::ops::Round>(),
        RoundEven => vec1::<T, math::ops::RoundEven>(),
        Fract => vec1::<T, math::ops::Fract>(),
        Sqrt => vec1::<T, math::ops::Sqrt>(),
        InverseSqrt => vec1::<T, math::ops::InverseSqrt>(),
        Exp | Exp2 | Log | Log2 | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh | Tanh
        | Asinh | Acosh | Atanh => return F::<T>::transcendental::<T>(op),
        Radians => fu!(|x| x * F::<T>::c(std::f64::consts::PI / 180.0)),
        Degrees => fu!(|x| x * F::<T>::c(180.0 / std::f64::consts::PI)),
        FrexpMant => fu!(|x| x.frexp().0),
        FrexpExp => lane!(S::<T>::k1::<u32>, |s| T::get(s).frexp().1 as u32),
        IsNan => lane!(S::<T>::k1::<u32>, |s| bit(T::get(s).is_nan())),
        IsInf => lane!(S::<T>::k1::<u32>, |s| bit(T::get(s).is_inf())),
        Lo32 if T::W == 64 => lane!(S::<T>::k1::<u32>, |x| T::u(x) as u32),
        Hi32 if T::W == 64 => {
            lane!(S::<T>::k1::<u32>, |x| (T::u(x) >> 32) as u32)
        }
        _ => return None,
    })
}

/// Binary kernel for `op` on operand type `ty`.
pub(crate) fn binary(op: BinaryOp, ty: ScalarTy) -> Option<K2> {
    use BinaryOp::*;
    match (op, ty) {
        (Join64, ScalarTy::I64 | ScalarTy::F64) => {
            return Some(K2::W(W2::NNW(|a, b, o, mk| {
                m2(a, b, o, mk, |x, y| x as u64 | ((y as u64) << 32))
            })))
        }
        (PackHalf2x16, _) => {
            return Some(lane!(u32::k2_same, |x, y| {
                f16::from_f32(f32::from_bits(x)).to_bits() as u32
                    | ((f16::from_f32(f32::from_bits(y)).to_bits() as u32) << 16)
            }))
        }
        (PackUnorm2x16, _) => {
            return Some(lane!(u32::k2_same, |x, y| unorm16(x) | (unorm16(y) << 16)))
        }
        (PackSnorm2x16, _) => {
            return Some(lane!(u32::k2_same, |x, y| snorm16(x) | (snorm16(y) << 16)))
        }
        _ => {}
    }
    match ty {
        ScalarTy::Bool => Some(match op {
            LogicalAnd | And => lane!(u32::k2_same, |x, y| bit(x != 0 && y != 0)),
            LogicalOr | Or => lane!(u32::k2_same, |x, y| bit(x != 0 || y != 0)),
            LogicalEqual | IEq => lane!(u32::k2_same, |x, y| bit((x != 0) == (y != 0))),
            LogicalNotEqual | INe | Xor => {
                lane!(u32::k2_same, |x, y| bit((x != 0) != (y != 0)))
            }
            _ => return None,
        }),
        ScalarTy::F16 | ScalarTy::F32 | ScalarTy::F64 => {
            with_float!(ty, T => float_binary::<T>(op))
        }
        _ => with_int!(ty, T => int_binary::<T>(op)),
    }
}

fn unorm16(x: u32) -> u32 {
    (f32::from_bits(x).clamp(0.0, 1.0) * 65535.0).round() as u32
}
fn snorm16(x: u32) -> u32 {
    (f32::from_bits(x).clamp(-1.0, 1.0) * 32767.0).round() as i32 as u32 & 0xffff
}
fn unorm8(x: u32) -> u32 {
    (f32::from_bits(x).clamp(0.0, 1.0) * 255.0).round() as u32
}
fn snorm8(x: u32) -> u32 {
    (f32::from_bits(x).clamp(-1.0, 1.0) * 127.0).round() as i32 as u32 & 0xff
}

fn int_binary<T: Ty>(op: BinaryOp) -> Option<K2> {
    use BinaryOp::*;
    type S<T> = <T as Ty>::S;
    macro_rules! ib {
        (|$x:ident, $y:ident| $e:expr) => {
            lane!(S::<T>::k2_same, |p, q| {
                let ($x, $y) = (p, q);
                T::put($e)
            })
        };
    }
    macro_rules! ic {
        (|$x:ident, $y:ident| $e:expr) => {
            lane!(S::<T>::k2_cmp, |p, q| {
                let ($x, $y) = (p, q);
                bit($e)
            })
        };
    }
    Some(match op {
        IAdd => ib!(|x, y| T::u(x).wrapping_add(T::u(y))),
        ISub => ib!(|x, y| T::u(x).wrapping_sub(T::u(y))),
        IMul => ib!(|x, y| T::u(x).wrapping_mul(T::u(y))),
        UDiv => ib!(|x, y| T::u(x).checked_div(T::u(y)).unwrap_or(u64::MAX)),
        SDiv => ib!(|x, y| if T::u(y) == 0 {
            u64::MAX
        } else {
            T::i(x).wrapping_div(T::i(y)) as u64
        }),
        UMod => ib!(|x, y| T::u(x).checked_rem(T::u(y)).unwrap_or(T::u(x))),
        SRem => ib!(|x, y| if T::u(y) == 0 {
            T::u(x)
        } else {
            T::i(x).wrapping_rem(T::i(y)) as u64
        }),
        SMod => ib!(|x, y| {
            let (p, q) = (T::i(x), T::i(y));
            if q == 0 {
                p as u64
            } else {
                let r = p.wrapping_rem(q);
                (if r != 0 && ((r < 0) != (q < 0)) {
                    r.wrapping_add(q)
                } else {
                    r
                }) as u64
            }
        }),
        UMulHi => ib!(|x, y| ((T::u(x) as u128 * T::u(y) as u128) >> T::W) as u64),
        SMulHi => ib!(|x, y| ((T::i(x) as i128 * T::i(y) as i128) >> T::W) as u64),
        AddCarry => ib!(|x, y| ((T::u(x) as u128 + T::u(y) as u128) >> T::W) as u64),
        SubBorrow => ib!(|x, y| (T::u(x) < T::u(y)) as u64),
        Shl => ib!(|x, y| if T::u(y) >= T::W as u64 {
            0
        } else {
            T::u(x) << T::u(y)
        }),
        ShrL => ib!(|x, y| if T::u(y) >= T::W as u64 {
            0
        } else {
            T::u(x) >> T::u(y)
        }),
        ShrA => ib!(|x, y| (T::i(x) >> T::u(y).min(63)) as u64),
        And => ib!(|x, y| T::u(x) & T::u(y)),
        Or => ib!(|x, y| T::u(x) | T::u(y)),
        Xor => ib!(|x, y| T::u(x) ^ T::u(y)),
        SMin => ib!(|x, y| T::i(x).min(T::i(y)) as u64),
        SMax => ib!(|x, y| T::i(x).max(T::i(y)) as u64),
        UMin => ib!(|x, y| T::u(x).min(T::u(y))),
        UMax => ib!(|x, y| T::u(x).max(T::u(y))),
        IEq => ic!(|x, y| T::u(x) == T::u(y)),
        INe => ic!(|x, y| T::u(x) != T::u(y)),
        SLt => ic!(|x, y| T::i(x) < T::i(y)),
        SGt => ic!(|x, y| T::i(x) > T::i(y)),
        SLe => ic!(|x, y| T::i(x) <= T::i(y)),
        SGe => ic!(|x, y| T::i(x) >= T::i(y)),
        ULt => ic!(|x, y| T::u(x) < T::u(y)),
        UGt => ic!(|x, y| T::u(x) > T::u(y)),
        ULe => ic!(|x, y| T::u(x) <= T::u(y)),
        UGe => ic!(|x, y| T::u(x) >= T::u(y)),
        _ => return None,
    })
}

/// GLSL's `mod`: x - y·floor(x/y), floor as `crate::math`'s.
struct Mod;
impl<L: Float> math::ops::Binary<L> for Mod {
    #[inline(always)]
    fn apply(x: L, y: L) -> L {
        x.sub(y.mul(math::floor(x.div(y))))
    }
}

fn float_binary<T: FTy>(op: BinaryOp) -> Option<K2> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    use BinaryOp::*;
    type S<T> = <T as Ty>::S;
    type F<T> = <T as FTy>::F;
    macro_rules! fb {
        (|$x:ident, $y:ident| $e:expr) => {
            lane!(S::<T>::k2_same, |p, q| {
                let ($x, $y): (F<T>, F<T>) = (T::get(p), T::get(q));
                T::set($e)
            })
        };
    }
    macro_rules! fc {
        (|$x:ident, $y:ident| $e:expr) => {
            lane!(S::<T>::k2_cmp, |p, q| {
                let ($x, $y): (F<T>, F<T>) = (T::get(p), T::get(q));
                bit($e)
            })
        };
    }
    Some(match op {
        FAdd => fb!(|x, y| x + y),
        FSub => fb!(|x, y| x - y),
        FMul => fb!(|x, y| x * y),
        FDiv => fb!(|x, y| x / y),
        FRem => fb!(|x, y| x % y),
        FMod => vec2::<T, Mod>(),
        FMin | NMin => fb!(|x, y| x.min_num(y)),
        FMax | NMax => fb!(|x, y| x.max_num(y)),
        Pow | Atan2 => return F::<T>::transcendental2::<T>(op),
        Step => fb!(|x, y| if y < x {
            F::<T>::c(0.0)
        } else {
            F::<T>::c(1.0)
        }),
        Ldexp => {
            lane!(S::<T>::k2_int, |p, e| T::set(T::get(p).ldexp(e as i32)))
        }
        FOrdEq => fc!(|x, y| x == y),
        FOrdNe => fc!(|x, y| matches!(x.partial_cmp(&y), Some(Less | Greater))),
        FOrdLt => fc!(|x, y| x < y),
        FOrdGt => fc!(|x, y| x > y),
        FOrdLe => fc!(|x, y| x <= y),
        FOrdGe => fc!(|x, y| x >= y),
        FUnordEq => fc!(|x, y| matches!(x.partial_cmp(&y), None | Some(Equal))),
        FUnordNe => fc!(|x, y| x != y),
        FUnordLt => fc!(|x, y| matches!(x.partial_cmp(&y), None | Some(Less))),
        FUnordGt => fc!(|x, y| matches!(x.partial_cmp(&y), None | Some(Greater))),
        FUnordLe => fc!(|x, y| x.partial_cmp(&y) != Some(Greater)),
        FUnordGe => fc!(|x, y| x.partial_cmp(&y) != Some(Less)),
        Ordered => fc!(|x, y| !x.is_nan() && !y.is_nan()),
        Unordered => fc!(|x, y| x.is_nan() || y.is_nan()),
        _ => return None,
    })
}

/// Ternary kernel for `op` on type `ty` (Select: the type of b and c).
pub(crate) fn ternary(op: TernaryOp, ty: ScalarTy) -> Option<K3> {
    use TernaryOp::*;
    if op == Select {
        return Some(if ty.is_wide() {
            lane!(u64::k3_sel, |s, x, y| if s != 0 { x } else { y })
        } else {
            lane!(u32::k3_sel, |s, x, y| if s != 0 { x } else { y })
        });
    }
    match ty {
        ScalarTy::F16 | ScalarTy::F32 | ScalarTy::F64 => {
            with_float!(ty, T => float_ternary::<T>(op))
        }
        ScalarTy::Bool => None,
        _ => with_int!(ty, T => int_ternary::<T>(op)),
    }
}

fn int_ternary<T: Ty>(op: TernaryOp) -> Option<K3> {
    use TernaryOp::*;
    type S<T> = <T as Ty>::S;
    Some(match op {
        SClamp => lane!(S::<T>::k3_same, |x, l, h| {
            T::put(T::i(x).max(T::i(l)).min(T::i(h)) as u64)
        }),
        UClamp => lane!(S::<T>::k3_same, |x, l, h| {
            T::put(T::u(x).max(T::u(l)).min(T::u(h)))
        }),
        BitFieldUExtract => lane!(S::<T>::k3_bfe, |x, off, cnt| {
            let (off, cnt) = bf_clamp(T::W, off, cnt);
            if cnt == 0 {
                T::put(0)
            } else {
                T::put((T::u(x) >> off) & low_mask(cnt))
            }
        }),
        BitFieldSExtract => lane!(S::<T>::k3_bfe, |x, off, cnt| {
            let (off, cnt) = bf_clamp(T::W, off, cnt);
            if cnt == 0 {
                T::put(0)
            } else {
                let v = (T::u(x) >> off) << (64 - cnt);
                T::put(((v as i64) >> (64 - cnt)) as u64)
            }
        }),
        _ => return None,
    })
}

fn float_ternary<T: FTy>(op: TernaryOp) -> Option<K3> {
    use TernaryOp::*;
    type S<T> = <T as Ty>::S;
    type F<T> = <T as FTy>::F;
    macro_rules! ft {
        (|$x:ident, $y:ident, $z:ident| $e:expr) => {
            lane!(S::<T>::k3_same, |p, q, r| {
                let ($x, $y, $z): (F<T>, F<T>, F<T>) = (T::get(p), T::get(q), T::get(r));
                T::set($e)
            })
        };
    }
    Some(match op {
        // f16 fma: the f32 product of two halves is exact, so one f32 rounding of the sum
        // plus the f16 rounding is a documented double rounding.
        Fma => ft!(|x, y, z| x.fma(y, z)),
        FClamp | NClamp => ft!(|x, l, h| x.max_num(l).min_num(h)),
        FMix => ft!(|x, y, t| x * (F::<T>::c(1.0) - t) + y * t),
        SmoothStep => ft!(|e0, e1, x| {
            let t = ((x - e0) / (e1 - e0))
                .max_num(F::<T>::c(0.0))
                .min_num(F::<T>::c(1.0));
            t * t * (F::<T>::c(3.0) - F::<T>::c(2.0) * t)
        }),
        _ => return None,
    })
}

/// Where a fused multiply's product enters the add or subtract it feeds (`super::fuse`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MulThen {
    /// `a·b + c`
    AddAfter,
    /// `c + a·b`
    AddBefore,
    /// `a·b − c`
    SubAfter,
    /// `c − a·b`
    SubBefore,
}

/// The kernel of a multiply feeding an add or subtract of the same type (`FMul` then
/// `FAdd`/`FSub` on a float type, `IMul` then `IAdd`/`ISub` on I32 or I64), operands
/// `(a, b, c)` for the product's `a·b` and the other operand `c`. Float: two roundings, as
/// the two instructions do: the product is rounded to the register type (`T::set`) and read
/// back before the sum, so the bits are those of the two instructions (never an FMA), the
/// operands in their order. Integer: wrapping, as the two instructions.
pub(crate) fn mul_then(shape: MulThen, ty: ScalarTy) -> Option<K3> {
    fn float<T: FTy, const SUB: bool, const AFTER: bool>() -> K3 {
        type S<T> = <T as Ty>::S;
        lane!(S::<T>::k3_same, |p, q, r| {
            let t = T::get(T::set(T::get(p) * T::get(q)));
            let z = T::get(r);
            T::set(match (SUB, AFTER) {
                (false, true) => t + z,
                (false, false) => z + t,
                (true, true) => t - z,
                (true, false) => z - t,
            })
        })
    }
    fn int<T: Ty, const SUB: bool, const AFTER: bool>() -> K3 {
        type S<T> = <T as Ty>::S;
        lane!(S::<T>::k3_same, |p, q, r| {
            let t = T::u(p).wrapping_mul(T::u(q));
            let z = T::u(r);
            T::put(match (SUB, AFTER) {
                (false, _) => t.wrapping_add(z),
                (true, true) => t.wrapping_sub(z),
                (true, false) => z.wrapping_sub(t),
            })
        })
    }
    macro_rules! shaped {
        ($k:ident, $T:ty) => {
            Some(match shape {
                MulThen::AddAfter => $k::<$T, false, true>(),
                MulThen::AddBefore => $k::<$T, false, false>(),
                MulThen::SubAfter => $k::<$T, true, true>(),
                MulThen::SubBefore => $k::<$T, true, false>(),
            })
        };
    }
    match ty {
        ScalarTy::I32 => shaped!(int, I32),
        ScalarTy::I64 => shaped!(int, I64),
        _ => with_float!(ty, T => shaped!(float, T)),
    }
}

/// BitFieldInsert kernel.
pub(crate) fn bitfield_insert(ty: ScalarTy) -> Option<K4> {
    fn k<T: Ty>() -> K4 {
        type S<T> = <T as Ty>::S;
        S::<T>::k4_bfi(|a, b, c, d, o, mk| {
            l4(a, b, c, d, o, mk, |base, ins, off, cnt| {
                let (off, cnt) = bf_clamp(T::W, off, cnt);
                if cnt == 0 {
                    base
                } else {
                    let m = low_mask(cnt) << off;
                    T::put((T::u(base) & !m) | ((T::u(ins) << off) & m))
                }
            })
        })
    }
    with_int!(ty, T => Some(k::<T>()))
}

/// PackUnorm4x8 / PackSnorm4x8.
pub(crate) fn pack4x8(snorm: bool) -> K4 {
    if snorm {
        K4::NNNNN(|a, b, c, d, o, mk| {
            l4(a, b, c, d, o, mk, |x, y, z, w| {
                snorm8(x) | snorm8(y) << 8 | snorm8(z) << 16 | snorm8(w) << 24
            })
        })
    } else {
        K4::NNNNN(|a, b, c, d, o, mk| {
            l4(a, b, c, d, o, mk, |x, y, z, w| {
                unorm8(x) | unorm8(y) << 8 | unorm8(z) << 16 | unorm8(w) << 24
            })
        })
    }
}

/// Conversion kernel.
pub(crate) fn convert(op: ConvOp, from: ScalarTy, to: ScalarTy) -> Option<K1> {
    if op == ConvOp::Bitcast {
        if from.bits() != to.bits() || from == ScalarTy::Bool || to == ScalarTy::Bool {
            return None;
        }
        return unary(crate::ir::UnaryOp::Mov, from);
    }
    with_num!(from, A => with_num!(to, B => conv::<A, B>(op)))
}

fn conv<A: Ty, B: Ty>(op: ConvOp) -> Option<K1> {
    use ConvOp::*;
    type S<T> = <T as Ty>::S;
    Some(match op {
        FToS if A::FLOAT && !B::FLOAT => lane!(S::<A>::k1::<S<B>>, |x| {
            let hi = (u64::MAX >> (65 - B::W)) as i64;
            let v = (A::f(x) as i64).clamp(-hi - 1, hi);
            B::put(v as u64)
        }),
        FToU if A::FLOAT && !B::FLOAT => lane!(S::<A>::k1::<S<B>>, |x| {
            B::put((A::f(x) as u64).min(u64::MAX >> (64 - B::W)))
        }),
        SToF if !A::FLOAT && B::FLOAT => {
            lane!(S::<A>::k1::<S<B>>, |x| B::from_i64(A::i(x)))
        }
        UToF if !A::FLOAT && B::FLOAT => {
            lane!(S::<A>::k1::<S<B>>, |x| B::from_u64(A::u(x)))
        }
        UConvert if !A::FLOAT && !B::FLOAT => {
            lane!(S::<A>::k1::<S<B>>, |x| B::put(A::u(x)))
        }
        SConvert if !A::FLOAT && !B::FLOAT => {
            lane!(S::<A>::k1::<S<B>>, |x| B::put(A::i(x) as u64))
        }
        FConvert if A::FLOAT && B::FLOAT => lane!(S::<A>::k1::<S<B>>, |x| {
            if B::W == 16 {
                B::put(H::from_f64_exact(A::f(x)) as u64)
            } else {
                B::from_f64(A::f(x))
            }
        }),
        _ => return None,
    })
}

#[inline(always)]
fn lane_on(mk: Option<&[u32]>, l: usize) -> bool {
    mk.is_none_or(|m| m[l] != 0)
}

/// Derivative kernel: quads are the lane groups 4k..4k+3 laid out `0 1 / 2 3`. Every lane of
/// the quad is read whatever its state (sampling.md §3.2, §3.3).
pub(crate) fn deriv(axis: crate::ir::Axis, kind: crate::ir::DerivKind, ty: ScalarTy) -> Option<K1> {
    use crate::ir::{Axis, DerivKind};
    fn k<T: FTy>(axis: Axis, kind: DerivKind) -> K1 {
        type S<T> = <T as Ty>::S;
        // Source lane pairs (minuend, subtrahend) for lanes 0..4.
        macro_rules! d {
            ($p:expr) => {
                S::<T>::k1::<S<T>>(
                    |a, o, mk| {
                        for (qi, (q, r)) in a.chunks_exact(4).zip(o.chunks_exact_mut(4)).enumerate()
                        {
                            let p: [(usize, usize); 4] = $p;
                            for l in 0..4 {
                                if lane_on(mk, qi * 4 + l) {
                                    r[l] = T::set(T::get(q[p[l].0]) - T::get(q[p[l].1]));
                                }
                            }
                        }
                    },
                    None,
                )
            };
        }
        match (axis, kind) {
            (Axis::X, DerivKind::Fine) => d!([(1, 0), (1, 0), (3, 2), (3, 2)]),
            (Axis::Y, DerivKind::Fine) => d!([(2, 0), (3, 1), (2, 0), (3, 1)]),
            (Axis::X, DerivKind::Coarse) => d!([(1, 0); 4]),
            (Axis::Y, DerivKind::Coarse) => d!([(2, 0); 4]),
        }
    }
    with_float!(ty, T => Some(k::<T>(axis, kind)))
}

/// QuadSwap: lane `l` reads quad lane `l ^ (direction + 1)`.
pub(crate) fn quad_swap(direction: u8, wide: bool) -> Option<K1> {
    fn k<S: St>(direction: u8) -> Option<K1> {
        macro_rules! sw {
            ($x:expr) => {
                S::k1::<S>(
                    |a, o, mk| {
                        for (qi, (q, r)) in a.chunks_exact(4).zip(o.chunks_exact_mut(4)).enumerate()
                        {
                            for l in 0..4 {
                                if lane_on(mk, qi * 4 + l) {
                                    r[l] = q[l ^ $x];
                                }
                            }
                        }
                    },
                    None,
                )
            };
        }
        Some(match direction {
            0 => sw!(1),
            1 => sw!(2),
            2 => sw!(3),
            _ => return None,
        })
    }
    if wide {
        k::<u64>(direction)
    } else {
        k::<u32>(direction)
    }
}

/// QuadBroadcast: lane `l` reads quad lane `index[l] & 3`.
pub(crate) fn quad_broadcast(wide: bool) -> K2 {
    fn k<S: St>() -> K2 {
        S::k2_int(
            |a, idx, o, mk| {
                for (qi, ((q, i), r)) in a
                    .chunks_exact(4)
                    .zip(idx.chunks_exact(4))
                    .zip(o.chunks_exact_mut(4))
                    .enumerate()
                {
                    for l in 0..4 {
                        if lane_on(mk, qi * 4 + l) {
                            r[l] = q[(i[l] & 3) as usize];
                        }
                    }
                }
            },
            None,
        )
    }
    if wide {
        k::<u64>()
    } else {
        k::<u32>()
    }
}

/// Raw-bits helpers used by the (not hot) subgroup and atomic code: combine two values of `ty`
/// held as zero-extended raw bits.
pub(crate) fn raw_sext(bits: u32, v: u64) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

pub(crate) fn raw_mask(bits: u32) -> u64 {
    low_mask(bits)
}

/// Float value of raw bits of a float type.
pub(crate) fn raw_to_f64(ty: ScalarTy, v: u64) -> f64 {
    match ty {
        ScalarTy::F16 => f16::from_bits(v as u16).to_f64(),
        ScalarTy::F32 => f32::from_bits(v as u32) as f64,
        _ => f64::from_bits(v),
    }
}
/// Raw bits of a float type from an f64 (one rounding for f32/f64; f16 values that come from
/// an f16/f32 operation are exact in f64, so rounding once from f64 is correct).
pub(crate) fn raw_from_f64(ty: ScalarTy, v: f64) -> u64 {
    match ty {
        ScalarTy::F16 => f16::from_f64(v).to_bits() as u64,
        ScalarTy::F32 => (v as f32).to_bits() as u64,
        _ => v.to_bits(),
    }
}

#[cfg(test)]
pub(super) mod tests {
    //! The AVX2 and plain forms of every lane kernel give the same bits: each kernel of every
    //! operation and type, on rows of random and special values (NaN payloads, signalling
    //! NaNs, ±0, ±∞, subnormals, the integer extremes), with and without a lane mask; float
    //! results up to which NaN (the first version of this test found `FMix` on two NaNs
    //! returning the other operand's payload in the AVX2 form).

    use super::*;
    use crate::ir::{BinaryOp as B, ConvOp as C, ScalarTy as T, TernaryOp as Te, UnaryOp as U};
    use std::cell::Cell;

    thread_local! {
        pub(in crate::exec) static PLAIN: Cell<bool> = const { Cell::new(false) };
    }

    const TYS: [T; 8] = [
        T::Bool,
        T::I8,
        T::I16,
        T::I32,
        T::I64,
        T::F16,
        T::F32,
        T::F64,
    ];
    const LANES: usize = 64;

    /// Random input rows: a quarter special values (NaNs with payloads, infinities, signed
    /// zeros, extremes; f16 ones in the low half of a 32-bit word), a quarter small integers,
    /// the rest any bits; and random lane masks.
    struct Inputs(fastrand::Rng);
    impl Inputs {
        fn n(&mut self) -> u32 {
            const S: [u32; 16] = [
                0x7fc0_0001,
                0xffc0_0000,
                0x7f80_0001,
                0x7f80_0000,
                0xff80_0000,
                0x8000_0000,
                0,
                1,
                0x8000_0001,
                0x7fff_ffff,
                0x3f80_0000,
                0x4f00_0000,
                0x7e00,
                0xfc00,
                0x3c00,
                31,
            ];
            match self.0.u32(..4) {
                0 => S[self.0.usize(..S.len())],
                1 => self.0.u32(..70),
                _ => self.0.u32(..),
            }
        }
        fn w(&mut self) -> u64 {
            const S: [u64; 8] = [
                0x7ff8_0000_0000_0001,
                0xfff8_0000_0000_0000,
                0x7ff0_0000_0000_0001,
                0x7ff0_0000_0000_0000,
                0x8000_0000_0000_0000,
                1,
                0x3ff0_0000_0000_0000,
                63,
            ];
            match self.0.u32(..4) {
                0 => S[self.0.usize(..S.len())],
                1 => self.0.u64(..70),
                _ => self.0.u64(..),
            }
        }
        fn row32(&mut self) -> Vec<u32> {
            (0..LANES).map(|_| self.n()).collect()
        }
        fn row64(&mut self) -> Vec<u64> {
            (0..LANES).map(|_| self.w()).collect()
        }
        fn mask(&mut self) -> Option<Vec<u32>> {
            self.0.bool().then(|| {
                (0..LANES)
                    .map(|_| if self.0.u32(..3) == 0 { 0 } else { u32::MAX })
                    .collect()
            })
        }
    }

    /// A raw result word as the test compares it: float NaNs (f16 in the low half, f32, f64)
    /// as one value when `nan` — which NaN an operation on two NaNs returns is the operand
    /// order the compiler chose, not something either form promises.
    trait Word: St + std::fmt::Debug + PartialEq {
        fn key(self, nan: bool) -> u64;
    }
    impl Word for u32 {
        fn key(self, nan: bool) -> u64 {
            let f16_nan = self >> 16 == 0 && self & 0x7fff > 0x7c00;
            if nan && (f32::from_bits(self).is_nan() || f16_nan) {
                u64::MAX
            } else {
                self as u64
            }
        }
    }
    impl Word for u64 {
        fn key(self, nan: bool) -> u64 {
            if nan && f64::from_bits(self).is_nan() {
                u64::MAX
            } else {
                self
            }
        }
    }

    /// `f` in both forms on the same inputs and the same starting output row; `nan`: float
    /// results, NaNs compared as one value.
    fn both<R: Word>(
        (what, nan): (&str, bool),
        r: &mut Inputs,
        start: Vec<R>,
        f: impl Fn(&mut [R], Option<&[u32]>),
    ) {
        let mk = r.mask();
        let (mut plain, mut avx) = (start.clone(), start);
        PLAIN.with(|p| p.set(true));
        f(&mut plain, mk.as_deref());
        PLAIN.with(|p| p.set(false));
        f(&mut avx, mk.as_deref());
        let key = |v: &[R]| v.iter().map(|&x| x.key(nan)).collect::<Vec<_>>();
        assert_eq!(key(&plain), key(&avx), "{what}: {plain:?} {avx:?}");
        if !nan {
            assert_eq!(plain, avx, "{what}");
        }
    }

    /// The kernel's form on one value, lane by lane, against its row loop on every lane.
    fn check_one(what: (&str, bool), rows: &[u32], one: impl Fn(usize) -> u32) {
        for (l, &v) in rows.iter().enumerate() {
            let w = one(l);
            assert_eq!(
                v.key(what.1),
                w.key(what.1),
                "{}: one value, lane {l}",
                what.0
            );
        }
    }

    fn check1(what: (&str, bool), r: &mut Inputs, k: K1) {
        let (a32, a64) = (r.row32(), r.row64());
        if let K1::NN(Lane {
            rows,
            one: Some(one),
        }) = k
        {
            let mut o = vec![0; LANES];
            rows(&a32, &mut o, None);
            check_one(what, &o, |l| one(a32[l]));
        }
        match k {
            K1::NN(Lane { rows: f, .. }) => both(what, r, vec![7u32; LANES], |o, m| f(&a32, o, m)),
            K1::W(W1::WW(f)) => both(what, r, vec![7u64; LANES], |o, m| f(&a64, o, m)),
            K1::W(W1::WN(f)) => both(what, r, vec![7u32; LANES], |o, m| f(&a64, o, m)),
            K1::W(W1::NW(f)) => both(what, r, vec![7u64; LANES], |o, m| f(&a32, o, m)),
        }
    }

    fn check2(what: (&str, bool), r: &mut Inputs, k: K2) {
        let (a, b, x, y) = (r.row32(), r.row32(), r.row64(), r.row64());
        if let K2::NNN(Lane {
            rows,
            one: Some(one),
        }) = k
        {
            let mut o = vec![0; LANES];
            rows(&a, &b, &mut o, None);
            check_one(what, &o, |l| one(a[l], b[l]));
        }
        match k {
            K2::NNN(Lane { rows: f, .. }) => {
                both(what, r, vec![7u32; LANES], |o, m| f(&a, &b, o, m))
            }
            K2::W(W2::WWW(f)) => both(what, r, vec![7u64; LANES], |o, m| f(&x, &y, o, m)),
            K2::W(W2::WWN(f)) => both(what, r, vec![7u32; LANES], |o, m| f(&x, &y, o, m)),
            K2::W(W2::WNW(f)) => both(what, r, vec![7u64; LANES], |o, m| f(&x, &a, o, m)),
            K2::W(W2::NNW(f)) => both(what, r, vec![7u64; LANES], |o, m| f(&a, &b, o, m)),
        }
    }

    fn check3(what: (&str, bool), r: &mut Inputs, k: K3) {
        let (a, b, c) = (r.row32(), r.row32(), r.row32());
        let (x, y, z) = (r.row64(), r.row64(), r.row64());
        if let K3::NNNN(Lane {
            rows,
            one: Some(one),
        }) = k
        {
            let mut o = vec![0; LANES];
            rows(&a, &b, &c, &mut o, None);
            check_one(what, &o, |l| one(a[l], b[l], c[l]));
        }
        match k {
            K3::NNNN(Lane { rows: f, .. }) => {
                both(what, r, vec![7u32; LANES], |o, m| f(&a, &b, &c, o, m))
            }
            K3::W(W3::WWWW(f)) => both(what, r, vec![7u64; LANES], |o, m| f(&x, &y, &z, o, m)),
            K3::W(W3::NWWW(f)) => both(what, r, vec![7u64; LANES], |o, m| f(&a, &x, &y, o, m)),
            K3::W(W3::WNNW(f)) => both(what, r, vec![7u64; LANES], |o, m| f(&x, &a, &b, o, m)),
        }
    }

    #[test]
    fn avx2_and_plain_kernels_agree() {
        if !crate::cpu::avx2() {
            return; // one form only on this machine
        }
        let mut r = Inputs(fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15));
        let unary = [
            U::Mov,
            U::FNeg,
            U::SNeg,
            U::Not,
            U::LogicalNot,
            U::FAbs,
            U::SAbs,
            U::FSign,
            U::SSign,
            U::Floor,
            U::Ceil,
            U::Trunc,
            U::Round,
            U::RoundEven,
            U::Fract,
            U::Sqrt,
            U::InverseSqrt,
            U::Exp,
            U::Exp2,
            U::Log,
            U::Log2,
            U::Sin,
            U::Cos,
            U::Tan,
            U::Asin,
            U::Acos,
            U::Atan,
            U::Sinh,
            U::Cosh,
            U::Tanh,
            U::Asinh,
            U::Acosh,
            U::Atanh,
            U::Radians,
            U::Degrees,
            U::BitReverse,
            U::BitCount,
            U::FindILsb,
            U::FindSMsb,
            U::FindUMsb,
            U::IsNan,
            U::IsInf,
            U::FrexpMant,
            U::FrexpExp,
            U::UnpackHalf2x16(1),
            U::UnpackUnorm2x16(0),
            U::UnpackSnorm2x16(1),
            U::UnpackUnorm4x8(2),
            U::UnpackSnorm4x8(3),
            U::Lo32,
            U::Hi32,
        ];
        let binary = [
            B::FAdd,
            B::FSub,
            B::FMul,
            B::FDiv,
            B::FRem,
            B::FMod,
            B::IAdd,
            B::ISub,
            B::IMul,
            B::SDiv,
            B::UDiv,
            B::SRem,
            B::SMod,
            B::UMod,
            B::UMulHi,
            B::SMulHi,
            B::AddCarry,
            B::SubBorrow,
            B::Shl,
            B::ShrL,
            B::ShrA,
            B::And,
            B::Or,
            B::Xor,
            B::LogicalAnd,
            B::LogicalOr,
            B::LogicalEqual,
            B::LogicalNotEqual,
            B::FMin,
            B::FMax,
            B::NMin,
            B::NMax,
            B::SMin,
            B::SMax,
            B::UMin,
            B::UMax,
            B::Pow,
            B::Atan2,
            B::Step,
            B::Ldexp,
            B::Join64,
            B::PackHalf2x16,
            B::PackUnorm2x16,
            B::PackSnorm2x16,
            B::FOrdEq,
            B::FOrdNe,
            B::FOrdLt,
            B::FOrdGt,
            B::FOrdLe,
            B::FOrdGe,
            B::FUnordEq,
            B::FUnordNe,
            B::FUnordLt,
            B::FUnordGt,
            B::FUnordLe,
            B::FUnordGe,
            B::Ordered,
            B::Unordered,
            B::IEq,
            B::INe,
            B::SLt,
            B::SGt,
            B::SLe,
            B::SGe,
            B::ULt,
            B::UGt,
            B::ULe,
            B::UGe,
        ];
        let ternary = [
            Te::Fma,
            Te::FClamp,
            Te::NClamp,
            Te::SClamp,
            Te::UClamp,
            Te::FMix,
            Te::SmoothStep,
            Te::Select,
            Te::BitFieldSExtract,
            Te::BitFieldUExtract,
        ];
        let mut checked = 0;
        for _ in 0..20 {
            for ty in TYS {
                for op in unary {
                    if let Some(k) = super::unary(op, ty) {
                        check1((&format!("{op:?} {ty:?}"), ty.is_float()), &mut r, k);
                        checked += 1;
                    }
                }
                for op in binary {
                    if let Some(k) = super::binary(op, ty) {
                        check2((&format!("{op:?} {ty:?}"), ty.is_float()), &mut r, k);
                        checked += 1;
                    }
                }
                for op in ternary {
                    if let Some(k) = super::ternary(op, ty) {
                        check3((&format!("{op:?} {ty:?}"), ty.is_float()), &mut r, k);
                        checked += 1;
                    }
                }
                for shape in [
                    MulThen::AddAfter,
                    MulThen::AddBefore,
                    MulThen::SubAfter,
                    MulThen::SubBefore,
                ] {
                    if let Some(k) = super::mul_then(shape, ty) {
                        check3((&format!("{shape:?} {ty:?}"), ty.is_float()), &mut r, k);
                        checked += 1;
                    }
                }
                for to in TYS {
                    for op in [
                        C::FToS,
                        C::FToU,
                        C::SToF,
                        C::UToF,
                        C::FConvert,
                        C::SConvert,
                        C::UConvert,
                        C::Bitcast,
                    ] {
                        if let Some(k) = super::convert(op, ty, to) {
                            check1(
                                (&format!("{op:?} {ty:?} -> {to:?}"), to.is_float()),
                                &mut r,
                                k,
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 20 * 300, "only {checked} kernels checked");
    }

    /// The vector loops over rows of every length from 1 to 19 (whole groups of four or eight
    /// and a partial one), with and without a mask: each written lane is the scalar `math`
    /// function of its operands (f16 through f32, rounded once), each masked-off lane keeps
    /// its old value, in both forms.
    #[test]
    fn vector_loops_cover_every_lane_once() {
        let mut r = Inputs(fastrand::Rng::with_seed(0x5851_f42d_4c95_7f2d));
        for plain in [true, false] {
            PLAIN.with(|p| p.set(plain));
            for len in 1..20 {
                let a: Vec<u32> = (0..len).map(|_| r.n()).collect();
                let b: Vec<u32> = (0..len).map(|_| r.n()).collect();
                let w: Vec<u64> = (0..len).map(|_| r.w()).collect();
                for mk in [
                    None,
                    Some(
                        (0..len)
                            .map(|i| if i % 3 != 1 { !0 } else { 0 })
                            .collect::<Vec<_>>(),
                    ),
                ] {
                    let on = |i: usize| mk.as_ref().is_none_or(|m| m[i] != 0);
                    let start = vec![7u32; len];
                    let K1::NN(Lane { rows: sin, .. }) = unary(U::Sin, T::F32).unwrap() else {
                        panic!()
                    };
                    let mut o = start.clone();
                    sin(&a, &mut o, mk.as_deref());
                    let K2::NNN(Lane { rows: pow, .. }) = binary(B::Pow, T::F32).unwrap() else {
                        panic!()
                    };
                    let mut p = start.clone();
                    pow(&a, &b, &mut p, mk.as_deref());
                    let K1::NN(Lane { rows: exp_h, .. }) = unary(U::Exp, T::F16).unwrap() else {
                        panic!()
                    };
                    let mut h = start.clone();
                    exp_h(&a, &mut h, mk.as_deref());
                    let K1::W(W1::WW(floor_d)) = unary(U::Floor, T::F64).unwrap() else {
                        panic!()
                    };
                    let mut d = vec![7u64; len];
                    floor_d(&w, &mut d, mk.as_deref());
                    for i in 0..len {
                        let f = |v: u32| f32::from_bits(v);
                        let half = |v: u32| f16::from_bits(v as u16).to_f32();
                        let (ws, wp, wh, wd) = if on(i) {
                            (
                                math::sin(f(a[i])).to_bits(),
                                math::pow(f(a[i]), f(b[i])).to_bits(),
                                f16::from_f32(math::exp(half(a[i]))).to_bits() as u32,
                                math::floor(f64::from_bits(w[i])).to_bits(),
                            )
                        } else {
                            (7, 7, 7, 7)
                        };
                        let what = format!("plain {plain}, len {len}, lane {i}, mask {mk:?}");
                        assert_eq!(o[i], ws, "sin: {what}");
                        assert_eq!(p[i], wp, "pow: {what}");
                        assert_eq!(h[i], wh, "exp f16: {what}");
                        assert_eq!(d[i], wd, "floor f64: {what}");
                    }
                }
            }
        }
        PLAIN.with(|p| p.set(false));
    }

    /// Under a mask, a lane whose mask word is 0 keeps its old word and every other lane gets
    /// the kernel's value: for the closure loops (`l1`, `m2`, `m3`, `l4`, u32 and u64 results) with every
    /// mix of row and splat operands (a one-value slice, as the executor passes a uniform
    /// register), and for the vector loops (one and two operands, f32 and f64, rows and
    /// splats), in both forms, at whole-vector and ragged lengths; against a per-lane
    /// reference written here.
    #[test]
    fn masked_lanes_keep_their_words_for_every_operand_mix() {
        let mut r = Inputs(fastrand::Rng::with_seed(0x2545_f491_4f6c_dd1d));
        let mix32 = |x: u32, y: u32, z: u32, w: u32| {
            x.wrapping_mul(0x9e37_79b9) ^ y.rotate_left(7) ^ z.wrapping_add(3) ^ w >> 3
        };
        let mix64 = |x: u32, y: u32, z: u32, w: u32| (mix32(x, y, z, w) as u64) << 32 | !x as u64;
        for plain in [true, false] {
            PLAIN.with(|p| p.set(plain));
            for len in [4, 8, 13, 64, 256] {
                let ops: [Vec<u32>; 4] = std::array::from_fn(|_| (0..len).map(|_| r.n()).collect());
                let wide: [Vec<u64>; 2] =
                    std::array::from_fn(|_| (0..len).map(|_| r.w()).collect());
                let m: Vec<u32> = (0..len).map(|_| if r.0.bool() { !0 } else { 0 }).collect();
                let old32: Vec<u32> = (0..len).map(|_| r.n()).collect();
                let old64: Vec<u64> = (0..len).map(|_| r.w()).collect();
                // bit k of `mix`: operand k is a splat
                for mix in 0..16usize {
                    let what = format!("plain {plain}, len {len}, splats {mix:04b}");
                    let splat = |k: usize| mix >> k & 1 == 1;
                    let op = |k: usize| if splat(k) { &ops[k][..1] } else { &ops[k][..] };
                    let at = |k: usize, i: usize| ops[k][if splat(k) { 0 } else { i }];
                    let want =
                        |i: usize,
                         arity: usize,
                         old: u64,
                         f: &dyn Fn(u32, u32, u32, u32) -> u64| {
                            if m[i] == 0 {
                                return old;
                            }
                            let v = |k: usize| if k < arity { at(k, i) } else { 0 };
                            f(v(0), v(1), v(2), v(3))
                        };
                    let check = |name: &str, arity: usize, got32: &[u32], got64: &[u64]| {
                        for i in 0..len {
                            let w32 = want(i, arity, old32[i] as u64, &|x, y, z, w| {
                                mix32(x, y, z, w) as u64
                            });
                            let w64 = want(i, arity, old64[i], &|x, y, z, w| mix64(x, y, z, w));
                            assert_eq!(got32[i] as u64, w32, "{name} u32 lane {i}: {what}");
                            assert_eq!(got64[i], w64, "{name} u64 lane {i}: {what}");
                        }
                    };
                    // rows only for one and four operands (`l1`, `l4`)
                    if mix == 0 {
                        let (mut o32, mut o64) = (old32.clone(), old64.clone());
                        l1(op(0), &mut o32, Some(&m), |x| mix32(x, 0, 0, 0));
                        l1(op(0), &mut o64, Some(&m), |x| mix64(x, 0, 0, 0));
                        check("l1", 1, &o32, &o64);
                        let (mut o32, mut o64) = (old32.clone(), old64.clone());
                        l4(op(0), op(1), op(2), op(3), &mut o32, Some(&m), mix32);
                        l4(op(0), op(1), op(2), op(3), &mut o64, Some(&m), mix64);
                        check("l4", 4, &o32, &o64);
                    }
                    if mix < 4 {
                        let (mut o32, mut o64) = (old32.clone(), old64.clone());
                        m2(op(0), op(1), &mut o32, Some(&m), |x, y| mix32(x, y, 0, 0));
                        m2(op(0), op(1), &mut o64, Some(&m), |x, y| mix64(x, y, 0, 0));
                        check("m2", 2, &o32, &o64);
                    }
                    if mix < 8 {
                        let (mut o32, mut o64) = (old32.clone(), old64.clone());
                        m3(op(0), op(1), op(2), &mut o32, Some(&m), |x, y, z| {
                            mix32(x, y, z, 0)
                        });
                        m3(op(0), op(1), op(2), &mut o64, Some(&m), |x, y, z| {
                            mix64(x, y, z, 0)
                        });
                        check("m3", 3, &o32, &o64);
                    }
                    if mix >= 4 {
                        continue;
                    }
                    // the vector loops: sqrt and floor (one row), pow (rows and splats)
                    let f = f32::from_bits;
                    let keep =
                        |i: usize, old: u32, v: f32| if m[i] == 0 { old } else { v.to_bits() };
                    let K1::NN(Lane { rows: sqrt, .. }) = unary(U::Sqrt, T::F32).unwrap() else {
                        panic!()
                    };
                    let K1::W(W1::WW(floor)) = unary(U::Floor, T::F64).unwrap() else {
                        panic!()
                    };
                    let K2::NNN(Lane { rows: pow, .. }) = binary(B::Pow, T::F32).unwrap() else {
                        panic!()
                    };
                    let (mut s, mut d, mut p) = (old32.clone(), old64.clone(), old32.clone());
                    if mix == 0 {
                        sqrt(op(0), &mut s, Some(&m));
                        floor(&wide[0], &mut d, Some(&m));
                    }
                    pow(op(0), op(1), &mut p, Some(&m));
                    for i in 0..len {
                        if mix == 0 {
                            assert_eq!(
                                s[i],
                                keep(i, old32[i], f(at(0, i)).sqrt()),
                                "sqrt lane {i}: {what}"
                            );
                            let fl = if m[i] == 0 {
                                old64[i]
                            } else {
                                f64::from_bits(wide[0][i]).floor().to_bits()
                            };
                            let nan = f64::from_bits(wide[0][i]).is_nan() && m[i] != 0;
                            if !nan {
                                assert_eq!(d[i], fl, "floor lane {i}: {what}");
                            }
                        }
                        let pw = keep(i, old32[i], math::pow(f(at(0, i)), f(at(1, i))));
                        assert_eq!(p[i], pw, "pow lane {i}: {what}");
                    }
                }
            }
        }
        PLAIN.with(|p| p.set(false));
    }

    /// An empty operand slice is the destination row, read before it is written: `m2` and
    /// `m3` with the destination at each position and the other operands rows or splats; the
    /// vector loops' kernels (pow) with the destination as either operand; every lane and under a mask, in both forms, against a
    /// per-lane reference written here.
    #[test]
    fn destination_operands_read_each_lane_before_writing_it() {
        let mut r = Inputs(fastrand::Rng::with_seed(0x6a09_e667_f3bc_c908));
        let mix = |x: u32, y: u32, z: u32| x.wrapping_mul(0x9e37_79b9) ^ y.rotate_left(7) ^ z >> 3;
        let f = f32::from_bits;
        let K2::NNN(Lane { rows: pow, .. }) = binary(B::Pow, T::F32).unwrap() else {
            panic!()
        };
        for plain in [true, false] {
            PLAIN.with(|p| p.set(plain));
            for len in [4, 13, 64, 256] {
                let ops: [Vec<u32>; 3] = std::array::from_fn(|_| (0..len).map(|_| r.n()).collect());
                let old: Vec<u32> = (0..len).map(|_| r.n()).collect();
                let floats: Vec<u32> = (0..len)
                    .map(|_| (r.0.u32(..2000) as f32 / 100.0 + 0.01).to_bits())
                    .collect();
                let old_f: Vec<u32> = (0..len)
                    .map(|_| (r.0.u32(..400) as f32 / 100.0).to_bits())
                    .collect();
                let m: Vec<u32> = (0..len).map(|_| if r.0.bool() { !0 } else { 0 }).collect();
                for mk in [None, Some(&m[..])] {
                    let on = |i: usize| mk.is_none_or(|m| m[i] != 0);
                    // `dst`: the destination's position; `splats`: bit k, operand k a splat
                    for dst in 0..3 {
                        for splats in 0..8usize {
                            if splats >> dst & 1 == 1 {
                                continue;
                            }
                            let what = format!(
                                "plain {plain}, len {len}, dst {dst}, splats {splats:03b}, mask {}",
                                mk.is_some()
                            );
                            let op = |k: usize| {
                                if k == dst {
                                    &ops[k][..0]
                                } else if splats >> k & 1 == 1 {
                                    &ops[k][..1]
                                } else {
                                    &ops[k][..]
                                }
                            };
                            let at = |k: usize, i: usize| {
                                if k == dst {
                                    old[i]
                                } else {
                                    ops[k][if splats >> k & 1 == 1 { 0 } else { i }]
                                }
                            };
                            let mut o = old.clone();
                            m3(op(0), op(1), op(2), &mut o, mk, mix);
                            for i in 0..len {
                                let want = if on(i) {
                                    mix(at(0, i), at(1, i), at(2, i))
                                } else {
                                    old[i]
                                };
                                assert_eq!(o[i], want, "m3 lane {i}: {what}");
                            }
                            if dst < 2 && splats < 4 {
                                let mut o = old.clone();
                                m2(op(0), op(1), &mut o, mk, |x, y| mix(x, y, 0));
                                for i in 0..len {
                                    let want = if on(i) {
                                        mix(at(0, i), at(1, i), 0)
                                    } else {
                                        old[i]
                                    };
                                    assert_eq!(o[i], want, "m2 lane {i}: {what}");
                                }
                                // pow with the destination as operand `dst`, the other a row
                                // or a splat
                                let other: &[u32] = if splats != 0 {
                                    &floats[..1]
                                } else {
                                    &floats[..]
                                };
                                let fo = |i: usize| f(other[if splats != 0 { 0 } else { i }]);
                                let mut p = old_f.clone();
                                if dst == 0 {
                                    pow(&[], other, &mut p, mk);
                                } else {
                                    pow(other, &[], &mut p, mk);
                                }
                                for i in 0..len {
                                    let (x, y) = if dst == 0 {
                                        (f(old_f[i]), fo(i))
                                    } else {
                                        (fo(i), f(old_f[i]))
                                    };
                                    let want = if on(i) {
                                        math::pow(x, y).to_bits()
                                    } else {
                                        old_f[i]
                                    };
                                    assert_eq!(p[i], want, "pow lane {i}: {what}");
                                }
                            }
                        }
                    }
                }
            }
        }
        PLAIN.with(|p| p.set(false));
    }

    /// Instructions per lane of float kernels, for callgrind (`valgrind --tool=callgrind
    /// target/release/deps/quadstep-<hash> exec::kernels::tests::kernel_costs --ignored
    /// --exact`): each `probe_*` function's inclusive count / (1000 · 256) is that kernel's
    /// cost per lane over 256-lane rows of values shaders use (|x| < 10; positive for log).
    #[test]
    #[ignore = "a callgrind probe, not a check"]
    fn kernel_costs() {
        const N: usize = 256;
        let mut r = fastrand::Rng::with_seed(0x1234_5678_9abc_def1);
        let a: Vec<u32> = (0..N)
            .map(|_| (r.u32(..2000) as f32 / 100.0 - 10.0).to_bits())
            .collect();
        let p: Vec<u32> = (0..N)
            .map(|_| (r.u32(..2000) as f32 / 100.0 + 0.01).to_bits())
            .collect();
        macro_rules! probes {
            ($($name:ident: $k:expr, $x:ident $(, $y:ident)?;)*) => {
                $(
                    #[inline(never)]
                    fn $name(k: &dyn Fn(&mut [u32])) {
                        let mut o = vec![0u32; N];
                        for _ in 0..1000 {
                            k(&mut o);
                        }
                        std::hint::black_box(&o);
                    }
                    $name(&|o: &mut [u32]| probes!(@call $k, o, $x $(, $y)?));
                )*
            };
            (@call $k:expr, $o:ident, $x:ident) => {{
                let K1::NN(Lane { rows: f, .. }) = $k else { unreachable!() };
                f(&$x, $o, None)
            }};
            (@call $k:expr, $o:ident, $x:ident, $y:ident) => {{
                let K2::NNN(Lane { rows: f, .. }) = $k else { unreachable!() };
                f(&$x, &$y, $o, None)
            }};
        }
        probes!(
            probe_sin: unary(U::Sin, T::F32).unwrap(), a;
            probe_cos: unary(U::Cos, T::F32).unwrap(), a;
            probe_tan: unary(U::Tan, T::F32).unwrap(), a;
            probe_exp2: unary(U::Exp2, T::F32).unwrap(), a;
            probe_exp: unary(U::Exp, T::F32).unwrap(), a;
            probe_log2: unary(U::Log2, T::F32).unwrap(), p;
            probe_log: unary(U::Log, T::F32).unwrap(), p;
            probe_atan: unary(U::Atan, T::F32).unwrap(), a;
            probe_asin: unary(U::Asin, T::F32).unwrap(), a;
            probe_tanh: unary(U::Tanh, T::F32).unwrap(), a;
            probe_sqrt: unary(U::Sqrt, T::F32).unwrap(), p;
            probe_floor: unary(U::Floor, T::F32).unwrap(), a;
            probe_fract: unary(U::Fract, T::F32).unwrap(), a;
            probe_pow: binary(B::Pow, T::F32).unwrap(), p, a;
            probe_atan2: binary(B::Atan2, T::F32).unwrap(), a, p;
        );
    }
}
