//! Runs the stages of a graphics pipeline: each stage through the pipeline's passes, the
//! pipeline state compiled in (`state-*` steps), link steps between neighbouring stages in
//! pipeline order and the glue the link state asks for (`link-*` steps), then the cleanup on
//! each. The generic driver (`manager`) runs one module; this orchestrates several.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::glue::Placement;
use super::state::PipelineState;
use crate::ir::spirv::write;
use crate::ir::Module;
use crate::pipeline::manager::{Pipeline, Run};
use crate::pipeline::pass::{Diagnostic, Severity};

/// A stage of a pipeline: its SPIR-V words and, if already decoded, its module and the time
/// decoding took.
pub type StageInput = (Arc<Vec<u32>>, Option<(Module, Duration)>);

impl Pipeline {
    /// Runs the stages of a graphics pipeline (see `link::stages`): each stage's `lower`, then
    /// the state it is compiled with (`state-*` steps), then its passes up to its cleanup
    /// (`strip-debug`, `compact-ids`, `lift`); then link steps between neighbouring stages in
    /// pipeline order and the glue the link state asks for (`link-*` steps); then `fold`,
    /// `simplify`, `dce`, `verify` and the cleanup passes on each. Returns one run per stage,
    /// in the order given.
    pub fn run_stages(&self, stages: Vec<StageInput>, link: &StageLink) -> Vec<Run> {
        use super::glue;
        use super::stages as st;
        // Link while the stages still have their names (messages name variables), and before
        // the final cleanup: the passes from the first of these on run after the link steps.
        let names = self.names();
        let split = names
            .iter()
            .position(|n| matches!(*n, "strip-debug" | "compact-ids" | "lift"))
            .unwrap_or(names.len());
        let lowered = names[..split]
            .iter()
            .position(|n| *n == "lower")
            .map_or(0, |p| p + 1);
        let configure = |names: &[&str]| {
            Pipeline::from_names(names)
                .expect("names of real passes")
                .with_checks(self.checks)
                .with_experimental(self.experimental)
        };
        let stopped = |runs: &[Run]| {
            runs.iter()
                .any(|r| r.failed.is_some() || r.steps.is_empty())
        };
        // Continues every run with `names` (after a `lower` that takes the module over).
        let continue_with = |runs: &mut Vec<Run>, names: &[&str]| {
            let mut all = vec!["lower"];
            all.extend(names);
            let p = configure(&all);
            for run in runs.iter_mut() {
                let module = (**run.final_module().expect("steps")).clone();
                let words = Arc::new(write::write_words(&module));
                run.append(p.run_decoded(words, Some((module, Duration::ZERO))));
            }
        };
        let first = configure(&names[..lowered]);
        let mut runs: Vec<Run> = stages
            .into_iter()
            .map(|(words, decoded)| first.run_decoded(words, decoded))
            .collect();
        if stopped(&runs) {
            return runs;
        }
        if let Some(state) = &link.compiled {
            state_steps(self, &mut runs, state, Placement::Inline);
            if stopped(&runs) {
                return runs;
            }
        }
        if lowered < split {
            continue_with(&mut runs, &names[lowered..split]);
            if stopped(&runs) {
                return runs;
            }
        }
        let mut modules: Vec<Module> = runs
            .iter()
            .map(|r| (**r.final_module().expect("steps")).clone())
            .collect();
        // Pipeline order: vertex first; stages without a known rank stay where they are.
        let mut ranked: Vec<usize> = (0..modules.len()).collect();
        ranked.sort_by_key(|&i| st::stage_rank(&modules[i]).map_or(u32::MAX, |r| r.0));
        let n = modules.len();
        // The interface check.
        let start = Instant::now();
        let mut notes = vec![Vec::new(); n];
        for pair in ranked.windows(2) {
            let diags = st::check_interface(&modules[pair[0]], &modules[pair[1]]);
            notes[pair[0]].extend(diags.iter().cloned());
            notes[pair[1]].extend(diags);
        }
        push_link_step(
            self,
            &mut runs,
            &modules,
            "link-interface",
            &vec![false; n],
            notes,
            start.elapsed(),
        );
        if stopped(&runs) {
            return runs;
        }
        let start = Instant::now();
        let mut changed = vec![false; n];
        let mut notes = vec![Vec::new(); n];
        let name = match link.order {
            crate::pipeline::link::LinkOrder::FsFirst => {
                // Later stages first, so each earlier stage knows what the next one reads.
                for pair in ranked.windows(2).rev() {
                    let (p, c) = (pair[0], pair[1]);
                    let consumer = modules[c].clone();
                    let dead = st::remove_dead_outputs(&mut modules[p], &consumer);
                    if !dead.read_back.is_empty() {
                        notes[p].push(Diagnostic::new(
                            Severity::Note,
                            format!(
                                "kept outputs the next stage does not read, as this stage reads them back: {}",
                                dead.read_back.join(", ")
                            ),
                        ));
                    }
                    if !dead.removed.is_empty() {
                        changed[p] = true;
                        notes[p].push(Diagnostic::new(
                            Severity::Note,
                            format!(
                                "removed outputs the next stage does not read: {}",
                                dead.removed.join(", ")
                            ),
                        ));
                        // What only fed them goes too, and with it inputs only it read: the
                        // stage before this one then sees those outputs as dead.
                        crate::pipeline::passes::dce::dce(&mut modules[p]);
                        let unread = st::remove_unread_inputs(&mut modules[p]);
                        if !unread.is_empty() && p != ranked[0] {
                            notes[p].push(Diagnostic::new(
                                Severity::Note,
                                format!("inputs no longer read: {}", unread.join(", ")),
                            ));
                        }
                    }
                }
                "link-dead-outputs"
            }
            crate::pipeline::link::LinkOrder::VsFirst => {
                // Earlier stages first, so each later stage knows what the one before wrote.
                for pair in ranked.windows(2) {
                    let (p, c) = (pair[0], pair[1]);
                    let producer = modules[p].clone();
                    let forwarded = st::forward_constants(&producer, &mut modules[c]);
                    if !forwarded.is_empty() {
                        changed[c] = true;
                        notes[c].push(Diagnostic::new(
                            Severity::Note,
                            format!("inputs that are constants: {}", forwarded.join(", ")),
                        ));
                    }
                }
                "link-forward-constants"
            }
        };
        push_link_step(
            self,
            &mut runs,
            &modules,
            name,
            &changed,
            notes,
            start.elapsed(),
        );
        if stopped(&runs) {
            return runs;
        }
        if let Some(state) = &link.glue {
            state_steps(self, &mut runs, state, Placement::Glue);
            if stopped(&runs) {
                return runs;
            }
        }
        // With the whole state known, a vertex input without an attribute is an error.
        if let Some(whole) = link.whole().filter(|s| !s.attributes.is_empty()) {
            for run in runs.iter_mut() {
                let m = run.final_module().expect("steps").clone();
                let unmet = glue::unmet(&m, &whole);
                if !unmet.is_empty() {
                    let errors = unmet
                        .into_iter()
                        .map(|u| Diagnostic::new(Severity::Error, u))
                        .collect();
                    run.push_step("link-vertex-inputs", m, false, Duration::ZERO, errors);
                }
            }
            if stopped(&runs) {
                return runs;
            }
        }
        let mut after_names = vec!["fold", "simplify", "dce", "verify"];
        after_names.extend(names[split..].iter().filter(|n| **n != "verify"));
        continue_with(&mut runs, &after_names);
        runs
    }
}

/// How the stages of a pipeline are linked: the order, the state they are compiled with and
/// what the link state adds to it (see `link::state`).
#[derive(Clone, Debug, Default)]
pub struct StageLink {
    pub order: crate::pipeline::link::LinkOrder,
    pub compiled: Option<PipelineState>,
    /// What the link state gives beyond `compiled` (`PipelineState::remainder`).
    pub glue: Option<PipelineState>,
}

impl StageLink {
    /// The state compiled in and the glue together, when there is any.
    fn whole(&self) -> Option<PipelineState> {
        match (&self.compiled, &self.glue) {
            (None, None) => None,
            (Some(c), None) => Some(c.clone()),
            (None, Some(g)) => Some(g.clone()),
            (Some(c), Some(g)) => {
                let mut w = c.clone();
                w.attributes.extend(g.attributes.iter().copied());
                w.attachments.extend(g.attachments.iter().copied());
                w.specialization
                    .extend(g.specialization.iter().map(|(k, v)| (*k, *v)));
                Some(w)
            }
        }
    }
}

/// Records a step made across stages in every stage's run.
fn push_link_step(
    p: &Pipeline,
    runs: &mut [Run],
    modules: &[Module],
    name: &'static str,
    changed: &[bool],
    notes: Vec<Vec<Diagnostic>>,
    took: Duration,
) {
    for ((run, module), (changed, notes)) in
        runs.iter_mut().zip(modules).zip(changed.iter().zip(notes))
    {
        let mut notes = notes;
        // `--verify-each` and `--validate-each` check a link step as they check a pass.
        notes.extend(p.checked(name, module));
        run.push_step(name, Arc::new(module.clone()), *changed, took, notes);
    }
}

type ApplyState = fn(&mut Module, &PipelineState, Placement) -> Result<Vec<String>, String>;

/// The steps a pipeline state gives every stage: specialization constants frozen, vertex
/// fetch and colour export, each a step of its own when the state has that part: `state-*`
/// when compiled in (`Placement::Inline`), `link-*` when glued at link time.
fn state_steps(p: &Pipeline, runs: &mut [Run], state: &PipelineState, placement: Placement) {
    use super::glue;
    let freeze: ApplyState = |m, s, _| glue::freeze_spec_constants(m, s);
    let parts: [(bool, [&'static str; 2], &str, ApplyState); 3] = [
        (
            !state.specialization.is_empty(),
            ["state-spec-constants", "link-spec-constants"],
            "specialization constants frozen",
            freeze,
        ),
        (
            !state.attributes.is_empty(),
            ["state-vertex-fetch", "link-vertex-fetch"],
            "vertex inputs fetched",
            glue::vertex_fetch,
        ),
        (
            !state.attachments.is_empty(),
            ["state-color-export", "link-color-export"],
            "fragment outputs exported",
            glue::color_export,
        ),
    ];
    for (present, step_names, what, apply) in parts {
        if !present || runs.iter().any(|r| r.failed.is_some()) {
            continue;
        }
        let name = step_names[usize::from(placement == Placement::Glue)];
        let mut declared = std::collections::HashSet::new();
        let mut results = Vec::new();
        for run in runs.iter() {
            let start = Instant::now();
            let mut m = (**run.final_module().expect("steps")).clone();
            declared.extend(glue::spec_ids(&m).into_values());
            let r = apply(&mut m, state, placement);
            results.push((m, r, start.elapsed()));
        }
        let unused: Vec<String> = state
            .specialization
            .keys()
            .filter(|k| !declared.contains(k))
            .map(|k| k.to_string())
            .collect();
        for (run, (m, r, took)) in runs.iter_mut().zip(results) {
            let mut notes = Vec::new();
            let changed = match r {
                Ok(lines) if lines.is_empty() => false,
                Ok(lines) => {
                    notes.push(Diagnostic::new(
                        Severity::Note,
                        format!("{what}: {}", lines.join("; ")),
                    ));
                    true
                }
                Err(e) => {
                    notes.push(Diagnostic::new(Severity::Error, e));
                    false
                }
            };
            if name.ends_with("spec-constants") && !unused.is_empty() {
                notes.push(Diagnostic::new(
                    Severity::Warning,
                    format!(
                        "{}: no stage declares SpecId {}",
                        state.source,
                        unused.join(", ")
                    ),
                ));
            }
            let module = if changed {
                Arc::new(m)
            } else {
                run.final_module().expect("steps").clone()
            };
            notes.extend(p.checked(name, &module));
            run.push_step(name, module, changed, took, notes);
        }
    }
}
