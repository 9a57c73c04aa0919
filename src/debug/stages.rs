//! Rasterizer stages that put the debugger in front of a bound stage. Every batch goes to the
//! bound stage as it is, except one that holds the target: that batch runs under a
//! [`Recorder`] watching the target's quads, through the same entry points
//! (`BoundStage::run_rows_observed`, `run_vertices_observed`), so its results are the ones
//! the draw uses. The fragment stage asks for `FragCoord` in every batch, which is how it
//! finds the pixel's quads.

use super::record::Recorder;
use super::session::Session;
use crate::amber::Command;
use crate::pipeline::BoundStage;
use crate::raster::{
    FragInputs, FragmentStage, Interpolation, QuadBatch, QuadOutputs, VertexBatch, VertexOutputs,
    VertexStage,
};
use crate::stage::{RowBatch, RowLayout};
use crate::Result;

/// The fragment stage of a draw that may shade pixel `(x, y)`.
pub(crate) struct TracedFragment<'a> {
    pub inner: &'a BoundStage<'a>,
    pub session: &'a Session,
    pub command: Command,
    pub pixel: (u32, u32),
}

/// The quads of `batch` in which pixel `(x, y)` is a covered lane.
fn pixel_quads(batch: &RowBatch, (x, y): (u32, u32)) -> Vec<usize> {
    let lane = (x & 1) as usize + 2 * (y & 1) as usize;
    (0..batch.quads)
        .filter(|&q| {
            let covered = batch.coverage.get(q).is_some_and(|c| c & (1 << lane) != 0);
            let at = batch.frag_coord.get(q * 4 + lane);
            covered
                && at.is_some_and(|f| {
                    f[0].floor() as i64 == x as i64 && f[1].floor() as i64 == y as i64
                })
        })
        .collect()
}

impl FragmentStage for TracedFragment<'_> {
    fn interpolation(&self) -> &[Interpolation] {
        self.inner.interpolation()
    }
    fn writes_depth(&self) -> bool {
        FragmentStage::writes_depth(self.inner)
    }
    fn can_discard(&self) -> bool {
        FragmentStage::can_discard(self.inner)
    }
    fn built_ins(&self) -> FragInputs {
        FragInputs {
            frag_coord: true,
            ..self.inner.built_ins()
        }
    }
    fn run(&self, input: &QuadBatch, output: &mut QuadOutputs) -> Result<()> {
        FragmentStage::run(self.inner, input, output)
    }
    fn layout(&self, attachments: usize) -> RowLayout {
        self.inner.layout(attachments)
    }
    fn run_rows(&self, layout: &RowLayout, batch: &mut RowBatch) -> Result<()> {
        let quads = pixel_quads(batch, self.pixel);
        if quads.is_empty() {
            return self.inner.run_rows(layout, batch);
        }
        let images = Some(self.inner.images());
        let mut rec = Recorder::new(&quads, images, self.session.max_events());
        self.inner.run_rows_observed(batch, &mut rec)?;
        let recorded = rec.finish();
        self.session
            .fragments(&self.command, self.inner, layout, batch, &quads, recorded);
        Ok(())
    }
}

/// The vertex stage of a draw that may shade vertex `index`.
pub(crate) struct TracedVertex<'a> {
    pub inner: &'a BoundStage<'a>,
    pub session: &'a Session,
    pub command: Command,
    pub index: u32,
}

impl VertexStage for TracedVertex<'_> {
    fn varying_count(&self) -> usize {
        self.inner.varying_count()
    }
    fn run(&self, input: &VertexBatch, output: &mut VertexOutputs) -> Result<()> {
        let Some(lane) = input.vertex_index.iter().position(|&v| v == self.index) else {
            return VertexStage::run(self.inner, input, output);
        };
        let images = Some(self.inner.images());
        let mut rec = Recorder::new(&[lane / 4], images, self.session.max_events());
        self.inner.run_vertices_observed(input, output, &mut rec)?;
        let recorded = rec.finish();
        self.session
            .vertex(&self.command, self.inner, input, lane, recorded);
        Ok(())
    }
}
