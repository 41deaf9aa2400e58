//! The code pane (`views::code_view`): its cursor and scrolling, the selected `%id` token and its
//! definition, the text shown (IR or SPIR-V, one function or all, a line by number).

use super::Effect;
use crate::app::action::{Action, ViewMode};
use crate::app::derive::{refresh_panel, step_text, Side};
use crate::app::state::{id_tokens, Focus, State, TextKind};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::ToggleText => {
            s.text = match s.text {
                TextKind::Ir => TextKind::Spirv,
                TextKind::Spirv | TextKind::Lang(_) | TextKind::Driver(_) => TextKind::Ir,
            };
            if matches!(s.view, ViewMode::Ir | ViewMode::Spirv) {
                s.view = s.text.view();
            }
        }
        Action::Func(name) => {
            let was_one = s.func.is_some();
            let name = name.filter(|n| !n.is_empty()).map(|n| {
                let n = n.trim_start_matches('%').to_string();
                let (_, listing) = step_text(s, Side::Current, s.step, s.text);
                source_named(&listing, &n).unwrap_or(n)
            });
            s.func = name;
            refresh_panel(s);
            if let Some(f) = &s.func {
                if s.panel.is_empty() {
                    let f = f.clone();
                    s.func = None;
                    s.set_error(format!("no function %{f} in this step"));
                } else {
                    s.set_message(format!("function %{f} only — :func shows all"));
                }
            } else if was_one {
                s.set_message("the whole module");
            }
            s.code.cursor = 0;
            s.code.scroll = 0;
        }
        Action::FuncAtCursor => {
            if s.func.is_some() {
                return super::update(s, Action::Func(None));
            }
            refresh_panel(s);
            match function_at(s) {
                Some(name) => return super::update(s, Action::Func(Some(name))),
                None => s.set_error("the cursor is not inside a function"),
            }
        }
        Action::Goto(n) => {
            refresh_panel(s);
            let target = (0..s.panel.len()).find(|&r| s.panel.line_number(r) >= n);
            match target {
                Some(r) => {
                    s.focus = Focus::Code;
                    jump_to(s, r)
                }
                // Past the end, as an editor does: the last line.
                None if !s.panel.is_empty() => {
                    s.focus = Focus::Code;
                    let last = s.panel.len() - 1;
                    jump_to(s, last);
                    s.set_message(format!(
                        "line {n} is past the end: the last line, {}",
                        s.panel.line_number(last)
                    ));
                }
                None => s.set_error("nothing is shown"),
            }
        }
        Action::NextToken | Action::PrevToken => {
            let n = id_tokens(s.panel.row_text(s.code.cursor)).len();
            if n > 0 {
                s.code.token = if action == Action::NextToken {
                    (s.code.token + 1) % n
                } else {
                    (s.code.token + n - 1) % n
                };
            }
        }
        // With the pressure gutter on, Enter on a function's peak lists what is live there.
        Action::Definition if s.cost.pressure && super::cost::cursor_on_peak(s) => {
            return super::update(s, Action::Live);
        }
        Action::Definition => definition(s),
        Action::ScrollRight if s.focus == Focus::Cfg => s.cfg.hscroll += 8,
        Action::ScrollLeft if s.focus == Focus::Cfg => {
            s.cfg.hscroll = s.cfg.hscroll.saturating_sub(8)
        }
        Action::ScrollRight => s.code.hscroll += 8,
        Action::ScrollLeft => s.code.hscroll = s.code.hscroll.saturating_sub(8),
        other => unreachable!("not an action of code_view: {other:?}"),
    }
    Vec::new()
}

pub(super) fn move_cursor(s: &mut State, delta: isize) {
    let len = s.panel.len();
    if len == 0 {
        return;
    }
    s.code.cursor = (s.code.cursor as isize + delta).clamp(0, len as isize - 1) as usize;
    s.code.token = 0;
}

pub(super) fn scroll_code(s: &mut State, delta: isize) {
    let rows = s.layout.code_rows();
    let max = s.panel.len().saturating_sub(rows);
    s.code.scroll = (s.code.scroll as isize + delta).clamp(0, max as isize) as usize;
    s.code.cursor = s.code.cursor.clamp(
        s.code.scroll,
        (s.code.scroll + rows).saturating_sub(1).max(s.code.scroll),
    );
}

pub(super) fn jump_to(s: &mut State, row: usize) {
    s.code.cursor = row;
    s.code.token = 0;
    let rows = s.layout.code_rows();
    // Put the target a few lines below the top, as editors do.
    if row < s.code.scroll || row >= s.code.scroll + rows {
        s.code.scroll = row.saturating_sub(rows / 4);
    }
}

/// The selected `%id` token of the cursor row, and the value it names where the printer
/// recorded what the row holds.
pub(super) fn selected_value(s: &State) -> Option<(String, Option<crate::ir::Id>)> {
    let text = s.panel.row_text(s.code.cursor);
    let toks = id_tokens(text);
    let k = s.code.token.min(toks.len().saturating_sub(1));
    let tok = text[toks.get(k)?.clone()].to_string();
    let id = s
        .panel
        .row_line(s.code.cursor)
        .and_then(|(l, line)| l.id_of_token(line, &tok, k, toks.len()));
    Some((tok, id))
}

pub(super) fn is_definition_row(text: &str, tok: &str) -> bool {
    text.trim_start()
        .strip_prefix(tok)
        .is_some_and(|rest| rest.trim_start().starts_with('='))
}

fn definition(s: &mut State) {
    let Some((tok, id)) = selected_value(s) else {
        s.set_error("no id on this line");
        return;
    };
    let find_row = |s: &State| match id {
        Some(id) => s.panel.row_defining(id),
        None => (0..s.panel.len()).find(|&r| is_definition_row(s.panel.row_text(r), &tok)),
    };
    let row = match find_row(s) {
        Some(r) => Some(r),
        None if s.func.is_some() => {
            // Defined outside the function shown (a global): show the whole module.
            s.func = None;
            refresh_panel(s);
            find_row(s)
        }
        None => None,
    };
    match row {
        Some(r) => {
            jump_to(s, r);
            s.set_message(format!("definition of {tok}"));
        }
        None => s.set_error(format!("{tok} has no definition here")),
    }
}

/// The function whose lines contain the cursor, by its printed name.
fn function_at(s: &State) -> Option<String> {
    let (l, k) = s.panel.row_line(s.code.cursor)?;
    let id = l.info(k).func?;
    l.function(id).map(|f| f.name.clone())
}

/// The function the code cursor is in: the row's own, else (a decompiled text) the function
/// whose code came from the row's source line, else the step's only function or its first
/// entry point.
pub(super) fn function_id_at_cursor(s: &mut State) -> Option<crate::ir::Id> {
    refresh_panel(s);
    let info = s
        .panel
        .row_line(s.code.cursor)
        .map(|(l, k)| (l.info(k).func, l.info(k).source));
    if let Some((Some(f), _)) = info {
        return Some(f);
    }
    let run = s.run()?;
    let m = &run.steps.get(s.step)?.module;
    let defined: Vec<&std::sync::Arc<crate::ir::func::Function>> = m
        .functions()
        .iter()
        .filter(|f| !f.is_declaration())
        .collect();
    if let Some((_, Some(source))) = info {
        let sets = crate::ir::debug::DebugSets::of(m);
        let from_line = defined.iter().find(|f| {
            f.layout().any(|(_, i)| {
                crate::ir::debug::source_line(m, &sets, f.location_of(i)) == Some(source)
            })
        });
        if let Some(f) = from_line {
            return Some(f.id());
        }
    }
    match defined.as_slice() {
        [f] => Some(f.id()),
        _ => m
            .entry_points()
            .iter()
            .find_map(|e| e.arg(0))
            .filter(|&id| defined.iter().any(|f| f.id() == id)),
    }
}

/// Shows the whole text of the selected step: not a diff, no function filter.
pub(super) fn show_whole_step(s: &mut State) {
    if matches!(s.view, ViewMode::Diff | ViewMode::Split) {
        s.view = s.text.view();
    }
    s.func = None;
    refresh_panel(s);
}

/// The function of `listing` a name from the source means: itself when a function prints so,
/// else the one function whose printed name is it and a compiler's mangling of the parameter
/// types (glslang names `distribution_ggx(f1;f1;`, printed `distribution_ggx_f1_f1_`).
fn source_named(listing: &crate::ir::listing::Listing, name: &str) -> Option<String> {
    if listing.function_named(name).is_some() {
        return None;
    }
    let mut mangled = listing.functions.iter().filter(|f| {
        f.name
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('(') || rest.starts_with('_'))
    });
    match (mangled.next(), mangled.next()) {
        (Some(f), None) => Some(f.name.clone()),
        _ => None,
    }
}
