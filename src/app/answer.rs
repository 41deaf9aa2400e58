//! What background jobs answered, applied to the state: an input's run (a broken input keeps
//! its last good run), the compared pipeline's run, a validation bisect, a semantic bisect.
//! The event loop receives them from the worker threads and hands them to `update` as
//! `Action::Answer`, so they change state the one way everything else does.

use std::sync::Arc;

use super::action::ViewMode;
use super::state::{Against, State};
use super::worker::{Done, StepDone};
use crate::pipeline::Run;

/// Shows a step of a run under way, when the input has no run to show yet: what a large
/// module's first run shows while its later passes are still running. A reload keeps the
/// last run on screen until the new one is done, so the step a user looks at stays put.
pub(super) fn step(s: &mut State, st: StepDone) {
    let Some(doc) = s.docs.get_mut(st.doc) else {
        return;
    };
    if st.token < doc.requested || st.token <= doc.answered {
        return;
    }
    match (doc.streaming, doc.run.as_mut()) {
        (Some(token), Some(run)) if token == st.token => {
            Arc::make_mut(run).steps.push(st.step);
            return;
        }
        // A complete run is shown.
        (None, Some(_)) => return,
        // Nothing, or the first steps of an older request that will not finish.
        _ => {}
    }
    let mut run = Run::default();
    run.steps.push(st.step);
    if let Some(src) = st.source {
        run.prepend_source(src);
    }
    doc.run = Some(Arc::new(run));
    doc.generation += 1;
    doc.streaming = Some(st.token);
}

/// Applies a finished run of input `i`. A broken input keeps the last good run; a result
/// older than the newest request is dropped (a newer save supersedes it).
pub(super) fn run(s: &mut State, done: Done) {
    let Some(doc) = s.docs.get_mut(done.doc) else {
        return;
    };
    if done.token < doc.requested {
        return;
    }
    doc.answered = done.token;
    let i = done.doc;
    // A run whose output differs from the one before is "changed" in the browser's counts.
    doc.changed = doc
        .summary
        .as_ref()
        .is_some_and(|was| was.output != done.summary.output || was.status != done.summary.status);
    doc.summary = Some(done.summary);
    let keeps = s.keeps_steps(i);
    let doc = &mut s.docs[i];
    // Steps that came although the shader was deselected since go: only the summary stays.
    let result = match done.result {
        Ok(Some(_)) if !keeps => Ok(None),
        r => r,
    };
    let result = match result {
        Ok(Some(compiled)) => Ok(compiled),
        Ok(None) => {
            // A summary only: no steps kept, none shown from before (they are of an older
            // version of the file).
            doc.error = None;
            doc.error_at = None;
            if doc.run.is_some() || doc.streaming.is_some() {
                doc.run = None;
                doc.prev_run = None;
                doc.streaming = None;
                doc.generation += 1;
            }
            doc.steps_token = 0;
            // A save of a shader nobody looks at says what it did, when it did something.
            if doc.changed {
                let name = doc.display_name(&s.roots);
                let after = doc.summary.as_ref().and_then(|x| x.after);
                s.set_message(match after {
                    Some(n) => format!("reloaded {name} (not shown): {n} instructions out"),
                    None => format!("reloaded {name} (not shown)"),
                });
            }
            return;
        }
        Err(e) => Err(e),
    };
    let name = doc.display_name(&s.roots);
    // The steps shown while this run streamed are its own; those of an older request, or of
    // a run that failed, go. Runs stream only when no complete run came before.
    let streaming = doc.streaming.take();
    let streamed = streaming == Some(done.token) && result.is_ok();
    if streaming.is_some() && !streamed {
        doc.run = None;
        doc.generation += 1;
    }
    let first = streaming.is_some() || (doc.run.is_none() && doc.generation == 0);
    match result {
        Ok(loaded) => {
            // A pass that fails is shown, not hidden: its step is selected and its
            // diagnostics listed. (STALE is only for inputs that no longer load.)
            doc.error = None;
            doc.error_at = None;
            let mut run = loaded.run;
            if let Some(src) = &loaded.source {
                run.prepend_source(src.clone());
            }
            let failure = run.failure();
            if streamed {
                // The same steps as those shown, now complete: they keep their generation, and
                // what was printed of them already.
                if let Some(shown) = &doc.run {
                    run.adopt_texts(shown);
                }
            } else {
                doc.prev_run = doc.run.take();
                doc.prev_generation = doc.generation;
                doc.generation += 1;
            }
            doc.run = Some(Arc::new(run));
            doc.kind = Some(loaded.kind);
            doc.source = loaded.source;
            if !first {
                doc.reloads += 1;
            }
            match failure {
                Some((f, msg)) if i == s.doc => {
                    s.step = f;
                    s.diags.cursor = 0;
                    s.set_error(msg);
                }
                Some(_) => {}
                None if !first && i == s.doc => match s.reload_cause.take() {
                    Some(cause) => s.set_message(format!("reloaded {name}: {cause}")),
                    None => s.set_message(format!("reloaded {name}")),
                },
                None if !first => s.set_message(format!("reloaded {name} (not shown)")),
                None => {}
            }
        }
        Err(e) => {
            let had_run = doc.run.is_some();
            let file = doc.path.file_name().map_or_else(
                || doc.path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            // Kept for the shaders that keep their steps: a tree's failing shaders do not all
            // hold their text.
            doc.error_at = e.source.clone().zip(e.line).filter(|_| keeps);
            doc.error = Some(match e.line {
                Some(l) => format!("{file}:{l}: {}", e.message),
                None => format!("{file}: {}", e.message),
            });
            // The status bar names the file already; the message leads with the cause.
            let short = match e.line {
                Some(l) => format!("line {l}: {}", e.message.lines().next().unwrap_or("")),
                None => e.message.lines().next().unwrap_or("").to_string(),
            };
            if i != s.doc {
                if !first {
                    s.set_error(format!("{name}: {short}"));
                }
            } else if had_run {
                // The line is of the saved text; the steps shown are of an earlier one (the
                // code pane's title says so too).
                s.set_error(format!(
                    "{short} (in the saved version; the last that loaded is shown)"
                ));
            } else {
                s.set_error(short);
            }
        }
    }
}

/// Applies a finished run of the compared pipeline.
pub(super) fn compared_run(s: &mut State, done: Done) {
    let Some(doc) = s.docs.get_mut(done.doc) else {
        return;
    };
    if done.token < doc.compare_requested {
        return;
    }
    doc.compare_answered = done.token;
    let result = match done.result {
        Ok(Some(c)) => Ok(c),
        // Compared runs always keep their steps.
        Ok(None) => return,
        Err(e) => Err(e),
    };
    match result {
        Ok(loaded) => {
            // Numbered as the pipeline's own run would be in the pass list: b7 is what
            // step 7 is when that pipeline is the one stepped through.
            let mut run = loaded.run;
            if let Some(src) = &loaded.source {
                run.prepend_source(src.clone());
            }
            let n = run.steps.len();
            doc.compare_run = Some(Arc::new(run));
            doc.compare_generation += 1;
            if done.doc == s.doc && s.compare.base == Some(usize::MAX) {
                // First the final outputs: ours against theirs.
                s.compare.base = Some(n.saturating_sub(1));
                s.step = s.step_count().saturating_sub(1);
                s.diff.against = Against::Steps;
                if !matches!(s.view, ViewMode::Diff | ViewMode::Split) {
                    s.view = ViewMode::Diff;
                }
                let label = s.compare.spec.clone().unwrap_or_default();
                s.set_message(format!(
                    "output of {label} (b{}) → ours",
                    n.saturating_sub(1)
                ));
            }
        }
        Err(e) => {
            // No result is better than one of an earlier version of the input.
            doc.compare_run = None;
            doc.compare_generation += 1;
            if done.doc == s.doc {
                s.set_error(format!("compared pipeline: {e}"));
            }
        }
    }
}

/// Shows what `:bisect` found: the first invalid step selected, with spirv-val's messages.
pub(super) fn bisect(
    s: &mut State,
    (doc, generation): (usize, u64),
    result: Result<crate::pipeline::validate::FirstInvalid, String>,
) {
    let fresh = s.docs.get(doc).is_some_and(|d| d.generation == generation);
    let found = match result {
        Ok(f) => f,
        Err(e) => {
            s.set_error(e);
            return;
        }
    };
    match found.first {
        Some((i, diags, first)) => {
            let pass = s.docs[doc]
                .run
                .as_ref()
                .and_then(|r| r.steps.get(i))
                .map_or("", |st| st.pass);
            let msg = format!("first invalid step: {i} {pass} — {first}");
            if fresh {
                if let Some(run) = s.docs[doc].run.as_ref() {
                    let steps = crate::pipeline::semantic::pass_steps(run);
                    if let Some(k) = steps.iter().position(|&x| x == i) {
                        s.bisect.last_found = Some((doc, generation, k, "invalid"));
                        s.bisect.last_clean = None;
                    }
                }
                s.bisect.found.insert((doc, generation, i), diags);
                if doc == s.doc {
                    s.step = i;
                    s.diags.cursor = 0;
                }
            }
            s.set_error(msg);
        }
        None if found.skipped == 0 => {
            s.bisect.last_clean = Some((doc, ":bisect found every step valid"));
            s.bisect.last_found = s.bisect.last_found.filter(|(d, ..)| *d != doc);
            s.set_message(format!("all {} steps validate", found.passes))
        }
        None => s.set_message(format!(
            "{} steps validate; {} in the shaderstep dialect could not be lifted to SPIR-V and were skipped",
            found.passes - found.skipped,
            found.skipped
        )),
    }
}

/// Shows what a semantic bisect found: the first step whose results differ is selected,
/// marked in the pass list of every stage run, and diffed against the step before it.
pub(super) fn bisect_run(
    s: &mut State,
    docs: &[(usize, u64)],
    result: Result<crate::pipeline::semantic::BisectRun, String>,
) {
    // Still the runs it was about (no reload since)?
    let fresh = docs
        .iter()
        .all(|&(d, g)| s.docs.get(d).is_some_and(|doc| doc.generation == g));
    let about = match docs {
        [(d, _)] if *d != s.doc => s
            .docs
            .get(*d)
            .map(|doc| format!("{}: ", doc.display_name(&s.roots)))
            .unwrap_or_default(),
        _ => String::new(),
    };
    let stale = if fresh { "" } else { " (reloaded since)" };
    match result {
        Ok(b) => {
            let summary = format!("{about}{}{stale}", b.summary());
            let Some(d) = &b.first else {
                if let [(doc, _)] = docs {
                    s.bisect.last_clean = Some((
                        *doc,
                        ":bisect run found every step computing what the input does",
                    ));
                    s.bisect.last_found = s.bisect.last_found.filter(|(d, ..)| d != doc);
                }
                s.set_message(summary);
                return;
            };
            use crate::pipeline::{Diagnostic, Severity};
            if fresh {
                // The same pass in every stage's run (their source steps may differ).
                for &(doc, generation) in docs {
                    let Some(run) = s.docs[doc].run.clone() else {
                        continue;
                    };
                    let steps = crate::pipeline::semantic::pass_steps(&run);
                    let Some(&step) = steps.get(d.pass_index) else {
                        continue;
                    };
                    use crate::pipeline::semantic::Finding;
                    let how = match d.finding {
                        Finding::Differs => "computes otherwise than the input",
                        Finding::Fails => "the driver cannot run it",
                        Finding::Crashes => "crashes the driver",
                        Finding::Hangs => "hangs the driver",
                    };
                    let value = d
                        .value
                        .as_ref()
                        .map(|v| format!("; first difference: {v} (:first-difference goes to it)"))
                        .unwrap_or_default();
                    let diag =
                        Diagnostic::new(Severity::Error, format!("{how}: {}{value}", d.what));
                    s.bisect.found.insert((doc, generation, step), vec![diag]);
                    let property = match d.finding {
                        Finding::Differs => Some("differs"),
                        Finding::Crashes | Finding::Hangs => Some("crash"),
                        Finding::Fails => None,
                    };
                    if let (Some(p), true) = (property, doc == s.doc) {
                        s.bisect.last_found = Some((doc, generation, d.pass_index, p));
                        s.bisect.last_clean = None;
                    }
                    if doc == s.doc {
                        s.step = step;
                        s.diff.base = None;
                        s.compare.base = None;
                        s.diff.against = Against::Steps;
                        s.diags.cursor = 0;
                        if !matches!(s.view, ViewMode::Diff | ViewMode::Split) {
                            s.view = ViewMode::Diff;
                        }
                    }
                }
            }
            s.set_error(summary);
        }
        Err(e) => s.set_error(format!("{about}bisect run: {e}")),
    }
}
