//! `quadstep bench … --html FILE`: one self-contained page, one chart per row, drawn here as
//! inline SVG with inline CSS (no script, nothing fetched), and well-formed XML so tools can
//! read it. A sampler case's chart is a bar chart: quadstep's median ns per sample with the
//! min–max whisker of its rounds, beside the baseline's (`--compare`) and lavapipe's
//! (`--peer`) where given. A script draw's chart is the distribution of its timed
//! repetitions (a histogram of frame times) with the median marked, and the baseline's
//! median where `--compare` gave one.

use std::fmt::Write;

use super::bench_report::Row;

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}\
    h1{font-size:1.3em}.charts{display:flex;flex-wrap:wrap;gap:1em}\
    figure{margin:0;border:1px solid #ddd;border-radius:4px;padding:.5em}\
    figcaption{font:12px monospace;margin-bottom:.3em}\
    svg text{font:11px system-ui,sans-serif;fill:#222}\
    .q{fill:#3b6fb6}.b{fill:#9aa5b1}.p{fill:#d9822b}.w{stroke:#222;stroke-width:1.2}\
    .m{stroke:#c0392b;stroke-width:2}.bm{stroke:#555;stroke-width:1.5;stroke-dasharray:4 3}\
    .axis{stroke:#999;stroke-width:1}";

/// `<`, `>`, `&`, `"` escaped.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page: a heading, a note on what the charts show, a chart per row.
pub fn page(title: &str, rows: &[Row]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\
         <meta charset=\"utf-8\"/><title>{t}</title><style>{STYLE}</style></head>\n<body>\
         <h1>{t}</h1>\n",
        t = esc(title)
    );
    let note = if rows.iter().all(|r| r.unit == "ns/sample") {
        "Bars: median ns per sample over the rounds (lower is faster); whiskers: the \
         rounds' min–max."
    } else {
        "Histograms: the timed repetitions of each draw or dispatch (ms); red: the median \
         of the per-round medians."
    };
    let _ = writeln!(h, "<p>{}</p>\n<div class=\"charts\">", esc(note));
    for r in rows {
        let _ = writeln!(
            h,
            "<figure><figcaption>{}</figcaption>{}</figure>",
            esc(&r.key),
            if r.unit == "ns/sample" {
                bars(r)
            } else {
                histogram(r)
            }
        );
    }
    h.push_str("</div>\n</body>\n</html>\n");
    h
}

fn field(r: &Row, k: &str) -> Option<f64> {
    r.json.get(k).and_then(|v| v.as_f64())
}

/// Bars for quadstep, the baseline and lavapipe, on one scale from 0.
fn bars(r: &Row) -> String {
    let s = r.spread();
    // (label, class, value, whisker)
    type Bar = (&'static str, &'static str, f64, Option<(f64, f64)>);
    let mut b: Vec<Bar> = vec![("quadstep", "q", s.median, Some((s.min, s.max)))];
    if let Some(m) = field(r, "baseline_median") {
        let w = field(r, "baseline_min").zip(field(r, "baseline_max"));
        b.push(("baseline", "b", m, w));
    }
    if let Some(p) = field(r, "peer_ns_per_sample") {
        b.push(("lavapipe", "p", p, None));
    }
    let top = b
        .iter()
        .map(|&(_, _, v, w)| w.map_or(v, |w| w.1.max(v)))
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.08;
    let (x0, wbar, hrow) = (70.0, 300.0, 22.0);
    let height = 10.0 + hrow * b.len() as f64 + 18.0;
    let x = |v: f64| x0 + wbar * v.max(0.0) / top;
    let mut g = String::new();
    let _ = write!(
        g,
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"440\" \
         height=\"{height}\" viewBox=\"0 0 440 {height}\">"
    );
    for (i, &(label, class, v, w)) in b.iter().enumerate() {
        let y = 10.0 + hrow * i as f64;
        let _ = write!(
            g,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{label}</text>\
             <rect class=\"{class}\" x=\"{x0}\" y=\"{y}\" width=\"{:.1}\" height=\"{}\"/>",
            x0 - 6.0,
            y + 13.0,
            x(v) - x0,
            hrow - 6.0
        );
        if let Some((lo, hi)) = w {
            let yc = y + (hrow - 6.0) / 2.0;
            let _ = write!(
                g,
                "<line class=\"w\" x1=\"{:.1}\" y1=\"{yc}\" x2=\"{:.1}\" y2=\"{yc}\"/>\
                 <line class=\"w\" x1=\"{:.1}\" y1=\"{}\" x2=\"{:.1}\" y2=\"{}\"/>\
                 <line class=\"w\" x1=\"{:.1}\" y1=\"{}\" x2=\"{:.1}\" y2=\"{}\"/>",
                x(lo),
                x(hi),
                x(lo),
                yc - 4.0,
                x(lo),
                yc + 4.0,
                x(hi),
                yc - 4.0,
                x(hi),
                yc + 4.0
            );
        }
        let _ = write!(
            g,
            "<text x=\"{:.1}\" y=\"{}\">{}</text>",
            x(w.map_or(v, |w| w.1.max(v))) + 4.0,
            y + 13.0,
            fmt(v)
        );
    }
    let ya = height - 16.0;
    let _ = write!(
        g,
        "<line class=\"axis\" x1=\"{x0}\" y1=\"{ya}\" x2=\"{}\" y2=\"{ya}\"/>\
         <text x=\"{x0}\" y=\"{}\">0</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{} {}</text>\
         </svg>",
        x0 + wbar,
        ya + 13.0,
        x0 + wbar,
        ya + 13.0,
        fmt(top),
        r.unit
    );
    g
}

/// A value with three significant digits or so.
fn fmt(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A histogram of the repetitions' times in 24 bins over their range, the median marked.
fn histogram(r: &Row) -> String {
    const BINS: usize = 24;
    let (x0, w, h) = (10.0, 400.0, 90.0);
    let times = if r.times.is_empty() {
        &r.rounds
    } else {
        &r.times
    };
    let lo = times.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = (hi - lo).max(hi.abs() * 1e-6).max(1e-12);
    let mut count = [0usize; BINS];
    for &t in times {
        count[(((t - lo) / span * BINS as f64) as usize).min(BINS - 1)] += 1;
    }
    let most = count.iter().copied().max().unwrap_or(1).max(1) as f64;
    let x = |t: f64| x0 + w * ((t - lo) / span).clamp(0.0, 1.0);
    let mut g = String::new();
    let _ = write!(
        g,
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" \
         height=\"{}\" viewBox=\"0 0 420 {}\">",
        h + 40.0,
        h + 40.0
    );
    let bw = w / BINS as f64;
    for (i, &c) in count.iter().enumerate() {
        let bh = h * c as f64 / most;
        let _ = write!(
            g,
            "<rect class=\"q\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bh:.1}\"/>",
            x0 + bw * i as f64 + 0.5,
            10.0 + h - bh,
            bw - 1.0
        );
    }
    let m = r.spread().median;
    let _ = write!(
        g,
        "<line class=\"m\" x1=\"{:.1}\" y1=\"6\" x2=\"{:.1}\" y2=\"{}\"/>",
        x(m),
        x(m),
        10.0 + h
    );
    if let Some(b) = field(r, "baseline_median") {
        let _ = write!(
            g,
            "<line class=\"bm\" x1=\"{:.1}\" y1=\"6\" x2=\"{:.1}\" y2=\"{}\"/>",
            x(b),
            x(b),
            10.0 + h
        );
    }
    let ya = 10.0 + h;
    let _ = write!(
        g,
        "<line class=\"axis\" x1=\"{x0}\" y1=\"{ya}\" x2=\"{}\" y2=\"{ya}\"/>\
         <text x=\"{x0}\" y=\"{}\">{} ms</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">median {} ms, {} repetitions</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{} ms</text></svg>",
        x0 + w,
        ya + 14.0,
        fmt(lo),
        x0 + w / 2.0,
        ya + 28.0,
        fmt(m),
        times.len(),
        x0 + w,
        ya + 14.0,
        fmt(hi)
    );
    g
}
