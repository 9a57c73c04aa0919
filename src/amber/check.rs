//! A parsed script held against the device limits before anything of it runs, as a Vulkan
//! validation layer holds API calls against `VkPhysicalDeviceLimits`.
//!
//! Shape: one walk over the statements (and the bodies of `REPEAT`), checking every size and
//! count the script itself writes: buffer and image sizes and extents, mip levels,
//! framebuffer sizes, attachment locations, descriptor sets and array lengths, vertex input,
//! workgroup counts, grid cells, the offsets of VkScript buffer writes. Each error is an
//! [`Error::Limit`] naming what asked, the value and the limit, with the statement's line.
//! Sizes known only while running (a draw's vertex count, a bound range, a shader's
//! workgroup size) are checked where they are used, by the runner, the rasterizer and
//! `pipeline::dispatch_with`, against the same [`Limits`]. The parser itself stays
//! limit-free: it allocates nothing a number asks for.

use super::ast::*;
use crate::limits::{Limit, Limits};
use crate::{Error, Result};

/// Check `script` against `limits`: the first violation and its statement's line.
pub fn check(script: &Script, limits: &Limits) -> Result<(), (Error, usize)> {
    stmts(&script.stmts, limits)
}

/// Statements in order (and the bodies of `REPEAT`, at their own lines).
fn stmts(list: &[Stmt], l: &Limits) -> Result<(), (Error, usize)> {
    list.iter().try_for_each(|st| {
        let at = |e| (e, st.line);
        match &st.kind {
            StmtKind::Buffer(b) => buffer(b, l).map_err(at),
            StmtKind::Pipeline(p) => pipeline(p, l).map_err(at),
            StmtKind::Command(Command::Repeat { body, .. }) => stmts(body, l),
            StmtKind::Command(c) => command(c, l).map_err(at),
            _ => Ok(()),
        }
    })
}

fn buffer(b: &Buffer, l: &Limits) -> Result<()> {
    let what = if b.is_image { "IMAGE" } else { "BUFFER" };
    let name = format!("{what} {}", crate::error::quote(&b.name));
    let stride = b.elem.stride(b.layout) as u64;
    let bytes = stride.saturating_mul(b.element_count());
    let size = format!("{name} ({} elements of {stride} bytes)", b.element_count());
    l.check(Limit::MaxBufferSize, bytes, &size)?;
    l.check(Limit::MaxMemoryAllocationSize, bytes, &size)?;
    let (w, h, d) = (b.width, b.height, b.depth);
    let dims: &[(Option<u32>, Limit, &str)] = match b.dim {
        Some(ImageDim::D1) => &[(w, Limit::MaxImageDimension1D, "WIDTH")],
        Some(ImageDim::D3) => &[
            (w, Limit::MaxImageDimension3D, "WIDTH"),
            (h, Limit::MaxImageDimension3D, "HEIGHT"),
            (d, Limit::MaxImageDimension3D, "DEPTH"),
        ],
        Some(ImageDim::Cube) => &[
            (w, Limit::MaxImageDimensionCube, "WIDTH"),
            (h, Limit::MaxImageDimensionCube, "HEIGHT"),
        ],
        // 2D images, and buffers given an extent (framebuffer-like buffers)
        _ => &[
            (w, Limit::MaxImageDimension2D, "WIDTH"),
            (h, Limit::MaxImageDimension2D, "HEIGHT"),
        ],
    };
    for &(v, row, word) in dims {
        if let Some(v) = v {
            l.check(row, v as u64, format_args!("{name} {word}"))?;
        }
    }
    // Vulkan's rule (VUID-VkImageCreateInfo-mipLevels-00958): at most the levels of a full
    // mip chain of the largest extent (a buffer without an extent gets its framebuffer's,
    // checked when the image is made).
    if b.mip_levels > 1 && (w, h, d) != (None, None, None) {
        let extent = [w, h, d]
            .iter()
            .map(|v| v.unwrap_or(1))
            .max()
            .unwrap_or(1)
            .max(1);
        let levels = 32 - extent.leading_zeros();
        if b.mip_levels > levels {
            return Err(Error::Limit(format!(
                "{name} MIP_LEVELS: {} exceeds the {levels} levels of a full mip chain of \
                 extent {extent}",
                b.mip_levels
            )));
        }
    }
    Ok(())
}

fn pipeline(p: &Pipeline, l: &Limits) -> Result<()> {
    let name = format!("PIPELINE {}", crate::error::quote(&p.name));
    let (w, h) = p.framebuffer_size;
    l.check(
        Limit::MaxFramebufferWidth,
        w as u64,
        format_args!("{name} FRAMEBUFFER_SIZE width"),
    )?;
    l.check(
        Limit::MaxFramebufferHeight,
        h as u64,
        format_args!("{name} FRAMEBUFFER_SIZE height"),
    )?;
    for b in &p.bindings {
        match b {
            Binding::Color { location, .. } => l.check_index(
                Limit::MaxColorAttachments,
                *location as u64,
                format_args!("{name} BIND ... AS color LOCATION"),
            )?,
            Binding::Descriptor {
                buffers, set, kind, ..
            } => {
                let what = format!("{name} BIND ... AS {}", kind.keyword());
                descriptor(l, &what, *set, buffers.len())?;
            }
            Binding::Sampler { samplers, set, .. } => {
                descriptor(l, &format!("{name} BIND SAMPLER"), *set, samplers.len())?;
            }
            _ => {}
        }
    }
    l.check(
        Limit::MaxVertexInputBindings,
        p.vertex_data.len() as u64,
        format_args!("{name} VERTEX_DATA bindings"),
    )?;
    for v in &p.vertex_data {
        l.check_index(
            Limit::MaxVertexInputAttributes,
            v.location as u64,
            format_args!("{name} VERTEX_DATA LOCATION"),
        )?;
        l.check(
            Limit::MaxVertexInputAttributeOffset,
            v.offset as u64,
            format_args!("{name} VERTEX_DATA OFFSET"),
        )?;
        if let Some(s) = v.stride {
            l.check(
                Limit::MaxVertexInputBindingStride,
                s as u64,
                format_args!("{name} VERTEX_DATA STRIDE"),
            )?;
        }
    }
    Ok(())
}

fn descriptor(l: &Limits, what: &str, set: u32, count: usize) -> Result<()> {
    l.check_index(
        Limit::MaxBoundDescriptorSets,
        set as u64,
        format_args!("{what} DESCRIPTOR_SET"),
    )?;
    l.check(
        Limit::MaxPerSetDescriptors,
        count as u64,
        format_args!("{what}: descriptors in the array"),
    )
}

fn command(c: &Command, l: &Limits) -> Result<()> {
    match c {
        Command::Run(r) => run(r, l),
        Command::Debug(d) => run(&d.run, l),
        Command::SetBufferData { buffer, offset, .. } => l.check(
            Limit::MaxMemoryAllocationSize,
            *offset,
            format_args!("the offset of a write to {}", crate::error::quote(buffer)),
        ),
        _ => Ok(()),
    }
}

fn run(r: &Run, l: &Limits) -> Result<()> {
    match &r.kind {
        RunKind::Compute { groups } => {
            l.check_workgroup_counts(*groups, &format!("RUN {}: ", r.pipeline))
        }
        RunKind::DrawGrid { cells, .. } => l.check(
            Limit::MaxDrawGridCells,
            cells[0] as u64 * cells[1] as u64,
            format_args!(
                "RUN {} DRAW_GRID CELLS {} {}",
                r.pipeline, cells[0], cells[1]
            ),
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The limit error's line and message.
    fn err(text: &str) -> String {
        let s = crate::amber::parse(text, Path::new("t.amber")).expect("parses");
        match check(&s, &Limits::default()) {
            Err((Error::Limit(m), line)) => format!("{line}: {m}"),
            r => panic!("expected a limit error, got {r:?}"),
        }
    }

    const PIPE: &str =
        "#!amber\nSHADER vertex v PASSTHROUGH\nSHADER fragment f GLSL\nvoid main() {}\nEND\n\
        BUFFER fb FORMAT B8G8R8A8_UNORM\n";

    #[test]
    fn framebuffer_attachments_and_workgroups_are_held_to_the_limits() {
        let m = err(&format!(
            "{PIPE}PIPELINE graphics p\nATTACH v\nATTACH f\nFRAMEBUFFER_SIZE 4000000000 64\nEND\n"
        ));
        assert!(m.starts_with("7: PIPELINE 'p' FRAMEBUFFER_SIZE width: 4000000000 exceeds the device limit maxFramebufferWidth = 16384"), "{m}");
        let m = err(&format!(
            "{PIPE}PIPELINE graphics p\nATTACH v\nATTACH f\nBIND BUFFER fb AS color LOCATION 4000000000\nEND\n"
        ));
        assert!(
            m.contains(
                "LOCATION: 4000000000 is not below the device limit maxColorAttachments = 8"
            ),
            "{m}"
        );
        let m = err(&format!(
            "{PIPE}PIPELINE graphics p\nATTACH v\nATTACH f\nEND\nRUN p DRAW_GRID POS 0 0 SIZE 250 250 CELLS 100000 100000\n"
        ));
        assert!(
            m.starts_with("11: RUN p DRAW_GRID CELLS 100000 100000: 10000000000 exceeds"),
            "{m}"
        );
    }

    #[test]
    fn commands_inside_repeat_are_checked_too() {
        let m = err(&format!(
            "{PIPE}SHADER compute c GLSL\nvoid main() {{}}\nEND\nPIPELINE compute p\nATTACH c\nEND\n\
             REPEAT 2\nRUN p 1 2147483647 1\nEND\n"
        ));
        assert!(m.contains("14: RUN p: workgroup count along y: 2147483647 exceeds the device limit maxComputeWorkGroupCount[1] = 65535"), "{m}");
    }

    #[test]
    fn image_extents_and_mip_levels() {
        let m = err("#!amber\nIMAGE i FORMAT R8G8B8A8_UNORM DIM_3D WIDTH 8 HEIGHT 8 DEPTH 5000\n");
        assert!(
            m.contains("IMAGE 'i' DEPTH: 5000 exceeds the device limit maxImageDimension3D = 4096"),
            "{m}"
        );
        let m = err("#!amber\nIMAGE i FORMAT R8G8B8A8_UNORM WIDTH 16 HEIGHT 4 MIP_LEVELS 6\n");
        assert!(m.contains("MIP_LEVELS: 6 exceeds the 5 levels"), "{m}");
        let ok = "#!amber\nIMAGE i FORMAT R8G8B8A8_UNORM WIDTH 16 HEIGHT 4 MIP_LEVELS 5\n";
        let s = crate::amber::parse(ok, Path::new("t.amber")).unwrap();
        assert!(check(&s, &Limits::default()).is_ok());
    }
}
