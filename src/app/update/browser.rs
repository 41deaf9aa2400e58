//! The shader browser (`views::browser`): which input is selected, by key, by name or by a
//! click in the list.

use super::Effect;
use crate::app::action::Action;
use crate::app::state::State;

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::NextInput => move_doc(s, 1),
        Action::PrevInput => move_doc(s, -1),
        Action::Shader(name) => {
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
        other => unreachable!("not an action of browser: {other:?}"),
    }
    Vec::new()
}

/// Selects input `i`: the same step of its pipeline, from the top of the code.
pub(super) fn select_doc(s: &mut State, i: usize) {
    if s.doc == i {
        return;
    }
    let aligned = if s.linked { s.aligned_step(i) } else { None };
    s.doc = i;
    if let Some(step) = aligned {
        s.step = step;
    }
    s.diff_prev = false;
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
