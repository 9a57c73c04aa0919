//! The fragment stage's side of the contract: how inputs are interpolated, what the stage
//! reads and writes of multisampling, the per-lane [`QuadBatch`] / [`QuadOutputs`] form that
//! closure stages use, and the [`FragmentStage`] trait whose default `run_rows` converts the
//! row form ([`super::RowBatch`]) to it. Quads are 2x2 lanes laid out `0 1 / 2 3`.

use super::rows::{RowBatch, RowLayout};
use crate::Result;

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
                "stage/fragment.rs: the fragment stage resized its outputs (expected {} \
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
