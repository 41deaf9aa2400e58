//! Several steps side by side (`views::columns_view`): opening them on the function at the
//! cursor, closing, scrolling. The window of steps follows the selected step (`J`/`K`).

use super::Effect;
use crate::app::action::Action;
use crate::app::derive::{refresh_columns, refresh_panel};
use crate::app::state::{Focus, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    let Action::Columns(n) = action else {
        unreachable!("not an action of columns_view: {action:?}")
    };
    match n {
        None => {
            s.columns.shown = false;
            if s.focus == Focus::Columns {
                s.focus = Focus::Code;
            }
        }
        Some(n) => {
            refresh_panel(s);
            let Some(function) = s
                .panel
                .row_line(s.code.cursor)
                .and_then(|(l, k)| l.info(k).func)
            else {
                s.set_error("the cursor is not inside a function: put it in one for :columns");
                return Vec::new();
            };
            s.cfg.shown = false;
            s.columns.shown = true;
            s.columns.n = n;
            if s.columns.function != Some(function) {
                s.columns.scroll = 0;
            }
            s.columns.function = Some(function);
            s.focus = Focus::Columns;
            refresh_columns(s);
            s.set_message(format!(
                "the function at the cursor in {n} steps from the selected one, rows aligned by value; unchanged rows dim (J/K move the steps, x closes)"
            ));
        }
    }
    Vec::new()
}

/// Scrolls the rows by `delta`.
pub(super) fn scroll_columns(s: &mut State, delta: isize) {
    refresh_columns(s);
    let len = s.columns.drawn.as_ref().map_or(0, |d| d.rows.len());
    s.columns.scroll =
        (s.columns.scroll as isize + delta).clamp(0, len.saturating_sub(1) as isize) as usize;
}
