//! The guards every subcommand that runs scripts shares (`amber`, `render`): the instruction
//! budget, the time limit, the memory budget and device-limit overrides, read once here and
//! put into `RunOptions`, and Ctrl-C wired to the cancel token every script runs under.

use std::sync::OnceLock;
use std::time::Duration;

use quadstep::amber::RunOptions;
use quadstep::limits::{memory_available, Cancel, Limits};

#[derive(clap::Args, Clone, Debug)]
pub struct GuardArgs {
    /// Interpreter instruction budget per batch (a runaway shader stops there).
    #[arg(long, default_value_t = 20_000_000)]
    pub budget: u64,
    /// Wall-clock limit per script in seconds (fractions allowed). A draw or dispatch stops
    /// within milliseconds of it and the script fails as timed out.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub time_limit: f64,
    /// Bytes a script may hold at once (its buffers, images, attachments, the copies a
    /// command makes, a draw's arrays), e.g. `4G`, `512M`, `65536`. Going over fails the
    /// script. Default: half the memory this process may have, split between the scripts
    /// run in parallel.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory_limit: Option<u64>,
    /// Set a device limit, e.g. `--limit maxFramebufferWidth=4096` (repeatable; `quadstep
    /// limits` lists them with lavapipe's defaults).
    #[arg(long = "limit", value_name = "NAME=VALUE")]
    pub limits: Vec<String>,
}

impl GuardArgs {
    /// `RunOptions` with these guards, for `parallel` scripts at once, under the Ctrl-C
    /// token.
    pub fn run_options(&self, parallel: usize) -> Result<RunOptions, String> {
        let time_limit = Duration::try_from_secs_f64(self.time_limit)
            .map_err(|_| format!("--time-limit {}: not a number of seconds", self.time_limit))?;
        Ok(RunOptions {
            budget: self.budget,
            time_limit,
            limits: limits(&self.limits)?,
            memory_limit: self
                .memory_limit
                .unwrap_or(memory_available() / 2 / parallel.max(1) as u64),
            cancel: interrupt_token().clone(),
            ..RunOptions::default()
        })
    }
}

/// The device limits with `--limit NAME=VALUE` overrides.
pub fn limits(overrides: &[String]) -> Result<Limits, String> {
    let mut l = Limits::default();
    for s in overrides {
        l.set_from_str(s).map_err(|e| e.to_string())?;
    }
    Ok(l)
}

/// `4G`, `4GiB`, `512M`, `64k`, `65536`: a size in bytes (the units are powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (n, unit) = t.split_at(digits);
    let n: u64 = n.parse().map_err(|_| format!("{s:?} is not a size"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("{s:?}: unknown unit (use K, M, G or T)")),
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{s:?} is too large"))
}

/// The token every script of this process runs under. The first Ctrl-C (SIGINT) stops
/// the scripts running and the run, which reports what finished; a second one exits at once
/// with status 130.
pub fn interrupt_token() -> &'static Cancel {
    static TOKEN: OnceLock<Cancel> = OnceLock::new();
    TOKEN.get_or_init(|| {
        let token = Cancel::new();
        let on_signal = token.clone();
        // ctrlc handles the signal on its own thread, so the handler may do anything; if it
        // cannot be installed, Ctrl-C keeps its default effect (the process ends).
        let _ = ctrlc::set_handler(move || {
            if on_signal.is_cancelled() {
                std::process::exit(130);
            }
            eprintln!("quadstep: interrupted; stopping the scripts running (Ctrl-C again quits)");
            on_signal.cancel();
        });
        token
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_units() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert!(parse_size("4X").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999T").is_err());
    }
}
