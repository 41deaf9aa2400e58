//! The driver's code of steps (`:driver`, and the cost pane's chart): which steps the panes
//! shown need that nobody has asked of the driver job yet (each by the hash of its SPIR-V, so
//! a step that changed nothing is compiled once), and its answers kept.

use std::sync::Arc;

use super::Effect;
use crate::app::action::ViewMode;
use crate::app::derive::step_spirv;
use crate::app::state::{Against, State, TextKind};
use crate::ir::Module;
use crate::pipeline::driver_code::Code;

/// The steps whose driver code the panes shown need and nobody has asked for: in a driver
/// text, every step (the pass list shows each one's x86) and what a diff compares with (the
/// previous run's, another input's or the compared pipeline's step); every step while the
/// cost pane is open. Each is keyed as `derive::step_text` keys that run's texts.
pub(super) fn wanted(s: &mut State) -> Option<Effect> {
    let driver_text = matches!(s.text, TextKind::Driver(_));
    if !driver_text && !s.cost.shown {
        return None;
    }
    let mut needed = if driver_text {
        shown_steps(s)
    } else {
        shown_steps(s).into_iter().take(1).collect()
    };
    let doc = s.current()?;
    let run = doc.run.clone()?;
    let generation = doc.generation;
    for (i, st) in run.steps.iter().enumerate() {
        if !st.is_source() {
            needed.push(((s.doc, generation, i), st.module.clone()));
        }
    }
    let mut asked = Vec::new();
    for (key, module) in needed {
        let new = |c: &crate::app::state::Cache, h| {
            !c.driver_code.contains_key(&h) && !c.driver_pending.contains(&h)
        };
        if let Some((hash, words)) = step_spirv(&mut s.cache, key, &module, new) {
            s.cache.driver_pending.insert(hash);
            asked.push((hash, words));
        }
    }
    (!asked.is_empty()).then_some(Effect::DriverCode(asked))
}

/// The steps a text pane shows, each keyed as `derive::step_text` keys that run's texts and
/// with its module: the selected step, then in a diff what it is compared with (the previous
/// run's, another input's or the compared pipeline's step, or the base step). Source steps
/// have no SPIR-V and are left out.
pub(super) fn shown_steps(s: &State) -> Vec<((usize, u64, usize), Arc<Module>)> {
    let mut shown = Vec::new();
    let Some(doc) = s.current() else {
        return shown;
    };
    let Some(run) = doc.run.clone() else {
        return shown;
    };
    let generation = doc.generation;
    let step_of = |r: Option<&Arc<crate::pipeline::Run>>, i: usize| {
        r.and_then(|r| r.steps.get(i))
            .filter(|st| !st.is_source())
            .map(|st| st.module.clone())
    };
    let ours = |i: usize, shown: &mut Vec<_>| {
        if let Some(m) = step_of(Some(&run), i) {
            shown.push(((s.doc, generation, i), m));
        }
    };
    ours(s.step, &mut shown);
    if matches!(s.view, ViewMode::Diff | ViewMode::Split) {
        match s.diff_against() {
            Against::PreviousRun => {
                let key = (s.doc, doc.prev_generation, s.step);
                shown.extend(step_of(doc.prev_run.as_ref(), s.step).map(|m| (key, m)));
            }
            Against::Input(d) => {
                let i = s.input_step(d).unwrap_or(0);
                let other = &s.docs[d];
                let key = (d, other.generation, i);
                shown.extend(step_of(other.run.as_ref(), i).map(|m| (key, m)));
            }
            Against::Steps => match s.compared_base() {
                Some(b) => {
                    let key = (s.doc, u64::MAX - doc.compare_generation, b);
                    shown.extend(step_of(s.compare_run(), b).map(|m| (key, m)));
                }
                None => ours(s.base_step(), &mut shown),
            },
        }
    }
    shown
}

/// The driver job's answer for the SPIR-V `hash` hashes: kept, and the texts that waited for
/// it made again.
pub(super) fn answered(s: &mut State, hash: u64, result: Result<Arc<Code>, String>) {
    let cache = &mut s.cache;
    cache.driver_pending.remove(&hash);
    cache.driver_code.insert(hash, result);
    cache.driver_answers += 1;
    forget_driver_texts(s);
}

/// Another driver runs the shaders from now on: the code kept is the old one's, and what is
/// on screen asks the new one.
pub(super) fn switched(s: &mut State) {
    s.cache.driver_code.clear();
    s.cache.driver_pending.clear();
    forget_driver_texts(s);
}

/// The driver texts, made again from the code kept on their next use.
fn forget_driver_texts(s: &mut State) {
    s.cache
        .texts
        .retain(|k, _| !matches!(k.3, TextKind::Driver(_)));
}
