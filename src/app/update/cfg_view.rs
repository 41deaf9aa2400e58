//! The control-flow graph pane (`views::cfg_view`): opening it on the function at the cursor,
//! diffing, compacting and folding, moving between its blocks, and going from a block to its
//! code.

use super::code_view::{function_id_at_cursor, jump_to, show_whole_step};
use super::Effect;
use crate::app::action::{Action, CfgArg};
use crate::app::derive::refresh_cfg;
use crate::app::state::{Focus, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    let Action::Cfg(arg) = action else {
        unreachable!("not an action of cfg_view: {action:?}")
    };
    match arg {
        CfgArg::Toggle if s.cfg.shown => close(s),
        CfgArg::Toggle => open(s),
        CfgArg::Off => close(s),
        _ if !s.cfg.shown => {
            s.set_error("the control-flow graph is not shown: C or :cfg shows it");
        }
        CfgArg::Diff => {
            s.cfg.diff = !s.cfg.diff;
            refresh_cfg(s);
            if let Some(d) = &s.cfg.drawn {
                s.set_message(d.title.clone());
            }
        }
        CfgArg::Compact => {
            s.cfg.compact = !s.cfg.compact;
            keep_cursor(s);
        }
        CfgArg::Fold => fold(s),
        CfgArg::Goto => goto(s),
    }
    Vec::new()
}

/// Opens the graph of the function at the code cursor (or the only function shown).
fn open(s: &mut State) {
    let Some(function) = function_id_at_cursor(s) else {
        s.set_error("the cursor is not inside a function: put it in one and press C again");
        return;
    };
    if s.cfg.function != Some(function) {
        s.cfg.folded.clear();
        s.cfg.cursor = 0;
        s.cfg.scroll = 0;
    }
    s.cfg.function = Some(function);
    s.cfg.shown = true;
    s.cfg.hscroll = 0;
    s.focus = Focus::Cfg;
    refresh_cfg(s);
    if let Some(d) = &s.cfg.drawn {
        let said = match &d.error {
            Some(e) => e.clone(),
            None => "the graph of the function at the cursor: Enter goes to a block's code, d diffs, Space folds, C closes".to_string(),
        };
        s.set_message(said);
    }
}

fn close(s: &mut State) {
    s.cfg.shown = false;
    if s.focus == Focus::Cfg {
        s.focus = Focus::Code;
    }
}

/// The label of the selected box, and whether it heads a construct.
fn selected(s: &State) -> Option<(crate::ir::Id, bool)> {
    let d = s.cfg.drawn.as_ref()?;
    d.labels.get(s.cfg.cursor).copied()
}

/// After the drawing changes shape: the same block stays selected.
fn keep_cursor(s: &mut State) {
    let before = selected(s).map(|(l, _)| l);
    refresh_cfg(s);
    if let (Some(label), Some(d)) = (before, &s.cfg.drawn) {
        if let Some(k) = d.labels.iter().position(|&(l, _)| l == label) {
            s.cfg.cursor = k;
        }
    }
}

fn fold(s: &mut State) {
    refresh_cfg(s);
    let Some((label, header)) = selected(s) else {
        return;
    };
    if let Some(k) = s.cfg.folded.iter().position(|&l| l == label) {
        s.cfg.folded.remove(k);
    } else if header {
        s.cfg.folded.push(label);
    } else {
        s.set_error("only a loop or selection header folds: select one (its box says merge …)");
        return;
    }
    keep_cursor(s);
}

/// The selected block's label in the code pane, the graph closed.
fn goto(s: &mut State) {
    refresh_cfg(s);
    let Some((label, _)) = selected(s) else {
        s.set_error("no block is selected");
        return;
    };
    let in_step = s.run().and_then(|r| r.steps.get(s.step)).is_some_and(|st| {
        st.module
            .functions()
            .iter()
            .any(|f| f.block_index(label).is_some())
    });
    if !in_step {
        s.set_error("that block is not in this step: the diff shows where it was");
        return;
    }
    close(s);
    show_whole_step(s);
    if let Some(row) = s.panel.row_defining(label) {
        s.focus = Focus::Code;
        jump_to(s, row);
    }
}

/// Moves the selection `delta` boxes (clamped), the rows shown following it.
pub(super) fn move_cfg(s: &mut State, delta: isize) {
    refresh_cfg(s);
    let Some(d) = &s.cfg.drawn else {
        return;
    };
    let n = d.drawing.boxes.len();
    if n == 0 {
        return;
    }
    s.cfg.cursor = (s.cfg.cursor as isize + delta).clamp(0, n as isize - 1) as usize;
}
