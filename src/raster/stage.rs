//! The two shader stages as the rasterizer sees them. Everything crosses as raw 32-bit words in
//! structure-of-arrays form, the layout the lock-step interpreter keeps its registers in.
//!
//! Fragment batches cross in row form ([`RowBatch`]): one row of lanes per interface word, at
//! rows the stage itself chooses ([`FragmentStage::layout`]). The interpreter chooses its own
//! per-lane memory words, so the rasterizer writes the inputs, and reads the colours, where the
//! shader has them, with nothing copied or transposed between (the per-lane vectors and their
//! two 4x4 transposes per location had been about half the fragment stage's cost for a
//! pass-through shader). Closure stages keep the per-lane [`QuadBatch`] / [`QuadOutputs`] form
//! (`FragmentStage::run`); the default `run_rows` converts.

use crate::Result;

/// Vertices per vertex-stage call (the last batch of a draw may be shorter).
pub const VERTEX_BATCH: usize = 64;
/// Quads (4 lanes each) per fragment-stage call at most.
pub const QUAD_BATCH: usize = 64;

/// One fetched vertex attribute stream: the values at `location` for every vertex of a batch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttributeStream {
    pub location: u32,
    /// Per vertex, four components as raw bits: f32 bits for float, normalized and scaled
    /// formats, integers for integer formats. Missing components are (0, 0, 0, 1).
    pub values: Vec<[u32; 4]>,
}

/// Input of one vertex-stage call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexBatch {
    /// `VertexIndex` per vertex (index + vertexOffset for indexed draws, firstVertex + i otherwise).
    pub vertex_index: Vec<u32>,
    /// `InstanceIndex` per vertex (firstInstance + instance).
    pub instance_index: Vec<u32>,
    /// One stream per vertex attribute of the pipeline, in declaration order.
    pub attributes: Vec<AttributeStream>,
}

impl VertexBatch {
    /// Number of vertices in the batch.
    pub fn len(&self) -> usize {
        self.vertex_index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vertex_index.is_empty()
    }

    /// The fetched values at `location`, if the pipeline declares that attribute.
    pub fn attribute(&self, location: u32) -> Option<&[[u32; 4]]> {
        self.attributes
            .iter()
            .find(|a| a.location == location)
            .map(|a| a.values.as_slice())
    }
}

/// Output of one vertex-stage call; the rasterizer sizes every `Vec` to the batch length
/// (zero-filled, point size 1.0) before the call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VertexOutputs {
    /// `Position` in clip space.
    pub position: Vec<[f32; 4]>,
    /// `PointSize` (used for point primitives).
    pub point_size: Vec<f32>,
    /// `varyings[location][vertex]` as raw bits, locations `0..VertexStage::varying_count()`.
    pub varyings: Vec<Vec<[u32; 4]>>,
}

/// A vertex shader.
pub trait VertexStage: Sync {
    /// Number of output locations (`0..n`) the stage writes.
    fn varying_count(&self) -> usize;
    /// Shade one batch. `output` comes sized to `input.len()` vertices.
    fn run(&self, input: &VertexBatch, output: &mut VertexOutputs) -> Result<()>;
}

/// How a fragment input location is interpolated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Perspective-correct (the default).
    #[default]
    Smooth,
    /// Linear in screen space.
    NoPerspective,
    /// The provoking (first) vertex's raw bits, no conversion.
    Flat,
}

/// Where in its pixel a fragment input is evaluated when there are several samples (with one
/// sample, every input is evaluated at the pixel centre).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sampling {
    /// The pixel centre, or the invocation's sample when shading per sample.
    #[default]
    Center,
    /// `Centroid`: the centre when every sample of the pixel is covered, else the covered
    /// sample of lowest index (llvmpipe's choice), or the invocation's sample when shading per
    /// sample.
    Centroid,
    /// `Sample`: the invocation's sample (the stage then runs once per sample).
    Sample,
}

/// What a fragment stage reads and writes of multisampling: any of it sends its draws down
/// the rasterizer's per-sample path (`tile::samples`), whatever the sample count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleUse {
    /// The stage runs once per covered sample: it reads `SampleId` or `SamplePosition`, or
    /// has a `Sample`-qualified input.
    pub per_sample: bool,
    /// It reads the `SampleMask` input ([`RowBatch::sample_mask`]).
    pub mask_in: bool,
    /// It writes `SampleMask` ([`RowBatch::sample_mask_out`]).
    pub mask_out: bool,
    /// It evaluates inputs elsewhere in the pixel (`InterpolateAtCentroid`, `AtSample`,
    /// `AtOffset`): it needs [`RowBatch::planes`].
    pub interpolate_at: bool,
    /// Per input location, where it is evaluated (locations past the end: the centre).
    pub sampling: Vec<Sampling>,
}

impl SampleUse {
    /// Whether anything here needs the per-sample path.
    pub fn any(&self) -> bool {
        self.per_sample
            || self.mask_in
            || self.mask_out
            || self.interpolate_at
            || self.sampling.iter().any(|&s| s != Sampling::Center)
    }
}

/// What `InterpolateAtCentroid`, `InterpolateAtSample` and `InterpolateAtOffset` need to
/// evaluate an input anywhere in a lane's pixel: per quad, the numerator plane of every input
/// row and each mode's denominator, as values at the quad's lane 0 pixel centre with their
/// steps per pixel in x and y, and per lane its centroid's offset from the pixel centre. A
/// value at offset (ox, oy) from lane k's centre is `N / D` with `N = a + dx (kx + ox) + dy
/// (ky + oy)` (`kx = k & 1`, `ky = k >> 1`), `D` the same of the row's mode (1 where 0),
/// rounded to f32; a flat row's `N` is its value and its `D` 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InterpPlanes {
    /// Per layout row: its entry among a quad's planes (`None`: no input there).
    pub rows: Vec<Option<u32>>,
    /// Planes per quad: [`InterpPlanes::DENOMINATORS`] denominators (smooth, noperspective,
    /// flat), then one numerator per named row.
    pub per_quad: usize,
    /// `(a, dx, dy)`, quad after quad.
    pub values: Vec<[f64; 3]>,
    /// Per named row, which denominator it divides by (0 smooth, 1 noperspective, 2 flat).
    pub modes: Vec<u8>,
    /// Per lane: the centroid's offset from the pixel centre, in pixels.
    pub centroid: Vec<[f32; 2]>,
}

impl InterpPlanes {
    /// Denominator planes at the start of each quad's planes.
    pub const DENOMINATORS: usize = 3;

    /// Row `row` (a Local word) of `lane` at offset (ox, oy) from the lane's pixel centre, as
    /// f32 bits; `None` when no input lives in that row.
    pub fn at(&self, row: u32, lane: usize, ox: f64, oy: f64) -> Option<u32> {
        let e = (*self.rows.get(row as usize)?)? as usize;
        let (q, k) = (lane / 4, lane % 4);
        let quad = self
            .values
            .get(q * self.per_quad..(q + 1) * self.per_quad)?;
        let (kx, ky) = ((k & 1) as f64 + ox, (k >> 1) as f64 + oy);
        let eval = |p: &[f64; 3]| p[0] + p[1] * kx + p[2] * ky;
        let num = eval(quad.get(Self::DENOMINATORS + e)?);
        let den = eval(quad.get(*self.modes.get(e)? as usize)?);
        let den = if den == 0.0 { 1.0 } else { den };
        Some(((num * (1.0 / den)) as f32).to_bits())
    }
}

/// Input of one fragment-stage call: `quads` 2x2 quads, lanes `4q..4q+4` laid out `0 1 / 2 3`
/// (x right, y down); quad origins are at even x and y.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuadBatch {
    /// Number of quads (`lanes = 4 * quads`).
    pub quads: usize,
    /// `FragCoord` per lane: (x + 0.5, y + 0.5, z, 1/w).
    pub frag_coord: Vec<[f32; 4]>,
    /// `FrontFacing` per lane.
    pub front_facing: Vec<bool>,
    /// `PrimitiveId` per lane.
    pub primitive_id: Vec<u32>,
    /// `PointCoord` per lane (points only; (0, 0) for lines and triangles).
    pub point_coord: Vec<[f32; 2]>,
    /// Coverage per quad: bit k set = lane 4q+k is a covered fragment; clear = helper lane.
    pub coverage: Vec<u8>,
    /// `varyings[location][lane]` as raw bits (f32 bits unless flat), one per
    /// `FragmentStage::interpolation()` entry.
    pub varyings: Vec<Vec<[u32; 4]>>,
    /// `SampleId` per lane (empty unless the rasterizer took its per-sample path).
    pub sample_id: Vec<u32>,
    /// The `SampleMask` input per lane (the same).
    pub sample_mask: Vec<u32>,
}

/// Output of one fragment-stage call; sized by the rasterizer, colours and `killed` zero-filled
/// (`depth`: see below).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuadOutputs {
    /// `color[attachment][lane]`: raw bits (f32 bits for float/normalized attachments).
    pub color: Vec<Vec<[u32; 4]>>,
    /// Second colour output of location 0 (index 1) for dual-source blending, per lane.
    pub color1: Vec<[u32; 4]>,
    /// `FragDepth` per lane: pre-filled with the interpolated depth and read only if
    /// `FragmentStage::writes_depth()` (otherwise unspecified).
    pub depth: Vec<f32>,
    /// Per quad: bit k set = lane 4q+k was discarded (read only if `can_discard()`).
    pub killed: Vec<u8>,
    /// The `SampleMask` output per lane: pre-filled with the input mask, read only if the
    /// stage says it writes it ([`SampleUse::mask_out`]).
    pub sample_mask: Vec<u32>,
}

/// Where a fragment batch's interface words live in [`RowBatch::rows`]: one row of lanes per
/// word, numbered as the stage wants them. The interpreter names its own per-lane (Local)
/// words, so the rasterizer interpolates into the very words the shader loads and converts
/// colours from the very words it stores: nothing is copied or transposed in between.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowLayout {
    /// Rows per lane: `RowBatch::rows` holds `rows * lanes` words.
    pub rows: usize,
    /// `(location, rows of components 0..4)`: the rasterizer writes the interpolated input at
    /// `location` into these rows for every lane before the run (`None`: not read). Several
    /// entries may name one location.
    pub inputs: Vec<(u32, [Option<u32>; 4])>,
    /// Per colour attachment, the rows its four output components are read from after the
    /// run (`None`, or an attachment past the end: 0).
    pub colors: Vec<[Option<u32>; 4]>,
    /// The second colour of location 0 for dual-source blending (`None`: 0).
    pub color1: [Option<u32>; 4],
}

impl RowLayout {
    /// The layout of the [`QuadBatch`] form: input location `l` component `c` in row `4l + c`
    /// for `locations` locations, then attachment `a`'s components, then `color1`'s.
    pub fn quad_batch(locations: usize, attachments: usize) -> RowLayout {
        let four = |first: usize| std::array::from_fn(|c| Some((first + c) as u32));
        RowLayout {
            rows: 4 * (locations + attachments + 1),
            inputs: (0..locations).map(|l| (l as u32, four(4 * l))).collect(),
            colors: (0..attachments)
                .map(|a| four(4 * (locations + a)))
                .collect(),
            color1: four(4 * (locations + attachments)),
        }
    }

    /// Row `r` of `rows` (`lanes` words each), if it is one.
    #[inline]
    pub fn row(rows: &[u32], r: Option<u32>, lanes: usize) -> Option<&[u32]> {
        rows.get(r? as usize * lanes..)?.get(..lanes)
    }
}

/// One fragment-stage call in row form (see [`RowLayout`]): `quads` 2x2 quads, lanes
/// `4q..4q+4` laid out `0 1 / 2 3`, every interface word a row of lanes. The rasterizer owns
/// it and reuses it batch after batch; a stage may swap `rows` with its own buffer of the
/// same length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowBatch {
    /// Number of quads (`lanes = 4 * quads`).
    pub quads: usize,
    /// Coverage per quad: bit k set = lane 4q+k is a covered fragment; clear = helper lane.
    pub coverage: Vec<u8>,
    /// The built-in inputs as in [`QuadBatch`] (only those `FragmentStage::built_ins` names
    /// are filled).
    pub frag_coord: Vec<[f32; 4]>,
    pub front_facing: Vec<bool>,
    pub primitive_id: Vec<u32>,
    pub point_coord: Vec<[f32; 2]>,
    /// `Layer` and `ViewportIndex` per lane (a geometry shader's; 0 without one).
    pub layer: Vec<u32>,
    pub viewport: Vec<u32>,
    /// `rows[row * lanes + lane]`, `layout.rows * lanes` words: the layout's input rows are
    /// written before the run, its colour rows read after it; other rows are the stage's.
    pub rows: Vec<u32>,
    /// `FragDepth` per lane: pre-filled with the interpolated depth and read only if
    /// `FragmentStage::writes_depth()` (otherwise unspecified).
    pub depth: Vec<f32>,
    /// Per quad: bit k set = lane 4q+k was discarded (zero before the run; read only if
    /// `can_discard()`).
    pub killed: Vec<u8>,
    /// Samples per pixel of the draw (`SamplePosition`, `InterpolateAtSample`).
    pub samples: u32,
    /// `SampleId` per lane (filled on the per-sample path: see [`SampleUse`]).
    pub sample_id: Vec<u32>,
    /// The `SampleMask` input per lane: the samples the invocation covers (per-sample path).
    pub sample_mask: Vec<u32>,
    /// The `SampleMask` output per lane, read after the run when the stage writes it
    /// ([`SampleUse::mask_out`]).
    pub sample_mask_out: Vec<u32>,
    /// The planes of `InterpolateAt*` ([`SampleUse::interpolate_at`]).
    pub planes: InterpPlanes,
}

impl RowBatch {
    /// Lanes in the batch.
    #[inline]
    pub fn lanes(&self) -> usize {
        self.quads * 4
    }

    /// The same call in row form: `input`'s arrays and varyings laid out by `layout` (rows
    /// the layout does not name are zero), `depth` from `output`.
    pub fn from_quads(
        layout: &RowLayout,
        input: &QuadBatch,
        output: &QuadOutputs,
    ) -> Result<RowBatch> {
        let (quads, lanes) = (input.quads, input.quads * 4);
        let short = input.frag_coord.len() < lanes
            || input.front_facing.len() < lanes
            || input.primitive_id.len() < lanes
            || input.point_coord.len() < lanes
            || input.coverage.len() < quads
            || input.varyings.iter().any(|v| v.len() < lanes)
            || output.depth.len() < lanes
            || output.killed.len() < quads;
        if short {
            return Err(crate::Error::Exec(format!(
                "raster/stage.rs: a QuadBatch or QuadOutputs array is shorter than its {quads} \
                 quads ({lanes} lanes)"
            )));
        }
        let mut rows = vec![0; layout.rows * lanes];
        for &(loc, words) in &layout.inputs {
            let Some(src) = input.varyings.get(loc as usize) else {
                continue;
            };
            for (c, r) in words.iter().enumerate() {
                let Some(r) = r.filter(|&r| (r as usize) < layout.rows) else {
                    continue;
                };
                for (d, v) in rows[r as usize * lanes..][..lanes].iter_mut().zip(src) {
                    *d = v[c];
                }
            }
        }
        Ok(RowBatch {
            quads,
            coverage: input.coverage[..quads].to_vec(),
            frag_coord: input.frag_coord[..lanes].to_vec(),
            front_facing: input.front_facing[..lanes].to_vec(),
            primitive_id: input.primitive_id[..lanes].to_vec(),
            point_coord: input.point_coord[..lanes].to_vec(),
            layer: vec![0; lanes],
            viewport: vec![0; lanes],
            rows,
            depth: output.depth[..lanes].to_vec(),
            killed: output.killed[..quads].to_vec(),
            samples: 1,
            sample_id: lanes_or(&input.sample_id, lanes, 0),
            sample_mask: match input.sample_mask.len() >= lanes {
                true => input.sample_mask[..lanes].to_vec(),
                false => input
                    .coverage
                    .iter()
                    .flat_map(|&c| (0..4).map(move |k| (c >> k & 1) as u32))
                    .collect(),
            },
            sample_mask_out: lanes_or(&output.sample_mask, lanes, 0),
            planes: InterpPlanes::default(),
        })
    }

    /// The results in [`QuadOutputs`] form: each attachment of `output.color` (and `color1`)
    /// from the layout's rows, `depth` and `killed` as they are.
    pub fn to_outputs(&self, layout: &RowLayout, output: &mut QuadOutputs) {
        let lanes = self.lanes();
        let gather = |dst: &mut [[u32; 4]], words: &[Option<u32>; 4]| {
            for (c, &r) in words.iter().enumerate() {
                let src = RowLayout::row(&self.rows, r, lanes);
                for (l, d) in dst.iter_mut().enumerate().take(lanes) {
                    d[c] = src.map_or(0, |s| s[l]);
                }
            }
        };
        for (a, col) in output.color.iter_mut().enumerate() {
            gather(col, layout.colors.get(a).unwrap_or(&[None; 4]));
        }
        gather(&mut output.color1, &layout.color1);
        let n = lanes.min(output.depth.len()).min(self.depth.len());
        output.depth[..n].copy_from_slice(&self.depth[..n]);
        let q = self.quads.min(output.killed.len()).min(self.killed.len());
        output.killed[..q].copy_from_slice(&self.killed[..q]);
        output.sample_mask.clone_from(&self.sample_mask_out);
    }

    /// The inputs in [`QuadBatch`] form for `locations` locations (varyings from the layout's
    /// rows; a location no entry names reads 0).
    pub fn to_quads(&self, layout: &RowLayout, locations: usize) -> QuadBatch {
        let lanes = self.lanes();
        let mut varyings = vec![vec![[0u32; 4]; lanes]; locations];
        for &(loc, words) in &layout.inputs {
            let Some(dst) = varyings.get_mut(loc as usize) else {
                continue;
            };
            for (c, &r) in words.iter().enumerate() {
                if let Some(src) = RowLayout::row(&self.rows, r, lanes) {
                    for (d, &s) in dst.iter_mut().zip(src) {
                        d[c] = s;
                    }
                }
            }
        }
        QuadBatch {
            quads: self.quads,
            frag_coord: self.frag_coord.clone(),
            front_facing: self.front_facing.clone(),
            primitive_id: self.primitive_id.clone(),
            point_coord: self.point_coord.clone(),
            coverage: self.coverage.clone(),
            varyings,
            sample_id: self.sample_id.clone(),
            sample_mask: self.sample_mask.clone(),
        }
    }
}

/// The first `lanes` values of `v`, or `lanes` copies of `or` when it is shorter.
fn lanes_or(v: &[u32], lanes: usize, or: u32) -> Vec<u32> {
    match v.get(..lanes) {
        Some(v) => v.to_vec(),
        None => vec![or; lanes],
    }
}

/// Which per-lane built-in inputs of a [`QuadBatch`] a fragment stage reads. The rasterizer
/// sizes every array but fills only these; the others hold stale values. (For a shader that
/// reads none of them, filling them was ~15 % of the rasterizer's per-quad work.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragInputs {
    /// `frag_coord` (also needed when the stage writes `FragDepth`, which starts as its z).
    pub frag_coord: bool,
    pub front_facing: bool,
    pub primitive_id: bool,
    pub point_coord: bool,
    /// `layer` and `viewport` (`Layer`, `ViewportIndex`).
    pub layer: bool,
}

impl FragInputs {
    /// Every built-in input (the default).
    pub const ALL: FragInputs = FragInputs {
        frag_coord: true,
        front_facing: true,
        primitive_id: true,
        point_coord: true,
        layer: true,
    };
}

/// A fragment shader.
pub trait FragmentStage: Sync {
    /// Interpolation of input locations `0..n` (one entry per location up to the highest one
    /// read; locations the vertex stage does not write read as zero).
    fn interpolation(&self) -> &[Interpolation];
    /// Whether the stage writes `FragDepth` (forces late depth tests).
    fn writes_depth(&self) -> bool {
        false
    }
    /// Whether the stage may discard (forces late depth tests).
    fn can_discard(&self) -> bool {
        false
    }
    /// The built-in inputs the stage reads (all unless it says otherwise).
    fn built_ins(&self) -> FragInputs {
        FragInputs::ALL
    }
    /// What the stage reads and writes of multisampling (nothing unless it says otherwise).
    fn sample_use(&self) -> SampleUse {
        SampleUse::default()
    }
    /// Whether [`FragmentStage::run_rows`] (with this stage's [`FragmentStage::layout`])
    /// only passes its inputs through: it never fails, kills no lane, writes no depth and
    /// changes no row the layout names as an input or a colour, so every colour it leaves
    /// is the rows the rasterizer wrote. The rasterizer may then not call it, and write the
    /// colours it would have read (`color = v` through the interpreter). Default: false.
    fn rows_pass_through(&self) -> bool {
        false
    }
    /// Shade one batch of quads (helper lanes included).
    fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()>;
    /// Where [`FragmentStage::run_rows`] wants its interface words, for `attachments` colour
    /// attachments; asked once per draw. The default is the [`QuadBatch`] form's
    /// ([`RowLayout::quad_batch`]).
    fn layout(&self, attachments: usize) -> RowLayout {
        RowLayout::quad_batch(self.interpolation().len(), attachments)
    }
    /// Shade one batch in row form, `layout` being this stage's [`FragmentStage::layout`]:
    /// what the rasterizer calls. The default goes through [`FragmentStage::run`] (the rows
    /// taken apart into a [`QuadBatch`], zeroed [`QuadOutputs`], the results put back).
    fn run_rows(&self, layout: &RowLayout, batch: &mut RowBatch) -> Result<()> {
        let lanes = batch.lanes();
        let input = batch.to_quads(layout, self.interpolation().len());
        let mut output = QuadOutputs {
            color: vec![vec![[0; 4]; lanes]; layout.colors.len()],
            color1: vec![[0; 4]; lanes],
            depth: batch.depth.clone(),
            killed: vec![0; batch.quads],
            sample_mask: batch.sample_mask_out.clone(),
        };
        self.run(&input, &mut output)?;
        let bad = output.color.iter().any(|c| c.len() != lanes)
            || output.color.len() != layout.colors.len()
            || output.color1.len() != lanes
            || output.depth.len() != lanes
            || output.killed.len() != batch.quads;
        if bad {
            return Err(crate::Error::Exec(format!(
                "raster/stage.rs: the fragment stage resized its outputs (expected {} \
                 attachments x {lanes} lanes, {} quads)",
                layout.colors.len(),
                batch.quads
            )));
        }
        for (col, words) in output.color.iter().zip(&layout.colors) {
            put_rows(&mut batch.rows, lanes, words, col);
        }
        put_rows(&mut batch.rows, lanes, &layout.color1, &output.color1);
        batch.depth.clone_from(&output.depth);
        batch.killed.clone_from(&output.killed);
        if output.sample_mask.len() == batch.sample_mask_out.len() {
            batch.sample_mask_out.clone_from(&output.sample_mask);
        }
        Ok(())
    }
}

/// Per-lane vectors `src` into the rows `words` names (rows out of range are skipped).
fn put_rows(rows: &mut [u32], lanes: usize, words: &[Option<u32>; 4], src: &[[u32; 4]]) {
    for (c, &r) in words.iter().enumerate() {
        let Some(dst) = r.and_then(|r| rows.get_mut(r as usize * lanes..)?.get_mut(..lanes)) else {
            continue;
        };
        for (d, s) in dst.iter_mut().zip(src) {
            *d = s[c];
        }
    }
}

/// A vertex stage made of a closure (tests, benches, simple tools).
pub struct VertexFn<F> {
    pub varyings: usize,
    pub f: F,
}

impl<F> VertexStage for VertexFn<F>
where
    F: Fn(&VertexBatch, &mut VertexOutputs) -> Result<()> + Sync,
{
    fn varying_count(&self) -> usize {
        self.varyings
    }
    fn run(&self, input: &VertexBatch, output: &mut VertexOutputs) -> Result<()> {
        (self.f)(input, output)
    }
}

/// A fragment stage made of a closure (tests, benches, simple tools).
pub struct FragmentFn<F> {
    pub interpolation: Vec<Interpolation>,
    pub writes_depth: bool,
    pub can_discard: bool,
    pub f: F,
}

impl<F> FragmentStage for FragmentFn<F>
where
    F: Fn(&QuadBatch, &mut QuadOutputs) -> Result<()> + Sync,
{
    fn interpolation(&self) -> &[Interpolation] {
        &self.interpolation
    }
    fn writes_depth(&self) -> bool {
        self.writes_depth
    }
    fn can_discard(&self) -> bool {
        self.can_discard
    }
    fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()> {
        (self.f)(input, output)
    }
}

/// Vertices between the vertex stage and rasterization: what a vertex stage outputs and what
/// the tessellation and geometry stages read and make. Vertex `v`'s output location `l` is
/// `varyings[v * n_vary + l]` (raw bits).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vertices {
    pub position: Vec<[f32; 4]>,
    pub point_size: Vec<f32>,
    pub varyings: Vec<[u32; 4]>,
    pub n_vary: usize,
}

impl Vertices {
    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// `n` fresh vertices (zeros, point size 1.0) of `n_vary` locations.
    pub fn fresh(n: usize, n_vary: usize) -> Vertices {
        Vertices {
            position: vec![[0.0; 4]; n],
            point_size: vec![1.0; n],
            varyings: vec![[0; 4]; n * n_vary],
            n_vary,
        }
    }

    /// Location `l` of vertex `v` (zeros past the varyings).
    pub fn varying(&self, v: usize, l: usize) -> [u32; 4] {
        match l < self.n_vary {
            true => self
                .varyings
                .get(v * self.n_vary + l)
                .copied()
                .unwrap_or([0; 4]),
            false => [0; 4],
        }
    }

    /// Whether the arrays agree with each other.
    pub fn consistent(&self) -> bool {
        let n = self.position.len();
        self.point_size.len() == n && self.varyings.len() == n * self.n_vary
    }
}

/// Input of one tessellation control call: `patches` patches of `patch_size` control points,
/// patch `p`'s point `i` being vertex `slots[p * patch_size + i]` of `vertices`.
#[derive(Clone, Copy, Debug)]
pub struct PatchBatch<'a> {
    pub vertices: &'a Vertices,
    pub slots: &'a [u32],
    pub patch_size: usize,
    /// `PrimitiveId` per patch.
    pub primitive_id: &'a [u32],
}

impl PatchBatch<'_> {
    /// Number of patches.
    pub fn patches(&self) -> usize {
        self.primitive_id.len()
    }
}

/// Output of a tessellation control stage: per patch, its output control points (the stage's
/// `output_vertices()` each, in `points`), its tessellation levels and its per-patch outputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Patches {
    pub points: Vertices,
    /// `TessLevelOuter[0..4]`, then `TessLevelInner[0..2]`.
    pub levels: Vec<[f32; 6]>,
    /// Per-patch output location `l` of patch `p`: `patch[p * n_patch + l]`.
    pub patch: Vec<[u32; 4]>,
    pub n_patch: usize,
}

/// A tessellation control shader.
pub trait TessControlStage: Sync {
    /// Output control points per patch (`OutputVertices`).
    fn output_vertices(&self) -> usize;
    /// Per-vertex output locations (`0..n`).
    fn varying_count(&self) -> usize;
    /// Per-patch output locations (`0..n`).
    fn patch_count(&self) -> usize;
    /// The domain, spacing, winding and point mode the shader declares (the pipeline takes
    /// these from either tessellation stage).
    fn modes(&self) -> TessModes {
        TessModes::default()
    }
    /// Shade a batch of patches; `output` comes empty and is filled with every patch in
    /// order.
    fn run(&self, input: &PatchBatch, output: &mut Patches) -> Result<()>;
}

/// A tessellation domain, as declared by the evaluation (or control) shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Domain {
    #[default]
    Triangles,
    Quads,
    Isolines,
}

/// Tessellation spacing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Spacing {
    #[default]
    Equal,
    FractionalEven,
    FractionalOdd,
}

/// The fixed-function tessellator's settings: each `None` leaves it to the other stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TessModes {
    pub domain: Option<Domain>,
    pub spacing: Option<Spacing>,
    /// Triangles counter-clockwise in (u, v) space (`VertexOrderCcw`).
    pub ccw: Option<bool>,
    pub point_mode: bool,
}

impl TessModes {
    /// These, with what `other` declares where these do not.
    pub fn or(self, other: TessModes) -> TessModes {
        TessModes {
            domain: self.domain.or(other.domain),
            spacing: self.spacing.or(other.spacing),
            ccw: self.ccw.or(other.ccw),
            point_mode: self.point_mode || other.point_mode,
        }
    }
}

/// Input of one tessellation evaluation call: one invocation per domain point.
#[derive(Clone, Copy, Debug)]
pub struct DomainBatch<'a> {
    /// The control stage's output (every patch of the draw).
    pub patches: &'a Patches,
    /// Control points per patch.
    pub patch_vertices: usize,
    /// Per point: its patch and `TessCoord`.
    pub patch: &'a [u32],
    pub coord: &'a [[f32; 3]],
    /// `PrimitiveId` per patch.
    pub primitive_id: &'a [u32],
}

/// A tessellation evaluation shader.
pub trait TessEvalStage: Sync {
    /// The tessellator's settings the shader declares.
    fn modes(&self) -> TessModes;
    /// Output locations (`0..n`).
    fn varying_count(&self) -> usize;
    /// Shade one vertex per domain point; `output` comes sized to the points (fresh).
    fn run(&self, input: &DomainBatch, output: &mut Vertices) -> Result<()>;
}

/// A geometry shader's input and output primitives and limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeometryModes {
    /// Vertices per input primitive: 1, 2, 3, 4 (lines with adjacency), 6 (triangles with
    /// adjacency).
    pub input_vertices: usize,
    pub output: GeometryOutput,
    /// The most vertices one invocation emits (further emits are dropped).
    pub max_vertices: usize,
    /// Invocations per input primitive.
    pub invocations: usize,
}

/// A geometry shader's output primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeometryOutput {
    Points,
    LineStrip,
    TriangleStrip,
}

/// Input of one geometry call: `primitive_id.len()` primitives of `per_primitive` vertices,
/// primitive `p`'s vertex `i` being `vertices` slot `slots[p * per_primitive + i]`; each runs
/// `invocations` times.
#[derive(Clone, Copy, Debug)]
pub struct PrimitiveBatch<'a> {
    pub vertices: &'a Vertices,
    pub slots: &'a [u32],
    pub per_primitive: usize,
    /// `PrimitiveIdIn` per primitive.
    pub primitive_id: &'a [u32],
    pub invocations: usize,
}

/// What a geometry call emitted, invocation after invocation (primitive-major, then
/// invocation): the vertices and, in order, every emit and cut.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Emitted {
    pub vertices: Vertices,
    /// Per emitted vertex: `Layer`, `ViewportIndex` and the `PrimitiveId` output (`None`: not
    /// written by the shader).
    pub layer: Vec<u32>,
    pub viewport: Vec<u32>,
    pub primitive_id: Vec<Option<u32>>,
    pub events: Vec<GeometryEvent>,
}

/// One emit or cut of a geometry invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeometryEvent {
    /// The invocation: `primitive * invocations + invocation` within the call.
    pub invocation: u32,
    pub stream: u32,
    /// `Some(v)`: vertex `v` of [`Emitted::vertices`] was emitted; `None`: `EndPrimitive`.
    pub vertex: Option<u32>,
}

/// A geometry shader.
pub trait GeometryStage: Sync {
    fn modes(&self) -> GeometryModes;
    /// Output locations (`0..n`).
    fn varying_count(&self) -> usize;
    /// Shade a batch of primitives; `output` comes empty.
    fn run(&self, input: &PrimitiveBatch, output: &mut Emitted) -> Result<()>;
}
