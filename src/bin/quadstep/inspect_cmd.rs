//! `quadstep inspect SHADER.dxil [--json] [--ll]`: what a DXIL container declares (shader
//! model, parts, `SFI0` flags, each entry point's raw flags, signatures and resources) beside
//! what its code requires, with the flag and availability rules of `front::dxil::inspect`.
//! Exit status: 0 when they agree, 1 when a rule is broken, 2 when the file cannot be read.

use std::path::PathBuf;
use std::process::ExitCode;

use quadstep::front::dxil;

#[derive(clap::Args)]
pub struct InspectArgs {
    /// A DXIL container (`.dxil`, `.cso`).
    pub shader: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also print the decoded module in `llvm-dis` syntax.
    #[arg(long)]
    pub ll: bool,
}

pub fn run(a: InspectArgs) -> ExitCode {
    let bytes = match std::fs::read(&a.shader) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {e}", a.shader.display());
            return ExitCode::from(2);
        }
    };
    let module = match dxil::read(&bytes) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}: {e}", a.shader.display());
            return ExitCode::from(2);
        }
    };
    let report = dxil::inspect::inspect(&module);
    if a.json {
        let mut v = dxil::inspect::report_json(&module, &report);
        if a.ll {
            v["ll"] = dxil::print::print_module(&module.module).into();
        }
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        println!("{}", a.shader.display());
        print!("{}", dxil::inspect::report_text(&module, &report));
        if a.ll {
            print!("\n{}", dxil::print::print_module(&module.module));
        }
    }
    if report.is_consistent() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
