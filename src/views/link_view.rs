//! The link view: the interface between the linked stages of a pipeline at the selected step
//! — each slot's type, interpolation, writer and reader, and what linking made of it.

use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Cell, Row, Table};
use ratatui::Frame;

use super::theme::Theme;
use crate::app::state::{Focus, State};
use crate::pipeline::link::stages::{InterfaceRow, RowStatus};

fn side(s: &State, v: &Option<(usize, String)>) -> String {
    match v {
        Some((usize::MAX, what)) => format!("({what})"),
        Some((stage, name)) => {
            let file = s
                .docs
                .get(*stage)
                .and_then(|d| d.path.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{name} @{file}")
        }
        None => "—".into(),
    }
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let rows: &[InterfaceRow] = &s.link.table;
    let focused = s.focus == Focus::Link;
    let step = s
        .run()
        .and_then(|r| r.steps.get(s.step))
        .map_or("", |st| st.pass);
    let title = super::text::title(
        &format!(
            "link view at {step}: {} slot{}",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" }
        ),
        "Enter: writer, o: reader",
        area.width,
    );
    let block = t.pane(focused).title(Span::styled(title, t.title));
    let visible = area.height.saturating_sub(3) as usize;
    // On a narrow pane the type and interpolation go, so that who writes and who reads each
    // slot, and what became of it, stay readable.
    let narrow = area.width < 110;
    let cursor = s.link.cursor.min(rows.len().saturating_sub(1));
    let first = cursor.saturating_sub(visible.saturating_sub(1));
    let body: Vec<Row> = rows
        .iter()
        .enumerate()
        .skip(first)
        .take(visible)
        .map(|(i, r)| {
            let style = match r.status {
                RowStatus::Mismatch | RowStatus::Unwritten => t.error,
                RowStatus::Dead | RowStatus::Removed | RowStatus::Constant => t.changed,
                RowStatus::Glued | RowStatus::AddedByGlue => t.title,
                RowStatus::Matched | RowStatus::FixedFunction => t.text,
            };
            let mut cells = vec![
                Cell::from(Span::styled(r.edge.clone(), t.base)),
                Cell::from(Span::styled(r.slot.to_string(), t.text)),
            ];
            if !narrow {
                cells.push(Cell::from(Span::styled(r.ty.clone(), t.text)));
                cells.push(Cell::from(Span::styled(r.interpolation.clone(), t.base)));
            }
            cells.extend([
                Cell::from(Span::styled(side(s, &r.writer), t.text)),
                Cell::from(Span::styled(side(s, &r.reader), t.text)),
                Cell::from(Span::styled(r.status.label(), style)),
            ]);
            let row = Row::new(cells);
            if focused && i == cursor {
                row.style(t.selected)
            } else {
                row
            }
        })
        .collect();
    let (header, widths) = if narrow {
        (
            vec!["edge", "slot", "writer", "reader", "status"],
            vec![
                Constraint::Length(13),
                Constraint::Length(12),
                Constraint::Fill(1),
                Constraint::Fill(1),
                Constraint::Length(14),
            ],
        )
    } else {
        (
            vec![
                "edge", "slot", "type", "interp", "writer", "reader", "status",
            ],
            vec![
                Constraint::Length(13),
                Constraint::Length(24),
                Constraint::Length(9),
                Constraint::Length(7),
                Constraint::Fill(1),
                Constraint::Fill(1),
                Constraint::Length(14),
            ],
        )
    };
    let header = Row::new(header).style(t.title);
    frame.render_widget(Table::new(body, widths).header(header).block(block), area);
}
