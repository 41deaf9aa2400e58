//! Diffs in the code pane: against the base step, two named steps, a compared pipeline's step or
//! the previous run; unified or side by side; walking the hunks.

use super::code_view::jump_to;
use super::pass_list::{select_step, step_index};
use super::Effect;
use crate::app::action::{Action, StepRef, ViewMode};
use crate::app::derive::refresh_panel;
use crate::app::state::{Rows, State, TextKind};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Diff(None) => {
            s.diff_prev = false;
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
                    s.diff_prev = false;
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
                    s.diff_prev = false;
                    s.compare.base = None;
                    s.base = Some(a);
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
            let was_diff = matches!(s.view, ViewMode::Diff | ViewMode::Split) && !s.diff_prev;
            s.diff_prev = false;
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
        Action::IgnoreRenumbering(v) => {
            s.ignore_renumbering = v.unwrap_or(!s.ignore_renumbering);
            s.set_message(if s.ignore_renumbering {
                "diffs hide lines that only renumber ids"
            } else {
                "diffs show every changed line"
            });
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
            s.diff_prev = true;
            if s.view != ViewMode::Split {
                s.view = ViewMode::Diff;
            }
            first_hunk(s);
            if !matches!(&s.message, Some(m) if m.text == "no differences") {
                s.set_message(
                    "diff against the same step of the previous run (d: against the base step)",
                );
            }
        }
        other => unreachable!("not an action of diff: {other:?}"),
    }
    Vec::new()
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
