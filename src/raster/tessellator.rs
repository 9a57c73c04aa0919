//! The fixed-function tessellator: a patch's tessellation levels become domain points (u, v)
//! and the points, lines or triangles that connect them.
//!
//! Vulkan leaves the exact pattern to the implementation (within rules of symmetry and
//! watertightness); this is the algorithm of the Direct3D 11 reference tessellator, which
//! Mesa's llvmpipe (so lavapipe) runs, so quadstep's tessellations are lavapipe's point for
//! point and index for index. Its arithmetic is 16.16 fixed point (`Fxp`, unsigned, wrapping
//! as the reference's `unsigned int` does), which makes every coordinate exact and the same
//! on every machine. Its shape:
//! - the levels are clamped to the spacing's range (1..64 equal, 2..64 fractional-even,
//!   1..63 fractional-odd; isoline density 1..64), rounded up for equal spacing, and
//!   converted to fixed point;
//! - points along an edge come from a per-level context (`Ctx`): for fractional spacing the
//!   two neighbouring integer tessellations are blended by the level's fraction, and the
//!   points that split first are chosen by the "ruler function" order;
//! - points go ring by ring: the outer edges, then the inner rings spiralling inwards;
//!   connectivity stitches each ring to the next (`Tess::stitch_transition` between the
//!   outer edges and the first inner ring, `Tess::stitch_regular` between inner rings),
//!   with index patching where a ring wraps around to its first point.
//!
//! Triangles are produced clockwise in (u, v) and reversed for a counter-clockwise output;
//! like llvmpipe, the caller asks for clockwise output when the shader's `VertexOrderCcw`
//! applies (the reference's domain is Direct3D's, whose (u, v) orientation mirrors Vulkan's).

/// 16.16 unsigned fixed point.
type Fxp = u32;

const FRACTION_BITS: u32 = 16;
const FRACTION_MASK: Fxp = 0x0000_ffff;
const INTEGER_MASK: Fxp = 0x7fff_0000;
const ONE: Fxp = 1 << FRACTION_BITS;
const ONE_THIRD: Fxp = 0x0000_5555;
const TWO_THIRDS: Fxp = 0x0000_aaaa;
const ONE_HALF: Fxp = 0x0000_8000;

const MIN_ODD: f32 = 1.0;
const MAX_ODD: f32 = 63.0;
const MIN_EVEN: f32 = 2.0;
const MAX_EVEN: f32 = 64.0;
const MIN_ISOLINE_DENSITY: f32 = 1.0;
const MAX_ISOLINE_DENSITY: f32 = 64.0;
/// 2^-16, the smallest positive fixed-point fraction.
const EPSILON: f32 = 0.000_015_258_789;

/// `1 / n` in fixed point, for n = 0..=64 (entry 0 unused).
const RECIPROCAL: [Fxp; 65] = [
    0xffff_ffff,
    0x10000,
    0x8000,
    0x5555,
    0x4000,
    0x3333,
    0x2aab,
    0x2492,
    0x2000,
    0x1c72,
    0x199a,
    0x1746,
    0x1555,
    0x13b1,
    0x1249,
    0x1111,
    0x1000,
    0xf0f,
    0xe39,
    0xd79,
    0xccd,
    0xc31,
    0xba3,
    0xb21,
    0xaab,
    0xa3d,
    0x9d9,
    0x97b,
    0x925,
    0x8d4,
    0x889,
    0x842,
    0x800,
    0x7c2,
    0x788,
    0x750,
    0x71c,
    0x6eb,
    0x6bd,
    0x690,
    0x666,
    0x63e,
    0x618,
    0x5f4,
    0x5d1,
    0x5b0,
    0x591,
    0x572,
    0x555,
    0x539,
    0x51f,
    0x505,
    0x4ec,
    0x4d5,
    0x4be,
    0x4a8,
    0x492,
    0x47e,
    0x46a,
    0x457,
    0x444,
    0x432,
    0x421,
    0x410,
    0x400,
];

/// The tessellation domain.
pub use crate::stage::Domain;
/// Tessellation spacing.
pub use crate::stage::Spacing;

/// What the tessellator outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Points,
    Lines,
    /// Triangles, clockwise in (u, v) (`true`) or counter-clockwise.
    Triangles {
        cw: bool,
    },
}

/// A tessellated patch: domain points `(u, v)` (for triangles `w = 1 - u - v`) and, per
/// output primitive, its points' indices (1, 2 or 3 each, by the output).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tessellation {
    pub points: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
}

/// Tessellate one patch of `domain` with `spacing` into `output`: `outer` and `inner` are
/// `TessLevelOuter` and `TessLevelInner` (a triangle uses `outer[..3]` and `inner[0]`, an
/// isoline domain `outer[..2]`: lines, then segments per line). A patch with an outer level
/// of 0, negative or NaN is culled (no points).
pub fn tessellate(
    domain: Domain,
    spacing: Spacing,
    output: Output,
    outer: [f32; 4],
    inner: [f32; 2],
) -> Tessellation {
    let mut t = Tess::new(spacing, output);
    match domain {
        Domain::Triangles => t.tri(outer[0], outer[1], outer[2], inner[0]),
        Domain::Quads => t.quad(outer, inner),
        Domain::Isolines => t.isolines(outer[0], outer[1]),
    }
    Tessellation {
        points: t.points,
        indices: t.indices,
    }
}

/// Which integer tessellations a level sits between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Parity {
    #[default]
    Even,
    Odd,
}

/// The per-level context points along an edge are placed with.
#[derive(Clone, Copy, Debug, Default)]
struct Ctx {
    inv_segments_floor: Fxp,
    inv_segments_ceil: Fxp,
    half_fraction: Fxp,
    half_points: i32,
    split_point_floor: i32,
}

/// Processed levels of a triangle or quad patch (`N` edges, `M` inside levels).
#[derive(Clone, Copy, Debug)]
struct Levels<const N: usize, const M: usize> {
    outside: [Fxp; N],
    inside: [Fxp; M],
    outside_parity: [Parity; N],
    inside_parity: [Parity; M],
    outside_ctx: [Ctx; N],
    inside_ctx: [Ctx; M],
    outside_points: [i32; N],
    inside_points: [i32; M],
    inside_base: i32,
}

/// How [`Tess::stitch_regular`] cuts its quads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Diagonals {
    InsideToOutside,
    InsideToOutsideExceptMiddle,
    Mirrored,
}

/// Index rewriting while stitching a ring that wraps around to its start.
#[derive(Clone, Copy, Debug, Default)]
struct Patch1 {
    inside_delta: i32,
    inside_bad: i32,
    inside_replacement: i32,
    outside_base: i32,
    outside_delta: i32,
    outside_bad: i32,
    outside_replacement: i32,
}

/// Index inversion for the degenerate rows of even tessellation.
#[derive(Clone, Copy, Debug, Default)]
struct Patch2 {
    base_to_invert: i32,
    inversion_end: i32,
    corner_bad: i32,
    corner_replacement: i32,
}

/// The tessellator's state while it tessellates one patch.
struct Tess {
    spacing: Spacing,
    /// The spacing's own parity, and the one in force (equal spacing switches per level).
    original_parity: Parity,
    parity: Parity,
    /// Isoline density is tessellated as equal spacing whatever the spacing.
    integer: bool,
    output: Output,
    points: Vec<[f32; 2]>,
    indices: Vec<u32>,
    patch1: Option<Patch1>,
    patch2: Option<Patch2>,
}

/// Whether `a` is a NaN.
fn is_nan(a: f32) -> bool {
    a.is_nan()
}

/// `a` with denormals flushed to a zero of its sign.
fn flush(a: f32) -> f32 {
    let b = a.to_bits();
    if (b & 0x7fff_ffff) < 0x0080_0000 {
        f32::from_bits(b & 0x8000_0000)
    } else {
        a
    }
}

/// IEEE 754R minimum (NaN `b` gives `a`), on flushed values.
fn fmin(a: f32, b: f32) -> f32 {
    let (fa, fb) = (flush(a), flush(b));
    if is_nan(fb) {
        a
    } else if fa == 0.0 && fb == 0.0 {
        if fa.to_bits() & 0x8000_0000 != 0 {
            a
        } else {
            b
        }
    } else if fa < fb {
        a
    } else {
        b
    }
}

/// IEEE 754R maximum (NaN `b` gives `a`), on flushed values.
fn fmax(a: f32, b: f32) -> f32 {
    let (fa, fb) = (flush(a), flush(b));
    if is_nan(fb) {
        a
    } else if fa == 0.0 && fb == 0.0 {
        if fb.to_bits() & 0x8000_0000 != 0 {
            a
        } else {
            b
        }
    } else if fa >= fb {
        a
    } else {
        b
    }
}

/// Whether a level culls its patch: not above 0 (zero, negative or NaN).
fn culls(level: f32) -> bool {
    level.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
}

/// `x` clamped to `lo..=hi` (NaN goes to `lo`).
fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    fmin(hi, fmax(lo, x))
}

/// A float to unsigned 15.16 fixed point with round-to-nearest-even, saturating; NaN is 0
/// (the reference's integer-only conversion).
fn to_fixed(input: f32) -> Fxp {
    const INT_BITS: i32 = 15;
    const FRAC_BITS: i32 = 16;
    let min_result: i32 = 0;
    let max_result: i32 = !min_result;
    let max_pos_float = {
        let mut m = (127 + INT_BITS) << 23;
        let shift = 23 + 1 - INT_BITS - FRAC_BITS;
        if shift >= 0 {
            m -= 1 << shift;
        }
        m
    };
    let max_neg_float = 0;
    let mut output = input.to_bits() as i32;
    let exponent = ((output & 0x7f80_0000) >> 23) - 127;
    let negative = output & (1 << 31) != 0;
    if exponent == 128 && output & 0x007f_ffff != 0 {
        output = 0;
    } else if !negative && output >= max_pos_float {
        output = max_result;
    } else if negative && (output & !(1 << 31)) >= max_neg_float {
        output = min_result;
    } else if exponent < -FRAC_BITS - 1 {
        output = 0;
    } else {
        output = (output & 0x007f_ffff) | 0x0080_0000;
        let extra = 23 - FRAC_BITS - exponent;
        if extra >= 0 {
            if negative {
                output = (!output).wrapping_add(1);
            }
            let lsb = 1i32 << extra;
            let half = lsb >> 1;
            if output & lsb != 0 || (output & (lsb - 1)) > half {
                output = output.wrapping_add(half);
            }
            output >>= extra;
        } else {
            output <<= -extra;
            if negative {
                output = (!output).wrapping_add(1);
            }
        }
    }
    output as u32
}

/// Fixed point to float: integer part plus the fraction over 2^16 (exact).
fn to_float(x: Fxp) -> f32 {
    (x >> FRACTION_BITS) as f32 + (x & FRACTION_MASK) as f32 / (1 << FRACTION_BITS) as f32
}

fn fxp_ceil(x: Fxp) -> Fxp {
    if x & FRACTION_MASK != 0 {
        (x & INTEGER_MASK).wrapping_add(ONE)
    } else {
        x
    }
}

fn fxp_floor(x: Fxp) -> Fxp {
    x & INTEGER_MASK
}

/// Whether the integer part of `x` is even.
fn is_even(x: f32) -> bool {
    (x as i32) & 1 == 0
}

/// `val` without its highest set bit (among the 8 below the byte boundary it falls in).
fn remove_msb(val: i32) -> i32 {
    let mut check: i32 = if val <= 0xffff {
        if val <= 0xff {
            0x80
        } else {
            0x8000
        }
    } else if val <= 0x00ff_ffff {
        0x0080_0000
    } else {
        i32::MIN
    };
    for _ in 0..8 {
        if val & check != 0 {
            return val & !check;
        }
        check = ((check as u32) >> 1) as i32;
    }
    0
}

impl Tess {
    fn new(spacing: Spacing, output: Output) -> Tess {
        let parity = match spacing {
            Spacing::FractionalOdd => Parity::Odd,
            _ => Parity::Even,
        };
        Tess {
            spacing,
            original_parity: parity,
            parity,
            integer: spacing == Spacing::Equal,
            output,
            points: Vec::new(),
            indices: Vec::new(),
            patch1: None,
            patch2: None,
        }
    }

    fn odd(&self) -> bool {
        self.parity == Parity::Odd
    }

    /// The clamp range of levels for the spacing.
    fn bounds(&self) -> (f32, f32) {
        match self.spacing {
            Spacing::Equal => (MIN_ODD, MAX_EVEN),
            Spacing::FractionalEven => (MIN_EVEN, MAX_EVEN),
            Spacing::FractionalOdd => (MIN_ODD, MAX_ODD),
        }
    }

    /// A level's parity: its own under equal spacing (1 counts as even for inside levels
    /// when `one_even`), else the spacing's.
    fn parity_of(&self, level: f32, one_even: bool) -> Parity {
        if self.integer {
            if is_even(level) || (one_even && level == 1.0) {
                Parity::Even
            } else {
                Parity::Odd
            }
        } else {
            self.original_parity
        }
    }

    fn define_point(&mut self, u: Fxp, v: Fxp, at: usize) {
        if self.points.len() <= at {
            self.points.resize(at + 1, [0.0; 2]);
        }
        self.points[at] = [to_float(u), to_float(v)];
    }

    fn define_index(&mut self, index: i32, at: usize) {
        let index = self.patch_index(index);
        if self.indices.len() <= at {
            self.indices.resize(at + 1, 0);
        }
        self.indices[at] = index.max(0) as u32;
    }

    /// A triangle given clockwise, stored clockwise or counter-clockwise by the output.
    fn define_cw_triangle(&mut self, i0: i32, i1: i32, i2: i32, at: usize) {
        self.define_index(i0, at);
        if self.output == (Output::Triangles { cw: true }) {
            self.define_index(i1, at + 1);
            self.define_index(i2, at + 2);
        } else {
            self.define_index(i2, at + 1);
            self.define_index(i1, at + 2);
        }
    }

    fn dump_points(&mut self) {
        for p in 0..self.points.len() {
            let at = self.indices.len();
            self.define_index(p as i32, at);
        }
    }

    fn dump_points_as_lines(&mut self) {
        for p in 1..self.points.len() {
            let at = self.indices.len();
            self.define_index(p as i32 - 1, at);
            self.define_index(p as i32, at + 1);
        }
    }

    fn num_points(&self, level: Fxp) -> i32 {
        let half = level.wrapping_add(1) / 2;
        if self.odd() {
            (fxp_ceil(ONE_HALF.wrapping_add(half)).wrapping_mul(2) >> FRACTION_BITS) as i32
        } else {
            ((fxp_ceil(half).wrapping_mul(2) >> FRACTION_BITS) + 1) as i32
        }
    }

    fn context(&self, level: Fxp) -> Ctx {
        let mut half = level.wrapping_add(1) / 2;
        if self.odd() || half == ONE_HALF {
            half = half.wrapping_add(ONE_HALF);
        }
        let (floor, ceil) = (fxp_floor(half), fxp_ceil(half));
        let half_points = (ceil >> FRACTION_BITS) as i32;
        let split_point_floor = if ceil == floor {
            half_points + 1
        } else if self.odd() {
            if floor == ONE {
                0
            } else {
                (remove_msb((floor >> FRACTION_BITS) as i32 - 1) << 1) + 1
            }
        } else {
            (remove_msb((floor >> FRACTION_BITS) as i32) << 1) + 1
        };
        let mut floor_segments = (floor.wrapping_mul(2) >> FRACTION_BITS) as i32;
        let mut ceil_segments = (ceil.wrapping_mul(2) >> FRACTION_BITS) as i32;
        if self.odd() {
            floor_segments -= 1;
            ceil_segments -= 1;
        }
        let recip = |n: i32| RECIPROCAL[n.clamp(0, 64) as usize];
        Ctx {
            inv_segments_floor: recip(floor_segments),
            inv_segments_ceil: recip(ceil_segments),
            half_fraction: half - floor,
            half_points,
            split_point_floor,
        }
    }

    /// Point `point` along an edge of context `ctx`, as a fixed-point parameter 0..1.
    fn place(&self, ctx: &Ctx, point: i32) -> Fxp {
        let mut point = point;
        let flip = point >= ctx.half_points;
        if flip {
            point = (ctx.half_points << 1) - point;
            if self.odd() {
                point -= 1;
            }
        }
        if point == ctx.half_points {
            return ONE_HALF;
        }
        let on_ceil = point as u32;
        let on_floor = if point > ctx.split_point_floor {
            on_ceil.wrapping_sub(1)
        } else {
            on_ceil
        };
        let at_floor = on_floor.wrapping_mul(ctx.inv_segments_floor);
        let at_ceil = on_ceil.wrapping_mul(ctx.inv_segments_ceil);
        let loc = at_floor
            .wrapping_mul(ONE.wrapping_sub(ctx.half_fraction))
            .wrapping_add(at_ceil.wrapping_mul(ctx.half_fraction));
        let loc = loc.wrapping_add(ONE_HALF) >> FRACTION_BITS;
        if flip {
            ONE.wrapping_sub(loc)
        } else {
            loc
        }
    }

    fn patch_index(&self, index: i32) -> i32 {
        if let Some(p) = &self.patch1 {
            if index >= p.outside_base {
                if index == p.outside_bad {
                    p.outside_replacement
                } else {
                    index + p.outside_delta
                }
            } else if index == p.inside_bad {
                p.inside_replacement
            } else {
                index + p.inside_delta
            }
        } else if let Some(p) = &self.patch2 {
            if index >= p.base_to_invert {
                if index == p.corner_bad {
                    p.corner_replacement
                } else {
                    p.inversion_end - index
                }
            } else if index == p.corner_bad {
                p.corner_replacement
            } else {
                index
            }
        } else {
            index
        }
    }

    /// Triangles between two rows of points along an edge of equal parity (inner rings).
    fn stitch_regular(
        &mut self,
        trapezoid: bool,
        diagonals: Diagonals,
        mut at: usize,
        inside_points: i32,
        inside_base: i32,
        outside_base: i32,
    ) {
        let (mut inside, mut outside) = (inside_base, outside_base);
        if trapezoid {
            self.define_cw_triangle(outside, outside + 1, inside, at);
            at += 3;
            outside += 1;
        }
        match diagonals {
            Diagonals::InsideToOutside => {
                for _ in 0..inside_points - 1 {
                    self.define_cw_triangle(inside, outside, outside + 1, at);
                    self.define_cw_triangle(inside, outside + 1, inside + 1, at + 3);
                    at += 6;
                    inside += 1;
                    outside += 1;
                }
            }
            Diagonals::InsideToOutsideExceptMiddle => {
                let mut p = 0;
                while p < inside_points / 2 - 1 {
                    self.define_cw_triangle(outside, outside + 1, inside, at);
                    self.define_cw_triangle(inside, outside + 1, inside + 1, at + 3);
                    at += 6;
                    inside += 1;
                    outside += 1;
                    p += 1;
                }
                self.define_cw_triangle(outside, inside + 1, inside, at);
                self.define_cw_triangle(outside, outside + 1, inside + 1, at + 3);
                at += 6;
                inside += 1;
                outside += 1;
                p += 2;
                while p < inside_points {
                    self.define_cw_triangle(outside, outside + 1, inside, at);
                    self.define_cw_triangle(inside, outside + 1, inside + 1, at + 3);
                    at += 6;
                    inside += 1;
                    outside += 1;
                    p += 1;
                }
            }
            Diagonals::Mirrored => {
                let mut p = 0;
                while p < inside_points / 2 {
                    self.define_cw_triangle(outside, inside + 1, inside, at);
                    self.define_cw_triangle(outside, outside + 1, inside + 1, at + 3);
                    at += 6;
                    inside += 1;
                    outside += 1;
                    p += 1;
                }
                while p < inside_points - 1 {
                    self.define_cw_triangle(inside, outside, outside + 1, at);
                    self.define_cw_triangle(inside, outside + 1, inside + 1, at + 3);
                    at += 6;
                    inside += 1;
                    outside += 1;
                    p += 1;
                }
            }
        }
        if trapezoid {
            self.define_cw_triangle(outside, outside + 1, inside, at);
        }
    }

    /// Triangles between an outer edge and the first inner ring, of any two levels: points
    /// advance on either row in the ruler function's split order.
    #[allow(clippy::too_many_arguments)]
    fn stitch_transition(
        &mut self,
        mut at: usize,
        inside_base: i32,
        mut inside_half: i32,
        inside_parity: Parity,
        outside_base: i32,
        mut outside_half: i32,
        outside_parity: Parity,
    ) {
        // where vertex i (0..33) ends up on the half edge at the most tessellation
        const FINAL: [i32; 33] = [
            0, 32, 16, 8, 17, 4, 18, 9, 19, 2, 20, 10, 21, 5, 22, 11, 23, 1, 24, 12, 25, 6, 26, 13,
            27, 3, 28, 14, 29, 7, 30, 15, 31,
        ];
        // loop bounds into FINAL for a half level
        const START: [i32; 33] = [
            1, 1, 17, 9, 9, 5, 5, 5, 5, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
            2, 2, 2, 2,
        ];
        const END: [i32; 33] = [
            0, 0, 17, 17, 25, 25, 25, 25, 29, 29, 29, 29, 29, 29, 29, 29, 31, 31, 31, 31, 31, 31,
            31, 31, 31, 31, 31, 31, 31, 31, 31, 31, 32,
        ];
        if inside_parity == Parity::Odd {
            inside_half -= 1;
        }
        if outside_parity == Parity::Odd {
            outside_half -= 1;
        }
        let (mut outside, mut inside) = (outside_base, inside_base);
        let t = |h: i32, table: &[i32; 33]| table[h.clamp(0, 32) as usize];
        let start = t(inside_half, &START).min(t(outside_half, &START));
        let end = t(inside_half, &END).max(t(outside_half, &END));
        let mut tri = |s: &mut Tess, a: i32, b: i32, c: i32| {
            s.define_cw_triangle(a, b, c, at);
            at += 3;
        };
        if FINAL[0] < outside_half {
            tri(self, outside, outside + 1, inside);
            outside += 1;
        }
        for i in start..=end {
            if FINAL[i as usize] < inside_half {
                tri(self, inside, outside, inside + 1);
                inside += 1;
            }
            if FINAL[i as usize] < outside_half {
                tri(self, outside, outside + 1, inside);
                outside += 1;
            }
        }
        if inside_parity != outside_parity || inside_parity == Parity::Odd {
            if inside_parity == outside_parity {
                // a quad in the middle
                tri(self, inside, outside, inside + 1);
                tri(self, inside + 1, outside, outside + 1);
                inside += 1;
                outside += 1;
            } else if inside_parity == Parity::Even {
                // a triangle pointing inside
                tri(self, inside, outside, outside + 1);
                outside += 1;
            } else {
                // a triangle pointing outside
                tri(self, inside, outside, inside + 1);
                inside += 1;
            }
        }
        for i in (start..=end).rev() {
            if FINAL[i as usize] < outside_half {
                tri(self, outside, outside + 1, inside);
                outside += 1;
            }
            if FINAL[i as usize] < inside_half {
                tri(self, inside, outside, inside + 1);
                inside += 1;
            }
        }
        if FINAL[0] < outside_half {
            tri(self, outside, outside + 1, inside);
        }
    }

    // ---- triangles ----

    fn tri(&mut self, e0: f32, e1: f32, e2: f32, inside: f32) {
        let Some(lv) = self.tri_levels(e0, e1, e2, inside) else {
            return;
        };
        let Some(lv) = lv else {
            // every level 1: the patch itself
            self.define_point(0, ONE, 0);
            self.define_point(0, 0, 1);
            self.define_point(ONE, 0, 2);
            match self.output {
                Output::Triangles { .. } => self.define_cw_triangle(0, 1, 2, 0),
                Output::Points => self.dump_points(),
                Output::Lines => self.dump_points_as_lines(),
            }
            return;
        };
        self.tri_points(&lv);
        match self.output {
            Output::Points => self.dump_points(),
            Output::Lines => self.dump_points_as_lines(),
            Output::Triangles { .. } => self.tri_connectivity(&lv),
        }
    }

    /// The processed levels: `None` for a culled patch, `Some(None)` when every level is 1.
    #[allow(clippy::type_complexity)]
    fn tri_levels(
        &mut self,
        e0: f32,
        e1: f32,
        e2: f32,
        inside: f32,
    ) -> Option<Option<Levels<3, 1>>> {
        if culls(e0) || culls(e1) || culls(e2) {
            return None;
        }
        let (mut lo, hi) = self.bounds();
        let mut out = [e0, e1, e2].map(|e| clamp(e, lo, hi));
        if self.integer {
            out = out.map(f32::ceil);
        }
        if self.spacing == Spacing::FractionalOdd
            && out.iter().any(|&e| e > MIN_ODD + EPSILON / 2.0)
        {
            // a picture frame: the inside level above 1 too
            lo = MIN_ODD + EPSILON;
        }
        let mut inside = clamp(inside, lo, hi);
        if self.integer {
            inside = inside.ceil();
        }
        let outside_parity = out.map(|e| self.parity_of(e, false));
        let inside_parity = [self.parity_of(inside, true)];
        let outside = out.map(to_fixed);
        let inside_fx = [to_fixed(inside)];
        if (self.integer || self.odd()) && inside_fx[0] == ONE && outside.iter().all(|&e| e == ONE)
        {
            return Some(None);
        }
        let mut lv = Levels {
            outside,
            inside: inside_fx,
            outside_parity,
            inside_parity,
            outside_ctx: [Ctx::default(); 3],
            inside_ctx: [Ctx::default(); 1],
            outside_points: [0; 3],
            inside_points: [0; 1],
            inside_base: 0,
        };
        self.finish_levels(&mut lv, 3);
        let n = lv.inside_points[0];
        let rings = (n >> 1) - 1;
        let interior = if self.odd() {
            3 * (rings * (rings + 1) - rings)
        } else {
            3 * (rings * (rings + 1)) + 1
        };
        self.points = vec![[0.0; 2]; (lv.inside_base + interior).max(0) as usize];
        Some(Some(lv))
    }

    /// Contexts and point counts of processed levels, and where the inside points start
    /// (`corners` points are shared by two edges).
    fn finish_levels<const N: usize, const M: usize>(
        &mut self,
        lv: &mut Levels<N, M>,
        corners: i32,
    ) {
        for e in 0..N {
            self.parity = lv.outside_parity[e];
            lv.outside_ctx[e] = self.context(lv.outside[e]);
        }
        for a in 0..M {
            self.parity = lv.inside_parity[a];
            lv.inside_ctx[a] = self.context(lv.inside[a]);
        }
        let mut n = 0;
        for e in 0..N {
            self.parity = lv.outside_parity[e];
            lv.outside_points[e] = self.num_points(lv.outside[e]);
            n += lv.outside_points[e];
        }
        n -= corners;
        for a in 0..M {
            self.parity = lv.inside_parity[a];
            let min = if self.odd() { 4 } else { 3 };
            lv.inside_points[a] = self.num_points(lv.inside[a]).max(min);
        }
        lv.inside_base = n;
    }

    fn tri_points(&mut self, lv: &Levels<3, 1>) {
        let mut at = 0usize;
        for e in 0..3 {
            let odd_edge = e & 1 != 0;
            let end = lv.outside_points[e] - 1;
            for p in 0..end {
                let q = if odd_edge { p } else { end - p };
                self.parity = lv.outside_parity[e];
                let param = self.place(&lv.outside_ctx[e], q);
                if e == 0 {
                    self.define_point(0, param, at);
                } else {
                    let v = if e == 2 { ONE.wrapping_sub(param) } else { 0 };
                    self.define_point(param, v, at);
                }
                at += 1;
            }
        }
        self.parity = lv.inside_parity[0];
        let rings = lv.inside_points[0] >> 1;
        for ring in 1..rings {
            let (start, end) = (ring, lv.inside_points[0] - 1 - ring);
            for e in 0..3 {
                let odd_edge = e & 1 != 0;
                let perp = self.place(&lv.inside_ctx[0], start);
                let perp = perp.wrapping_mul(TWO_THIRDS).wrapping_add(ONE_HALF) >> FRACTION_BITS;
                for p in start..end {
                    let q = if odd_edge { p } else { end - (p - start) };
                    let param = self.place(&lv.inside_ctx[0], q);
                    let shift = perp.wrapping_add(1) / 2;
                    match e {
                        0 => self.define_point(perp, param.wrapping_sub(shift), at),
                        1 => self.define_point(param.wrapping_sub(shift), perp, at),
                        _ => {
                            let u = param.wrapping_sub(shift);
                            self.define_point(u, ONE.wrapping_sub(u).wrapping_sub(perp), at)
                        }
                    }
                    at += 1;
                }
            }
        }
        if !self.odd() {
            self.define_point(ONE_THIRD, ONE_THIRD, at);
        }
    }

    fn tri_connectivity(&mut self, lv: &Levels<3, 1>) {
        let rings = (lv.inside_points[0] + 1) >> 1;
        let mut outside_ctx = lv.outside_ctx;
        let mut outside_parity = lv.outside_parity;
        let mut outside_points = lv.outside_points;
        let mut inside_base = lv.inside_base;
        let mut outside_base = 0;
        let mut at = 0usize;
        for ring in 1..rings {
            let inside_points = lv.inside_points[0] - 2 * ring;
            let (edge0_inside, edge0_outside) = (inside_base, outside_base);
            for e in 0..3 {
                let triangles = inside_points + outside_points[e] - 2;
                let (ib, ob) = if e == 2 {
                    let p = Patch1 {
                        inside_delta: inside_base,
                        inside_bad: inside_points - 1,
                        inside_replacement: edge0_inside,
                        outside_base: inside_points,
                        outside_delta: outside_base - inside_points,
                        outside_bad: inside_points + outside_points[e] - 1,
                        outside_replacement: edge0_outside,
                    };
                    self.patch1 = Some(p);
                    (0, p.outside_base)
                } else {
                    (inside_base, outside_base)
                };
                if ring == 1 {
                    self.stitch_transition(
                        at,
                        ib,
                        lv.inside_ctx[0].half_points,
                        lv.inside_parity[0],
                        ob,
                        outside_ctx[e].half_points,
                        outside_parity[e],
                    );
                } else {
                    self.stitch_regular(true, Diagonals::Mirrored, at, inside_points, ib, ob);
                }
                self.patch1 = None;
                at += (triangles * 3).max(0) as usize;
                outside_base += outside_points[e] - 1;
                inside_base += inside_points - 1;
                outside_points[e] = inside_points;
            }
            if ring == 1 {
                outside_ctx = [lv.inside_ctx[0]; 3];
                outside_parity = [lv.inside_parity[0]; 3];
            }
        }
        if self.odd() {
            // the centre: one triangle
            self.define_cw_triangle(outside_base, outside_base + 1, outside_base + 2, at);
        }
    }

    // ---- quads ----

    fn quad(&mut self, outer: [f32; 4], inner: [f32; 2]) {
        let Some(lv) = self.quad_levels(outer, inner) else {
            return;
        };
        let Some(lv) = lv else {
            self.define_point(0, 0, 0);
            self.define_point(ONE, 0, 1);
            self.define_point(ONE, ONE, 2);
            self.define_point(0, ONE, 3);
            match self.output {
                Output::Triangles { .. } => {
                    self.define_cw_triangle(0, 1, 3, 0);
                    self.define_cw_triangle(1, 2, 3, 3);
                }
                Output::Points => self.dump_points(),
                Output::Lines => self.dump_points_as_lines(),
            }
            return;
        };
        self.quad_points(&lv);
        match self.output {
            Output::Points => self.dump_points(),
            Output::Lines => self.dump_points_as_lines(),
            Output::Triangles { .. } => self.quad_connectivity(&lv),
        }
    }

    #[allow(clippy::type_complexity)]
    fn quad_levels(&mut self, outer: [f32; 4], inner: [f32; 2]) -> Option<Option<Levels<4, 2>>> {
        if outer.iter().any(|&e| culls(e)) {
            return None;
        }
        let (mut lo, hi) = self.bounds();
        let mut out = outer.map(|e| clamp(e, lo, hi));
        if self.integer {
            out = out.map(f32::ceil);
        }
        if self.spacing == Spacing::FractionalOdd
            && out
                .iter()
                .chain(&inner)
                .any(|&e| e > MIN_ODD + EPSILON / 2.0)
        {
            lo = MIN_ODD + EPSILON;
        }
        let mut ins = inner.map(|e| clamp(e, lo, hi));
        if self.integer {
            ins = ins.map(f32::ceil);
        }
        let outside_parity = out.map(|e| self.parity_of(e, false));
        let inside_parity = ins.map(|e| self.parity_of(e, true));
        let outside = out.map(to_fixed);
        let inside = ins.map(to_fixed);
        if (self.integer || self.odd()) && inside.iter().chain(&outside).all(|&e| e == ONE) {
            return Some(None);
        }
        let mut lv = Levels {
            outside,
            inside,
            outside_parity,
            inside_parity,
            outside_ctx: [Ctx::default(); 4],
            inside_ctx: [Ctx::default(); 2],
            outside_points: [0; 4],
            inside_points: [0; 2],
            inside_base: 0,
        };
        self.finish_levels(&mut lv, 4);
        let interior = (lv.inside_points[0] - 2) * (lv.inside_points[1] - 2);
        self.points = vec![[0.0; 2]; (lv.inside_base + interior).max(0) as usize];
        Some(Some(lv))
    }

    fn quad_points(&mut self, lv: &Levels<4, 2>) {
        let mut at = 0usize;
        for e in 0..4 {
            let odd_edge = e & 1 != 0;
            let end = lv.outside_points[e] - 1;
            for p in 0..end {
                let q = if e == 1 || e == 2 { p } else { end - p };
                self.parity = lv.outside_parity[e];
                let param = self.place(&lv.outside_ctx[e], q);
                if odd_edge {
                    self.define_point(param, if e == 3 { ONE } else { 0 }, at);
                } else {
                    self.define_point(if e == 2 { ONE } else { 0 }, param, at);
                }
                at += 1;
            }
        }
        let (nu, nv) = (lv.inside_points[0], lv.inside_points[1]);
        let rings = nu.min(nv) >> 1;
        for ring in 1..rings {
            let start = ring;
            let end = [nu - 1 - start, nv - 1 - start];
            for e in 0..4 {
                let par = [e & 1, (e + 1) & 1];
                let perp_point = if e < 2 { start } else { end[par[0]] };
                self.parity = lv.inside_parity[par[0]];
                let perp = self.place(&lv.inside_ctx[par[0]], perp_point);
                self.parity = lv.inside_parity[par[1]];
                for p in start..end[par[1]] {
                    let q = if e == 1 || e == 2 {
                        p
                    } else {
                        end[par[1]] - (p - start)
                    };
                    let param = self.place(&lv.inside_ctx[par[1]], q);
                    if par[1] != 0 {
                        self.define_point(perp, param, at);
                    } else {
                        self.define_point(param, perp, at);
                    }
                    at += 1;
                }
            }
        }
        // even tessellation leaves a degenerate inner "ring": a row of points
        if nu > nv && lv.inside_parity[1] == Parity::Even {
            let (start, end) = (rings, nu - 1 - rings);
            self.parity = lv.inside_parity[0];
            for p in start..=end {
                let param = self.place(&lv.inside_ctx[0], p);
                self.define_point(param, ONE_HALF, at);
                at += 1;
            }
        } else if nv >= nu && lv.inside_parity[0] == Parity::Even {
            let (start, end) = (rings, nv - 1 - rings);
            self.parity = lv.inside_parity[1];
            for p in (start..=end).rev() {
                let param = self.place(&lv.inside_ctx[1], p);
                self.define_point(ONE_HALF, param, at);
                at += 1;
            }
        }
    }

    fn quad_connectivity(&mut self, lv: &Levels<4, 2>) {
        let (nu, nv) = (lv.inside_points[0], lv.inside_points[1]);
        let to_centre = [(nu + 1) >> 1, (nv + 1) >> 1];
        let rings = to_centre[0].min(to_centre[1]);
        let degenerate = [
            if lv.inside_parity[1] == Parity::Even {
                to_centre[1] - 1
            } else {
                -1
            },
            if lv.inside_parity[0] == Parity::Even {
                to_centre[0] - 1
            } else {
                -1
            },
        ];
        let mut outside_ctx = lv.outside_ctx;
        let mut outside_parity = lv.outside_parity;
        let mut outside_points = lv.outside_points;
        let mut inside_base = lv.inside_base;
        let mut outside_base = 0;
        let mut at = 0usize;
        for ring in 1..rings {
            let inside_points = [nu - 2 * ring, nv - 2 * ring];
            let (edge0_inside, edge0_outside) = (inside_base, outside_base);
            for e in 0..4 {
                let par = (e + 1) & 1;
                let triangles = inside_points[par] + outside_points[e] - 2;
                let (ib, ob);
                if e == 3 {
                    if ring == degenerate[par] {
                        let base = inside_base + 1;
                        self.patch2 = Some(Patch2 {
                            base_to_invert: base,
                            corner_bad: outside_base + outside_points[e] - 1,
                            corner_replacement: edge0_outside,
                            inversion_end: (base << 1) - 1,
                        });
                        (ib, ob) = (base, outside_base);
                    } else {
                        let p = Patch1 {
                            inside_delta: inside_base,
                            inside_bad: inside_points[par] - 1,
                            inside_replacement: edge0_inside,
                            outside_base: inside_points[par],
                            outside_delta: outside_base - inside_points[par],
                            outside_bad: inside_points[par] + outside_points[e] - 1,
                            outside_replacement: edge0_outside,
                        };
                        self.patch1 = Some(p);
                        (ib, ob) = (0, p.outside_base);
                    }
                } else if e == 2 && ring == degenerate[par] {
                    self.patch2 = Some(Patch2 {
                        base_to_invert: inside_base,
                        corner_bad: -1,
                        corner_replacement: -1,
                        inversion_end: inside_base << 1,
                    });
                    (ib, ob) = (inside_base, outside_base);
                } else {
                    (ib, ob) = (inside_base, outside_base);
                }
                if ring == 1 {
                    self.stitch_transition(
                        at,
                        ib,
                        lv.inside_ctx[par].half_points,
                        lv.inside_parity[par],
                        ob,
                        outside_ctx[e].half_points,
                        outside_parity[e],
                    );
                } else {
                    self.stitch_regular(true, Diagonals::Mirrored, at, inside_points[par], ib, ob);
                }
                self.patch1 = None;
                self.patch2 = None;
                at += (triangles * 3).max(0) as usize;
                outside_base += outside_points[e] - 1;
                if e == 2 && ring == degenerate[par] {
                    inside_base -= inside_points[par] - 1;
                } else {
                    inside_base += inside_points[par] - 1;
                }
                outside_points[e] = inside_points[par];
            }
            if ring == 1 {
                for e in 0..4 {
                    outside_ctx[e] = lv.inside_ctx[e & 1];
                    outside_parity[e] = lv.inside_parity[e & 1];
                }
            }
        }
        // the centre: a row of quads when odd
        if nu > nv && lv.inside_parity[1] == Parity::Odd {
            let even_u = lv.inside_parity[0] == Parity::Even;
            let quads = (((nu >> 1) - (nv >> 1)) << 1) + if even_u { 2 } else { 1 };
            let base = outside_base + quads + 2;
            self.patch2 = Some(Patch2 {
                base_to_invert: base,
                corner_bad: base,
                corner_replacement: outside_base,
                inversion_end: base + base + quads,
            });
            self.stitch_regular(
                false,
                Diagonals::InsideToOutside,
                at,
                quads + 1,
                base,
                outside_base + 1,
            );
            self.patch2 = None;
        } else if nv >= nu && lv.inside_parity[0] == Parity::Odd {
            let even_v = lv.inside_parity[1] == Parity::Even;
            let quads = (((nv >> 1) - (nu >> 1)) << 1) + if even_v { 2 } else { 1 };
            let base = outside_base + quads + 1;
            self.patch2 = Some(Patch2 {
                base_to_invert: base,
                corner_bad: -1,
                corner_replacement: 0,
                inversion_end: base + base + quads,
            });
            let diagonals = if even_v {
                Diagonals::InsideToOutside
            } else {
                Diagonals::InsideToOutsideExceptMiddle
            };
            self.stitch_regular(false, diagonals, at, quads + 1, base, outside_base);
            self.patch2 = None;
        }
    }

    // ---- isolines ----

    fn isolines(&mut self, density: f32, detail: f32) {
        if culls(density) || culls(detail) {
            return;
        }
        let (lo, hi) = self.bounds();
        let density = clamp(density, MIN_ISOLINE_DENSITY, MAX_ISOLINE_DENSITY);
        let mut detail = clamp(detail, lo, hi);
        let detail_parity = if self.integer {
            detail = detail.ceil();
            if is_even(detail) {
                Parity::Even
            } else {
                Parity::Odd
            }
        } else {
            self.original_parity
        };
        let fx_detail = to_fixed(detail);
        self.parity = detail_parity;
        let detail_ctx = self.context(fx_detail);
        let points_per_line = self.num_points(fx_detail);
        // density is always tessellated with equal spacing
        let density = density.ceil();
        let density_parity = if is_even(density) {
            Parity::Even
        } else {
            Parity::Odd
        };
        self.parity = density_parity;
        let fx_density = to_fixed(density);
        let density_ctx = self.context(fx_density);
        // the last line, at v = 1, is not drawn
        let lines = self.num_points(fx_density) - 1;
        let mut at = 0;
        for line in 0..lines {
            for point in 0..points_per_line {
                self.parity = density_parity;
                let v = self.place(&density_ctx, line);
                self.parity = detail_parity;
                let u = self.place(&detail_ctx, point);
                self.define_point(u, v, at);
                at += 1;
            }
        }
        let mut offset = 0;
        for _ in 0..lines {
            for point in 0..points_per_line {
                let at = self.indices.len();
                if self.output == Output::Points {
                    self.define_index(offset, at);
                } else if point > 0 {
                    self.define_index(offset - 1, at);
                    self.define_index(offset, at + 1);
                }
                offset += 1;
            }
        }
    }
}
