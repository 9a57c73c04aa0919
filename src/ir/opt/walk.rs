//! Operand and result visitors over [`Inst`] and [`Terminator`], and the dominator tree: the
//! shared vocabulary of the passes.

use crate::ir::*;

/// Calls `f(reg, cross_lane)` for every register an instruction reads. `cross_lane` is true for
/// operands that may be read in other lanes than the executing one (derivatives, quad and
/// subgroup operations, image operands whose implicit LOD reads the quad): their value in an
/// inactive neighbour matters, so the passes never rewrite them or their definitions.
pub fn for_each_use(inst: &mut Inst, f: &mut dyn FnMut(&mut Reg, bool)) {
    let ptr = |p: &mut Ptr, f: &mut dyn FnMut(&mut Reg, bool)| {
        f(&mut p.addr, false);
        if let Space::Buffer { index: Some(i), .. } = &mut p.space {
            f(i, false);
        }
    };
    match inst {
        Inst::Unary { a, .. } | Inst::Convert { a, .. } => f(a, false),
        Inst::Binary { a, b, .. } => {
            f(a, false);
            f(b, false);
        }
        Inst::Ternary { a, b, c, .. } => {
            f(a, false);
            f(b, false);
            f(c, false);
        }
        Inst::BitFieldInsert {
            base,
            insert,
            offset,
            count,
            ..
        } => {
            for r in [base, insert, offset, count] {
                f(r, false);
            }
        }
        Inst::Pack4x8 { src, .. } => src.iter_mut().for_each(|r| f(r, false)),
        Inst::Load { ptr: p, .. } => ptr(p, f),
        Inst::InterpolateAt { at, addr, .. } => {
            f(addr, false);
            match at {
                InterpAt::Centroid => {}
                InterpAt::Sample(i) => f(i, false),
                InterpAt::Offset(x, y) => {
                    f(x, false);
                    f(y, false);
                }
            }
        }
        Inst::Store { ptr: p, src, .. } => {
            ptr(p, f);
            f(src, false);
        }
        Inst::Atomic { ptr: p, a, b, .. } => {
            ptr(p, f);
            f(a, false);
            f(b, false);
        }
        Inst::ArrayLength { index, .. } => {
            if let Some(i) = index {
                f(i, false);
            }
        }
        Inst::Deriv { a, .. } | Inst::QuadSwap { a, .. } | Inst::QuadVote { a, .. } => f(a, true),
        Inst::QuadBroadcast { a, index, .. } => {
            f(a, true);
            f(index, true);
        }
        Inst::Group { a, b, .. } => {
            f(a, true);
            f(b, true);
        }
        Inst::GroupArith { a, .. } => f(a, true),
        Inst::BallotQuery { ballot, b, .. } => {
            ballot.iter_mut().for_each(|r| f(r, true));
            f(b, true);
        }
        Inst::Image(im) => {
            let im = &mut **im;
            let opt = [
                im.image.index.as_mut(),
                im.sampler.as_mut().and_then(|s| s.index.as_mut()),
                im.proj.as_mut(),
                im.dref.as_mut(),
                im.min_lod.as_mut(),
                im.sample.as_mut(),
                im.component.as_mut(),
            ];
            for r in opt.into_iter().flatten() {
                f(r, true);
            }
            match &mut im.lod {
                Lod::Implicit { bias: Some(r) } | Lod::Explicit(r) => f(r, true),
                Lod::Grad { dx, dy } => dx.iter_mut().chain(dy).for_each(|r| f(r, true)),
                Lod::Implicit { bias: None } | Lod::None => {}
            }
            for r in im
                .coords
                .iter_mut()
                .chain(&mut im.offset)
                .chain(&mut im.texel)
            {
                f(r, true);
            }
        }
        Inst::IsHelper { .. }
        | Inst::LaneInfo { .. }
        | Inst::Demote
        | Inst::Barrier
        | Inst::Emit { .. }
        | Inst::EndPrimitive { .. }
        | Inst::Source { .. } => {}
    }
}

/// Registers a terminator reads (always in the executing lane).
pub fn term_uses(t: &mut Terminator, f: &mut dyn FnMut(&mut Reg)) {
    match t {
        Terminator::Branch { cond, .. } => f(cond),
        Terminator::Switch { sel, .. } => f(sel),
        _ => {}
    }
}

/// The registers an instruction writes.
pub fn defs(inst: &Inst) -> Vec<Reg> {
    match inst {
        Inst::Unary { dst, .. }
        | Inst::Binary { dst, .. }
        | Inst::Ternary { dst, .. }
        | Inst::BitFieldInsert { dst, .. }
        | Inst::Pack4x8 { dst, .. }
        | Inst::Convert { dst, .. }
        | Inst::Load { dst, .. }
        | Inst::Atomic { dst, .. }
        | Inst::ArrayLength { dst, .. }
        | Inst::Deriv { dst, .. }
        | Inst::QuadSwap { dst, .. }
        | Inst::QuadBroadcast { dst, .. }
        | Inst::QuadVote { dst, .. }
        | Inst::Group { dst, .. }
        | Inst::GroupArith { dst, .. }
        | Inst::BallotQuery { dst, .. }
        | Inst::IsHelper { dst }
        | Inst::InterpolateAt { dst, .. }
        | Inst::LaneInfo { dst, .. } => vec![*dst],
        Inst::Image(im) => im.dst.clone(),
        Inst::Store { .. }
        | Inst::Demote
        | Inst::Barrier
        | Inst::Emit { .. }
        | Inst::EndPrimitive { .. }
        | Inst::Source { .. } => vec![],
    }
}

/// Per resource slot: whether shaders only ever read it (push constants and uniform buffers).
/// A store through another descriptor aliasing the same memory is an instruction that
/// [`may_write_memory`] names; a write by another invocation during the same draw or dispatch
/// is a data race, whose result no API defines.
pub fn read_only_slots(sh: &Shader) -> Vec<bool> {
    sh.resources
        .iter()
        .map(|r| {
            matches!(
                r.kind,
                ResourceKind::PushConstant | ResourceKind::UniformBuffer
            )
        })
        .collect()
}

/// A load whose value depends only on its operand registers and on memory that only the
/// instructions [`may_write_memory`] names change: the lane's own Local words, or a
/// read-only buffer (`ro`, [`read_only_slots`]). Workgroup loads are not: other lanes of the
/// workgroup write that memory.
pub fn is_plain_load(inst: &Inst, ro: &[bool]) -> bool {
    match inst {
        Inst::Load { ptr, .. } => match ptr.space {
            Space::Local => true,
            Space::Buffer { slot, .. } => ro.get(slot as usize) == Some(&true),
            Space::Workgroup => false,
        },
        _ => false,
    }
}

/// Whether the instruction may write memory or order this lane's accesses against other
/// lanes' (stores, atomics, image operations, barriers, demotes, geometry emits): everything
/// but pure operations, loads, array lengths and `Source` markers.
pub fn may_write_memory(inst: &Inst) -> bool {
    !(is_pure(inst)
        || matches!(
            inst,
            Inst::Load { .. } | Inst::ArrayLength { .. } | Inst::Source { .. }
        ))
}

/// Whether removing the instruction when its results are unused changes nothing observable:
/// no memory write, no lane-state change, and no run-time error it could raise (buffer and
/// image accesses can fail on a bad descriptor index, so they stay).
pub fn is_pure(inst: &Inst) -> bool {
    match inst {
        Inst::Load { ptr, .. } => !matches!(ptr.space, Space::Buffer { .. }),
        Inst::Unary { .. }
        | Inst::Binary { .. }
        | Inst::Ternary { .. }
        | Inst::BitFieldInsert { .. }
        | Inst::Pack4x8 { .. }
        | Inst::Convert { .. }
        | Inst::Deriv { .. }
        | Inst::QuadSwap { .. }
        | Inst::QuadBroadcast { .. }
        | Inst::QuadVote { .. }
        | Inst::Group { .. }
        | Inst::GroupArith { .. }
        | Inst::BallotQuery { .. }
        | Inst::IsHelper { .. }
        | Inst::InterpolateAt { .. }
        | Inst::LaneInfo { .. } => true,
        _ => false,
    }
}

/// Successor blocks of a terminator.
pub fn succs(t: &Terminator) -> Vec<BlockId> {
    t.successors()
}

/// Per register: the number of instructions that write it and the place of the last one seen
/// (block, index).
pub fn def_sites(f: &Function) -> Vec<(u32, (usize, usize))> {
    let mut d = vec![(0u32, (0usize, 0usize)); f.regs.len()];
    for (bi, b) in f.blocks.iter().enumerate() {
        for (ii, inst) in b.insts.iter().enumerate() {
            for r in defs(inst) {
                if let Some(e) = d.get_mut(r as usize) {
                    e.0 += 1;
                    e.1 = (bi, ii);
                }
            }
        }
    }
    d
}

/// Registers read by some cross-lane operand anywhere.
pub fn cross_lane_regs(f: &Function) -> Vec<bool> {
    let mut x = vec![false; f.regs.len()];
    for b in &f.blocks {
        for inst in &b.insts {
            let mut i = inst.clone();
            for_each_use(&mut i, &mut |r, cross| {
                if cross {
                    if let Some(e) = x.get_mut(*r as usize) {
                        *e = true;
                    }
                }
            });
        }
    }
    x
}

/// Immediate dominators of the blocks reachable from block 0 (`None`: unreachable; block 0 is
/// its own). Cooper–Harvey–Kennedy iteration over reverse postorder.
pub struct Dom {
    idom: Vec<Option<usize>>,
    rpo_index: Vec<usize>,
    /// Successors of every block, and predecessors among the reachable blocks.
    succ: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
}

impl Dom {
    pub fn new(f: &Function) -> Dom {
        let n = f.blocks.len();
        let succ: Vec<Vec<usize>> = f
            .blocks
            .iter()
            .map(|b| {
                succs(&b.term)
                    .into_iter()
                    .map(|s| s as usize)
                    .filter(|&s| s < n)
                    .collect()
            })
            .collect();
        // Iterative postorder.
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack = vec![(0usize, 0usize)];
        if n > 0 {
            seen[0] = true;
        }
        while let Some((b, i)) = stack.pop() {
            if i < succ[b].len() {
                stack.push((b, i + 1));
                let s = succ[b][i];
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
            }
        }
        let mut rpo_index = vec![usize::MAX; n];
        for (i, &b) in post.iter().rev().enumerate() {
            rpo_index[b] = i;
        }
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in succ.iter().enumerate() {
            if rpo_index[b] != usize::MAX {
                for &s in ss {
                    preds[s].push(b);
                }
            }
        }
        let mut idom: Vec<Option<usize>> = vec![None; n];
        if n > 0 {
            idom[0] = Some(0);
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &b in post.iter().rev().skip(1) {
                let mut new: Option<usize> = None;
                for &p in &preds[b] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(q) => intersect(&idom, &rpo_index, p, q),
                    });
                }
                if new.is_some() && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Dom {
            idom,
            rpo_index,
            succ,
            preds,
        }
    }

    /// The blocks `b` may go to next (in range).
    pub fn succ(&self, b: usize) -> &[usize] {
        &self.succ[b]
    }

    /// The reachable blocks that may go to `b`.
    pub fn preds(&self, b: usize) -> &[usize] {
        &self.preds[b]
    }

    pub fn reachable(&self, b: usize) -> bool {
        self.idom[b].is_some()
    }

    /// Whether block `a` dominates block `b` (both reachable; a block dominates itself).
    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return false;
        }
        loop {
            if a == b {
                return true;
            }
            let p = self.idom[b].unwrap_or(0);
            if p == b {
                return false;
            }
            b = p;
        }
    }

    /// Whether instruction `d` = (block, index) runs before `u` on every path reaching `u`
    /// (an index equal to the block length stands for the terminator).
    pub fn inst_dominates(&self, d: (usize, usize), u: (usize, usize)) -> bool {
        if d.0 == u.0 {
            self.reachable(d.0) && d.1 < u.1
        } else {
            self.dominates(d.0, u.0)
        }
    }

    #[allow(dead_code)]
    pub fn rpo(&self, b: usize) -> usize {
        self.rpo_index[b]
    }
}

fn intersect(idom: &[Option<usize>], rpo: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rpo[a] > rpo[b] {
            a = idom[a].unwrap_or(0);
        }
        while rpo[b] > rpo[a] {
            b = idom[b].unwrap_or(0);
        }
    }
    a
}
