//! The shader browser (`views::browser`): which input is selected, by key, by name or by a
//! click in the list; folders folded and unfolded; the order within folders; and which
//! shaders keep their steps (the selected ones, the newest first: `STEPS_KEPT` of them).

use super::Effect;
use crate::app::action::Action;
use crate::app::state::{Against, BrowserRow, Focus, SortBy, State, STEPS_KEPT};
use crate::app::tree::{failing, folders_of};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::NextInput => next_doc(s, 1),
        Action::PrevInput => next_doc(s, -1),
        Action::NextFailing(forward) => next_failing(s, forward),
        Action::Fold => fold(s),
        Action::Unfold => unfold(s),
        Action::Open => match s.browser.on_folder.clone() {
            Some(key) => toggle_fold(s, key),
            None => s.focus = Focus::Passes,
        },
        Action::Sort(by) => {
            let by = by.unwrap_or(match s.browser.sort {
                SortBy::Name => SortBy::Status,
                SortBy::Status => SortBy::Size,
                SortBy::Size => SortBy::Time,
                SortBy::Time => SortBy::Name,
            });
            s.browser.sort = by;
            s.set_message(format!(
                "shaders by {} in each folder{}",
                by.name(),
                match by {
                    SortBy::Name => "",
                    SortBy::Status => ", failing first",
                    SortBy::Size => ", largest output first",
                    SortBy::Time => ", slowest run first",
                }
            ));
        }
        Action::Shader(name) => {
            // A shader the filter hides is still found: the filter goes.
            let named = |s: &State| {
                s.listed_docs()
                    .into_iter()
                    .any(|i| s.docs[i].display_name(&s.roots).contains(&name))
            };
            if !s.browser.filter.is_empty() && !named(s) {
                s.browser.filter.clear();
            }
            let listed = s.listed_docs();
            let found = listed
                .iter()
                .copied()
                .find(|&i| s.docs[i].display_name(&s.roots) == name)
                .or_else(|| {
                    listed
                        .iter()
                        .copied()
                        .find(|&i| s.docs[i].display_name(&s.roots).contains(&name))
                });
            match found {
                Some(i) => {
                    reveal(s, i);
                    select_doc(s, i);
                }
                None => s.set_error(format!("no shader named like '{name}'")),
            }
        }
        Action::Filter(text) => {
            filter(s, text);
            let n = s.listed_docs().len();
            match (s.browser.filter.is_empty(), n) {
                (true, _) => s.set_message("every shader listed"),
                (false, 0) => s.set_error(format!("no shader named like '{}'", s.browser.filter)),
                (false, n) => s.set_message(format!(
                    "{n} of {} shaders named like '{}'",
                    s.docs.iter().filter(|d| d.present).count(),
                    s.browser.filter
                )),
            }
        }
        other => unreachable!("not an action of browser: {other:?}"),
    }
    Vec::new()
}

/// Lists only the shaders named like `text`; the selection moves to the first of them when
/// the filter hides the selected one (none listed: it stays).
pub(super) fn filter(s: &mut State, text: String) {
    s.browser.filter = text;
    let listed = s.listed_docs();
    if !listed.contains(&s.doc) {
        if let Some(&first) = listed.first() {
            select_doc(s, first);
        }
    }
}

/// Selects input `i`: the same step of its pipeline, from the top of the code. It keeps its
/// steps; the shader selected longest ago beyond `STEPS_KEPT` drops them (its summary stays).
pub(in crate::app) fn select_doc(s: &mut State, i: usize) {
    s.browser.on_folder = None;
    if s.doc == i {
        return;
    }
    let aligned = if s.linked { s.aligned_step(i) } else { None };
    let was = s.doc;
    s.doc = i;
    keep(s, was);
    keep(s, i);
    if let Some(step) = aligned {
        s.step = step;
    }
    s.diff.against = Against::Steps;
    s.func = None;
    s.code.cursor = 0;
    s.code.scroll = 0;
    s.code.hscroll = 0;
    s.diags.cursor = 0;
    let steps = s.step_count();
    s.step = s.step.min(steps.saturating_sub(1));
}

/// Puts input `i` first among those that keep their steps, and drops the steps of the one
/// that falls off the end.
fn keep(s: &mut State, i: usize) {
    let kept = &mut s.browser.kept;
    kept.retain(|&k| k != i);
    kept.push_front(i);
    if kept.len() <= STEPS_KEPT {
        return;
    }
    let Some(out) = kept.pop_back() else { return };
    if s.keeps_steps(out) {
        return;
    }
    let d = &mut s.docs[out];
    if d.run.is_none() && d.steps_token == 0 {
        return;
    }
    // Whatever derive keeps of it is keyed by its generation: a new one drops it too.
    d.run = None;
    d.prev_run = None;
    d.compare_run = None;
    d.streaming = None;
    d.steps_token = 0;
    d.generation += 1;
}

/// Folds the folder `key` when it is unfolded, else unfolds it; the cursor goes to it.
pub(super) fn toggle_fold(s: &mut State, key: crate::app::state::FolderKey) {
    if !s.browser.folded.remove(&key) {
        s.browser.folded.insert(key.clone());
    }
    s.browser.on_folder = Some(key);
}

/// Unfolds the folders input `i` is in, so that its row shows.
fn reveal(s: &mut State, i: usize) {
    for key in folders_of(s, i) {
        s.browser.folded.remove(&key);
    }
}

/// Moves the browser's cursor over its rows (folders and shaders): a shader's row selects it.
pub(super) fn move_doc(s: &mut State, delta: isize) {
    let (rows, _) = s.browser_tree();
    if rows.is_empty() {
        return;
    }
    let pos = s.browser_cursor_row() as isize;
    let next = (pos + delta).clamp(0, rows.len() as isize - 1) as usize;
    match &rows[next] {
        BrowserRow::Folder { key, .. } => s.browser.on_folder = Some(key.clone()),
        BrowserRow::Shader { doc, .. } => select_doc(s, *doc),
    }
}

/// Selects the next or previous listed shader (`]`, `[` outside the browser), into folded
/// folders too, which unfold.
fn next_doc(s: &mut State, delta: isize) {
    let listed = s.listed_docs();
    if listed.is_empty() {
        return;
    }
    let pos = listed.iter().position(|&d| d == s.doc).unwrap_or(0) as isize;
    let next = listed[(pos + delta).clamp(0, listed.len() as isize - 1) as usize];
    reveal(s, next);
    select_doc(s, next);
}

/// Selects the next or previous failing shader in the list, round the end.
fn next_failing(s: &mut State, forward: bool) {
    let listed = s.listed_docs();
    let pos = listed.iter().position(|&d| d == s.doc);
    let n = listed.len();
    let found = (1..=n).find_map(|k| {
        let at = match (pos, forward) {
            (Some(p), true) => (p + k) % n,
            (Some(p), false) => (p + n - k % n) % n,
            (None, true) => k - 1,
            (None, false) => n - k,
        };
        let d = listed[at];
        failing(s.docs[d].status()).then_some(d)
    });
    let failing_count = listed
        .iter()
        .filter(|&&d| failing(s.docs[d].status()))
        .count();
    match found {
        Some(d) => {
            reveal(s, d);
            select_doc(s, d);
            let at = listed
                .iter()
                .filter(|&&x| failing(s.docs[x].status()))
                .position(|&x| x == d)
                .map_or(0, |p| p + 1);
            let why = s.docs[d]
                .summary
                .as_ref()
                .and_then(|x| x.first_error.clone())
                .or_else(|| s.docs[d].error.clone())
                .unwrap_or_default();
            s.set_error(format!(
                "failing {at} of {failing_count}: {} {why}",
                s.docs[d].display_name(&s.roots)
            ));
        }
        None => s.set_message("no failing shader listed"),
    }
}

/// Folds the folder at the cursor; on a shader, or a folder folded already, the cursor goes
/// to the folder it is in.
fn fold(s: &mut State) {
    match s.browser.on_folder.clone() {
        Some(key) if !s.browser.folded.contains(&key) => {
            s.browser.folded.insert(key);
        }
        Some(key) => {
            // Its parent, when it has one.
            if let Some((parent, _)) = key.path.rsplit_once('/') {
                s.browser.on_folder = Some(crate::app::state::FolderKey {
                    root: key.root,
                    path: parent.to_string(),
                });
            }
        }
        None => {
            if let Some(parent) = folders_of(s, s.doc).pop() {
                s.browser.on_folder = Some(parent);
            }
        }
    }
}

/// Unfolds the folder at the cursor (on an unfolded one, the cursor goes to its first row).
fn unfold(s: &mut State) {
    let Some(key) = s.browser.on_folder.clone() else {
        return;
    };
    if !s.browser.folded.remove(&key) {
        move_doc(s, 1);
    }
}
