//! The link view of linked stages (`views::link_view`): showing it, its cursor, and going to a
//! row's variable in the stage that writes or reads it.

use super::browser::select_doc;
use super::code_view::{is_definition_row, jump_to, show_whole_step};
use super::Effect;
use crate::app::action::Action;
use crate::app::derive::refresh_link_table;
use crate::app::state::{Focus, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::LinkView => {
            if !s.linked {
                s.set_error("the link view needs linked stages: open them with --pipeline");
            } else {
                s.link.shown = !s.link.shown;
                s.focus = if s.link.shown {
                    Focus::Link
                } else if s.focus == Focus::Link {
                    Focus::Code
                } else {
                    s.focus
                };
            }
        }
        Action::LinkJump(reader) => link_jump(s, reader),
        other => unreachable!("not an action of link_view: {other:?}"),
    }
    Vec::new()
}

pub(super) fn move_link(s: &mut State, delta: isize) {
    refresh_link_table(s);
    let n = s.link.table.len();
    if n == 0 {
        return;
    }
    s.link.cursor = (s.link.cursor as isize + delta).clamp(0, n as isize - 1) as usize;
}

/// Shows the variable of the selected link view row in its stage: the writer (earlier stage)
/// or the reader (later stage), at the same step.
fn link_jump(s: &mut State, reader: bool) {
    refresh_link_table(s);
    let rows = &s.link.table;
    let Some(row) = rows
        .get(s.link.cursor.min(rows.len().saturating_sub(1)))
        .cloned()
    else {
        s.set_error("the link view has no rows");
        return;
    };
    let side = if reader { &row.reader } else { &row.writer };
    let (what, key) = if reader {
        ("reads", "Enter shows its writer")
    } else {
        ("writes", "o shows its reader")
    };
    // A side that is not in a stage says so, and the other stays where it is: going there
    // instead would answer another question than the one asked.
    let target = match side {
        Some((stage, name)) if *stage != usize::MAX => (*stage, name.clone()),
        Some((_, outside)) => {
            s.set_error(format!(
                "{} {}: {outside} {what} it, outside the stages ({key})",
                row.edge, row.slot
            ));
            return;
        }
        None => {
            s.set_error(format!("nothing {what} {} {} ({key})", row.edge, row.slot));
            return;
        }
    };
    let (stage, name) = target;
    select_doc(s, stage);
    match show_definition(s, &name) {
        Some(r) => {
            jump_to(s, r);
            let file = s.docs[stage].path.display().to_string();
            s.set_message(format!("{name} in {file} ({})", row.slot));
        }
        None => s.set_error(format!(
            "{name} is not in {} at this step (the link removed it)",
            s.docs[stage].path.display()
        )),
    }
}

/// Shows the whole text of the selected step (not a diff, no function filter) and returns the
/// row that defines `target` (`%name`), if the step has one.
fn show_definition(s: &mut State, target: &str) -> Option<usize> {
    show_whole_step(s);
    (0..s.panel.len()).find(|&r| is_definition_row(s.panel.row_text(r), target))
}
