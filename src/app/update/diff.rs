//! Diffs in the code pane: against the base step, two named steps, a compared pipeline's step or
//! the previous run; unified or side by side; walking the hunks.

use super::code_view::jump_to;
use super::pass_list::{select_step, step_index};
use super::Effect;
use crate::app::action::{Action, StepRef, ViewMode};
use crate::app::derive::refresh_panel;
use crate::app::state::{Against, Focus, Rows, State, TextKind};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Diff(None) => {
            s.diff.against = Against::Steps;
            s.view = if s.view == ViewMode::Split {
                ViewMode::Split
            } else {
                ViewMode::Diff
            }
        }
        Action::Diff(Some((StepRef::Compared(a), b))) => {
            let Some(run) = s.run().cloned() else {
                return Vec::new();
            };
            let Some(n) = s.compare_run().map(|r| r.steps.len()) else {
                s.set_error("b-steps are the compared pipeline's: :compare PIPELINE first");
                return Vec::new();
            };
            if a >= n {
                s.set_error(format!(
                    "no step b{a}: the compared steps are b0–b{}",
                    n - 1
                ));
                return Vec::new();
            }
            match step_index(&run, &b) {
                Ok(b) => {
                    s.diff.against = Against::Steps;
                    s.compare.base = Some(a);
                    select_step(s, b);
                    if !matches!(s.view, ViewMode::Diff | ViewMode::Split) {
                        s.view = ViewMode::Diff;
                    }
                    first_hunk(s);
                }
                Err(e) => s.set_error(e),
            }
        }
        Action::Diff(Some((a, b))) => {
            let Some(run) = s.run().cloned() else {
                return Vec::new();
            };
            match (step_index(&run, &a), step_index(&run, &b)) {
                (Ok(a), Ok(b)) => {
                    s.diff.against = Against::Steps;
                    s.compare.base = None;
                    s.diff.base = Some(a);
                    select_step(s, b);
                    if !matches!(s.view, ViewMode::Diff | ViewMode::Split) {
                        s.view = ViewMode::Diff;
                    }
                    first_hunk(s);
                }
                (Err(e), _) | (_, Err(e)) => s.set_error(e),
            }
        }
        Action::View(v) => {
            let was_diff = matches!(s.view, ViewMode::Diff | ViewMode::Split)
                && s.diff.against == Against::Steps;
            s.diff.against = Against::Steps;
            s.view = v;
            if matches!(v, ViewMode::Diff | ViewMode::Split) && !was_diff {
                first_hunk(s);
            }
            match v {
                ViewMode::Ir => s.text = TextKind::Ir,
                ViewMode::Spirv => s.text = TextKind::Spirv,
                _ => {}
            }
        }
        Action::ViewLang(lang) => {
            s.text = TextKind::Lang(lang);
            if matches!(s.view, ViewMode::Ir | ViewMode::Spirv) {
                s.view = ViewMode::Ir;
            }
            s.set_message(format!(
                "each step as {} by {} (diffs too; :view ir or t: the IR again)",
                s.text.name(),
                lang.writer()
            ));
        }
        Action::ViewDriver(show) => {
            s.text = TextKind::Driver(show);
            if matches!(s.view, ViewMode::Ir | ViewMode::Spirv) {
                s.view = ViewMode::Ir;
            }
            s.set_message(format!(
                "each step as the driver compiled it: {} (diffs too; :view ir or t: the IR again)",
                s.text.name()
            ));
        }
        Action::IgnoreRenumbering(v) => {
            s.diff.ignore_renumbering = v.unwrap_or(!s.diff.ignore_renumbering);
            s.set_message(if s.diff.ignore_renumbering {
                "diffs hide lines that only renumber ids"
            } else {
                "diffs show every changed line"
            });
        }
        Action::NextHunk | Action::PrevHunk if s.focus == Focus::Columns => {
            super::columns_view::next_change(s, action == Action::NextHunk);
        }
        Action::NextHunk | Action::PrevHunk => {
            refresh_panel(s);
            let next = action == Action::NextHunk;
            let target = match &s.panel.rows {
                Rows::Diff { hunks, .. } => {
                    if next {
                        hunks.iter().copied().find(|&h| h > s.code.cursor)
                    } else {
                        hunks.iter().rev().copied().find(|&h| h < s.code.cursor)
                    }
                }
                Rows::Text { .. } => {
                    s.set_error("no diff shown: press d to compare with the base step");
                    return Vec::new();
                }
            };
            match target {
                Some(h) => jump_to(s, h),
                None => s.set_message(if next {
                    "no more changes below"
                } else {
                    "no more changes above"
                }),
            }
        }
        Action::DiffPrev => {
            let Some(doc) = s.current() else {
                return Vec::new();
            };
            if doc.prev_run.is_none() {
                s.set_error("no previous run yet: save the file and its new run can be compared with this one");
                return Vec::new();
            }
            s.diff.against = Against::PreviousRun;
            if s.view != ViewMode::Split {
                s.view = ViewMode::Diff;
            }
            first_hunk(s);
            if !matches!(&s.status.message, Some(m) if m.text == "no differences") {
                s.set_message(
                    "diff against the same step of the previous run (d: against the base step)",
                );
            }
        }
        Action::DiffInput(Some(name)) if name == "off" => {
            if matches!(s.diff.against, Against::Input(_)) {
                s.diff.against = Against::Steps;
                s.set_message("diffs are against the base step again");
            }
        }
        Action::DiffInput(name) => {
            let d = match other_input(s, name.as_deref()) {
                Ok(d) => d,
                Err(e) => {
                    s.set_error(e);
                    return Vec::new();
                }
            };
            s.diff.against = Against::Input(d);
            if s.view != ViewMode::Split {
                s.view = ViewMode::Diff;
            }
            first_hunk(s);
            if !matches!(&s.status.message, Some(m) if m.text == "no differences") {
                s.set_message(format!(
                    "diff against the same step of {} (:diff-input off: against the base step)",
                    s.docs[d].display_name(&s.roots)
                ));
            }
        }
        other => unreachable!("not an action of diff: {other:?}"),
    }
    Vec::new()
}

/// The open input `:diff-input` names (its name or part of it), or without a name the one the
/// current input was reduced from, or else the only other one.
pub(super) fn other_input(s: &State, name: Option<&str>) -> Result<usize, String> {
    let others: Vec<usize> = (0..s.docs.len()).filter(|&i| i != s.doc).collect();
    let name_of = |i: usize| s.docs[i].display_name(&s.roots);
    let found = match name {
        Some(name) => others
            .iter()
            .copied()
            .find(|&i| name_of(i) == name)
            .or_else(|| others.iter().copied().find(|&i| name_of(i).contains(name)))
            .ok_or_else(|| format!("no other input named like '{name}'"))?,
        None => {
            let from = s.current().and_then(|d| d.reduced_from.as_ref());
            match (from, others.as_slice()) {
                (Some(from), _) => others
                    .iter()
                    .copied()
                    .find(|&i| &s.docs[i].abs == from)
                    .ok_or("the input this was reduced from is no longer open")?,
                (None, [only]) => *only,
                (None, []) => return Err("no other input is open to diff against".into()),
                (None, _) => {
                    let names: Vec<String> = others.iter().map(|&i| name_of(i)).collect();
                    return Err(format!(
                        "name the input to diff against: :diff-input NAME (open: {})",
                        names.join(", ")
                    ));
                }
            }
        }
    };
    if s.docs[found].run.is_none() {
        return Err(format!("{} has no steps yet", name_of(found)));
    }
    Ok(found)
}

/// Puts the cursor on the first change of the diff shown.
fn first_hunk(s: &mut State) {
    refresh_panel(s);
    if let Rows::Diff { hunks, .. } = &s.panel.rows {
        match hunks.first().copied() {
            Some(h) => jump_to(s, h),
            None => s.set_message("no differences"),
        }
    }
}
