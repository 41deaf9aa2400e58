//! The control-flow graph pane, in place of the code: the drawing `derive` made of the
//! function at the selected step (or its diff against the base step), scrolled to the
//! selected block, which is highlighted.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme::Theme;
use crate::app::state::{Focus, State};
use crate::pipeline::cfg::{Mark, Tag};

fn style(tag: Tag, t: &Theme) -> Style {
    let marked = |m: Mark, same: Style| match m {
        Mark::Same => same,
        Mark::Added => t.added,
        Mark::Removed => t.removed,
        Mark::Changed => t.changed,
    };
    match tag {
        Tag::Blank => t.text,
        Tag::Box(m) => marked(m, t.border),
        Tag::Label(m) => marked(m, t.title),
        Tag::Edge(m) => marked(m, t.text),
        // Apart from the other edges: in the base step's colour, dim without colour.
        Tag::BackEdge(m) if t.color => marked(m, t.base),
        Tag::BackEdge(m) => marked(m, t.unchanged),
    }
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let focused = s.focus == Focus::Cfg;
    let Some(d) = &s.cfg.drawn else {
        let block = t.pane(focused).title(Span::styled("CFG", t.title));
        frame.render_widget(Paragraph::new("nothing to draw yet").block(block), area);
        return;
    };
    let keys = "Enter: code, d: diff, Space: fold, c: compact, x: close";
    let title = super::text::title(&d.title, keys, area.width);
    let block = t.pane(focused).title(Span::styled(title, t.title));
    if let Some(e) = &d.error {
        frame.render_widget(
            Paragraph::new(Span::styled(e.clone(), t.error)).block(block),
            area,
        );
        return;
    }
    let rows = area.height.saturating_sub(2) as usize;
    let selected = d.drawing.boxes.get(s.cfg.cursor).copied();
    let lines: Vec<Line> = d
        .drawing
        .rows
        .iter()
        .enumerate()
        .skip(s.cfg.scroll)
        .take(rows)
        .map(|(r, spans)| {
            // The selected box's rows stand out; the edges beside them do not.
            let in_box = selected.is_some_and(|(_, first, h)| r >= first && r < first + h);
            let mut skip = s.cfg.hscroll;
            let mut out = Vec::new();
            for (text, tag) in spans {
                let n = text.chars().count();
                if skip >= n {
                    skip -= n;
                    continue;
                }
                let shown: String = text.chars().skip(skip).collect();
                skip = 0;
                let mut st = style(*tag, t);
                if in_box && matches!(tag, Tag::Box(_) | Tag::Label(_)) {
                    st = st.patch(t.selected);
                }
                out.push(Span::styled(shown, st));
            }
            Line::from(out)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
