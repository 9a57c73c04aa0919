//! Differential runs: two compilations of the same shader (DXIL against SPIR-V, two SPIR-V
//! binaries such as before and after `spirv-opt`) run on the same inputs, and the first
//! values where their outputs differ, with the ULP distance between them.
//!
//! Two kinds of inputs:
//! - [`scene`]: an Amber script whose shader of the given stage is replaced by each build in
//!   turn; every buffer the script ends with (colour attachments, storage buffers) is
//!   compared component by component in its own format;
//! - [`grid`]: a fragment shader without resources over an N×N grid of pixels (N/2 × N/2
//!   quads) whose inputs are generated: `FragCoord` is the pixel centre and every input
//!   location component a fixed pseudo-random value in [0, 1) per pixel.
//!
//! Float components compare by their bits: the ULP distance is the number of representable
//! values between the two (0 and -0 are one apart; NaNs are reported with no distance).
//! Integer and normalized components compare as integers.

use std::path::Path;

use crate::amber::ast::{ShaderFormat, ShaderSource, ShaderType, StmtKind};
use crate::amber::{BufferDump, RunOptions, ScriptResult, Status};
use crate::exec::{run_fragment_quads, Bindings, FragQuadInput};
use crate::ir::{IoBinding, ScalarTy, Stage};
use crate::pipeline::Shader;
use crate::{Error, Result};

/// A shader build as a scene takes it.
#[derive(Clone, Debug)]
pub enum Build {
    /// A SPIR-V module (host-order words).
    Spirv(Vec<u32>),
    /// A DXIL container.
    Dxil(Vec<u8>),
}

/// One differing value.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// Where: buffer or output, texel or lane, component.
    pub place: String,
    /// The two values as text (with their bits).
    pub a: String,
    pub b: String,
    /// Representable values between them (`None` for NaNs and mismatched kinds).
    pub ulp: Option<u64>,
}

/// What a differential run found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Values compared.
    pub compared: usize,
    /// Values that differ.
    pub differing: usize,
    /// The first differences, in order of place.
    pub first: Vec<Difference>,
    /// Notes (a scene's outcome with each build when they differ).
    pub notes: Vec<String>,
}

/// How a component is compared.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    F32,
    F16,
    Int { bytes: usize },
}

/// Floats ordered as integers: the distance between two is their ULP distance.
fn ordered(bits: u64, width: u32) -> i128 {
    let sign = 1u64 << (width - 1);
    let mag = (bits & (sign - 1)) as i128;
    if bits & sign != 0 {
        -mag - 1
    } else {
        mag
    }
}

fn float_text(bits: u64, kind: Kind) -> String {
    match kind {
        Kind::F32 => format!("{:?} (0x{bits:08x})", f32::from_bits(bits as u32)),
        Kind::F16 => format!("{:?} (0x{bits:04x})", half::f16::from_bits(bits as u16)),
        Kind::Int { .. } => format!("{bits} (0x{bits:x})"),
    }
}

fn is_nan(bits: u64, kind: Kind) -> bool {
    match kind {
        Kind::F32 => f32::from_bits(bits as u32).is_nan(),
        Kind::F16 => half::f16::from_bits(bits as u16).is_nan(),
        Kind::Int { .. } => false,
    }
}

/// Compares one value; records it when it differs.
fn compare(
    report: &mut Report,
    limit: usize,
    place: impl FnOnce() -> String,
    a: u64,
    b: u64,
    kind: Kind,
) {
    report.compared += 1;
    if a == b {
        return;
    }
    report.differing += 1;
    if report.first.len() >= limit {
        return;
    }
    let ulp = match kind {
        _ if is_nan(a, kind) || is_nan(b, kind) => None,
        Kind::F32 => Some((ordered(a, 32) - ordered(b, 32)).unsigned_abs() as u64),
        Kind::F16 => Some((ordered(a, 16) - ordered(b, 16)).unsigned_abs() as u64),
        Kind::Int { .. } => Some(a.abs_diff(b)),
    };
    report.first.push(Difference {
        place: place(),
        a: float_text(a, kind),
        b: float_text(b, kind),
        ulp,
    });
}

/// The component layout of a buffer's format: (component kind, components per texel).
fn layout(d: &BufferDump) -> (Kind, usize) {
    let name = d.format.as_deref().unwrap_or("");
    let float = name.contains("SFLOAT") || name.contains("float");
    let bits = if name.contains("64") {
        64
    } else if name.contains("32") || name.is_empty() {
        32
    } else if name.contains("16") {
        16
    } else {
        8
    };
    let comps = name.matches(char::is_alphabetic).count().max(1);
    let kind = match (float, bits) {
        (true, 32) => Kind::F32,
        (true, 16) => Kind::F16,
        _ => Kind::Int { bytes: bits / 8 },
    };
    let comps = if name.is_empty() { 1 } else { comps.min(4) };
    (kind, comps)
}

fn read(bytes: &[u8], at: usize, n: usize) -> u64 {
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(&bytes[at..at + n]);
    u64::from_le_bytes(w)
}

/// Compares two runs' buffers of the same names.
fn compare_buffers(a: &[BufferDump], b: &[BufferDump], limit: usize, report: &mut Report) {
    for da in a {
        let Some(db) = b.iter().find(|d| d.name == da.name) else {
            report
                .notes
                .push(format!("buffer {} only in the first run", da.name));
            continue;
        };
        if da.bytes.len() != db.bytes.len() {
            report.notes.push(format!(
                "buffer {}: {} bytes against {}",
                da.name,
                da.bytes.len(),
                db.bytes.len()
            ));
            continue;
        }
        let (kind, comps) = layout(da);
        let size = match kind {
            Kind::F32 => 4,
            Kind::F16 => 2,
            Kind::Int { bytes } => bytes.max(1),
        };
        let n = da.bytes.len() / size;
        for i in 0..n {
            let (x, y) = (
                read(&da.bytes, i * size, size),
                read(&db.bytes, i * size, size),
            );
            let texel = i / comps;
            let place = || match (da.width, texel) {
                (w, t) if w > 0 => format!(
                    "{} ({}, {}) component {}",
                    da.name,
                    t as u32 % w,
                    t as u32 / w,
                    i % comps
                ),
                _ => format!("{} element {} component {}", da.name, texel, i % comps),
            };
            compare(report, limit, place, x, y, kind);
        }
    }
}

/// Runs the Amber script at `script` twice, its `stage` shader (the one named `name`, which
/// must be given when the script has several) replaced by `a` and then by `b`, and compares
/// every buffer it ends with. The first `limit` differences are kept.
pub fn scene(
    script: &Path,
    stage: Stage,
    name: Option<&str>,
    a: &Build,
    b: &Build,
    opts: &RunOptions,
    limit: usize,
) -> Result<Report> {
    let parsed = crate::amber::parse_file(script)?;
    let want = match stage {
        Stage::Vertex => ShaderType::Vertex,
        Stage::Fragment => ShaderType::Fragment,
        Stage::Compute => ShaderType::Compute,
        Stage::TessControl => ShaderType::TessellationControl,
        Stage::TessEval => ShaderType::TessellationEvaluation,
        Stage::Geometry => ShaderType::Geometry,
    };
    let run = |build: &Build| -> Result<ScriptResult> {
        let mut s = parsed.clone();
        let mut replaced = 0;
        for st in &mut s.stmts {
            if let StmtKind::Shader(sh) = &mut st.kind {
                if sh.stage == want && name.is_none_or(|n| n == sh.name) {
                    let (format, bytes) = match build {
                        Build::Spirv(w) => (
                            ShaderFormat::SpirvBin,
                            w.iter().flat_map(|x| x.to_le_bytes()).collect(),
                        ),
                        Build::Dxil(b) => (ShaderFormat::Dxil, b.clone()),
                    };
                    sh.format = format;
                    sh.source = ShaderSource::Binary(bytes);
                    sh.target_env = None;
                    replaced += 1;
                }
            }
        }
        if replaced != 1 {
            return Err(Error::Amber(format!(
                "{}: the scene has {replaced} {} shaders{}; diff replaces exactly one (name it)",
                script.display(),
                want.keyword(),
                name.map(|n| format!(" named {n}")).unwrap_or_default()
            )));
        }
        let opts = RunOptions {
            keep_images: true,
            ..opts.clone()
        };
        Ok(crate::amber::run_script(&s, &opts))
    };
    Ok(compare_results(&run(a)?, &run(b)?, limit))
}

/// Compares two runs of a scene (with [`RunOptions::keep_images`]): their outcomes, and every
/// buffer they end with.
pub fn compare_results(ra: &ScriptResult, rb: &ScriptResult, limit: usize) -> Report {
    let mut report = Report::default();
    if ra.status != rb.status || !matches!(ra.status, Status::Pass) {
        report.notes.push(format!(
            "the scene {} with A, {} with B{}{}",
            ra.status.word(),
            rb.status.word(),
            detail(&ra.status),
            detail(&rb.status)
        ));
    }
    compare_buffers(&ra.buffers, &rb.buffers, limit, &mut report);
    report
}

fn detail(s: &Status) -> String {
    match s.detail() {
        "" => String::new(),
        d => format!(" ({})", d.split_whitespace().collect::<Vec<_>>().join(" ")),
    }
}

/// A fixed pseudo-random value in [0, 1) for pixel `p`, word `w` (a 32-bit mix, then 24 bits
/// of it as the fraction: exact in f32).
fn input_value(p: u32, w: u32) -> f32 {
    let mut h = p.wrapping_mul(0x9E37_79B9) ^ w.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// Runs two fragment shaders over a `size`×`size` grid of generated inputs and compares every
/// output location component (as F32 or as integers, by the output's type).
pub fn grid(a: &Shader, b: &Shader, size: u32, limit: usize) -> Result<Report> {
    for s in [a, b] {
        let ir = s.ir();
        if ir.stage != Stage::Fragment {
            return Err(Error::Pipeline(format!(
                "shader '{}' is a {:?} shader: generated inputs drive fragment shaders; give \
                 a compute or vertex shader a scene with --scene",
                ir.name, ir.stage
            )));
        }
        if !ir.resources.is_empty() {
            return Err(Error::Pipeline(format!(
                "shader '{}' uses resources: give it a scene with --scene",
                ir.name
            )));
        }
    }
    let size = size.clamp(2, 1024) & !1;
    let words = |s: &Shader| crate::exec::location_stride(&s.ir().inputs).max(4);
    let vwords = words(a).max(words(b));
    let quads: Vec<FragQuadInput> = (0..size / 2)
        .flat_map(|qy| (0..size / 2).map(move |qx| (qx, qy)))
        .map(|(qx, qy)| {
            let mut q = FragQuadInput {
                sample_mask: [1; 4],
                varyings: vec![0; vwords * 4],
                ..Default::default()
            };
            for lane in 0..4 {
                let (x, y) = (qx * 2 + (lane as u32 & 1), qy * 2 + (lane as u32 >> 1));
                q.frag_coord[lane] = [x as f32 + 0.5, y as f32 + 0.5, 0.5, 1.0];
                for w in 0..vwords {
                    q.varyings[lane * vwords + w] = input_value(y * size + x, w as u32).to_bits();
                }
            }
            q
        })
        .collect();
    let run = |s: &Shader| run_fragment_quads(s.program(), &quads, &Bindings::default());
    let (oa, ob) = (run(a)?, run(b)?);
    let outs = &a.ir().outputs;
    let stride_a = crate::exec::location_stride(outs);
    let stride_b = crate::exec::location_stride(&b.ir().outputs);
    if stride_a != stride_b {
        return Err(Error::Pipeline(format!(
            "the two shaders write different outputs ({stride_a} against {stride_b} words a lane)"
        )));
    }
    let mut report = Report::default();
    for (qi, (qa, qb)) in oa.iter().zip(&ob).enumerate() {
        let (qx, qy) = (qi as u32 % (size / 2), qi as u32 / (size / 2));
        for lane in 0..4 {
            let (x, y) = (qx * 2 + (lane as u32 & 1), qy * 2 + (lane as u32 >> 1));
            for v in outs {
                let IoBinding::Location {
                    location,
                    component,
                } = v.binding
                else {
                    continue;
                };
                let kind = match v.ty {
                    ScalarTy::F32 => Kind::F32,
                    _ => Kind::Int { bytes: 4 },
                };
                for c in 0..v.count {
                    let w = (location * 4 + component + c) as usize;
                    let at = lane * stride_a + w;
                    compare(
                        &mut report,
                        limit,
                        || {
                            format!(
                                "pixel ({x}, {y}) location {location} component {}",
                                component + c
                            )
                        },
                        qa.outputs[at] as u64,
                        qb.outputs[at] as u64,
                        kind,
                    );
                }
            }
            if qa.discarded[lane] != qb.discarded[lane] {
                report.differing += 1;
                report.notes.push(format!(
                    "pixel ({x}, {y}): discarded {} with A, {} with B",
                    qa.discarded[lane], qb.discarded[lane]
                ));
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distance_counts_representable_values() {
        let mut r = Report::default();
        let one = 1f32.to_bits() as u64;
        compare(&mut r, 10, String::new, one, one + 3, Kind::F32);
        // across zero: -0 and +0 are neighbours, the smallest subnormals one further
        compare(&mut r, 10, String::new, 0x8000_0001, 0x0000_0001, Kind::F32);
        compare(&mut r, 10, String::new, 5, 9, Kind::Int { bytes: 1 });
        let ulps: Vec<_> = r.first.iter().map(|d| d.ulp).collect();
        assert_eq!(ulps, [Some(3), Some(3), Some(4)]);
        assert_eq!((r.compared, r.differing), (3, 3));
    }
}
