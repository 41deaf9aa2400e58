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
    if s.panel.is_empty() {
        return;
    }
    let rows = matching_rows(s, &search);
    let start = s.code.cursor;
    // The next match after the cursor (at it, for a new search), around the end.
    let next = if forward {
        let from = rows.partition_point(|&r| r < start + usize::from(!include_current));
        (from < rows.len()).then_some(from).map(|k| (k, false))
    } else {
        let to = rows.partition_point(|&r| r < start);
        to.checked_sub(1).map(|k| (k, false))
    };
    let next = next.or_else(|| match rows.len() {
        0 => None,
        _ if forward => Some((0, true)),
        n => Some((n - 1, true)),
    });
    match next {
        Some((k, wrapped)) => {
            jump_to(s, rows[k]);
            s.set_message(format!(
                "match {} of {}{}",
                k + 1,
                rows.len(),
                if wrapped { ", search wrapped" } else { "" }
            ));
        }
        None => s.set_error(format!("not found: {}", search.text)),
    }
}

/// The rows `search` stops at in the code pane, found once per panel and search.
fn matching_rows(s: &mut State, search: &Search) -> std::sync::Arc<Vec<usize>> {
    if let (Some((key, found, rows)), Some(panel)) = (&s.cache.search_rows, &s.panel.key) {
        if key == panel && found == search {
            return rows.clone();
        }
    }
    let rows: std::sync::Arc<Vec<usize>> = std::sync::Arc::new(
        (0..s.panel.len())
            .filter(|&r| row_matches(s, r, search))
            .collect(),
    );
    if let Some(panel) = s.panel.key.clone() {
        s.cache.search_rows = Some((panel, search.clone(), rows.clone()));
    }
    rows
}

/// Whether row `r` is one the search stops at: one whose instruction uses the value it walks
/// the uses of, else one whose text matches.
pub(super) fn row_matches(s: &State, r: usize, search: &Search) -> bool {
    match (search.uses_of, s.panel.row_line(r)) {
        (Some(id), Some((l, k))) if l.is_recorded() => l.info(k).uses.contains(&id),
        _ => !search_matches(s.panel.row_text(r), search).is_empty(),
    }
}
