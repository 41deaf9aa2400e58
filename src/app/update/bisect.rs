//! Bisecting the run: the first step spirv-val rejects, or the first whose output runs
//! differently on a Vulkan driver. Both run as effects; their answers come back in `files`.

use super::Effect;
use crate::app::action::Action;
use crate::app::state::State;

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Bisect | Action::BisectRun(..) | Action::Reduce(_) if s.run_under_way() => {
            s.set_error("the run is still under way: bisect it once it is done");
        }
        Action::Bisect => return vec![Effect::Bisect],
        Action::BisectRun(data, oracle) => {
            if s.run().is_none() {
                s.set_error("nothing to run: the input has not loaded");
                return Vec::new();
            }
            return vec![Effect::BisectRun(data, oracle)];
        }
        Action::Reduce(property) => {
            if s.run().is_none() {
                s.set_error("nothing to reduce: the input has not loaded");
                return Vec::new();
            }
            if property.is_none() && s.bisect.last_found.is_none_or(|(d, ..)| d != s.doc) {
                const NAME: &str =
                    "name what to keep (:reduce invalid|differs|crash|fails|'COMMAND')";
                s.set_error(match s.bisect.last_clean {
                    Some((d, what)) if d == s.doc => {
                        format!("nothing to reduce for: {what}; {NAME}")
                    }
                    _ => format!(
                        "nothing found to reduce for: run :bisect or :bisect run first, or {NAME}"
                    ),
                });
                return Vec::new();
            }
            return vec![Effect::Reduce(property)];
        }
        other => unreachable!("not an action of bisect: {other:?}"),
    }
    Vec::new()
}
