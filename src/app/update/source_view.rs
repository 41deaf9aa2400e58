//! The source pane (`views::source_view`): showing it, stepping out through the inlined callers,
//! and opening the source line in the user's editor.

use super::code_view::jump_to;
use super::Effect;
use crate::app::action::Action;
use crate::app::state::{Focus, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        // The pane is what it says: no message, so hiding it gives back the screen as it was.
        Action::SourcePane(on) => {
            s.source.shown = on.unwrap_or(!s.source.shown);
            if !s.source.shown && s.focus == Focus::Source {
                s.focus = Focus::Code;
            }
        }
        Action::Bands(on) => {
            s.source.bands = on.unwrap_or(!s.source.bands);
            s.set_message(if s.source.bands {
                "colour bands: each source line and its code share a colour"
            } else {
                "colour bands off"
            });
        }
        Action::SourceCaller => {
            s.source.shown = true;
            s.source.frame += 1;
        }
        Action::EditSource => match crate::app::derive::cursor_source_path(s) {
            Ok((path, line)) => return vec![Effect::Edit { path, line }],
            Err(why) => s.set_error(why),
        },
        other => unreachable!("not an action of source_view: {other:?}"),
    }
    Vec::new()
}

/// Moves the source pane's line by `d` and the code pane to the first instruction of that line
/// at this step; a line without code at this step stays marked, and the status says so.
pub(super) fn move_line(s: &mut State, d: isize) {
    let Some(len) = s
        .source
        .file
        .as_ref()
        .and_then(|f| f.lines.as_ref())
        .map(|l| l.len())
    else {
        return;
    };
    let current = s.source.line.unwrap_or(1);
    let line = (current as isize)
        .saturating_add(d)
        .clamp(1, len.max(1) as isize) as usize;
    let source_step = s
        .run()
        .and_then(|r| r.steps.get(s.step))
        .is_some_and(|st| st.is_source());
    if source_step {
        // The code pane shows the source itself: the same line.
        if let Some(r) = (0..s.panel.len()).find(|&r| s.panel.line_number(r) == line) {
            jump_to(s, r);
        }
        return;
    }
    let Some(file) = s.source.file_id else {
        return;
    };
    let row = (0..s.panel.len()).find(|&r| {
        s.panel
            .row_line(r)
            .is_some_and(|(l, k)| l.info(k).source == Some((file, line as u32)))
    });
    match row {
        Some(r) => {
            jump_to(s, r);
            s.status.message = None;
        }
        None => s.set_message(format!(
            "line {line} has no code at this step{}",
            if s.step > 0 {
                " (removed, or never there)"
            } else {
                ""
            }
        )),
    }
    s.source.pinned = Some((file, line as u32, (s.doc, s.step, s.code.cursor)));
}
