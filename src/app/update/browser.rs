//! The shader browser (`views::browser`): which input is selected, by key, by name or by a
//! click in the list.

use super::Effect;
use crate::app::action::Action;
use crate::app::state::{Against, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::NextInput => move_doc(s, 1),
        Action::PrevInput => move_doc(s, -1),
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
                Some(i) => select_doc(s, i),
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

/// Selects input `i`: the same step of its pipeline, from the top of the code.
pub(in crate::app) fn select_doc(s: &mut State, i: usize) {
    if s.doc == i {
        return;
    }
    let aligned = if s.linked { s.aligned_step(i) } else { None };
    s.doc = i;
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

/// Moves the selection in the shader browser (in display order).
pub(super) fn move_doc(s: &mut State, delta: isize) {
    let listed = s.listed_docs();
    if listed.is_empty() {
        return;
    }
    let pos = listed.iter().position(|&d| d == s.doc).unwrap_or(0) as isize;
    let next = (pos + delta).clamp(0, listed.len() as isize - 1) as usize;
    select_doc(s, listed[next]);
}
