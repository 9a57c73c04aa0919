//! The DXIL reader on arbitrary bytes: container, bitstream, module decoder, `dx.*` metadata,
//! and what runs on whatever reads (the printer, `inspect`). Any input must give `Ok` or
//! `Err`, never a panic, an abort or a hang. Seed it with real containers:
//! `cargo fuzz run dxil_reader ../../shared/dxil/vkd3d-proton` (from `fuzz/`'s parent, with the
//! corpus folders listed, or a copy of the `.dxil` files in one folder).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quadstep::front::dxil;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = dxil::read(data) {
        let _ = dxil::print::print_module(&m.module);
        let report = dxil::inspect::inspect(&m);
        let _ = dxil::inspect::report_text(&m, &report);
        let _ = dxil::inspect::report_json(&m, &report);
    }
    // Bare bitcode too (inputs that start with `BC 0xC0DE`).
    let _ = dxil::decode_bitcode(data);
});
