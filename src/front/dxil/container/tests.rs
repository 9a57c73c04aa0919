//! The container reader on the vkd3d-proton corpus (signed by DXC's validator, so the
//! digests and hashes are an independent check) and on hand-made damage.

use super::*;

pub(crate) fn corpus() -> Option<Vec<std::path::PathBuf>> {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/dxil/vkd3d-proton");
    let root = if root.exists() {
        root
    } else {
        std::path::PathBuf::from("/work/shared/dxil/vkd3d-proton")
    };
    if !root.exists() {
        eprintln!("skipped: no DXIL corpus at {}", root.display());
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dxil") {
                out.push(p);
            }
        }
    }
    out.sort();
    Some(out)
}

#[test]
fn corpus_digests_and_hashes_verify() {
    let Some(files) = corpus() else { return };
    assert_eq!(files.len(), 334);
    let mut signed = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let c = read_container(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(
            !matches!(c.digest_check, DigestCheck::Mismatch { .. }),
            "{}",
            f.display()
        );
        signed += usize::from(c.digest_check == DigestCheck::Matches);
        assert_eq!(c.hash_matches, Some(true), "{}", f.display());
        assert_eq!(c.declared_size as usize, bytes.len());
    }
    eprintln!(
        "{signed} of {} containers signed, every signature verified",
        files.len()
    );
    assert!(signed > 300, "{signed} signed");
}
