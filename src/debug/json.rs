//! The trace for tools (`quadstep debug --json`): JSON lines, one object per line — a
//! `"trace"` header, one `"step"` object per step, then a `"result"` object. Values carry both
//! their raw bits and the text the readable form shows, so a tool never has to guess a type.
//! The HTML page embeds the same objects.

use serde_json::{json, Value as Json};

use super::text::place;
use super::trace::{ImageStep, LanePlace, Step, Trace, Value};
use super::Report;
use crate::exec::QuadLod;

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
