//! The SPIR-V front end and the interpreter, every stage: any bytes as a SPIR-V module,
//! loaded, lowered (each entry point), compiled and run. Compute shaders are dispatched over
//! two workgroups; vertex shaders draw two triangles (a do-nothing fragment stage behind
//! them); fragment shaders shade a 16x16 framebuffer behind a closure vertex stage; geometry
//! shaders run between that vertex stage and a do-nothing fragment stage. Tessellation
//! control and evaluation shaders are loaded, lowered and compiled but not run (a draw needs
//! the pair, and the fuzzer gives one shader at a time). Every
//! resource a shader declares gets something bound: small buffers, 4x4 images of the
//! declared dimensionality (RGBA8, RGBA32 int/uint, or D32 for depth images), default
//! samplers, texel buffer views. A 20 000-instruction batch budget keeps runaway shaders
//! short.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use quadstep::front::spirv::{Module, SpecConstants};
use quadstep::ir::{self, ImageDim, IoBinding, ResourceKind, ScalarTy, Stage};
use quadstep::raster::{
    self, ColorTarget, Format, FragmentFn, FragmentStage, PipelineState, QuadBatch, QuadOutputs,
    Rasterizer, RenderTargets, VertexBatch, VertexBuffer, VertexFn, VertexOutputs,
};
use quadstep::texture::{self, Image, ImageView, Sampler, ViewType};
use quadstep::{BoundStage, Buffer, Descriptor, DescriptorSets, ImageResource, Shader};
use quadstep::{Result, TexelBufferView};

const BUDGET: u64 = 20_000;
const SIZE: u32 = 16;

fuzz_target!(|data: &[u8]| {
    let Ok(module) = Module::from_bytes(data) else {
        return;
    };
    for (name, stage) in module.entry_points() {
        let Ok(lowered) = module.lower(&name, Some(stage), &SpecConstants::new()) else {
            continue;
        };
        let Ok(mut shader) = Shader::from_ir(&lowered) else {
            continue;
        };
        shader.set_budget(BUDGET);
        let _ = run(&shader);
    }
});

fn run(shader: &Shader) -> Result<()> {
    let sets = bind_everything(shader.ir())?;
    let config = texture::Config::default();
    match shader.stage() {
        Stage::Compute => quadstep::dispatch(shader, [2, 1, 1], &sets, config),
        Stage::Vertex => {
            let vs = BoundStage::new(shader, &sets, config)?;
            draw(
                &vs,
                &nothing(),
                vertex_inputs(shader.ir()),
                raster::Stages::default(),
            )
        }
        Stage::Fragment => {
            let fs = BoundStage::new(shader, &sets, config)?;
            let vs = corners(fs.interpolation().len());
            draw(&vs, &fs, Vec::new(), raster::Stages::default())
        }
        Stage::Geometry => {
            let gs = BoundStage::new(shader, &sets, config)?;
            let stages = raster::Stages {
                tessellation: None,
                geometry: Some(&gs),
            };
            draw(&corners(8), &nothing(), Vec::new(), stages)
        }
        Stage::TessControl | Stage::TessEval => Ok(()),
    }
}

/// A closure vertex stage: a triangle covering the framebuffer, `varyings` locations of
/// made-up words.
fn corners(
    varyings: usize,
) -> VertexFn<impl Fn(&VertexBatch, &mut VertexOutputs) -> Result<()> + Sync> {
    VertexFn {
        varyings,
        f: move |i: &VertexBatch, o: &mut VertexOutputs| {
            for (v, &idx) in i.vertex_index.iter().enumerate() {
                let corner = [[-1.0, -1.0], [3.0, -1.0], [-1.0, 3.0]][idx as usize % 3];
                o.position[v] = [corner[0], corner[1], 0.5, 1.0];
                for (l, row) in o.varyings.iter_mut().enumerate() {
                    row[v] = [idx, l as u32, 0x3f80_0000, 0xbf00_0000];
                }
            }
            Ok(())
        },
    }
}

/// A fragment stage that writes nothing.
fn nothing() -> FragmentFn<impl Fn(&QuadBatch, &mut QuadOutputs) -> Result<()> + Sync> {
    FragmentFn {
        interpolation: Vec::new(),
        writes_depth: false,
        can_discard: false,
        f: |_: &QuadBatch, _: &mut QuadOutputs| Ok(()),
    }
}

/// Two triangles into a colour attachment per output location (RGBA32 float) and a D32
/// depth attachment, with a vertex buffer per attribute location.
fn draw(
    vs: &dyn raster::VertexStage,
    fs: &dyn FragmentStage,
    attributes: Vec<(u32, raster::Format)>,
    stages: raster::Stages,
) -> Result<()> {
    let mut state = PipelineState::default();
    let data: Vec<u8> = (0..6 * 16u32)
        .flat_map(|i| (i as f32 / 7.0).to_le_bytes())
        .collect();
    for (i, &(location, format)) in attributes.iter().enumerate() {
        state.vertex_bindings.push(raster::VertexBinding {
            binding: i as u32,
            stride: 16,
            input_rate: raster::InputRate::Vertex,
        });
        state.vertex_attributes.push(raster::VertexAttribute {
            location,
            binding: i as u32,
            format,
            offset: 0,
        });
    }
    let buffers: Vec<VertexBuffer> = (0..attributes.len())
        .map(|i| VertexBuffer {
            binding: i as u32,
            data: &data,
            offset: 0,
        })
        .collect();
    let mut targets = RenderTargets {
        color: (0..4)
            .map(|_| ColorTarget::new(Format::R32G32B32A32_SFLOAT, SIZE, SIZE))
            .collect(),
        depth_stencil: Some(raster::DepthStencilTarget::new(
            Format::D32_SFLOAT,
            SIZE,
            SIZE,
        )),
    };
    let pipeline = raster::Pipeline {
        state,
        vertex: vs,
        fragment: fs,
        stages,
    };
    let r = Rasterizer::new(1)?;
    let mut pass = r.begin(&mut targets);
    pass.bind_pipeline(&pipeline);
    pass.bind_vertex_buffers(&buffers);
    pass.draw(6, 1, 0, 0)
}

/// A float attribute for every input location of a vertex shader.
fn vertex_inputs(s: &ir::Shader) -> Vec<(u32, raster::Format)> {
    let mut locations: Vec<u32> = s
        .inputs
        .iter()
        .filter_map(|v| match v.binding {
            IoBinding::Location { location, .. } if location < 32 => Some(location),
            _ => None,
        })
        .collect();
    locations.sort_unstable();
    locations.dedup();
    locations
        .into_iter()
        .map(|l| (l, Format::R32G32B32A32_SFLOAT))
        .collect()
}

/// Something bound at every resource the shader declares.
fn bind_everything(s: &ir::Shader) -> Result<DescriptorSets> {
    let mut sets = DescriptorSets::new();
    sets.set_push_constants(&[0x11; 128]);
    for r in &s.resources {
        let count = r.array_len.clamp(1, 4);
        let mut ds = Vec::new();
        for i in 0..count {
            ds.push(match r.kind {
                ResourceKind::UniformBuffer | ResourceKind::StorageBuffer => {
                    let bytes: Vec<u8> = (0..256u32).map(|b| (b * 7 + i) as u8).collect();
                    Descriptor::Buffer(Arc::new(Buffer::from_bytes(&bytes)))
                }
                ResourceKind::PushConstant => continue,
                ResourceKind::Sampler => Descriptor::Sampler(Sampler::default()),
                ResourceKind::UniformTexelBuffer | ResourceKind::StorageTexelBuffer => {
                    let format = image_format(r.image.as_ref(), false)?;
                    let buffer = Arc::new(Buffer::new(256));
                    Descriptor::TexelBuffer(TexelBufferView::new(buffer, format, 0, 8)?)
                }
                ResourceKind::CombinedImageSampler
                | ResourceKind::SampledImage
                | ResourceKind::StorageImage => {
                    let storage = r.kind == ResourceKind::StorageImage;
                    let (image, view) = image(r.image.as_ref(), storage)?;
                    if r.kind == ResourceKind::CombinedImageSampler {
                        Descriptor::CombinedImageSampler {
                            image,
                            view,
                            sampler: Sampler::default(),
                        }
                    } else {
                        Descriptor::Image { image, view }
                    }
                }
            });
        }
        sets.bind_array(r.set, r.binding, ds);
    }
    Ok(sets)
}

/// The format an image of this type gets.
fn image_format(t: Option<&ir::ImageType>, storage: bool) -> Result<Format> {
    let name = match t {
        Some(t) if t.depth && !storage => "D32_SFLOAT",
        Some(t) if t.sampled_ty == ScalarTy::I32 && t.signed => "R32G32B32A32_SINT",
        Some(t) if t.sampled_ty == ScalarTy::I32 => "R32G32B32A32_UINT",
        _ if storage => "R32G32B32A32_SFLOAT",
        _ => "R8G8B8A8_UNORM",
    };
    Format::from_vk_name(name)
}

/// A 4x4 image (six layers for cubes, four deep for 3D) with two levels, filled with a
/// pattern, and the view the declared type needs.
fn image(t: Option<&ir::ImageType>, storage: bool) -> Result<(Arc<ImageResource>, ImageView)> {
    let format = image_format(t, storage)?;
    let arrayed = t.is_some_and(|t| t.arrayed);
    let (dim, extent, layers, view) = match t.map(|t| t.dim) {
        Some(ImageDim::D1) => (
            texture::ImageDim::D1,
            [4, 1, 1],
            if arrayed { 2 } else { 1 },
            if arrayed {
                ViewType::D1Array
            } else {
                ViewType::D1
            },
        ),
        Some(ImageDim::D3) => (texture::ImageDim::D3, [4, 4, 4], 1, ViewType::D3),
        Some(ImageDim::Cube) => (
            texture::ImageDim::D2,
            [4, 4, 1],
            if arrayed { 12 } else { 6 },
            if arrayed {
                ViewType::CubeArray
            } else {
                ViewType::Cube
            },
        ),
        _ => (
            texture::ImageDim::D2,
            [4, 4, 1],
            if arrayed { 2 } else { 1 },
            if arrayed {
                ViewType::D2Array
            } else {
                ViewType::D2
            },
        ),
    };
    let mut img = Image::new(format, dim, extent, layers, 2, 1)?;
    let n = img.level_texels(0) * format.texel_size();
    let bytes: Vec<u8> = (0..n).map(|b| (b * 37 % 251) as u8).collect();
    img.upload_bytes(0, &bytes)?;
    img.generate_mips()?;
    let view = ImageView::whole(&img, view);
    Ok((ImageResource::new(img), view))
}
