//! The diagnostics pane: verifier and spirv-val messages for the selected step.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
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
    let title = format!(
        " diagnostics: {errors} error{} of {} (Tab, Enter to go to) ",
        if errors == 1 { "" } else { "s" },
        diags.len()
    );
    let block = Block::bordered()
        .border_style(if focused { t.border_focus } else { t.border })
        .title(Span::styled(title, t.title));
    let rows = area.height.saturating_sub(2) as usize;
    let cursor = s.diags.cursor.min(diags.len().saturating_sub(1));
    let first = cursor.saturating_sub(rows.saturating_sub(1));
    let lines: Vec<Line> = diags
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, d)| {
            let sev = match d.severity {
                Severity::Error => Span::styled("error ", t.error),
                Severity::Warning => Span::styled("warning ", t.changed),
                Severity::Note => Span::styled("note ", t.unchanged),
            };
            let at = match (&d.place, d.function, d.at) {
                (Some(place), _, _) => format!("{place}: "),
                (None, _, Some(at)) => format!("%{at}: "),
                (None, Some(f), None) => format!("in %{f}: "),
                _ => String::new(),
            };
            let line = Line::from(vec![
                sev,
                Span::styled(at, t.base),
                Span::styled(d.message.clone(), t.text),
            ]);
            if focused && i == cursor {
                line.style(t.selected)
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
