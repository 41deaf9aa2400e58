//! The value pane (`views::values`): the uses of the selected value in this step, its history
//! across the run, and going to an entry.

use super::code_view::{is_definition_row, jump_to, selected_value, show_whole_step};
use super::pass_list::select_step;
use super::search::row_matches;
use super::Effect;
use crate::app::action::{Action, ViewMode};
use crate::app::derive::{refresh_panel, step_text, Side};
use crate::app::state::{
    search_matches, Focus, Rows, Search, State, ValueEntry, ValueList, ValueListKind,
};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Uses => {
            let Some((tok, id)) = selected_value(s) else {
                s.set_error("no id on this line");
                return Vec::new();
            };
            let search = Search {
                text: tok.clone(),
                whole_word: true,
                uses_of: id,
            };
            // The rows whose instruction uses the value, as the printer recorded; text
            // without that record (a shader's source) counts the token's other mentions.
            let uses = match id {
                Some(_) => (0..s.panel.len())
                    .filter(|&r| row_matches(s, r, &search))
                    .count(),
                None => (0..s.panel.len())
                    .filter(|&r| !is_definition_row(s.panel.row_text(r), &tok))
                    .map(|r| search_matches(s.panel.row_text(r), &search).len())
                    .sum::<usize>(),
            };
            if let Some(id) = id {
                s.values = Some(uses_list(s, &tok, id));
            }
            s.search = Some(search);
            s.set_message(match uses {
                0 => format!("no uses of {tok}"),
                1 => format!("1 use of {tok} (n/N to walk them)"),
                n => format!("{n} uses of {tok} (n/N to walk them)"),
            });
        }
        Action::History => {
            let Some((tok, id)) = selected_value(s) else {
                s.set_error("no id on this line");
                return Vec::new();
            };
            let Some(id) = id else {
                s.set_error(format!(
                    "{tok}: this text records no values (a shader's source)"
                ));
                return Vec::new();
            };
            let list = history_list(s, &tok, id);
            let n = list.entries.len();
            s.values = Some(list);
            s.focus = Focus::Values;
            let under_way = if s.run_under_way() {
                "; the run is still under way: its later steps are not in it"
            } else {
                ""
            };
            s.set_message(format!(
                "history of {tok}: {n} event{} (Enter goes to one, x closes){under_way}",
                if n == 1 { "" } else { "s" }
            ));
        }
        Action::Lost => lost(s),
        Action::Sources => sources(s),
        Action::ValueGoto => value_goto(s),
        Action::ValueClose => {
            s.values = None;
            if s.focus == Focus::Values {
                s.focus = Focus::Code;
            }
        }
        other => unreachable!("not an action of values: {other:?}"),
    }
    Vec::new()
}

pub(super) fn move_values(s: &mut State, delta: isize) {
    if let Some(v) = &mut s.values {
        let n = v.entries.len();
        if n > 0 {
            v.cursor = (v.cursor as isize + delta).clamp(0, n as isize - 1) as usize;
        }
    }
}

/// The list of the lines of the selected step whose instruction uses value `id`.
fn uses_list(s: &mut State, tok: &str, id: crate::ir::Id) -> ValueList {
    let (_, listing) = step_text(s, Side::Current, s.step, s.text);
    let entries = (0..listing.len())
        .filter(|&k| listing.info(k).uses.contains(&id))
        .map(|k| ValueEntry {
            source: None,
            step: s.step,
            line: Some(k),
            value: Some(id),
            text: format!("{:>6}  {}", k + 1, listing.lines[k].trim()),
        })
        .collect();
    ValueList::new(s, ValueListKind::Uses, tok, entries)
}

/// The history of value `id` across the steps of the run, one entry per event.
fn history_list(s: &State, tok: &str, id: crate::ir::Id) -> ValueList {
    use crate::ir::names::Names;
    use crate::pipeline::history::{history, EventKind};
    let mut entries = Vec::new();
    if let Some(run) = s.run() {
        // Each step's printed names, made once (several events may fall on one step).
        let mut names: std::collections::HashMap<usize, Names> = Default::default();
        for e in history(run, id) {
            let step = &run.steps[e.step];
            // Ids as the step before printed them (what went) and as this step prints them.
            let earlier = e.step.saturating_sub(1);
            for k in [earlier, e.step] {
                names
                    .entry(k)
                    .or_insert_with(|| Names::for_module(&run.steps[k].module));
            }
            let (before, after) = (&names[&earlier], &names[&e.step]);
            let old = |id: crate::ir::Id| format!("%{}", before.get(id));
            let new = |id: crate::ir::Id| format!("%{}", after.get(id));
            let what = match &e.kind {
                EventKind::Created => format!("{} created", new(e.value)),
                EventKind::Changed => format!("{} changed", new(e.value)),
                EventKind::Moved { from, to } => {
                    format!("{} moved from {} to {}", new(e.value), old(*from), new(*to))
                }
                EventKind::Replaced { by } => format!("replaced by {}", new(*by)),
                EventKind::Replaces { old: o } => {
                    format!("{} took the place of {}", new(e.value), old(*o))
                }
                EventKind::Renamed { by } => format!("followed by its name: {}", new(*by)),
                EventKind::Inferred { by } => {
                    format!("replaced by {} (its users use it now)", new(*by))
                }
                EventKind::Placed { by } => {
                    format!("followed by its place: {} stands where it stood", new(*by))
                }
                EventKind::Renumbered { by } => {
                    format!("renumbered: {} (aligned with the step before)", new(*by))
                }
                EventKind::Deleted => format!("{} deleted", old(e.value)),
                EventKind::Lost => "lost: no record, name or place to follow it by".to_string(),
            };
            entries.push(ValueEntry {
                source: None,
                step: e.step,
                line: None,
                value: Some(e.value),
                text: format!("{:>3} {:<24} {what}", e.step, step.pass),
            });
        }
    }
    ValueList::new(s, ValueListKind::History, tok, entries)
}

/// `:lost`: the source lines the selected step covers no more, each with the instruction that
/// carried it in the step before; `Enter` shows the diff that removed it.
fn lost(s: &mut State) {
    let Some(run) = s.run() else {
        s.set_error("nothing loaded");
        return;
    };
    let step = s.step;
    let Some(before) = step
        .checked_sub(1)
        .and_then(|p| run.steps.get(p))
        .filter(|b| !b.is_source())
    else {
        s.set_error("this step has no step before it to lose lines against");
        return;
    };
    let (before_cov, after_cov) = (before.coverage(), run.steps[step].coverage());
    let pass = run.steps[step].pass;
    let names = crate::ir::names::Names::for_module(&before.module);
    // The text of each line, from the files the step before names (found as the pane finds
    // them; files on disk are read once).
    let texts: std::collections::HashMap<String, Option<std::sync::Arc<Vec<String>>>> =
        crate::app::derive::sources_of_step(s, step - 1)
            .map(|sources| {
                sources
                    .files
                    .values()
                    .map(|src| (src.name.clone(), src.lines.clone()))
                    .collect()
            })
            .unwrap_or_default();
    let entries: Vec<ValueEntry> = before_cov
        .lost_in(&after_cov)
        .map(|((file, line), carrier)| {
            let code = texts
                .get(file)
                .and_then(|t| t.as_ref())
                .and_then(|t| t.get((*line as usize).checked_sub(1)?))
                .map_or(String::new(), |l| l.trim().to_string());
            let short = std::path::Path::new(file)
                .file_name()
                .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
            let what = match carrier.result {
                Some(r) => format!("%{} = Op{:?}", names.get(r), carrier.op),
                None => format!("Op{:?}", carrier.op),
            };
            ValueEntry {
                source: Some((file.clone(), *line)),
                step,
                line: None,
                value: carrier.result,
                text: format!(
                    "{short}:{line}  {code}  <- {what} in %{}",
                    names.get(carrier.function)
                ),
            }
        })
        .collect();
    let n = entries.len();
    let list = ValueList::new(s, ValueListKind::Lost, &format!("{step} {pass}"), entries);
    s.values = Some(list);
    if n > 0 {
        s.focus = Focus::Values;
    }
    s.set_message(if n == 0 {
        format!("step {step} {pass} keeps every source line the step before had code for")
    } else {
        format!(
            "step {step} {pass} lost {n} source line{} (Enter shows the code that went)",
            if n == 1 { "" } else { "s" }
        )
    });
}

/// `:sources`: the source files the selected step's module names, each with where its text
/// came from and how many of its lines have code at this step.
fn sources(s: &mut State) {
    let Some(files) = crate::app::derive::step_sources(s) else {
        s.set_error("nothing loaded");
        return;
    };
    let rows = crate::app::derive::rows_by_source(s);
    let step = s.step;
    let entries: Vec<ValueEntry> = files
        .order
        .iter()
        .map(|&id| {
            let src = &files.files[&id];
            let lines = rows.keys().filter(|(f, _)| *f == id).count();
            let origin = match &src.origin {
                Some(o) => o.describe(),
                None => "not found".into(),
            };
            let differs = if src.differs {
                ", the file on disk differs"
            } else {
                ""
            };
            ValueEntry {
                source: None,
                step,
                line: None,
                value: Some(id),
                text: format!(
                    "{}  ({origin}{differs}; {lines} line{} with code here)",
                    src.name,
                    if lines == 1 { "" } else { "s" }
                ),
            }
        })
        .collect();
    let n = entries.len();
    let name = s.run().map_or(String::new(), |r| {
        format!("{step} {}", r.steps.get(step).map_or("", |st| st.pass))
    });
    s.values = Some(ValueList::new(s, ValueListKind::Sources, &name, entries));
    if n > 0 {
        s.focus = Focus::Values;
    }
    s.set_message(match n {
        0 => "this step's module names no source file (no line info)".to_string(),
        n => format!("{n} source file{}", if n == 1 { "" } else { "s" }),
    });
}

/// Shows source file `file` in the source pane: at its first line with code at this step (the
/// code pane goes there), else at its top.
fn show_source_file(s: &mut State, file: crate::ir::Id) {
    s.source.shown = true;
    let rows = crate::app::derive::rows_by_source(s);
    let first = rows
        .iter()
        .filter(|((f, _), _)| *f == file)
        .map(|(&(_, line), rows)| (line, rows[0]))
        .min();
    match first {
        Some((line, row)) => {
            jump_to(s, row);
            s.source.pinned = Some((file, line, (s.doc, s.step, s.code.cursor)));
            s.focus = Focus::Source;
        }
        None => {
            s.source.pinned = Some((file, 1, (s.doc, s.step, s.code.cursor)));
            s.set_message("no line of this file has code at this step");
        }
    }
}

/// Goes to the selected entry of the value list: the use's line, or the step of the history
/// event with the value's definition selected (a deleted value: the diff that removed it).
fn value_goto(s: &mut State) {
    let Some(list) = s.values.clone() else {
        return;
    };
    let Some(entry) = list.entries.get(list.cursor).cloned() else {
        s.set_error("the list is empty");
        return;
    };
    if list.doc != s.doc || list.generation != s.current().map_or(0, |d| d.generation) {
        s.set_error("the list is of an earlier run: ask for it again");
        return;
    }
    if s.step != entry.step {
        select_step(s, entry.step);
    }
    if list.kind == ValueListKind::Sources {
        if let Some(file) = entry.value {
            show_source_file(s, file);
        }
        return;
    }
    if list.kind == ValueListKind::Differing
        && super::exec::choose_differing(s, list.cursor).is_none()
    {
        s.set_error("the list is of an earlier first difference: ask for it again");
        return;
    }
    let row = match (entry.line, entry.value) {
        (Some(line), _) => {
            // The line is of the text the list was made from.
            s.text = list.text;
            show_whole_step(s);
            let row = match &s.panel.rows {
                Rows::Text { range, .. } => line.checked_sub(range.start),
                Rows::Diff { .. } => None,
            };
            row.filter(|&r| r < s.panel.len())
        }
        (None, Some(id)) => {
            refresh_panel(s);
            let mut row = s.panel.row_defining(id);
            if row.is_none() && s.func.is_some() {
                s.func = None;
                refresh_panel(s);
                row = s.panel.row_defining(id);
            }
            if row.is_none() && entry.step > 0 {
                // Gone at this step: the diff shows the line that went.
                s.view = ViewMode::Diff;
                s.diff.base = None;
                refresh_panel(s);
                row = s.panel.row_defining(id).or_else(|| {
                    let (file, line) = entry.source.as_ref()?;
                    row_of_lost_line(s, file, *line)
                });
            }
            row
        }
        // A lost line whose code had no result: the diff of the step shows what went, at the
        // first line that carried it.
        (None, None) if list.kind == ValueListKind::Lost => {
            s.view = ViewMode::Diff;
            s.diff.base = None;
            refresh_panel(s);
            if let Some(r) = entry
                .source
                .as_ref()
                .and_then(|(file, line)| row_of_lost_line(s, file, *line))
            {
                jump_to(s, r);
                s.focus = Focus::Code;
            }
            s.set_message(format!("the diff shows what went: {}", entry.text.trim()));
            return;
        }
        (None, None) => None,
    };
    match row {
        Some(r) => {
            jump_to(s, r);
            s.focus = Focus::Code;
            s.set_message(entry.text.trim().to_string());
        }
        None => s.set_error(format!("{} is not shown at step {}", list.name, entry.step)),
    }
}

/// The diff row of the step before's code for source `line` of `file`: a line the step
/// removed, else any line of the step before that carried it.
fn row_of_lost_line(s: &State, file: &str, line: u32) -> Option<usize> {
    let before = s.run()?.steps.get(s.step.checked_sub(1)?)?;
    let strings = crate::ir::debug::strings(&before.module);
    let Rows::Diff { old, rows, .. } = &s.panel.rows else {
        return None;
    };
    let carries = |o: usize| {
        old.info(o)
            .source
            .is_some_and(|(f, l)| l == line && strings.get(&f).is_some_and(|n| n == file))
    };
    rows.iter()
        .position(|r| r.new.is_none() && r.old.is_some_and(carries))
        .or_else(|| rows.iter().position(|r| r.old.is_some_and(carries)))
}
