//! Searching the code pane: `/` text, `n`/`N` to the next and previous match (or use, when the
//! search walks the uses of a value).

use super::code_view::jump_to;
use super::Effect;
use crate::app::action::Action;
use crate::app::derive::refresh_panel;
use crate::app::state::{search_matches, Focus, Search, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Find(text) => {
            s.search = Some(Search {
                text,
                whole_word: false,
                uses_of: None,
            });
            s.focus = Focus::Code;
            find(s, true, true);
        }
        Action::FindNext | Action::FindPrev => {
            if s.search.is_none() {
                s.set_error("no search: press / to search");
            } else {
                find(s, action == Action::FindNext, false);
            }
        }
        other => unreachable!("not an action of search: {other:?}"),
    }
    Vec::new()
}

fn find(s: &mut State, forward: bool, include_current: bool) {
    refresh_panel(s);
    let Some(search) = s.search.clone() else {
        return;
    };
    let n = s.panel.len();
    if n == 0 {
        return;
    }
    let start = s.code.cursor;
    for k in 0..n {
        let off = if include_current { k } else { k + 1 };
        let r = if forward {
            (start + off) % n
        } else {
            (start + n * 2 - off) % n
        };
        if row_matches(s, r, &search) {
            let wrapped = if forward {
                r < start || (r == start && !include_current)
            } else {
                r > start
            };
            jump_to(s, r);
            if wrapped {
                s.set_message("search wrapped");
            } else if s
                .message
                .as_ref()
                .is_some_and(|m| m.text == "search wrapped")
            {
                s.message = None;
            }
            return;
        }
    }
    s.set_error(format!("not found: {}", search.text));
}

/// Whether row `r` is one the search stops at: one whose instruction uses the value it walks
/// the uses of, else one whose text matches.
pub(super) fn row_matches(s: &State, r: usize, search: &Search) -> bool {
    match (search.uses_of, s.panel.row_line(r)) {
        (Some(id), Some((l, k))) if l.is_recorded() => l.info(k).uses.contains(&id),
        _ => !search_matches(s.panel.row_text(r), search).is_empty(),
    }
}
