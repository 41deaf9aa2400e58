//! The source pane (`S`, `:source`): the source file of the instruction under the code cursor,
//! highlighted, its line marked `▶`. Everything it shows was derived before the draw
//! (`app::derive`); it only lays the rows out.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::code_view::{line_styles, styled};
use super::theme::Theme;
use crate::app::state::State;

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let pane = &s.source;
    let focused = s.focus == crate::app::state::Focus::Source;
    let block = t
        .pane(focused)
        .title(Span::styled(pane.title.clone(), t.title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines = pane.file.as_ref().and_then(|f| f.lines.as_ref());
    if let Some(note) = &pane.note {
        frame.render_widget(
            Paragraph::new(
                note.lines()
                    .map(|l| Line::styled(l.to_string(), t.unchanged))
                    .collect::<Vec<_>>(),
            )
            .wrap(Wrap { trim: false }),
            inner,
        );
        return;
    }
    let (Some(file), Some(lines)) = (&pane.file, lines) else {
        return;
    };
    let digits = lines.len().max(1).to_string().len().max(3);
    let width = (inner.width as usize).saturating_sub(digits + 2);
    let end = (pane.scroll + inner.height as usize).min(lines.len());
    let out: Vec<Line> = (pane.scroll..end)
        .map(|i| {
            let marked = pane.line == Some(i + 1);
            let mut spans = vec![Span::styled(format!("{:>digits$}", i + 1), t.gutter)];
            spans.push(if marked {
                Span::styled("▶", t.source_mark)
            } else {
                Span::styled(" ", t.gutter)
            });
            spans.push(Span::raw(" "));
            spans.extend(styled(
                &lines[i],
                &line_styles(s, file.text_id, i),
                &[],
                t.text,
                0,
                width,
            ));
            let mut line = Line::from(spans);
            // A line with code at this step has the band colour its code has (`:bands`).
            if s.source.bands && pane.code_lines.contains(&(i as u32 + 1)) {
                line = line.style(super::code_view::band_of(t, i as u32 + 1));
            }
            if marked {
                line.style(t.cursor_line)
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(out), inner);
}
