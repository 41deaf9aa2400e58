//! Several steps side by side, in place of the code: the function shown in each step, one
//! column a step, rows aligned by value identity (`pipeline::columns`). Rows the same in every
//! step are dim; a line that differs from the column before is marked as changed, one only
//! this column has as added; a column without the row shows a dot.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme::Theme;
use crate::app::state::{Focus, State};

/// `text` cut or padded to `width` characters.
fn fit(text: &str, width: usize) -> String {
    let mut out: String = text.chars().take(width).collect();
    let n = out.chars().count();
    out.extend(std::iter::repeat_n(' ', width - n));
    out
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let focused = s.focus == Focus::Columns;
    let Some(d) = &s.columns.drawn else {
        let block = t.pane(focused).title(Span::styled("columns", t.title));
        frame.render_widget(Paragraph::new("nothing to show yet").block(block), area);
        return;
    };
    let n = d.steps.len().max(1);
    let title = super::text::title(
        &format!(
            "%{} in steps {}–{}: {} rows, {} the same in all",
            d.name,
            d.steps.first().map_or(0, |x| x.0),
            d.steps.last().map_or(0, |x| x.0),
            d.rows.len(),
            d.same.iter().filter(|&&x| x).count()
        ),
        "J/K: steps, x: close",
        area.width,
    );
    let block = t.pane(focused).title(Span::styled(title, t.title));
    let inner = area.width.saturating_sub(2) as usize;
    // Columns and the bars between them.
    let width = (inner.saturating_sub(n - 1) / n).max(8);
    let rows = area.height.saturating_sub(3) as usize;
    let mut lines = Vec::with_capacity(rows + 1);
    let mut header = Vec::new();
    for (k, (step, pass)) in d.steps.iter().enumerate() {
        if k > 0 {
            header.push(Span::styled("│", t.border));
        }
        header.push(Span::styled(
            fit(&format!(" {step} {pass}"), width),
            t.title,
        ));
    }
    lines.push(Line::from(header));
    for (r, row) in d.rows.iter().enumerate().skip(s.columns.scroll).take(rows) {
        let same = d.same[r];
        let mut spans = Vec::new();
        for (k, cell) in row.iter().enumerate() {
            if k > 0 {
                spans.push(Span::styled("│", t.border));
            }
            let Some(i) = cell else {
                spans.push(Span::styled(fit("  ·", width), t.unchanged));
                continue;
            };
            let text = d.versions[k][*i].1.as_str();
            let style = if same {
                t.unchanged
            } else {
                match k.checked_sub(1).map(|p| row[p]) {
                    // First column, or the row as the column before has it.
                    None => t.text,
                    Some(Some(j)) if d.versions[k - 1][j].1.trim() == text.trim() => t.text,
                    Some(Some(_)) => t.changed,
                    Some(None) => t.added,
                }
            };
            spans.push(Span::styled(fit(text, width), style));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
