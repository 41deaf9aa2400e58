//! The shader browser: every shader opened or found under the watched directories, with its
//! status, stage and the instruction count of its pipeline's output.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::theme::Theme;
use crate::app::state::{DocStatus, Focus, State};

/// The first listed row shown, so that the selected shader is visible.
pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let focused = s.focus == Focus::Shaders;
    let listed = s.listed_docs();
    let running = listed.iter().filter(|&&i| s.docs[i].running()).count();
    let title = if running > 0 {
        format!(" shaders {} · {running} running ", listed.len())
    } else {
        format!(" shaders {} ", listed.len())
    };
    let block = Block::bordered()
        .border_style(if focused { t.border_focus } else { t.border })
        .title(Span::styled(title, t.title));
    let inner_w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    if listed.is_empty() {
        let msg = Line::styled("no shaders here yet", t.unchanged);
        frame.render_widget(Paragraph::new(msg).block(block), area);
        return;
    }
    let first = s.browser_first_row(rows);
    let mut lines = Vec::with_capacity(rows);
    for &i in listed.iter().skip(first).take(rows) {
        let d = &s.docs[i];
        let status = d.status();
        let (label, style) = match status {
            DocStatus::Ok => (status.label(), t.changed),
            DocStatus::Running => (status.label(), t.unchanged),
            DocStatus::CompileError | DocStatus::ValidationError => (status.label(), t.error),
        };
        let stage = d.stage().unwrap_or_default();
        let count = d.output_count().map_or(String::new(), |c| c.to_string());
        // name, stage (5), count (6), status (8)
        let name_w = inner_w.saturating_sub(5 + 6 + 8 + 1);
        let name = d.display_name(&s.roots);
        let name: String = if name.chars().count() > name_w {
            let tail: String = name
                .chars()
                .rev()
                .take(name_w.saturating_sub(1))
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            format!("…{tail}")
        } else {
            name
        };
        let row_style = if i == s.doc { t.selected } else { Style::new() };
        lines.push(
            Line::from(vec![
                Span::styled(format!(" {name:<name_w$}"), t.text),
                Span::styled(format!("{stage:>5}"), t.gutter),
                Span::styled(format!("{count:>6}"), t.unchanged),
                Span::styled(format!(" {label:<7}"), style),
            ])
            .style(row_style),
        );
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
