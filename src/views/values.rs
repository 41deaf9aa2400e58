//! The value list under the code: the uses of a value in the selected step (`u`), or its
//! history across the steps (`y`), as `update` derived it.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme::Theme;
use crate::app::state::{Focus, State, ValueListKind};

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let Some(list) = &s.values else { return };
    let focused = s.focus == Focus::Values;
    let n = list.entries.len();
    let plural = if n == 1 { "" } else { "s" };
    let (what, hint) = match list.kind {
        ValueListKind::Uses => (
            format!("{n} use{plural} of {}", list.name),
            "Enter goes to one, x closes",
        ),
        ValueListKind::History => (
            format!("history of {}: {n} event{plural}", list.name),
            "Enter goes to the step, x closes",
        ),
        ValueListKind::Sources => (
            format!("{n} source file{plural} of step {}", list.name),
            "Enter shows one in the source pane, x closes",
        ),
        ValueListKind::Live => (
            format!("{}: {n} value{plural}", list.name),
            "heaviest first; Enter goes to one, x closes",
        ),
        ValueListKind::Differing => (
            format!("{}: {n} invocation{plural} differ", list.name),
            "in the order they ran; Enter shows one's values, x closes",
        ),
        ValueListKind::Locals => (
            format!("{}: {n} variable{plural}", list.name),
            "Enter goes to the value, x closes",
        ),
        ValueListKind::Lost => (
            format!("{}: {n} source line{plural} lost", list.name),
            "Enter shows the code that went, x closes",
        ),
    };
    let title = super::text::title(&what, hint, area.width);
    let block = t.pane(focused).title(Span::styled(title, t.title));
    let rows = area.height.saturating_sub(2) as usize;
    let cursor = list.cursor.min(n.saturating_sub(1));
    let first = cursor.saturating_sub(rows.saturating_sub(1));
    let lines: Vec<Line> = if list.entries.is_empty() {
        vec![Line::styled("none", t.unchanged)]
    } else {
        list.entries
            .iter()
            .enumerate()
            .skip(first)
            .take(rows)
            .map(|(i, e)| {
                let line = Line::from(Span::styled(e.text.clone(), t.text));
                if i == cursor && (focused || e.step == s.step) {
                    line.style(t.selected)
                } else {
                    line
                }
            })
            .collect()
    };
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
