//! `compile`: an `ir::Shader` becomes a [`Program`]: registers mapped to slots of a 32-bit and a
//! 64-bit register file, blocks put in schedule order (loop-contiguous RPO), every instruction decoded into a
//! compact [`Code`] with slot indices and a monomorphised lane kernel. All register, block and
//! type checks happen here, so the executor never indexes out of range on bad IR.

use super::kernels::{self, Lane1, Lane2, Lane3, K1, K2, K3, K4, W1, W2, W3};
use crate::ir::{
    self, AtomicOp, BallotQuery, BlockId, GroupArith, GroupOp, GroupScan, ImageInst, Inst,
    InterpAt, LaneInfo, Lod, Reg, ScalarTy, Shader, Space, Terminator,
};
use crate::limits::Cancel;
use crate::{Error, Result};

/// Default instruction budget per batch (instructions executed, counted once per batch).
pub const DEFAULT_BUDGET: u64 = 50_000_000;
/// Instructions a batch executes between two polls of its program's [`Cancel`] token (with
/// a 1024-lane workgroup, a few milliseconds).
pub const CANCEL_POLL: u64 = 1 << 14;
/// Largest per-lane memory (words per lane) and workgroup memory (words) a shader may declare.
pub const MAX_LOCAL_WORDS: u32 = 1 << 16;
pub const MAX_WORKGROUP_WORDS: u32 = 1 << 22;
/// Sentinel "no block": the lane has finished.
pub(crate) const DONE: u32 = u32::MAX;

/// A decoded memory space.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CSpace {
    Local,
    Workgroup,
    /// Resource slot and the 32-bit slot of the descriptor index register.
    Buffer {
        slot: u32,
        index: Option<u32>,
    },
}

/// One decoded instruction. Operand fields are slot indices into the register file the
/// kernel shape names (N = 32-bit, W = 64-bit).
///
/// `repr(u8)`: the variant is a tag byte of its own, so the block loop's dispatch is one
/// byte load and a jump table (without it the compiler keeps the tag in a niche of a kernel
/// field, which costs a subtract, a compare and a conditional move on every instruction).
#[derive(Clone, Copy)]
#[repr(u8)]
pub(crate) enum Code {
    /// A lane kernel of one to three operands with every operand and the result in the
    /// 32-bit file: run by `Batch::lane_kernel32` (a uniform operand as a splat, a result of
    /// uniform operands kept scalar through the kernel's form on one value). A kernel with
    /// that form ([`kernels::Lane::one`]) reads only its own lane of each operand (not a derivative or
    /// a quad operation), so operand rows that hold one value give a result row of one value.
    N1 {
        k: Lane1,
        dst: u32,
        a: u32,
    },
    N2 {
        k: Lane2,
        dst: u32,
        a: u32,
        b: u32,
    },
    N3 {
        k: Lane3,
        dst: u32,
        a: u32,
        b: u32,
        c: u32,
    },
    /// Lane kernels with a 64-bit operand or result, and the four-operand ones: run by
    /// `Batch::exec` over rows.
    K1 {
        k: W1,
        dst: u32,
        a: u32,
    },
    K2 {
        k: W2,
        dst: u32,
        a: u32,
        b: u32,
    },
    K3 {
        k: W3,
        dst: u32,
        a: u32,
        b: u32,
        c: u32,
    },
    K4 {
        k: K4,
        dst: u32,
        a: u32,
        b: u32,
        c: u32,
        d: u32,
    },
    Load {
        ty: ScalarTy,
        dst: u32,
        space: CSpace,
        addr: u32,
    },
    /// A `Load` of a 32-bit type (`I32`, `F32`, `Bool`) from buffer `slot` without a
    /// descriptor index register (push constants, uniform-buffer parameters): its size and
    /// space are known here, so the block loop's read at a uniform address tests neither.
    LoadWord {
        ty: ScalarTy,
        dst: u32,
        slot: u32,
        addr: u32,
    },
    /// A Local load from a constant, in-range word address: a row copy.
    LoadLocal {
        wide: bool,
        dst: u32,
        word: u32,
    },
    /// A Local store to a constant, in-range word address: a row copy.
    StoreLocal {
        wide: bool,
        word: u32,
        src: u32,
    },
    Store {
        ty: ScalarTy,
        space: CSpace,
        addr: u32,
        src: u32,
    },
    Atomic {
        op: AtomicOp,
        ty: ScalarTy,
        dst: u32,
        space: CSpace,
        addr: u32,
        a: u32,
        b: u32,
    },
    ArrayLength {
        dst: u32,
        slot: u32,
        index: Option<u32>,
        offset: u32,
        stride: u32,
    },
    QuadVote {
        all: bool,
        dst: u32,
        a: u32,
    },
    Group {
        op: GroupOp,
        ty: ScalarTy,
        dst: u32,
        a: u32,
        b: u32,
    },
    GroupArith {
        op: GroupArith,
        scan: GroupScan,
        ty: ScalarTy,
        dst: u32,
        a: u32,
    },
    BallotQuery {
        query: BallotQuery,
        dst: u32,
        ballot: [u32; 4],
        b: u32,
    },
    Image {
        index: u32,
    },
    /// Row form only ([`row_form`]): `Image` whose four results go straight into the Local
    /// rows `words` (the output words the dropped stores of its result registers named).
    ImageLocal {
        index: u32,
        words: [u32; 4],
    },
    IsHelper {
        dst: u32,
    },
    /// Geometry `EmitVertex` / `EndPrimitive` on `stream` (`vertex`: an emit).
    Emit {
        stream: u32,
        vertex: bool,
    },
    /// [`Inst::InterpolateAt`], its registers as slots.
    InterpolateAt {
        at: InterpAt,
        dst: u32,
        addr: u32,
    },
    LaneInfo {
        what: LaneInfo,
        dst: u32,
    },
    Demote,
    Nop,
}

/// A decoded terminator; block targets are schedule indices.
#[derive(Clone, Debug)]
pub(crate) enum CTerm {
    Jump(u32),
    Branch {
        cond: u32,
        t: u32,
        f: u32,
    },
    Switch {
        wide: bool,
        mask: u64,
        sel: u32,
        cases: Vec<(u64, u32)>,
        default: u32,
    },
    Return,
    /// The lanes are killed; they go on as helpers at this schedule index (`DONE`: they
    /// stop), see [`Discard`].
    Kill(u32),
    Unreachable,
}

/// What a lane does after `OpKill` / `OpTerminateInvocation` (the IR's
/// [`Terminator::Kill`]). Its outputs, stores and atomics are dropped either way; the
/// choice only shows in the quad's derivatives and quad operations, which read it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Discard {
    /// It goes on as a helper from the kill's `resume` block, so a neighbour's derivative
    /// sees the values it goes on computing: what lavapipe and D3D's `discard` do, and what
    /// GPUs do in practice.
    #[default]
    Helper,
    /// It stops at the kill and its registers stay frozen: a neighbour's derivative reads
    /// its last values (Vulkan leaves such a derivative undefined).
    Strict,
}

pub(crate) struct CBlock {
    /// The IR block id.
    pub id: BlockId,
    /// One entry per IR instruction (index = instruction index).
    pub code: Vec<Code>,
    /// `code` without its `Nop`s, each with its instruction index, and with multiplies
    /// folded into the add or subtract they feed (`super::fuse`): what a run without an
    /// instruction observer executes (`Source` markers were two of the ten dispatches of a
    /// pass-through fragment shader).
    pub ops: Vec<(u32, Code)>,
    /// The terminator a run without a block or instruction observer takes: a `Jump` goes
    /// past the blocks [`thread_jumps`] skips.
    pub term: CTerm,
    /// With `term` a `Jump`: its IR target, what an observed run jumps to.
    pub plain_jump: u32,
    /// The instructions the budget counts for a run of this block in `term`'s form: its own
    /// (`code.len() + 1`, what an observed run counts) and those of the blocks its jump skips.
    pub cost: u64,
    /// The block can end lanes or make them helpers (Return, Kill or Demote): only then can a
    /// quad lose its last live lane.
    pub ends_lanes: bool,
}

/// An image instruction (its registers were checked to be 32-bit).
pub(crate) struct CImage {
    pub inst: ImageInst,
    /// The slots of the registers it reads (what `Batch::exec` makes real before it runs: an
    /// image instruction reads no other row).
    pub reads32: Vec<u32>,
}

/// A shader ready to run: see [`compile`].
pub struct Program {
    pub(crate) shader: Shader,
    /// Blocks in schedule order (index 0 = entry).
    pub(crate) blocks: Vec<CBlock>,
    /// Register → (is 64-bit, slot).
    pub(crate) slots: Vec<(bool, u32)>,
    pub(crate) n32: usize,
    pub(crate) n64: usize,
    /// Every constant (what observers and [`super::BatchState`] see in the registers).
    pub(crate) consts32: Vec<(u32, u32)>,
    pub(crate) consts64: Vec<(u32, u64)>,
    /// The constants some instruction reads from its register row ([`const_rows`]); the
    /// others are only constant Local addresses, folded into `LoadLocal` / `StoreLocal`, and a
    /// run without an observer leaves their rows alone (filling the eight address constants
    /// of a pass-through fragment shader was a third of `Batch::reset`).
    pub(crate) row_consts32: Vec<(u32, u32)>,
    pub(crate) row_consts64: Vec<(u32, u64)>,
    /// Schedule index of the first block a run without a block observer starts at: the entry
    /// block, or the end of the chain of instruction-free blocks that only jump forward from
    /// it (lanes waiting at the entry are moved there at once).
    pub(crate) start: u32,
    /// Instructions the budget counts for the blocks skipped to reach `start`.
    pub(crate) start_cost: u64,
    /// Non-constant slots that must start at zero ([`read_before_write`]); every other
    /// non-constant slot is written in a lane before anything reads it there.
    pub(crate) zero32: Vec<u32>,
    pub(crate) zero64: Vec<u32>,
    /// Local (per-lane memory) words that must start at zero ([`local_words_to_zero`]), as
    /// runs `(first word, count)`; `None`: all of them.
    pub(crate) zero_local: Option<Vec<(u32, u32)>>,
    /// The per-lane words a fragment batch in row form (`exec::run_fragment_rows`) zeroes
    /// before its run ([`row_form`]); its caller has written every Location input word.
    pub(crate) zero_rows: Vec<(u32, u32)>,
    /// The row form's own instruction list for one block (schedule index, ops), without the
    /// interface copies that `row_alias` makes unnecessary ([`row_form`]).
    pub(crate) row_ops: Option<(u32, Vec<(u32, Code)>)>,
    /// `(output word, input word)`: in row form the output is read from the input's row.
    pub(crate) row_alias: Vec<(u32, u32)>,
    /// Location input words no instruction loads: the row form's caller need not fill them.
    pub(crate) row_unread: Vec<u32>,
    /// The Local words a geometry `Emit` copies: every output's, in declaration order.
    pub(crate) emit_words: Vec<u32>,
    /// A fragment shader whose row form runs nothing (`row_ops` empty for the one block, no
    /// built-in interface, no kill): a run would only count this many instructions against
    /// the budget, and `exec::run_fragment_rows` skips it while that is within the budget.
    pub(crate) row_noop_cost: Option<u64>,
    pub(crate) images: Vec<CImage>,
    pub(crate) budget: u64,
    pub(crate) discard: Discard,
    /// Lanes per subgroup ([`super::SUBGROUP_SIZE`] unless set).
    pub(crate) subgroup_size: usize,
    /// Polled between workgroups and every [`CANCEL_POLL`] instructions of a batch.
    pub(crate) cancel: Cancel,
    /// Some reachable block kills (`OpKill`) or demotes lanes: only then can a batch end with
    /// killed or demoted lanes to report.
    pub(crate) discards: bool,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("shader", &self.shader.name)
            .field("blocks", &self.blocks.len())
            .field("regs32", &self.n32)
            .field("regs64", &self.n64)
            .finish()
    }
}

impl Program {
    /// The IR this program was compiled from.
    pub fn shader(&self) -> &Shader {
        &self.shader
    }
    /// IR block ids in schedule order (loop-contiguous reverse post-order); unreachable
    /// blocks are absent.
    pub fn schedule(&self) -> Vec<BlockId> {
        self.blocks.iter().map(|b| b.id).collect()
    }
    /// Instructions executed per batch before a run fails with `Error::Exec`.
    pub fn budget(&self) -> u64 {
        self.budget
    }
    pub fn set_budget(&mut self, budget: u64) {
        self.budget = budget;
    }
    /// Lanes per subgroup: `SubgroupSize`, ballots, scans, shuffles and `SubgroupId` follow it.
    pub fn subgroup_size(&self) -> usize {
        self.subgroup_size
    }
    /// Run with `size` lanes per subgroup (Vulkan's `requiredSubgroupSize`): a power of two in
    /// [`super::SUBGROUP_SIZES`], else `Error::Unsupported`. Batches are multiples of 64
    /// lanes (or a whole workgroup), so subgroups never straddle two batches.
    pub fn set_subgroup_size(&mut self, size: u32) -> Result<()> {
        let s = size as usize;
        if !s.is_power_of_two() || !super::SUBGROUP_SIZES.contains(&s) {
            return Err(Error::Unsupported(format!(
                "a subgroup size of {size} (quadstep runs {} to {} lanes, powers of two)",
                super::SUBGROUP_SIZES.start(),
                super::SUBGROUP_SIZES.end()
            )));
        }
        self.subgroup_size = s;
        Ok(())
    }
    /// The token runs of this program poll ([`Cancel::default`]: never stopped).
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }
    /// Make runs of this program stop (with the token's error) once `cancel` is stopped.
    pub fn set_cancel(&mut self, cancel: Cancel) {
        self.cancel = cancel;
    }
    /// What killed lanes do ([`Discard::Helper`] unless set).
    pub fn discard(&self) -> Discard {
        self.discard
    }
    pub fn set_discard(&mut self, discard: Discard) {
        self.discard = discard;
        let mut index = vec![DONE; self.shader.body.blocks.len()];
        for (i, b) in self.blocks.iter().enumerate() {
            index[b.id as usize] = i as u32;
        }
        for b in &mut self.blocks {
            if let ir::Terminator::Kill { resume } = self.shader.body.blocks[b.id as usize].term {
                b.term = CTerm::Kill(kill_target(resume, discard, &index));
            }
        }
    }
}

/// The schedule index a killed lane goes on at (`index`: IR block → schedule index).
fn kill_target(resume: Option<BlockId>, discard: Discard, index: &[u32]) -> u32 {
    match (discard, resume) {
        (Discard::Helper, Some(b)) => index.get(b as usize).copied().unwrap_or(DONE),
        _ => DONE,
    }
}

/// Reverse post-order of the CFG from block 0 (first successors first).
fn reverse_post_order(f: &ir::Function) -> Result<Vec<BlockId>> {
    let nb = f.blocks.len();
    if nb == 0 {
        return Err(Error::Exec("compile: function has no blocks".into()));
    }
    let succ = |b: usize| f.blocks[b].term.successors();
    for b in 0..nb {
        for t in succ(b) {
            if t as usize >= nb {
                return Err(Error::Exec(format!(
                    "compile: block b{b} jumps to b{t}, but there are only {nb} blocks"
                )));
            }
        }
    }
    let mut seen = vec![false; nb];
    let mut post = Vec::with_capacity(nb);
    // Successors are visited last-first, so that in the reverse post-order the first successor
    // (a branch's true side, a switch's first case) comes first.
    let succ = |b: usize| -> Vec<BlockId> {
        let mut v = succ(b);
        v.reverse();
        v
    };
    let mut stack: Vec<(usize, Vec<BlockId>, usize)> = vec![(0, succ(0), 0)];
    seen[0] = true;
    while let Some(top) = stack.last_mut() {
        if top.2 < top.1.len() {
            let t = top.1[top.2] as usize;
            top.2 += 1;
            if !seen[t] {
                seen[t] = true;
                stack.push((t, succ(t), 0));
            }
        } else {
            post.push(top.0 as BlockId);
            stack.pop();
        }
    }
    post.reverse();
    Ok(post)
}

/// The schedule: a topological order of the forward edges of the CFG (back edges are those
/// that go to an earlier block of a reverse post-order) in which every natural loop's blocks
/// are contiguous. Plain RPO is not enough: a DFS can finish part of a loop (say the block
/// after `if c { break }`) before it discovers the exit the `break` goes to, putting the exit
/// *before* that part of the loop, so lanes that left the loop would run the exit while other
/// lanes are still looping. Kahn's algorithm keeps a stack of open loops and only takes a
/// ready block from the innermost open loop until that loop is done (ties: RPO position).
fn schedule_order(f: &ir::Function) -> Result<Vec<BlockId>> {
    let rpo = reverse_post_order(f)?;
    let nb = f.blocks.len();
    let mut pos = vec![usize::MAX; nb];
    for (i, &b) in rpo.iter().enumerate() {
        pos[b as usize] = i;
    }
    let succ = |b: usize| -> Vec<usize> {
        f.blocks[b]
            .term
            .successors()
            .into_iter()
            .map(|t| t as usize)
            .collect()
    };
    // Predecessors (reachable blocks only), forward in-degrees, and loop bodies.
    let mut preds = vec![Vec::new(); nb];
    let mut indeg = vec![0usize; nb];
    let mut latches: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for &b in &rpo {
        let b = b as usize;
        for t in succ(b) {
            preds[t].push(b);
            if pos[t] > pos[b] {
                indeg[t] += 1;
            } else {
                latches[t].push(b);
            }
        }
    }
    // body[h] = blocks of the natural loop headed by h (including h).
    let mut body: Vec<Option<Vec<bool>>> = vec![None; nb];
    for h in 0..nb {
        if latches[h].is_empty() {
            continue;
        }
        let mut inl = vec![false; nb];
        inl[h] = true;
        let mut stack: Vec<usize> = latches[h].clone();
        while let Some(b) = stack.pop() {
            if inl[b] {
                continue;
            }
            inl[b] = true;
            stack.extend(preds[b].iter().copied().filter(|&p| !inl[p]));
        }
        body[h] = Some(inl);
    }
    let mut placed = vec![false; nb];
    let mut ready: Vec<usize> = vec![rpo[0] as usize];
    let mut open: Vec<usize> = Vec::new();
    let mut order = Vec::with_capacity(rpo.len());
    while !ready.is_empty() {
        // Close finished loops.
        while let Some(&h) = open.last() {
            let inl = body[h].as_ref().expect("open loops have bodies");
            if (0..nb).any(|b| inl[b] && !placed[b] && pos[b] != usize::MAX) {
                break;
            }
            open.pop();
        }
        let in_scope = |b: usize| {
            open.last()
                .is_none_or(|&h| body[h].as_ref().is_some_and(|inl| inl[b]))
        };
        let pick = ready
            .iter()
            .enumerate()
            .filter(|(_, &b)| in_scope(b))
            .min_by_key(|(_, &b)| pos[b])
            .or_else(|| ready.iter().enumerate().min_by_key(|(_, &b)| pos[b]))
            .map(|(i, _)| i)
            .expect("ready is not empty");
        let b = ready.swap_remove(pick);
        placed[b] = true;
        order.push(b as BlockId);
        if body[b].is_some() {
            open.push(b);
        }
        for t in succ(b) {
            if pos[t] > pos[b] {
                indeg[t] -= 1;
                if indeg[t] == 0 {
                    ready.push(t);
                }
            }
        }
    }
    Ok(order)
}

struct Ctx<'a> {
    /// The shader and instruction being decoded (`None`: the block's terminator), for errors.
    shader: &'a Shader,
    inst: Option<&'a Inst>,
    slots: &'a [(bool, u32)],
    regs: &'a [ScalarTy],
    /// Per register: its constant value when it is a constant no instruction writes.
    fixed: &'a [Option<u64>],
    local_words: u32,
    block: BlockId,
    index: usize,
}

impl Ctx<'_> {
    fn place(&self) -> String {
        let index = self.inst.map(|_| self.index);
        super::place::place(self.shader, self.block, index)
    }
    fn err(&self, msg: impl std::fmt::Display) -> Error {
        Error::Exec(format!("compile: {}: {msg}", self.place()))
    }
    /// The instruction has a type or operation the interpreter has no kernel for.
    fn unsupported(&self) -> Error {
        let what = self.inst.map_or_else(String::new, ir::print_inst);
        Error::Unsupported(format!("{}: `{what}`", self.place()))
    }
    /// Slot of `r`, which must live in the 64-bit file iff `wide`.
    fn reg(&self, r: Reg, wide: bool) -> Result<u32> {
        let Some(&(w, s)) = self.slots.get(r as usize) else {
            return Err(self.err(format!(
                "register r{r} out of range ({} registers)",
                self.slots.len()
            )));
        };
        if w != wide {
            return Err(self.err(format!(
                "register r{r} has type {:?}, but a {}-bit operand is needed here",
                self.regs[r as usize],
                if wide { 64 } else { 32 }
            )));
        }
        Ok(s)
    }
    fn n(&self, r: Reg) -> Result<u32> {
        self.reg(r, false)
    }
    /// The word address of a Local access through `ptr` when it is a constant whose words
    /// (two for a 64-bit `ty`) are all inside Local memory.
    fn const_local(&self, ptr: &ir::Ptr, ty: ScalarTy) -> Option<u32> {
        if !matches!(ptr.space, Space::Local) {
            return None;
        }
        let w = (*self.fixed.get(ptr.addr as usize)?)? as u32;
        let end = w as u64 + if ty.is_wide() { 2 } else { 1 };
        (end <= self.local_words as u64).then_some(w)
    }
    fn space(&self, s: Space) -> Result<CSpace> {
        Ok(match s {
            Space::Local => CSpace::Local,
            Space::Workgroup => CSpace::Workgroup,
            Space::Buffer { slot, index } => CSpace::Buffer {
                slot,
                index: index.map(|r| self.n(r)).transpose()?,
            },
        })
    }
}

/// Decode and validate `shader`.
pub fn compile(shader: &Shader) -> Result<Program> {
    let f = &shader.body;
    if shader.local_words > MAX_LOCAL_WORDS || shader.workgroup_words > MAX_WORKGROUP_WORDS {
        return Err(Error::Unsupported(format!(
            "shader '{}': {} per-lane words / {} workgroup words (limits {MAX_LOCAL_WORDS} / \
             {MAX_WORKGROUP_WORDS})",
            shader.name, shader.local_words, shader.workgroup_words
        )));
    }
    let mut slots = Vec::with_capacity(f.regs.len());
    let (mut n32, mut n64) = (0usize, 0usize);
    for ty in &f.regs {
        if ty.is_wide() {
            slots.push((true, n64 as u32));
            n64 += 1;
        } else {
            slots.push((false, n32 as u32));
            n32 += 1;
        }
    }
    let mut consts32 = Vec::new();
    let mut consts64 = Vec::new();
    for &(r, c) in &f.consts {
        let Some(&(w, s)) = slots.get(r as usize) else {
            return Err(Error::Exec(format!(
                "compile: constant for register r{r} out of range"
            )));
        };
        if w {
            consts64.push((s, c.bits));
        } else {
            consts32.push((s, c.bits as u32));
        }
    }
    let order = schedule_order(f)?;
    let (mut zero32, mut zero64) = (Vec::new(), Vec::new());
    let is_const = {
        let mut c = vec![false; slots.len()];
        for &(r, _) in &f.consts {
            c[r as usize] = true;
        }
        c
    };
    for (r, need) in read_before_write(f, &order).into_iter().enumerate() {
        if need && !is_const[r] {
            match slots[r] {
                (false, s) => zero32.push(s),
                (true, s) => zero64.push(s),
            }
        }
    }
    let mut rpo_index = vec![DONE; f.blocks.len()];
    for (i, &b) in order.iter().enumerate() {
        rpo_index[b as usize] = i as u32;
    }
    let mut fixed: Vec<Option<u64>> = vec![None; f.regs.len()];
    for &(r, c) in &f.consts {
        fixed[r as usize] = Some(c.bits);
    }
    for b in &f.blocks {
        for inst in &b.insts {
            for r in crate::ir::opt::walk::defs(inst) {
                if let Some(e) = fixed.get_mut(r as usize) {
                    *e = None;
                }
            }
        }
    }
    let zero_local = local_words_to_zero(shader, &order, &fixed);
    let rows = const_rows(f, &fixed, shader.local_words);
    let (mut row_consts32, mut row_consts64) = (Vec::new(), Vec::new());
    for &(r, c) in &f.consts {
        match slots[r as usize] {
            _ if !rows[r as usize] => {}
            (false, s) => row_consts32.push((s, c.bits as u32)),
            (true, s) => row_consts64.push((s, c.bits)),
        }
    }
    let mut blocks = Vec::with_capacity(order.len());
    let mut images = Vec::new();
    let reads = super::fuse::reads(f);
    for &bid in &order {
        let blk = &f.blocks[bid as usize];
        let mut code = Vec::with_capacity(blk.insts.len());
        for (i, inst) in blk.insts.iter().enumerate() {
            let cx = Ctx {
                shader,
                inst: Some(inst),
                slots: &slots,
                regs: &f.regs,
                fixed: &fixed,
                local_words: shader.local_words,
                block: bid,
                index: i,
            };
            code.push(decode(&cx, inst, &mut images)?);
        }
        let cx = Ctx {
            shader,
            inst: None,
            slots: &slots,
            regs: &f.regs,
            fixed: &fixed,
            local_words: shader.local_words,
            block: bid,
            index: blk.insts.len(),
        };
        let t = |b: BlockId| rpo_index[b as usize];
        let term = match &blk.term {
            Terminator::Jump(b) => CTerm::Jump(t(*b)),
            Terminator::Branch {
                cond,
                if_true,
                if_false,
            } => CTerm::Branch {
                cond: cx.n(*cond)?,
                t: t(*if_true),
                f: t(*if_false),
            },
            Terminator::Switch {
                ty,
                sel,
                cases,
                default,
            } => CTerm::Switch {
                wide: ty.is_wide(),
                mask: kernels::raw_mask(ty.bits()),
                sel: cx.reg(*sel, ty.is_wide())?,
                cases: cases
                    .iter()
                    .map(|&(v, b)| (v & kernels::raw_mask(ty.bits()), t(b)))
                    .collect(),
                default: t(*default),
            },
            Terminator::Return => CTerm::Return,
            Terminator::Kill { resume } => {
                CTerm::Kill(kill_target(*resume, Discard::default(), &rpo_index))
            }
            Terminator::Unreachable => CTerm::Unreachable,
        };
        let ends_lanes = matches!(term, CTerm::Return | CTerm::Kill(_))
            || code.iter().any(|c| matches!(c, Code::Demote));
        let ops = super::fuse::ops(&blk.insts, &code, &reads);
        let plain_jump = match term {
            CTerm::Jump(t) => t,
            _ => DONE,
        };
        blocks.push(CBlock {
            id: bid,
            cost: code.len() as u64 + 1,
            code,
            ops,
            term,
            plain_jump,
            ends_lanes,
        });
    }
    // Thread the entry through blocks that only jump forward (the front end's `b0: jump b1`).
    let (mut start, mut start_cost, mut chain) = (0u32, 0u64, vec![false; blocks.len()]);
    while let Some(b) = blocks.get(start as usize) {
        match b.term {
            CTerm::Jump(t) if b.ops.is_empty() && t > start && (t as usize) < blocks.len() => {
                chain[start as usize] = true;
                start_cost += b.code.len() as u64 + 1;
                start = t;
            }
            _ => break,
        }
    }
    // Only if no other block sends lanes back before `start` (then lanes wait before it only
    // at the entry, before the first block of a run).
    let back = |t: &CTerm| match t {
        CTerm::Jump(x) => vec![*x],
        CTerm::Branch { t, f, .. } => vec![*t, *f],
        CTerm::Switch { cases, default, .. } => {
            cases.iter().map(|c| c.1).chain([*default]).collect()
        }
        CTerm::Kill(t) => vec![*t],
        CTerm::Return | CTerm::Unreachable => Vec::new(),
    };
    let rejoins = (0..blocks.len())
        .filter(|&i| !chain[i])
        .any(|i| back(&blocks[i].term).into_iter().any(|t| t < start));
    if rejoins {
        (start, start_cost) = (0, 0);
    }
    let discards = blocks.iter().any(|b| {
        matches!(b.term, CTerm::Kill(_)) || b.code.iter().any(|c| matches!(c, Code::Demote))
    });
    let RowForm {
        zero_rows,
        ops: row_ops,
        alias: row_alias,
    } = row_form(shader, &blocks, start, &fixed, zero_local.as_deref());
    thread_jumps(&mut blocks, row_ops.as_ref().map(|r| r.0));
    let row_unread = unread_inputs(shader, &fixed);
    let emit_words = shader
        .outputs
        .iter()
        .flat_map(|v| {
            let per = if v.ty.is_wide() { 2 } else { 1 };
            v.word..v.word.saturating_add(v.count.saturating_mul(per))
        })
        .filter(|&w| w < shader.local_words)
        .collect();
    let location = |v: &ir::IoVar| matches!(v.binding, ir::IoBinding::Location { .. });
    let row_noop_cost = match (&row_ops, blocks.get(start as usize)) {
        (Some((b, ops)), Some(blk))
            if *b == start
                && ops.is_empty()
                && matches!(blk.term, CTerm::Return)
                && !discards
                && shader.inputs.iter().chain(&shader.outputs).all(location) =>
        {
            Some(start_cost + blk.code.len() as u64 + 1)
        }
        _ => None,
    };
    Ok(Program {
        discards,
        shader: shader.clone(),
        blocks,
        slots,
        n32,
        n64,
        consts32,
        consts64,
        row_consts32,
        row_consts64,
        start,
        start_cost,
        zero32,
        zero64,
        zero_local,
        zero_rows,
        row_ops,
        row_alias,
        row_unread,
        emit_words,
        row_noop_cost,
        images,
        budget: DEFAULT_BUDGET,
        discard: Discard::default(),
        subgroup_size: super::SUBGROUP_SIZE,
        cancel: Cancel::default(),
    })
}

/// Point every `Jump` past the blocks that run nothing and only jump to a later block (the
/// empty loop headers, merges and continue blocks structured code leaves), adding what the
/// budget counts for them to the jumping block's `cost`; `plain_jump` keeps the IR target.
/// Loop back edges are the common case: `continue → header → condition` becomes
/// `continue → condition`, one block run fewer per iteration.
///
/// Why every lane sees the same grouping: a skipped block `E` runs no instruction and sends
/// all its lanes to `T > E`. The scheduler runs the lowest block some lane waits at, so lanes
/// waiting at `E` are moved to `T` before `T` runs, whatever else waits in between: `T`
/// runs with the same lanes whether they waited at `E` or at `T`. (A jump to a block that
/// jumps backwards is left alone: those lanes would reach their target later than the
/// lanes already waiting there.) The row form's own block is never skipped (its `row_ops`
/// replace its instructions).
fn thread_jumps(blocks: &mut [CBlock], row_block: Option<u32>) {
    for i in 0..blocks.len() {
        let CTerm::Jump(mut t) = blocks[i].term else {
            continue;
        };
        let mut skipped = 0;
        while let Some(e) = blocks.get(t as usize) {
            match e.term {
                CTerm::Jump(u) if e.ops.is_empty() && u > t && row_block != Some(t) => {
                    skipped += e.cost;
                    t = u;
                }
                _ => break,
            }
        }
        blocks[i].term = CTerm::Jump(t);
        blocks[i].cost += skipped;
    }
}

/// Per register: whether a run reads it from its register row. A register whose every use
/// is the address of a Local load or store that compiles to `LoadLocal` / `StoreLocal` (a
/// constant, in-range address, see `Ctx::const_local`) is not read from its row.
pub(crate) fn const_rows(f: &ir::Function, fixed: &[Option<u64>], local_words: u32) -> Vec<bool> {
    use crate::ir::opt::walk::{for_each_use, term_uses};
    let nr = f.regs.len();
    // uses minus the uses folded into a constant Local address
    let mut reads = vec![0i64; nr];
    let mut count = |r: Reg, d: i64| {
        if let Some(c) = reads.get_mut(r as usize) {
            *c += d;
        }
    };
    for b in &f.blocks {
        for inst in &b.insts {
            for_each_use(&mut inst.clone(), &mut |r, _| count(*r, 1));
            let (ty, ptr) = match inst {
                Inst::Load { ty, ptr, .. } | Inst::Store { ty, ptr, .. } => (ty, ptr),
                _ => continue,
            };
            let folded = matches!(ptr.space, Space::Local)
                && fixed
                    .get(ptr.addr as usize)
                    .copied()
                    .flatten()
                    .is_some_and(|w| {
                        // as `Ctx::const_local` reads it
                        (w as u32 as u64) + if ty.is_wide() { 2 } else { 1 } <= local_words as u64
                    });
            if folded {
                count(ptr.addr, -1);
            }
        }
        term_uses(&mut b.term.clone(), &mut |r| count(*r, 1));
    }
    reads.into_iter().map(|c| c > 0).collect()
}

/// The Local words a run must zero first: every word a reachable load or store touches at
/// a constant address, and the interface's input and output words (the caller writes and
/// reads those). Any Local access at a computed address, or a Local atomic, makes it `None`
/// (zero everything). The words left out are the ones no instruction touches — in practice
/// the variables the optimiser promoted to registers (9 of the 17 words of the sampling
/// scenes' shader) — so zeroing them would only cost time, the most in trivial shaders.
pub(crate) fn local_words_to_zero(
    shader: &ir::Shader,
    order: &[BlockId],
    fixed: &[Option<u64>],
) -> Option<Vec<(u32, u32)>> {
    let lw = shader.local_words as u64;
    let mut need = vec![false; lw as usize];
    let mut mark = |w: u64, n: u64| {
        for x in w..(w + n).min(lw) {
            need[x as usize] = true;
        }
    };
    for &b in order {
        for inst in &shader.body.blocks[b as usize].insts {
            let (ty, ptr) = match inst {
                Inst::Load { ty, ptr, .. } | Inst::Store { ty, ptr, .. } => (ty, ptr),
                Inst::Atomic { ptr, .. } if matches!(ptr.space, Space::Local) => return None,
                _ => continue,
            };
            if !matches!(ptr.space, Space::Local) {
                continue;
            }
            let w = (*fixed.get(ptr.addr as usize)?)?;
            mark(w, if ty.is_wide() { 2 } else { 1 });
        }
    }
    for v in shader.inputs.iter().chain(&shader.outputs) {
        let per = if v.ty.is_wide() { 2 } else { 1 };
        mark(u64::from(v.word), u64::from(v.count) * per);
    }
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for w in (0..lw as u32).filter(|&w| need[w as usize]) {
        match runs.last_mut() {
            Some((first, count)) if *first + *count == w => *count += 1,
            _ => runs.push((w, 1)),
        }
    }
    Some(runs)
}

/// What the row form of a fragment batch needs beyond the program: see [`row_form`].
struct RowForm {
    zero_rows: Vec<(u32, u32)>,
    ops: Option<(u32, Vec<(u32, Code)>)>,
    alias: Vec<(u32, u32)>,
}

/// The row form's words to zero and shortcuts. Its caller fills every Location input word,
/// so those never need zeroing: in general the runs of `zero_local` (`None`: every word)
/// without them.
///
/// A fragment shader whose run is one block (the block a run starts at returns, and every
/// Local access has a constant address) is read straight through: a lane that runs executes
/// each of its instructions once, in order (a lane of a quad with no live lane does not run,
/// and its outputs are dropped). Then a word needs zeroing only if it is loaded before any
/// store to it, or is a Location output never stored (the rasterizer reads it); and a
/// Location output whose one store copies a register loaded from a Location input word that
/// nothing stores (a pass-through `color = v`), and which nothing loads, is that input's value
/// at the end of the run: the layout reads it from the input row (`alias`) and the row form's
/// instruction list (`ops`) drops the store, and the load if the store was its only use (a
/// pass-through shader copies no rows).
fn row_form(
    shader: &ir::Shader,
    blocks: &[CBlock],
    start: u32,
    fixed: &[Option<u64>],
    zero_local: Option<&[(u32, u32)]>,
) -> RowForm {
    let lw = shader.local_words;
    let words_of = |v: &ir::IoVar| {
        let per = if v.ty.is_wide() { 2 } else { 1 };
        v.word..v.word.saturating_add(v.count.saturating_mul(per)).min(lw)
    };
    let location = |v: &&ir::IoVar| matches!(v.binding, ir::IoBinding::Location { .. });
    let mut input = vec![false; lw as usize];
    for v in shader.inputs.iter().filter(location) {
        words_of(v).for_each(|w| input[w as usize] = true);
    }
    let general = || {
        let mut need = vec![zero_local.is_none(); lw as usize];
        for &(w, count) in zero_local.unwrap_or(&[]) {
            for x in w..(w + count).min(lw) {
                need[x as usize] = true;
            }
        }
        RowForm {
            zero_rows: word_runs(need.iter().zip(&input).map(|(&n, &i)| n && !i)),
            ops: None,
            alias: Vec::new(),
        }
    };
    let blk = match blocks.get(start as usize) {
        Some(b) if shader.stage == ir::Stage::Fragment && matches!(b.term, CTerm::Return) => b,
        _ => return general(),
    };
    let Some(insts) = shader.body.blocks.get(blk.id as usize).map(|b| &b.insts) else {
        return general();
    };
    // Location outputs, and words some other output variable also names.
    let (mut colour, mut other_out) = (vec![false; lw as usize], vec![false; lw as usize]);
    for v in &shader.outputs {
        let mark = if location(&v) {
            &mut colour
        } else {
            &mut other_out
        };
        words_of(v).for_each(|w| mark[w as usize] = true);
    }
    let (mut stores, mut loaded, mut early) = (
        vec![0u32; lw as usize],
        vec![false; lw as usize],
        vec![false; lw as usize],
    );
    // register -> (instruction, input word) for 32-bit loads of Location input words
    let mut input_load: std::collections::HashMap<Reg, (usize, u32)> = Default::default();
    // (instruction, output word, register) for 32-bit stores
    let mut copies: Vec<(usize, u32, Reg)> = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        let (ptr, ty) = match inst {
            Inst::Load { ptr, ty, .. } | Inst::Store { ptr, ty, .. } => (ptr, ty),
            Inst::Atomic { ptr, .. } if matches!(ptr.space, Space::Local) => return general(),
            _ => continue,
        };
        if !matches!(ptr.space, Space::Local) {
            continue;
        }
        let Some(&Some(w)) = fixed.get(ptr.addr as usize) else {
            return general();
        };
        let n = if ty.is_wide() { 2 } else { 1 };
        let span = (w..w + n).filter(|&x| x < lw as u64).map(|x| x as usize);
        match *inst {
            Inst::Load { dst, ty, .. } => {
                for x in span {
                    loaded[x] = true;
                    early[x] |= stores[x] == 0;
                }
                if !ty.is_wide() && (w as usize) < input.len() && input[w as usize] {
                    input_load.insert(dst, (i, w as u32));
                }
            }
            Inst::Store { src, ty, .. } => {
                for x in span {
                    stores[x] += 1;
                }
                if !ty.is_wide() && w < lw as u64 {
                    copies.push((i, w as u32, src));
                }
            }
            _ => {}
        }
    }
    // How often each register is defined and used anywhere in the function.
    let nr = shader.body.regs.len();
    let (mut defs, mut uses) = (vec![0u32; nr], vec![0u32; nr]);
    for b in &shader.body.blocks {
        for inst in &b.insts {
            for r in crate::ir::opt::walk::defs(inst) {
                if let Some(d) = defs.get_mut(r as usize) {
                    *d += 1;
                }
            }
            crate::ir::opt::walk::for_each_use(&mut inst.clone(), &mut |r, _| {
                if let Some(u) = uses.get_mut(*r as usize) {
                    *u += 1;
                }
            });
        }
        crate::ir::opt::walk::term_uses(&mut b.term.clone(), &mut |r| {
            if let Some(u) = uses.get_mut(*r as usize) {
                *u += 1;
            }
        });
    }
    let (mut alias, mut drop) = (Vec::new(), Vec::new());
    for &(si, w_out, src) in &copies {
        let wo = w_out as usize;
        let Some(&(li, w_in)) = input_load.get(&src) else {
            continue;
        };
        let once = |r: Reg, v: &[u32]| v.get(r as usize) == Some(&1);
        if li < si
            && colour[wo]
            && !other_out[wo]
            && !input[wo]
            && stores[wo] == 1
            && !loaded[wo]
            && stores[w_in as usize] == 0
            && once(src, &defs)
        {
            alias.push((w_out, w_in));
            drop.push(si);
            if once(src, &uses) {
                drop.push(li);
            }
        }
    }
    // An image instruction whose four results are each stored once to a colour word, and
    // used nowhere else, writes those words' rows itself (`Code::ImageLocal`), without four
    // row copies out of its registers.
    let mut image_local: Vec<(usize, [u32; 4])> = Vec::new();
    for (ii, inst) in insts.iter().enumerate() {
        let Inst::Image(img) = inst else { continue };
        let [_, _, _, _] = img.dst[..] else { continue };
        let once = |r: Reg, v: &[u32]| v.get(r as usize) == Some(&1);
        let store_of = |r: Reg| {
            copies.iter().find(|&&(si, w, src)| {
                let wo = w as usize;
                src == r
                    && si > ii
                    && colour[wo]
                    && !other_out[wo]
                    && !input[wo]
                    && stores[wo] == 1
                    && !loaded[wo]
                    && !alias.iter().any(|a: &(u32, u32)| a.0 == w)
            })
        };
        let found: Vec<(usize, u32)> = img
            .dst
            .iter()
            .filter(|&&r| once(r, &defs) && once(r, &uses))
            .filter_map(|&r| store_of(r).map(|&(si, w, _)| (si, w)))
            .collect();
        if let [(s0, w0), (s1, w1), (s2, w2), (s3, w3)] = found[..] {
            image_local.push((ii, [w0, w1, w2, w3]));
            drop.extend([s0, s1, s2, s3]);
        }
    }
    let need = (0..lw as usize).map(|w| {
        !input[w]
            && ((early[w])
                || (colour[w] && stores[w] == 0 && !alias.iter().any(|a| a.0 as usize == w)))
    });
    let zero_rows = word_runs(need);
    let ops = (!drop.is_empty()).then(|| {
        let kept = blk
            .ops
            .iter()
            .filter(|(i, _)| !drop.contains(&(*i as usize)))
            .map(
                |&(i, code)| match (code, image_local.iter().find(|e| e.0 == i as usize)) {
                    (Code::Image { index }, Some(&(_, words))) => {
                        (i, Code::ImageLocal { index, words })
                    }
                    _ => (i, code),
                },
            );
        (start, kept.collect())
    });
    RowForm {
        zero_rows,
        ops,
        alias,
    }
}

/// The Location input words no Local load reads (none if a Local access has an address that
/// is not a constant): a fragment shader reading `v.xy` of a `vec4 v` leaves two rows the
/// rasterizer need not interpolate.
fn unread_inputs(shader: &ir::Shader, fixed: &[Option<u64>]) -> Vec<u32> {
    let lw = shader.local_words as u64;
    let mut read = vec![false; lw as usize];
    for inst in shader.body.blocks.iter().flat_map(|b| &b.insts) {
        let (ptr, n) = match inst {
            Inst::Load { ptr, ty, .. } => (ptr, if ty.is_wide() { 2 } else { 1 }),
            Inst::Atomic { ptr, .. } if matches!(ptr.space, Space::Local) => return Vec::new(),
            // reads an input word at any address
            Inst::InterpolateAt { .. } => return Vec::new(),
            _ => continue,
        };
        if !matches!(ptr.space, Space::Local) {
            continue;
        }
        let Some(&Some(w)) = fixed.get(ptr.addr as usize) else {
            return Vec::new();
        };
        for x in w..(w + n).min(lw) {
            read[x as usize] = true;
        }
    }
    let mut unread = Vec::new();
    for v in &shader.inputs {
        if matches!(v.binding, ir::IoBinding::Location { .. }) {
            let per = if v.ty.is_wide() { 2 } else { 1 };
            let end = v
                .word
                .saturating_add(v.count.saturating_mul(per))
                .min(lw as u32);
            unread.extend((v.word..end).filter(|&w| !read[w as usize]));
        }
    }
    unread
}

/// The runs `(first word, count)` of the words `need` marks.
fn word_runs(need: impl Iterator<Item = bool>) -> Vec<(u32, u32)> {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for (w, _) in need.enumerate().filter(|&(_, n)| n) {
        let w = w as u32;
        match runs.last_mut() {
            Some((first, count)) if *first + *count == w => *count += 1,
            _ => runs.push((w, 1)),
        }
    }
    runs
}

/// Per register: whether some lane may read it before having written it, so it must start at
/// zero (the value every register had when the batch zeroed all of them; the optimiser relies
/// on that, e.g. a promoted Local word read before its first store reads 0).
///
/// Why the others need no initial value: a lane executes whole blocks along a CFG path from
/// the entry, and every instruction writes its destinations in exactly the active lanes
/// (inactive lanes' registers never change). So a register that is *definitely written* on
/// every path from the entry to a read in the executing lane (a must-define forward dataflow
/// over the scheduled blocks: meet = intersection over predecessors) holds a value computed
/// in that lane. Kernels also compute inactive lanes, but those results are blended away.
/// Reads in other lanes (derivatives, quad and subgroup operations, every image operand) can
/// see a neighbour that never ran the definition, so those registers always start at zero.
pub(crate) fn read_before_write(f: &ir::Function, order: &[BlockId]) -> Vec<bool> {
    use crate::ir::opt::walk::{defs, for_each_use, term_uses};
    let nr = f.regs.len();
    let words = nr.div_ceil(64);
    let set = |v: &mut [u64], r: Reg| {
        if (r as usize) < nr {
            v[r as usize / 64] |= 1 << (r % 64);
        }
    };
    let has = |v: &[u64], r: Reg| (r as usize) < nr && v[r as usize / 64] >> (r % 64) & 1 != 0;
    let nb = f.blocks.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for &b in order {
        for t in f.blocks[b as usize].term.successors() {
            preds[t as usize].push(b as usize);
        }
    }
    // Registers each block writes.
    let mut gen = vec![vec![0u64; words]; nb];
    for &b in order {
        for inst in &f.blocks[b as usize].insts {
            for r in defs(inst) {
                set(&mut gen[b as usize], r);
            }
        }
    }
    let mut entry = vec![0u64; words];
    for &(r, _) in &f.consts {
        set(&mut entry, r);
    }
    // out[b]: definitely written at the end of b. Start at "everything" (top) and iterate
    // down to the greatest fixed point.
    let mut out = vec![vec![!0u64; words]; nb];
    let entry_block = order.first().map_or(0, |&b| b as usize);
    let block_in = |b: usize, out: &[Vec<u64>]| -> Vec<u64> {
        let mut v = if b == entry_block {
            entry.clone()
        } else {
            vec![!0u64; words]
        };
        for &p in &preds[b] {
            for (x, y) in v.iter_mut().zip(&out[p]) {
                *x &= y;
            }
        }
        v
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order {
            let b = b as usize;
            let mut v = block_in(b, &out);
            for (x, g) in v.iter_mut().zip(&gen[b]) {
                *x |= g;
            }
            if v != out[b] {
                out[b] = v;
                changed = true;
            }
        }
    }
    let mut need = vec![false; nr];
    let mut mark = |r: Reg| {
        if let Some(e) = need.get_mut(r as usize) {
            *e = true;
        }
    };
    for &b in order {
        let b = b as usize;
        let mut cur = block_in(b, &out);
        for inst in &f.blocks[b].insts {
            let mut i = inst.clone();
            for_each_use(&mut i, &mut |r, cross| {
                if cross || !has(&cur, *r) {
                    mark(*r);
                }
            });
            for r in defs(inst) {
                set(&mut cur, r);
            }
        }
        let mut t = f.blocks[b].term.clone();
        term_uses(&mut t, &mut |r| {
            if !has(&cur, *r) {
                mark(*r);
            }
        });
    }
    need
}

fn decode(cx: &Ctx, inst: &Inst, images: &mut Vec<CImage>) -> Result<Code> {
    Ok(match inst {
        Inst::Unary { op, ty, dst, a } => {
            let k = kernels::unary(*op, *ty).ok_or_else(|| cx.unsupported())?;
            k1(cx, k, *dst, *a)?
        }
        Inst::Binary { op, ty, dst, a, b } => {
            let k = kernels::binary(*op, *ty).ok_or_else(|| cx.unsupported())?;
            let (wa, wb, wd) = match k {
                K2::NNN(_) => (false, false, false),
                K2::W(W2::WWW(_)) => (true, true, true),
                K2::W(W2::WWN(_)) => (true, true, false),
                K2::W(W2::WNW(_)) => (true, false, true),
                K2::W(W2::NNW(_)) => (false, false, true),
            };
            k2(k, cx.reg(*dst, wd)?, cx.reg(*a, wa)?, cx.reg(*b, wb)?)
        }
        Inst::Ternary {
            op,
            ty,
            dst,
            a,
            b,
            c,
        } => {
            let k = kernels::ternary(*op, *ty).ok_or_else(|| cx.unsupported())?;
            let (wa, wb, wc, wd) = match k {
                K3::NNNN(_) => (false, false, false, false),
                K3::W(W3::WWWW(_)) => (true, true, true, true),
                K3::W(W3::NWWW(_)) => (false, true, true, true),
                K3::W(W3::WNNW(_)) => (true, false, false, true),
            };
            let (dst, a) = (cx.reg(*dst, wd)?, cx.reg(*a, wa)?);
            let (b, c) = (cx.reg(*b, wb)?, cx.reg(*c, wc)?);
            match k {
                K3::NNNN(k) => Code::N3 { k, dst, a, b, c },
                K3::W(k) => Code::K3 { k, dst, a, b, c },
            }
        }
        Inst::BitFieldInsert {
            ty,
            dst,
            base,
            insert,
            offset,
            count,
        } => {
            let k = kernels::bitfield_insert(*ty).ok_or_else(|| cx.unsupported())?;
            let w = ty.is_wide();
            Code::K4 {
                k,
                dst: cx.reg(*dst, w)?,
                a: cx.reg(*base, w)?,
                b: cx.reg(*insert, w)?,
                c: cx.n(*offset)?,
                d: cx.n(*count)?,
            }
        }
        Inst::Pack4x8 { snorm, dst, src } => Code::K4 {
            k: kernels::pack4x8(*snorm),
            dst: cx.n(*dst)?,
            a: cx.n(src[0])?,
            b: cx.n(src[1])?,
            c: cx.n(src[2])?,
            d: cx.n(src[3])?,
        },
        Inst::Convert {
            op,
            from,
            to,
            dst,
            a,
        } => {
            let k = kernels::convert(*op, *from, *to).ok_or_else(|| cx.unsupported())?;
            k1(cx, k, *dst, *a)?
        }
        Inst::Load { ty, dst, ptr } if cx.const_local(ptr, *ty).is_some() => {
            cx.n(ptr.addr)?;
            Code::LoadLocal {
                wide: ty.is_wide(),
                dst: cx.reg(*dst, ty.is_wide())?,
                word: cx.const_local(ptr, *ty).unwrap_or(0),
            }
        }
        Inst::Store { ty, ptr, src } if cx.const_local(ptr, *ty).is_some() => {
            cx.n(ptr.addr)?;
            Code::StoreLocal {
                wide: ty.is_wide(),
                src: cx.reg(*src, ty.is_wide())?,
                word: cx.const_local(ptr, *ty).unwrap_or(0),
            }
        }
        Inst::Load { ty, dst, ptr } => {
            let (ty, dst) = (*ty, cx.reg(*dst, ty.is_wide())?);
            let (space, addr) = (cx.space(ptr.space)?, cx.n(ptr.addr)?);
            match space {
                CSpace::Buffer { slot, index: None } if ty.bits() == 32 => Code::LoadWord {
                    ty,
                    dst,
                    slot,
                    addr,
                },
                _ => Code::Load {
                    ty,
                    dst,
                    space,
                    addr,
                },
            }
        }
        Inst::Store { ty, ptr, src } => Code::Store {
            ty: *ty,
            src: cx.reg(*src, ty.is_wide())?,
            space: cx.space(ptr.space)?,
            addr: cx.n(ptr.addr)?,
        },
        Inst::Atomic {
            op,
            ty,
            dst,
            ptr,
            a,
            b,
        } => {
            if !(ty.is_int()
                || *ty == ScalarTy::F32
                    && matches!(op, AtomicOp::Exchange | AtomicOp::Load | AtomicOp::Store))
            {
                return Err(cx.unsupported());
            }
            let w = ty.is_wide();
            let uses_a = !matches!(
                op,
                AtomicOp::Load | AtomicOp::IIncrement | AtomicOp::IDecrement
            );
            let uses_b = matches!(op, AtomicOp::CompareExchange);
            Code::Atomic {
                op: *op,
                ty: *ty,
                dst: cx.reg(*dst, w)?,
                space: cx.space(ptr.space)?,
                addr: cx.n(ptr.addr)?,
                a: if uses_a { cx.reg(*a, w)? } else { 0 },
                b: if uses_b { cx.reg(*b, w)? } else { 0 },
            }
        }
        Inst::ArrayLength {
            dst,
            slot,
            index,
            offset,
            stride,
        } => Code::ArrayLength {
            dst: cx.n(*dst)?,
            slot: *slot,
            index: index.map(|r| cx.n(r)).transpose()?,
            offset: *offset,
            stride: *stride,
        },
        Inst::Deriv {
            axis,
            kind,
            ty,
            dst,
            a,
        } => {
            let k = kernels::deriv(*axis, *kind, *ty).ok_or_else(|| cx.unsupported())?;
            k1(cx, k, *dst, *a)?
        }
        Inst::QuadSwap {
            direction,
            ty,
            dst,
            a,
        } => {
            let k = kernels::quad_swap(*direction, ty.is_wide()).ok_or_else(|| {
                cx.err(format!("QuadSwap direction {direction} is not 0, 1 or 2"))
            })?;
            k1(cx, k, *dst, *a)?
        }
        Inst::QuadBroadcast { ty, dst, a, index } => {
            let w = ty.is_wide();
            let (dst, a, b) = (cx.reg(*dst, w)?, cx.reg(*a, w)?, cx.n(*index)?);
            k2(kernels::quad_broadcast(w), dst, a, b)
        }
        Inst::QuadVote { all, dst, a } => Code::QuadVote {
            all: *all,
            dst: cx.n(*dst)?,
            a: cx.n(*a)?,
        },
        Inst::Group { op, ty, dst, a, b } => {
            let w = ty.is_wide();
            let (dw, aw, b) = match op {
                GroupOp::Elect => (false, false, 0),
                GroupOp::All | GroupOp::Any | GroupOp::InverseBallot => (false, false, 0),
                GroupOp::AllEqual => (false, w, 0),
                GroupOp::Ballot(c) if *c < 4 => (false, false, 0),
                GroupOp::Ballot(c) => return Err(cx.err(format!("ballot component {c} > 3"))),
                GroupOp::BroadcastFirst => (w, w, 0),
                GroupOp::Broadcast
                | GroupOp::Shuffle
                | GroupOp::ShuffleXor
                | GroupOp::ShuffleUp
                | GroupOp::ShuffleDown => (w, w, cx.n(*b)?),
            };
            let a = if matches!(op, GroupOp::Elect) {
                0
            } else {
                cx.reg(*a, aw)?
            };
            Code::Group {
                op: *op,
                ty: *ty,
                dst: cx.reg(*dst, dw)?,
                a,
                b,
            }
        }
        Inst::GroupArith {
            op,
            scan,
            ty,
            dst,
            a,
        } => {
            if let GroupScan::Clustered(c) = scan {
                if !c.is_power_of_two() {
                    return Err(cx.err(format!("cluster size {c} is not a power of two")));
                }
            }
            let ok = match op {
                GroupArith::FAdd | GroupArith::FMul | GroupArith::FMin | GroupArith::FMax => {
                    ty.is_float()
                }
                GroupArith::LogicalAnd | GroupArith::LogicalOr | GroupArith::LogicalXor => {
                    *ty == ScalarTy::Bool
                }
                _ => ty.is_int() || *ty == ScalarTy::Bool,
            };
            if !ok {
                return Err(cx.unsupported());
            }
            let w = ty.is_wide();
            Code::GroupArith {
                op: *op,
                scan: *scan,
                ty: *ty,
                dst: cx.reg(*dst, w)?,
                a: cx.reg(*a, w)?,
            }
        }
        Inst::BallotQuery {
            query,
            dst,
            ballot,
            b,
        } => Code::BallotQuery {
            query: *query,
            dst: cx.n(*dst)?,
            ballot: [
                cx.n(ballot[0])?,
                cx.n(ballot[1])?,
                cx.n(ballot[2])?,
                cx.n(ballot[3])?,
            ],
            b: if *query == BallotQuery::BitExtract {
                cx.n(*b)?
            } else {
                0
            },
        },
        Inst::Image(img) => {
            check_image(cx, img)?;
            let mut regs = Vec::new();
            crate::ir::opt::walk::for_each_use(&mut inst.clone(), &mut |r, _| regs.push(*r));
            let reads32 = regs.iter().map(|&r| cx.n(r)).collect::<Result<_>>()?;
            images.push(CImage {
                inst: (**img).clone(),
                reads32,
            });
            Code::Image {
                index: images.len() as u32 - 1,
            }
        }
        Inst::IsHelper { dst } => Code::IsHelper { dst: cx.n(*dst)? },
        Inst::Emit { stream } => Code::Emit {
            stream: *stream,
            vertex: true,
        },
        Inst::EndPrimitive { stream } => Code::Emit {
            stream: *stream,
            vertex: false,
        },
        Inst::InterpolateAt { at, dst, addr } => Code::InterpolateAt {
            at: match *at {
                InterpAt::Centroid => InterpAt::Centroid,
                InterpAt::Sample(i) => InterpAt::Sample(cx.n(i)?),
                InterpAt::Offset(x, y) => InterpAt::Offset(cx.n(x)?, cx.n(y)?),
            },
            dst: cx.n(*dst)?,
            addr: cx.n(*addr)?,
        },
        Inst::LaneInfo { what, dst } => Code::LaneInfo {
            what: *what,
            dst: cx.n(*dst)?,
        },
        Inst::Demote => Code::Demote,
        Inst::Barrier | Inst::Source { .. } => Code::Nop,
    })
}

fn k1(cx: &Ctx, k: K1, dst: Reg, a: Reg) -> Result<Code> {
    let (wa, wd) = match k {
        K1::NN(_) => (false, false),
        K1::W(W1::WW(_)) => (true, true),
        K1::W(W1::WN(_)) => (true, false),
        K1::W(W1::NW(_)) => (false, true),
    };
    let (dst, a) = (cx.reg(dst, wd)?, cx.reg(a, wa)?);
    Ok(match k {
        K1::NN(k) => Code::N1 { k, dst, a },
        K1::W(k) => Code::K1 { k, dst, a },
    })
}

/// A binary kernel's `Code` on decoded slots.
fn k2(k: K2, dst: u32, a: u32, b: u32) -> Code {
    match k {
        K2::NNN(k) => Code::N2 { k, dst, a, b },
        K2::W(k) => Code::K2 { k, dst, a, b },
    }
}

fn check_image(cx: &Ctx, img: &ImageInst) -> Result<()> {
    let too_many = |what: &str, n: usize, max: usize| -> Result<()> {
        if n > max {
            Err(cx.err(format!(
                "image instruction has {n} {what} registers (at most {max})"
            )))
        } else {
            Ok(())
        }
    };
    too_many("coordinate", img.coords.len(), 4)?;
    too_many("offset", img.offset.len(), 3)?;
    too_many("texel", img.texel.len(), 4)?;
    too_many("result", img.dst.len(), 4)?;
    if img.result_ty.is_wide() {
        return Err(cx.unsupported());
    }
    let mut regs: Vec<Reg> = Vec::new();
    regs.extend(&img.coords);
    regs.extend(&img.offset);
    regs.extend(&img.texel);
    regs.extend(&img.dst);
    regs.extend(img.proj);
    regs.extend(img.dref);
    regs.extend(img.min_lod);
    regs.extend(img.sample);
    regs.extend(img.component);
    regs.extend(img.image.index);
    if let Some(s) = img.sampler {
        regs.extend(s.index);
    }
    match &img.lod {
        Lod::Implicit { bias } => regs.extend(bias),
        Lod::Explicit(r) => regs.push(*r),
        Lod::Grad { dx, dy } => {
            too_many("gradient", dx.len().max(dy.len()), 3)?;
            regs.extend(dx);
            regs.extend(dy);
        }
        Lod::None => {}
    }
    for r in regs {
        cx.n(r)?;
    }
    Ok(())
}
