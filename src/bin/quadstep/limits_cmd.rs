//! `quadstep limits`: the device limits table scripts and API calls are held to (lavapipe's
//! values unless `--limit` sets some), and the default memory budget.

use std::process::ExitCode;

use quadstep::limits::{memory_available, Limit, Origin};

#[derive(clap::Args)]
pub struct LimitsArgs {
    /// Show the table with these set (`NAME=VALUE`, repeatable), as `amber` would use it.
    #[arg(long = "limit", value_name = "NAME=VALUE")]
    pub limits: Vec<String>,
    /// One JSON object per limit instead of the table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: LimitsArgs) -> ExitCode {
    let limits = match super::guard_args::limits(&a.limits) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("quadstep limits: {e}");
            return ExitCode::from(2);
        }
    };
    if a.json {
        for &l in Limit::ALL {
            let origin = match l.origin() {
                Origin::Lavapipe => "lavapipe",
                Origin::Quadstep => "quadstep",
            };
            println!(
                "{{\"name\":\"{}\",\"value\":{},\"default\":{},\"origin\":\"{origin}\"}}",
                l.name(),
                limits.get(l),
                l.default_value()
            );
        }
        return ExitCode::SUCCESS;
    }
    print!("{}", limits.table());
    println!(
        "(* set by --limit; origin lavapipe: what lavapipe reports, quadstep: quadstep's own)\n\
         memory budget per script: {} bytes by default (half of the {} bytes this process may \
         have, split between the scripts run in parallel; --memory-limit sets it)",
        memory_available() / 2,
        memory_available()
    );
    ExitCode::SUCCESS
}
