//! The rasterizer's shader stages implemented by the interpreter: batches of vertices and of
//! 2×2 quads are repacked from the rasterizer's structure-of-arrays form into the
//! interpreter's lane-major interface words, run, and unpacked again.

use super::descriptors::DescriptorSets;
use super::images::ShaderImages;
use super::shader::Shader;
use crate::exec::{self, location_stride, FragQuadInput, VertexIds};
use crate::ir::{Interp, IoBinding, Stage};
use crate::raster::{
    FragmentStage, Interpolation, QuadBatch, QuadOutputs, VertexBatch, VertexOutputs, VertexStage,
};
use crate::texture::Config;
use crate::{Error, Result};

/// A vertex or fragment shader with its resources, as a rasterizer stage.
pub struct BoundStage<'a> {
    shader: &'a Shader,
    sets: &'a DescriptorSets,
    images: ShaderImages,
    interpolation: Vec<Interpolation>,
    in_stride: usize,
    out_stride: usize,
}

impl<'a> BoundStage<'a> {
    /// Bind `shader` to `sets` (image kernels are built here, once per draw).
    pub fn new(shader: &'a Shader, sets: &'a DescriptorSets, config: Config) -> Result<Self> {
        let ir = shader.ir();
        let images = ShaderImages::new(ir, |s, b| sets.get(s, b), config)?;
        let in_stride = location_stride(&ir.inputs);
        let out_stride = location_stride(&ir.outputs);
        let mut interpolation = vec![Interpolation::Smooth; in_stride / 4];
        for v in &ir.inputs {
            if let IoBinding::Location { location, .. } = v.binding {
                let mode = match v.interp {
                    Interp::Smooth => Interpolation::Smooth,
                    Interp::NoPerspective => Interpolation::NoPerspective,
                    Interp::Flat => Interpolation::Flat,
                };
                // Arrays and matrices span several locations.
                let span = (v.count as usize).div_ceil(4).max(1);
                for l in location as usize..(location as usize + span).min(interpolation.len()) {
                    interpolation[l] = mode;
                }
            }
        }
        Ok(BoundStage {
            shader,
            sets,
            images,
            interpolation,
            in_stride,
            out_stride,
        })
    }

    fn expect(&self, stage: Stage) -> Result<()> {
        if self.shader.stage() != stage {
            return Err(Error::Pipeline(format!(
                "shader '{}' is a {:?} shader, used as a {stage:?} stage",
                self.shader.ir().name,
                self.shader.stage()
            )));
        }
        Ok(())
    }
}

impl VertexStage for BoundStage<'_> {
    fn varying_count(&self) -> usize {
        self.out_stride / 4
    }

    fn run(&self, input: &VertexBatch, output: &mut VertexOutputs) -> Result<()> {
        self.expect(Stage::Vertex)?;
        let n = input.len();
        let ids: Vec<VertexIds> = (0..n)
            .map(|v| VertexIds {
                vertex_index: input.vertex_index[v],
                instance_index: input.instance_index[v],
                ..Default::default()
            })
            .collect();
        let stride = self.in_stride;
        let mut attrs = vec![0u32; n * stride];
        for a in &input.attributes {
            let base = a.location as usize * 4;
            if base + 4 > stride {
                continue; // an attribute the shader does not read
            }
            for (v, val) in a.values.iter().enumerate().take(n) {
                attrs[v * stride + base..v * stride + base + 4].copy_from_slice(val);
            }
        }
        let bindings = self.sets.bindings(self.shader.ir(), &self.images)?;
        let out = exec::run_vertex(self.shader.program(), &ids, &attrs, stride, &bindings)?;
        output.position.copy_from_slice(&out.position[..n]);
        output.point_size.copy_from_slice(&out.point_size[..n]);
        for (loc, dst) in output.varyings.iter_mut().enumerate() {
            for (v, d) in dst.iter_mut().enumerate().take(n) {
                let o = v * out.stride + loc * 4;
                if o + 4 <= out.varyings.len() && loc * 4 + 4 <= out.stride {
                    d.copy_from_slice(&out.varyings[o..o + 4]);
                }
            }
        }
        Ok(())
    }
}

impl FragmentStage for BoundStage<'_> {
    fn interpolation(&self) -> &[Interpolation] {
        &self.interpolation
    }

    fn writes_depth(&self) -> bool {
        // With `EarlyFragmentTests` the depth test ran before the shader: a FragDepth write is
        // ignored (Vulkan, "Early Fragment Test Mode").
        let ir = self.shader.ir();
        ir.writes_depth && !ir.early_fragment_tests
    }

    fn can_discard(&self) -> bool {
        self.shader.ir().can_discard
    }

    fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()> {
        self.expect(Stage::Fragment)?;
        let nloc = self.interpolation.len();
        let quads: Vec<FragQuadInput> = (0..input.quads)
            .map(|q| {
                let mut fq = FragQuadInput {
                    front_facing: input.front_facing[q * 4],
                    primitive_id: input.primitive_id[q * 4],
                    sample_mask: [1; 4],
                    varyings: vec![0; 4 * nloc * 4],
                    ..Default::default()
                };
                for i in 0..4 {
                    let l = q * 4 + i;
                    fq.frag_coord[i] = input.frag_coord[l];
                    fq.helper[i] = input.coverage[q] & (1 << i) == 0;
                    for (loc, vals) in input.varyings.iter().enumerate().take(nloc) {
                        let o = i * nloc * 4 + loc * 4;
                        fq.varyings[o..o + 4].copy_from_slice(&vals[l]);
                    }
                }
                fq
            })
            .collect();
        let bindings = self.sets.bindings(self.shader.ir(), &self.images)?;
        let out = exec::run_fragment_quads(self.shader.program(), &quads, &bindings)?;
        let stride = self.out_stride;
        for (q, o) in out.iter().enumerate() {
            let mut killed = 0u8;
            for i in 0..4 {
                let l = q * 4 + i;
                for (att, dst) in output.color.iter_mut().enumerate() {
                    let w = i * stride + att * 4;
                    if att * 4 + 4 <= stride && w + 4 <= o.outputs.len() {
                        dst[l].copy_from_slice(&o.outputs[w..w + 4]);
                    }
                }
                if let Some(d) = output.depth.get_mut(l) {
                    *d = o.frag_depth[i];
                }
                if o.discarded[i] {
                    killed |= 1 << i;
                }
            }
            if let Some(k) = output.killed.get_mut(q) {
                *k = killed;
            }
        }
        Ok(())
    }
}
