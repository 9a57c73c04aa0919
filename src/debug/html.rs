//! The trace as one self-contained HTML page (`quadstep debug --html FILE`): the pixel's
//! neighbourhood zoomed in, the quad's four lanes side by side, the step table, what each
//! image instruction read and, under it, a collapsed table of what the sampler did in each
//! lane (level of detail, levels, texels, comparisons, weights). No server, no network: the page is `page.html` with the JSON
//! objects of [`super::json`] embedded, and its own script draws everything.

use super::{json, Report, Trace};

/// The page's template: `/*TRACE*/` stands for the JSON array.
const PAGE: &str = include_str!("page.html");

/// The page for `trace`.
pub fn page(report: &Report, trace: &Trace) -> String {
    let mut objects = vec![json::header(report, trace)];
    objects.extend(trace.steps.iter().map(json::step));
    objects.push(json::result(trace));
    // `</script>` or `<!--` inside a string would change how the script element parses: `<`
    // only occurs inside JSON strings, where `\u003c` means the same
    let data = serde_json::Value::Array(objects)
        .to_string()
        .replace('<', "\\u003c");
    PAGE.replacen("/*TRACE*/", &data, 1)
}
