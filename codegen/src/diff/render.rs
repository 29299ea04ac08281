//! A [`Report`] as Markdown: a summary table, then one section per changed service with one
//! line per changed shape or operation. Everything is in a fixed order, so two runs on the
//! same models print the same text.

use std::fmt::Write as _;

use super::change::kind_name;
use super::{HandWritten, Report, ServiceDiff, ShapeDiff};

/// How many names an item lists before it says how many more there are.
const NAMES_SHOWN: usize = 8;

/// The summary table and every service's section.
pub fn render(report: &Report) -> String {
    let sections: Vec<String> = report.changed.iter().map(service_section).collect();
    summary(report) + &sections.join("\n")
}

/// One row per changed service, then the unchanged, added and removed files.
pub fn summary(report: &Report) -> String {
    let mut out = if report.changed.is_empty() {
        String::from("No model differs.\n")
    } else {
        String::from(
            "| service | operations +/-/~ | shapes +/-/~ | hand-written operations affected |\n|---|---|---|---|\n",
        )
    };
    for s in &report.changed {
        let counts = |added: usize, removed: usize, changed: usize| format!("{added} / {removed} / {changed}");
        let hand_written = match &s.hand_written {
            Some(h) => format!(
                "{} of {} ({})",
                h.affected.len() + h.removed.len(),
                h.implemented,
                h.crate_dir
            ),
            None => "no service crate".to_string(),
        };
        let refused = if s.not_understood.is_empty() {
            ""
        } else {
            " (generator refuses it)"
        };
        let _ = writeln!(
            out,
            "| {}{refused} | {} | {} | {hand_written} |",
            s.sdk_id,
            counts(
                s.operations_added.len(),
                s.operations_removed.len(),
                s.operations_changed.len()
            ),
            counts(s.shapes_added.len(), s.shapes_removed.len(), s.shapes_changed.len()),
        );
    }
    out.push('\n');
    for (label, names) in [
        ("Unchanged", &report.unchanged),
        ("Only in the older set", &report.removed),
        ("Only in the newer set", &report.added),
    ] {
        if !names.is_empty() {
            let _ = writeln!(out, "{label} ({}): {}.\n", names.len(), names.join(", "));
        }
    }
    out
}

/// Everything that changed in one service.
pub fn service_section(s: &ServiceDiff) -> String {
    let mut out = format!("### {}\n\n", s.sdk_id);
    if s.is_empty() {
        out.push_str("Nothing the generator reads changed (documentation or traits it ignores only).\n");
        return out;
    }
    if !s.not_understood.is_empty() {
        out.push_str(
            "**Traits the generator does not understand** (`make generate` refuses the model until \
             `codegen/src/model.rs` handles or ignores them):\n",
        );
        for t in &s.not_understood {
            let _ = writeln!(out, "- `{}` on {}", t.id, shortened(&t.on));
        }
        out.push('\n');
    }
    if !s.service.is_empty() {
        let changes: Vec<String> = s.service.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "**Service shape**: {}\n", changes.join("; "));
    }
    name_list(&mut out, "Operations added", &s.operations_added);
    name_list(&mut out, "Operations removed", &s.operations_removed);
    shape_list(&mut out, "Operations changed", &s.operations_changed, false);
    name_list(&mut out, "Shapes added", &s.shapes_added);
    name_list(&mut out, "Shapes removed", &s.shapes_removed);
    shape_list(&mut out, "Shapes changed", &s.shapes_changed, true);
    if let Some(h) = &s.hand_written {
        hand_written(&mut out, h);
    }
    out
}

fn name_list(out: &mut String, label: &str, names: &[String]) {
    if !names.is_empty() {
        let _ = writeln!(out, "**{label}** ({}): {}\n", names.len(), names.join(", "));
    }
}

fn shape_list(out: &mut String, label: &str, shapes: &[ShapeDiff], with_kind: bool) {
    if shapes.is_empty() {
        return;
    }
    let _ = writeln!(out, "**{label}** ({}):", shapes.len());
    for shape in shapes {
        let changes: Vec<String> = shape.changes.iter().map(ToString::to_string).collect();
        let kind = if with_kind {
            format!(" ({})", kind_name(shape.kind))
        } else {
            String::new()
        };
        let _ = writeln!(out, "- `{}`{kind}: {}", shape.name, changes.join("; "));
    }
    out.push('\n');
}

fn hand_written(out: &mut String, h: &HandWritten) {
    if h.affected.is_empty() && h.removed.is_empty() {
        let _ = writeln!(
            out,
            "**Hand-written operations affected**: none of the {} that {} implements.",
            h.implemented, h.crate_dir
        );
        return;
    }
    let _ = writeln!(
        out,
        "**Hand-written operations affected** ({} of the {} that {} implements):",
        h.affected.len(),
        h.implemented,
        h.crate_dir
    );
    for a in &h.affected {
        let _ = writeln!(out, "- `{}`: {}", a.operation, shortened(&a.because));
    }
    if !h.removed.is_empty() {
        let _ = writeln!(
            out,
            "\n**Hand-written operations the newer model no longer has**: {}",
            h.removed.join(", ")
        );
    }
}

/// `a, b, c`, or the first [`NAMES_SHOWN`] and how many more.
fn shortened(names: &[String]) -> String {
    if names.len() <= NAMES_SHOWN {
        return names.join(", ");
    }
    format!(
        "{} and {} more",
        names[..NAMES_SHOWN].join(", "),
        names.len() - NAMES_SHOWN
    )
}
