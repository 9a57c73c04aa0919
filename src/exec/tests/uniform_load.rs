//! Buffer loads at uniform addresses (read once per batch, the result kept uniform) against
//! loads at per-lane addresses, with in-range, straddling, overflowing and unbound-element
//! accesses, of 8-, 16- and 32-bit types (the 32-bit ones without a descriptor index go through
//! `Code::LoadWord`), on every lane and under a divergent branch. Expected values come from a naive
//! per-lane byte reader written here: an access not entirely inside the buffer, or one from
//! an unbound descriptor element, reads 0.

use super::B;
use crate::exec::{BatchState, Bindings, Buffer};
use crate::ir::*;

use BinaryOp as Bo;
use ScalarTy::{Bool, F32, I16, I32, I8};

const LANES: usize = 64;

/// Byte `i` of buffer `k` (buffer 0 is push constants, 1 and 2 the elements of an array).
fn byte(k: usize, i: usize) -> u8 {
    (i * 7 + 3 + k * 101) as u8
}
fn bytes(k: usize, len: usize) -> Vec<u8> {
    (0..len).map(|i| byte(k, i)).collect()
}

/// The naive per-lane read: `size` little-endian bytes at `off`, 0 unless all inside.
fn naive(mem: Option<&[u8]>, off: u32, size: u32, ty: ScalarTy) -> u32 {
    let Some(mem) = mem else { return 0 };
    let (off, size) = (off as usize, size as usize);
    if off.checked_add(size).is_none_or(|e| e > mem.len()) {
        return 0;
    }
    let v = mem[off..off + size]
        .iter()
        .rev()
        .fold(0u32, |v, &b| (v << 8) | b as u32);
    if ty == Bool {
        (v != 0) as u32
    } else {
        v
    }
}

/// One load of the program: type, buffer slot, descriptor index (a register holding it, and
/// its value), address register and how to compute the address of lane `l`.
struct Case {
    ty: ScalarTy,
    slot: u32,
    index: Option<(Reg, u32)>,
    addr: Reg,
    at: fn(usize) -> u32,
    /// loaded only in the lanes whose input is odd (inside a divergent branch)
    odd_only: bool,
}

fn load(b: &mut B, c: &Case) -> Reg {
    let dst = b.reg(c.ty);
    b.push(Inst::Load {
        ty: c.ty,
        dst,
        ptr: Ptr {
            space: Space::Buffer {
                slot: c.slot,
                index: c.index.map(|i| i.0),
            },
            addr: c.addr,
        },
    });
    dst
}

#[test]
fn uniform_address_loads_match_a_per_lane_read() {
    // Buffer 0: 64 bytes (push constants); slot 1: elements 0 and 1 bound (40 and 24 bytes),
    // element 3 bound, element 2 not.
    let lens = [64usize, 40, 24, 16];
    let mems: Vec<Vec<u8>> = (0..4).map(|k| bytes(k, lens[k])).collect();
    let bufs: Vec<Buffer> = mems.iter().map(|m| Buffer::from_bytes(m)).collect();
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &bufs[0]);
    bind.bind_buffer(1, 0, &bufs[1]);
    bind.bind_buffer(1, 1, &bufs[2]);
    bind.bind_buffer(1, 3, &bufs[3]);
    let mem = |slot: u32, index: u32| -> Option<&[u8]> {
        match (slot, index) {
            (0, 0) => Some(&mems[0]),
            (1, 0) => Some(&mems[1]),
            (1, 1) => Some(&mems[2]),
            (1, 3) => Some(&mems[3]),
            _ => None,
        }
    };

    let mut b = B::new();
    let (odd, done) = (b.block(), b.block());
    let x = b.load_local(I32, 0); // the lane's input: its index
    let (one, two, three, four, sixteen) = (b.ki(1), b.ki(2), b.ki(3), b.ki(4), b.ki(16));
    // uniform addresses made by lane kernels of uniform operands: ((2 + 3) & 3) * 16 = 16,
    // plus 4, 46, 44
    let s = b.bin(Bo::IAdd, I32, two, three);
    let m = b.bin(Bo::And, I32, s, three);
    let row = b.bin(Bo::IMul, I32, m, sixteen);
    let u20 = b.bin(Bo::IAdd, I32, row, four);
    let (k46, k44, zero) = (b.ki(46), b.ki(44), b.ki(0));
    let u62 = b.bin(Bo::IAdd, I32, row, k46); // straddles the end of 64 bytes
    let u60 = b.bin(Bo::IAdd, I32, row, k44); // the last whole word
    let huge = b.ki(-4); // 0xFFFF_FFFC: off + size overflows 32 bits
    let u7 = b.ki(7); // unaligned, inside
    let u36 = b.ki(36); // inside element 0 (40 bytes), outside element 1 (24 bytes)
    let per_lane = b.bin(Bo::IMul, I32, x, four); // lane l: 4 * l (in range for l < 16)
    let idx1 = b.bin(Bo::ISub, I32, two, one); // uniform descriptor index 1
    let idx2 = b.ki(2); // an unbound element
    let idx_lane = b.bin(Bo::And, I32, x, three); // per-lane descriptor index
    let cases = [
        (I32, 0, None, u20, (|_| 20) as fn(usize) -> u32, false),
        (I32, 0, None, u60, |_| 60, false),
        (I32, 0, None, u62, |_| 62, false),
        (I32, 0, None, u7, |_| 7, false),
        (F32, 0, None, u60, |_| 60, false),
        (I32, 0, None, huge, |_| 0xFFFF_FFFC, false),
        (I16, 0, None, u7, |_| 7, false),
        (I8, 0, None, u62, |_| 62, false),
        (Bool, 0, None, u20, |_| 20, false),
        (I32, 0, None, per_lane, |l| 4 * l as u32, false),
        (I32, 1, Some((idx1, 1)), u20, |_| 20, false),
        (I32, 1, Some((idx1, 1)), u36, |_| 36, false),
        (I32, 1, Some((two, 2)), u20, |_| 20, false),
        (I32, 1, Some((zero, 0)), u36, |_| 36, false),
        (I32, 1, Some((idx2, 2)), u7, |_| 7, false),
        (I32, 0, None, u20, |_| 20, true),
        (I32, 0, None, u62, |_| 62, true),
        (I32, 1, Some((idx1, 1)), u20, |_| 20, true),
        (I32, 0, None, per_lane, |l| 4 * l as u32, true),
    ]
    .map(|(ty, slot, index, addr, at, odd_only)| Case {
        ty,
        slot,
        index,
        addr,
        at,
        odd_only,
    });
    // the per-lane descriptor index case is checked apart (its index differs per lane)
    let lane_index = Case {
        ty: I32,
        slot: 1,
        index: Some((idx_lane, 0)),
        addr: u20,
        at: |_| 20,
        odd_only: false,
    };
    let mut words = vec![];
    for (k, c) in cases.iter().enumerate().filter(|(_, c)| !c.odd_only) {
        let v = load(&mut b, c);
        // an I32 result read as a splat by a row kernel, then stored per lane
        let v = if c.ty == I32 {
            b.bin(Bo::IAdd, I32, v, x)
        } else {
            v
        };
        b.store_local(c.ty, 1 + k as i32, v);
        words.push(k);
    }
    let lv = load(&mut b, &lane_index);
    b.store_local(I32, 1 + cases.len() as i32, lv);
    let is_odd = b.bin(Bo::And, I32, x, one);
    let c = b.bin(Bo::INe, I32, is_odd, zero);
    b.branch(c, odd, done);
    b.at(odd);
    for (k, c) in cases.iter().enumerate().filter(|(_, c)| c.odd_only) {
        let v = load(&mut b, c);
        b.store_local(I32, 1 + k as i32, v);
        words.push(k);
    }
    b.jump(done);
    b.at(done);
    b.local_words = 2 + cases.len() as u32;
    let p = b.program();

    let mut st = BatchState::new(&p, LANES);
    for l in 0..LANES {
        st.set_local(l, 0, l as u32);
    }
    st.run(&p, &bind).expect("run");
    let mut bad = vec![];
    for l in 0..LANES {
        for &k in &words {
            let c = &cases[k];
            let index = c.index.map_or(0, |i| i.1);
            let size = c.ty.bits() / 8;
            let v = naive(mem(c.slot, index), (c.at)(l), size, c.ty);
            let want = match (c.odd_only, c.ty) {
                (true, _) if l % 2 == 0 => 0,
                (false, I32) => v.wrapping_add(l as u32),
                _ => v,
            };
            let got = st.local(l, 1 + k as u32);
            if got != want {
                bad.push(format!("case {k}, lane {l}: {got:#x}, want {want:#x}"));
            }
        }
        let want = naive(mem(1, l as u32 & 3), 20, 4, I32);
        let got = st.local(l, 1 + cases.len() as u32);
        if got != want {
            bad.push(format!(
                "per-lane index, lane {l}: {got:#x}, want {want:#x}"
            ));
        }
    }
    assert!(bad.is_empty(), "{} wrong:\n{}", bad.len(), bad.join("\n"));
}
