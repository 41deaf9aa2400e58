//! Comparing with a second pipeline (`:compare`, drawn beside the pass list): starting and
//! stopping it, and moving the compared step the diff is against.

use super::files::compare_job;
use super::Effect;
use crate::app::action::{Action, ViewMode};
use crate::app::state::{Against, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Compare(spec) => {
            // Whatever was compared goes; a new comparison starts from nothing.
            for d in &mut s.docs {
                d.compare_run = None;
                d.compare_answered = d.compare_requested;
            }
            s.compare.spec = None;
            s.compare.base = None;
            let spec = match spec {
                None => {
                    s.set_message("comparing no more");
                    None
                }
                Some(_) if s.batched => {
                    s.set_error(":compare compares single shaders, not linked stages or modules");
                    None
                }
                some => some,
            };
            let jobs = match spec {
                // Only the shaders that keep their steps: the others run it when selected.
                Some(_) => {
                    let kept: Vec<usize> =
                        (0..s.docs.len()).filter(|&i| s.keeps_steps(i)).collect();
                    kept.into_iter().map(|i| compare_job(s, i)).collect()
                }
                None => Vec::new(),
            };
            return vec![Effect::Compare { spec, jobs }];
        }
        Action::CompareStep(by) => {
            let Some(n) = s.compare_run().map(|r| r.steps.len()) else {
                s.set_error("nothing is compared: :compare PIPELINE first");
                return Vec::new();
            };
            let from = s.compare.base.unwrap_or(n - 1) as isize;
            s.compare.base = Some((from + by).clamp(0, n as isize - 1) as usize);
            s.diff.against = Against::Steps;
            if !matches!(s.view, ViewMode::Diff | ViewMode::Split) {
                s.view = ViewMode::Diff;
            }
        }
        other => unreachable!("not an action of compare: {other:?}"),
    }
    Vec::new()
}
