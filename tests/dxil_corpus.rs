//! Every pixel, vertex and compute container of `../shared/dxil/vkd3d-proton` is lowered and
//! run: each resource it declares is bound to a small zero-filled stand-in (64 KiB buffers,
//! 4×4 images of its shape, default samplers; 64 of them for unbounded arrays), compute shaders run one workgroup, pixel
//! shaders two quads, vertex shaders eight vertices. The goal is 90 %; the test holds the
//! count reached so far (`RUN_AT_LEAST`, which only grows) and prints the rest with their
//! errors (the README lists them by reason).
//!
//! "Runs" means the interpreter finished without an error; what the shaders compute from
//! zeros is not checked here (`dxil_vkd3d.rs` checks vkd3d-proton's expected values).

mod common;

use std::sync::Arc;

use quadstep::exec::{run_compute, run_fragment_quads, run_vertex, FragQuadInput, VertexIds};
use quadstep::ir::{ImageDim, ResourceKind, ScalarTy, Stage};
use quadstep::pipeline::{Shader, ShaderImages, TexelBufferView};
use quadstep::texture::{Config, ViewType};
use quadstep::{
    Buffer, Descriptor, DescriptorSets, Format, Image, ImageResource, ImageView, Sampler,
};

/// A stand-in descriptor for a resource of this kind.
fn stand_in(r: &quadstep::ir::Resource) -> Result<Descriptor, String> {
    let int = r.image.is_some_and(|i| i.sampled_ty != ScalarTy::F32);
    let fmt = Format::from_vk_name(if int {
        "R32G32B32A32_UINT"
    } else {
        "R32G32B32A32_SFLOAT"
    })
    .map_err(|e| e.to_string())?;
    Ok(match r.kind {
        ResourceKind::UniformBuffer | ResourceKind::StorageBuffer | ResourceKind::PushConstant => {
            Descriptor::Buffer(Arc::new(Buffer::new(1 << 16)))
        }
        ResourceKind::Sampler => Descriptor::Sampler(Sampler::default()),
        ResourceKind::UniformTexelBuffer | ResourceKind::StorageTexelBuffer => {
            let buf = Arc::new(Buffer::new(1 << 12));
            Descriptor::TexelBuffer(TexelBufferView::whole(buf, fmt, 0).map_err(|e| e.to_string())?)
        }
        _ => {
            let it = r.image.ok_or("an image resource without an image type")?;
            let layers = if it.arrayed { 2 } else { 1 };
            let (img, view) = match it.dim {
                ImageDim::Cube => {
                    let img = Image::new_cube(fmt, 4, layers, 1).map_err(|e| e.to_string())?;
                    let vt = if it.arrayed {
                        ViewType::CubeArray
                    } else {
                        ViewType::Cube
                    };
                    let v = ImageView::whole(&img, vt);
                    (img, v)
                }
                dim => {
                    let img = match dim {
                        ImageDim::D1 => Image::new(
                            fmt,
                            quadstep::texture::ImageDim::D1,
                            [4, 1, 1],
                            layers,
                            1,
                            1,
                        ),
                        ImageDim::D3 => {
                            Image::new(fmt, quadstep::texture::ImageDim::D3, [4, 4, 4], 1, 1, 1)
                        }
                        _ => Image::new_2d(fmt, 4, 4, layers, 1),
                    }
                    .map_err(|e| e.to_string())?;
                    let vt = match (dim, it.arrayed) {
                        (ImageDim::D1, false) => ViewType::D1,
                        (ImageDim::D1, true) => ViewType::D1Array,
                        (ImageDim::D3, _) => ViewType::D3,
                        (_, false) => ViewType::D2,
                        (_, true) => ViewType::D2Array,
                    };
                    let v = ImageView::whole(&img, vt);
                    (img, v)
                }
            };
            Descriptor::Image {
                image: ImageResource::new(img),
                view,
            }
        }
    })
}

/// Lowers, binds stand-ins and runs one container's entry point.
fn lower_and_run(bytes: &[u8]) -> Result<(), String> {
    let mut sh = Shader::from_dxil(bytes, None).map_err(|e| e.to_string())?;
    sh.set_budget(2_000_000);
    let ir = sh.ir();
    let mut sets = DescriptorSets::new();
    for r in &ir.resources {
        let d = stand_in(r)?;
        let n = match r.array_len {
            0 => 64,
            n => n.min(64),
        };
        let class = r.class.ok_or("a DXIL resource without a register class")?;
        sets.bind_register_array(class, r.set, r.binding, vec![d; n as usize]);
    }
    let config = Config::default();
    let images = ShaderImages::new(ir, |r| sets.lookup(r), config).map_err(|e| e.to_string())?;
    let bindings = sets.bindings(ir, &images).map_err(|e| e.to_string())?;
    match ir.stage {
        Stage::Compute => {
            run_compute(sh.program(), [1, 1, 1], &bindings).map_err(|e| e.to_string())
        }
        Stage::Fragment => {
            let stride = quadstep::exec::location_stride(&ir.inputs).max(4);
            let quads: Vec<FragQuadInput> = (0..2)
                .map(|q| {
                    let mut fq = FragQuadInput {
                        sample_mask: [1; 4],
                        varyings: vec![0; stride * 4],
                        ..Default::default()
                    };
                    for l in 0..4 {
                        fq.frag_coord[l] = [
                            (q * 2 + (l & 1)) as f32 + 0.5,
                            (l >> 1) as f32 + 0.5,
                            0.5,
                            1.0,
                        ];
                    }
                    fq
                })
                .collect();
            run_fragment_quads(sh.program(), &quads, &bindings)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        Stage::Vertex => {
            let ids: Vec<VertexIds> = (0..8)
                .map(|i| VertexIds {
                    vertex_index: i,
                    ..Default::default()
                })
                .collect();
            let stride = quadstep::exec::location_stride(&ir.inputs).max(4);
            run_vertex(sh.program(), &ids, &vec![0; stride * 8], stride, &bindings)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        // the DXIL lowering makes pixel, vertex and compute shaders only
        Stage::TessControl | Stage::TessEval | Stage::Geometry => {
            Err(format!("a {:?} shader from DXIL", ir.stage))
        }
    }
}

/// Containers that lowered and ran when this was last raised.
const RUN_AT_LEAST: usize = 227;

#[test]
fn pixel_vertex_and_compute_containers_lower_and_run() {
    let Some(dir) = common::dxil_dir_or_skip("pixel_vertex_and_compute_containers_lower_and_run")
    else {
        return;
    };
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("manifest");
    let (mut ran, mut total) = (0, 0);
    let mut failures = Vec::new();
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(file), Some(profile)) = (cols.first(), cols.get(1)) else {
            continue;
        };
        if !["ps_", "vs_", "cs_"].iter().any(|p| profile.starts_with(p)) {
            continue;
        }
        total += 1;
        let bytes = std::fs::read(dir.join(file)).expect("container");
        let outcome = std::panic::catch_unwind(|| lower_and_run(&bytes))
            .unwrap_or_else(|_| Err("panicked".into()));
        match outcome {
            Ok(()) => ran += 1,
            Err(e) => failures.push(format!("{file} ({profile}): {e}")),
        }
    }
    for f in &failures {
        println!("not run: {f}");
    }
    println!("{ran} of {total} pixel, vertex and compute containers lower and run");
    assert!(
        ran >= RUN_AT_LEAST,
        "only {ran} of {total} lower and run ({RUN_AT_LEAST} did)"
    );
}
