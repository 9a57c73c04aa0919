//! `EXPECT` checks, following google/amber's verifier (`src/verifier.cc`, `src/buffer.cc`):
//! image probes compare each component the framebuffer format has against the expected colour
//! with a per-component tolerance (default 0.002 in normalized units); buffer comparisons read
//! consecutive scalars of the buffer's type at a byte offset; `EQ` on floats allows a relative
//! 1e-8, and an integer literal compared with a float buffer compares the truncated values, as
//! Amber does. Each check returns `Ok(None)` on success or the failure message.

use super::ast::{Comparator, Expect, Number, Tolerance};
use super::formats::{self, ScalarRead};
use super::run::{BufState, Runner};
use super::types::{self, NumMode};
use crate::limits::Charge;
use crate::{Error, Result};

const DEFAULT_TEXEL_TOLERANCE: f64 = 0.002;
const EPSILON_PERCENT: f64 = 0.000001;

/// Check one expectation.
pub(crate) fn check(r: &Runner, e: &Expect) -> Result<Option<String>> {
    match e {
        Expect::Probe {
            buffer,
            pos,
            size,
            relative,
            has_alpha,
            color,
            tolerance,
        } => probe(
            r.buf(buffer)?,
            buffer,
            *pos,
            *size,
            *relative,
            *has_alpha,
            *color,
            tolerance,
            r.is_vkscript(),
        ),
        Expect::Values {
            buffer,
            index,
            data_type,
            tolerance,
            comparator,
            values,
        } => {
            let st = r.buf(buffer)?;
            // Values follow one another in the buffer's own layout, skipping its padding (a
            // std430 mat3 column is 3 values then 4 bytes, a struct's members sit at their
            // offsets), as Amber's ProbeSSBO walks the format's segments; an explicit EXPECT
            // data type reads consecutive scalars.
            let (slots, stride) = match data_type {
                Some(d) => {
                    let slot = types::Slot {
                        offset: 0,
                        bytes: d.scalar.bytes(),
                        mode: d.scalar.mode(),
                    };
                    (vec![slot], slot.bytes)
                }
                None => {
                    let slots = st.decl.elem.slots(st.decl.layout).ok_or_else(|| {
                        Error::Unsupported(format!(
                            "EXPECT … IDX on buffer '{buffer}' of a packed type"
                        ))
                    })?;
                    (slots, st.decl.elem.stride(st.decl.layout))
                }
            };
            Ok(compare_values(
                &st.bytes,
                buffer,
                *index,
                &slots,
                stride,
                tolerance,
                *comparator,
                values,
            ))
        }
        Expect::EqBuffer { buffer, other } => {
            let (a, b) = (r.buf(buffer)?, r.buf(other)?);
            if a.bytes.len() != b.bytes.len() {
                return Ok(Some(format!(
                    "EQ_BUFFER: '{buffer}' has {} bytes, '{other}' has {}",
                    a.bytes.len(),
                    b.bytes.len()
                )));
            }
            Ok(a.bytes
                .iter()
                .zip(&b.bytes)
                .position(|(x, y)| x != y)
                .map(|i| {
                    format!(
                        "EQ_BUFFER: '{buffer}' and '{other}' differ at byte {i}: {} vs {}",
                        a.bytes[i], b.bytes[i]
                    )
                }))
        }
        Expect::RmseBuffer {
            buffer,
            other,
            tolerance,
        } => {
            let ((a, _a), (b, _b)) = (scalars(r, buffer)?, scalars(r, other)?);
            if a.len() != b.len() || a.is_empty() {
                return Ok(Some(format!(
                    "RMSE_BUFFER: '{buffer}' has {} values, '{other}' has {}",
                    a.len(),
                    b.len()
                )));
            }
            let sum: f64 = a.iter().zip(&b).map(|(x, y)| (x - y) * (x - y)).sum();
            let rmse = (sum / a.len() as f64).sqrt();
            Ok((rmse > *tolerance).then(|| {
                format!("RMSE_BUFFER: root mean square error {rmse} > tolerance {tolerance}")
            }))
        }
        Expect::HistogramEmdBuffer {
            buffer,
            other,
            tolerance,
        } => {
            let (a, b) = (r.buf(buffer)?, r.buf(other)?);
            let emd = histogram_emd(a, b)?;
            Ok((emd > *tolerance).then(|| {
                format!(
                    "EQ_HISTOGRAM_EMD_BUFFER: earth mover's distance {emd} > tolerance {tolerance}"
                )
            }))
        }
    }
}

/// Every component of a buffer as a number (raw integers for integer and normalized
/// formats), and their charge to the script's memory budget.
fn scalars(r: &Runner, name: &str) -> Result<(Vec<f64>, Charge)> {
    let st = r.buf(name)?;
    let sr = formats::scalar_of(&st.decl.elem).ok_or_else(|| {
        Error::Unsupported(format!(
            "buffer '{}' of a struct or packed type",
            st.decl.name
        ))
    })?;
    let n = sr.bytes as usize;
    let count = st.bytes.len() / n;
    let what = format!("the values of buffer {}", crate::error::quote(name));
    let charge = r.mem.charge(count as u64 * 8, &what)?;
    let mut v = Vec::new();
    v.try_reserve_exact(count)
        .map_err(|_| Error::Memory(what.clone()))?;
    v.extend(
        st.bytes
            .chunks_exact(n)
            .map(|c| read_scalar(c, sr).as_f64()),
    );
    Ok((v, charge))
}

/// Per-channel (R, G, B, A) 256-bin histograms of two 8-bit-per-channel images: the largest
/// earth mover's distance between the normalized histograms, divided by the bin count.
pub fn histogram_emd(a: &BufState, b: &BufState) -> Result<f64> {
    let fa = a.format_name().unwrap_or_default();
    let fb = b.format_name().unwrap_or_default();
    let ok = |f: &str| {
        types::Format::parse(f)
            .map(|f| f.components.iter().all(|c| c.bits == 8) && f.pack_bits.is_none())
            .unwrap_or(false)
    };
    if !ok(&fa) || !ok(&fb) || fa != fb {
        return Err(Error::Unsupported(format!(
            "EQ_HISTOGRAM_EMD_BUFFER on formats {fa} and {fb} (8-bit channels only)"
        )));
    }
    let ch = types::Format::parse(&fa)
        .map(|f| f.components.len())
        .unwrap_or(4);
    let hist = |bytes: &[u8]| {
        let mut h = vec![[0f64; 256]; ch];
        for t in bytes.chunks_exact(ch) {
            for (c, &v) in t.iter().enumerate() {
                h[c][v as usize] += 1.0;
            }
        }
        h
    };
    let (ha, hb) = (hist(&a.bytes), hist(&b.bytes));
    let mut max_emd = 0f64;
    for c in 0..ch {
        let (sa, sb): (f64, f64) = (ha[c].iter().sum(), hb[c].iter().sum());
        if sa == 0.0 || sb == 0.0 {
            continue;
        }
        let mut carry = 0.0;
        let mut emd = 0.0;
        for i in 0..256 {
            carry += ha[c][i] / sa - hb[c][i] / sb;
            emd += carry.abs();
        }
        max_emd = max_emd.max(emd / 256.0);
    }
    Ok(max_emd)
}

#[allow(clippy::too_many_arguments)]
fn probe(
    st: &BufState,
    name: &str,
    pos: [f32; 2],
    size: [f32; 2],
    relative: bool,
    has_alpha: bool,
    color: [f64; 4],
    tolerance: &[Tolerance],
    vkscript: bool,
) -> Result<Option<String>> {
    let fname = st
        .format_name()
        .ok_or_else(|| Error::Amber(format!("probe of '{name}', which has no format")))?;
    let afmt = types::Format::parse(&fname)
        .ok_or_else(|| Error::Unsupported(format!("probe of format {fname}")))?;
    let tfmt = formats::texture_format(&fname)?;
    let (fw, fh) = (st.width, st.height);
    // A relative single-point probe has size (0, 0) (see `ast::Expect::Probe`).
    let point = relative && size == [0.0, 0.0];
    let (x, y, w, h) = if point {
        (
            (fw as f32 * pos[0]) as u32,
            (fh as f32 * pos[1]) as u32,
            1,
            1,
        )
    } else if relative {
        (
            (fw as f32 * pos[0]) as u32,
            (fh as f32 * pos[1]) as u32,
            (fw as f32 * size[0]) as u32,
            (fh as f32 * size[1]) as u32,
        )
    } else {
        (pos[0] as u32, pos[1] as u32, size[0] as u32, size[1] as u32)
    };
    if x as u64 + w as u64 > fw as u64 || y as u64 + h as u64 > fh as u64 {
        return Ok(Some(format!(
            "probe of '{name}': rectangle ({x}, {y}) size {w}x{h} is outside the {fw}x{fh} image"
        )));
    }
    let normalized = afmt
        .components
        .iter()
        .any(|c| matches!(c.mode, NumMode::Unorm | NumMode::Snorm | NumMode::Srgb));
    let mut tol = [(DEFAULT_TEXEL_TOLERANCE, false); 4];
    if !tolerance.is_empty() {
        for (i, t) in tol.iter_mut().enumerate() {
            let src = if tolerance.len() == 4 {
                tolerance[i]
            } else {
                tolerance[0]
            };
            let v = if !src.percent && !vkscript && normalized {
                src.value / 255.0
            } else {
                src.value
            };
            *t = (v, src.percent);
        }
    }
    let present: Vec<usize> = afmt
        .components
        .iter()
        .filter_map(|c| match c.name {
            'R' => Some(0),
            'G' => Some(1),
            'B' => Some(2),
            'A' if has_alpha => Some(3),
            _ => None,
        })
        .collect();
    let ts = tfmt.texel_size();
    let mut bad = 0u64;
    let mut first = None;
    for j in y..y + h {
        for i in x..x + w {
            let o = (j as usize * fw as usize + i as usize) * ts;
            let Some(texel) = st.bytes.get(o..o + ts) else {
                return Ok(Some(format!(
                    "probe of '{name}': texel ({i}, {j}) is past the end of its {} bytes",
                    st.bytes.len()
                )));
            };
            let got = tfmt.decode_f32(texel).map(|v| v as f64);
            let ok = present.iter().all(|&c| {
                let (t, pct) = tol[c];
                // 1e-6 absorbs the f32 rounding of decoded texels (128/255 in f32 vs f64).
                let d = (got[c] - color[c]).abs() - 1e-6;
                if pct {
                    d <= t / 100.0 * color[c].abs()
                } else {
                    d <= t
                }
            });
            if !ok {
                if first.is_none() {
                    first = Some((i, j, got));
                }
                bad += 1;
            }
        }
    }
    Ok(first.map(|(i, j, got)| {
        let s = if normalized { 255.0 } else { 1.0 };
        let n = if has_alpha { 4 } else { 3 };
        let fmt = |v: &[f64]| {
            v[..n]
                .iter()
                .map(|c| format!("{}", (c * s * 1000.0).round() / 1000.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "probe of '{name}' failed at ({i}, {j}): expected {} ({}), got ({}); {bad} of {} \
             pixels differ",
            if has_alpha { "RGBA" } else { "RGB" },
            fmt(&color),
            fmt(&got),
            w as u64 * h as u64
        )
    }))
}

/// A value read from a buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Int(i128),
    Float(f64),
}

impl Val {
    fn as_f64(self) -> f64 {
        match self {
            Val::Int(i) => i as f64,
            Val::Float(f) => f,
        }
    }
}

fn read_scalar(b: &[u8], sr: ScalarRead) -> Val {
    let mut raw = [0u8; 8];
    raw[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
    let u = u64::from_le_bytes(raw);
    let bits = sr.bytes * 8;
    match sr.mode {
        NumMode::Sfloat | NumMode::Ufloat => Val::Float(match sr.bytes {
            2 => half::f16::from_bits(u as u16).to_f64(),
            4 => f32::from_bits(u as u32) as f64,
            _ => f64::from_bits(u),
        }),
        NumMode::Sint | NumMode::Snorm | NumMode::Sscaled => {
            let shift = 64 - bits;
            Val::Int((((u << shift) as i64) >> shift) as i128)
        }
        _ => Val::Int(u as i128),
    }
}

/// The expected value cast to the buffer's scalar type, as Amber's `static_cast<T>`.
fn cast(v: Number, sr: ScalarRead) -> Val {
    let float = matches!(sr.mode, NumMode::Sfloat | NumMode::Ufloat);
    if float {
        let f = v.as_f64();
        return Val::Float(match sr.bytes {
            2 => half::f16::from_f64(f).to_f64(),
            4 => f as f32 as f64,
            _ => f,
        });
    }
    let i = match v {
        Number::Int(i) => i,
        Number::Float(f) => f as i64 as i128,
    };
    let bits = sr.bytes * 8;
    let u = (i as u128 as u64)
        & if bits >= 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
    let mut b = [0u8; 8];
    b.copy_from_slice(&u.to_le_bytes());
    read_scalar(&b[..sr.bytes as usize], sr)
}

fn within(actual: f64, expected: f64, t: Tolerance) -> bool {
    let d = (actual - expected).abs();
    if t.percent {
        d <= t.value / 100.0 * expected.abs()
    } else {
        d <= t.value
    }
}

#[allow(clippy::too_many_arguments)]
fn compare_values(
    bytes: &[u8],
    name: &str,
    index: u64,
    slots: &[types::Slot],
    stride: u32,
    tolerance: &[Tolerance],
    cmp: Comparator,
    values: &[Number],
) -> Option<String> {
    if slots.is_empty() {
        return (!values.is_empty()).then(|| format!("EXPECT {name} IDX {index}: no values"));
    }
    // Value i is slot i mod n of element i / n.
    let at = |i: u64| {
        let n = slots.len() as u64;
        let slot = slots[(i % n) as usize];
        let read = ScalarRead {
            bytes: slot.bytes,
            mode: slot.mode,
        };
        // saturating: an offset past u64 (a hostile IDX) is past the buffer's end
        let o = (i / n)
            .saturating_mul(stride as u64)
            .saturating_add(index)
            .saturating_add(slot.offset as u64);
        (o, read)
    };
    let end = (0..values.len() as u64)
        .map(|i| {
            let (o, sr) = at(i);
            o.saturating_add(sr.bytes as u64)
        })
        .max()
        .unwrap_or(index);
    if end > bytes.len() as u64 {
        return Some(format!(
            "EXPECT {name} IDX {index}: reading {} values reaches byte {end}, the buffer has {}",
            values.len(),
            bytes.len()
        ));
    }
    let eps = Tolerance {
        value: EPSILON_PERCENT,
        percent: true,
    };
    for (i, v) in values.iter().enumerate() {
        let (o, sr) = at(i as u64);
        let o = o as usize;
        let a = read_scalar(&bytes[o..o + sr.bytes as usize], sr);
        let e = cast(*v, sr);
        let int_literal = matches!(v, Number::Int(_));
        let eq = || match (a, e) {
            (Val::Int(x), Val::Int(y)) => x == y,
            _ if int_literal => a.as_f64().trunc() == e.as_f64().trunc(),
            _ => within(a.as_f64(), e.as_f64(), eps),
        };
        let ok = if !tolerance.is_empty() && matches!(cmp, Comparator::Eq) {
            within(a.as_f64(), e.as_f64(), tolerance[0])
        } else {
            match cmp {
                Comparator::Eq => eq(),
                Comparator::Ne => !eq(),
                Comparator::Lt => a.as_f64() < e.as_f64(),
                Comparator::Le => a.as_f64() <= e.as_f64(),
                Comparator::Gt => a.as_f64() > e.as_f64(),
                Comparator::Ge => a.as_f64() >= e.as_f64(),
            }
        };
        if !ok {
            let op = match cmp {
                Comparator::Eq if !tolerance.is_empty() => "~=",
                Comparator::Eq => "==",
                Comparator::Ne => "!=",
                Comparator::Lt => "<",
                Comparator::Le => "<=",
                Comparator::Gt => ">",
                Comparator::Ge => ">=",
            };
            let show = |v: Val| match v {
                Val::Int(i) => i.to_string(),
                Val::Float(f) => format!("{f}"),
            };
            return Some(format!(
                "EXPECT {name} IDX {index}: value {i} (byte {o}): got {}, expected {op} {}",
                show(a),
                show(e)
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    const F32: ScalarRead = ScalarRead {
        bytes: 4,
        mode: NumMode::Sfloat,
    };
    const I32: ScalarRead = ScalarRead {
        bytes: 4,
        mode: NumMode::Sint,
    };

    /// `compare_values` over consecutive scalars of a buffer named `b` (no element layout).
    fn consecutive(
        b: &[u8],
        index: u64,
        sr: ScalarRead,
        tol: &[Tolerance],
        cmp: Comparator,
        vals: &[Number],
    ) -> Option<String> {
        let slot = types::Slot {
            offset: 0,
            bytes: sr.bytes,
            mode: sr.mode,
        };
        compare_values(b, "b", index, &[slot], sr.bytes, tol, cmp, vals)
    }

    /// `compare_values` over elements of `elem` laid out in `layout`.
    fn laid_out(
        b: &[u8],
        elem: &types::ElemType,
        layout: types::Layout,
        vals: &[Number],
    ) -> Option<String> {
        let slots = elem.slots(layout).unwrap();
        let stride = elem.stride(layout);
        compare_values(b, "b", 0, &slots, stride, &[], Comparator::Eq, vals)
    }

    /// An IDX near u64::MAX is past the buffer's end: an error, not an offset wrapped round
    /// to the start.
    #[test]
    fn an_index_past_u64_is_past_the_end() {
        let b = f32s(&[1.0, 2.5]);
        for index in [u64::MAX, u64::MAX - 3, u64::MAX / 2] {
            let vals = [Number::Float(1.0), Number::Float(2.5)];
            let e = consecutive(&b, index, F32, &[], Comparator::Eq, &vals).unwrap();
            assert!(e.contains("the buffer has 8"), "{e}");
        }
    }

    #[test]
    fn float_equality_and_tolerance() {
        let b = f32s(&[1.0, 2.5]);
        let vals = [Number::Float(1.0), Number::Float(2.5)];
        assert!(consecutive(&b, 0, F32, &[], Comparator::Eq, &vals).is_none());
        let wrong = [Number::Float(1.0), Number::Float(2.6)];
        assert!(consecutive(&b, 0, F32, &[], Comparator::Eq, &wrong).is_some());
        let t = [Tolerance {
            value: 0.2,
            percent: false,
        }];
        assert!(consecutive(&b, 0, F32, &t, Comparator::Eq, &wrong).is_none());
        // Byte offset 4 is the second float.
        assert!(consecutive(&b, 4, F32, &[], Comparator::Gt, &[Number::Float(2.0)]).is_none());
    }

    #[test]
    fn signed_ints_compare_as_signed() {
        let b: Vec<u8> = (-3i32).to_le_bytes().to_vec();
        assert!(consecutive(&b, 0, I32, &[], Comparator::Eq, &[Number::Int(-3)]).is_none());
        assert!(consecutive(&b, 0, I32, &[], Comparator::Lt, &[Number::Int(0)]).is_none());
        assert!(consecutive(&b, 0, I32, &[], Comparator::Ge, &[Number::Int(0)]).is_some());
    }

    #[test]
    fn mat3_values_skip_the_column_padding() {
        // std430 mat3: three columns of 3 floats, each column 16 bytes apart; the fourth word
        // of each column is padding (here 99.0, which must never be read).
        let b = f32s(&[
            1.0, 2.0, 3.0, 99.0, 4.0, 5.0, 6.0, 99.0, 7.0, 8.0, 9.0, 99.0,
        ]);
        let mat3 = types::ElemType::Data(types::DataType::parse("mat3x3<float>").unwrap());
        let vals: Vec<Number> = (1..=9).map(|v| Number::Float(v as f64)).collect();
        let got = |vals: &[Number]| laid_out(&b, &mat3, types::Layout::Std430, vals);
        assert_eq!(got(&vals), None);
        // Read back to back, the fourth value would be the padding.
        assert!(consecutive(&b, 0, F32, &[], Comparator::Eq, &vals).is_some());
        let mut wrong = vals.clone();
        wrong[8] = Number::Float(99.0);
        assert!(got(&wrong).is_some());
    }

    #[test]
    fn struct_values_sit_at_member_offsets_with_their_own_types() {
        // std140 { float a; int b; struct { int c; float d; } e; }: a at 0, b at 4, the
        // nested struct rounded up to 16 bytes, so c at 16 and d at 20; 32 bytes a struct.
        let sub = types::StructType {
            name: "sub".into(),
            stride: None,
            members: vec![member("c", "int32"), member("d", "float")],
        };
        let outer = types::ElemType::Struct(types::StructType {
            name: "outer".into(),
            stride: None,
            members: vec![
                member("a", "float"),
                member("b", "int32"),
                types::Member {
                    ty: types::MemberType::Struct(Box::new(sub)),
                    ..member("e", "float")
                },
            ],
        });
        let mut b = vec![0xEEu8; 64];
        let mut put = |at: usize, v: [u8; 4]| b[at..at + 4].copy_from_slice(&v);
        put(0, 1.1f32.to_le_bytes());
        put(4, 220i32.to_le_bytes());
        put(16, 1024i32.to_le_bytes());
        put(20, 2.4f32.to_le_bytes());
        put(32, 5.5f32.to_le_bytes());
        put(36, (-7i32).to_le_bytes());
        let vals = [
            Number::Float(1.1),
            Number::Int(220),
            Number::Int(1024),
            Number::Float(2.4),
            Number::Float(5.5),
            Number::Int(-7),
        ];
        assert_eq!(laid_out(&b, &outer, types::Layout::Std140, &vals), None);
        // Each member is compared as its own type.
        let mut wrong = vals;
        wrong[2] = Number::Int(1025);
        assert!(laid_out(&b, &outer, types::Layout::Std140, &wrong).is_some());
        // In std430 the nested struct starts at 8, where the padding bytes are.
        assert!(laid_out(&b, &outer, types::Layout::Std430, &vals).is_some());
    }

    fn member(name: &str, ty: &str) -> types::Member {
        types::Member {
            name: name.into(),
            ty: types::MemberType::Data(types::DataType::parse(ty).unwrap()),
            offset: None,
            array_stride: None,
            matrix_stride: None,
        }
    }

    #[test]
    fn out_of_range_read_fails() {
        let b = f32s(&[1.0]);
        assert!(consecutive(&b, 4, F32, &[], Comparator::Eq, &[Number::Float(1.0)]).is_some());
    }
}
