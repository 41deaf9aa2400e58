//! The driver's code of steps (`:driver`, and the cost pane's chart): which steps the panes
//! shown need that nobody has asked of the driver job yet (each by the hash of its SPIR-V, so
//! a step that changed nothing is compiled once), and its answers kept.

use std::sync::Arc;

use super::Effect;
use crate::app::action::ViewMode;
use crate::app::state::{Against, State, TextKind};
use crate::pipeline::driver_code::Code;

/// The steps whose driver code the panes shown need and nobody has asked for: in a driver
/// text, every step (the pass list shows each one's x86) and what a diff compares with (the
/// previous run's, another input's or the compared pipeline's step); every step while the
/// cost pane is open.
pub(super) fn wanted(s: &mut State) -> Option<Effect> {
    let run = s.run().cloned()?;
    let mut steps = Vec::new();
    // Modules of other runs a driver diff compares with (hashed each time: their steps are
    // not kept by `step_hashes`, which holds the selected run's).
    let mut others: Vec<Arc<crate::ir::Module>> = Vec::new();
    let every = s.cost.shown || matches!(s.text, TextKind::Driver(_));
    if matches!(s.text, TextKind::Driver(_)) {
        // The selected step and its base first: they are what is on screen.
        steps.push(s.step);
        let diff = matches!(s.view, ViewMode::Diff | ViewMode::Split);
        let step_of = |r: Option<&Arc<crate::pipeline::Run>>, i: usize| {
            r.and_then(|r| r.steps.get(i))
                .filter(|st| !st.is_source())
                .map(|st| st.module.clone())
        };
        match s.diff_against() {
            _ if !diff => {}
            Against::PreviousRun => {
                others.extend(step_of(
                    s.current().and_then(|d| d.prev_run.as_ref()),
                    s.step,
                ));
            }
            Against::Input(d) => {
                let i = s.input_step(d).unwrap_or(0);
                others.extend(step_of(s.docs.get(d).and_then(|doc| doc.run.as_ref()), i));
            }
            Against::Steps => match s.compared_base() {
                Some(b) => others.extend(step_of(s.compare_run(), b)),
                None => steps.push(s.base_step()),
            },
        }
    }
    if every {
        steps.extend(0..run.steps.len());
    }
    let generation = s.current().map_or(0, |d| d.generation);
    let mut asked = Vec::new();
    for i in steps {
        let Some(st) = run.steps.get(i).filter(|st| !st.is_source()) else {
            continue;
        };
        let key = (s.doc, generation, i);
        let (hash, words) = match s.cache.step_hashes.get(&key) {
            Some(&h) => (h, None),
            None => match crate::app::derive::spirv_hash(&st.module) {
                Ok((h, words)) => {
                    if s.cache.step_hashes.len() > 4096 {
                        s.cache.step_hashes.clear();
                    }
                    s.cache.step_hashes.insert(key, h);
                    (h, Some(words))
                }
                Err(_) => continue,
            },
        };
        if s.cache.driver_code.contains_key(&hash) || !s.cache.driver_pending.insert(hash) {
            continue;
        }
        let words = match words {
            Some(w) => w,
            None => match crate::app::derive::spirv_hash(&st.module) {
                Ok((_, w)) => w,
                Err(_) => continue,
            },
        };
        asked.push((hash, words));
    }
    for module in others {
        let Ok((hash, words)) = crate::app::derive::spirv_hash(&module) else {
            continue;
        };
        if !s.cache.driver_code.contains_key(&hash) && s.cache.driver_pending.insert(hash) {
            asked.push((hash, words));
        }
    }
    (!asked.is_empty()).then_some(Effect::DriverCode(asked))
}

/// The driver job's answer for the SPIR-V `hash` hashes: kept, and the texts that waited for
/// it made again.
pub(super) fn answered(s: &mut State, hash: u64, result: Result<Arc<Code>, String>) {
    let cache = &mut s.cache;
    cache.driver_pending.remove(&hash);
    cache.driver_code.insert(hash, result);
    cache.driver_answers += 1;
    cache
        .texts
        .retain(|k, _| !matches!(k.3, TextKind::Driver(_)));
}
