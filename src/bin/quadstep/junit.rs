//! `quadstep amber --junit FILE`: the run's results as JUnit XML, the report format CI systems
//! (GitLab, Jenkins, GitHub actions that publish test results) read and merge across jobs.
//! One `<testsuite>` holds a `<testcase>` per script that ran: `classname` is the script's
//! folder below the argument it was found under (dotted, `amber` for a script directly
//! under it), `name` its file name, `time` its run time in seconds; a failure carries
//! `<failure message type=KIND>` with the whole detail as text, a skip `<skipped message>`.
//! Written by hand: a dozen lines of escaping do not need an XML writer.

use std::fmt::Write as _;
use std::path::Path;

use quadstep::amber::{ScriptResult, Status};

/// `s` with the five XML metacharacters escaped and the characters XML 1.0 cannot hold at
/// all (control characters other than tab, newline and carriage return) replaced by U+FFFD.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\t' | '\n' | '\r' => o.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => o.push('\u{FFFD}'),
            c => o.push(c),
        }
    }
    o
}

/// The JUnit document for `results`, each with the path below its argument (`rel`).
pub fn document(results: &[(&ScriptResult, String)], seconds: f64) -> String {
    let count = |f: fn(&Status) -> bool| results.iter().filter(|(r, _)| f(&r.status)).count();
    let failures = count(|s| matches!(s, Status::Fail { .. }));
    let skipped = count(|s| matches!(s, Status::Unsupported { .. }));
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites>\n<testsuite name=\"quadstep amber\" tests=\"{}\" failures=\"{failures}\" \
         errors=\"0\" skipped=\"{skipped}\" time=\"{seconds:.3}\">",
        results.len()
    );
    for (r, rel) in results {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
        let class = if dir.is_empty() {
            "amber".to_string()
        } else {
            dir.replace('/', ".")
        };
        let _ = write!(
            x,
            "  <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            escape(&class),
            escape(name),
            r.elapsed.as_secs_f64()
        );
        match &r.status {
            Status::Pass => x.push_str("/>\n"),
            Status::Fail { kind, message } => {
                let _ = writeln!(
                    x,
                    ">\n    <failure message=\"{}\" type=\"{}\">{}</failure>\n  </testcase>",
                    escape(first_line(message)),
                    kind.word(),
                    escape(message)
                );
            }
            Status::Unsupported { reason } => {
                let _ = writeln!(
                    x,
                    ">\n    <skipped message=\"{}\"/>\n  </testcase>",
                    escape(&reason.split_whitespace().collect::<Vec<_>>().join(" "))
                );
            }
        }
    }
    x.push_str("</testsuite>\n</testsuites>\n");
    x
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// Write the document to `path`; the error names the path.
pub fn write(path: &Path, results: &[(&ScriptResult, String)], seconds: f64) -> Result<(), String> {
    std::fs::write(path, document(results, seconds))
        .map_err(|e| format!("--junit {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_drops_what_xml_cannot_hold() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{1}\n"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\u{FFFD}\n"
        );
    }
}
