//! The pass list (`views::pass_list`): the selected step, the diff base mark, hiding the passes
//! that changed nothing, and jumping to the first change a pass made.

use super::code_view::jump_to;
use super::Effect;
use crate::app::action::{Action, StepRef};
use crate::app::derive::{refresh_panel, step_lines};
use crate::app::state::{Against, Focus, State};
use crate::pipeline::diff::diff_lines;
use crate::pipeline::Run;

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::StepNext => move_step(s, 1),
        Action::StepPrev => move_step(s, -1),
        Action::Step(r) => {
            let Some(run) = s.run().cloned() else {
                return Vec::new();
            };
            match step_index(&run, &r) {
                Ok(i) => select_step(s, i),
                Err(e) => s.set_error(e),
            }
        }
        Action::Mark => {
            s.diff.against = Against::Steps;
            s.compare.base = None;
            if s.diff.base == Some(s.step) {
                s.diff.base = None;
                s.set_message("diff base cleared: diffs compare with the previous step");
            } else {
                s.diff.base = Some(s.step);
                s.set_message(format!("diff base: step {}", s.step));
            }
        }
        Action::HideUnchanged(v) => {
            s.passes.hide_unchanged = v.unwrap_or(!s.passes.hide_unchanged);
            s.passes.scroll = 0;
            let step = s.step;
            select_step(s, step);
        }
        Action::FirstChange => first_change(s),
        other => unreachable!("not an action of pass_list: {other:?}"),
    }
    Vec::new()
}

pub(super) fn step_index(run: &Run, r: &StepRef) -> Result<usize, String> {
    match r {
        StepRef::Compared(i) => Err(format!(
            "b{i} is a step of the compared pipeline: diff against it with :diff b{i} STEP"
        )),
        StepRef::Index(i) if *i < run.steps.len() => Ok(*i),
        StepRef::Index(i) => Err(format!(
            "no step {i}: steps are 0–{}",
            run.steps.len().saturating_sub(1)
        )),
        StepRef::Name(n) => run
            .steps
            .iter()
            .position(|st| st.pass == n)
            .ok_or_else(|| format!("no pass named '{n}' in this pipeline")),
    }
}

pub(super) fn select_step(s: &mut State, step: usize) {
    s.step = step;
    let visible = s.visible_steps();
    if let Some(pos) = visible.iter().position(|&v| v == step) {
        let rows = s.layout.pass_rows();
        if pos < s.passes.scroll {
            s.passes.scroll = pos;
        } else if rows > 0 && pos >= s.passes.scroll + rows {
            s.passes.scroll = pos + 1 - rows;
        }
    }
}

pub(super) fn move_step(s: &mut State, delta: isize) {
    let visible = s.visible_steps();
    if visible.is_empty() {
        return;
    }
    let pos = visible.iter().position(|&v| v == s.step).unwrap_or(0) as isize;
    let next = (pos + delta).clamp(0, visible.len() as isize - 1) as usize;
    select_step(s, visible[next]);
}

fn first_change(s: &mut State) {
    let Some(run) = s.run().cloned() else { return };
    if s.step == 0 {
        s.focus = Focus::Code;
        return;
    }
    let (base, step, kind) = (s.step - 1, s.step, s.text);
    let old = step_lines(s, base, kind);
    let new = step_lines(s, step, kind);
    let d = diff_lines(&old.lines, &new.lines, s.diff.ignore_renumbering);
    s.focus = Focus::Code;
    if !run.steps[step].changed || d.is_empty() {
        s.set_message(format!("{} changed nothing", run.steps[step].pass));
        return;
    }
    s.view = kind.view();
    s.func = None;
    refresh_panel(s);
    let first_new = d
        .lines
        .iter()
        .find(|l| l.change != crate::pipeline::diff::LineChange::Same)
        .and_then(|l| {
            l.new.or_else(|| {
                // A pure deletion: the line after it in the new text.
                d.lines.iter().skip_while(|x| x != &l).find_map(|x| x.new)
            })
        });
    if let Some(line) = first_new {
        jump_to(s, line.min(s.panel.len().saturating_sub(1)));
        s.set_message(format!(
            "first change of {}: +{} −{}",
            run.steps[step].pass, d.added, d.removed
        ));
    }
}
