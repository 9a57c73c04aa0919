//! The tessellator against the Direct3D 11 reference tessellator that llvmpipe and lavapipe
//! run (`tests/data/tessellator/`: `cases.txt`, one patch a line, and `expected.txt`, the
//! reference's point count, index count and a hash of every point's bits and every index,
//! made by `gen.sh` from Mesa's copy of the reference). Every domain, spacing and output, with
//! levels 1, fractional, large (clamped), 0, negative and NaN (culled or clamped).

use quadstep::raster::tessellator::{tessellate, Domain, Output, Spacing};

/// FNV-1a 64 over little-endian words, as `reference.cpp` hashes.
fn hash(words: impl Iterator<Item = u32>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

#[test]
fn tessellations_equal_the_reference_tessellator() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tessellator");
    let cases = std::fs::read_to_string(format!("{dir}/cases.txt")).unwrap();
    let expected = std::fs::read_to_string(format!("{dir}/expected.txt")).unwrap();
    let mut n = 0;
    for (case, want) in cases.lines().zip(expected.lines()) {
        let f: Vec<&str> = case.split_whitespace().collect();
        let domain = match f[0] {
            "t" => Domain::Triangles,
            "q" => Domain::Quads,
            _ => Domain::Isolines,
        };
        let spacing = match f[1] {
            "e" => Spacing::Equal,
            "v" => Spacing::FractionalEven,
            _ => Spacing::FractionalOdd,
        };
        let output = match f[2] {
            "cw" => Output::Triangles { cw: true },
            "ccw" => Output::Triangles { cw: false },
            "l" => Output::Lines,
            _ => Output::Points,
        };
        let l: Vec<f32> = f[3..9].iter().map(|x| x.parse().unwrap()).collect();
        let t = tessellate(
            domain,
            spacing,
            output,
            [l[0], l[1], l[2], l[3]],
            [l[4], l[5]],
        );
        let words = t
            .points
            .iter()
            .flat_map(|p| [p[0].to_bits(), p[1].to_bits()])
            .chain(t.indices.iter().copied());
        let got = format!(
            "{} {} {:016x}",
            t.points.len(),
            t.indices.len(),
            hash(words)
        );
        assert_eq!(got, want, "case {case}");
        n += 1;
    }
    assert_eq!(n, cases.lines().count());
    assert!(n > 300, "{n} cases");
}
