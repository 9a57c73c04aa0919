//! The trace for tools (`quadstep debug --json`): JSON lines, one object per line — a
//! `"trace"` header, one `"step"` object per step, then a `"result"` object. Values carry both
//! their raw bits and the text the readable form shows, so a tool never has to guess a type;
//! an image step carries the texture unit's record of each lane (level of detail, levels,
//! texels, comparisons, weights), its floats as that text.
//! The HTML page embeds the same objects.

use serde_json::{json, Value as Json};

use super::text::place;
use super::trace::{ImageStep, LanePlace, Step, Trace, Value};
use super::Report;
use crate::exec::QuadLod;
use crate::ir::ScalarTy;
use crate::texture::explain::{Operation, QuadExplain, Texel};

fn lane_state(s: &super::LaneState) -> Json {
    json!({
        "active": s.active,
        "helper": s.helper,
        "demoted": s.demoted,
        "killed": s.killed,
    })
}

fn value(v: &Value) -> Json {
    json!({
        "type": format!("{:?}", v.ty),
        "bits": v.lanes.map(|b| b.map(|b| format!("{b:#x}"))),
        "text": v.lanes.map(|b| b.map(|b| Value::show(v.ty, b))),
    })
}

fn image(img: &ImageStep) -> Json {
    let q = &img.operands;
    let f = |b: u32| Value::show(crate::ir::ScalarTy::F32, b as u64);
    let per_lane = |v: Option<[u32; 4]>| v.map(|v| v.map(f));
    let lod = match &q.lod {
        QuadLod::Implicit { bias } => json!({ "implicit": true, "bias": per_lane(*bias) }),
        QuadLod::Explicit(v) => json!({ "lod": v.map(f) }),
        QuadLod::Grad { count, dx, dy } => json!({
            "ddx": dx.map(|d| d[..*count].iter().map(|&b| f(b)).collect::<Vec<_>>()),
            "ddy": dy.map(|d| d[..*count].iter().map(|&b| f(b)).collect::<Vec<_>>()),
        }),
        QuadLod::None => Json::Null,
    };
    let bound = match &img.bound {
        Ok(b) => Json::Array(
            b.groups
                .iter()
                .map(|g| {
                    json!({
                        "lanes": g.lanes,
                        "image_index": g.image_index,
                        "sampler_index": g.sampler_index,
                        "image": g.image.as_ref().map(|i| json!({
                            "format": format!("{:?}", i.format),
                            "view_type": format!("{:?}", i.view.view_type),
                            "base_level": i.view.base_level,
                            "levels": i.levels,
                            "base_layer": i.view.base_layer,
                            "layers": i.view.layer_count,
                        })),
                        "sampler": g.sampler.as_ref().map(|s| format!("{s:?}")),
                        "texture": match &g.texture {
                            Some(Ok(t)) => texture(t, img.result_ty),
                            Some(Err(e)) => json!({ "error": e }),
                            None => Json::Null,
                        },
                    })
                })
                .collect(),
        ),
        Err(e) => json!({ "error": e }),
    };
    json!({
        "coords": q.coords.map(|c| c[..q.coord_count.min(4)].iter().map(|&b| f(b)).collect::<Vec<_>>()),
        "dref": per_lane(q.dref),
        "lod": lod,
        "min_lod": per_lane(q.min_lod),
        "offsets": q.offset.map(|o| o[..q.offset_count.min(3)].iter().map(|&v| v as i32).collect::<Vec<_>>()),
        "results": img.results.map(|r| r.map(|b| Value::show(img.result_ty, b as u64))),
        "bound": bound,
    })
}

/// An f32 as the readable form prints it.
fn f32s(v: f32) -> String {
    Value::show(ScalarTy::F32, v.to_bits() as u64)
}

fn floats(v: &[f32]) -> Vec<String> {
    v.iter().map(|&x| f32s(x)).collect()
}

/// What the texture unit did for a group of lanes ([`QuadExplain`]), lane by lane; values
/// read from texels as the instruction's result type `ty` reads them.
fn texture(t: &QuadExplain, ty: ScalarTy) -> Json {
    let op = match t.op {
        Operation::Sample => json!("sample"),
        Operation::Gather { component } => json!({ "gather": component }),
        Operation::Fetch => json!("fetch"),
        Operation::QueryLod => json!("query_lod"),
    };
    let bits = |v: &[u32; 4]| v.map(|b| Value::show(ty, b as u64));
    let lanes: Vec<Json> = t
        .lanes
        .iter()
        .map(|x| {
            if !x.active {
                return Json::Null;
            }
            let lod = x.lod.as_ref().map(|l| {
                json!({
                    "derivatives": l.derivatives.map(|(dx, dy)| json!({
                        "dx": floats(&dx),
                        "dy": floats(&dy),
                    })),
                    "rho": floats(&l.rho),
                    "probes": l.probes,
                    "major": floats(&l.major),
                    "lambda_base": f32s(l.lambda_base),
                    "shader_bias": f32s(l.shader_bias),
                    "sampler_bias": f32s(l.sampler_bias),
                    "lambda_biased": f32s(l.lambda_biased),
                    "sampler_min_lod": f32s(l.sampler_min_lod),
                    "shader_min_lod": l.shader_min_lod.map(f32s),
                    "sampler_max_lod": f32s(l.sampler_max_lod),
                    "lambda": f32s(l.lambda),
                    "minified": l.minified,
                    "filter": format!("{:?}", l.filter),
                    "mipmap_mode": format!("{:?}", l.mipmap_mode),
                    "levels": l.levels.iter().map(|&(lv, w)| json!({
                        "level": lv,
                        "weight": f32s(w),
                    })).collect::<Vec<_>>(),
                    "out_of_range": l.out_of_range,
                })
            });
            let footprints: Vec<Json> = x
                .footprints
                .iter()
                .map(|f| {
                    let taps: Vec<Json> = f
                        .taps
                        .iter()
                        .map(|tap| {
                            let texel = match tap.texel {
                                Texel::At { layer, face, ijk } => {
                                    json!({ "ijk": ijk, "layer": layer, "face": face })
                                }
                                Texel::Border => json!("border"),
                                Texel::CornerAverage => json!("corner_average"),
                                Texel::OutOfRange => json!("out_of_range"),
                            };
                            json!({
                                "unwrapped": tap.unwrapped,
                                "texel": texel,
                                "value": if x.dref.is_some() {
                                    // a depth texel: the depth as an f32 whatever `ty` is
                                    json!(f32s(f32::from_bits(tap.value[0])))
                                } else {
                                    json!(bits(&tap.value))
                                },
                                "compare": tap.compare,
                                "weight": f32s(tap.weight),
                            })
                        })
                        .collect();
                    json!({
                        "probe": f.probe,
                        "level": f.level,
                        "weight": f32s(f.weight),
                        "position": floats(&f.position),
                        "filter": format!("{:?}", f.filter),
                        "fractions": floats(&f.fractions),
                        "value": floats(&f.value),
                        "taps": taps,
                    })
                })
                .collect();
            json!({
                "coords": floats(&x.coords),
                "face": x.face,
                "layer": x.layer,
                "dref": x.dref.map(f32s),
                "lod": lod,
                "footprints": footprints,
                "result": bits(&x.result),
            })
        })
        .collect();
    json!({ "op": op, "lanes": lanes })
}

/// One step as a JSON object.
pub fn step(s: &Step) -> Json {
    json!({
        "kind": "step",
        "index": s.index,
        "block": s.block,
        "offset": s.offset,
        "text": s.text,
        "line": s.line.as_ref().map(|l| json!({ "file": l.file, "line": l.line, "text": l.text })),
        "writes": s.writes,
        "lanes": s.lanes.iter().map(lane_state).collect::<Vec<_>>(),
        "values": s.values.iter().map(value).collect::<Vec<_>>(),
        "ir": s.ir,
        "image": s.image.as_ref().map(image),
        "warnings": s.warnings.iter().map(|w| json!({
            "kind": w.kind.name(),
            "lane": w.lane,
            "message": w.message,
        })).collect::<Vec<_>>(),
    })
}

/// The header object.
pub fn header(report: &Report, trace: &Trace) -> Json {
    let places: Vec<Json> = trace
        .places
        .iter()
        .map(|p| {
            let mut o = json!({ "text": place(p) });
            if let LanePlace::Pixel { x, y, covered } = p {
                o = json!({ "text": place(p), "x": x, "y": y, "covered": covered });
            }
            o
        })
        .collect();
    json!({
        "kind": "trace",
        "script": report.script.path.display().to_string(),
        "script_status": report.script.status.word(),
        "target": trace.target.to_string(),
        "draw": trace.draw,
        "line": trace.line,
        "pipeline": trace.pipeline,
        "attachments": trace.attachments,
        "stage": format!("{:?}", trace.stage),
        "entry": trace.entry,
        "discard": format!("{:?}", trace.discard),
        "lane": trace.lane,
        "lanes": places,
        "fragments_here": report.traces.len(),
        "reached": report.reached.iter().map(|(i, l)| json!({ "draw": i, "line": l })).collect::<Vec<_>>(),
    })
}

/// The result object: the fragment's outputs and the attachment after the draw.
pub fn result(trace: &Trace) -> Json {
    let fragment = trace.fragment.as_ref().map(|f| {
        let outputs: Vec<Json> = f
            .outputs
            .iter()
            .enumerate()
            .map(|(a, o)| {
                let ty = f
                    .output_types
                    .get(a)
                    .copied()
                    .unwrap_or(crate::ir::ScalarTy::F32);
                json!(o.map(|l| l.map(|b| Value::show(ty, b as u64))))
            })
            .collect();
        json!({
            "outputs": outputs,
            "discarded": f.discarded,
            "depth": f.depth,
            "attachment": f.attachment,
            "around": f.around.as_ref().map(|c| json!({
                "x": c.x, "y": c.y, "width": c.width, "height": c.height, "rgba": c.rgba,
            })),
        })
    });
    json!({
        "kind": "result",
        "steps": trace.steps.len(),
        "warnings": trace.warnings().count(),
        "truncated": trace.truncated,
        "fragment": fragment,
    })
}

/// The trace as JSON lines (the steps filtered by `watch`).
pub fn lines(report: &Report, trace: &Trace, watch: Option<&str>) -> String {
    let mut out = header(report, trace).to_string();
    out.push('\n');
    for s in &trace.steps {
        if watch.is_some_and(|w| !s.writes.iter().any(|x| x == w)) {
            continue;
        }
        out += &step(s).to_string();
        out.push('\n');
    }
    out += &result(trace).to_string();
    out.push('\n');
    out
}
