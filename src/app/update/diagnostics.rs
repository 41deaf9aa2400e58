//! The diagnostics pane (`views::diagnostics`): the selected diagnostic and going to what it is
//! about.

use super::code_view::{jump_to, show_whole_step};
use super::Effect;
use crate::app::action::Action;
use crate::app::state::{Focus, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::GotoDiagnostic => goto_diagnostic(s),
        other => unreachable!("not an action of diagnostics: {other:?}"),
    }
    Vec::new()
}

pub(super) fn move_diag(s: &mut State, delta: isize) {
    let n = s.diagnostics_of(s.step).len();
    if n > 0 {
        s.diags.cursor = (s.diags.cursor as isize + delta).clamp(0, n as isize - 1) as usize;
    }
}

/// Shows the instruction (or function) the selected diagnostic is about.
fn goto_diagnostic(s: &mut State) {
    let Some(run) = s.run().cloned() else { return };
    let diags = s.diagnostics_of(s.step);
    let Some(d) = diags
        .get(s.diags.cursor.min(diags.len().saturating_sub(1)))
        .map(|d| (*d).clone())
    else {
        s.set_error("no diagnostic selected");
        return;
    };
    let names = crate::ir::names::Names::for_module(&run.steps[s.step].module);
    let Some(id) = d.at.or(d.function) else {
        s.set_error("this diagnostic is about the whole module");
        return;
    };
    let target = format!("%{}", names.get(id));
    show_whole_step(s);
    match s.panel.row_defining(id) {
        Some(r) => {
            s.focus = Focus::Code;
            jump_to(s, r);
            s.set_message(format!("{target}: {}", d.message));
        }
        None => s.set_error(format!("{target} is not defined in this step")),
    }
}
