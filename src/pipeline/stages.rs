//! The rasterizer's shader stages implemented by the interpreter. Vertex batches are repacked
//! from the rasterizer's structure-of-arrays form into the interpreter's lane-major interface
//! words, run, and unpacked again. Fragment batches cross in row form: the stage's
//! [`RowLayout`] is the shader's own Local words (`exec::fragment_row_layout`), so the
//! rasterizer interpolates into, and converts colours from, the interpreter's memory
//! (`exec::run_fragment_rows` swaps the rows in): no copy or transpose at the boundary.

use super::descriptors::DescriptorSets;
use super::images::ShaderImages;
use super::shader::Shader;
use crate::exec::{self, location_stride, NoObserver, Observer, VertexIds};
use crate::ir::{self, BuiltIn, Interp, IoBinding, Stage};
use crate::raster::{
    FragInputs, FragmentStage, Interpolation, QuadBatch, QuadOutputs, VertexBatch, VertexOutputs,
    VertexStage,
};
use crate::stage::{
    Domain, DomainBatch, Emitted, GeometryModes, GeometryOutput, GeometryStage, PatchBatch,
    Patches, PrimitiveBatch, RowBatch, RowLayout, SampleUse, Sampling, Spacing, TessControlStage,
    TessEvalStage, TessModes, Vertices,
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
    /// The fragment interface in row form (empty for other stages).
    layout: RowLayout,
}

impl<'a> BoundStage<'a> {
    /// Bind `shader` to `sets` (image kernels are built here, once per draw).
    pub fn new(shader: &'a Shader, sets: &'a DescriptorSets, config: Config) -> Result<Self> {
        let ir = shader.ir();
        let images = ShaderImages::new(ir, |r| sets.lookup(r), config)?;
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
        let layout = match shader.stage() {
            Stage::Fragment => exec::fragment_row_layout(shader.program()),
            _ => RowLayout::default(),
        };
        Ok(BoundStage {
            shader,
            sets,
            images,
            interpolation,
            in_stride,
            out_stride,
            layout,
        })
    }

    /// The bound shader.
    pub fn shader(&self) -> &'a Shader {
        self.shader
    }

    /// The descriptor sets it reads.
    pub fn sets(&self) -> &'a DescriptorSets {
        self.sets
    }

    /// Its image unit (what the debugger asks to explain an image instruction).
    pub(crate) fn images(&self) -> &ShaderImages {
        &self.images
    }

    /// [`FragmentStage::run_rows`] with an interpreter observer (the debugger): the same run,
    /// every instruction observed.
    pub(crate) fn run_rows_observed<O: Observer>(
        &self,
        batch: &mut RowBatch,
        obs: &mut O,
    ) -> Result<()> {
        self.expect(Stage::Fragment)?;
        let bindings = self.sets.bindings(self.shader.ir(), &self.images)?;
        exec::run_fragment_rows_observed(self.shader.program(), batch, &bindings, obs)
    }

    /// [`VertexStage::run`] with an interpreter observer (the debugger).
    pub(crate) fn run_vertices_observed<O: Observer>(
        &self,
        input: &VertexBatch,
        output: &mut VertexOutputs,
        obs: &mut O,
    ) -> Result<()> {
        self.vertices(input, output, Some(obs))
    }

    /// The vertex stage, observed by `obs` if there is one.
    fn vertices<O: Observer>(
        &self,
        input: &VertexBatch,
        output: &mut VertexOutputs,
        obs: Option<&mut O>,
    ) -> Result<()> {
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
        let program = self.shader.program();
        let out = match obs {
            Some(o) => exec::run_vertex_observed(program, &ids, &attrs, stride, &bindings, o)?,
            None => exec::run_vertex(program, &ids, &attrs, stride, &bindings)?,
        };
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
        self.vertices(input, output, None::<&mut NoObserver>)
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

    fn built_ins(&self) -> FragInputs {
        let ir = self.shader.ir();
        let reads = |b: BuiltIn| ir.inputs.iter().any(|v| v.binding == IoBinding::BuiltIn(b));
        FragInputs {
            // `FragDepth` starts as `FragCoord.z`
            frag_coord: reads(BuiltIn::FragCoord)
                || ir
                    .outputs
                    .iter()
                    .any(|v| v.binding == IoBinding::BuiltIn(BuiltIn::FragDepth)),
            front_facing: reads(BuiltIn::FrontFacing),
            primitive_id: reads(BuiltIn::PrimitiveId),
            point_coord: reads(BuiltIn::PointCoord),
            layer: reads(BuiltIn::Layer) || reads(BuiltIn::ViewportIndex),
        }
    }

    fn sample_use(&self) -> SampleUse {
        let ir = self.shader.ir();
        let reads = |b: BuiltIn| ir.inputs.iter().any(|v| v.binding == IoBinding::BuiltIn(b));
        let mut sampling = vec![Sampling::Center; self.interpolation.len()];
        for v in &ir.inputs {
            if let IoBinding::Location { location, .. } = v.binding {
                let at = match v.sampling {
                    ir::Sampling::Center => continue,
                    ir::Sampling::Centroid => Sampling::Centroid,
                    ir::Sampling::Sample => Sampling::Sample,
                };
                let span = (v.count as usize).div_ceil(4).max(1);
                for l in location as usize..(location as usize + span).min(sampling.len()) {
                    sampling[l] = at;
                }
            }
        }
        if sampling.iter().all(|&s| s == Sampling::Center) {
            sampling.clear();
        }
        let interpolate_at = ir
            .body
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|i| matches!(i, ir::Inst::InterpolateAt { .. }));
        SampleUse {
            per_sample: reads(BuiltIn::SampleId)
                || reads(BuiltIn::SamplePosition)
                || sampling.contains(&Sampling::Sample),
            mask_in: reads(BuiltIn::SampleMask),
            mask_out: ir
                .outputs
                .iter()
                .any(|v| v.binding == IoBinding::BuiltIn(BuiltIn::SampleMask)),
            interpolate_at,
            sampling,
        }
    }

    /// The [`QuadBatch`] form, through the row form (tests and tools; the rasterizer calls
    /// `run_rows`).
    fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()> {
        self.expect(Stage::Fragment)?;
        let mut batch = RowBatch::from_quads(&self.layout, input, output)?;
        self.run_rows(&self.layout, &mut batch)?;
        batch.to_outputs(&self.layout, output);
        Ok(())
    }

    fn layout(&self, _attachments: usize) -> RowLayout {
        self.layout.clone()
    }

    fn rows_pass_through(&self) -> bool {
        // what `run_rows` below then does: `exec::run_fragment_rows` runs nothing, only
        // zeroes `zero_rows` and the kill flags; so none of those may be an interface row
        let program = self.shader.program();
        let l = &self.layout;
        let named = |w: u32| {
            let inputs = l.inputs.iter().flat_map(|(_, ws)| ws);
            inputs
                .chain(l.colors.iter().flatten())
                .any(|&r| r == Some(w))
        };
        self.shader.stage() == Stage::Fragment
            && exec::fragment_rows_run_nothing(program)
            && self.shader.ir().resources.is_empty()
            && program
                .zero_rows
                .iter()
                .all(|&(w, n)| (w..w.saturating_add(n)).all(|w| !named(w)))
    }

    fn run_rows(&self, _layout: &RowLayout, batch: &mut RowBatch) -> Result<()> {
        self.expect(Stage::Fragment)?;
        let program = self.shader.program();
        if exec::fragment_rows_run_nothing(program) && self.shader.ir().resources.is_empty() {
            // nothing runs and nothing is bound, so there is nothing to look up or report
            // (no bindings are built)
            return exec::run_fragment_rows(program, batch, &exec::Bindings::default());
        }
        let bindings = self.sets.bindings(self.shader.ir(), &self.images)?;
        exec::run_fragment_rows(program, batch, &bindings)
    }
}

/// Locations `0..n` of the Location variables of `vars` whose `per` is (or is not, `!patch`)
/// per patch: the vertex and patch location counts of a tessellation or geometry stage.
fn locations(vars: &[ir::IoVar], patch: bool) -> usize {
    let vars: Vec<ir::IoVar> = vars
        .iter()
        .filter(|v| (v.per == ir::IoPer::Patch) == patch)
        .cloned()
        .collect();
    location_stride(&vars) / 4
}

/// The tessellator settings a shader declares.
fn tess_modes(m: &ir::StageModes) -> TessModes {
    TessModes {
        domain: m.domain.map(|d| match d {
            ir::TessDomain::Triangles => Domain::Triangles,
            ir::TessDomain::Quads => Domain::Quads,
            ir::TessDomain::Isolines => Domain::Isolines,
        }),
        spacing: m.spacing.map(|s| match s {
            ir::TessSpacing::Equal => Spacing::Equal,
            ir::TessSpacing::FractionalEven => Spacing::FractionalEven,
            ir::TessSpacing::FractionalOdd => Spacing::FractionalOdd,
        }),
        ccw: m.ccw,
        point_mode: m.point_mode,
    }
}

impl TessControlStage for BoundStage<'_> {
    fn output_vertices(&self) -> usize {
        self.shader.ir().modes.output_vertices as usize
    }
    fn varying_count(&self) -> usize {
        locations(&self.shader.ir().outputs, false)
    }
    fn patch_count(&self) -> usize {
        locations(&self.shader.ir().outputs, true)
    }
    fn modes(&self) -> TessModes {
        tess_modes(&self.shader.ir().modes)
    }
    fn run(&self, input: &PatchBatch, output: &mut Patches) -> Result<()> {
        self.expect(Stage::TessControl)?;
        output.points.n_vary = TessControlStage::varying_count(self);
        output.n_patch = self.patch_count();
        let bindings = self.sets.bindings(self.shader.ir(), &self.images)?;
        exec::run_tess_control(self.shader.program(), input, &bindings, output)
    }
}

impl TessEvalStage for BoundStage<'_> {
    fn modes(&self) -> TessModes {
        tess_modes(&self.shader.ir().modes)
    }
    fn varying_count(&self) -> usize {
        locations(&self.shader.ir().outputs, false)
    }
    fn run(&self, input: &DomainBatch, output: &mut Vertices) -> Result<()> {
        self.expect(Stage::TessEval)?;
        let bindings = self.sets.bindings(self.shader.ir(), &self.images)?;
        exec::run_tess_eval(self.shader.program(), input, &bindings, output)
    }
}

impl GeometryStage for BoundStage<'_> {
    fn modes(&self) -> GeometryModes {
        let m = &self.shader.ir().modes;
        GeometryModes {
            input_vertices: m.input.map_or(1, |i| i.vertices()),
            output: match m.output {
                Some(ir::GeomOutput::Points) | None => GeometryOutput::Points,
                Some(ir::GeomOutput::LineStrip) => GeometryOutput::LineStrip,
                Some(ir::GeomOutput::TriangleStrip) => GeometryOutput::TriangleStrip,
            },
            max_vertices: m.output_vertices as usize,
            invocations: m.invocations.max(1) as usize,
        }
    }
    fn varying_count(&self) -> usize {
        locations(&self.shader.ir().outputs, false)
    }
    fn run(&self, input: &PrimitiveBatch, output: &mut Emitted) -> Result<()> {
        self.expect(Stage::Geometry)?;
        output.vertices.n_vary = GeometryStage::varying_count(self);
        let max = GeometryStage::modes(self).max_vertices;
        let bindings = self.sets.bindings(self.shader.ir(), &self.images)?;
        exec::run_geometry(self.shader.program(), input, max, &bindings, output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::FragQuadInput;
    use crate::raster::{ColorTarget, Format, Pipeline, PipelineState, Rasterizer};
    use crate::raster::{RenderTargets, VertexStage};

    /// The fragment stage as it was before the batch path: every quad repacked into a
    /// `FragQuadInput` and shaded through the per-quad `run_fragment_quads`, an independent
    /// implementation of the interface filling and collecting.
    struct PerQuad<'a>(BoundStage<'a>);

    impl FragmentStage for PerQuad<'_> {
        fn interpolation(&self) -> &[Interpolation] {
            self.0.interpolation()
        }
        fn writes_depth(&self) -> bool {
            FragmentStage::writes_depth(&self.0)
        }
        fn can_discard(&self) -> bool {
            FragmentStage::can_discard(&self.0)
        }
        fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()> {
            let s = &self.0;
            let nloc = s.interpolation.len();
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
                        fq.point_coord[i] = input.point_coord[l];
                        fq.helper[i] = input.coverage[q] & (1 << i) == 0;
                        for (loc, vals) in input.varyings.iter().enumerate().take(nloc) {
                            let o = i * nloc * 4 + loc * 4;
                            fq.varyings[o..o + 4].copy_from_slice(&vals[l]);
                        }
                    }
                    fq
                })
                .collect();
            let bindings = s.sets.bindings(s.shader.ir(), &s.images)?;
            let out = exec::run_fragment_quads(s.shader.program(), &quads, &bindings)?;
            let stride = s.out_stride;
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
                    output.depth[l] = o.frag_depth[i];
                    if o.discarded[i] {
                        killed |= 1 << i;
                    }
                }
                output.killed[q] = killed;
            }
            Ok(())
        }
    }

    fn render(vs: &dyn VertexStage, fs: &dyn FragmentStage, size: u32, threads: usize) -> Vec<u8> {
        let pipeline = Pipeline {
            state: PipelineState::default(),
            vertex: vs,
            fragment: fs,
            stages: Default::default(),
        };
        let mut color = ColorTarget::new(Format::R32G32B32A32_SFLOAT, size, size);
        color.clear_f32([0.0, 0.0, 0.0, 1.0]);
        let mut targets = RenderTargets {
            color: vec![color],
            depth_stencil: None,
        };
        let raster = Rasterizer::new(threads).unwrap();
        let mut pass = raster.begin(&mut targets);
        pass.bind_pipeline(&pipeline);
        pass.draw(3, 1, 0, 0).unwrap();
        drop(pass);
        targets.color.pop().unwrap().data
    }

    /// Every demo scene (textures, quad swaps, derivatives, demote, a loop) rendered through
    /// the batch path equals the per-quad path bit for bit. The odd size leaves partly covered
    /// quads (helper lanes) along the right and bottom edges.
    #[test]
    fn batch_path_equals_per_quad_path() {
        let size = 37;
        for scene in crate::demo::all(size).unwrap() {
            let config = Config::default();
            let vs = BoundStage::new(&scene.vertex, &scene.sets, config).unwrap();
            let fs = BoundStage::new(&scene.fragment, &scene.sets, config).unwrap();
            let batch = render(&vs, &fs, size, 2);
            let per_quad = render(&vs, &PerQuad(fs), size, 1);
            let differing = batch
                .chunks_exact(4)
                .zip(per_quad.chunks_exact(4))
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(differing, 0, "scene {}: words differ", scene.name);
            // The scene is not blank: the comparison means something.
            let mut cleared = ColorTarget::new(Format::R32G32B32A32_SFLOAT, size, size);
            cleared.clear_f32([0.0, 0.0, 0.0, 1.0]);
            assert_ne!(batch, cleared.data, "scene {}", scene.name);
        }
    }

    /// A stage whose unread built-in arrays (by its own `built_ins`) are overwritten with
    /// garbage before it runs: if anything read them, the image would change.
    struct Poisoned<'a>(BoundStage<'a>);

    impl FragmentStage for Poisoned<'_> {
        fn interpolation(&self) -> &[Interpolation] {
            self.0.interpolation()
        }
        fn writes_depth(&self) -> bool {
            FragmentStage::writes_depth(&self.0)
        }
        fn can_discard(&self) -> bool {
            FragmentStage::can_discard(&self.0)
        }
        fn built_ins(&self) -> FragInputs {
            self.0.built_ins()
        }
        fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()> {
            let reads = self.0.built_ins();
            let mut input = input.clone();
            if !reads.frag_coord {
                input.frag_coord.fill([f32::NAN, -7.0, 1e30, 0.0]);
            }
            if !reads.front_facing {
                input.front_facing.iter_mut().for_each(|f| *f = !*f);
            }
            if !reads.primitive_id {
                input.primitive_id.fill(0xdead_beef);
            }
            if !reads.point_coord {
                input.point_coord.fill([f32::NAN, 9.0]);
            }
            FragmentStage::run(&self.0, &input, output)
        }
    }

    /// The rasterizer may leave the built-in inputs a stage does not read unfilled: garbage
    /// in them changes no demo scene (compared with the per-quad path, which gets them all),
    /// and the stages that read `FragCoord` say so.
    #[test]
    fn unread_built_ins_are_not_read() {
        let size = 37;
        let (mut reading_frag_coord, mut scenes) = (0, 0);
        for scene in crate::demo::all(size).unwrap() {
            scenes += 1;
            let config = Config::default();
            let vs = BoundStage::new(&scene.vertex, &scene.sets, config).unwrap();
            let fs = BoundStage::new(&scene.fragment, &scene.sets, config).unwrap();
            reading_frag_coord += fs.built_ins().frag_coord as usize;
            let per_quad = render(&vs, &PerQuad(fs), size, 1);
            let fs = BoundStage::new(&scene.fragment, &scene.sets, config).unwrap();
            let poisoned = render(&vs, &Poisoned(fs), size, 2);
            assert!(poisoned == per_quad, "scene {}", scene.name);
        }
        // Both kinds are there: the poison is applied somewhere and the hint is not all-false.
        assert!(reading_frag_coord > 0, "no demo scene reads FragCoord");
        assert!(
            reading_frag_coord < scenes,
            "every demo scene reads FragCoord"
        );
    }

    /// Bad array lengths are an error, not a panic.
    #[test]
    fn short_batch_arrays_are_an_error() {
        let scene = crate::demo::alu(8).unwrap();
        let fs = BoundStage::new(&scene.fragment, &scene.sets, Config::default()).unwrap();
        let input = QuadBatch {
            quads: 2,
            ..Default::default()
        };
        let mut output = QuadOutputs::default();
        let err = FragmentStage::run(&fs, &input, &mut output).unwrap_err();
        assert!(err.to_string().contains("shorter"), "{err}");
    }
}
