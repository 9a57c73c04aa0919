//! Where a run-time error happened, as people look for it: the stage and entry point, the
//! source offset of the failing instruction (the `; @N` of `quadstep dis`), its source line
//! when the module has one, and the descriptors the instruction reads by set, binding and
//! name. Errors are built deep in the interpreter (and in its compiler), which know only IR
//! block and instruction indices; [`place`] and [`Program::locate`] turn those into this
//! place once, on the error path.

use super::program::Program;
use crate::ir::{BlockId, Inst, Shader, Space};
use crate::Error;

/// How many blocks [`Program::source_offset`] looks through for a marker after a block
/// that has none.
const SEARCH_BLOCKS: usize = 64;

/// The source offset of instruction `index` of IR block `block` (`None`: of its terminator):
/// the last `Source` marker before it in the block; without one, the first marker of the
/// nearest block after it (a loop header without instructions leads into the loop body).
fn source_offset(sh: &Shader, block: BlockId, index: Option<usize>) -> Option<u32> {
    let blocks = &sh.body.blocks;
    let marker = |i: &Inst| match i {
        Inst::Source { offset } => Some(*offset),
        _ => None,
    };
    let insts = &blocks.get(block as usize)?.insts;
    let before = &insts[..index.map_or(insts.len(), |i| (i + 1).min(insts.len()))];
    if let Some(o) = before.iter().rev().find_map(marker) {
        return Some(o);
    }
    let mut seen = vec![false; blocks.len()];
    let mut queue = std::collections::VecDeque::from([block]);
    let mut looked = 0;
    while let Some(b) = queue.pop_front() {
        if std::mem::replace(seen.get_mut(b as usize)?, true) {
            continue;
        }
        if let Some(o) = blocks[b as usize].insts.iter().find_map(marker) {
            return Some(o);
        }
        looked += 1;
        if looked == SEARCH_BLOCKS {
            return None;
        }
        queue.extend(blocks[b as usize].term.successors());
    }
    None
}

/// `fragment shader 'main' at SPIR-V word 451 (ops.frag:10)`: the place of instruction
/// `index` of block `block` of `sh` (`None`: its terminator, see [`source_offset`]).
pub(crate) fn place(sh: &Shader, block: BlockId, index: Option<usize>) -> String {
    let at = match source_offset(sh, block, index) {
        Some(o) => sh.source.place(o),
        None => format!("IR block b{block}"),
    };
    format!("{} '{}' at {at}", sh.stage.shader_name(), sh.name)
}

impl Program {
    /// [`place`] in this program's shader.
    pub(crate) fn place(&self, block: BlockId, index: Option<usize>) -> String {
        place(&self.shader, block, index)
    }

    /// Error `e` of instruction `index` of block `block` (`None`: of its terminator), prefixed with its [`Program::place`]
    /// and followed by the descriptors the instruction names (`res0 = set 0 binding 1
    /// 'tex'`). Only run-time errors (`Error::Exec`) are located; the others (a time limit,
    /// a cancel, a memory budget) are about the run, not a place in the shader.
    pub(crate) fn locate(&self, e: Error, block: BlockId, index: Option<usize>) -> Error {
        let Error::Exec(m) = e else {
            return e;
        };
        let inst = index.and_then(|i| self.shader.body.blocks.get(block as usize)?.insts.get(i));
        let mut slots: Vec<u32> = match inst {
            Some(Inst::Image(i)) => std::iter::once(i.image.slot)
                .chain(i.sampler.map(|s| s.slot))
                .collect(),
            Some(Inst::Load { ptr, .. } | Inst::Store { ptr, .. } | Inst::Atomic { ptr, .. }) => {
                match ptr.space {
                    Space::Buffer { slot, .. } => vec![slot],
                    _ => vec![],
                }
            }
            Some(Inst::ArrayLength { slot, .. }) => vec![*slot],
            _ => vec![],
        };
        slots.retain(|s| m.contains(&format!("res{s}")));
        let names: Vec<String> = slots
            .iter()
            .filter_map(|&s| {
                let r = self.shader.resources.get(s as usize)?;
                Some(format!("res{s} = {}", r.describe()))
            })
            .collect();
        let names = if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        };
        Error::Exec(format!("{}: {m}{names}", self.place(block, index)))
    }
}
