//! Address (wrap) modes on integer texel coordinates, after floor and offsets, per tap
//! (sampling.md §8). `-1` means "border": the tap takes the border colour.
//!
//! The mode is a const generic so each kernel instantiation is branch-free; `DYN` reads the
//! mode at run time (mixed modes on different axes).

use super::lanes::{Lanes, I};
use super::sampler::AddressMode;

/// `AddressMode::Repeat` as a const-generic code (a mode's code is its discriminant).
pub const REPEAT: u8 = AddressMode::Repeat as u8;
/// `AddressMode::MirroredRepeat`.
pub const MIRRORED: u8 = AddressMode::MirroredRepeat as u8;
/// `AddressMode::ClampToEdge`.
pub const CLAMP: u8 = AddressMode::ClampToEdge as u8;
/// `AddressMode::ClampToBorder`.
pub const BORDER: u8 = AddressMode::ClampToBorder as u8;
/// Mode chosen at run time.
pub const DYN: u8 = 255;

/// The instantiation a run-time mode code gets: its own for repeat, mirrored repeat and
/// clamp-to-edge (the modes a lane group wraps lane-wise), the run-time one (`DYN`) for any
/// other code.
pub const fn instance(m: u8) -> u8 {
    match m {
        REPEAT | MIRRORED | CLAMP => m,
        _ => DYN,
    }
}

/// `$f::<M, …>` for the run-time mode code `$m`, `M` being its [`instance`]. The one place a
/// mode code becomes a const parameter.
macro_rules! by_mode {
    ($m:expr, $f:ident $(, $rest:expr)*) => {
        match $crate::texture::address::instance($m) {
            $crate::texture::address::REPEAT => $f::<{ $crate::texture::address::REPEAT } $(, $rest)*>,
            $crate::texture::address::MIRRORED => $f::<{ $crate::texture::address::MIRRORED } $(, $rest)*>,
            $crate::texture::address::CLAMP => $f::<{ $crate::texture::address::CLAMP } $(, $rest)*>,
            _ => $f::<{ $crate::texture::address::DYN } $(, $rest)*>,
        }
    };
}
pub(super) use by_mode;

#[inline(always)]
fn mirror(n: i32) -> i32 {
    if n >= 0 {
        n
    } else {
        -(1 + n)
    }
}

/// `i.rem_euclid(n)` for `n > 0`. For a power of two it is `i & (n − 1)` (the same value
/// for every i32, negative ones included, in two's complement): no integer division per tap.
#[inline(always)]
fn rem_euclid(i: i32, n: i32) -> i32 {
    if n & (n - 1) == 0 {
        i & (n - 1)
    } else {
        i.rem_euclid(n)
    }
}

/// Wraps `i` into `[0, size)` by mode `M` (`dynamic` is used only when `M == DYN`).
#[inline(always)]
pub fn wrap<const M: u8>(i: i32, size: i32, dynamic: u8) -> i32 {
    let m = if M == DYN { dynamic } else { M };
    if (0..size).contains(&i) {
        return i; // fast path: inside the level, every mode is the identity
    }
    match m {
        REPEAT => rem_euclid(i, size),
        MIRRORED => (size - 1) - mirror(rem_euclid(i, 2 * size) - size),
        CLAMP => i.clamp(0, size - 1),
        BORDER => -1, // (outside the level, by the test above)
        _ => mirror(i).clamp(0, size - 1),
    }
}

/// [`wrap`] on `W` lanes, the same value lane for lane. Repeat and mirrored repeat over
/// power-of-two sizes (`pow2`: every lane's size is one) and clamp-to-edge are straight
/// lane-wise integer operations: the mask form of `rem_euclid` holds for every i32, and both
/// formulas are the identity inside the level, so the `contains` shortcut is not needed.
/// Other modes and sizes take the scalar [`wrap`] per lane.
#[inline(always)]
pub(super) fn wrap_lanes<const M: u8, L: Lanes>(i: I<L>, size: I<L>, pow2: bool) -> I<L> {
    let one = i.lanes().i(1);
    if M == REPEAT && pow2 {
        i & (size - one)
    } else if M == MIRRORED && pow2 {
        // (n − 1) − mirror((i mod 2n) − n), with mirror(x) = x ^ (x >> 31) (= −(1 + x)
        // for x < 0)
        let x = (i & (size + size - one)) - size;
        (size - one) - (x ^ x.sign())
    } else if M == CLAMP {
        i.max(i.lanes().i(0)).min(size - one)
    } else {
        let (x, n) = (i.arr(), size.arr());
        i.lanes().i_of(|k| wrap::<M>(x[k], n[k], M))
    }
}

/// Whether mode `M` wraps lane-wise ([`wrap_lanes`] without the scalar fallback) over
/// levels that are powers of two (`pow2`) or not.
#[inline(always)]
pub(super) const fn lanewise(m: u8, pow2: bool) -> bool {
    m == CLAMP || ((m == REPEAT || m == MIRRORED) && pow2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use AddressMode::*;

    /// `AddressMode::MirrorClampToEdge`'s code (the run-time `wrap`'s other arm).
    const MIRROR_CLAMP: u8 = MirrorClampToEdge as u8;

    /// Run-time wrap for any mode.
    fn wrap_mode(mode: AddressMode, i: i32, size: i32) -> i32 {
        wrap::<DYN>(i, size, mode as u8)
    }

    #[test]
    fn hand_tables() {
        // size 3, i = -4..=6; expected sequences written out by hand from the §8 table
        let is: Vec<i32> = (-4..=6).collect();
        let run = |m| is.iter().map(|&i| wrap_mode(m, i, 3)).collect::<Vec<_>>();
        assert_eq!(run(Repeat), vec![2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
        // mirrored: ... -4->2? period 6: 0 1 2 2 1 0 | for -1 -> 0, -2 -> 1, -3 -> 2, -4 -> 2
        assert_eq!(run(MirroredRepeat), vec![2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0]);
        assert_eq!(run(ClampToEdge), vec![0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2]);
        assert_eq!(
            run(ClampToBorder),
            vec![-1, -1, -1, -1, 0, 1, 2, -1, -1, -1, -1]
        );
        // mirror clamp: -1 -> 0, -2 -> 1, -3 -> 2, -4 -> 3 -> clamp 2
        assert_eq!(
            run(MirrorClampToEdge),
            vec![2, 2, 1, 0, 0, 1, 2, 2, 2, 2, 2]
        );
    }

    #[test]
    fn power_of_two_wrap_is_rem_euclid() {
        // the mask route against the definition, for every i in a window around 0 and the
        // extremes, sizes 1..=64 (powers of two and not)
        let is = (-300..300).chain([i32::MIN, i32::MIN + 1, i32::MAX - 1, i32::MAX]);
        for n in 1..=64 {
            for i in is.clone() {
                let r = i64::from(i).rem_euclid(i64::from(n)) as i32;
                assert_eq!(rem_euclid(i, n), r, "{i} mod {n}");
            }
        }
    }

    /// [`wrap_lanes`] on four lanes.
    fn wrap4<const M: u8>(i: [i32; 4], size: [i32; 4], pow2: bool) -> [i32; 4] {
        let l = crate::texture::lanes::four();
        wrap_lanes::<M, _>(l.i_of(|k| i[k]), l.i_of(|k| size[k]), pow2).arr()
    }

    #[test]
    fn wrap_lanes_is_wrap_lane_for_lane() {
        // every mode, sizes 1..=70 (powers of two take the mask forms), coordinates in a
        // window around 0, around multiples of the size, and at the i32 extremes
        let mut is: Vec<i32> = (-300..300).collect();
        is.extend([
            i32::MIN,
            i32::MIN + 1,
            i32::MAX - 1,
            i32::MAX,
            -2_097_153,
            2_097_152,
        ]);
        for n in 1..=70 {
            for chunk in is.chunks(4) {
                let mut i = [7i32; 4];
                i[..chunk.len()].copy_from_slice(chunk);
                let size = [n; 4];
                macro_rules! check {
                    ($m:expr) => {{
                        let want = i.map(|x| wrap::<$m>(x, n, $m));
                        assert_eq!(
                            wrap4::<$m>(i, size, (n as u32).is_power_of_two()),
                            want,
                            "mode {} n {n}",
                            $m
                        );
                    }};
                }
                check!(REPEAT);
                check!(MIRRORED);
                check!(CLAMP);
                check!(BORDER);
                check!(MIRROR_CLAMP);
            }
        }
        // lanes of different power-of-two sizes
        let i = [-5, 77, i32::MIN, 1 << 30];
        let size = [1, 2, 64, 4096];
        for l in 0..4 {
            assert_eq!(
                wrap4::<REPEAT>(i, size, true)[l],
                wrap::<REPEAT>(i[l], size[l], REPEAT)
            );
            let m = wrap4::<MIRRORED>(i, size, true)[l];
            assert_eq!(m, wrap::<MIRRORED>(i[l], size[l], MIRRORED));
        }
    }

    #[test]
    fn mirrored_by_hand_on_a_power_of_two() {
        // size 4: period 8 is 0 1 2 3 3 2 1 0 (written out by hand), i = -9..=9
        let i: Vec<i32> = (-9..=9).collect();
        let got: Vec<i32> = i
            .chunks(4)
            .flat_map(|c| {
                let mut x = [0i32; 4];
                x[..c.len()].copy_from_slice(c);
                wrap4::<MIRRORED>(x, [4; 4], true)[..c.len()].to_vec()
            })
            .collect();
        let want = vec![
            0, // -9
            0, 1, 2, 3, 3, 2, 1, 0, // -8..=-1
            0, 1, 2, 3, 3, 2, 1, 0, // 0..=7
            0, 1, // 8, 9
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn extremes_do_not_overflow() {
        for m in [
            Repeat,
            MirroredRepeat,
            ClampToEdge,
            ClampToBorder,
            MirrorClampToEdge,
        ] {
            for i in [i32::MIN, i32::MAX] {
                let r = wrap_mode(m, i, 7);
                assert!(r == -1 || (0..7).contains(&r));
            }
        }
    }
}
