//! Promotion of per-lane (Local) memory words to registers.
//!
//! Local memory and registers behave alike under the interpreter's masking: a Local `Store`
//! writes the active lanes (helpers included, unlike other spaces), a register write writes the
//! active lanes; both start at zero; neither is ever read across lanes. So a word accessed only
//! by `Load`/`Store` at one constant address with one type can live in a register: `Store`
//! becomes `Mov word_reg = src` and `Load` becomes `Mov dst = word_reg`. Registers start at zero
//! like memory (`Batch::reset`), so no constant is needed for the initial value.
//!
//! Kept in memory: input/output interface words (the caller fills and reads them), words
//! touched by atomics, words accessed with different types or overlapping 64-bit accesses,
//! out-of-range words, and — if any Local access has a non-constant address — every word (a
//! dynamic address may reach any of them).

use std::collections::HashMap;

use super::walk::def_sites;
use crate::ir::*;

/// Promotes what it can. Returns the number of words promoted.
pub fn promote_locals(sh: &mut Shader) -> usize {
    let f = &sh.body;
    let sites = def_sites(f);
    let mut fixed: Vec<Option<u64>> = sites
        .iter()
        .map(|s| if s.0 == 0 { Some(0) } else { None })
        .collect();
    for (r, c) in &f.consts {
        if let Some(e) = fixed.get_mut(*r as usize) {
            if e.is_some() {
                *e = Some(c.bits);
            }
        }
    }
    let addr_of = |r: Reg| fixed.get(r as usize).copied().flatten();
    let words = sh.local_words as u64;
    // Per word: the (start, type) of every access covering it; and words that must stay.
    let mut cover: HashMap<u32, Vec<(u32, ScalarTy)>> = HashMap::new();
    let mut stay: Vec<bool> = vec![false; sh.local_words as usize];
    for v in sh.inputs.iter().chain(&sh.outputs) {
        let per = if v.ty.is_wide() { 2 } else { 1 };
        for w in v.word as u64..v.word as u64 + v.count as u64 * per {
            if let Some(s) = stay.get_mut(w as usize) {
                *s = true;
            }
        }
    }
    for b in &f.blocks {
        for inst in &b.insts {
            let (ty, ptr, atomic) = match inst {
                Inst::Load { ty, ptr, .. } | Inst::Store { ty, ptr, .. } => (*ty, ptr, false),
                Inst::Atomic { ty, ptr, .. } => (*ty, ptr, true),
                _ => continue,
            };
            if ptr.space != Space::Local {
                continue;
            }
            let Some(a) = addr_of(ptr.addr) else {
                return 0;
            };
            let a = a as u32;
            let n = if ty.is_wide() { 2 } else { 1 };
            for w in a as u64..a as u64 + n {
                if w >= words {
                    continue;
                }
                if atomic {
                    stay[w as usize] = true;
                }
                cover.entry(w as u32).or_default().push((a, ty));
            }
        }
    }
    // A start word is promotable when every word it covers is in range, free, and accessed
    // only at that start with that type.
    let mut promoted: HashMap<u32, Reg> = HashMap::new();
    let mut starts: Vec<(u32, ScalarTy)> = cover.values().flatten().copied().collect();
    starts.sort_by_key(|s| s.0);
    starts.dedup();
    for (s, ty) in starts {
        let n = if ty.is_wide() { 2 } else { 1 };
        let ok = (s as u64..s as u64 + n).all(|w| {
            w < words
                && !stay[w as usize]
                && cover[&(w as u32)]
                    .iter()
                    .all(|&(s2, t2)| s2 == s && t2 == ty)
        });
        if ok && !promoted.contains_key(&s) {
            let r = sh.body.regs.len() as Reg;
            sh.body.regs.push(ty);
            promoted.insert(s, r);
        }
    }
    if promoted.is_empty() {
        return 0;
    }
    for b in &mut sh.body.blocks {
        for inst in &mut b.insts {
            let new = match *inst {
                Inst::Load { ty, dst, ptr } if ptr.space == Space::Local => addr_of(ptr.addr)
                    .and_then(|a| promoted.get(&(a as u32)))
                    .map(|&p| Inst::Unary {
                        op: UnaryOp::Mov,
                        ty,
                        dst,
                        a: p,
                    }),
                Inst::Store { ty, ptr, src } if ptr.space == Space::Local => addr_of(ptr.addr)
                    .and_then(|a| promoted.get(&(a as u32)))
                    .map(|&p| Inst::Unary {
                        op: UnaryOp::Mov,
                        ty,
                        dst: p,
                        a: src,
                    }),
                _ => None,
            };
            if let Some(n) = new {
                *inst = n;
            }
        }
    }
    promoted.len()
}
