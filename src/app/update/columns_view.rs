//! Several steps side by side (`views::columns_view`): opening them on the function at the
//! cursor, closing, scrolling. The window of steps follows the selected step (`J`/`K`).

use super::Effect;
use crate::app::action::Action;
use crate::app::derive::refresh_columns;
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
            let Some(function) = super::code_view::function_id_at_cursor(s) else {
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
            // The first change in view, as a diff opens at its first hunk.
            let first = s
                .columns
                .drawn
                .as_ref()
                .and_then(|d| d.same.iter().position(|&x| !x));
            s.columns.scroll = first.map_or(0, |r| r.saturating_sub(CONTEXT));
            s.set_message(format!(
                "{n} steps side by side, rows aligned by value, unchanged ones dim ({{ }}: changes, J/K: steps, x: close)"
            ));
        }
    }
    Vec::new()
}

/// Scrolls to the next (or previous) row that is not the same in every step, a few rows of
/// context above it (`}` and `{`).
pub(super) fn next_change(s: &mut State, forward: bool) {
    refresh_columns(s);
    let Some(d) = s.columns.drawn.clone() else {
        return;
    };
    // The row the view is on: the first changed row shown, past the context above it.
    let at = s.columns.scroll + CONTEXT;
    let changed = |r: &usize| !d.same[*r];
    let target = if forward {
        (at + 1..d.rows.len()).find(changed)
    } else {
        (0..at.min(d.rows.len())).rev().find(changed)
    };
    match target {
        Some(r) => s.columns.scroll = r.saturating_sub(CONTEXT),
        None if d.same.iter().all(|&x| x) => s.set_message("the steps shown are the same"),
        None => s.set_message(if forward {
            "no change further down"
        } else {
            "no change further up"
        }),
    }
}

/// Rows of context kept above a change scrolled to.
const CONTEXT: usize = 3;

/// Scrolls the rows by `delta`.
pub(super) fn scroll_columns(s: &mut State, delta: isize) {
    refresh_columns(s);
    let len = s.columns.drawn.as_ref().map_or(0, |d| d.rows.len());
    s.columns.scroll =
        (s.columns.scroll as isize + delta).clamp(0, len.saturating_sub(1) as isize) as usize;
}
