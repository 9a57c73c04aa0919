//! Golden-image testing: compare a rendered RGBA8 image with a stored PNG under a tolerance,
//! write expected / actual / diff images when they differ, and regenerate goldens on request.
//!
//! Shape: [`compare`] is a pure function over two images (so it is easy to test with tiny
//! hand-made images); [`load_png`] / [`save_png`] wrap the `image` crate and turn every failure
//! into an `Error::Io` naming the path; [`check_golden`] ties them to the `golden/` folder and
//! the `QUADSTEP_UPDATE_GOLDEN=1` switch. None of that knows about Amber or the rasterizer;
//! `scenes` alone ties golden PNGs to the Amber scripts of `shaders/golden/` that draw them.

mod png_chunks;
#[doc(hidden)]
pub mod scenes;

use std::path::{Path, PathBuf};

pub use image::RgbaImage;

use crate::limits::{Limit, Limits};
use crate::{Error, Result};

/// How different two images may be and still match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tolerance {
    /// A pixel differs when any channel (R, G, B or A) differs by more than this.
    pub max_channel_diff: u8,
    /// The images match when at most this many pixels differ.
    pub max_differing_pixels: usize,
}

impl Tolerance {
    /// Exact equality.
    pub const EXACT: Tolerance = Tolerance {
        max_channel_diff: 0,
        max_differing_pixels: 0,
    };
}

/// The first differing pixel in row-major order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub x: u32,
    pub y: u32,
    pub expected: [u8; 4],
    pub actual: [u8; 4],
}

/// Result of comparing two images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Both images have the same width and height (when not, nothing else is compared and every
    /// pixel of the larger image counts as differing).
    pub same_size: bool,
    /// Pixels with some channel differing by more than the tolerance.
    pub differing_pixels: usize,
    /// Largest absolute channel difference over the whole image.
    pub max_diff: u8,
    pub first_mismatch: Option<Mismatch>,
    /// `same_size && differing_pixels <= tol.max_differing_pixels`.
    pub passed: bool,
}

impl Comparison {
    /// One line for test failure messages.
    pub fn describe(&self) -> String {
        if !self.same_size {
            return "image sizes differ".to_string();
        }
        let mut s = format!(
            "{} pixel(s) differ, largest channel difference {}",
            self.differing_pixels, self.max_diff
        );
        if let Some(m) = self.first_mismatch {
            s += &format!(
                ", first at ({}, {}): expected {:?}, actual {:?}",
                m.x, m.y, m.expected, m.actual
            );
        }
        s
    }
}

fn px(img: &RgbaImage, x: u32, y: u32) -> [u8; 4] {
    img.get_pixel(x, y).0
}

/// Compare `actual` with `expected` under `tol`.
pub fn compare(expected: &RgbaImage, actual: &RgbaImage, tol: Tolerance) -> Comparison {
    if expected.dimensions() != actual.dimensions() {
        let n = (expected.width() as usize * expected.height() as usize)
            .max(actual.width() as usize * actual.height() as usize);
        return Comparison {
            same_size: false,
            differing_pixels: n,
            max_diff: 0,
            first_mismatch: None,
            passed: false,
        };
    }
    let mut differing = 0;
    let mut max_diff = 0u8;
    let mut first = None;
    for y in 0..expected.height() {
        for x in 0..expected.width() {
            let (e, a) = (px(expected, x, y), px(actual, x, y));
            let d = (0..4).map(|c| e[c].abs_diff(a[c])).max().unwrap_or(0);
            max_diff = max_diff.max(d);
            if d > tol.max_channel_diff {
                differing += 1;
                if first.is_none() {
                    first = Some(Mismatch {
                        x,
                        y,
                        expected: e,
                        actual: a,
                    });
                }
            }
        }
    }
    Comparison {
        same_size: true,
        differing_pixels: differing,
        max_diff,
        first_mismatch: first,
        passed: differing <= tol.max_differing_pixels,
    }
}

/// How much the diff image magnifies channel differences.
pub const DIFF_SCALE: u32 = 16;

/// A picture of where two same-sized images differ. Pixels within tolerance show the expected
/// image's luma divided by 4 as dim grey (context). Differing pixels show each RGB channel's
/// absolute difference times [`DIFF_SCALE`] (saturating at 255); if that leaves every channel
/// below 128 (a small or alpha-only difference) red is set to 255 so the pixel stands out.
/// Alpha is always 255. Images of different sizes give a diff of the larger extent, all red.
pub fn diff_image(expected: &RgbaImage, actual: &RgbaImage, tol: Tolerance) -> RgbaImage {
    let (w, h) = (
        expected.width().max(actual.width()),
        expected.height().max(actual.height()),
    );
    let mut out = RgbaImage::new(w, h);
    if expected.dimensions() != actual.dimensions() {
        for p in out.pixels_mut() {
            p.0 = [255, 0, 0, 255];
        }
        return out;
    }
    for y in 0..h {
        for x in 0..w {
            let (e, a) = (px(expected, x, y), px(actual, x, y));
            let d: [u8; 4] = std::array::from_fn(|c| e[c].abs_diff(a[c]));
            let differs = d.iter().any(|&v| v > tol.max_channel_diff);
            let p = if differs {
                let mut m: [u8; 3] =
                    std::array::from_fn(|c| (d[c] as u32 * DIFF_SCALE).min(255) as u8);
                if m.iter().all(|&v| v < 128) {
                    m[0] = 255;
                }
                [m[0], m[1], m[2], 255]
            } else {
                // Rec. 601 luma in integers, then a quarter of it.
                let l = (299 * e[0] as u32 + 587 * e[1] as u32 + 114 * e[2] as u32) / 1000 / 4;
                [l as u8, l as u8, l as u8, 255]
            };
            out.put_pixel(x, y, image::Rgba(p));
        }
    }
    out
}

/// Load a PNG as RGBA8. Any failure (missing file, bad or truncated PNG) is `Error::Io` naming
/// the path.
pub fn load_png(path: &Path) -> Result<RgbaImage> {
    let limits = Limits::default();
    let bytes = limits.read_file(path)?;
    decode_png(&bytes, &limits).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
}

/// Decode PNG bytes as RGBA8, within `limits`: the picture no wider or taller than
/// `maxImageDimension2D`, the decoder's allocations within `maxMemoryAllocationSize`.
/// Errors (`Error::Io`) say why the bytes are not a readable PNG.
pub fn decode_png(bytes: &[u8], limits: &Limits) -> Result<RgbaImage> {
    png_chunks::check(bytes)?;
    let side = limits.get(Limit::MaxImageDimension2D).min(u32::MAX as u64) as u32;
    let mut decoder_limits = image::Limits::default();
    decoder_limits.max_image_width = Some(side);
    decoder_limits.max_image_height = Some(side);
    decoder_limits.max_alloc = Some(limits.get(Limit::MaxMemoryAllocationSize));
    let mut reader =
        image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Png);
    reader.limits(decoder_limits);
    let img = reader
        .decode()
        .map_err(|e| Error::Io(format!("not a readable PNG: {e}")))?;
    Ok(img.to_rgba8())
}

/// Save an RGBA8 image as PNG, creating parent folders. Errors name the path.
pub fn save_png(path: &Path, img: &RgbaImage) -> Result<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::Io(format!("{}: {e}", dir.display())))?;
        }
    }
    img.save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| Error::Io(format!("{}: cannot write PNG: {e}", path.display())))
}

/// Where goldens live and where failure images go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldenDirs {
    /// Folder of `<name>.png` goldens.
    pub golden: PathBuf,
    /// Folder for `<name>.expected.png`, `.actual.png`, `.diff.png` on failure.
    pub out: PathBuf,
}

impl Default for GoldenDirs {
    /// `golden/` and `target/golden-out/` under the crate root (the folder `cargo test` runs
    /// in), overridable with `QUADSTEP_GOLDEN_DIR` and `QUADSTEP_GOLDEN_OUT`.
    fn default() -> Self {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        GoldenDirs {
            golden: std::env::var_os("QUADSTEP_GOLDEN_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| root.join("golden")),
            out: std::env::var_os("QUADSTEP_GOLDEN_OUT")
                .map(PathBuf::from)
                .unwrap_or_else(|| root.join("target").join("golden-out")),
        }
    }
}

/// Whether `QUADSTEP_UPDATE_GOLDEN=1` is set.
pub fn update_requested() -> bool {
    std::env::var("QUADSTEP_UPDATE_GOLDEN").is_ok_and(|v| v == "1")
}

/// Compare `actual` with `golden/<name>.png` (see [`GoldenDirs::default`]); with
/// `QUADSTEP_UPDATE_GOLDEN=1` the golden is (re)written from `actual` instead.
pub fn check_golden(name: &str, actual: &RgbaImage, tol: Tolerance) -> Result<Comparison> {
    check_golden_in(
        &GoldenDirs::default(),
        name,
        actual,
        tol,
        update_requested(),
    )
}

/// [`check_golden`] with explicit folders and update switch. On a mismatch it writes
/// `<out>/<name>.expected.png`, `.actual.png` and `.diff.png` and returns the (failed)
/// comparison; `Err` is only for I/O problems or a missing golden outside update mode.
pub fn check_golden_in(
    dirs: &GoldenDirs,
    name: &str,
    actual: &RgbaImage,
    tol: Tolerance,
    update: bool,
) -> Result<Comparison> {
    let golden = dirs.golden.join(format!("{name}.png"));
    if update {
        save_png(&golden, actual)?;
        return Ok(compare(actual, actual, tol));
    }
    if !golden.exists() {
        return Err(Error::Io(format!(
            "{}: golden image missing (run with QUADSTEP_UPDATE_GOLDEN=1 to create it)",
            golden.display()
        )));
    }
    let expected = load_png(&golden)?;
    let cmp = compare(&expected, actual, tol);
    if !cmp.passed {
        save_png(&dirs.out.join(format!("{name}.expected.png")), &expected)?;
        save_png(&dirs.out.join(format!("{name}.actual.png")), actual)?;
        save_png(
            &dirs.out.join(format!("{name}.diff.png")),
            &diff_image(&expected, actual, tol),
        )?;
    }
    Ok(cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fuzz target found a paletted PNG whose 25-byte `PLTE` made the decoder panic; it
    /// is an error now, and a well-formed paletted seed still decodes.
    #[test]
    fn a_palette_of_partial_entries_is_an_error_not_a_panic() {
        let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/png");
        let limits = Limits::default();
        let bad = std::fs::read(seeds.join("palette-25-byte-plte.png")).unwrap();
        let e = decode_png(&bad, &limits).unwrap_err().to_string();
        assert!(e.contains("PLTE chunk is 25 bytes"), "{e}");
        let good = std::fs::read(seeds.join("palette4_4x1.png")).unwrap();
        let img = decode_png(&good, &limits).unwrap();
        assert_eq!(img.dimensions(), (4, 1));
    }

    fn img(w: u32, h: u32, px: &[[u8; 4]]) -> RgbaImage {
        RgbaImage::from_raw(w, h, px.concat()).unwrap()
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("quadstep-golden-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    const A: [[u8; 4]; 4] = [
        [0, 0, 0, 255],
        [10, 20, 30, 255],
        [200, 100, 50, 255],
        [255, 255, 255, 0],
    ];

    #[test]
    fn identical_images_pass() {
        let a = img(2, 2, &A);
        let c = compare(&a, &a, Tolerance::EXACT);
        assert_eq!(
            c,
            Comparison {
                same_size: true,
                differing_pixels: 0,
                max_diff: 0,
                first_mismatch: None,
                passed: true
            }
        );
    }

    #[test]
    fn counts_pixels_beyond_channel_tolerance() {
        let a = img(2, 2, &A);
        // pixel (1,0): G off by 3; pixel (0,1): B off by 1; pixel (1,1): A off by 5.
        let b = img(
            2,
            2,
            &[
                [0, 0, 0, 255],
                [10, 23, 30, 255],
                [200, 100, 51, 255],
                [255, 255, 255, 5],
            ],
        );
        let c = compare(
            &a,
            &b,
            Tolerance {
                max_channel_diff: 1,
                max_differing_pixels: 0,
            },
        );
        assert_eq!(c.differing_pixels, 2);
        assert_eq!(c.max_diff, 5);
        assert_eq!(
            c.first_mismatch,
            Some(Mismatch {
                x: 1,
                y: 0,
                expected: [10, 20, 30, 255],
                actual: [10, 23, 30, 255]
            })
        );
        assert!(!c.passed);
        let c = compare(
            &a,
            &b,
            Tolerance {
                max_channel_diff: 1,
                max_differing_pixels: 2,
            },
        );
        assert!(c.passed);
        let c = compare(
            &a,
            &b,
            Tolerance {
                max_channel_diff: 5,
                max_differing_pixels: 0,
            },
        );
        assert!(c.passed && c.differing_pixels == 0 && c.max_diff == 5);
    }

    #[test]
    fn size_mismatch_fails() {
        let c = compare(
            &img(2, 2, &A),
            &img(4, 1, &A),
            Tolerance {
                max_channel_diff: 255,
                max_differing_pixels: 100,
            },
        );
        assert!(!c.same_size && !c.passed);
        assert_eq!(c.differing_pixels, 4);
    }

    #[test]
    fn diff_image_by_hand() {
        let a = img(2, 1, &[[100, 100, 100, 255], [10, 20, 30, 255]]);
        let b = img(2, 1, &[[100, 100, 100, 255], [12, 40, 30, 200]]);
        let d = diff_image(&a, &b, Tolerance::EXACT);
        // (0,0) equal: luma of (100,100,100) = 100, /4 = 25.
        assert_eq!(d.get_pixel(0, 0).0, [25, 25, 25, 255]);
        // (1,0): |d| = (2, 20, 0) ×16 = (32, 255 (320 saturated), 0).
        assert_eq!(d.get_pixel(1, 0).0, [32, 255, 0, 255]);
        // alpha-only difference: all magnified channels 0 < 128 → red marker.
        let c = img(1, 1, &[[10, 20, 30, 0]]);
        let e = img(1, 1, &[[10, 20, 30, 255]]);
        assert_eq!(
            diff_image(&c, &e, Tolerance::EXACT).get_pixel(0, 0).0,
            [255, 0, 0, 255]
        );
    }

    #[test]
    fn png_round_trip_and_errors_name_path() {
        let dir = tmp("png");
        let p = dir.join("sub").join("a.png");
        let a = img(2, 2, &A);
        save_png(&p, &a).unwrap();
        assert_eq!(load_png(&p).unwrap(), a);
        // Truncated PNG: must be an Io error naming the path, not a panic.
        let bytes = std::fs::read(&p).unwrap();
        let t = dir.join("truncated.png");
        std::fs::write(&t, &bytes[..bytes.len() / 2]).unwrap();
        match load_png(&t) {
            Err(Error::Io(m)) => assert!(m.contains("truncated.png"), "{m}"),
            other => panic!("expected Io error, got {other:?}"),
        }
        std::fs::write(&t, b"not a png at all").unwrap();
        assert!(matches!(load_png(&t), Err(Error::Io(m)) if m.contains("truncated.png")));
        let missing = dir.join("missing.png");
        assert!(matches!(load_png(&missing), Err(Error::Io(m)) if m.contains("missing.png")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn check_golden_update_pass_and_fail() {
        let root = tmp("check");
        let dirs = GoldenDirs {
            golden: root.join("golden"),
            out: root.join("out"),
        };
        let a = img(2, 2, &A);
        // Missing golden without update: error naming the file.
        assert!(
            matches!(check_golden_in(&dirs, "t", &a, Tolerance::EXACT, false), Err(Error::Io(m)) if m.contains("t.png"))
        );
        // Update writes the golden.
        assert!(
            check_golden_in(&dirs, "t", &a, Tolerance::EXACT, true)
                .unwrap()
                .passed
        );
        assert_eq!(load_png(&dirs.golden.join("t.png")).unwrap(), a);
        // Same image passes and writes nothing.
        assert!(
            check_golden_in(&dirs, "t", &a, Tolerance::EXACT, false)
                .unwrap()
                .passed
        );
        assert!(!dirs.out.exists());
        // A changed pixel fails and writes the three images.
        let mut b = a.clone();
        b.put_pixel(0, 0, image::Rgba([0, 0, 9, 255]));
        let c = check_golden_in(&dirs, "t", &b, Tolerance::EXACT, false).unwrap();
        assert!(!c.passed);
        assert_eq!(c.differing_pixels, 1);
        assert_eq!(load_png(&dirs.out.join("t.expected.png")).unwrap(), a);
        assert_eq!(load_png(&dirs.out.join("t.actual.png")).unwrap(), b);
        let d = load_png(&dirs.out.join("t.diff.png")).unwrap();
        assert_eq!(d.get_pixel(0, 0).0, [0, 0, 144, 255]); // |9-0|·16 = 144 in blue
        let _ = std::fs::remove_dir_all(&root);
    }
}
