//! The help overlay, generated from the key map and the command table so it cannot drift.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::theme::Theme;
use crate::app::action::COMMANDS;
use crate::app::keymap::{Binding, Context};

pub fn draw(frame: &mut Frame, area: Rect, keymap: &[Binding], t: &Theme) {
    // Group keys that do the same thing: "j <Down>  down".
    let mut rows: Vec<(String, &str, Context)> = Vec::new();
    for b in keymap {
        let key = b.keys.replace("<lt>", "<");
        match rows
            .iter_mut()
            .find(|(_, h, c)| *h == b.help && *c == b.context)
        {
            Some(row) => {
                row.0.push(' ');
                row.0.push_str(&key);
            }
            None => rows.push((key, b.help, b.context)),
        }
    }
    let mut lines = vec![Line::styled("Keys", t.title)];
    for (ctx, title) in [
        (Context::Global, ""),
        (Context::Passes, "in the pass list"),
        (Context::Code, "in the code pane"),
        (Context::Diagnostics, "in the diagnostics pane"),
    ] {
        if !title.is_empty() {
            lines.push(Line::styled(format!("  {title}"), t.title));
        }
        for (keys, help, _) in rows.iter().filter(|r| r.2 == ctx) {
            lines.push(Line::from(vec![
                Span::styled(format!(" {keys:<16} "), t.base),
                Span::styled(help.to_string(), t.text),
            ]));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("Commands (:)", t.title));
    for (usage, help) in COMMANDS {
        lines.push(Line::from(vec![
            Span::styled(format!(" :{usage:<26}"), t.base),
            Span::styled(help.to_string(), t.text),
        ]));
    }
    // Flow the lines into as many columns as the screen height needs.
    let rows_fit = area.height.saturating_sub(2).max(1) as usize;
    let columns = lines.len().div_ceil(rows_fit).max(1);
    let col_width = 64u16;
    let height = (lines.len().min(rows_fit) as u16 + 2).min(area.height);
    let width = (col_width * columns as u16 + 2).min(area.width);
    let [_, mid, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(height),
        Constraint::Fill(1),
    ])
    .areas(area);
    let [_, rect, _] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(width),
        Constraint::Fill(1),
    ])
    .areas(mid);
    frame.render_widget(Clear, rect);
    let block = Block::bordered()
        .border_style(t.border_focus)
        .title(Span::styled(" help — Esc or ? to close ", t.title));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let cols = Layout::horizontal(vec![Constraint::Fill(1); columns]).split(inner);
    for (c, chunk) in lines.chunks(rows_fit).enumerate() {
        if let Some(r) = cols.get(c) {
            frame.render_widget(Paragraph::new(chunk.to_vec()), *r);
        }
    }
}
