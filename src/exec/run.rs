//! The batch executor: SoA register files, lane masks, the block scheduler and every
//! instruction's execution over all lanes of a batch.

use super::image::BatchOperands;
use super::kernels::{raw_mask, raw_sext, Lane1, Lane2, Lane3, K4, W1, W2, W3};
use super::mask::{self, Waiting};
use super::memory::{Bindings, Buffer};
use super::observe::{ImageEvent, InstEvent, Observer, RegView};
use super::program::{CSpace, CTerm, Code, Program, CANCEL_POLL, DONE};
use super::rows::{self, blend};
use super::uniform::Uni32;
use crate::ir::{AtomicOp, BlockId, InterpAt, LaneInfo, ScalarTy};
use crate::stage::InterpPlanes;
use crate::{Error, Result};

/// Lanes per subgroup unless a program asks for another size (4 quads).
pub const SUBGROUP_SIZE: usize = 16;
/// The subgroup sizes a program may ask for ([`Program::set_subgroup_size`]): powers of two
/// from one quad to 64 lanes.
pub const SUBGROUP_SIZES: std::ops::RangeInclusive<usize> = 4..=64;

/// The state of one batch of lanes (a multiple of 4: quad k = lanes 4k..4k+3).
pub(crate) struct Batch {
    pub n: usize,
    /// Lanes per subgroup (the program's [`Program::subgroup_size`]).
    pub subgroup: usize,
    /// `r32[slot * n + lane]`.
    pub r32: Vec<u32>,
    pub r64: Vec<u64>,
    /// Per register slot: every lane of the row holds the same value (constants, zeroed rows,
    /// a uniform load run on every lane). Only ever set where that holds; every other write
    /// clears it (`exec_cold` clears its instruction's destinations before running it), so a
    /// set flag can be trusted and a clear one means "unknown". For 32-bit registers the
    /// value is in [`Uni32`] and the row may not hold it yet: see [`super::uniform`].
    pub(super) uni32: Vec<Uni32>,
    uni64: Vec<bool>,
    pub(super) pending32: Vec<u32>,
    s32: Vec<u32>,
    s64: Vec<u64>,
    /// Per-lane words, `local[word * n + lane]`.
    pub local: Vec<u32>,
    pub local_words: usize,
    pub workgroup: Vec<u32>,
    /// Per lane, before a run: DONE for a lane that does not run (every other lane starts at
    /// the entry block). A run reads it once, at its start, and then keeps its lanes as bit
    /// sets (`wait`, `act`).
    pub pc: Vec<u32>,
    /// The lanes waiting at each block during a run.
    wait: Waiting,
    /// The lanes running the current block, as bits (`active` holds them as mask words).
    act: Vec<u64>,
    /// Scratch bit sets of the batch's lanes (a branch's condition, the live lanes).
    bits: Vec<u64>,
    bits2: Vec<u64>,
    pub helper: Vec<bool>,
    pub demoted: Vec<bool>,
    pub killed: Vec<bool>,
    pub active: Vec<u32>,
    /// Results of an image instruction, `[lane][component]`.
    image_out: Vec<[u32; 4]>,
    executed: u64,
    /// Set by [`Batch::reset_frag`] when every quad has a lane that is not a helper (callers
    /// then change no lane's `pc` or `active` before `run`): `run` skips its first search for
    /// dead quads and starts every lane at the entry
    /// without scanning `pc`.
    pub quads_live: bool,
    /// Some lane's `demoted` or `killed` flag may be set (a Demote or Kill ran since the
    /// flags were last cleared): `reset` clears them only then.
    marked: bool,
    /// `active` is all ones (filled by `reset`, and no run has rebuilt it since): a batch that
    /// runs in uniform control flow leaves it so, and the next `reset` of the same length need
    /// not fill it again (a 256-byte `memset` per batch).
    active_ones: bool,
    /// A fragment batch in row form (`exec::run_fragment_rows`): `run` takes the program's
    /// `row_ops` for the block they belong to.
    pub row_form: bool,
    /// Every lane has finished (the last block returned on all of them, without filling
    /// `pc`); cleared by `reset`.
    finished: bool,
    /// A fragment batch's samples per pixel and `InterpolateAt` planes (swapped in from the
    /// rasterizer's batch for the run, like the rows).
    pub samples: u32,
    pub planes: InterpPlanes,
    /// A geometry run's emits and cuts in the order lanes made them, and each emitted
    /// vertex's output words ([`Program::emit_words`], consecutively); cleared by the caller.
    pub emits: Vec<EmitEvent>,
    pub emitted: Vec<u32>,
}

/// A geometry shader's `EmitVertex` (`vertex`) or `EndPrimitive` in one lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmitEvent {
    pub lane: u32,
    pub stream: u32,
    pub vertex: bool,
}

#[inline(always)]
fn sl<T>(v: &[T], slot: u32, n: usize) -> &[T] {
    &v[slot as usize * n..][..n]
}

/// Row `s` (!= d) of a register file split around row `d` into `lo` (rows < d) and `hi`.
#[inline(always)]
fn pick<'a, T>(lo: &'a [T], hi: &'a [T], s: u32, d: usize, n: usize) -> &'a [T] {
    let s = s as usize;
    if s < d {
        &lo[s * n..][..n]
    } else {
        &hi[(s - d - 1) * n..][..n]
    }
}

/// `v.fill(0)` in `memset` calls of at most 1 KiB: for longer runs (the vertex stage's 19
/// Local words of 64 lanes are 4.9 KiB) glibc's `memset` switches to `rep stosb`, which
/// callgrind, the measure of the raster frames, counts as one instruction per byte: it was
/// 4 900 of the 5 200 instructions of the vertex stage's `Batch::reset` per batch. Shorter
/// calls use vector stores.
#[inline]
pub(crate) fn zero(v: &mut [u32]) {
    for c in v.chunks_mut(256) {
        c.fill(0);
    }
}

/// The 4×4 transpose of a block of four lanes' four words (`[lane][word]` to `[word][lane]`
/// and back), the step between the rasterizer's and the texture unit's per-lane `[u32; 4]`
/// vectors and the interpreter's word rows.
///
/// Done as glam's `Mat4::transpose` on the raw bits: SSE2 loads, shuffles and stores (the
/// shuffles move bits without looking at them, so NaN payloads survive). LLVM's vectoriser
/// leaves the transpose as 16 scalar loads and stores however it is written with indexing
/// (a frame has thousands of batches of 16 blocks each way). The copies in and out are plain
/// loops: `array::map` there is left as an out-of-line call.
#[inline(always)]
pub(crate) fn transpose4(v: &[[u32; 4]; 4]) -> [[u32; 4]; 4] {
    let mut a = [0f32; 16];
    for (d, &s) in a.iter_mut().zip(v.as_flattened()) {
        *d = f32::from_bits(s);
    }
    let o = glam::Mat4::from_cols_array(&a).transpose().to_cols_array();
    let mut r = [[0u32; 4]; 4];
    for (d, &s) in r.as_flattened_mut().iter_mut().zip(&o) {
        *d = s.to_bits();
    }
    r
}

/// `d = (s & m) | (d & !m)` on four lanes.
#[inline(always)]
pub(crate) fn blend4(d: &mut [u32; 4], s: [u32; 4], m: [u32; 4]) {
    for k in 0..4 {
        d[k] = (s[k] & m[k]) | (d[k] & !m[k]);
    }
}

/// Per-lane vectors `src[lane] = [x, y, z, w]` into four word rows (`rows[k][lane]` = word
/// `k`), 4×4 blocks through [`transpose4`]; with `mask` only the lanes whose mask word is
/// `!0` are written (the mask words are 0 or `!0`).
///
/// One block index over slices cut to the same length (no bounds checks, one induction
/// variable), not five zipped block iterators and their bookkeeping per block.
#[inline(always)]
pub(crate) fn scatter_rows(rows: [&mut [u32]; 4], src: &[[u32; 4]], mask: Option<&[u32]>) {
    let [a, b, c, d] = rows;
    let (a, b) = (a.as_chunks_mut::<4>().0, b.as_chunks_mut::<4>().0);
    let (c, d) = (c.as_chunks_mut::<4>().0, d.as_chunks_mut::<4>().0);
    let s = src.as_chunks::<4>().0;
    let nb = s.len().min(a.len()).min(b.len()).min(c.len()).min(d.len());
    let (a, b, c, d, s) = (
        &mut a[..nb],
        &mut b[..nb],
        &mut c[..nb],
        &mut d[..nb],
        &s[..nb],
    );
    match mask {
        None => {
            #[cfg(target_arch = "x86_64")]
            let done = if crate::cpu::avx2() {
                // SAFETY: the CPU has AVX2 (`cpu::avx2()` is true only then)
                unsafe {
                    scatter_pairs_avx2([&mut *a, &mut *b, &mut *c, &mut *d], s.as_flattened())
                }
            } else {
                0
            };
            #[cfg(not(target_arch = "x86_64"))]
            let done = 0;
            for j in done.min(nb)..nb {
                let [t0, t1, t2, t3] = transpose4(&s[j]);
                (a[j], b[j], c[j], d[j]) = (t0, t1, t2, t3);
            }
        }
        Some(m) => {
            let m = &m.as_chunks::<4>().0[..nb];
            for j in 0..nb {
                let [t0, t1, t2, t3] = transpose4(&s[j]);
                blend4(&mut a[j], t0, m[j]);
                blend4(&mut b[j], t1, m[j]);
                blend4(&mut c[j], t2, m[j]);
                blend4(&mut d[j], t3, m[j]);
            }
        }
    }
}

/// [`scatter_rows`]' unmasked transpose for pairs of 4-lane blocks in AVX2: eight lanes'
/// vectors (four 32-byte loads) to four 8-word row pieces by 32- and 64-bit unpacks and one
/// lane permute per row (fewer instructions per pair than two SSE2 blocks; shuffles move the
/// bits untouched). Returns the blocks done (the pairs').
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn scatter_pairs_avx2(rows: [&mut [[u32; 4]]; 4], src: &[[u32; 4]]) -> usize {
    use std::arch::x86_64::*;
    use wide::bytemuck::cast;
    let [a, b, c, d] = rows;
    let (a, b) = (a.as_chunks_mut::<2>().0, b.as_chunks_mut::<2>().0);
    let (c, d) = (c.as_chunks_mut::<2>().0, d.as_chunks_mut::<2>().0);
    let s = src.as_chunks::<8>().0;
    // the words of lanes 0 2 4 6 | 1 3 5 7 back in lane order
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let mut pairs = 0;
    let walk = s.iter().zip(a.iter_mut()).zip(b.iter_mut());
    for ((((s, a), b), c), d) in walk.zip(c.iter_mut()).zip(d.iter_mut()) {
        // lanes (0, 1), (2, 3), (4, 5), (6, 7), four words each
        let [y0, y1, y2, y3] = cast::<[[u32; 4]; 8], [__m256i; 4]>(*s);
        // words 0 1 of lanes 0 2 0 2 | 1 3 1 3, words 2 3 of the same; then lanes 4..8
        let (t0, t1) = (_mm256_unpacklo_epi32(y0, y1), _mm256_unpackhi_epi32(y0, y1));
        let (t2, t3) = (_mm256_unpacklo_epi32(y2, y3), _mm256_unpackhi_epi32(y2, y3));
        let row =
            |lo: __m256i| cast::<__m256i, [[u32; 4]; 2]>(_mm256_permutevar8x32_epi32(lo, order));
        *a = row(_mm256_unpacklo_epi64(t0, t2));
        *b = row(_mm256_unpackhi_epi64(t0, t2));
        *c = row(_mm256_unpacklo_epi64(t1, t3));
        *d = row(_mm256_unpackhi_epi64(t1, t3));
        pairs += 1;
    }
    2 * pairs
}

/// The new value of an atomic (None: no write), on raw bits of width `bits` (`a` the
/// operand, `b` the comparator of a compare-exchange). Buffer, workgroup and image atomics
/// all compute here.
pub fn atomic_new(op: AtomicOp, bits: u32, old: u64, a: u64, b: u64) -> Option<u64> {
    let m = raw_mask(bits);
    let (sa, so) = (raw_sext(bits, a & m), raw_sext(bits, old & m));
    let v = match op {
        AtomicOp::Exchange | AtomicOp::Store => a,
        AtomicOp::CompareExchange => {
            if old & m == b & m {
                a
            } else {
                return None;
            }
        }
        AtomicOp::IAdd => old.wrapping_add(a),
        AtomicOp::ISub => old.wrapping_sub(a),
        AtomicOp::SMin => so.min(sa) as u64,
        AtomicOp::SMax => so.max(sa) as u64,
        AtomicOp::UMin => (old & m).min(a & m),
        AtomicOp::UMax => (old & m).max(a & m),
        AtomicOp::And => old & a,
        AtomicOp::Or => old | a,
        AtomicOp::Xor => old ^ a,
        AtomicOp::IIncrement => old.wrapping_add(1),
        AtomicOp::IDecrement => old.wrapping_sub(1),
        AtomicOp::Load => return None,
    };
    Some(v & m)
}

/// Bytes of a buffer access of type `ty` (Bool is a 32-bit word).
fn access_bytes(ty: ScalarTy) -> u32 {
    ty.bits() / 8
}

/// Read a 1- or 2-word value at word `w` of a word array with `words` words per lane where
/// word `i` of lane `l` is at `mem[i * stride + l]` (stride 1 and lane 0 for workgroup memory).
#[inline]
fn read_words(mem: &[u32], words: usize, stride: usize, l: usize, w: u32, wide: bool) -> u64 {
    let w = w as usize;
    if wide {
        if w.checked_add(1).is_some_and(|e| e < words) {
            mem[w * stride + l] as u64 | (mem[(w + 1) * stride + l] as u64) << 32
        } else {
            0
        }
    } else if w < words {
        mem[w * stride + l] as u64
    } else {
        0
    }
}
/// `dst[l] = v` in every lane whose `active` mask word is `!0` (every lane for `None`); the
/// others keep their values.
fn broadcast<T: rows::Word>(dst: &mut [T], active: Option<&[u32]>, v: T) {
    match active {
        None => rows::fill(dst, v),
        Some(active) => rows::fill_masked(dst, v, active),
    }
}
#[inline]
fn write_words(mem: &mut [u32], words: usize, stride: usize, l: usize, w: u32, wide: bool, v: u64) {
    let w = w as usize;
    if wide {
        if w.checked_add(1).is_some_and(|e| e < words) {
            mem[w * stride + l] = v as u32;
            mem[(w + 1) * stride + l] = (v >> 32) as u32;
        }
    } else if w < words {
        mem[w * stride + l] = v as u32;
    }
}

/// Run 32-bit lane kernel `$k` into destination register `$dst`'s row directly, masked
/// unless `$full`: the register file split around that row, each operand register `$s`
/// passed as `o` when it is the destination and `$own` is `Some(o)` (`None`: no operand is
/// the destination), as its one value when `$lane` (the kernel reads only its own lane) and
/// it is uniform, else as its row. The destination's uniform flag is cleared first
/// (`write32`). Written once for `Batch::lane_kernel32` and the in-place run of `aliased!`.
macro_rules! into_dst {
    ($self:ident, $k:expr, $dst:expr, $full:expr, $own:expr, $lane:expr, [$($s:ident),*]) => {{
        let (n, d) = ($self.n, $dst as usize);
        $self.write32($dst, $full);
        let (lo, rest) = $self.r32.split_at_mut(d * n);
        let (out, hi) = rest.split_at_mut(n);
        let (lo, hi): (&[u32], &[u32]) = (lo, hi);
        let mk = if $full { None } else { Some(&$self.active[..n]) };
        ($k.rows)(
            $(match $own {
                Some(o) if $s == $dst => o,
                _ if $lane && $self.uni32[$s as usize].uni => {
                    std::slice::from_ref(&$self.uni32[$s as usize].val)
                }
                _ => pick(lo, hi, $s, d, n),
            },)*
            out,
            mk,
        );
    }};
}

/// `Batch::lane_kernel32` for a kernel one of whose operands `$s` is its destination, out
/// of line (a method per arity; `$in_place`: the kernel's row loop takes an operand as the
/// destination row, `kernels::F1`). A kernel that reads only its own lane, with one operand
/// that is the destination, reads that operand in place (an empty slice: `c = c + x` writes
/// `c`'s row once), or as its one value when the destination is uniform; any other kernel
/// (cross-lane, one operand, two operands that are the destination) computes every lane
/// into the scratch row, blended into the destination after.
macro_rules! aliased {
    ($name:ident, $L:ty, $in_place:expr, [$($s:ident),*]) => {
        #[inline(never)]
        fn $name(&mut self, k: $L, dst: u32, $($s: u32,)* full: bool) {
            let n = self.n;
            let d = dst as usize;
            let lane = k.one.is_some();
            if !($in_place && lane) || (0 $(+ ($s == dst) as u32)*) > 1 {
                if !lane {
                    $(self.realize32($s);)*
                }
                let r32 = &self.r32;
                (k.rows)(
                    $(if lane && self.uni32[$s as usize].uni {
                        std::slice::from_ref(&self.uni32[$s as usize].val)
                    } else {
                        &r32[$s as usize * n..][..n]
                    },)*
                    &mut self.s32[..n],
                    None,
                );
                self.write32(dst, full);
                blend(&mut self.r32[d * n..][..n], &self.s32[..n], &self.active, full);
                return;
            }
            // the destination operand: its value when uniform (read before `write32` clears
            // the flag), else its row, read in place
            let own_val = [self.uni32[d].val];
            let own: &[u32] = if self.uni32[d].uni { &own_val } else { &[] };
            into_dst!(self, k, dst, full, Some(own), true, [$($s),*]);
        }
    };
}

impl Batch {
    pub fn new() -> Self {
        Batch {
            n: 0,
            subgroup: SUBGROUP_SIZE,
            r32: Vec::new(),
            r64: Vec::new(),
            uni32: Vec::new(),
            uni64: Vec::new(),
            pending32: Vec::new(),
            s32: Vec::new(),
            s64: Vec::new(),
            local: Vec::new(),
            local_words: 0,
            workgroup: Vec::new(),
            pc: Vec::new(),
            wait: Waiting::default(),
            act: Vec::new(),
            bits: Vec::new(),
            bits2: Vec::new(),
            helper: Vec::new(),
            demoted: Vec::new(),
            killed: Vec::new(),
            active: Vec::new(),
            image_out: Vec::new(),
            executed: 0,
            quads_live: false,
            marked: false,
            active_ones: false,
            row_form: false,
            finished: false,
            samples: 1,
            planes: InterpPlanes::default(),
            emits: Vec::new(),
            emitted: Vec::new(),
        }
    }

    /// `InterpolateAt` over the active lanes: the planes the rasterizer gave the batch, at the
    /// centroid, a sample's location or an offset from the pixel centre; without planes (a
    /// batch from elsewhere), the input's own value.
    fn interpolate_at(&mut self, at: InterpAt, dst: u32, addr: u32) {
        let n = self.n;
        for l in 0..n {
            if !self.is_active(l) {
                continue;
            }
            let reg = |r: u32| self.r32[r as usize * n + l];
            let (ox, oy) = match at {
                InterpAt::Centroid => self
                    .planes
                    .centroid
                    .get(l)
                    .map_or((0.0, 0.0), |c| (c[0], c[1])),
                InterpAt::Sample(i) => {
                    let [x, y] = crate::stage::sample_locations::location(self.samples, reg(i));
                    (x - 0.5, y - 0.5)
                }
                InterpAt::Offset(x, y) => (f32::from_bits(reg(x)), f32::from_bits(reg(y))),
            };
            let row = reg(addr);
            let v = self
                .planes
                .at(row, l, ox as f64, oy as f64)
                .unwrap_or_else(|| {
                    let w = row as usize;
                    if w < self.local_words {
                        self.local[w * n + l]
                    } else {
                        0
                    }
                });
            self.r32[dst as usize * n + l] = v;
        }
    }

    /// Prepare for a run of `n` lanes (rounded up to whole quads): the constants instructions
    /// read from their rows set (`Program::row_consts32`), the registers [`Program`] lists as
    /// possibly read before written zeroed, memory zero, every lane waiting at the entry
    /// block. Other register rows keep whatever the previous run left: no lane reads them
    /// before writing them (see `program::read_before_write`), so results are those of an
    /// all-zero start, without zeroing every row of every batch.
    pub fn reset(&mut self, prog: &Program, n: usize) {
        self.reset_lanes(prog, n, None);
    }

    /// [`Batch::reset`] for a fragment batch in row form, whose caller then brings the per-lane
    /// memory (`local`, left alone here: `exec::run_fragment_rows` swaps its rows in and zeroes
    /// `Program::zero_rows`) and writes every lane's `helper` flag (left as they are). With
    /// `live` (every quad has a covered lane) it sets `quads_live` and leaves `pc` unwritten:
    /// all lanes run the first block, whose terminator writes every lane's `pc`. Skipping
    /// those fills, and the `demoted`/`killed` clears when no Demote or Kill ran, saves their
    /// `memset` calls per batch.
    pub fn reset_frag(&mut self, prog: &Program, n: usize, live: bool) {
        self.reset_lanes(prog, n, Some(live));
    }

    /// `frag`: None for [`Batch::reset`], `Some(live)` for [`Batch::reset_frag`].
    fn reset_lanes(&mut self, prog: &Program, n: usize, frag: Option<bool>) {
        let n = n.div_ceil(4) * 4;
        self.n = n;
        self.subgroup = prog.subgroup_size;
        let fill32 = |v: &mut Vec<u32>, len: usize| {
            v.clear();
            v.resize(len, 0);
        };
        // `resize` zeroes only what it adds; the rows that matter are set below.
        self.r32.resize(prog.n32 * n, 0);
        self.r64.resize(prog.n64 * n, 0);
        self.s32.resize(n, 0);
        self.s64.resize(n, 0);
        self.clear_uniform32(prog.n32);
        self.uni64.clear();
        self.uni64.resize(prog.n64, false);
        // zeroed rows and constants in the scalar form: a row is filled only if something
        // reads it as a row
        for &s in &prog.zero32 {
            self.set_uniform32(s, 0);
        }
        for &s in &prog.zero64 {
            self.r64[s as usize * n..][..n].fill(0);
            self.uni64[s as usize] = true;
        }
        // Only the constants an instruction reads from a row: an observer or a `BatchState`
        // that shows registers fills the rest (`fill_consts`).
        for &(s, v) in &prog.row_consts32 {
            self.set_uniform32(s, v);
        }
        for &(s, v) in &prog.row_consts64 {
            rows::fill(&mut self.r64[s as usize * n..][..n], v);
            self.uni64[s as usize] = true;
        }
        self.local_words = prog.shader.local_words as usize;
        match &prog.zero_local {
            // a fragment batch brings its own
            _ if frag.is_some() => {}
            None => fill32(&mut self.local, self.local_words * n),
            Some(runs) => {
                // words no instruction touches keep stale values nobody reads
                self.local.resize(self.local_words * n, 0);
                for &(w, count) in runs {
                    zero(&mut self.local[w as usize * n..][..count as usize * n]);
                }
            }
        }
        fill32(&mut self.workgroup, prog.shader.workgroup_words as usize);
        let live = frag == Some(true) && n > 0;
        self.finished = false;
        if live && self.pc.len() == n {
            // every lane runs the first block; its terminator sets every `pc`
        } else {
            fill32(&mut self.pc, n);
        }
        // all ones: what `run` needs when `quads_live` is set (other runs rebuild it)
        if !self.active_ones || self.active.len() != n {
            self.active.clear();
            self.active.resize(n, !0);
            self.active_ones = true;
        }
        if frag.is_none() || self.helper.len() != n {
            self.helper.clear();
            self.helper.resize(n, false);
        }
        if self.marked || self.demoted.len() != n || self.killed.len() != n {
            for v in [&mut self.demoted, &mut self.killed] {
                v.clear();
                v.resize(n, false);
            }
            self.marked = false;
        }
        self.executed = 0;
        self.quads_live = live;
    }

    /// Fill every register and scratch row with a pattern no correct run produces (tests of
    /// batch reuse).
    #[cfg(test)]
    pub(crate) fn poison_registers(&mut self) {
        self.r32.fill(0xA5A5_A5A5);
        self.r64.fill(0x5A5A_5A5A_5A5A_5A5A);
        self.clear_uniform32(self.uni32.len());
        self.uni64.fill(false);
        self.s32.fill(0xDEAD_BEEF);
        self.s64.fill(!0);
    }

    /// Zero every non-constant register row (an observer that sees all registers gets the
    /// same values whatever ran before on this batch).
    fn zero_all_registers(&mut self, prog: &Program) {
        self.r32.fill(0);
        self.r64.fill(0);
        for u in &mut self.uni32 {
            (u.uni, u.lazy, u.val) = (true, false, 0);
        }
        self.uni64.fill(true);
        self.fill_consts(prog);
    }

    /// Every constant's row, including those [`Batch::reset`] leaves alone because no
    /// instruction reads them from a row (for code that shows all registers).
    pub(crate) fn fill_consts(&mut self, prog: &Program) {
        let n = self.n;
        for &(s, v) in &prog.consts32 {
            self.r32[s as usize * n..][..n].fill(v);
            if let Some(u) = self.uni32.get_mut(s as usize) {
                (u.uni, u.lazy, u.val) = (true, false, v);
            }
        }
        for &(s, v) in &prog.consts64 {
            self.r64[s as usize * n..][..n].fill(v);
            if let Some(u) = self.uni64.get_mut(s as usize) {
                *u = true;
            }
        }
    }

    /// Register `d` (if it is a 64-bit slot) is no longer known uniform.
    #[inline(always)]
    fn forget64(&mut self, d: usize) {
        if let Some(u) = self.uni64.get_mut(d) {
            *u = false;
        }
    }

    /// Register `slot`'s value in lane `l` (a 32-bit one in the scalar form too).
    #[inline]
    pub(crate) fn get(&self, wide: bool, slot: u32, l: usize) -> u64 {
        if wide {
            self.r64[slot as usize * self.n + l]
        } else if let Some(u) = self.uni32.get(slot as usize).filter(|u| u.lazy) {
            u.val as u64
        } else {
            self.r32[slot as usize * self.n + l] as u64
        }
    }
    #[inline]
    pub(crate) fn set(&mut self, wide: bool, slot: u32, l: usize, v: u64) {
        if wide {
            self.r64[slot as usize * self.n + l] = v;
        } else {
            self.r32[slot as usize * self.n + l] = v as u32;
        }
    }
    #[inline]
    pub(crate) fn is_active(&self, l: usize) -> bool {
        self.active[l] != 0
    }
    #[inline]
    fn stores(&self, l: usize) -> bool {
        self.active[l] != 0 && !self.helper[l]
    }

    /// Stop every quad in which no lane is both still running and not a helper: its lanes
    /// leave every block's waiting set.
    fn skip_dead_quads(&mut self) {
        self.wait.any(&mut self.bits);
        // per word: the lanes still running that are not helpers, then whole quads of them
        for (w, (keep, &alive)) in self.bits2.iter_mut().zip(&self.bits).enumerate() {
            let helpers = self.helper[w * 64..]
                .iter()
                .take(64)
                .enumerate()
                .fold(0u64, |m, (k, &h)| m | (h as u64) << k);
            let live = alive & !helpers;
            let quads = (live | live >> 1 | live >> 2 | live >> 3) & 0x1111_1111_1111_1111;
            *keep = quads * 0xf;
        }
        self.wait.retain(&self.bits2);
    }

    /// Run until every lane has finished.
    pub fn run<O: Observer>(&mut self, prog: &Program, bind: &Bindings, obs: &mut O) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        if obs.wants_insts() {
            self.zero_all_registers(prog);
        }
        // With `quads_live` every lane waits at the entry and `active` is all ones (`reset`):
        // the first block is the entry on all lanes, without the scan of `pc` and the rebuild
        // of `active` (costly per batch: SSE2 has no unsigned 32-bit min).
        let live = std::mem::take(&mut self.quads_live) && self.n > 0;
        let n = self.n;
        self.wait.start(prog.blocks.len(), n);
        self.act.clear();
        self.act.resize(mask::words(n), 0);
        // scratch sets of the same length (a branch's halves, the live lanes)
        self.bits.resize(self.act.len(), 0);
        self.bits2.resize(self.act.len(), 0);
        if !live {
            // every lane not marked DONE waits at the entry
            for (l, &p) in self.pc.iter().enumerate().take(n) {
                if p != DONE {
                    self.wait.add_lane(0, l);
                }
            }
            self.skip_dead_quads();
        } else {
            mask::all(n, &mut self.act);
        }
        // Lanes at the entry run `prog.start` first (the blocks before it have no instructions
        // and only jump forward), unless an observer wants to see those blocks or the budget
        // would stop the run inside them.
        let thread = prog.start != 0 && !obs.wants_blocks() && prog.start_cost <= prog.budget;
        // An observed run sees every block: jumps go to their IR targets (`CBlock::plain_jump`).
        let plain = obs.wants_blocks() || obs.wants_insts();
        // Set when the last block ran on every lane and sent them all to one block: then that
        // block is the lowest waiting one and every lane is active again (`active` is still all
        // ones), so the scan of the lanes is skipped (uniform control flow, e.g. loop bodies).
        let mut next: Option<u32> = live.then_some(0);
        // `active` holds the mask words of the lanes of `act` (`reset` filled it with ones)
        let mut expanded = live;
        // the budget and the cancel token are looked at when `executed` passes this
        let mut poll_at = self.executed.saturating_add(CANCEL_POLL).min(prog.budget);
        loop {
            let (cur, full) = match next.take() {
                Some(t) => (t, true),
                None => {
                    // the lowest block some lane waits at, with all the lanes waiting there
                    let Some(popped) = self.wait.pop(&mut self.act) else {
                        self.wait.finish();
                        return Ok(());
                    };
                    let (cur, full) = (popped.block, popped.all);
                    // the mask words of the lanes the last block ran are still right
                    if !expanded || !popped.same {
                        // every lane again (after a divergent branch): a fill, not the expansion
                        if full {
                            rows::fill(&mut self.active[..n], !0);
                        } else {
                            mask::expand(&self.act, &mut self.active[..n]);
                        }
                        self.active_ones = full && self.active.len() == n;
                        expanded = true;
                    }
                    (cur, full)
                }
            };
            // Only the active lanes' `pc`s are read after a block (its terminator sets them),
            // so the lanes waiting at the entry need not be moved to `start`.
            let cur = if cur == 0 && thread {
                self.executed += prog.start_cost;
                prog.start
            } else {
                cur
            };
            let blk = &prog.blocks[cur as usize];
            self.executed += if plain {
                blk.code.len() as u64 + 1
            } else {
                blk.cost
            };
            if self.executed > poll_at {
                if self.executed > prog.budget {
                    return Err(Error::Exec(format!(
                        "{}: instruction budget of {} instructions per batch exceeded; raise \
                         it (`--budget N` on the command line, `Program::set_budget` in the \
                         library) if the shader is not looping forever",
                        prog.place(blk.id, None),
                        prog.budget
                    )));
                }
                prog.cancel.check()?;
                poll_at = self.executed.saturating_add(CANCEL_POLL).min(prog.budget);
            }
            obs.block(blk.id, &self.active);
            if !obs.wants_insts() {
                let n = self.n;
                let ops = match &prog.row_ops {
                    Some((b, ops)) if self.row_form && *b == cur => ops,
                    _ => &blk.ops,
                };
                for &(i, ref code) in ops {
                    if self.lane_kernel32(code, full) {
                        continue;
                    }
                    // 32-bit constant-address Local copies (interface reads and writes) here,
                    // not through `exec`, whose prologue cost as much as the copy itself.
                    match *code {
                        Code::LoadLocal {
                            wide: false,
                            dst,
                            word,
                        } => {
                            self.write32(dst, full);
                            blend(
                                &mut self.r32[dst as usize * n..][..n],
                                &self.local[word as usize * n..][..n],
                                &self.active,
                                full,
                            )
                        }
                        Code::StoreLocal {
                            wide: false,
                            word,
                            src,
                        } => {
                            let u = self.uni32[src as usize];
                            if full && u.uni {
                                let row = &mut self.local[word as usize * n..][..n];
                                rows::fill(row, u.val);
                            } else {
                                self.realize32(src);
                                blend(
                                    &mut self.local[word as usize * n..][..n],
                                    &self.r32[src as usize * n..][..n],
                                    &self.active,
                                    full,
                                )
                            }
                        }
                        // loads too, without the prologues and matches of `exec` and `exec_cold` (a
                        // push constant read once per batch is mostly that)
                        Code::Load {
                            ty,
                            dst,
                            space,
                            addr,
                        } => self
                            .load(ty, access_bytes(ty), dst, space, addr, full, bind)
                            .map_err(|e| prog.locate(e, blk.id, Some(i as usize)))?,
                        Code::LoadWord {
                            ty,
                            dst,
                            slot,
                            addr,
                        } => self
                            .load(
                                ty,
                                4,
                                dst,
                                CSpace::Buffer { slot, index: None },
                                addr,
                                full,
                                bind,
                            )
                            .map_err(|e| prog.locate(e, blk.id, Some(i as usize)))?,
                        _ => self
                            .exec(prog, code, full, bind, obs, blk.id, i as usize)
                            .map_err(|e| prog.locate(e, blk.id, Some(i as usize)))?,
                    }
                }
            } else {
                for (i, code) in blk.code.iter().enumerate() {
                    self.exec(prog, code, full, bind, obs, blk.id, i)
                        .map_err(|e| prog.locate(e, blk.id, Some(i)))?;
                    // the observer reads rows
                    self.realize_all32();
                    let inst = &prog.shader.body.blocks[blk.id as usize].insts[i];
                    obs.inst(&InstEvent {
                        block: blk.id,
                        index: i,
                        inst,
                        active: &self.active,
                        helper: &self.helper,
                        demoted: &self.demoted,
                        killed: &self.killed,
                        regs: RegView {
                            slots: &prog.slots,
                            r32: &self.r32,
                            r64: &self.r64,
                            n: self.n,
                        },
                    });
                }
            }
            let jump;
            let term = match blk.term {
                CTerm::Jump(_) if plain => {
                    jump = CTerm::Jump(blk.plain_jump);
                    &jump
                }
                _ => &blk.term,
            };
            let uniform = self
                .terminate(term, full, full && !blk.ends_lanes)
                .map_err(|e| prog.locate(e, blk.id, None))?;
            if full && matches!(blk.term, CTerm::Return | CTerm::Kill(_)) {
                // every lane was here and has finished (or, killed, is a helper in a quad
                // without live lanes): no lane waits anywhere
                self.wait.finish();
                return Ok(());
            }
            // Only finishing, killed or demoted lanes can leave a quad without live lanes.
            if blk.ends_lanes {
                self.skip_dead_quads();
            } else {
                next = uniform;
            }
        }
    }

    /// Send the active lanes to their successors' waiting sets. With `full` (every lane
    /// active), returns the one block they all go to, if they do.
    ///
    /// `lazy` (`full`, and the block ends no lane): when every lane goes to one block, no set
    /// is written. Sound because `run` then runs that block at once with every lane active,
    /// which is what the sets would have said (no other lane waits anywhere). Saves the set
    /// writes of a uniform branch or jump (loop bodies).
    #[inline(always)]
    fn terminate(&mut self, term: &CTerm, full: bool, lazy: bool) -> Result<Option<u32>> {
        // the commonest ends of a block in uniform control flow (loop bodies) inline: a jump,
        // or a branch on a uniform condition, with every lane going on together
        if lazy {
            match *term {
                CTerm::Jump(t) => return Ok(Some(t)),
                CTerm::Branch { cond, t, f } => {
                    if let Some(u) = self.uni32.get(cond as usize).filter(|u| u.uni) {
                        return Ok(Some(if u.val != 0 { t } else { f }));
                    }
                }
                _ => {}
            }
        }
        self.terminate_lanes(term, full, lazy)
    }

    /// [`Batch::terminate`] in general.
    #[inline(never)]
    fn terminate_lanes(&mut self, term: &CTerm, full: bool, lazy: bool) -> Result<Option<u32>> {
        let n = self.n;
        match term {
            &CTerm::Jump(t) => {
                if !lazy {
                    self.wait.add(t, &self.act);
                }
                return Ok(full.then_some(t));
            }
            &CTerm::Branch { cond, t, f } if full && self.uni32[cond as usize].uni => {
                // every lane active, one condition for all
                let one = if self.uni32[cond as usize].val != 0 {
                    t
                } else {
                    f
                };
                if !lazy {
                    self.wait.add(one, &self.act);
                }
                return Ok(Some(one));
            }
            &CTerm::Branch { cond, t, f } => {
                self.realize32(cond);
                let c = &self.r32[cond as usize * n..][..n];
                mask::row_bits(c, &mut self.bits);
                // bits: the active lanes going to `t`; bits2: those going to `f`
                let (bits, bits2, act) = (&mut self.bits, &mut self.bits2, &self.act);
                let (any_t, any_f) = mask::by_words(act.len(), |words| {
                    let (mut any_t, mut any_f) = (0, 0);
                    let halves = bits.iter_mut().zip(bits2.iter_mut());
                    for ((tb, fb), &a) in halves.zip(&act[..words]) {
                        (*tb, *fb) = (*tb & a, !*tb & a);
                        any_t |= *tb;
                        any_f |= *fb;
                    }
                    (any_t, any_f)
                });
                let one = match (any_t != 0, any_f != 0) {
                    (true, false) => Some(t),
                    (false, true) => Some(f),
                    _ => None,
                };
                if lazy && one.is_some() {
                    return Ok(one);
                }
                self.wait.add(t, &self.bits);
                self.wait.add(f, &self.bits2);
                return Ok(if full { one } else { None });
            }
            CTerm::Switch {
                wide,
                mask,
                sel,
                cases,
                default,
            } => {
                if !*wide {
                    self.realize32(*sel);
                }
                for l in 0..n {
                    if self.act[l / 64] >> (l % 64) & 1 == 0 {
                        continue;
                    }
                    let v = if *wide {
                        self.r64[*sel as usize * n + l]
                    } else {
                        self.r32[*sel as usize * n + l] as u64
                    } & mask;
                    let b = cases.iter().find(|c| c.0 == v).map_or(*default, |c| c.1);
                    self.wait.add_lane(b, l);
                }
            }
            // every lane finishes: `run` returns at once
            CTerm::Return if full => self.finished = true,
            // the lanes wait nowhere again
            CTerm::Return => {}
            &CTerm::Kill(resume) => {
                // `resume` is DONE (the lane stops) or where it goes on as a helper
                self.marked = true;
                let lanes = self.killed.iter_mut().zip(self.helper.iter_mut());
                for ((k, h), &a) in lanes.zip(&self.active) {
                    if a != 0 {
                        *k = true;
                        *h |= resume != DONE;
                    }
                }
                // with `full`, `run` returns at once: every quad is left without a live lane
                if resume != DONE && !full {
                    self.wait.add(resume, &self.act);
                }
            }
            CTerm::Unreachable => {
                let l = mask::first(&self.act).unwrap_or(0);
                return Err(Error::Exec(format!("lane {l} reached OpUnreachable")));
            }
        }
        Ok(None)
    }

    #[allow(clippy::too_many_arguments)]
    fn exec<O: Observer>(
        &mut self,
        prog: &Program,
        code: &Code,
        full: bool,
        bind: &Bindings,
        obs: &mut O,
        block: BlockId,
        index: usize,
    ) -> Result<()> {
        let n = self.n;
        // Every macro below first clears the destination's uniform flag (`$uni`, the flags
        // of the destination's file); `nn` may set it again.
        // Operands of `k!` and `k_cross!` are `file register` pairs (`r64 a`: register `a`'s
        // row of `r64`).
        // Scratch path (an operand aliases the destination): the kernel writes a scratch row,
        // blended into the destination under the mask.
        macro_rules! k {
            (
                $uni:ident, $f:expr, $out:ident, $file:ident, $dst:expr,
                [$($sf:ident $src:expr),*]
            ) => {{
                self.$uni(*$dst as usize);
                $f($(sl(&self.$sf, *$src, n),)* &mut self.$out[..n], None);
                blend(&mut self.$file[*$dst as usize * n..][..n], &self.$out[..n], &self.active, full);
            }};
        }
        // Sources and destination in the same file: unless an operand is the destination, the
        // kernel writes the destination row directly, masked unless every lane is active.
        macro_rules! k_same {
            ($uni:ident, $f:expr, $out:ident, $file:ident, $dst:expr, [$($src:expr),*]) => {{
                let d = *$dst as usize;
                if true $(&& *$src as usize != d)* {
                    self.$uni(d);
                    let (lo, rest) = self.$file.split_at_mut(d * n);
                    let (out, hi) = rest.split_at_mut(n);
                    let (lo, hi): (&[_], &[_]) = (lo, hi);
                    let mk = if full { None } else { Some(&self.active[..]) };
                    $f($(pick(lo, hi, *$src, d, n),)* out, mk);
                } else {
                    k!($uni, $f, $out, $file, $dst, [$($file $src),*])
                }
            }};
        }
        // Sources all in the other file: no aliasing possible.
        macro_rules! k_cross {
            ($uni:ident, $f:expr, $file:ident, $dst:expr, [$($sf:ident $src:expr),*]) => {{
                self.$uni(*$dst as usize);
                let mk = if full { None } else { Some(&self.active[..]) };
                $f($(sl(&self.$sf, *$src, n),)* &mut self.$file[*$dst as usize * n..][..n], mk);
            }};
        }
        if self.lane_kernel32(code, full) {
            return Ok(());
        }
        if let Code::Image { index: ii } | Code::ImageLocal { index: ii, .. } = *code {
            // an image instruction reads its operand rows and no other: constants and uniform
            // values that only lane kernels read stay scalar
            for &s in &prog.images[ii as usize].reads32 {
                self.realize32(s);
            }
            return self.exec_cold(prog, code, full, bind, obs, block, index);
        }
        // every other instruction reads and writes rows as rows
        self.realize_all32();
        match code {
            Code::K1 { k, dst, a } => match k {
                W1::WW(f) => k_same!(forget64, f, s64, r64, dst, [a]),
                W1::WN(f) => k_cross!(forget32, f, r32, dst, [r64 a]),
                W1::NW(f) => k_cross!(forget64, f, r64, dst, [r32 a]),
            },
            Code::K2 { k, dst, a, b } => match k {
                W2::WWW(f) => k_same!(forget64, f, s64, r64, dst, [a, b]),
                W2::WWN(f) => k_cross!(forget32, f, r32, dst, [r64 a, r64 b]),
                W2::NNW(f) => k_cross!(forget64, f, r64, dst, [r32 a, r32 b]),
                W2::WNW(f) => k!(forget64, f, s64, r64, dst, [r64 a, r32 b]),
            },
            Code::K3 { k, dst, a, b, c } => match k {
                W3::WWWW(f) => k_same!(forget64, f, s64, r64, dst, [a, b, c]),
                W3::NWWW(f) => k!(forget64, f, s64, r64, dst, [r32 a, r64 b, r64 c]),
                W3::WNNW(f) => k!(forget64, f, s64, r64, dst, [r64 a, r32 b, r32 c]),
            },
            Code::K4 { k, dst, a, b, c, d } => match k {
                K4::NNNNN(f) => k!(forget32, f, s32, r32, dst, [r32 a, r32 b, r32 c, r32 d]),
                K4::WWNNW(f) => k!(forget64, f, s64, r64, dst, [r64 a, r64 b, r32 c, r32 d]),
            },
            &Code::LoadLocal { wide, dst, word } => {
                let (w, d) = (word as usize, dst as usize);
                if wide {
                    self.uni64[d] = false;
                    let (lo, hi) = self.local[w * n..].split_at(n);
                    for (((d, &lo), &hi), &m) in self.r64[d * n..][..n]
                        .iter_mut()
                        .zip(lo)
                        .zip(&hi[..n])
                        .zip(&self.active)
                    {
                        let m = m as i32 as i64 as u64;
                        *d = ((lo as u64 | (hi as u64) << 32) & m) | (*d & !m);
                    }
                } else {
                    self.forget32(d);
                    let src = &self.local[w * n..][..n];
                    blend(&mut self.r32[d * n..][..n], src, &self.active, full);
                }
            }
            &Code::StoreLocal { wide, word, src } => {
                let (w, s) = (word as usize, src as usize);
                if wide {
                    let (lo, hi) = self.local[w * n..].split_at_mut(n);
                    for (((lo, hi), &v), &m) in lo
                        .iter_mut()
                        .zip(&mut hi[..n])
                        .zip(&self.r64[s * n..][..n])
                        .zip(&self.active)
                    {
                        *lo = (v as u32 & m) | (*lo & !m);
                        *hi = ((v >> 32) as u32 & m) | (*hi & !m);
                    }
                } else {
                    let v = &self.r32[s * n..][..n];
                    blend(&mut self.local[w * n..][..n], v, &self.active, full);
                }
            }
            // `Source` markers and barriers: common in loops, so not worth a call.
            Code::Nop => {}
            _ => self.exec_cold(prog, code, full, bind, obs, block, index)?,
        }
        Ok(())
    }

    /// Everything but the lane kernels and constant-address Local copies, kept out of line so
    /// that the hot `exec` stays small (its prologue was a large part of the per-instruction
    /// dispatch cost).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn exec_cold<O: Observer>(
        &mut self,
        prog: &Program,
        code: &Code,
        full: bool,
        bind: &Bindings,
        obs: &mut O,
        block: BlockId,
        index: usize,
    ) -> Result<()> {
        let n = self.n;
        self.clear_uniform(code);
        if let Some(images) = match code {
            Code::Image { index } | Code::ImageLocal { index, .. } => {
                prog.images.get(*index as usize)
            }
            _ => None,
        } {
            // written on the active lanes (every lane with `full`)
            for &r in &images.inst.dst {
                if let Some(&(false, s)) = prog.slots.get(r as usize) {
                    self.write32(s, full);
                }
            }
        }
        match code {
            Code::Load {
                ty,
                dst,
                space,
                addr,
            } => self.load(*ty, access_bytes(*ty), *dst, *space, *addr, full, bind)?,
            // the `Load` it is
            &Code::LoadWord {
                ty,
                dst,
                slot,
                addr,
            } => {
                let space = CSpace::Buffer { slot, index: None };
                self.load(ty, access_bytes(ty), dst, space, addr, full, bind)?
            }
            Code::Store {
                ty,
                space,
                addr,
                src,
            } => self.store(*ty, *space, *addr, *src, bind)?,
            Code::Atomic {
                op,
                ty,
                dst,
                space,
                addr,
                a,
                b,
            } => self.atomic(*op, *ty, *dst, *space, *addr, *a, *b, bind)?,
            Code::ArrayLength {
                dst,
                slot,
                index,
                offset,
                stride,
            } => {
                for l in 0..n {
                    if !self.is_active(l) {
                        continue;
                    }
                    let idx = index.map_or(0, |r| self.r32[r as usize * n + l]);
                    let len = bind.buffer(*slot, idx)?.map_or(0, |b| b.len() as u64);
                    let v = len
                        .saturating_sub(*offset as u64)
                        .checked_div(*stride as u64)
                        .unwrap_or(0);
                    self.r32[*dst as usize * n + l] = v.min(u32::MAX as u64) as u32;
                }
            }
            Code::QuadVote { all, dst, a } => {
                for q in 0..n / 4 {
                    let lanes = q * 4..q * 4 + 4;
                    let vals = lanes
                        .clone()
                        .filter(|&l| self.is_active(l))
                        .map(|l| self.r32[*a as usize * n + l] != 0);
                    let v = if *all {
                        vals.clone().all(|y| y)
                    } else {
                        vals.clone().any(|y| y)
                    };
                    for l in lanes {
                        if self.is_active(l) {
                            self.r32[*dst as usize * n + l] = v as u32;
                        }
                    }
                }
            }
            Code::Group { op, ty, dst, a, b } => self.group(*op, *ty, *dst, *a, *b),
            Code::GroupArith {
                op,
                scan,
                ty,
                dst,
                a,
            } => self.group_arith(*op, *scan, *ty, *dst, *a),
            Code::BallotQuery {
                query,
                dst,
                ballot,
                b,
            } => self.ballot_query(*query, *dst, *ballot, *b),
            Code::Image { index: ii } | Code::ImageLocal { index: ii, .. } => {
                let inst = &prog.images[*ii as usize].inst;
                let mut out = std::mem::take(&mut self.image_out);
                // The unit writes every active lane's results (`ImageUnit::image_batch`); the
                // other lanes' entries are a previous instruction's, never kept (the results are
                // written under the active mask). An observer sees whole quads: zeros there.
                out.resize(n, [0; 4]);
                if obs.wants_images() {
                    rows::fill(&mut out, [0; 4]);
                }
                let ops = BatchOperands {
                    n,
                    slots: &prog.slots,
                    r32: &self.r32,
                    active: &self.active,
                    helper: &self.helper,
                    full,
                };
                bind.images.image_batch(inst, &ops, &mut out)?;
                if obs.wants_images() {
                    for (q, res) in out.chunks_exact(4).enumerate() {
                        if ops.quad_mask(q) == 0 {
                            continue;
                        }
                        let results = [res[0], res[1], res[2], res[3]];
                        obs.image(&ImageEvent {
                            block,
                            index,
                            inst,
                            operands: &ops.quad(inst, q),
                            results: &results,
                        });
                    }
                }
                // The usual four results (a sample's vec4) in 4×4 transposed blocks, not a
                // masked loop per component; a plain store when every lane is active.
                let rows4 = match (code, &inst.dst[..]) {
                    // straight into the Local rows of the stores `row_form` dropped (distinct
                    // words inside Local memory, checked there; four consecutive ones usually)
                    (Code::ImageLocal { words, .. }, _) => {
                        let w0 = words[0] as usize;
                        if words == &[0, 1, 2, 3].map(|k| (w0 + k) as u32) {
                            self.local.get_mut(w0 * n..(w0 + 4) * n).map(|block| {
                                let (a, rest) = block.split_at_mut(n);
                                let (b, rest) = rest.split_at_mut(n);
                                let (c, d) = rest.split_at_mut(n);
                                [a, b, c, d]
                            })
                        } else {
                            let [a, b, c, d] = words.map(|w| w as usize * n..(w as usize + 1) * n);
                            self.local.get_disjoint_mut([a, b, c, d]).ok()
                        }
                    }
                    (_, &[a, b, c, d]) => {
                        let at = |r: u32| prog.slots[r as usize].1 as usize * n;
                        let [a, b, c, d] = [a, b, c, d].map(|r| at(r)..at(r) + n);
                        self.r32.get_disjoint_mut([a, b, c, d]).ok()
                    }
                    _ => None,
                };
                match rows4 {
                    Some(rows) => {
                        scatter_rows(rows, &out, (!full).then_some(&self.active[..]));
                    }
                    None if matches!(code, Code::ImageLocal { .. }) => {
                        let words = match code {
                            Code::ImageLocal { words, .. } => *words,
                            _ => [u32::MAX; 4],
                        };
                        for (c, &w) in words.iter().enumerate() {
                            let w = w as usize;
                            if let Some(row) = self.local.get_mut(w * n..(w + 1) * n) {
                                rows::column(row, &out, c, &self.active, full);
                            }
                        }
                    }
                    // fewer than four results (a depth comparison's one)
                    None => {
                        for (c, &r) in inst.dst.iter().enumerate() {
                            let s = prog.slots[r as usize].1 as usize;
                            let row = &mut self.r32[s * n..][..n];
                            rows::column(row, &out, c, &self.active, full);
                        }
                    }
                }
                self.image_out = out;
            }
            Code::IsHelper { dst } => {
                for l in 0..n {
                    if self.is_active(l) {
                        self.r32[*dst as usize * n + l] = self.helper[l] as u32;
                    }
                }
            }
            Code::InterpolateAt { at, dst, addr } => self.interpolate_at(*at, *dst, *addr),
            &Code::Emit { stream, vertex } => {
                for l in 0..n {
                    if !self.is_active(l) {
                        continue;
                    }
                    self.emits.push(EmitEvent {
                        lane: l as u32,
                        stream,
                        vertex,
                    });
                    if vertex {
                        let words = prog.emit_words.iter();
                        self.emitted
                            .extend(words.map(|&w| self.local[w as usize * n + l]));
                    }
                }
            }
            Code::LaneInfo { what, dst } => {
                for l in 0..n {
                    if !self.is_active(l) {
                        continue;
                    }
                    let size = self.subgroup;
                    let i = (l % size) as u32;
                    // the 128-bit mask's 32-bit component `c`, within the subgroup's lanes
                    let full = (1u128 << size) - 1;
                    let comp = |c: u8, m: u128| ((m & full) >> (32 * c as u32)) as u32;
                    let v = match *what {
                        LaneInfo::SubgroupInvocationId => i,
                        LaneInfo::SubgroupSize => size as u32,
                        LaneInfo::SubgroupEqMask(c) => comp(c, 1 << i),
                        LaneInfo::SubgroupGeMask(c) => comp(c, !0 << i),
                        LaneInfo::SubgroupGtMask(c) => comp(c, (!0u128 << i) << 1),
                        LaneInfo::SubgroupLeMask(c) => comp(c, (2u128 << i) - 1),
                        LaneInfo::SubgroupLtMask(c) => comp(c, (1 << i) - 1),
                    };
                    self.r32[*dst as usize * n + l] = v;
                }
            }
            Code::Demote => {
                self.marked = true;
                for l in 0..n {
                    if self.is_active(l) && !self.helper[l] {
                        self.helper[l] = true;
                        self.demoted[l] = true;
                    }
                }
            }
            Code::Nop
            | Code::N1 { .. }
            | Code::N2 { .. }
            | Code::N3 { .. }
            | Code::K1 { .. }
            | Code::K2 { .. }
            | Code::K3 { .. }
            | Code::K4 { .. }
            | Code::LoadLocal { .. }
            | Code::StoreLocal { .. } => {
                return Err(Error::Exec(
                    "internal: a lane kernel reached exec_cold".into(),
                ))
            }
        }
        Ok(())
    }

    /// The commonest instructions, run from the block loop without `exec`'s prologue and
    /// matches: 32-bit lane kernels of one to three operands (`Code::N1`/`N2`/`N3`). A kernel
    /// that reads only its own lane (it has a form on one value, `kernels::Lane::one`) and
    /// whose operands are all uniform runs that form once: with every lane active its result
    /// is kept in the scalar form ([`super::uniform`]: loop counters, push-constant
    /// addresses, arithmetic on uniform loads), else written to the active lanes. Otherwise
    /// the kernel writes the destination row in place, masked unless every lane is active,
    /// and its uniform flag is cleared; a uniform operand of such a kernel goes in as its one
    /// value (a one-word slice, which `kernels::m2` / `m3` take as a splat: no row read), a
    /// cross-lane kernel's operand rows are made real. A kernel one of whose operands is its
    /// destination runs out of line (`aliased1` / `aliased2` / `aliased3`: in place or
    /// through the scratch row).
    /// Returns false, having done nothing, for every other instruction (so no row is made
    /// real for `c += x` in a loop whose uniform values stay scalar).
    #[inline(always)]
    fn lane_kernel32(&mut self, code: &Code, full: bool) -> bool {
        let n = self.n;
        // One kernel `$k` of operand registers `$s` (`$aliased`: its run when an operand is
        // the destination), written out per arity: straight-line tests and slices, no array
        // maps or iterator folds, which the block loop's size kept LLVM from inlining.
        macro_rules! kernel {
            ($k:expr, $aliased:ident, $dst:expr, [$($s:ident),*]) => {{
                let d = $dst as usize;
                let lane = $k.one.is_some();
                if let Some(one) = $k.one {
                    if true $(&& self.uni32[$s as usize].uni)* {
                        let v = one($(self.uni32[$s as usize].val),*);
                        if full {
                            self.set_uniform32($dst, v);
                        } else {
                            self.write32($dst, false);
                            let active = Some(&self.active[..n]);
                            broadcast(&mut self.r32[d * n..][..n], active, v);
                        }
                        return true;
                    }
                }
                if false $(|| $s == $dst)* {
                    self.$aliased($k, $dst, $($s,)* full);
                    return true;
                }
                if !lane {
                    $(self.realize32($s);)*
                }
                into_dst!(self, $k, $dst, full, None, lane, [$($s),*]);
                true
            }};
        }
        match *code {
            Code::N1 { k, dst, a } => kernel!(k, aliased1, dst, [a]),
            Code::N2 { k, dst, a, b } => kernel!(k, aliased2, dst, [a, b]),
            Code::N3 { k, dst, a, b, c } => kernel!(k, aliased3, dst, [a, b, c]),
            _ => false,
        }
    }

    aliased!(aliased1, Lane1, false, [a]);
    aliased!(aliased2, Lane2, true, [a, b]);
    aliased!(aliased3, Lane3, true, [a, b, c]);

    /// Clear the uniform flags of `code`'s destination register (in both files: clearing a
    /// flag is always sound). Image results are cleared by `exec_cold` from the instruction.
    fn clear_uniform(&mut self, code: &Code) {
        let dst = match *code {
            Code::N1 { dst, .. }
            | Code::N2 { dst, .. }
            | Code::N3 { dst, .. }
            | Code::K1 { dst, .. }
            | Code::K2 { dst, .. }
            | Code::K3 { dst, .. }
            | Code::K4 { dst, .. }
            | Code::Load { dst, .. }
            | Code::LoadWord { dst, .. }
            | Code::LoadLocal { dst, .. }
            | Code::Atomic { dst, .. }
            | Code::ArrayLength { dst, .. }
            | Code::QuadVote { dst, .. }
            | Code::Group { dst, .. }
            | Code::GroupArith { dst, .. }
            | Code::BallotQuery { dst, .. }
            | Code::IsHelper { dst }
            | Code::InterpolateAt { dst, .. }
            | Code::LaneInfo { dst, .. } => dst as usize,
            Code::StoreLocal { .. }
            | Code::Store { .. }
            | Code::Image { .. }
            | Code::ImageLocal { .. }
            | Code::Emit { .. }
            | Code::Demote
            | Code::Nop => return,
        };
        self.forget32(dst);
        if let Some(u) = self.uni64.get_mut(dst) {
            *u = false;
        }
    }

    /// A load of `bytes` bytes (`access_bytes(ty)`, a constant where the caller knows it).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn load(
        &mut self,
        ty: ScalarTy,
        bytes: u32,
        dst: u32,
        space: CSpace,
        addr: u32,
        full: bool,
        bind: &Bindings,
    ) -> Result<()> {
        if full && self.load_uniform32(ty, bytes, dst, space, addr, bind) {
            return Ok(());
        }
        self.load_lanes(ty, dst, space, addr, full, bind)
    }

    /// [`Batch::load`] past its uniform 32-bit buffer read: a shared address read once and
    /// broadcast, else lane by lane.
    fn load_lanes(
        &mut self,
        ty: ScalarTy,
        dst: u32,
        space: CSpace,
        addr: u32,
        full: bool,
        bind: &Bindings,
    ) -> Result<()> {
        let n = self.n;
        let wide = ty.is_wide();
        if let Some(first) = self.uniform_address(space, addr, full) {
            // Every active lane reads the same shared word: read it once and broadcast.
            let v = self.load_lane(ty, space, addr, bind, first, &mut None)?;
            if !wide && !full {
                self.write32(dst, false);
            }
            let active = (!full).then_some(&self.active[..n]);
            if wide {
                broadcast(&mut self.r64[dst as usize * n..][..n], active, v);
                self.uni64[dst as usize] = full;
            } else if full {
                self.set_uniform32(dst, v as u32);
            } else {
                broadcast(&mut self.r32[dst as usize * n..][..n], active, v as u32);
            }
            return Ok(());
        }
        // lane by lane: the address rows real before the destination (maybe one of them)
        // is written
        self.realize32(addr);
        if let CSpace::Buffer { index: Some(i), .. } = space {
            self.realize32(i);
        }
        if wide {
            self.uni64[dst as usize] = false;
        } else {
            self.write32(dst, full);
        }
        let mut uniform = None;
        for l in 0..n {
            if self.is_active(l) {
                let v = self.load_lane(ty, space, addr, bind, l, &mut uniform)?;
                self.set(wide, dst, l, v);
            }
        }
        Ok(())
    }

    /// A 32-bit buffer read at an address and descriptor index held in uniform registers,
    /// run with every lane active (the caller's `full`): one read, its destination kept in
    /// the scalar form ([`super::uniform`]), and true. False, having done nothing, for every other load and
    /// when the slot has nothing bound (the general path then reports that error). It is
    /// the read the general path comes to (`uniform_address` gives lane 0 and `load_lane`
    /// reads there, with the same bounds rule: an access not inside the buffer, or an
    /// unbound array element, reads 0), without its scans, per-space matches and error
    /// plumbing; inline in the block loop, a push-constant read costs about a third of it.
    #[inline(always)]
    fn load_uniform32(
        &mut self,
        ty: ScalarTy,
        bytes: u32,
        dst: u32,
        space: CSpace,
        addr: u32,
        bind: &Bindings,
    ) -> bool {
        let CSpace::Buffer { slot, index } = space else {
            return false;
        };
        let uni = |r: u32| self.is_uniform32(r);
        if bytes > 4 || self.n == 0 || !uni(addr) || !index.is_none_or(uni) {
            return false;
        }
        let at = |r: u32| self.uni32[r as usize].val;
        let Ok(buf) = bind.buffer(slot, index.map_or(0, at)) else {
            return false;
        };
        let v = buf.map_or(0, |b| b.load(at(addr) as u64, bytes)) as u32;
        let v = if ty == ScalarTy::Bool {
            (v != 0) as u32
        } else {
            v
        };
        self.set_uniform32(dst, v);
        true
    }

    /// The first active lane, when every active lane addresses the same shared memory:
    /// workgroup memory, or a buffer at one descriptor index. Private memory is per lane, so
    /// never.
    /// `full`: every lane is active.
    fn uniform_address(&self, space: CSpace, addr: u32, full: bool) -> Option<usize> {
        let n = self.n;
        let index = match space {
            CSpace::Local => return None,
            CSpace::Workgroup => None,
            CSpace::Buffer { index, .. } => index,
        };
        let first = if full {
            0
        } else {
            self.active[..n].iter().position(|&a| a != 0)?
        };
        let same = |r: u32| {
            if self.is_uniform32(r) {
                // every lane holds the same value: no need to look
                return true;
            }
            let regs = &self.r32[r as usize * n..][..n];
            let r0 = regs[first];
            // bitwise folds without an early exit, so the loops vectorize
            let differ = if full {
                regs.iter().fold(0u32, |d, &x| d | (x ^ r0))
            } else {
                self.active[..n].iter().zip(regs).fold(0u32, |d, (&a, &x)| {
                    d | ((x ^ r0) & 0u32.wrapping_sub((a != 0) as u32))
                })
            };
            differ == 0
        };
        let same_addr = same(addr);
        let same_index = index.is_none_or(same);
        (same_addr && same_index).then_some(first)
    }

    /// One lane's load. `uniform` caches the buffer of an access without an index register,
    /// looked up at the first active lane so errors name the same lane as a per-lane loop.
    fn load_lane<'b>(
        &self,
        ty: ScalarTy,
        space: CSpace,
        addr: u32,
        bind: &Bindings<'b>,
        l: usize,
        uniform: &mut Option<Option<&'b Buffer>>,
    ) -> Result<u64> {
        let n = self.n;
        let wide = ty.is_wide();
        let ad = self.get(false, addr, l) as u32;
        Ok(match space {
            CSpace::Local => read_words(&self.local, self.local_words, n, l, ad, wide),
            CSpace::Workgroup => read_words(&self.workgroup, self.workgroup.len(), 1, 0, ad, wide),
            CSpace::Buffer { slot, index } => {
                // Without an index register every lane reads the same buffer: look it up
                // once (at the first active lane, so errors are unchanged).
                let buf = match index {
                    Some(r) => bind.buffer(slot, self.get(false, r, l) as u32)?,
                    None => match *uniform {
                        Some(b) => b,
                        None => *uniform.insert(bind.buffer(slot, 0)?),
                    },
                };
                match buf {
                    Some(b) => {
                        let v = b.load(ad as u64, access_bytes(ty));
                        if ty == ScalarTy::Bool {
                            (v != 0) as u64
                        } else {
                            v
                        }
                    }
                    None => 0,
                }
            }
        })
    }

    fn store(
        &mut self,
        ty: ScalarTy,
        space: CSpace,
        addr: u32,
        src: u32,
        bind: &Bindings,
    ) -> Result<()> {
        let n = self.n;
        let wide = ty.is_wide();
        for l in 0..n {
            // Private (Local) memory is written by helper lanes too, so that their values and
            // hence their neighbours' derivatives are right; shared memory is not.
            let go = match space {
                CSpace::Local => self.is_active(l),
                _ => self.stores(l),
            };
            if !go {
                continue;
            }
            let ad = self.r32[addr as usize * n + l];
            let v = self.get(wide, src, l);
            match space {
                CSpace::Local => write_words(&mut self.local, self.local_words, n, l, ad, wide, v),
                CSpace::Workgroup => {
                    let words = self.workgroup.len();
                    write_words(&mut self.workgroup, words, 1, 0, ad, wide, v)
                }
                CSpace::Buffer { slot, index } => {
                    let idx = index.map_or(0, |r| self.r32[r as usize * n + l]);
                    if let Some(b) = bind.buffer(slot, idx)? {
                        b.store(ad as u64, access_bytes(ty), v);
                    }
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        op: AtomicOp,
        ty: ScalarTy,
        dst: u32,
        space: CSpace,
        addr: u32,
        a: u32,
        b: u32,
        bind: &Bindings,
    ) -> Result<()> {
        let n = self.n;
        let wide = ty.is_wide();
        let bits = ty.bits();
        for l in 0..n {
            if !self.is_active(l) {
                continue;
            }
            if self.helper[l] && !matches!(space, CSpace::Local) {
                self.set(wide, dst, l, 0);
                continue;
            }
            let ad = self.r32[addr as usize * n + l];
            let av = self.get(wide, a, l);
            let bv = self.get(wide, b, l);
            let f = |old: u64| atomic_new(op, bits, old, av, bv);
            let old = match space {
                CSpace::Local => {
                    let old = read_words(&self.local, self.local_words, n, l, ad, wide);
                    if let Some(v) = f(old) {
                        write_words(&mut self.local, self.local_words, n, l, ad, wide, v);
                    }
                    old
                }
                CSpace::Workgroup => {
                    let words = self.workgroup.len();
                    let old = read_words(&self.workgroup, words, 1, 0, ad, wide);
                    if let Some(v) = f(old) {
                        write_words(&mut self.workgroup, words, 1, 0, ad, wide, v);
                    }
                    old
                }
                CSpace::Buffer { slot, index } => {
                    let idx = index.map_or(0, |r| self.r32[r as usize * n + l]);
                    match bind.buffer(slot, idx)? {
                        Some(buf) => buf.atomic(ad as u64, bits / 8, f),
                        None => 0,
                    }
                }
            };
            self.set(wide, dst, l, old);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words whose float reading is a NaN with a payload, a signalling NaN, a denormal, -0:
    /// the transposes must move bits, not values.
    fn block(seed: u32) -> [[u32; 4]; 4] {
        let odd = [0x7fa0_0001, 0xffc0_1234, 0x0000_0001, 0x8000_0000];
        std::array::from_fn(|l| {
            std::array::from_fn(|k| {
                if (l + k) % 3 == 0 {
                    odd[(l + k + seed as usize) % 4]
                } else {
                    seed.wrapping_mul(0x9e37_79b9) ^ (l * 4 + k) as u32
                }
            })
        })
    }

    #[test]
    fn transpose4_swaps_lane_and_word_bit_for_bit() {
        let v = block(7);
        let t = transpose4(&v);
        for l in 0..4 {
            for k in 0..4 {
                assert_eq!(t[k][l], v[l][k], "word {k} of lane {l}");
            }
        }
        assert_eq!(transpose4(&t), v);
    }

    #[test]
    fn scatter_rows_matches_a_per_lane_copy_with_and_without_mask() {
        // even and odd block counts: the AVX2 pairs and the block left over
        for n in [0, 4, 8, 12, 28, 64] {
            scatter_rows_case(n);
        }
    }

    fn scatter_rows_case(n: usize) {
        let src: Vec<[u32; 4]> = (0..n / 4).flat_map(|b| block(b as u32 + 1)).collect();
        let mask: Vec<u32> = (0..n).map(|l| if l % 3 == 1 { 0 } else { !0 }).collect();
        for masked in [false, true] {
            let mut rows: Vec<Vec<u32>> = (0..4)
                .map(|k| (0..n).map(|l| 0xdead_0000 + (k * 100 + l) as u32).collect())
                .collect();
            // naive reference: lane by lane, word by word
            let mut want = rows.clone();
            for l in 0..n {
                if !masked || mask[l] != 0 {
                    for k in 0..4 {
                        want[k][l] = src[l][k];
                    }
                }
            }
            let [a, b, c, d] = &mut rows[..] else {
                unreachable!()
            };
            let m = masked.then_some(&mask[..]);
            scatter_rows([&mut a[..], &mut b[..], &mut c[..], &mut d[..]], &src, m);
            assert_eq!(rows, want, "{n} lanes, masked: {masked}");
        }
    }

    /// `k` per lane: 1 kills, 2 demotes, every lane left writes `k + 10` to Local word 1.
    fn kill_demote_program() -> Program {
        use crate::exec::tests::B;
        use crate::ir::{BinaryOp, Inst, ScalarTy::I32, Terminator};
        let mut b = B::new();
        let (kill, next, dem, join) = (b.block(), b.block(), b.block(), b.block());
        let k = b.load_local(I32, 0);
        let (one, two, ten) = (b.ki(1), b.ki(2), b.ki(10));
        let is1 = b.bin(BinaryOp::IEq, I32, k, one);
        b.branch(is1, kill, next);
        b.at(kill);
        b.term(Terminator::Kill { resume: None });
        b.at(next);
        let is2 = b.bin(BinaryOp::IEq, I32, k, two);
        b.branch(is2, dem, join);
        b.at(dem);
        b.push(Inst::Demote);
        b.jump(join);
        b.at(join);
        let v = b.bin(BinaryOp::IAdd, I32, k, ten);
        b.store_local(I32, 1, v);
        b.program()
    }

    /// Word 1, killed, demoted and helper flags of every lane after a `reset_frag` run.
    fn frag_run(
        b: &mut Batch,
        p: &Program,
        ks: &[i32],
        live: bool,
    ) -> (Vec<u32>, Vec<bool>, Vec<bool>, Vec<bool>) {
        b.reset_frag(p, ks.len(), live);
        let n = b.n;
        b.local.clear();
        b.local.resize(b.local_words * n, 0);
        for (l, &k) in ks.iter().enumerate() {
            b.local[l] = k as u32;
            b.helper[l] = false;
        }
        b.run(
            p,
            &crate::exec::Bindings::default(),
            &mut crate::exec::NoObserver,
        )
        .expect("run");
        (
            b.local[n..2 * n].to_vec(),
            b.killed.clone(),
            b.demoted.clone(),
            b.helper.clone(),
        )
    }

    #[test]
    fn reset_frag_after_kill_and_demote_runs_like_a_fresh_batch() {
        let p = kill_demote_program();
        let n = 64;
        // lane 4q + 1 kills, lane 4q + 2 demotes: every quad keeps lanes 0 and 3 (live)
        let mixed: Vec<i32> = (0..n)
            .map(|l| (l % 4 == 1) as i32 + 2 * (l % 4 == 2) as i32)
            .collect();
        let uniform = vec![0; n];
        let mut b = Batch::new();
        let (w, killed, demoted, helper) = frag_run(&mut b, &p, &mixed, true);
        for l in 0..n {
            let (kl, dm) = (l % 4 == 1, l % 4 == 2);
            assert_eq!((killed[l], demoted[l], helper[l]), (kl, dm, dm), "lane {l}");
            if !kl {
                assert_eq!(w[l], mixed[l] as u32 + 10, "lane {l}");
            }
        }
        // the same batch again: no kills or demotes, every lane writes 10 (by hand)
        let want = (vec![10; n], vec![false; n], vec![false; n], vec![false; n]);
        assert_eq!(frag_run(&mut b, &p, &uniform, true), want);
        assert_eq!(frag_run(&mut b, &p, &uniform, true), want);
        assert_eq!(frag_run(&mut Batch::new(), &p, &uniform, true), want);
    }
}
