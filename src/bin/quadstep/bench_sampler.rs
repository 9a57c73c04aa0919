//! `quadstep bench sampler`: the texture unit alone over a matrix of cases. Without axis
//! options the matrix is the library's named cases (`quadstep::bench::sampler::cases`, the
//! ones `cargo bench --bench sampler` runs); any axis option switches to the generated
//! matrix, the product of the axes given (the others at their single defaults). `--case`
//! globs select among either. Measuring is rounds of every case in alternating order
//! (`quadstep::bench::rounds`); a case's round is `--warmup` untimed runs then
//! `--iterations` timed runs of its 64 quads, timed by the wall clock around the runs alone.

use std::process::ExitCode;
use std::time::Instant;

use quadstep::bench::rounds::order;
use quadstep::bench::sampler::{
    cases, glob_match, parse, Axes, Case, Names, ADDRESSES, ENTRIES, FILTERS, LODS, MIPS,
    SAMPLES_PER_RUN, VIEWS,
};
use quadstep::texture::Format;

use super::bench_report::{self, ReportArgs, Row};

#[derive(clap::Args)]
#[command(after_help = JSON_FIELDS)]
pub struct SamplerArgs {
    /// Only the cases whose names match GLOB (`*` any run of characters, `?` one
    /// character); repeatable (a case matching any is kept).
    #[arg(long = "case", value_name = "GLOB")]
    pub cases: Vec<String>,
    /// Print the selected cases' names, one a line, and measure nothing.
    #[arg(long)]
    pub list: bool,
    /// Texel formats (Vulkan names, e.g. R8G8B8A8_UNORM,R32G32B32A32_SFLOAT,D32_SFLOAT).
    /// Any axis option measures the generated matrix instead of the named cases.
    #[arg(long, value_delimiter = ',', value_name = "FORMAT[,..]", value_parser = parse_format)]
    pub format: Vec<Format>,
    /// View types: 1d, 1d_array, 2d, 2d_array, 3d, cube, cube_array (arrays: 4 layers, cube
    /// arrays: 2 cubes).
    #[arg(long, value_delimiter = ',', value_name = "VIEW[,..]", value_parser = axis(VIEWS))]
    pub view: Vec<quadstep::texture::ViewType>,
    /// Filters (minification and magnification alike): nearest, linear.
    #[arg(long, value_delimiter = ',', value_name = "FILTER[,..]", value_parser = axis(FILTERS))]
    pub filter: Vec<quadstep::texture::Filter>,
    /// Mipmap modes: mip_nearest, mip_linear.
    #[arg(long, value_delimiter = ',', value_name = "MIP[,..]", value_parser = axis(MIPS))]
    pub mip: Vec<quadstep::texture::MipmapMode>,
    /// Address modes (every axis alike): repeat, mirrored_repeat, clamp_to_edge,
    /// clamp_to_border, mirror_clamp_to_edge.
    #[arg(long, value_delimiter = ',', value_name = "MODE[,..]", value_parser = axis(ADDRESSES))]
    pub address: Vec<quadstep::texture::AddressMode>,
    /// LOD forms: implicit (uniform derivatives, 2.8 texels a pixel), varying (implicit,
    /// 0.5 to 5.7 texels a pixel from quad to quad), bias (implicit at 1 texel + bias 1.49),
    /// explicit (λ 1.49), grad (isotropic gradients, 2.8 texels), dref (implicit + depth
    /// compare; depth formats), offset (implicit + offset (1,-1)), gather (component 0).
    #[arg(long, value_delimiter = ',', value_name = "FORM[,..]", value_parser = axis(LODS))]
    pub lod: Vec<quadstep::bench::sampler::LodForm>,
    /// Texture sizes in texels (width = height, and depth for 3D), full mip chains.
    #[arg(long, value_delimiter = ',', value_name = "N[,..]",
          value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub size: Vec<u32>,
    /// Entries: quad (one quad a call, as `Kernel::sample`), batch (the interpreter's rows,
    /// `Kernel::sample_batch`; no grad).
    #[arg(long, value_delimiter = ',', value_name = "ENTRY[,..]", value_parser = axis(ENTRIES))]
    pub entry: Vec<quadstep::bench::sampler::Entry>,
    /// Timed runs of a case's 64 quads per round.
    #[arg(long, default_value_t = 1000, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub iterations: u64,
    /// Untimed runs before each round's timed ones.
    #[arg(long, default_value_t = 5, value_name = "W",
          value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    pub warmup: u64,
    /// Lavapipe's figures for the cases, beside quadstep's in the text, the JSON and the
    /// page: a JSON object {CASE: NS_PER_SAMPLE, ...} or {CASE: {"with": LVP, "without":
    /// LVP, "samples": N}, ...} with two `lvp` output lines (see README, "Benchmark it").
    #[arg(long, value_name = "FILE")]
    pub peer: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// The `--json` fields, for `--help`.
const JSON_FIELDS: &str = "JSON: one object per line for each case: case (its name), \
    rounds, iterations and warmup (runs of the case's 64 quads per round), \
    samples_per_iteration (256), timed_samples (rounds x iterations x 256), ns_per_sample \
    (median over the rounds of each round's time per sample), ns_min, ns_max (the spread of \
    the per-round figures), round_ns (each round's figure), samples_per_second (from the \
    median), clock (\"wall\"); with --peer: peer_ns_per_sample (lavapipe's); with --compare: \
    baseline_median, baseline_min, baseline_max, ratio, change (\"faster\", \"slower\", \"within noise\").\n\
    Timed region: the case's runs alone (each samples 64 quads through the texture unit's \
    public API; images, views, samplers and operands are built beforehand).\n\
    Exit status: 0 success; 1 --compare found a case slower; 2 usage or input error (bad \
    arguments, no case selected, an unreadable --compare/--peer/--from file); 3 internal \
    error.";

fn parse_format(s: &str) -> Result<Format, String> {
    Format::from_vk_name(s).map_err(|e| e.to_string())
}

/// A clap value parser for the axis named by `table`.
fn axis<T: Copy + Send + Sync + 'static>(
    table: Names<T>,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |s| {
        parse(table, s).ok_or_else(|| {
            let all: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            format!("expected one of {}", all.join(", "))
        })
    }
}

impl SamplerArgs {
    /// The generated matrix's axes, or `None` when no axis option was given.
    fn axes(&self) -> Option<Axes> {
        fn or<T: Clone>(given: &[T], default: Vec<T>) -> Vec<T> {
            if given.is_empty() {
                default
            } else {
                given.to_vec()
            }
        }
        let d = Axes::default();
        let given = !(self.format.is_empty()
            && self.view.is_empty()
            && self.filter.is_empty()
            && self.mip.is_empty()
            && self.address.is_empty()
            && self.lod.is_empty()
            && self.size.is_empty()
            && self.entry.is_empty());
        given.then(|| Axes {
            formats: or(&self.format, d.formats),
            views: or(&self.view, d.views),
            filters: or(&self.filter, d.filters),
            mips: or(&self.mip, d.mips),
            addresses: or(&self.address, d.addresses),
            lods: or(&self.lod, d.lods),
            sizes: or(&self.size, d.sizes),
            entries: or(&self.entry, d.entries),
        })
    }

    fn selected(&self, name: &str) -> bool {
        self.cases.is_empty() || self.cases.iter().any(|g| glob_match(g, name))
    }

    /// The selected cases that build and run once; those that do not are reported on
    /// stderr and left out.
    fn build(&self) -> Result<Vec<Case>, String> {
        let built: Vec<Case> = match self.axes() {
            None => cases()
                .map_err(|e| format!("the named cases: {e}"))?
                .into_iter()
                .filter(|c| self.selected(&c.name))
                .collect(),
            Some(axes) => {
                let specs: Vec<_> = axes
                    .matrix()
                    .into_iter()
                    .filter(|s| self.selected(&s.name()))
                    .collect();
                let mut v = Vec::new();
                for s in specs {
                    match s.case() {
                        Ok(c) => v.push(c),
                        Err(e) => eprintln!("quadstep bench sampler: skipped {}: {e}", s.name()),
                    }
                }
                v
            }
        };
        Ok(built
            .into_iter()
            .filter(|c| match c.run() {
                Ok(()) => true,
                Err(e) => {
                    eprintln!("quadstep bench sampler: skipped {}: {e}", c.name);
                    false
                }
            })
            .collect())
    }
}

/// Each case's per-round figures (ns per sample), rounds alternating in direction.
fn measure(cases: &[Case], a: &SamplerArgs, rounds: usize) -> Result<Vec<Vec<f64>>, String> {
    let mut figures = vec![Vec::with_capacity(rounds); cases.len()];
    let samples = (a.iterations * SAMPLES_PER_RUN) as f64;
    for r in 0..rounds {
        for i in order(r, cases.len()) {
            let c = &cases[i];
            let fail = |e: quadstep::Error| format!("{}: {e}", c.name);
            for _ in 0..a.warmup {
                c.run().map_err(fail)?;
            }
            let t0 = Instant::now();
            for _ in 0..a.iterations {
                c.run().map_err(fail)?;
            }
            figures[i].push(t0.elapsed().as_nanos() as f64 / samples);
        }
    }
    Ok(figures)
}

pub fn run(a: SamplerArgs) -> ExitCode {
    match run_inner(a) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("quadstep bench sampler: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(a: SamplerArgs) -> Result<ExitCode, String> {
    let rounds = a.report.rounds.unwrap_or(5) as usize;
    let peer = a.peer.as_deref().map(bench_report::peer).transpose()?;
    let base = a
        .report
        .compare
        .as_deref()
        .map(bench_report::baseline)
        .transpose()?;
    let mut rows = if let Some(from) = &a.report.from {
        bench_report::read_rows(from)?
            .into_iter()
            .filter(|r| r.unit == "ns/sample" && a.selected(&r.key))
            .collect()
    } else {
        let cases = a.build()?;
        if a.list {
            for c in &cases {
                println!("{}", c.name);
            }
            return Ok(ExitCode::SUCCESS);
        }
        let figures = measure(&cases, &a, rounds)?;
        cases
            .iter()
            .zip(figures)
            .map(|(c, f)| row(&a, &c.name, f, rounds))
            .collect::<Vec<Row>>()
    };
    if rows.is_empty() {
        return Err("no case selected".into());
    }
    if let Some(peer) = &peer {
        for r in &mut rows {
            if let (Some(ns), Some(o)) = (peer.get(&r.key), r.json.as_object_mut()) {
                o.insert("peer_ns_per_sample".into(), (*ns).into());
            }
        }
    }
    if !a.report.json {
        print_table(&rows);
    }
    let slower = base
        .as_ref()
        .is_some_and(|b| bench_report::apply_compare(&mut rows, b, a.report.json));
    if a.report.json {
        for r in &rows {
            println!("{}", r.json);
        }
    }
    if let Some(path) = &a.report.html {
        let title = "quadstep bench sampler";
        let page = super::bench_html::page(title, &rows);
        std::fs::write(path, page).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(if slower {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A measured case's row.
fn row(a: &SamplerArgs, case: &str, figures: Vec<f64>, rounds: usize) -> Row {
    let mut r = Row {
        key: case.to_string(),
        unit: "ns/sample",
        rounds: figures,
        times: Vec::new(),
        json: serde_json::Value::Null,
    };
    let s = r.spread();
    r.json = serde_json::json!({
        "case": case,
        "rounds": rounds,
        "iterations": a.iterations,
        "warmup": a.warmup,
        "samples_per_iteration": SAMPLES_PER_RUN,
        "timed_samples": rounds as u64 * a.iterations * SAMPLES_PER_RUN,
        "ns_per_sample": s.median,
        "ns_min": s.min,
        "ns_max": s.max,
        "round_ns": r.rounds,
        "samples_per_second": 1e9 / s.median,
        "clock": "wall",
    });
    r
}

fn print_table(rows: &[Row]) {
    let w = rows.iter().map(|r| r.key.len()).max().unwrap_or(4).max(4);
    let rounds = rows.first().map_or(0, |r| r.rounds.len());
    let peer = |r: &Row| r.json.get("peer_ns_per_sample").and_then(|p| p.as_f64());
    let any_peer = rows.iter().any(|r| peer(r).is_some());
    let figure = format!("ns/sample (median, min-max of {rounds} rounds)");
    println!(
        "{:w$}  {figure:40}  {:>10}{}",
        "case",
        "Msamples/s",
        if any_peer { "  lavapipe ns/sample" } else { "" }
    );
    for r in rows {
        let s = r.spread();
        let ns = format!("{:.2} ({:.2}-{:.2})", s.median, s.min, s.max);
        let peer = peer(r).map_or(String::new(), |p| format!("  {p:>18.2}"));
        println!("{:w$}  {ns:40}  {:>10.1}{peer}", r.key, 1e3 / s.median);
    }
}
