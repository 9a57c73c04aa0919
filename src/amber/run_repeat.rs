//! Repeating one draw or dispatch from the same starting state, for a benchmark's
//! repetitions ([`super::RunHook::repetitions`]). What a command may write (its attachments,
//! storage buffers and storage images) is copied before the first repetition and put back
//! before each further one, outside the timed region, so every repetition does the same work
//! whatever the previous one left (blending, depth tests, atomics). The clock runs around the
//! caller's `once` alone.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::run::WriteBack;
use crate::exec;
use crate::limits::{Cancel, MemoryBudget};
use crate::pipeline::ImageResource;
use crate::raster::RenderTargets;
use crate::texture::Image;
use crate::Result;

/// State a command holds besides its storage resources (a draw's attachments; nothing for a
/// dispatch), with its size for the memory budget.
pub(super) trait Restorable: Clone {
    fn bytes(&self) -> u64;
}

impl Restorable for RenderTargets {
    fn bytes(&self) -> u64 {
        let colour: usize = self.color.iter().map(|c| c.data.len()).sum();
        let depth = self
            .depth_stencil
            .as_ref()
            .map_or(0, |d| d.depth.len() + d.stencil.len());
        (colour + depth) as u64
    }
}

impl Restorable for () {
    fn bytes(&self) -> u64 {
        0
    }
}

/// Run `once` on `state` `reps` times (at least once), each repetition after the first from
/// the state and storage resources (`wb`) as they were before the first; the time of each
/// call of `once`.
pub(super) fn repeat<T: Restorable>(
    reps: usize,
    state: &mut T,
    wb: &[WriteBack],
    mem: &MemoryBudget,
    cancel: &Cancel,
    mut once: impl FnMut(&mut T) -> Result<()>,
) -> Result<Vec<Duration>> {
    let reps = reps.max(1);
    let mut times = Vec::with_capacity(reps.min(1 << 20));
    if reps == 1 {
        let t0 = Instant::now();
        once(state)?;
        times.push(t0.elapsed());
        return Ok(times);
    }
    let mut buffers: Vec<(&Arc<exec::Buffer>, Vec<u8>)> = Vec::new();
    let mut images: Vec<(&Arc<ImageResource>, Arc<Image>)> = Vec::new();
    let mut held = state.bytes();
    for w in wb {
        match w {
            WriteBack::Buffer { buf, .. } => {
                held += buf.len() as u64;
                buffers.push((buf, buf.to_bytes()));
            }
            WriteBack::Image { image, .. } => {
                let (_, img) = image.snapshot();
                held += img.level_bytes(0).map_or(0, |b| b.len() as u64);
                images.push((image, img));
            }
        }
    }
    let _charge = mem.charge(held, "the state a repeated command starts from")?;
    let before = state.clone();
    for rep in 0..reps {
        if rep > 0 {
            cancel.check()?;
            *state = before.clone();
            for (buf, bytes) in &buffers {
                buf.write_bytes(0, bytes);
            }
            for (image, img) in &images {
                *image.write() = Image::clone(img);
            }
        }
        let t0 = Instant::now();
        once(state)?;
        times.push(t0.elapsed());
    }
    Ok(times)
}
