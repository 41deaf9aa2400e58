//! The help overlay, generated from the key map and the command table so it cannot drift.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::theme::Theme;
use crate::app::action::COMMANDS;
use crate::app::keymap::{Binding, Context};

/// A bordered box of text lines centred over the screen.
pub fn popup(frame: &mut Frame, area: Rect, title: &str, lines: &[String], t: &Theme) {
    let width = (lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16 + 4)
        .max(title.chars().count() as u16 + 6)
        .min(area.width);
    // Long lines wrap: count the rows they take inside the borders.
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| (l.chars().count() + 1).div_ceil(inner).max(1))
        .sum();
    let height = (rows as u16 + 2).min(area.height);
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
        .title(Span::styled(format!(" {title} — Esc to close "), t.title));
    let text: Vec<Line> = lines
        .iter()
        .map(|l| Line::styled(format!(" {l}"), t.text))
        .collect();
    frame.render_widget(
        Paragraph::new(text)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .block(block),
        rect,
    );
}

/// The help text, generated from the key map and the command table.
pub fn lines(keymap: &[Binding], t: &Theme) -> Vec<Line<'static>> {
    // Group keys that do the same thing: "j <Down>  down".
    let mut rows: Vec<(String, &str, Context)> = Vec::new();
    for b in keymap {
        let key = b.keys.replace("<lt>", "<");
        match rows
            .iter_mut()
            .find(|(_, h, c)| *h == b.help.as_ref() && *c == b.context)
        {
            Some(row) => {
                row.0.push(' ');
                row.0.push_str(&key);
            }
            None => rows.push((key, b.help.as_ref(), b.context)),
        }
    }
    let mut lines = vec![Line::styled("Keys", t.title)];
    for (ctx, title) in [
        (Context::Global, ""),
        (Context::Passes, "in the pass list"),
        (Context::Code, "in the code pane"),
        (Context::Diagnostics, "in the diagnostics pane"),
        (Context::Values, "in the list of a value's uses or history"),
        (
            Context::Source,
            "in the source pane (j/k move the code pane to the line's code)",
        ),
        (Context::Shaders, "in the shader browser"),
        (Context::Link, "in the link view"),
        (Context::Help, "in this help"),
        (Context::Popup, "in an information box"),
        (Context::Prompt, "at the : or / prompt (other keys type)"),
    ] {
        if !title.is_empty() {
            lines.push(Line::styled(format!("  {title}"), t.title));
        }
        for (keys, help, _) in rows.iter().filter(|r| r.2 == ctx) {
            lines.push(Line::from(vec![
                Span::styled(format!(" {keys:<17}"), t.base),
                Span::styled(help.to_string(), t.text),
            ]));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("Commands (:)", t.title));
    for (usage, help) in COMMANDS {
        lines.push(Line::from(vec![
            Span::styled(format!(" :{usage:<27}"), t.base),
            Span::styled(help.to_string(), t.text),
        ]));
    }
    lines
}

/// Rows of help text the overlay shows at this screen height.
pub fn visible_rows(area_height: u16) -> usize {
    area_height.saturating_sub(4).max(1) as usize
}

pub fn draw(frame: &mut Frame, area: Rect, keymap: &[Binding], scroll: usize, t: &Theme) {
    let all = lines(keymap, t);
    let rows = visible_rows(area.height);
    let scroll = scroll.min(all.len().saturating_sub(rows));
    let shown: Vec<Line> = all.iter().skip(scroll).take(rows).cloned().collect();
    let height = (shown.len() as u16 + 2).min(area.height);
    let width = 82.min(area.width);
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
    let position = if all.len() > rows {
        format!(
            " {}–{} of {}, j/k to scroll",
            scroll + 1,
            scroll + shown.len(),
            all.len()
        )
    } else {
        String::new()
    };
    let block = Block::bordered()
        .border_style(t.border_focus)
        .title(Span::styled(
            format!(" help — Esc or ? to close{position} "),
            t.title,
        ));
    frame.render_widget(Paragraph::new(shown).block(block), rect);
}
