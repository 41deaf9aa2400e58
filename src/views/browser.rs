//! The shader browser: every shader opened or found under the watched directories, with its
//! status, stage and the instruction count of its pipeline's output.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme::Theme;
use crate::app::state::{DocStatus, Focus, State};

/// The first listed row shown, so that the selected shader is visible.
pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let focused = s.focus == Focus::Shaders;
    let listed = s.listed_docs();
    let running = listed.iter().filter(|&&i| s.docs[i].running()).count();
    let count = if s.browser.filter.is_empty() {
        listed.len().to_string()
    } else {
        let all = s.docs.iter().filter(|d| d.present).count();
        format!("{} of {all} /{}", listed.len(), s.browser.filter)
    };
    let title = if running > 0 {
        format!(" shaders {count} · {running} running ")
    } else {
        format!(" shaders {count} ")
    };
    let block = t.pane(focused).title(Span::styled(title, t.title));
    let inner_w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    if listed.is_empty() {
        let msg = if !s.browser.filter.is_empty() {
            vec![Line::styled("none named so (Esc: all)", t.unchanged)]
        } else if s.roots.is_empty() {
            vec![Line::styled("no shaders here yet", t.unchanged)]
        } else {
            // The directories were scanned when they were opened: say what was looked for.
            let roots: Vec<String> = s.roots.iter().map(|r| r.display().to_string()).collect();
            let extensions: Vec<String> = crate::app::workspace::SHADER_EXTENSIONS
                .iter()
                .map(|e| format!(".{e}"))
                .collect();
            vec![
                Line::styled(format!("no shaders under {}", roots.join(", ")), t.error),
                Line::styled("(a shader saved there shows here)", t.unchanged),
                Line::styled(
                    format!(
                        "looks for {}, not hidden or .gitignored",
                        extensions.join(" ")
                    ),
                    t.unchanged,
                ),
            ]
        };
        frame.render_widget(
            Paragraph::new(msg)
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(block),
            area,
        );
        return;
    }
    let first = s.browser_first_row(rows);
    // name, stage (5), count (6), status (8). Names come first: on a narrow column the
    // stage goes, then the count, and the status becomes a mark.
    let (mut stage_w, mut count_w, mut status_w) = (5, 6, 8);
    const NAME_MIN: usize = 16;
    let name_w = |st: usize, c: usize, l: usize| inner_w.saturating_sub(st + c + l + 1);
    if name_w(stage_w, count_w, status_w) < NAME_MIN {
        stage_w = 0;
    }
    if name_w(stage_w, count_w, status_w) < NAME_MIN {
        count_w = 0;
    }
    if name_w(stage_w, count_w, status_w) < NAME_MIN {
        status_w = 2;
    }
    let name_w = name_w(stage_w, count_w, status_w);
    let names: Vec<String> = listed
        .iter()
        .map(|&i| s.docs[i].display_name(&s.roots))
        .collect();
    let shown = first..(first + rows).min(listed.len());
    let short = super::text::shorten_apart(&names, shown.clone(), name_w);
    let mut lines = Vec::with_capacity(rows);
    for (&i, name) in listed[shown].iter().zip(short) {
        let d = &s.docs[i];
        let status = d.status();
        let style = match status {
            DocStatus::Ok => t.changed,
            DocStatus::Running => t.unchanged,
            DocStatus::CompileError | DocStatus::ValidationError => t.error,
        };
        let label = if status_w == 2 {
            status.mark()
        } else {
            status.label()
        };
        let stage = d.stage().unwrap_or_default();
        let count = d.output_count().map_or(String::new(), |c| c.to_string());
        let row_style = if i == s.doc { t.selected } else { Style::new() };
        let mut spans = vec![Span::styled(format!(" {name:<name_w$}"), t.text)];
        if stage_w > 0 {
            spans.push(Span::styled(format!("{stage:>stage_w$}"), t.gutter));
        }
        if count_w > 0 {
            spans.push(Span::styled(format!("{count:>count_w$}"), t.unchanged));
        }
        let label_w = status_w - 1;
        spans.push(Span::styled(format!(" {label:<label_w$}"), style));
        lines.push(Line::from(spans).style(row_style));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
