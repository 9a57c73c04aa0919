//! The readable form of a trace (what `quadstep debug` prints by default): a header naming
//! the draw, the shader and the quad's four lanes, then one entry per step — its index, the
//! lanes' states (`*` running, `h` helper, `d` demoted, `k` killed, `.` not running), the
//! instruction with its source line, the four lanes' values, what an image instruction read
//! and what the texture unit did with it per lane, and its warnings — and what the fragment
//! left in the attachment.

use std::fmt::Write;

use super::trace::{ImageStep, LanePlace, Step, Trace, Value};
use super::Report;
use crate::exec::{Discard, QuadLod};
use crate::ir::ScalarTy;
use crate::pipeline::BoundImageInfo;
use crate::texture::explain::{Operation, QuadExplain, Texel};

/// What to print.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Only the steps that write this named value.
    pub watch: Option<String>,
}

/// Lanes' values of one step, one entry per lane: `v` for a scalar, `(a, b, c, d)` for more
/// components, `-` for a lane that did not run it.
pub fn lane_values(values: &[Value]) -> [String; 4] {
    std::array::from_fn(|l| {
        let comps: Vec<String> = values
            .iter()
            .filter_map(|v| v.lanes[l].map(|b| Value::show(v.ty, b)))
            .collect();
        match comps.len() {
            0 => "-".to_string(),
            1 => comps[0].clone(),
            _ => format!("({})", comps.join(", ")),
        }
    })
}

/// Where a lane is, in a few words.
pub fn place(p: &LanePlace) -> String {
    match p {
        LanePlace::Pixel { x, y, covered } => {
            format!("({x}, {y}){}", if *covered { "" } else { " helper" })
        }
        LanePlace::Invocation(Some(id)) => format!("{id:?}"),
        LanePlace::Invocation(None) => "(padding)".into(),
        LanePlace::Vertex(Some(v)) => format!("vertex {v}"),
        LanePlace::Vertex(None) => "(padding)".into(),
    }
}

/// The header lines of a trace.
pub fn header(report: &Report, trace: &Trace) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", report.script.path.display(), trace.target);
    let _ = writeln!(
        out,
        "draw {} (line {}, pipeline `{}`): {:?} shader `{}`, discard: {}",
        trace.draw,
        trace.line,
        trace.pipeline,
        trace.stage,
        trace.entry,
        match trace.discard {
            Discard::Helper => "helper",
            Discard::Strict => "strict",
        }
    );
    let same: Vec<&super::Trace> = report.traces.iter().collect();
    if same.len() > 1 {
        let k = same
            .iter()
            .position(|t| std::ptr::eq(*t, trace))
            .unwrap_or(0);
        let _ = writeln!(
            out,
            "fragment {} of {} shaded at this pixel in this draw (--fragment N picks another)",
            k,
            same.len()
        );
    }
    if report.reached.len() > 1 {
        let list: Vec<String> = report
            .reached
            .iter()
            .map(|(i, l)| format!("{i} (line {l})"))
            .collect();
        let _ = writeln!(
            out,
            "draws that reached it: {} (--draw N picks another)",
            list.join(", ")
        );
    }
    let lanes: Vec<String> = trace
        .places
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mark = if i == trace.lane { " <- traced" } else { "" };
            format!("{i} {}{mark}", place(p))
        })
        .collect();
    let _ = writeln!(out, "quad lanes: {}", lanes.join(" | "));
    out
}

/// What an image instruction read, a few lines.
pub fn image_lines(img: &ImageStep, lanes: &[super::LaneState; 4]) -> Vec<String> {
    let mut out = Vec::new();
    match &img.bound {
        Ok(b) => {
            for g in &b.groups {
                let lanes_of: Vec<String> = (0..4)
                    .filter(|l| g.lanes & (1 << l) != 0)
                    .map(|l| l.to_string())
                    .collect();
                let image = match &g.image {
                    Some(i) => format!(
                        "{:?} {:?} {}x{}x{}, {} level(s) from {}, layers {}..{}",
                        i.view.view_type,
                        i.format,
                        i.levels.first().map_or(0, |l| l[0]),
                        i.levels.first().map_or(0, |l| l[1]),
                        i.levels.first().map_or(0, |l| l[2]),
                        i.levels.len(),
                        i.view.base_level,
                        i.view.base_layer,
                        i.view.base_layer + i.view.layer_count
                    ),
                    None => "nothing bound (or a texel buffer)".to_string(),
                };
                out.push(format!(
                    "image [{}] lanes {}: {image}",
                    g.image_index,
                    lanes_of.join(" ")
                ));
                if let Some(s) = &g.sampler {
                    out.push(format!(
                        "sampler [{}]: mag {:?} min {:?} mip {:?}, address {:?}, lod bias {} \
                         min {} max {}{}{}",
                        g.sampler_index,
                        s.mag_filter,
                        s.min_filter,
                        s.mipmap_mode,
                        s.address_mode,
                        s.mip_lod_bias,
                        s.min_lod,
                        s.max_lod,
                        if s.compare_enable {
                            format!(", compare {:?}", s.compare_op)
                        } else {
                            String::new()
                        },
                        if s.anisotropy_enable {
                            format!(", anisotropy {}", s.max_anisotropy)
                        } else {
                            String::new()
                        }
                    ));
                }
            }
        }
        Err(e) => out.push(format!("image: {e}")),
    }
    let q = &img.operands;
    let f = |b: u32| Value::show(crate::ir::ScalarTy::F32, b as u64);
    for l in (0..4).filter(|&l| lanes[l].active) {
        let coords: Vec<String> = q.coords[l][..q.coord_count.min(4)]
            .iter()
            .map(|&b| f(b))
            .collect();
        let mut s = format!("lane {l}: coords ({})", coords.join(", "));
        if let Some(d) = q.dref {
            let _ = write!(s, " dref {}", f(d[l]));
        }
        match &q.lod {
            QuadLod::Implicit { bias: Some(b) } => {
                let _ = write!(s, " bias {}", f(b[l]));
            }
            QuadLod::Explicit(v) => {
                let _ = write!(s, " lod {}", f(v[l]));
            }
            QuadLod::Grad { count, dx, dy } => {
                let g = |v: &[u32]| v.iter().map(|&b| f(b)).collect::<Vec<_>>().join(", ");
                let _ = write!(
                    s,
                    " ddx ({}) ddy ({})",
                    g(&dx[l][..*count]),
                    g(&dy[l][..*count])
                );
            }
            _ => {}
        }
        if let Some(m) = q.min_lod {
            let _ = write!(s, " min_lod {}", f(m[l]));
        }
        let res: Vec<String> = img.results[l]
            .iter()
            .map(|&b| Value::show(img.result_ty, b as u64))
            .collect();
        let _ = write!(s, " -> ({})", res.join(", "));
        out.push(s);
        let group = img.bound.iter().flat_map(|b| &b.groups);
        if let Some(g) = group.into_iter().find(|g| g.lanes & (1 << l) != 0) {
            match &g.texture {
                Some(Ok(t)) => out.extend(
                    sampler_lines(t, l, g.image.as_ref(), img.result_ty, q.dref.map(|d| d[l]))
                        .into_iter()
                        .map(|x| format!("  {x}")),
                ),
                Some(Err(e)) => out.push(format!("  texture unit: {e}")),
                None => {}
            }
        }
    }
    out
}

/// `v` as the readable form prints an f32.
fn f32s(v: f32) -> String {
    Value::show(ScalarTy::F32, v.to_bits() as u64)
}

/// `(a, b, …)` of the first `n` components.
fn tuple<T: Copy>(v: &[T], n: usize, show: impl Fn(T) -> String) -> String {
    let parts: Vec<String> = v.iter().take(n.max(1)).map(|&x| show(x)).collect();
    format!("({})", parts.join(", "))
}

/// What the texture unit did for lane `l` (see [`crate::texture::explain`]): where the lane
/// landed, its level-of-detail steps, and each footprint with its texels. `info` gives the
/// view's dimensions, `ty` how texel values read, `img_dref` the lane's Dref operand bits.
pub fn sampler_lines(
    t: &QuadExplain,
    l: usize,
    info: Option<&BoundImageInfo>,
    ty: ScalarTy,
    img_dref: Option<u32>,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some(x) = t.lanes.get(l).filter(|x| x.active) else {
        return out;
    };
    let vt = info.map(|i| i.view.view_type);
    // texel coordinates: a cube face's two, else the view's spatial ones
    let dims = match vt {
        Some(v) if v.is_cube() => 2,
        Some(v) => v.spatial_dims(),
        None => 3,
    };
    let arrayed = vt.is_some_and(|v| v.is_cube() || v.layer_coord().is_some());
    let mut at = Vec::new();
    if let Some(f) = x.face {
        at.push(format!("face {f}"));
    }
    if arrayed {
        at.push(format!("layer {}", x.layer));
    }
    // the Dref the comparisons use, where projection or the format's clamp changed it
    let operand = img_dref.map(f32::from_bits);
    if let Some(d) = x
        .dref
        .filter(|&d| Some(d.to_bits()) != operand.map(f32::to_bits))
    {
        at.push(format!("dref {} as compared", f32s(d)));
    }
    if !at.is_empty() {
        out.push(format!("at {}", at.join(", ")));
    }
    if let Some(lod) = &x.lod {
        let gdims = vt.map_or(3, |v| v.spatial_dims());
        let mut s = String::from("lod: ");
        match lod.derivatives {
            Some((dx, dy)) => {
                let _ = write!(
                    s,
                    "d/dx {} d/dy {}, ",
                    tuple(&dx, gdims, f32s),
                    tuple(&dy, gdims, f32s)
                );
            }
            None => s.push_str("no derivatives, "),
        }
        let _ = write!(
            s,
            "rho ({}, {}), lambda_base {}",
            f32s(lod.rho[0]),
            f32s(lod.rho[1]),
            f32s(lod.lambda_base)
        );
        if lod.probes > 1 {
            let _ = write!(
                s,
                " ({} probes along {})",
                lod.probes,
                tuple(&lod.major, 2, f32s)
            );
        }
        let min = match lod.shader_min_lod {
            Some(m) => format!(
                "max(sampler {}, MinLod {})",
                f32s(lod.sampler_min_lod),
                f32s(m)
            ),
            None => f32s(lod.sampler_min_lod),
        };
        out.push(s);
        let mut s = String::from("     ");
        let _ = write!(
            s,
            "lambda_base + bias {} + sampler bias {} = {}, clamped to [{min}, {}]: lambda {}, \
             {}: {:?}, mip {:?}",
            f32s(lod.shader_bias),
            f32s(lod.sampler_bias),
            f32s(lod.lambda_biased),
            f32s(lod.sampler_max_lod),
            f32s(lod.lambda),
            if lod.minified {
                "minified"
            } else {
                "magnified"
            },
            lod.filter,
            lod.mipmap_mode
        );
        let levels: Vec<String> = lod
            .levels
            .iter()
            .map(|&(lv, w)| format!("{lv} (weight {})", f32s(w)))
            .collect();
        let _ = write!(s, ", levels {}", levels.join(" + "));
        if lod.out_of_range {
            s.push_str("; MinLod is past the last level: the out-of-bounds result");
        }
        out.push(s);
    }
    let gather = matches!(t.op, Operation::Gather { .. });
    let dref = x.dref.is_some();
    // a Dref tap's depth, a gather tap's component, or the whole texel
    let value = |v: &[u32; 4]| match t.op {
        _ if dref => Value::show(ScalarTy::F32, v[0] as u64),
        Operation::Gather { component } => Value::show(ty, v[component as usize & 3] as u64),
        _ => tuple(v, 4, |b| Value::show(ty, b as u64)),
    };
    for fp in &x.footprints {
        let mut s = String::new();
        if x.lod.as_ref().is_some_and(|l| l.probes > 1) {
            let _ = write!(s, "probe {} ", fp.probe);
        }
        let _ = write!(
            s,
            "level {} weight {}: texel space {}",
            fp.level,
            f32s(fp.weight),
            tuple(&fp.position, dims, f32s)
        );
        match t.op {
            Operation::Sample => {
                let _ = write!(s, ", {:?}", fp.filter);
                if fp.filter == crate::texture::Filter::Linear {
                    let _ = write!(s, ", fractions {}", tuple(&fp.fractions, dims, f32s));
                }
                let _ = write!(s, " -> {}", tuple(&fp.value, 4, f32s));
            }
            Operation::Gather { component } => {
                let _ = write!(s, ", component {component}");
            }
            _ => {}
        }
        out.push(s);
        for (k, tap) in fp.taps.iter().enumerate() {
            let mut s = String::from("  ");
            if gather {
                let _ = write!(s, "{}: ", ["R", "G", "B", "A"][k & 3]);
            }
            let unwrapped = tuple(&tap.unwrapped, dims, |c: i32| c.to_string());
            match tap.texel {
                Texel::At { layer, face, ijk } => {
                    let here = tuple(&ijk, dims, |c: i32| c.to_string());
                    let _ = write!(s, "texel {here}");
                    if here != unwrapped {
                        let _ = write!(s, " (wrapped from {unwrapped})");
                    }
                    if let Some(f) = face.filter(|&f| Some(f) != x.face) {
                        let _ = write!(s, " face {f}");
                    }
                    if arrayed && layer != x.layer {
                        let _ = write!(s, " layer {layer}");
                    }
                }
                Texel::Border => {
                    let _ = write!(s, "border at {unwrapped}");
                }
                Texel::CornerAverage => {
                    let _ = write!(s, "cube corner {unwrapped}: average of the other three");
                }
                Texel::OutOfRange => {
                    let _ = write!(s, "{unwrapped} out of range");
                }
            }
            let _ = write!(s, " = {}", value(&tap.value));
            if let Some(c) = tap.compare {
                s.push_str(if c { " pass" } else { " fail" });
            }
            if t.op == Operation::Sample {
                let _ = write!(s, ", weight {}", f32s(tap.weight));
            }
            out.push(s);
        }
    }
    out
}

/// One step, several lines (its source line is printed by the caller when it changes).
pub fn step(out: &mut String, s: &Step, traced: usize) {
    let lanes: String = s.lanes.iter().map(|l| l.letter()).collect();
    let folded = if s.ir.is_empty() {
        "   (no IR: folded)"
    } else {
        ""
    };
    let _ = writeln!(out, "{:>5} {lanes} {}{folded}", s.index, s.text);
    if !s.values.is_empty() {
        let v = lane_values(&s.values);
        let cells: Vec<String> = (0..4)
            .map(|l| format!("{l}{}: {}", if l == traced { "*" } else { "" }, v[l]))
            .collect();
        let one = cells.join("   ");
        if one.len() <= 110 {
            let _ = writeln!(out, "            {one}");
        } else {
            for c in cells {
                let _ = writeln!(out, "            {c}");
            }
        }
    }
    if let Some(img) = &s.image {
        for l in image_lines(img, &s.lanes) {
            let _ = writeln!(out, "            {l}");
        }
    }
    for w in &s.warnings {
        let _ = writeln!(out, "            ! {}: {}", w.kind.name(), w.message);
    }
}

/// A channel value read back from an attachment: as the f32 it is when it is one.
pub fn number(v: f64) -> String {
    if (v as f32) as f64 == v {
        (v as f32).to_string()
    } else {
        v.to_string()
    }
}

/// The whole readable trace.
pub fn render(report: &Report, trace: &Trace, opts: &Options) -> String {
    let mut out = header(report, trace);
    out.push('\n');
    let (mut block, mut line) = (None, None);
    for s in &trace.steps {
        if opts.watch.as_ref().is_some_and(|w| !s.writes.contains(w)) {
            continue;
        }
        if block != Some(s.block) && opts.watch.is_none() {
            let running: Vec<String> = (0..4)
                .filter(|&l| s.lanes[l].active)
                .map(|l| l.to_string())
                .collect();
            let _ = writeln!(out, "  -- block b{} (lanes {})", s.block, running.join(" "));
            block = Some(s.block);
        }
        if let Some(l) = s.line.as_ref().filter(|l| line != Some((&l.file, l.line))) {
            let text = l.text.as_deref().unwrap_or("");
            let _ = writeln!(out, "  {}:{}  {text}", l.file, l.line);
            line = Some((&l.file, l.line));
        }
        step(&mut out, s, trace.lane);
    }
    if trace.truncated {
        let _ = writeln!(
            out,
            "  ... the recording stopped at its step limit (--max-steps)"
        );
    }
    let warnings = trace.warnings().count();
    let _ = writeln!(out, "\n{} steps, {warnings} warnings", trace.steps.len());
    if let Some(f) = &trace.fragment {
        let l = trace.lane;
        for (a, o) in f.outputs.iter().enumerate() {
            let ty = f
                .output_types
                .get(a)
                .copied()
                .unwrap_or(crate::ir::ScalarTy::F32);
            let v: Vec<String> = o[l].iter().map(|&b| Value::show(ty, b as u64)).collect();
            let _ = write!(out, "location {a}, lane {l}: ({})", v.join(", "));
            if f.discarded[l] {
                let _ = write!(out, " (discarded)");
            }
            if let Some(Some(px)) = f.attachment.get(a) {
                let p: Vec<String> = px.iter().map(|&c| number(c)).collect();
                let name = trace
                    .attachments
                    .get(a)
                    .cloned()
                    .flatten()
                    .unwrap_or_default();
                let _ = write!(out, "; `{name}` after the draw: ({})", p.join(", "));
            }
            out.push('\n');
        }
    }
    out
}
