//! The PNG loader goldens and Amber `FILE PNG` data go through (`golden::decode_png`), with
//! the device limits it runs under, lowered so that large pictures are refused quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quadstep::limits::{Limit, Limits};

fuzz_target!(|data: &[u8]| {
    let mut limits = Limits::default();
    limits.set(Limit::MaxImageDimension2D, 1024);
    limits.set(Limit::MaxMemoryAllocationSize, 16 << 20);
    if let Ok(img) = quadstep::golden::decode_png(data, &limits) {
        assert!(img.width() <= 1024 && img.height() <= 1024);
    }
});
