//! Derivatives, quad operations, demote/helper, subgroup operations, fragment entry point.
//! Expected values by hand or from naive per-lane references written here.

use super::*;
use BinaryOp as Bo;
use ScalarTy::*;

/// Lane values P = 3x + 5y + 7xy + 100 * quad for quad lane (x, y).
fn p_of(l: usize) -> f32 {
    let (q, x, y) = ((l / 4) as f32, (l & 1) as f32, ((l >> 1) & 1) as f32);
    3.0 * x + 5.0 * y + 7.0 * x * y + 100.0 * q
}

#[test]
fn derivatives_fine_and_coarse() {
    let mut b = B::new();
    let pr = b.load_local(F32, 0);
    let mut outs = vec![];
    for (axis, kind) in [
        (Axis::X, DerivKind::Fine),
        (Axis::Y, DerivKind::Fine),
        (Axis::X, DerivKind::Coarse),
        (Axis::Y, DerivKind::Coarse),
    ] {
        let dst = b.reg(F32);
        b.push(Inst::Deriv {
            axis,
            kind,
            ty: F32,
            dst,
            a: pr,
        });
        outs.push(dst);
    }
    let p = b.program();
    let rows: Vec<Vec<u32>> = (0..8).map(|l| vec![p_of(l).to_bits()]).collect();
    let st = run_lanes(&p, &rows);
    let get = |r, l| f32::from_bits(st.reg(&p, r, l) as u32);
    for l in 0..8 {
        // P0 = 0, P1 = 3, P2 = 5, P3 = 15 (+100q): fine x = 3 (top) / 10 (bottom), fine y = 5
        // (left) / 12 (right); coarse = lane 0's: 3 and 5.
        let top = l % 4 < 2;
        let left = l % 2 == 0;
        assert_eq!(
            get(outs[0], l),
            if top { 3.0 } else { 10.0 },
            "ddx_fine lane {l}"
        );
        assert_eq!(
            get(outs[1], l),
            if left { 5.0 } else { 12.0 },
            "ddy_fine lane {l}"
        );
        assert_eq!(get(outs[2], l), 3.0, "ddx_coarse lane {l}");
        assert_eq!(get(outs[3], l), 5.0, "ddy_coarse lane {l}");
    }
}

#[test]
fn quad_swap_broadcast_vote() {
    let mut b = B::new();
    let v = b.load_local(I32, 0);
    let flag = b.load_local(Bool, 1);
    let swaps: Vec<Reg> = (0..3)
        .map(|dir| {
            let dst = b.reg(I32);
            b.push(Inst::QuadSwap {
                direction: dir,
                ty: I32,
                dst,
                a: v,
            });
            dst
        })
        .collect();
    let two = b.ki(2);
    let bc = b.reg(I32);
    b.push(Inst::QuadBroadcast {
        ty: I32,
        dst: bc,
        a: v,
        index: two,
    });
    let (any, all) = (b.reg(Bool), b.reg(Bool));
    b.push(Inst::QuadVote {
        all: false,
        dst: any,
        a: flag,
    });
    b.push(Inst::QuadVote {
        all: true,
        dst: all,
        a: flag,
    });
    let p = b.program();
    // value = 10 * lane + 100 * quad; flag set in lanes 0..4 (quad 0 all), lane 5 (quad 1 some).
    let rows: Vec<Vec<u32>> = (0..12)
        .map(|l| {
            vec![
                (10 * (l % 4) + 100 * (l / 4)) as u32,
                (l < 4 || l == 5) as u32,
            ]
        })
        .collect();
    let st = run_lanes(&p, &rows);
    for l in 0..12usize {
        let base = 100 * (l / 4) as u64;
        let q = l % 4;
        assert_eq!(st.reg(&p, swaps[0], l), base + 10 * (q ^ 1) as u64);
        // direction 1 (vertical): 0 <-> 2, 1 <-> 3
        assert_eq!(st.reg(&p, swaps[1], l), base + 10 * [2, 3, 0, 1][q]);
        assert_eq!(st.reg(&p, swaps[2], l), base + 10 * [3, 2, 1, 0][q]);
        assert_eq!(st.reg(&p, bc, l), base + 20);
        assert_eq!(st.reg(&p, any, l), (l < 8) as u64, "any lane {l}");
        assert_eq!(st.reg(&p, all, l), (l < 4) as u64, "all lane {l}");
    }
}

/// r = P; lane 1 of each quad kills, resuming at `cont`; there r = 2r, h = IsHelper, local
/// word 2 = r; then ddx_fine(r). Returns the batch and the registers (dx, h).
fn kill_then_derivative(discard: crate::exec::Discard) -> (BatchState, Program, Reg, Reg) {
    let mut b = B::new();
    let (kill, cont) = (b.block(), b.block());
    let pr = b.load_local(F32, 0);
    let is1 = b.load_local(Bool, 1);
    let r = b.reg(F32);
    b.mov_to(r, F32, pr);
    b.branch(is1, kill, cont);
    b.at(kill);
    b.term(Terminator::Kill { resume: Some(cont) });
    b.at(cont);
    let two = b.kf(2.0);
    b.bin_to(r, Bo::FMul, F32, r, two);
    let h = b.reg(Bool);
    b.push(Inst::IsHelper { dst: h });
    b.store_local(F32, 2, r);
    let dx = b.reg(F32);
    b.push(Inst::Deriv {
        axis: Axis::X,
        kind: DerivKind::Fine,
        ty: F32,
        dst: dx,
        a: r,
    });
    let mut p = b.program();
    p.set_discard(discard);
    let rows: Vec<Vec<u32>> = (0..4)
        .map(|l| vec![p_of(l).to_bits(), (l == 1) as u32, 0])
        .collect();
    (run_lanes(&p, &rows), p, dx, h)
}

#[test]
fn killed_neighbour_goes_on_as_a_helper() {
    let (st, p, dx, h) = kill_then_derivative(crate::exec::Discard::Helper);
    // Every lane doubles r, lane 1 as a helper: lane 0 dx = 2 P1 - 2 P0 = 6 - 0, lane 2
    // 2 P3 - 2 P2 = 30 - 10 (P0..P3 = 0, 3, 5, 15).
    assert_eq!(f32::from_bits(st.reg(&p, dx, 0) as u32), 6.0);
    assert_eq!(f32::from_bits(st.reg(&p, dx, 2) as u32), 20.0);
    assert!(st.killed(1) && st.helper(1) && !st.demoted(1));
    assert_eq!(
        (0..4).map(|l| st.reg(&p, h, l)).collect::<Vec<_>>(),
        [0, 1, 0, 0]
    );
    // a helper writes its own per-lane memory
    assert_eq!(f32::from_bits(st.local(1, 2)), 6.0);
}

#[test]
fn strictly_killed_neighbour_is_frozen_for_derivatives() {
    let (st, p, dx, _) = kill_then_derivative(crate::exec::Discard::Strict);
    // Lane 0: r1 (frozen P1 = 3) - r0 (2 * 0) = 3; lane 2: 2*P3 - 2*P2 = 30 - 10 = 20.
    assert_eq!(f32::from_bits(st.reg(&p, dx, 0) as u32), 3.0);
    assert_eq!(f32::from_bits(st.reg(&p, dx, 2) as u32), 20.0);
    assert!(st.killed(1) && !st.helper(1));
    assert_eq!(st.local(1, 2), 0, "lane 1 stopped before the store");
}

#[test]
fn demote_then_is_helper() {
    // Lane 2 demotes; afterwards IsHelper is true there only, its buffer store is dropped but
    // it keeps running (its private word 1 is written).
    let mut b = B::new();
    let (dem, join) = (b.block(), b.block());
    let lane = b.load_local(I32, 0);
    let c2 = b.ki(2);
    let is2 = b.bin(Bo::IEq, I32, lane, c2);
    b.branch(is2, dem, join);
    b.at(dem);
    b.push(Inst::Demote);
    b.jump(join);
    b.at(join);
    let hel = b.reg(Bool);
    b.push(Inst::IsHelper { dst: hel });
    let four = b.ki(4);
    let addr = b.bin(Bo::IMul, I32, lane, four);
    let one = b.ki(1);
    b.push(Inst::Store {
        ty: I32,
        ptr: Ptr {
            space: Space::Buffer {
                slot: 0,
                index: None,
            },
            addr,
        },
        src: one,
    });
    b.store_local(I32, 1, one);
    let p = b.program();
    let buf = Buffer::new(16);
    let mut bind = Bindings::default();
    bind.bind_buffer(0, 0, &buf);
    let mut st = BatchState::new(&p, 4);
    for l in 0..4 {
        st.set_local(l, 0, l as u32);
    }
    st.run(&p, &bind).unwrap();
    let h: Vec<u64> = (0..4).map(|l| st.reg(&p, hel, l)).collect();
    assert_eq!(h, [0, 0, 1, 0]);
    assert_eq!(buf.to_u32s(), [1, 1, 0, 1]);
    assert!(st.demoted(2) && st.helper(2));
    assert_eq!(st.local(2, 1), 1);
}

#[test]
fn subgroup_ops_against_naive_reference() {
    // 32 lanes = 2 subgroups. Lanes with v % 3 == 0 skip the group ops (inactive); lanes 5
    // and 20 are helpers (active but not participating).
    let vals: Vec<u32> = (0..32u32).map(|l| (l * 7 + 3) % 23).collect();
    let active = |l: usize| !vals[l].is_multiple_of(3);
    let part = |l: usize| active(l) && l != 5 && l != 20;
    let mut b = B::new();
    let (body, join) = (b.block(), b.block());
    let v = b.load_local(I32, 0);
    let three = b.ki(3);
    let rem = b.bin(Bo::UMod, I32, v, three);
    let zero = b.ki(0);
    let go = b.bin(Bo::INe, I32, rem, zero);
    b.branch(go, body, join);
    b.at(body);
    let ga = |b: &mut B, op, scan| {
        let dst = b.reg(I32);
        b.push(Inst::GroupArith {
            op,
            scan,
            ty: I32,
            dst,
            a: v,
        });
        dst
    };
    let red = ga(&mut b, GroupArith::IAdd, GroupScan::Reduce);
    let inc = ga(&mut b, GroupArith::IAdd, GroupScan::Inclusive);
    let exc = ga(&mut b, GroupArith::IAdd, GroupScan::Exclusive);
    let clu = ga(&mut b, GroupArith::IAdd, GroupScan::Clustered(4));
    let umax = ga(&mut b, GroupArith::UMax, GroupScan::Reduce);
    let fv = b.reg(F32);
    b.push(Inst::Convert {
        op: ConvOp::UToF,
        from: I32,
        to: F32,
        dst: fv,
        a: v,
    });
    let fsum = b.reg(F32);
    b.push(Inst::GroupArith {
        op: GroupArith::FAdd,
        scan: GroupScan::Reduce,
        ty: F32,
        dst: fsum,
        a: fv,
    });
    let one = b.ki(1);
    let low = b.bin(Bo::And, I32, v, one);
    let isodd = b.bin(Bo::INe, I32, low, zero);
    let ballot = b.reg(I32);
    b.push(Inst::Group {
        op: GroupOp::Ballot(0),
        ty: Bool,
        dst: ballot,
        a: isodd,
        b: isodd,
    });
    let zero_r = b.ki(0);
    let bcount = b.reg(I32);
    b.push(Inst::BallotQuery {
        query: BallotQuery::BitCountReduce,
        dst: bcount,
        ballot: [ballot, zero_r, zero_r, zero_r],
        b: zero_r,
    });
    let elect = b.reg(Bool);
    b.push(Inst::Group {
        op: GroupOp::Elect,
        ty: Bool,
        dst: elect,
        a: v,
        b: v,
    });
    let first = b.reg(I32);
    b.push(Inst::Group {
        op: GroupOp::BroadcastFirst,
        ty: I32,
        dst: first,
        a: v,
        b: v,
    });
    let xor1 = b.reg(I32);
    b.push(Inst::Group {
        op: GroupOp::ShuffleXor,
        ty: I32,
        dst: xor1,
        a: v,
        b: one,
    });
    let sid = b.reg(I32);
    b.push(Inst::LaneInfo {
        what: LaneInfo::SubgroupInvocationId,
        dst: sid,
    });
    b.jump(join);
    let p = b.program();
    let mut st = BatchState::new(&p, 32);
    for (l, &v) in vals.iter().enumerate() {
        st.set_local(l, 0, v);
    }
    st.set_helper(5, true);
    st.set_helper(20, true);
    st.run(&p, &Bindings::default()).unwrap();
    for l in (0..32).filter(|&l| active(l)) {
        let g = l / 16 * 16;
        let members: Vec<usize> = (g..g + 16).filter(|&m| part(m)).collect();
        let sum: u32 = members.iter().map(|&m| vals[m]).sum();
        let inc_w: u32 = members.iter().filter(|&&m| m <= l).map(|&m| vals[m]).sum();
        let exc_w: u32 = members.iter().filter(|&&m| m < l).map(|&m| vals[m]).sum();
        let c0 = l / 4 * 4;
        let clu_w: u32 = members
            .iter()
            .filter(|&&m| m >= c0 && m < c0 + 4)
            .map(|&m| vals[m])
            .sum();
        let max_w = members.iter().map(|&m| vals[m]).max().unwrap();
        let ballot_w: u32 = members
            .iter()
            .filter(|&&m| vals[m] & 1 == 1)
            .map(|&m| 1 << (m - g))
            .sum();
        let get = |r| st.reg(&p, r, l) as u32;
        assert_eq!(get(red), sum, "reduce lane {l}");
        assert_eq!(get(inc), inc_w, "inclusive lane {l}");
        assert_eq!(get(exc), exc_w, "exclusive lane {l}");
        assert_eq!(get(clu), clu_w, "clustered lane {l}");
        assert_eq!(get(umax), max_w, "umax lane {l}");
        assert_eq!(f32::from_bits(get(fsum)), sum as f32, "fadd lane {l}");
        assert_eq!(get(ballot), ballot_w, "ballot lane {l}");
        assert_eq!(get(bcount), ballot_w.count_ones(), "bitcount lane {l}");
        assert_eq!(get(elect), (l == members[0]) as u32, "elect lane {l}");
        assert_eq!(get(first), vals[members[0]], "broadcast first lane {l}");
        assert_eq!(get(xor1), vals[l ^ 1], "shuffle xor lane {l}");
        assert_eq!(get(sid), (l % 16) as u32);
    }
}

#[test]
fn fragment_entry_point_io() {
    // out.location0 = in.location1.y * 2 + FragCoord.x; out FragDepth = 0.25 in lane 3 only
    // (others keep FragCoord.z); lane 2 kills.
    let mut b = B::new();
    let (kill, cont, setdepth, end) = (b.block(), b.block(), b.block(), b.block());
    let vy = b.load_local(F32, 1);
    let fx = b.load_local(F32, 3);
    let lane = b.load_local(I32, 8);
    let two = b.kf(2.0);
    let t = b.bin(Bo::FMul, F32, vy, two);
    let o = b.bin(Bo::FAdd, F32, t, fx);
    b.store_local(F32, 9, o);
    let c2 = b.ki(2);
    let c3 = b.ki(3);
    let k = b.bin(Bo::IEq, I32, lane, c2);
    b.branch(k, kill, cont);
    b.at(kill);
    b.term(Terminator::Kill { resume: None });
    b.at(cont);
    let is3 = b.bin(Bo::IEq, I32, lane, c3);
    b.branch(is3, setdepth, end);
    b.at(setdepth);
    let q = b.kf(0.25);
    b.store_local(F32, 10, q);
    b.jump(end);
    let mut sh = b.shader(Stage::Fragment);
    let io = |binding, word, count| IoVar {
        binding,
        ty: F32,
        word,
        count,
        interp: Interp::Smooth,
        sampling: Default::default(),
        per: Default::default(),
        name: String::new(),
    };
    sh.inputs = vec![
        io(
            IoBinding::Location {
                location: 1,
                component: 0,
            },
            0,
            2,
        ),
        io(IoBinding::BuiltIn(BuiltIn::FragCoord), 3, 4),
        io(
            IoBinding::Location {
                location: 2,
                component: 0,
            },
            8,
            1,
        ),
    ];
    sh.outputs = vec![
        io(
            IoBinding::Location {
                location: 0,
                component: 0,
            },
            9,
            1,
        ),
        io(IoBinding::BuiltIn(BuiltIn::FragDepth), 10, 1),
    ];
    let p = compile(&sh).unwrap();
    // varyings: 3 locations x 4 words per lane; location 1 = (x, y), location 2 = lane id.
    let mut varyings = vec![0u32; 4 * 12];
    for l in 0..4 {
        varyings[l * 12 + 5] = (10.0 * l as f32).to_bits();
        varyings[l * 12 + 8] = l as u32;
    }
    let quad = FragQuadInput {
        frag_coord: std::array::from_fn(|l| {
            [(l & 1) as f32 + 4.5, (l >> 1) as f32 + 6.5, 0.5, 1.0]
        }),
        helper: [false, true, false, false],
        sample_mask: [1; 4],
        varyings,
        ..Default::default()
    };
    let out = run_fragment_quads(&p, &[quad.clone(), quad], &Bindings::default()).unwrap();
    assert_eq!(out.len(), 2);
    let o = &out[1];
    assert_eq!(o.outputs.len(), 4 * 4);
    for l in 0..4 {
        let want = 20.0 * l as f32 + (l & 1) as f32 + 4.5;
        assert_eq!(f32::from_bits(o.outputs[l * 4]), want, "lane {l}");
    }
    assert_eq!(o.frag_depth, [0.5, 0.5, 0.5, 0.25]);
    assert_eq!(o.discarded, [false, false, true, false]);
    assert_eq!(o.helper, [false, true, false, false]);
}

/// A fake image unit: result component c of lane l = coord0 + 10 * c + 100 * quad; counts calls.
/// With `.1` set its `image_batch` writes the active lanes' results and poisons every other
/// entry of `out`: what a run keeps must not depend on those.
struct FakeImages(std::sync::atomic::AtomicU32, bool);
impl ImageUnit for FakeImages {
    fn image_op(
        &self,
        inst: &ImageInst,
        q: &QuadOperands,
        out: &mut [[u32; 4]; 4],
    ) -> crate::Result<()> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(inst.kind, ImageOpKind::Fetch);
        assert_eq!(q.coord_count, 2);
        assert_eq!(q.lod, QuadLod::Explicit([0; 4]));
        for (lane_out, coords) in out.iter_mut().zip(&q.coords) {
            for (c, o) in lane_out.iter_mut().enumerate() {
                *o = coords[0] + 10 * c as u32 + 100 * q.quad;
            }
        }
        Ok(())
    }
    fn image_batch(
        &self,
        inst: &ImageInst,
        ops: &BatchOperands<'_>,
        out: &mut [[u32; 4]],
    ) -> crate::Result<()> {
        if !self.1 {
            return image_per_quad(self, inst, ops, out);
        }
        let mut all = vec![[0u32; 4]; out.len()];
        image_per_quad(self, inst, ops, &mut all)?;
        for (l, (o, r)) in out.iter_mut().zip(&all).enumerate() {
            *o = if ops.active(l) { *r } else { [0xdead_beef; 4] };
        }
        Ok(())
    }
}

/// A texel fetch of slot 0 at `(x, zero)`, LOD `zero`, results `dst`.
fn fetch(x: Reg, zero: Reg, dst: Vec<Reg>) -> ImageInst {
    ImageInst {
        kind: ImageOpKind::Fetch,
        image: ResRef {
            slot: 0,
            index: None,
        },
        sampler: None,
        coords: vec![x, zero],
        proj: None,
        dref: None,
        lod: Lod::Explicit(zero),
        offset: vec![],
        offsets4: None,
        min_lod: None,
        sample: None,
        component: None,
        texel: vec![],
        dst,
        result_ty: I32,
    }
}

/// The lanes whose Local word 1 is set fetch at `(Local word 0, 0)` into `count` results
/// (returned with the program).
fn fetch_program(count: usize) -> (Program, Vec<Reg>) {
    let mut b = B::new();
    let (fetch_block, join) = (b.block(), b.block());
    let x = b.load_local(I32, 0);
    let go = b.load_local(Bool, 1);
    b.branch(go, fetch_block, join);
    b.at(fetch_block);
    let zero = b.ki(0);
    let dst: Vec<Reg> = (0..count).map(|_| b.reg(I32)).collect();
    b.push(Inst::Image(Box::new(fetch(x, zero, dst.clone()))));
    b.jump(join);
    (b.program(), dst)
}

#[test]
fn image_results_are_kept_on_the_active_lanes_only() {
    // One, two and four results (a row per component; four as transposed blocks), with
    // divergent lanes (a quad without an active lane, partial quads) and with every lane;
    // the unit poisons every entry of `out` it need not write. Want: the formula of
    // `FakeImages` on the lanes that ran, 0 (the registers' start) on the others.
    let patterns: [fn(usize) -> bool; 2] = [|l| l < 4 || l == 9 || l == 10, |_| true];
    for count in [1usize, 2, 4] {
        let (p, dst) = fetch_program(count);
        let unit = FakeImages(0.into(), true);
        let bind = Bindings::new(&unit);
        for (k, runs) in patterns.iter().enumerate() {
            let mut st = BatchState::new(&p, 12);
            for l in 0..12 {
                st.set_local(l, 0, 3 * l as u32);
                st.set_local(l, 1, runs(l) as u32);
            }
            st.run(&p, &bind).unwrap();
            for l in 0..12 {
                for (c, &r) in dst.iter().enumerate() {
                    let want = if runs(l) {
                        (3 * l + 10 * c + 100 * (l / 4)) as u64
                    } else {
                        0
                    };
                    assert_eq!(
                        st.reg(&p, r, l),
                        want,
                        "{count} results, pattern {k}, lane {l}, component {c}"
                    );
                }
            }
        }
    }
}

#[test]
fn image_ops_go_through_the_unit_once_per_active_quad() {
    // Lanes with x < 4 (quad 0) and lane 9 (quad 2) fetch; quad 1 has no active lane.
    let (p, dst) = fetch_program(2);
    let unit = FakeImages(0.into(), false);
    let bind = Bindings::new(&unit);
    let mut st = BatchState::new(&p, 12);
    for l in 0..12 {
        st.set_local(l, 0, l as u32);
        st.set_local(l, 1, (l < 4 || l == 9) as u32);
    }
    st.run(&p, &bind).unwrap();
    assert_eq!(unit.0.load(std::sync::atomic::Ordering::Relaxed), 2);
    for l in 0..12 {
        let active = l < 4 || l == 9;
        let q = (l / 4) as u64;
        assert_eq!(
            st.reg(&p, dst[0], l),
            if active { l as u64 + 100 * q } else { 0 },
            "lane {l}"
        );
        assert_eq!(
            st.reg(&p, dst[1], l),
            if active { l as u64 + 10 + 100 * q } else { 0 },
            "lane {l}"
        );
    }
    // Without an image unit the same program is an error, not a panic.
    let mut st = BatchState::new(&p, 4);
    st.set_local(0, 1, 1);
    assert!(st.run(&p, &Bindings::default()).is_err());
}

/// In row form an image instruction whose four results are only stored to the colour words
/// writes those rows itself (`Code::ImageLocal`, the stores dropped): the colours of every
/// lane equal the per-quad path's, with a dead quad (no covered lane) among live ones.
#[test]
fn row_form_image_writes_its_colour_rows() {
    use crate::exec::program::Code;
    use crate::exec::{fragment_row_layout, run_fragment_quads, run_fragment_rows, FragQuadInput};
    use crate::stage::RowBatch;
    let mut b = B::new();
    b.local_words = 8;
    let x = b.load_local(I32, 0);
    let zero = b.ki(0);
    let dst: Vec<Reg> = (0..4).map(|_| b.reg(I32)).collect();
    b.push(Inst::Image(Box::new(fetch(x, zero, dst.clone()))));
    // components stored out of order: the rows follow the stores
    for (c, &r) in dst.iter().enumerate() {
        b.store_local(I32, 4 + (c as i32 + 1) % 4, r);
    }
    let mut sh = b.shader(Stage::Fragment);
    let io = |word| IoVar {
        binding: IoBinding::Location {
            location: 0,
            component: 0,
        },
        ty: I32,
        word,
        count: 4,
        interp: Interp::Flat,
        sampling: Default::default(),
        per: Default::default(),
        name: String::new(),
    };
    sh.inputs = vec![io(0)];
    sh.outputs = vec![io(4)];
    let p = compile(&sh).unwrap();
    let ops = &p.row_ops.as_ref().expect("row ops").1;
    assert!(ops
        .iter()
        .any(|(_, c)| matches!(c, Code::ImageLocal { words, .. } if *words == [5, 6, 7, 4])));
    assert!(!ops
        .iter()
        .any(|(_, c)| matches!(c, Code::StoreLocal { .. })));
    let unit = FakeImages(0.into(), false);
    let bind = Bindings::new(&unit);
    let layout = fragment_row_layout(&p);
    for coverage in [vec![0xf; 4], vec![0xf, 0, 0b0110, 0xf]] {
        let (quads, lanes) = (coverage.len(), coverage.len() * 4);
        let mut batch = RowBatch {
            quads,
            coverage: coverage.clone(),
            frag_coord: vec![[0.0; 4]; lanes],
            front_facing: vec![false; lanes],
            primitive_id: vec![0; lanes],
            point_coord: vec![[0.0; 2]; lanes],
            rows: vec![0xdead_beef; layout.rows * lanes],
            depth: vec![0.0; lanes],
            killed: vec![0; quads],
            ..Default::default()
        };
        let r = layout.inputs[0].1[0].expect("x has a row") as usize;
        for l in 0..lanes {
            batch.rows[r * lanes + l] = 3 * l as u32;
        }
        run_fragment_rows(&p, &mut batch, &bind).unwrap();
        let per_quad: Vec<FragQuadInput> = (0..quads)
            .map(|q| FragQuadInput {
                sample_mask: [1; 4],
                helper: std::array::from_fn(|i| coverage[q] & (1 << i) == 0),
                varyings: (0..4)
                    .flat_map(|i| [3 * (q * 4 + i) as u32, 0, 0, 0])
                    .collect(),
                ..Default::default()
            })
            .collect();
        let want = run_fragment_quads(&p, &per_quad, &bind).unwrap();
        for (q, o) in want.iter().enumerate() {
            if coverage[q] == 0 {
                continue; // a dead quad's colours are not written to any attachment
            }
            for i in 0..4 {
                for c in 0..4 {
                    let row = layout.colors[0][c].expect("a colour row") as usize;
                    assert_eq!(
                        batch.rows[row * lanes + q * 4 + i],
                        o.outputs[i * 4 + c],
                        "quad {q} lane {i} c {c}"
                    );
                }
            }
        }
    }
}

/// Records (block, index, active lanes, lane-0 value of a Binary's destination).
#[derive(Default)]
struct Rec(Vec<(BlockId, usize, usize, Option<u32>)>);
impl Observer for Rec {
    fn inst(&mut self, ev: &InstEvent<'_>) {
        let active = ev.active.iter().filter(|&&a| a != 0).count();
        let v = match ev.inst {
            Inst::Binary { dst, .. } => match ev.regs.get(*dst) {
                Some(LaneValues::W32(v)) => Some(v[0]),
                _ => None,
            },
            _ => None,
        };
        self.0.push((ev.block, ev.index, active, v));
    }
}

#[test]
fn observer_sees_every_executed_instruction() {
    // b0: x = load; c = x < 2; branch -> b1 (r = x + 1) / b2 (r = x + 2); -> b3
    let mut b = B::new();
    let (t, e, m) = (b.block(), b.block(), b.block());
    let x = b.load_local(I32, 0);
    let two = b.ki(2);
    let c = b.bin(Bo::SLt, I32, x, two);
    b.branch(c, t, e);
    let r = b.reg(I32);
    b.at(t);
    let one = b.ki(1);
    b.bin_to(r, Bo::IAdd, I32, x, one);
    b.jump(m);
    b.at(e);
    b.bin_to(r, Bo::IAdd, I32, x, two);
    b.jump(m);
    let p = b.program();
    let mut st = BatchState::new(&p, 4);
    for l in 0..4 {
        st.set_local(l, 0, l as u32);
    }
    let mut rec = Rec::default();
    st.run_observed(&p, &Bindings::default(), &mut rec).unwrap();
    assert_eq!(
        rec.0,
        [
            (0, 0, 4, None),
            (0, 1, 4, Some(1)),
            (t, 0, 2, Some(1)),
            (e, 0, 2, Some(1))
        ]
    );
}

#[test]
fn quad_ops_on_f16_and_64_bit_values() {
    let mut b = B::new();
    let v64 = b.load_local(I64, 0);
    let hv = b.load_local(F16, 2);
    let sw = b.reg(I64);
    b.push(Inst::QuadSwap {
        direction: 2,
        ty: I64,
        dst: sw,
        a: v64,
    });
    let dx = b.reg(F16);
    b.push(Inst::Deriv {
        axis: Axis::X,
        kind: DerivKind::Fine,
        ty: F16,
        dst: dx,
        a: hv,
    });
    let dy = b.reg(F64);
    let d64 = b.load_local(F64, 4);
    b.push(Inst::Deriv {
        axis: Axis::Y,
        kind: DerivKind::Coarse,
        ty: F64,
        dst: dy,
        a: d64,
    });
    let p = b.program();
    // lane l: v64 = l << 40 | l; hv = f16(0.5 * l^2); d64 = 0.25 * l
    let rows: Vec<Vec<u32>> = (0..4u64)
        .map(|l| {
            let v = (l << 40) | l;
            let dd = (0.25 * l as f64).to_bits();
            vec![
                v as u32,
                (v >> 32) as u32,
                h(0.5 * (l * l) as f32) as u32,
                0,
                dd as u32,
                (dd >> 32) as u32,
            ]
        })
        .collect();
    let st = run_lanes(&p, &rows);
    for l in 0..4u64 {
        let o = 3 - l;
        assert_eq!(st.reg(&p, sw, l as usize), (o << 40) | o);
        // fine x: lanes 0,1: 0.5 - 0 = 0.5; lanes 2,3: 4.5 - 2 = 2.5
        assert_eq!(st.reg(&p, dx, l as usize), h(if l < 2 { 0.5 } else { 2.5 }));
        // coarse y: P2 - P0 = 0.5
        assert_eq!(st.reg(&p, dy, l as usize), d(0.5));
    }
}
