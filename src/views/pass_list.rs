//! The pass list: one row per step with its changed marker, instruction delta and time.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

use super::theme::Theme;
use crate::app::action::ViewMode;
use crate::app::state::{Focus, State};

pub fn format_time(us: u128) -> String {
    if us >= 10_000_000 {
        format!("{}s", us / 1_000_000)
    } else if us >= 10_000 {
        format!("{}ms", us / 1000)
    } else if us >= 1000 {
        format!("{:.1}ms", us as f64 / 1000.0)
    } else {
        format!("{us}µs")
    }
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let focused = s.focus == Focus::Passes;
    let title = match s.run() {
        Some(r) => format!(" passes {}/{} ", s.visible_steps().len(), r.steps.len()),
        None => " passes ".to_string(),
    };
    let block = Block::bordered()
        .border_style(if focused { t.border_focus } else { t.border })
        .title(Span::styled(title, t.title));
    let Some(run) = s.run() else {
        let msg = match s.current().and_then(|d| d.error.as_deref()) {
            Some(e) => vec![
                Line::styled("cannot load:", t.error),
                Line::raw(e.to_string()),
            ],
            None => vec![Line::styled("loading…", t.unchanged)],
        };
        frame.render_widget(
            Paragraph::new(msg).wrap(Wrap { trim: false }).block(block),
            area,
        );
        return;
    };
    let inner_w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    let visible = s.visible_steps();
    let in_diff = matches!(s.view, ViewMode::Diff | ViewMode::Split);
    let mut lines = Vec::with_capacity(rows);
    for &i in visible.iter().skip(s.pass_scroll).take(rows) {
        let st = &run.steps[i];
        let (marker, mstyle) = if st.is_source() {
            ("≡", t.unchanged)
        } else if st.has_errors() || s.step_has_errors(i) {
            ("!", t.error)
        } else if st.changed {
            ("*", t.changed)
        } else {
            ("·", t.unchanged)
        };
        let delta = if i == 0 {
            String::new()
        } else {
            let d = st.inst_count as i64 - run.steps[i - 1].inst_count as i64;
            match d {
                0 => String::new(),
                d if d > 0 => format!("+{d}"),
                d => format!("{d}"),
            }
        };
        let time = if st.is_source() {
            String::new()
        } else {
            format_time(st.duration.as_micros())
        };
        let base = if in_diff && !s.diff_prev && i == s.base_step() && i != s.step {
            "◆"
        } else {
            " "
        };
        let name_w = inner_w.saturating_sub(4 + 2 + 1 + 7 + 8);
        let name: String = st.pass.chars().take(name_w).collect();
        let row_style = if i == s.step {
            t.selected
        } else {
            Style::new()
        };
        let name_style = if st.changed || st.has_errors() || st.is_source() {
            t.text
        } else {
            t.unchanged
        };
        lines.push(
            Line::from(vec![
                Span::styled(format!("{i:>3}"), t.gutter),
                Span::styled(base, t.base),
                Span::styled(format!("{marker} "), mstyle),
                Span::styled(format!("{name:<name_w$}"), name_style),
                Span::styled(
                    format!("{delta:>7}"),
                    if delta.starts_with('-') {
                        t.changed
                    } else {
                        t.unchanged
                    },
                ),
                Span::styled(format!("{time:>8}"), t.unchanged),
            ])
            .style(row_style),
        );
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
