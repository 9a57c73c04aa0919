//! Arithmetic, conversion and pack/unpack instructions: expected values by hand / from the
//! GLSL.std.450 and SPIR-V formulas.

use super::*;
use BinaryOp as Bo;
use ScalarTy::*;
use UnaryOp as Uo;

const MIN32: u64 = 0x8000_0000;

#[test]
fn int32_arith_edges() {
    let m1 = i(-1);
    let cases = [
        (Bo::IAdd, 0xFFFF_FFFF, 1, 0),
        (Bo::ISub, 0, 1, m1),
        (Bo::IMul, 0x10000, 0x10000, 0),
        (Bo::IMul, i(-3), 7, i(-21)),
        (Bo::SDiv, 7, 2, 3),
        (Bo::SDiv, i(-7), 2, i(-3)),
        (Bo::SDiv, MIN32, m1, MIN32),
        (Bo::SDiv, 5, 0, m1),
        (Bo::UDiv, 7, 0, 0xFFFF_FFFF),
        (Bo::UDiv, 0xFFFF_FFFF, 2, 0x7FFF_FFFF),
        (Bo::SRem, i(-7), 2, m1),
        (Bo::SRem, 7, i(-2), 1),
        (Bo::SRem, 5, 0, 5),
        (Bo::SRem, MIN32, m1, 0),
        (Bo::SMod, i(-7), 2, 1),
        (Bo::SMod, 7, i(-2), m1),
        (Bo::SMod, i(-8), 2, 0),
        (Bo::SMod, 5, 0, 5),
        (Bo::UMod, 7, 3, 1),
        (Bo::UMod, 7, 0, 7),
        (Bo::Shl, 1, 31, MIN32),
        (Bo::Shl, 1, 32, 0),
        (Bo::Shl, 1, 33, 0),
        (Bo::ShrL, MIN32, 31, 1),
        (Bo::ShrL, MIN32, 32, 0),
        (Bo::ShrA, MIN32, 31, m1),
        (Bo::ShrA, MIN32, 40, m1),
        (Bo::ShrA, 0x4000_0000, 40, 0),
        (Bo::UMulHi, 0xFFFF_FFFF, 0xFFFF_FFFF, 0xFFFF_FFFE),
        (Bo::SMulHi, m1, m1, 0),
        (Bo::SMulHi, MIN32, 2, m1),
        (Bo::AddCarry, 0xFFFF_FFFF, 1, 1),
        (Bo::AddCarry, 1, 1, 0),
        (Bo::SubBorrow, 0, 1, 1),
        (Bo::SMin, m1, 1, m1),
        (Bo::UMin, m1, 1, 1),
        (Bo::SMax, m1, 1, 1),
        (Bo::UMax, m1, 1, m1),
        (Bo::SLt, m1, 0, 1),
        (Bo::ULt, m1, 0, 0),
        (Bo::SGe, 0, m1, 1),
        (Bo::UGt, m1, 0, 1),
        (Bo::IEq, 3, 3, 1),
        (Bo::INe, 3, 3, 0),
        (Bo::Xor, 0xF0, 0xFF, 0x0F),
    ];
    for (op, a, b, want) in cases {
        assert_eq!(
            eval_bin(op, I32, &[(a, b)])[0],
            want,
            "{op:?}({a:#x}, {b:#x})"
        );
    }
}

#[test]
fn small_and_wide_ints() {
    assert_eq!(eval_bin(Bo::IAdd, I8, &[(0xFF, 1)]), [0]);
    assert_eq!(eval_bin(Bo::SDiv, I8, &[(0x80, 0xFF)]), [0x80]);
    assert_eq!(eval_bin(Bo::ShrA, I8, &[(0x80, 7)]), [0xFF]);
    assert_eq!(eval_bin(Bo::Shl, I8, &[(1, 8)]), [0]);
    assert_eq!(eval_bin(Bo::IMul, I16, &[(0x100, 0x100)]), [0]);
    assert_eq!(eval_bin(Bo::SLt, I16, &[(0x8000, 0)]), [1]);
    assert_eq!(eval_bin(Bo::IAdd, I64, &[(u64::MAX, 1)]), [0]);
    assert_eq!(eval_bin(Bo::SDiv, I64, &[(1 << 63, u64::MAX)]), [1 << 63]);
    assert_eq!(
        eval_bin(Bo::UMulHi, I64, &[(u64::MAX, u64::MAX)]),
        [u64::MAX - 1]
    );
    assert_eq!(eval_bin(Bo::Shl, I64, &[(1, 63), (1, 64)]), [1 << 63, 0]);
    assert_eq!(eval_bin(Bo::SLt, I64, &[(u64::MAX, 0)]), [1]);
    let mut b = B::new();
    let lo = b.k(I32, 0x1234_5678);
    let hi = b.k(I32, 0x9ABC_DEF0);
    let j = b.bin(Bo::Join64, I64, lo, hi);
    let p = b.program();
    assert_eq!(
        run_lanes(&p, &[vec![]]).reg(&p, j, 0),
        0x9ABC_DEF0_1234_5678
    );
    assert_eq!(
        eval_un(Uo::Hi32, I64, I32, &[0x9ABC_DEF0_1234_5678]),
        [0x9ABC_DEF0]
    );
    assert_eq!(
        eval_un(Uo::Lo32, I64, I32, &[0x9ABC_DEF0_1234_5678]),
        [0x1234_5678]
    );
}

#[test]
fn int_unary_bits() {
    assert_eq!(eval_un(Uo::BitCount, I32, I32, &[0xF0F0, 0]), [8, 0]);
    assert_eq!(eval_un(Uo::BitCount, I64, I32, &[u64::MAX]), [64]);
    assert_eq!(eval_un(Uo::FindILsb, I32, I32, &[0, 0x80]), [i(-1), 7]);
    assert_eq!(
        eval_un(Uo::FindUMsb, I32, I32, &[MIN32, 0, 1]),
        [31, i(-1), 0]
    );
    assert_eq!(
        eval_un(Uo::FindSMsb, I32, I32, &[i(-1), 0x7FFF_FFFF, i(-2), 5]),
        [i(-1), 30, 0, 2]
    );
    assert_eq!(
        eval_un(Uo::BitReverse, I32, I32, &[1, 0x8000_0001]),
        [MIN32, 0x8000_0001]
    );
    assert_eq!(eval_un(Uo::BitReverse, I8, I8, &[1]), [0x80]);
    assert_eq!(eval_un(Uo::SNeg, I32, I32, &[MIN32, 5]), [MIN32, i(-5)]);
    assert_eq!(eval_un(Uo::SAbs, I32, I32, &[MIN32, i(-5)]), [MIN32, 5]);
    assert_eq!(eval_un(Uo::SSign, I32, I32, &[i(-7), 0, 9]), [i(-1), 0, 1]);
    assert_eq!(eval_un(Uo::Not, I16, I16, &[0]), [0xFFFF]);
    assert_eq!(eval_un(Uo::LogicalNot, Bool, Bool, &[0, 1]), [1, 0]);
}

#[test]
fn bitfields() {
    let t = |op, cases: &[(u64, u64, u64)]| eval_tern(op, I32, [I32, I32, I32], cases);
    assert_eq!(
        t(
            TernaryOp::BitFieldUExtract,
            &[(0xABCD_1234, 8, 8), (0xABCD_1234, 0, 32), (5, 3, 0)]
        ),
        [0x12, 0xABCD_1234, 0]
    );
    assert_eq!(
        t(
            TernaryOp::BitFieldSExtract,
            &[(0xF000, 12, 4), (0x7000, 12, 4)]
        ),
        [i(-1), 7]
    );
    let mut b = B::new();
    let base = b.k(I32, 0xFFFF_FFFF);
    let ins = b.ki(0x5A);
    let off = b.ki(4);
    let cnt = b.ki(8);
    let dst = b.reg(I32);
    b.push(Inst::BitFieldInsert {
        ty: I32,
        dst,
        base,
        insert: ins,
        offset: off,
        count: cnt,
    });
    let p = b.program();
    let st = run_lanes(&p, &[vec![]]);
    assert_eq!(st.reg(&p, dst, 0), 0xFFFF_F5AF);
}

#[test]
fn float_nan_inf_min_max_clamp() {
    let nan = f(f32::NAN);
    assert_eq!(
        eval_bin(Bo::FMin, F32, &[(nan, f(1.0)), (f(1.0), nan)]),
        [f(1.0), f(1.0)]
    );
    assert_eq!(eval_bin(Bo::FMax, F32, &[(nan, f(-2.0))]), [f(-2.0)]);
    assert_eq!(eval_bin(Bo::NMin, F32, &[(f(3.0), f(-2.0))]), [f(-2.0)]);
    let c = eval_tern(
        TernaryOp::FClamp,
        F32,
        [F32; 3],
        &[(nan, f(0.0), f(1.0)), (f(2.0), f(0.0), f(1.0))],
    );
    assert_eq!(c, [f(0.0), f(1.0)]);
    let s = eval_bin(Bo::FAdd, F32, &[(f(f32::INFINITY), f(f32::NEG_INFINITY))]);
    assert!(f32::from_bits(s[0] as u32).is_nan());
    assert_eq!(
        eval_bin(Bo::FDiv, F32, &[(f(1.0), f(0.0))]),
        [f(f32::INFINITY)]
    );
    let cmp = |op| eval_bin(op, F32, &[(nan, nan), (f(1.0), nan), (f(1.0), f(2.0))]);
    assert_eq!(cmp(Bo::FOrdEq), [0, 0, 0]);
    assert_eq!(cmp(Bo::FUnordEq), [1, 1, 0]);
    assert_eq!(cmp(Bo::FOrdNe), [0, 0, 1]);
    assert_eq!(cmp(Bo::FUnordNe), [1, 1, 1]);
    assert_eq!(cmp(Bo::FOrdLt), [0, 0, 1]);
    assert_eq!(cmp(Bo::FUnordGe), [1, 1, 0]);
    assert_eq!(cmp(Bo::Ordered), [0, 0, 1]);
    assert_eq!(cmp(Bo::Unordered), [1, 1, 0]);
    assert_eq!(eval_un(Uo::IsNan, F32, Bool, &[nan, f(1.0)]), [1, 0]);
    assert_eq!(
        eval_un(Uo::IsInf, F32, Bool, &[f(f32::NEG_INFINITY), nan]),
        [1, 0]
    );
}

#[test]
fn float_functions_at_known_points() {
    // fma(0.1f, 10, -1): the exact product 1.0000000149011612 minus 1 is 2^-26 (a separate
    // multiply would round the product to 1.0 and give 0).
    let r = eval_tern(TernaryOp::Fma, F32, [F32; 3], &[(f(0.1), f(10.0), f(-1.0))]);
    assert_eq!(r, [f(2f32.powi(-26))]);
    assert_eq!(
        eval_un(Uo::Fract, F32, F32, &[f(-1.25), f(2.5)]),
        [f(0.75), f(0.5)]
    );
    assert_eq!(
        eval_bin(Bo::FMod, F32, &[(f(-1.0), f(3.0)), (f(5.5), f(-2.0))]),
        [f(2.0), f(-0.5)]
    );
    assert_eq!(
        eval_bin(Bo::FRem, F32, &[(f(-1.0), f(3.0)), (f(5.5), f(-2.0))]),
        [f(-1.0), f(1.5)]
    );
    assert_eq!(eval_bin(Bo::Pow, F32, &[(f(2.0), f(10.0))]), [f(1024.0)]);
    assert_eq!(eval_un(Uo::Exp, F32, F32, &[f(0.0)]), [f(1.0)]);
    assert_eq!(eval_un(Uo::Log, F32, F32, &[f(1.0)]), [f(0.0)]);
    assert_eq!(eval_un(Uo::Exp2, F32, F32, &[f(-1.0)]), [f(0.5)]);
    assert_eq!(eval_un(Uo::Log2, F32, F32, &[f(8.0)]), [f(3.0)]);
    // sqrt(2) correctly rounded to f32 is 0x3FB504F3.
    assert_eq!(eval_un(Uo::Sqrt, F32, F32, &[f(2.0)]), [0x3FB5_04F3]);
    assert_eq!(eval_un(Uo::InverseSqrt, F32, F32, &[f(4.0)]), [f(0.5)]);
    assert_eq!(
        eval_un(Uo::Round, F32, F32, &[f(2.5), f(-2.5)]),
        [f(3.0), f(-3.0)]
    );
    assert_eq!(
        eval_un(Uo::RoundEven, F32, F32, &[f(2.5), f(3.5)]),
        [f(2.0), f(4.0)]
    );
    assert_eq!(
        eval_un(Uo::FSign, F32, F32, &[f(-0.0), f(-3.0), f(7.0)]),
        [f(-0.0), f(-1.0), f(1.0)]
    );
    assert_eq!(eval_un(Uo::Floor, F32, F32, &[f(-0.5)]), [f(-1.0)]);
    assert_eq!(eval_un(Uo::Trunc, F32, F32, &[f(-1.5)]), [f(-1.0)]);
    assert_eq!(
        eval_bin(Bo::Step, F32, &[(f(1.0), f(0.5)), (f(1.0), f(1.0))]),
        [f(0.0), f(1.0)]
    );
    let ss = eval_tern(
        TernaryOp::SmoothStep,
        F32,
        [F32; 3],
        &[(f(0.0), f(1.0), f(0.5)), (f(0.0), f(1.0), f(0.25))],
    );
    assert_eq!(ss, [f(0.5), f(0.15625)]);
    assert_eq!(
        eval_tern(TernaryOp::FMix, F32, [F32; 3], &[(f(1.0), f(3.0), f(0.25))]),
        [f(1.5)]
    );
    // ldexp / frexp, including the smallest denormal 2^-149 (bits 0x1).
    let mut b = B::new();
    let x = b.load_local(F32, 0);
    let e = b.load_local(I32, 1);
    let dst = b.bin(Bo::Ldexp, F32, x, e);
    let p = b.program();
    let st = run_lanes(
        &p,
        &[vec![f(1.5) as u32, 3], vec![f(1.0) as u32, i(-149) as u32]],
    );
    assert_eq!([st.reg(&p, dst, 0), st.reg(&p, dst, 1)], [f(12.0), 1]);
    assert_eq!(
        eval_un(Uo::FrexpMant, F32, F32, &[f(8.0), f(-0.75), 1]),
        [f(0.5), f(-0.75), f(0.5)]
    );
    assert_eq!(
        eval_un(Uo::FrexpExp, F32, I32, &[f(8.0), f(-0.75), 1, f(0.0)]),
        [4, 0, i(-148), 0]
    );
    // Denormals are preserved.
    assert_eq!(eval_bin(Bo::FMul, F32, &[(1, f(2.0))]), [2]);
    assert_eq!(
        eval_un(Uo::Degrees, F32, F32, &[f(std::f32::consts::PI)]),
        [f(180.0)]
    );
}

#[test]
fn f16_rounds_after_each_op() {
    let tie = 2f32.powi(-11);
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even gives 1.0.
    assert_eq!(eval_bin(Bo::FAdd, F16, &[(h(1.0), h(tie))]), [0x3C00]);
    // (1 + 2^-10) + 2^-11 is halfway between mantissas 1 and 2: even is 2.
    assert_eq!(eval_bin(Bo::FAdd, F16, &[(0x3C01, h(tie))]), [0x3C02]);
    assert_eq!(eval_bin(Bo::FMul, F16, &[(h(65504.0), h(2.0))]), [0x7C00]);
    // 2^-14 * 0.5 = 2^-15 is an f16 denormal: 0x0200.
    assert_eq!(eval_bin(Bo::FMul, F16, &[(0x0400, h(0.5))]), [0x0200]);
    assert_eq!(eval_bin(Bo::FMin, F16, &[(0x7E00, h(3.0))]), [h(3.0)]);
    assert_eq!(eval_un(Uo::Floor, F16, F16, &[h(-1.5)]), [h(-2.0)]);
    assert_eq!(eval_bin(Bo::FOrdLt, F16, &[(h(-1.0), h(0.5))]), [1]);
}

#[test]
fn f64_ops() {
    assert_eq!(
        eval_bin(Bo::FAdd, F64, &[(d(0.1), d(0.2))]),
        [0x3FD3_3333_3333_3334]
    );
    assert_eq!(
        eval_bin(Bo::FDiv, F64, &[(d(1.0), d(3.0))]),
        [0x3FD5_5555_5555_5555]
    );
    assert_eq!(
        eval_bin(Bo::FMin, F64, &[(d(f64::NAN), d(-1.0))]),
        [d(-1.0)]
    );
    assert_eq!(eval_bin(Bo::FOrdGt, F64, &[(d(2.0), d(1.0))]), [1]);
    assert_eq!(eval_un(Uo::Sqrt, F64, F64, &[d(16.0)]), [d(4.0)]);
    let r = eval_tern(
        TernaryOp::FClamp,
        F64,
        [F64; 3],
        &[(d(5.0), d(0.0), d(1.0))],
    );
    assert_eq!(r, [d(1.0)]);
    let s = eval_tern(
        TernaryOp::Select,
        F64,
        [Bool, F64, F64],
        &[(1, d(1.0), d(2.0)), (0, d(1.0), d(2.0))],
    );
    assert_eq!(s, [d(1.0), d(2.0)]);
}

#[test]
fn conversions() {
    use ConvOp::*;
    assert_eq!(
        eval_conv(FToS, F32, I32, &[f(1e10), f(-1e10), f(f32::NAN), f(-3.9)]),
        [0x7FFF_FFFF, MIN32, 0, i(-3)]
    );
    assert_eq!(
        eval_conv(FToU, F32, I32, &[f(-5.0), f(5e9), f(3.9)]),
        [0, 0xFFFF_FFFF, 3]
    );
    assert_eq!(
        eval_conv(FToS, F32, I8, &[f(200.0), f(-200.0)]),
        [127, 0x80]
    );
    assert_eq!(eval_conv(FToU, F32, I16, &[f(70000.0)]), [0xFFFF]);
    assert_eq!(eval_conv(FToS, F64, I64, &[d(1e300)]), [i64::MAX as u64]);
    assert_eq!(
        eval_conv(SToF, I32, F32, &[i(-1), 16_777_217]),
        [f(-1.0), f(16_777_216.0)]
    );
    assert_eq!(
        eval_conv(UToF, I32, F32, &[0xFFFF_FFFF]),
        [f(4_294_967_296.0)]
    );
    assert_eq!(
        eval_conv(UToF, I64, F64, &[u64::MAX]),
        [d(18_446_744_073_709_551_616.0)]
    );
    // 2049 is halfway between the f16 values 2048 and 2050: even mantissa is 2048 (0x6800).
    assert_eq!(eval_conv(SToF, I32, F16, &[2049, 70000]), [0x6800, 0x7C00]);
    assert_eq!(eval_conv(UConvert, I32, I8, &[0x1FF]), [0xFF]);
    assert_eq!(eval_conv(SConvert, I8, I32, &[0x80]), [0xFFFF_FF80]);
    assert_eq!(eval_conv(UConvert, I8, I64, &[0x80]), [0x80]);
    assert_eq!(eval_conv(SConvert, I32, I64, &[i(-1)]), [u64::MAX]);
    assert_eq!(eval_conv(FConvert, F64, F32, &[d(0.1)]), [0x3DCC_CCCD]);
    assert_eq!(eval_conv(FConvert, F16, F64, &[0x3C01]), [d(1.0009765625)]);
    let t = 1.0 + 2f32.powi(-11);
    assert_eq!(
        eval_conv(FConvert, F32, F16, &[f(t), f(t + 2f32.powi(-20))]),
        [0x3C00, 0x3C01]
    );
    assert_eq!(eval_conv(Bitcast, F32, I32, &[f(1.0)]), [0x3F80_0000]);
}

#[test]
fn pack_unpack() {
    assert_eq!(
        eval_bin(Bo::PackHalf2x16, F32, &[(f(1.0), f(-2.0))]),
        [0xC000_3C00]
    );
    assert_eq!(
        eval_un(Uo::UnpackHalf2x16(0), I32, F32, &[0xC000_3C00]),
        [f(1.0)]
    );
    assert_eq!(
        eval_un(Uo::UnpackHalf2x16(1), I32, F32, &[0xC000_3C00]),
        [f(-2.0)]
    );
    assert_eq!(
        eval_bin(Bo::PackUnorm2x16, F32, &[(f(0.5), f(1.0))]),
        [0xFFFF_8000]
    );
    assert_eq!(
        eval_bin(Bo::PackSnorm2x16, F32, &[(f(-1.0), f(0.5))]),
        [0x4000_8001]
    );
    assert_eq!(
        eval_un(Uo::UnpackSnorm2x16(0), I32, F32, &[0x8000]),
        [f(-1.0)]
    );
    assert_eq!(
        eval_un(Uo::UnpackUnorm2x16(1), I32, F32, &[0xFFFF_0000]),
        [f(1.0)]
    );
    assert_eq!(
        eval_un(Uo::UnpackUnorm4x8(2), I32, F32, &[0x3380_00FF]),
        [f(128.0 / 255.0)]
    );
    assert_eq!(eval_un(Uo::UnpackSnorm4x8(0), I32, F32, &[0x81]), [f(-1.0)]);
    for (snorm, vals, want) in [
        (false, [1.0, 0.0, 0.5, 0.2], 0x3380_00FFu64),
        (true, [-1.0, 1.0, 0.0, -0.5], 0xC000_7F81),
    ] {
        let mut b = B::new();
        let src = vals.map(|v| b.kf(v));
        let dst = b.reg(I32);
        b.push(Inst::Pack4x8 { snorm, dst, src });
        let p = b.program();
        assert_eq!(run_lanes(&p, &[vec![]]).reg(&p, dst, 0), want);
    }
}

#[test]
fn compile_rejects_bad_ir() {
    let mut b = B::new();
    let x = b.kf(1.0);
    b.push(Inst::Binary {
        op: Bo::FAdd,
        ty: F64,
        dst: 99,
        a: x,
        b: x,
    });
    assert!(matches!(
        compile(&b.shader(Stage::Fragment)),
        Err(crate::Error::Exec(_))
    ));
    let mut b = B::new();
    let x = b.kf(1.0);
    let y = b.reg(F32);
    b.push(Inst::Binary {
        op: Bo::FAdd,
        ty: F64,
        dst: y,
        a: x,
        b: x,
    });
    assert!(compile(&b.shader(Stage::Fragment)).is_err());
    let mut b = B::new();
    b.jump(7);
    assert!(compile(&b.shader(Stage::Fragment)).is_err());
    let mut b = B::new();
    let x = b.kf(1.0);
    let y = b.reg(F32);
    b.push(Inst::Binary {
        op: Bo::IAdd,
        ty: Bool,
        dst: y,
        a: x,
        b: x,
    });
    assert!(matches!(
        compile(&b.shader(Stage::Fragment)),
        Err(crate::Error::Unsupported(_))
    ));
}

#[test]
fn floor_ceil_trunc_edges() {
    let nan = f(f32::NAN);
    let fl = eval_un(
        Uo::Floor,
        F32,
        F32,
        &[
            f(-0.0),
            f(-0.5),
            f(0.5),
            f(-1e-30),
            f(1e30),
            f(8_388_607.5),
            f(-8_388_607.5),
            f(f32::INFINITY),
            nan,
        ],
    );
    assert_eq!(
        fl[..8],
        [
            f(-0.0),
            f(-1.0),
            f(0.0),
            f(-1.0),
            f(1e30),
            f(8_388_607.0),
            f(-8_388_608.0),
            f(f32::INFINITY)
        ]
    );
    assert!(f32::from_bits(fl[8] as u32).is_nan());
    assert_eq!(
        eval_un(
            Uo::Ceil,
            F32,
            F32,
            &[f(-0.5), f(0.5), f(-1.0), f(8_388_607.5)]
        ),
        [f(-0.0), f(1.0), f(-1.0), f(8_388_608.0)]
    );
    assert_eq!(
        eval_un(Uo::Trunc, F32, F32, &[f(-1.5), f(-0.5), f(2.5)]),
        [f(-1.0), f(-0.0), f(2.0)]
    );
    assert_eq!(
        eval_un(
            Uo::Floor,
            F64,
            F64,
            &[d(-0.5), d(4_503_599_627_370_495.5), d(-1e300)]
        ),
        [d(-1.0), d(4_503_599_627_370_495.0), d(-1e300)]
    );
}

#[test]
fn destination_aliasing_an_operand_with_all_lanes_active() {
    // r = x; r = r + r; r = fma(r, r, r); with every lane active (the direct-write path).
    let mut b = B::new();
    let x = b.load_local(F32, 0);
    let r = b.reg(F32);
    b.mov_to(r, F32, x);
    b.bin_to(r, Bo::FAdd, F32, r, r);
    b.push(Inst::Ternary {
        op: TernaryOp::Fma,
        ty: F32,
        dst: r,
        a: r,
        b: r,
        c: r,
    });
    let p = b.program();
    let rows: Vec<Vec<u32>> = (0..8).map(|l| vec![(l as f32).to_bits()]).collect();
    let st = run_lanes(&p, &rows);
    for l in 0..8 {
        let v = 2.0 * l as f32;
        assert_eq!(f32::from_bits(st.reg(&p, r, l) as u32), v * v + v);
    }
}
