//! Fragment batches in row form: one row of lanes per interface word, at rows the stage
//! itself chooses ([`RowLayout`]). The interpreter chooses its own per-lane memory words, so the
//! rasterizer writes the inputs, and reads the colours, where the shader has them, with nothing
//! copied or transposed between. [`RowBatch`] converts to and from the per-lane form of
//! closure stages.

use super::fragment::{InterpPlanes, QuadBatch, QuadOutputs};
use crate::Result;

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
    /// `SampleId` per lane (filled on the per-sample path: see
    /// [`SampleUse`](super::SampleUse)).
    pub sample_id: Vec<u32>,
    /// The `SampleMask` input per lane: the samples the invocation covers (per-sample path).
    pub sample_mask: Vec<u32>,
    /// The `SampleMask` output per lane, read after the run when the stage writes it
    /// ([`SampleUse::mask_out`](super::SampleUse::mask_out)).
    pub sample_mask_out: Vec<u32>,
    /// The planes of `InterpolateAt*`
    /// ([`SampleUse::interpolate_at`](super::SampleUse::interpolate_at)).
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
                "stage/rows.rs: a QuadBatch or QuadOutputs array is shorter than its {quads} \
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
