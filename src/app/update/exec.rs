//! The values column (`:exec`, `X`, `:invocation`, `:pixel`, `:vertex`): what it shows and
//! which step the interpreter runs next. A step is run once per run of the input and kept
//! (the last `EXEC_KEPT`); moving to a step not run yet runs it, off the UI thread.

use std::sync::Arc;

use super::Effect;
use crate::app::action::{Action, ExecArg};
use crate::app::state::{State, StepKey, EXEC_KEPT};
use crate::pipeline::step_values::StepRun;

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    let Action::Exec(arg) = action else {
        unreachable!("not an action of the values column: {action:?}")
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
        }
    }
    if !s.exec.shown {
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
    match run.shown(s.exec.chosen, &module, s.exec.hex) {
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
        "values column: {} instructions executed in {:.0} ms, trace {trace}{}",
        run.executed(),
        run.took.as_secs_f64() * 1e3,
        if run.cut() {
            " (cut at its limit: later values are missing)"
        } else {
            ""
        }
    )
}

/// A run of step `key` came back: kept, the oldest dropped past `EXEC_KEPT`.
pub(crate) fn executed(s: &mut State, key: StepKey, result: Result<Arc<StepRun>, String>) {
    if s.exec.running == Some(key) {
        s.exec.running = None;
    }
    // What the column shows is derived again, from this run.
    s.exec.derived_for = None;
    s.exec.runs.retain(|(k, _)| *k != key);
    s.exec.runs.push((key, result));
    let excess = s.exec.runs.len().saturating_sub(EXEC_KEPT);
    s.exec.runs.drain(..excess);
    if s.step_key() == Some(key) && s.exec.shown {
        say(s);
    }
}

/// The run the values column waits for, if it is to start now: the selected step, shown, not
/// kept, not running (one run at a time: the next starts when it ends).
pub(super) fn follow(s: &mut State) -> Option<Effect> {
    if !s.exec.shown || s.exec.running.is_some() {
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
