//! The values column (`:exec`, `X`, `:invocation`, `:pixel`, `:vertex`): what it shows and
//! which step the interpreter runs next. A step is run once per run of the input and kept
//! (the last `EXEC_KEPT`); moving to a step not run yet runs it, off the UI thread.

use std::sync::Arc;

use super::Effect;
use crate::app::action::{Action, ExecArg, TraceMove};
use crate::app::state::{State, StepKey, EXEC_KEPT};
use crate::ir::fxhash::FxHashMap;
use crate::ir::Id;
use crate::pipeline::history::renamed_between;
use crate::pipeline::semantic::pass_steps;
use crate::pipeline::step_values::{FirstDifference, StepRun};
use crate::pipeline::Run;

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    let arg = match action {
        Action::Exec(arg) => arg,
        Action::FirstDifference(other) => {
            return match first_difference(s, other.as_deref()) {
                Ok(effect) => vec![effect],
                Err(e) => {
                    s.set_error(format!("first-difference: {e}"));
                    Vec::new()
                }
            };
        }
        Action::Locals => {
            let func = s
                .panel
                .row_line(s.code.cursor)
                .and_then(|(listing, k)| listing.info(k).func);
            let Some(func) = func else {
                s.set_error("locals: put the cursor in a function");
                return Vec::new();
            };
            s.exec.locals_function = Some(func);
            s.exec.shown = true;
            match locals_list(s) {
                Some(list) if list.entries.is_empty() => {
                    s.set_message(format!(
                        "locals: {} describes no source variable of this function at this step (a debug build does)",
                        list.name
                    ));
                    s.values = Some(list);
                }
                Some(list) => {
                    s.values = Some(list);
                    s.set_message("locals: their values where the values column stands (stepping: as they stood)");
                }
                None => s.set_message(
                    "locals: the variables list once the values column has run the step",
                ),
            }
            return Vec::new();
        }
        other => unreachable!("not an action of the values column: {other:?}"),
    };
    match arg {
        ExecArg::Toggle => s.exec.shown = !s.exec.shown,
        ExecArg::Shown(on) => s.exec.shown = on,
        ExecArg::Hex(hex) => {
            s.exec.hex = hex;
            s.exec.shown = true;
        }
        ExecArg::Who(chosen) => {
            s.exec.chosen = Some(chosen);
            s.exec.shown = true;
            // Another invocation's execution: stepping starts again.
            s.exec.trace = s.exec.trace.map(|_| 0);
        }
        ExecArg::Trace(m) => {
            trace(s, m);
            return Vec::new();
        }
    }
    if !s.exec.shown {
        s.exec.trace = None;
        s.set_message("values column off");
        return Vec::new();
    }
    match s.run().and_then(|r| r.steps.get(s.step)) {
        None => s.set_error("exec: the shader has no steps to run yet"),
        Some(st) if st.is_source() => {
            s.set_message("values column on: the source text has none; select a step (J)")
        }
        Some(_) => match s.step_key().and_then(|k| s.exec.run_of(k)) {
            Some(_) => say(s),
            None => s.set_message(format!("running step {} on the interpreter…", s.step)),
        },
    }
    Vec::new()
}

/// Says what the selected step's run shows: its size and time, or why the chosen
/// invocation's values cannot show.
fn say(s: &mut State) {
    let Some(Ok(run)) = s.step_key().and_then(|k| s.exec.run_of(k)).cloned() else {
        if let Some(Err(e)) = s.step_key().and_then(|k| s.exec.run_of(k)) {
            s.set_error(format!("exec: {e}"));
        }
        return;
    };
    if !run.covers(s.exec.chosen) {
        s.set_message(format!("running step {} on the interpreter…", s.step));
        return;
    }
    let Some(module) = s
        .run()
        .and_then(|r| r.steps.get(s.step))
        .map(|st| st.module.clone())
    else {
        return;
    };
    match run.shown(s.exec.chosen, &module, s.exec.hex, None) {
        Ok(_) => s.set_message(ran_text(&run)),
        Err(e) => s.set_error(format!("exec: {e}")),
    }
}

/// What the status line says of a run: its size and time.
fn ran_text(run: &StepRun) -> String {
    let bytes = run.trace_bytes();
    let trace = if bytes < 1 << 20 {
        format!("{} KiB", bytes.div_ceil(1024))
    } else {
        format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
    };
    format!(
        "values column: {} instructions executed in {:.0}ms, trace {trace}{}",
        run.executed(),
        run.took.as_secs_f64() * 1e3,
        if run.cut() {
            " (cut at its limit: later values are missing)"
        } else {
            ""
        }
    )
}

/// The values column's run of step `key` is still going after `took`: the status line counts
/// its time, where it still says the run is under way (never over what something else said
/// meanwhile), and not among the `:messages`, which its every tick would fill.
pub(crate) fn running(s: &mut State, key: StepKey, took: std::time::Duration) {
    if s.exec.running == Some(key) && waiting(s) {
        s.show_progress(format!(
            "running step {} on the interpreter… {:.1}s",
            key.2,
            took.as_secs_f64()
        ));
    }
}

/// A run of step `key` came back: kept, the oldest dropped past `EXEC_KEPT`.
pub(crate) fn executed(s: &mut State, key: StepKey, result: Result<Arc<StepRun>, String>) {
    if s.exec.running == Some(key) {
        s.exec.running = None;
        s.exec.cancelling = false;
    }
    if matches!(&result, Err(e) if e == crate::ir::exec::CANCELLED) {
        return;
    }
    // What the column shows is derived again, from this run.
    s.exec.derived_for = None;
    s.exec.runs.retain(|(k, _)| *k != key);
    s.exec.runs.push((key, result));
    let excess = s.exec.runs.len().saturating_sub(EXEC_KEPT);
    s.exec.runs.drain(..excess);
    // Said where the user waits for it, never over what something else said meanwhile
    // (a first difference found).
    if s.step_key() == Some(key) && s.exec.shown && waiting(s) {
        say(s);
    }
}

/// Whether the status line still says a values-column run is under way, or nothing: what
/// the run then says may take its place.
fn waiting(s: &State) -> bool {
    s.status
        .message
        .as_ref()
        .is_none_or(|m| m.text.starts_with("running step"))
}

/// The run the values column waits for, if it is to start now: the selected step, shown, not
/// kept, not running (one run at a time: a run of another step is stopped first).
pub(super) fn follow(s: &mut State) -> Option<Effect> {
    if s.exec.trace.is_some() && s.exec.trace_step != s.step_key() {
        s.exec.trace = Some(0);
    }
    s.exec.trace_step = s.step_key();
    if let Some(running) = s.exec.running {
        // A run nobody waits for any more (another step selected, another version of the
        // file, the column closed) stops, so that the one wanted starts at once.
        let wanted = s.exec.shown && s.step_key() == Some(running);
        if wanted || s.exec.cancelling {
            return None;
        }
        s.exec.cancelling = true;
        return Some(Effect::CancelExec);
    }
    if !s.exec.shown {
        return None;
    }
    let key = s.step_key()?;
    if let Some(k) = s.exec.runs.iter().position(|(k, _)| *k == key) {
        // Used again: the most recent. A run that kept one invocation's values only runs
        // again for another.
        let kept = s.exec.runs.remove(k);
        let covers = match &kept.1 {
            Ok(run) => run.covers(s.exec.chosen),
            Err(_) => true,
        };
        s.exec.runs.push(kept);
        if covers {
            return None;
        }
    }
    let step = s.run()?.steps.get(s.step)?;
    if step.is_source() || step.error.is_some() {
        return None;
    }
    let module = step.module.clone();
    s.exec.running = Some(key);
    Some(Effect::Exec {
        key,
        module,
        chosen: s.exec.chosen,
    })
}

/// What `:first-difference` runs: the selected step against the step before it, a step of
/// this run by number or pass name, or the same step of another open input.
fn first_difference(s: &mut State, other: Option<&str>) -> Result<Effect, String> {
    let run = s.run().cloned().ok_or("the shader has no steps yet")?;
    let key = s.step_key().ok_or("the shader has no steps yet")?;
    let this = run.steps.get(s.step).ok_or("no step selected")?;
    if this.is_source() {
        return Err("the source text does not run: select a step (J)".into());
    }
    let step_name = |run: &Run, j: usize| format!("step {j} {}", run.steps[j].pass);
    let (against, label, forward, this_is_later) = match other {
        None => {
            let steps = pass_steps(&run);
            let k = steps.iter().position(|&j| j == s.step).unwrap_or(0);
            let j = *k
                .checked_sub(1)
                .and_then(|k| steps.get(k))
                .ok_or("this is the first step: name a step or an open input to compare with")?;
            (
                run.steps[j].module.clone(),
                step_name(&run, j),
                renamed_between(&run, j, s.step),
                true,
            )
        }
        Some(text) => {
            let step = text
                .parse::<crate::app::action::StepRef>()
                .and_then(|r| super::pass_list::step_index(&run, &r));
            match step {
                Ok(j) if j == s.step => return Err("that is the selected step".into()),
                Ok(j) if run.steps[j].is_source() => {
                    return Err("the source text does not run: name a step".into())
                }
                Ok(j) => (
                    run.steps[j].module.clone(),
                    step_name(&run, j),
                    renamed_between(&run, j.min(s.step), j.max(s.step)),
                    s.step > j,
                ),
                Err(not_a_step) => {
                    let d = super::diff::other_input(s, Some(text))
                        .map_err(|e| format!("{not_a_step}; {e}"))?;
                    let theirs = s.docs[d].run.clone().ok_or("that input has no steps")?;
                    let j = s.input_step(d).ok_or("that input has no steps")?;
                    if theirs.steps[j].is_source() {
                        return Err("the other input's step is its source text".into());
                    }
                    (
                        theirs.steps[j].module.clone(),
                        format!(
                            "{} {}",
                            s.docs[d].display_name(&s.roots),
                            step_name(&theirs, j)
                        ),
                        FxHashMap::default(),
                        true,
                    )
                }
            }
        }
    };
    s.set_message(format!(
        "running step {} and {label} on the interpreter…",
        s.step
    ));
    Ok(Effect::FirstDifference {
        key,
        other: label,
        this: this.module.clone(),
        against,
        forward,
        this_is_later,
    })
}

/// `:first-difference` answered: the values column shows the invocation whose value differs,
/// the cursor goes to the value and the status line says both.
pub(crate) fn first_difference_found(
    s: &mut State,
    key: StepKey,
    other: &str,
    result: Result<Option<FirstDifference>, String>,
) {
    let d = match result {
        Ok(Some(d)) => d,
        Ok(None) => {
            s.set_message(format!(
                "no value differs: step {} and {other} compute the same for every invocation",
                key.2
            ));
            return;
        }
        Err(e) => {
            s.set_error(format!("first-difference: {e}"));
            return;
        }
    };
    let said = format!("first difference: {} (against {other})", d.text);
    if s.step_key() != Some(key) {
        s.set_message(format!("{said}, at step {}", key.2));
        return;
    }
    s.exec.shown = true;
    s.exec.chosen = Some(d.chosen);
    let id = d.id;
    let mut first = d;
    let mut differing = std::mem::take(&mut first.others);
    differing.insert(0, first.clone());
    s.exec.difference = Some((key, first));
    s.exec.differing = differing;
    // The values column is in the step's text (a bisect leaves a diff on screen).
    if matches!(
        s.view,
        crate::app::action::ViewMode::Diff | crate::app::action::ViewMode::Split
    ) {
        s.view = s.text.view();
    }
    crate::app::derive::refresh_panel(s);
    let mut row = s.panel.row_defining(id);
    if row.is_none() && s.func.is_some() {
        s.func = None;
        crate::app::derive::refresh_panel(s);
        row = s.panel.row_defining(id);
    }
    if let Some(r) = row {
        super::code_view::jump_to(s, r);
        s.focus = crate::app::state::Focus::Code;
    }
    let n = s.exec.differing.len();
    if n > 1 {
        // The invocations that differ offer themselves, the first chosen.
        let entries = s
            .exec
            .differing
            .iter()
            .map(|d| crate::app::state::ValueEntry {
                step: key.2,
                line: None,
                value: Some(d.id),
                text: format!("{}: {} → {}  {}", d.who, d.against, d.value, d.what),
                source: None,
            })
            .collect();
        let name = format!("step {} against {other}", key.2);
        s.values = Some(crate::app::state::ValueList::new(
            s,
            crate::app::state::ValueListKind::Differing,
            &name,
            entries,
        ));
        let listed = crate::pipeline::step_values::DIFFERING_LISTED;
        let count = if n > listed {
            format!("more than {listed}")
        } else {
            n.to_string()
        };
        s.set_message(format!("{said}; {count} invocations differ (listed)"));
    } else {
        s.set_message(said);
    }
}

/// The invocation of entry `k` of the `Differing` list chosen: its values shown, its first
/// difference beside them.
pub(crate) fn choose_differing(s: &mut State, k: usize) -> Option<crate::ir::Id> {
    let d = s.exec.differing.get(k)?.clone();
    let (key, _) = s.exec.difference.as_ref()?;
    let key = *key;
    s.exec.chosen = Some(d.chosen);
    s.exec.derived_for = None;
    let id = d.id;
    s.exec.difference = Some((key, d));
    Some(id)
}

/// A move through the chosen invocation's recorded execution: the values as they stood after
/// a result, and the cursor on the line that computed it.
fn trace(s: &mut State, m: TraceMove) {
    let (order, depth) = match &s.exec.shown_values {
        Some(Ok(v)) if s.exec.shown => (v.order.clone(), v.depth.clone()),
        _ if !s.exec.shown => {
            // Stepping needs the values: they come first.
            s.exec.shown = true;
            s.exec.trace = Some(0);
            s.set_message(
                "running the step on the interpreter, then stepping from its first result…",
            );
            return;
        }
        Some(Err(e)) => {
            s.set_error(format!("trace: {e}"));
            return;
        }
        _ => {
            s.set_error("trace: the step's values are not there yet (the interpreter is running)");
            return;
        }
    };
    if order.is_empty() {
        s.set_error("trace: the invocation computed no value");
        return;
    }
    let last = order.len() - 1;
    let at = s.exec.trace;
    let cursor_def = || -> Option<Id> {
        let (listing, k) = s.panel.row_line(s.code.cursor)?;
        listing.info(k).def
    };
    let next = match (m, at) {
        (TraceMove::Toggle, Some(_)) => {
            s.exec.trace = None;
            s.set_message("stepping off: the values column shows every value's last");
            return;
        }
        (TraceMove::Toggle, None) | (_, None) => Some(0),
        (TraceMove::Next, Some(p)) => (p < last).then_some(p + 1),
        (TraceMove::Prev, Some(p)) => p.checked_sub(1),
        (TraceMove::Again, Some(p)) => (p + 1..=last).find(|&q| order[q] == order[p]),
        (TraceMove::Over, Some(p)) => (p + 1..=last).find(|&q| depth[q] <= depth[p]),
        (TraceMove::Out, Some(p)) => (p + 1..=last).find(|&q| depth[q] < depth[p]),
        (TraceMove::ToCursor, Some(p)) => {
            let Some(id) = cursor_def() else {
                s.set_error("trace: the cursor's line computes no value");
                return;
            };
            (p + 1..=last).find(|&q| order[q] == id)
        }
    };
    let Some(q) = next else {
        s.set_message(match m {
            TraceMove::Prev => "trace: at the first result",
            TraceMove::Again => "trace: this line does not run again",
            TraceMove::Out => "trace: no result after this call returns",
            TraceMove::ToCursor => "trace: the cursor's line does not run again",
            _ => "trace: at the last result: the invocation ends here",
        });
        return;
    };
    s.exec.trace = Some(q);
    let id = order[q];
    crate::app::derive::refresh_panel(s);
    let mut row = s.panel.row_defining(id);
    if row.is_none() && s.func.is_some() {
        // Into a function the filter hides.
        s.func = None;
        crate::app::derive::refresh_panel(s);
        row = s.panel.row_defining(id);
    }
    if let Some(r) = row {
        super::code_view::jump_to(s, r);
    }
    s.set_message(format!("trace: result {} of {}", q + 1, order.len()));
}

/// The `:locals` list: the variables of `exec.locals_function` and their values in the values
/// column as it stands; `None` until the column has values.
pub(crate) fn locals_list(s: &State) -> Option<crate::app::state::ValueList> {
    use crate::app::state::{ValueEntry, ValueList, ValueListKind};
    let func = s.exec.locals_function?;
    let Some(Ok(shown)) = &s.exec.shown_values else {
        return None;
    };
    let module = s.run()?.steps.get(s.step)?.module.clone();
    let names = crate::ir::names::Names::for_module(&module);
    let entries = crate::pipeline::step_values::locals(&module, func, shown)
        .into_iter()
        .map(|l| ValueEntry {
            source: None,
            step: s.step,
            line: None,
            value: l.id,
            text: format!("{} = {}", l.name, l.value),
        })
        .collect();
    let name = format!("locals of %{}", names.get(func));
    Some(ValueList::new(s, ValueListKind::Locals, &name, entries))
}
