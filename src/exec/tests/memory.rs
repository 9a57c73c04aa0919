//! Buffers, workgroup and per-lane memory, atomics, compute built-ins. Expected values by hand.

use super::*;
use BinaryOp as Bo;
use ScalarTy::*;

fn buf_ptr(slot: u32, addr: Reg) -> Ptr {
    Ptr {
        space: Space::Buffer { slot, index: None },
        addr,
    }
}
fn load(b: &mut B, ty: ScalarTy, space: Space, addr: i32) -> Reg {
    let a = b.ki(addr);
    let dst = b.reg(ty);
    b.push(Inst::Load {
        ty,
        dst,
        ptr: Ptr { space, addr: a },
    });
    dst
}
fn store(b: &mut B, ty: ScalarTy, space: Space, addr: i32, src: Reg) {
    let a = b.ki(addr);
    b.push(Inst::Store {
        ty,
        ptr: Ptr { space, addr: a },
        src,
    });
}
const BUF: Space = Space::Buffer {
    slot: 0,
    index: None,
};

#[test]
fn buffer_bounds_and_subword_access() {
    let mut b = B::new();
    let in12 = load(&mut b, I32, BUF, 12);
    let in14 = load(&mut b, I32, BUF, 14);
    let in16 = load(&mut b, I32, BUF, 16);
    let w8 = load(&mut b, I64, BUF, 8);
    let w12 = load(&mut b, I64, BUF, 12);
    let byte = b.k(I8, 0xAB);
    let half = b.k(I16, 0x1234);
    store(&mut b, I8, BUF, 1, byte);
    store(&mut b, I16, BUF, 2, half);
    let big = b.ki(0x5566_7788);
    store(&mut b, I32, BUF, 14, big); // straddles the end: dropped
    store(&mut b, I32, BUF, 6, big); // unaligned, straddles a 64-bit word: allowed
    store(&mut b, I8, BUF, 15, byte);
    let back8 = load(&mut b, I8, BUF, 1);
    let back16 = load(&mut b, I16, BUF, 2);
    let p = b.program();
    let buf = Buffer::from_u32s(&[0x1111_1111, 0, 0x0403_0201, 0xDDCC_BBAA]);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    let mut st = BatchState::new(&p, 1);
    st.run(&p, &bind).unwrap();
    assert_eq!(st.reg(&p, in12, 0), 0xDDCC_BBAA);
    assert_eq!(st.reg(&p, in14, 0), 0);
    assert_eq!(st.reg(&p, in16, 0), 0);
    assert_eq!(st.reg(&p, w8, 0), 0xDDCC_BBAA_0403_0201);
    assert_eq!(st.reg(&p, w12, 0), 0);
    assert_eq!(st.reg(&p, back8, 0), 0xAB);
    assert_eq!(st.reg(&p, back16, 0), 0x1234);
    // word 0: bytes 11 AB 34 12; bytes 6..10 = 88 77 66 55; byte 15 = AB.
    assert_eq!(
        buf.to_u32s(),
        [0x1234_AB11, 0x7788_0000, 0x0403_5566, 0xABCC_BBAA]
    );
}

#[test]
fn local_and_workgroup_out_of_range_never_panic() {
    let mut b = B::new();
    b.workgroup_words = 4;
    let l = load(&mut b, I32, Space::Local, 1000);
    let wl = load(&mut b, I64, Space::Local, 15); // second word out of range
    let w = load(&mut b, I32, Space::Workgroup, 4);
    let v = b.ki(9);
    store(&mut b, I32, Space::Local, 1000, v);
    store(&mut b, I32, Space::Workgroup, -1, v);
    store(&mut b, I32, Space::Workgroup, 3, v);
    let w3 = load(&mut b, I32, Space::Workgroup, 3);
    let p = b.program();
    let mut st = BatchState::new(&p, 4);
    st.set_local(0, 15, 77);
    st.run(&p, &Bindings::default()).unwrap();
    assert_eq!(
        [
            st.reg(&p, l, 0),
            st.reg(&p, wl, 0),
            st.reg(&p, w, 0),
            st.reg(&p, w3, 2)
        ],
        [0, 0, 0, 9]
    );
}

#[test]
fn missing_buffer_slot_is_an_error() {
    let mut b = B::new();
    load(&mut b, I32, BUF, 0);
    let p = b.program();
    assert!(matches!(
        BatchState::new(&p, 4).run(&p, &Bindings::default()),
        Err(crate::Error::Exec(_))
    ));
}

fn atomic(b: &mut B, op: AtomicOp, ty: ScalarTy, space: Space, addr: i32, a: Reg, c: Reg) -> Reg {
    let ad = b.ki(addr);
    let dst = b.reg(ty);
    b.push(Inst::Atomic {
        op,
        ty,
        dst,
        ptr: Ptr { space, addr: ad },
        a,
        b: c,
    });
    dst
}

#[test]
fn atomic_ops_results() {
    let mut b = B::new();
    let (m5, c3, c7, c9) = (b.ki(-5), b.ki(3), b.ki(7), b.ki(9));
    // word 0 = 10: UMin(-5) keeps 10; SMin(-5) stores -5; SMax(3) stores 3.
    let r1 = atomic(&mut b, AtomicOp::UMin, I32, BUF, 0, m5, m5);
    let r2 = atomic(&mut b, AtomicOp::SMin, I32, BUF, 0, m5, m5);
    let r3 = atomic(&mut b, AtomicOp::SMax, I32, BUF, 0, c3, c3);
    // word 1 = 7: CompareExchange(value 9, comparator 7) succeeds, then fails against 7.
    let r4 = atomic(&mut b, AtomicOp::CompareExchange, I32, BUF, 4, c9, c7);
    let r5 = atomic(&mut b, AtomicOp::CompareExchange, I32, BUF, 4, c3, c7);
    let r6 = atomic(&mut b, AtomicOp::Exchange, I32, BUF, 8, c7, c7);
    let r7 = atomic(&mut b, AtomicOp::IDecrement, I32, BUF, 8, c7, c7);
    let big = b.k(I64, 0x1_0000_0000);
    let r8 = atomic(&mut b, AtomicOp::IAdd, I64, BUF, 16, big, big);
    let p = b.program();
    let buf = Buffer::from_u32s(&[10, 7, 1, 0, 0xFFFF_FFFF, 0]);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    let mut st = BatchState::new(&p, 1);
    st.run(&p, &bind).unwrap();
    let got: Vec<u64> = [r1, r2, r3, r4, r5, r6, r7, r8]
        .iter()
        .map(|&r| st.reg(&p, r, 0))
        .collect();
    assert_eq!(got, [10, 10, i(-5), 7, 9, 1, 7, 0xFFFF_FFFF]);
    assert_eq!(buf.to_u32s(), [3, 9, 6, 0, 0xFFFF_FFFF, 1]);
}

/// A compute shader: `old = atomicAdd(buf[0], 1); buf[4 + 4 * GlobalInvocationIndex] = old`
/// with a 64-lane workgroup; GlobalInvocationId.x is the index (1-D dispatch).
#[test]
fn compute_atomics_across_parallel_workgroups() {
    let mut b = B::new();
    let gid = b.load_local(I32, 0);
    let (one, four) = (b.ki(1), b.ki(4));
    let old = atomic(&mut b, AtomicOp::IAdd, I32, BUF, 0, one, one);
    let off = b.bin(Bo::IMul, I32, gid, four);
    let addr = b.bin(Bo::IAdd, I32, off, four);
    b.push(Inst::Store {
        ty: I32,
        ptr: buf_ptr(0, addr),
        src: old,
    });
    let mut sh = b.shader(Stage::Compute);
    sh.workgroup_size = [64, 1, 1];
    sh.inputs.push(IoVar {
        binding: IoBinding::BuiltIn(BuiltIn::GlobalInvocationId),
        ty: I32,
        word: 0,
        count: 3,
        interp: Interp::Flat,
        sampling: Default::default(),
        per: Default::default(),
        name: "gid".into(),
    });
    let p = compile(&sh).unwrap();
    let buf = Buffer::new(4 + 4 * 256);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    run_compute(&p, [4, 1, 1], &bind).unwrap();
    let words = buf.to_u32s();
    assert_eq!(words[0], 256);
    let mut olds = words[1..].to_vec();
    olds.sort();
    assert_eq!(olds, (0..256).collect::<Vec<u32>>());
}

#[test]
fn compute_builtins_and_workgroup_barrier() {
    // Workgroup 4x2, dispatch 2x3: each invocation writes wg[local index] = gid.x + 100 * gid.y,
    // barrier, then reads wg[7 - local index] and stores it at buffer word (global linear id).
    let mut b = B::new();
    b.workgroup_words = 8;
    let gx = b.load_local(I32, 0);
    let gy = b.load_local(I32, 1);
    let li = b.load_local(I32, 3);
    let (c100, c7, c4, c8) = (b.ki(100), b.ki(7), b.ki(4), b.ki(8));
    let t = b.bin(Bo::IMul, I32, gy, c100);
    let v = b.bin(Bo::IAdd, I32, gx, t);
    b.push(Inst::Store {
        ty: I32,
        ptr: Ptr {
            space: Space::Workgroup,
            addr: li,
        },
        src: v,
    });
    b.push(Inst::Barrier);
    let other = b.bin(Bo::ISub, I32, c7, li);
    let got = b.reg(I32);
    b.push(Inst::Load {
        ty: I32,
        dst: got,
        ptr: Ptr {
            space: Space::Workgroup,
            addr: other,
        },
    });
    // global linear id = gy * 8 + gx (dispatch is 2 groups of 4 wide = 8 columns)
    let row = b.bin(Bo::IMul, I32, gy, c8);
    let lin = b.bin(Bo::IAdd, I32, row, gx);
    let addr = b.bin(Bo::IMul, I32, lin, c4);
    b.push(Inst::Store {
        ty: I32,
        ptr: buf_ptr(0, addr),
        src: got,
    });
    let mut sh = b.shader(Stage::Compute);
    sh.workgroup_size = [4, 2, 1];
    let var = |bi, word, count| IoVar {
        binding: IoBinding::BuiltIn(bi),
        ty: I32,
        word,
        count,
        interp: Interp::Flat,
        sampling: Default::default(),
        per: Default::default(),
        name: String::new(),
    };
    sh.inputs = vec![
        var(BuiltIn::GlobalInvocationId, 0, 2),
        var(BuiltIn::LocalInvocationIndex, 3, 1),
    ];
    let p = compile(&sh).unwrap();
    let buf = Buffer::new(4 * 8 * 6);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    run_compute(&p, [2, 3, 1], &bind).unwrap();
    let words = buf.to_u32s();
    for gy in 0..6u32 {
        for gx in 0..8u32 {
            // Same workgroup (wx = gx / 4, wy = gy / 2); local index 7 - li maps to local
            // (3 - lx, 1 - ly).
            let (lx, ly) = (gx % 4, gy % 2);
            let (ox, oy) = (gx - lx + (3 - lx), gy - ly + (1 - ly));
            assert_eq!(
                words[(gy * 8 + gx) as usize],
                ox + 100 * oy,
                "gid ({gx}, {gy})"
            );
        }
    }
}

#[test]
fn helper_lanes_never_store_and_atomics_return_zero() {
    let mut b = B::new();
    let lane = b.load_local(I32, 0);
    let (one, four) = (b.ki(1), b.ki(4));
    let addr = b.bin(Bo::IMul, I32, lane, four);
    let v = b.bin(Bo::IAdd, I32, lane, one);
    b.push(Inst::Store {
        ty: I32,
        ptr: buf_ptr(0, addr),
        src: v,
    });
    let old = atomic(&mut b, AtomicOp::IAdd, I32, BUF, 32, one, one);
    b.store_local(I32, 1, v); // private memory: helpers write it too
    let p = b.program();
    let buf = Buffer::new(36);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    let mut st = BatchState::new(&p, 8);
    for l in 0..8 {
        st.set_local(l, 0, l as u32);
    }
    for l in [1, 3, 6] {
        st.set_helper(l, true);
    }
    st.run(&p, &bind).unwrap();
    assert_eq!(buf.to_u32s(), [1, 0, 3, 0, 5, 6, 0, 8, 5]);
    let olds: Vec<u64> = (0..8).map(|l| st.reg(&p, old, l)).collect();
    assert_eq!(olds, [0, 0, 1, 0, 2, 3, 0, 4]);
    assert_eq!(st.local(3, 1), 4);
}

#[test]
fn array_length() {
    let mut b = B::new();
    let dst = b.reg(I32);
    b.push(Inst::ArrayLength {
        dst,
        slot: 0,
        index: None,
        offset: 4,
        stride: 8,
    });
    let p = b.program();
    let buf = Buffer::new(100);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    let mut st = BatchState::new(&p, 4);
    st.run(&p, &bind).unwrap();
    assert_eq!(st.reg(&p, dst, 0), 12);
}

/// Compute derivatives: with DerivativeGroupQuads a quad is a 2x2 tile of local ids, so
/// ddy_fine(float(local.y)) = 1; with the default linear layout the quad is a row of 4, so it
/// is 0. Results go to buffer word LocalInvocationIndex.
#[test]
fn compute_derivative_groups() {
    for (group, want_dy) in [(Some(DerivativeGroup::Quads), 1.0f32), (None, 0.0)] {
        let mut b = B::new();
        let ly = b.load_local(I32, 1);
        let li = b.load_local(I32, 3);
        let fy = b.reg(F32);
        b.push(Inst::Convert {
            op: ConvOp::UToF,
            from: I32,
            to: F32,
            dst: fy,
            a: ly,
        });
        let dy = b.reg(F32);
        b.push(Inst::Deriv {
            axis: Axis::Y,
            kind: DerivKind::Fine,
            ty: F32,
            dst: dy,
            a: fy,
        });
        let four = b.ki(4);
        let addr = b.bin(Bo::IMul, I32, li, four);
        b.push(Inst::Store {
            ty: F32,
            ptr: buf_ptr(0, addr),
            src: dy,
        });
        let mut sh = b.shader(Stage::Compute);
        sh.workgroup_size = [4, 2, 1];
        sh.derivative_group = group;
        let var = |bi, word, count| IoVar {
            binding: IoBinding::BuiltIn(bi),
            ty: I32,
            word,
            count,
            interp: Interp::Flat,
            sampling: Default::default(),
            per: Default::default(),
            name: String::new(),
        };
        sh.inputs = vec![
            var(BuiltIn::LocalInvocationId, 0, 3),
            var(BuiltIn::LocalInvocationIndex, 3, 1),
        ];
        let p = compile(&sh).unwrap();
        let buf = Buffer::new(32);
        let mut bind = Bindings::default();
        bind.bind_buffer(0, 0, &buf);
        run_compute(&p, [1, 1, 1], &bind).unwrap();
        for (idx, w) in buf.to_u32s().into_iter().enumerate() {
            assert_eq!(f32::from_bits(w), want_dy, "{group:?} invocation {idx}");
        }
    }
}

#[test]
fn workgroup_atomics_and_oversized_memory() {
    // 16 invocations: old = atomicAdd(wg[1], lid + 1); barrier; buf[lid] = wg[1] * 100 + old.
    let mut b = B::new();
    b.workgroup_words = 2;
    let lid = b.load_local(I32, 0);
    let one = b.ki(1);
    let inc = b.bin(Bo::IAdd, I32, lid, one);
    let old = atomic(&mut b, AtomicOp::IAdd, I32, Space::Workgroup, 1, inc, inc);
    b.push(Inst::Barrier);
    let total = load(&mut b, I32, Space::Workgroup, 1);
    let c100 = b.ki(100);
    let t = b.bin(Bo::IMul, I32, total, c100);
    let v = b.bin(Bo::IAdd, I32, t, old);
    let four = b.ki(4);
    let addr = b.bin(Bo::IMul, I32, lid, four);
    b.push(Inst::Store {
        ty: I32,
        ptr: buf_ptr(0, addr),
        src: v,
    });
    let mut sh = b.shader(Stage::Compute);
    sh.workgroup_size = [16, 1, 1];
    sh.inputs.push(IoVar {
        binding: IoBinding::BuiltIn(BuiltIn::LocalInvocationIndex),
        ty: I32,
        word: 0,
        count: 1,
        interp: Interp::Flat,
        sampling: Default::default(),
        per: Default::default(),
        name: String::new(),
    });
    let p = compile(&sh).unwrap();
    let buf = Buffer::new(64);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    run_compute(&p, [1, 1, 1], &bind).unwrap();
    // Lane order within the batch: old of lane l = 1 + 2 + ... + l = l(l+1)/2; total = 136.
    let want: Vec<u32> = (0..16).map(|l| 13600 + l * (l + 1) / 2).collect();
    assert_eq!(buf.to_u32s(), want);
    sh.local_words = u32::MAX;
    assert!(matches!(compile(&sh), Err(crate::Error::Unsupported(_))));
}

#[test]
fn constant_address_local_accesses_under_divergence() {
    // Constant-address Local loads and stores compile to row copies; they must write exactly
    // the active lanes, 64-bit values as two words (low first), and the last in-range word.
    // b0: c = local[0] != 0; br c b1 b2
    // b1: local[2..4] = local[4..6] (I64); local[15] = local[1]; jump b3
    // b2: local[6] = local[1] (I32); jump b3
    // b3: x = local[2..4] (I64); y = local[15]; z = local[6]
    let mut b = B::new();
    let (t, e, m) = (b.block(), b.block(), b.block());
    let c0 = load(&mut b, I32, Space::Local, 0);
    let zero = b.ki(0);
    let c = b.bin(BinaryOp::INe, I32, c0, zero);
    b.branch(c, t, e);
    b.at(t);
    let v64 = load(&mut b, I64, Space::Local, 4);
    store(&mut b, I64, Space::Local, 2, v64);
    let v = load(&mut b, I32, Space::Local, 1);
    store(&mut b, I32, Space::Local, 15, v);
    b.jump(m);
    b.at(e);
    let v = load(&mut b, I32, Space::Local, 1);
    store(&mut b, I32, Space::Local, 6, v);
    b.jump(m);
    b.at(m);
    let x = load(&mut b, I64, Space::Local, 2);
    let y = load(&mut b, I32, Space::Local, 15);
    let z = load(&mut b, I32, Space::Local, 6);
    let p = b.program();
    assert!(p.blocks.iter().any(|blk| blk
        .code
        .iter()
        .any(|c| matches!(c, crate::exec::program::Code::StoreLocal { wide: true, .. }))));
    let mut st = BatchState::new(&p, 8);
    for l in 0..8 {
        st.set_local(l, 0, (l % 3 == 0) as u32);
        st.set_local(l, 1, 100 + l as u32);
        st.set_local(l, 4, 0x1000 + l as u32);
        st.set_local(l, 5, 0x2000 + l as u32);
        st.set_local(l, 6, 7);
    }
    st.run(&p, &Bindings::default()).unwrap();
    for l in 0..8 {
        let taken = l % 3 == 0;
        let want_x = if taken {
            (0x2000 + l as u64) << 32 | (0x1000 + l as u64)
        } else {
            0
        };
        assert_eq!(st.reg(&p, x, l), want_x, "lane {l}");
        assert_eq!(st.local(l, 2), want_x as u32, "lane {l}");
        assert_eq!(st.reg(&p, y, l), if taken { 100 + l as u64 } else { 0 });
        assert_eq!(st.reg(&p, z, l), if taken { 7 } else { 100 + l as u64 });
    }
}
