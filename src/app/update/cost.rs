//! What a step costs the GPU, in the TUI: the pressure gutter (`P`), the cost pane (`:cost`) and
//! the values live at an instruction (`:live`, `Enter` on a peak).

use super::Effect;
use crate::app::action::Action;
use crate::app::state::{Focus, State, ValueEntry, ValueList, ValueListKind};
use crate::ir::analysis::liveness::{Liveness, Weights};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Pressure(on) => {
            s.cost.pressure = on.unwrap_or(!s.cost.pressure);
            if !s.cost.pressure {
                s.set_message("pressure gutter off");
                return Vec::new();
            }
            match s.run().and_then(|r| r.steps.get(s.step)).map(|st| st.cost()) {
                Some(c) => s.set_message(format!(
                    "pressure gutter: 32-bit components live after each line; this step peaks at {} (Enter on ▲: what is live)",
                    c.pressure.max
                )),
                None => s.set_message("pressure gutter on"),
            }
        }
        Action::CostPane => {
            s.cost.shown = !s.cost.shown;
            if s.cost.shown && s.run().is_none() {
                // The pane shows once there are steps; until then, why there are none.
                s.set_error(
                    "cost: the shader has no steps to cost yet (it has not loaded; the pane opens with its run)",
                );
            } else if s.cost.shown {
                s.set_message("cost: the step's mix against its base step's; the chart marks the step (:cost closes)");
            }
        }
        Action::Live => live(s),
        Action::Peak => peak(s),
        other => unreachable!("not an action of cost: {other:?}"),
    }
    Vec::new()
}

/// Goes to the instruction after which the step's pressure peaks: the peak of the function
/// with the highest of its own.
fn peak(s: &mut State) {
    let Some(st) = s.run().and_then(|r| r.steps.get(s.step)) else {
        return;
    };
    if st.is_source() {
        s.set_error("this step shows the source text: the peak is in a pass's step (J)");
        return;
    }
    let cost = st.cost();
    let Some((func, p)) = cost.pressure.functions.iter().max_by_key(|(_, p)| p.max) else {
        s.set_error("no function at this step");
        return;
    };
    let (func, inst, max) = (*func, p.peak, p.max);
    let find = |s: &State| {
        (0..s.panel.len()).find(|&r| {
            s.panel.row_line(r).is_some_and(|(l, k)| {
                let info = l.info(k);
                info.func == Some(func) && (inst.is_none() || info.inst == inst)
            })
        })
    };
    let mut row = find(s);
    if row.is_none() {
        // Shown another function alone, or a diff: the step itself.
        super::code_view::show_whole_step(s);
        row = find(s);
    }
    match row {
        Some(r) => {
            super::code_view::jump_to(s, r);
            s.focus = Focus::Code;
            s.set_message(format!(
                "the step's pressure peaks here: {max} components (Enter with the gutter on: what is live)"
            ));
        }
        None => s.set_error("the peak's line is not in this text"),
    }
}

/// Whether the cursor's line prints the instruction its function's pressure peaks after.
pub(super) fn cursor_on_peak(s: &State) -> bool {
    let Some((listing, k)) = s.panel.row_line(s.code.cursor) else {
        return false;
    };
    let info = listing.info(k);
    let (Some(func), Some(inst)) = (info.func, info.inst) else {
        return false;
    };
    s.run()
        .and_then(|r| r.steps.get(s.step))
        .and_then(|st| st.known_cost().cloned())
        .and_then(|c| c.pressure.function(func).map(|p| p.peak == Some(inst)))
        .unwrap_or(false)
}

/// Lists the values live after the cursor's instruction, each at its definition.
fn live(s: &mut State) {
    let made = live_entries(s);
    match made {
        Err(e) => s.set_error(e),
        Ok((what, total, entries)) => {
            s.set_message(format!(
                "{what}: {total} components in {} values (Enter goes to one)",
                entries.len()
            ));
            s.values = Some(ValueList::new(s, ValueListKind::Live, &what, entries));
            s.focus = Focus::Values;
        }
    }
}

/// The values live after the cursor's instruction: what the list says it is, their
/// components, and an entry per value.
fn live_entries(s: &State) -> Result<(String, u32, Vec<ValueEntry>), String> {
    let (listing, k) = s
        .panel
        .row_line(s.code.cursor)
        .ok_or("no line under the cursor")?;
    let info = listing.info(k);
    let (Some(func), Some(inst)) = (info.func, info.inst) else {
        return Err(
            "this line prints no instruction of a function: nothing is live after it".into(),
        );
    };
    let module = s
        .run()
        .and_then(|r| r.steps.get(s.step))
        .map(|st| st.module.clone())
        .ok_or("no step")?;
    let f = module
        .function(func)
        .ok_or("no such function at this step")?;
    let live = Liveness::new(f, &Weights::of(&module)).live_after(f, Some(inst));
    let total: u32 = live.iter().map(|(_, w)| w).sum();
    let names = crate::ir::names::Names::for_module(&module);
    let entries = live
        .iter()
        .map(|&(id, w)| {
            let line = listing.def_row(id);
            let text = line.map_or_else(
                || format!("%{}", names.get(id)),
                |l| listing.lines[l].trim().to_string(),
            );
            ValueEntry {
                source: None,
                step: s.step,
                line,
                value: Some(id),
                text: format!("{w:>3}  {text}"),
            }
        })
        .collect();
    Ok((format!("live after line {}", k + 1), total, entries))
}
