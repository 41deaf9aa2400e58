//! The diagnostics pane: verifier and spirv-val messages for the selected step.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme::Theme;
use crate::app::state::{Focus, State};
use crate::pipeline::Severity;

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let diags = s.diagnostics_of(s.step);
    let focused = s.focus == Focus::Diagnostics;
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let title = super::text::title(
        &format!(
            "diagnostics: {errors} error{} of {}",
            if errors == 1 { "" } else { "s" },
            diags.len()
        ),
        "Enter: go to",
        area.width,
    );
    let block = t.pane(focused).title(Span::styled(title, t.title));
    let rows = area.height.saturating_sub(2) as usize;
    let width = area.width.saturating_sub(2) as usize;
    let cursor = s.diags.cursor.min(diags.len().saturating_sub(1));
    // Each diagnostic wrapped whole (a long one reads on the rows under it, indented); the
    // selected one kept in view with those before it that fit.
    let wrapped: Vec<Vec<String>> = diags.iter().map(|d| wrap(&text(d), width)).collect();
    let mut first = cursor;
    let mut used = wrapped.get(cursor).map_or(0, Vec::len);
    while first > 0 && used + wrapped[first - 1].len() <= rows {
        first -= 1;
        used += wrapped[first].len();
    }
    let mut lines: Vec<Line> = Vec::with_capacity(rows);
    for (i, (d, rows_of)) in diags.iter().zip(&wrapped).enumerate().skip(first) {
        let style = match d.severity {
            Severity::Error => t.error,
            Severity::Warning => t.changed,
            Severity::Note => t.unchanged,
        };
        let sev_len = severity(d).len();
        for (k, row) in rows_of.iter().enumerate() {
            let line = if k == 0 {
                let (sev, rest) = row.split_at(sev_len.min(row.len()));
                Line::from(vec![
                    Span::styled(sev.to_string(), style),
                    Span::styled(rest.to_string(), t.text),
                ])
            } else {
                Line::styled(row.clone(), t.text)
            };
            lines.push(if focused && i == cursor {
                line.style(t.selected)
            } else {
                line
            });
        }
        if lines.len() >= rows {
            break;
        }
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn severity(d: &crate::pipeline::Diagnostic) -> &'static str {
    match d.severity {
        Severity::Error => "error ",
        Severity::Warning => "warning ",
        Severity::Note => "note ",
    }
}

/// A diagnostic as one line of text: severity, where, message.
fn text(d: &crate::pipeline::Diagnostic) -> String {
    let at = match (&d.place, d.function, d.at) {
        (Some(place), _, _) => format!("{place}: "),
        (None, _, Some(at)) => format!("%{at}: "),
        (None, Some(f), None) => format!("in %{f}: "),
        _ => String::new(),
    };
    format!("{}{at}{}", severity(d), d.message)
}

/// `text` in rows of `width` characters, broken at spaces, the rows after the first indented
/// by two.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut rows = Vec::new();
    let mut row = String::new();
    // Whether the row holds nothing but its indent.
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && row.chars().count() + 1 + word.chars().count() > width {
            rows.push(std::mem::replace(&mut row, "  ".to_string()));
            empty = true;
        }
        if !empty {
            row.push(' ');
        }
        row.push_str(word);
        empty = false;
        while row.chars().count() > width {
            let head: String = row.chars().take(width).collect();
            let tail: String = row.chars().skip(width).collect();
            rows.push(head);
            row = format!("  {tail}");
        }
    }
    rows.push(row);
    rows
}

/// Rows (up to `MAX_ROWS`) the diagnostics of the selected step take wrapped at `width` columns (inside the
/// borders), for the layout.
pub fn rows_needed(s: &State, width: u16) -> usize {
    let width = width.saturating_sub(2) as usize;
    // The pane shows at most a few rows: a step with thousands of diagnostics is not wrapped
    // whole for every frame.
    let mut rows = 0;
    for d in s.diagnostics_of(s.step) {
        rows += wrap(&text(d), width).len();
        if rows >= MAX_ROWS {
            break;
        }
    }
    rows
}

/// The most rows the pane takes.
pub const MAX_ROWS: usize = 8;

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn long_diagnostics_wrap_indented() {
        assert_eq!(wrap("error a bb ccc", 8), vec!["error a", "  bb ccc"]);
        assert_eq!(wrap("short", 20), vec!["short"]);
        let rows = wrap("error x123456789012345", 8);
        assert!(rows.iter().all(|r| r.chars().count() <= 8), "{rows:?}");
        assert_eq!(rows.concat().replace(' ', ""), "errorx123456789012345");
    }
}
