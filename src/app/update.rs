//! `update`: applies an action to the state and returns the effects (file reads, pipeline runs,
//! writes) for the event loop to carry out. Input becomes actions in `input`; the derived parts
//! of the state (the code pane's rows, highlighting) are kept fresh by `derive`.

use std::path::PathBuf;

use super::action::{Action, Answered, MouseKind, StepRef, ViewMode};
use super::derive::{refresh_link_table, refresh_panel, step_lines, step_text, Side};
use super::state::{
    id_tokens, search_matches, Focus, Mode, Rows, Search, State, TextKind, ValueEntry, ValueList,
    ValueListKind,
};
use super::worker::Job;
use crate::pipeline::diff::diff_lines;
use crate::pipeline::Run;

#[derive(Debug, PartialEq)]
pub enum Effect {
    /// Read inputs from disk and run the pipeline on them (together, when the inputs run
    /// together), and the compared pipeline on one, when one is compared. Each job carries the
    /// token its answer must bring back (see `load`).
    Load {
        jobs: Vec<Job>,
        compared: Option<Job>,
    },
    Write {
        path: PathBuf,
        bytes: Vec<u8>,
    },
    /// Open the user's editor at `line` of `path` (the terminal is handed over meanwhile).
    Edit {
        path: PathBuf,
        line: u32,
    },
    /// Validate every step of the current input with spirv-val.
    Bisect,
    /// Run the current input after every step on a Vulkan driver (in the background), buffers
    /// starting with the bytes of a file when one is given.
    BisectRun(Option<PathBuf>),
    /// Start running a second pipeline beside this one (a preset, a pass list or
    /// `spirv-opt FLAGS`) on every input (`jobs`), or stop (`None`).
    Compare {
        spec: Option<String>,
        jobs: Vec<Job>,
    },
}

/// Asks for input `i` to run again (every input, when they run together), and the compared
/// pipeline with it: each request's token grows, and only the answer to the newest counts.
pub(super) fn load(s: &mut State, i: usize) -> Effect {
    let docs: Vec<usize> = if s.batched {
        (0..s.docs.len()).collect()
    } else {
        vec![i]
    };
    let jobs = docs
        .into_iter()
        .map(|n| {
            let doc = &mut s.docs[n];
            job(n, &mut doc.requested, &doc.path)
        })
        .collect();
    let compared = (!s.batched && s.compare.spec.is_some()).then(|| compare_job(s, i));
    Effect::Load { jobs, compared }
}

/// A request of the compared pipeline's run on input `i`.
fn compare_job(s: &mut State, i: usize) -> Job {
    let doc = &mut s.docs[i];
    job(i, &mut doc.compare_requested, &doc.path)
}

/// A request for input `i` at `path`, with the next token of those counted in `requested`.
fn job(i: usize, requested: &mut u64, path: &std::path::Path) -> Job {
    *requested += 1;
    Job {
        doc: i,
        token: *requested,
        path: path.to_path_buf(),
    }
}

/// The prompt's text, for an edit: `None` outside the prompt.
fn prompt_text(s: &mut State) -> Option<&mut String> {
    match &mut s.mode {
        Mode::Command(buf) | Mode::Search(buf) => Some(buf),
        Mode::Normal => None,
    }
}

/// Scrolls the help by `delta` lines (clamped to its length).
fn scroll_help(s: &mut State, delta: isize) {
    let max = s.layout.help_lines.saturating_sub(s.layout.help_rows);
    s.help.scroll = (s.help.scroll as isize + delta).clamp(0, max as isize) as usize;
}

/// A click or wheel turn at a terminal cell, on the pane under it.
fn mouse(s: &mut State, col: u16, row: u16, kind: MouseKind) -> Vec<Effect> {
    let areas = s.layout.clone();
    let inside = |r: super::state::Area| r.contains(col, row);
    if let Some(b) = areas.shaders.filter(|&b| inside(b)) {
        match kind {
            MouseKind::Click => {
                let listed = s.listed_docs();
                let rows = b.height.saturating_sub(2) as usize;
                let idx = (row.saturating_sub(b.y + 1)) as usize + s.browser_first_row(rows);
                if row > b.y && idx < listed.len() {
                    s.focus = Focus::Shaders;
                    select_doc(s, listed[idx]);
                }
            }
            MouseKind::WheelDown => move_doc(s, 1),
            MouseKind::WheelUp => move_doc(s, -1),
        }
    } else if inside(areas.passes) {
        match kind {
            MouseKind::Click => {
                let visible = s.visible_steps();
                let idx = (row.saturating_sub(areas.passes.y + 1)) as usize + s.passes.scroll;
                if row > areas.passes.y && idx < visible.len() {
                    s.focus = Focus::Passes;
                    return update(s, Action::Step(StepRef::Index(visible[idx])));
                }
            }
            MouseKind::WheelDown => return update(s, Action::StepNext),
            MouseKind::WheelUp => return update(s, Action::StepPrev),
        }
    } else if inside(areas.code) {
        match kind {
            MouseKind::Click => {
                let r = (row.saturating_sub(areas.code.y + 1)) as usize + s.code.scroll;
                if row > areas.code.y && r < s.panel.len() {
                    s.focus = Focus::Code;
                    s.code.cursor = r;
                    s.code.token = 0;
                }
            }
            MouseKind::WheelDown => scroll_code(s, 3),
            MouseKind::WheelUp => scroll_code(s, -3),
        }
    } else if let Some(v) = areas.values.filter(|&v| inside(v)) {
        match kind {
            MouseKind::Click => {
                let rows = v.height.saturating_sub(2) as usize;
                if let Some(list) = &mut s.values {
                    // The first entry shown, as the view places them.
                    let first = list.cursor.saturating_sub(rows.saturating_sub(1));
                    let idx = (row.saturating_sub(v.y + 1)) as usize + first;
                    if row > v.y && idx < list.entries.len() {
                        list.cursor = idx;
                        s.focus = Focus::Values;
                    }
                }
            }
            MouseKind::WheelDown => move_values(s, 1),
            MouseKind::WheelUp => move_values(s, -1),
        }
    }
    Vec::new()
}

fn scroll_code(s: &mut State, delta: isize) {
    let rows = s.layout.code_rows();
    let max = s.panel.len().saturating_sub(rows);
    s.code.scroll = (s.code.scroll as isize + delta).clamp(0, max as isize) as usize;
    s.code.cursor = s.code.cursor.clamp(
        s.code.scroll,
        (s.code.scroll + rows).saturating_sub(1).max(s.code.scroll),
    );
}

fn step_index(run: &Run, r: &StepRef) -> Result<usize, String> {
    match r {
        StepRef::Compared(i) => Err(format!(
            "b{i} is a step of the compared pipeline: diff against it with :diff b{i} STEP"
        )),
        StepRef::Index(i) if *i < run.steps.len() => Ok(*i),
        StepRef::Index(i) => Err(format!(
            "no step {i}: steps are 0–{}",
            run.steps.len().saturating_sub(1)
        )),
        StepRef::Name(n) => run
            .steps
            .iter()
            .position(|st| st.pass == n)
            .ok_or_else(|| format!("no pass named '{n}' in this pipeline")),
    }
}

fn select_step(s: &mut State, step: usize) {
    s.step = step;
    let visible = s.visible_steps();
    if let Some(pos) = visible.iter().position(|&v| v == step) {
        let rows = s.layout.pass_rows();
        if pos < s.passes.scroll {
            s.passes.scroll = pos;
        } else if rows > 0 && pos >= s.passes.scroll + rows {
            s.passes.scroll = pos + 1 - rows;
        }
    }
}

fn move_step(s: &mut State, delta: isize) {
    let visible = s.visible_steps();
    if visible.is_empty() {
        return;
    }
    let pos = visible.iter().position(|&v| v == s.step).unwrap_or(0) as isize;
    let next = (pos + delta).clamp(0, visible.len() as isize - 1) as usize;
    select_step(s, visible[next]);
}

/// Selects input `i`: the same step of its pipeline, from the top of the code.
fn select_doc(s: &mut State, i: usize) {
    if s.doc == i {
        return;
    }
    let aligned = if s.linked { s.aligned_step(i) } else { None };
    s.doc = i;
    if let Some(step) = aligned {
        s.step = step;
    }
    s.diff_prev = false;
    s.func = None;
    s.code.cursor = 0;
    s.code.scroll = 0;
    s.code.hscroll = 0;
    s.diags.cursor = 0;
    let steps = s.step_count();
    s.step = s.step.min(steps.saturating_sub(1));
}

/// Moves the selection in the shader browser (in display order).
fn move_doc(s: &mut State, delta: isize) {
    let listed = s.listed_docs();
    if listed.is_empty() {
        return;
    }
    let pos = listed.iter().position(|&d| d == s.doc).unwrap_or(0) as isize;
    let next = (pos + delta).clamp(0, listed.len() as isize - 1) as usize;
    select_doc(s, listed[next]);
}

/// The op table entry of the first op on a line of IR or SPIR-V text: a dialect op by name
/// (`qptr.offset`), the instruction of an `OpExtInst` of GLSL.std.450 (`… OpExtInst %float
/// %1 Sqrt …`), or a core opcode.
pub fn op_on_line(text: &str) -> Option<&'static crate::ir::ops::OpInfo> {
    use crate::ir::ops;
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '=' || c == ';')
        .filter(|w| !w.is_empty())
        .collect();
    for (k, w) in words.iter().enumerate() {
        if let Some(d) = ops::dialect_by_name(w) {
            return Some(d);
        }
        if *w == "OpExtInst" {
            // OpExtInst %type %set Name …
            let named = words
                .get(k + 3)
                .and_then(|n| ops::by_name(&format!("{}.{n}", ops::GLSL_SET)));
            return named.or_else(|| ops::by_name(w));
        }
        if w.starts_with("Op") && w.len() > 2 {
            return ops::by_name(w);
        }
    }
    None
}

/// Opens the op table's entry for the first op on the cursor line.
fn op_info(s: &mut State) {
    let text = s.panel.row_text(s.code.cursor).to_string();
    let Some(info) = op_on_line(&text) else {
        s.set_error("no opcode on this line");
        return;
    };
    let overloads: Vec<String> = info
        .overloads
        .iter()
        .map(|o| {
            let caps: Vec<String> = o
                .widths
                .iter()
                .filter_map(|w| {
                    crate::ir::ops::width_capability(o.kind, *w)
                        .map(|c| format!("{}{w} needs {c:?}", &o.kind.name()[..1]))
                })
                .collect();
            if caps.is_empty() {
                o.to_string()
            } else {
                format!("{o}; {}", caps.join(", "))
            }
        })
        .collect();
    let operands: Vec<String> = if !info.operand_names.is_empty() {
        info.operand_names.iter().map(|n| format!("%{n}")).collect()
    } else {
        info.operands
            .iter()
            .map(|(k, q)| {
                let q = match q {
                    rspirv::grammar::OperandQuantifier::One => "",
                    rspirv::grammar::OperandQuantifier::ZeroOrOne => "?",
                    rspirv::grammar::OperandQuantifier::ZeroOrMore => "*",
                };
                format!("{k:?}{q}")
            })
            .collect()
    };
    let mut lines = vec![
        format!(
            "opcode      0x{:08x} (FeatureID 0x{:04x}, {})",
            info.opcode,
            info.feature_id(),
            if info.experimental() {
                "experimental"
            } else {
                "stable"
            }
        ),
        format!("class       {}", info.class.name()),
        format!(
            "attributes  {}",
            if info.attrs.names().is_empty() {
                "none".to_string()
            } else {
                info.attrs.names().join(", ")
            }
        ),
        format!(
            "overloads   {}",
            if overloads.is_empty() {
                "any type".to_string()
            } else {
                overloads.join(" / ")
            }
        ),
        format!("operands    {}", operands.join(" ")),
    ];
    if let Some(image) = info.image {
        lines.push(format!("image       {image}"));
    }
    if !info.capabilities.is_empty() {
        let caps: Vec<String> = info.capabilities.iter().map(|c| format!("{c:?}")).collect();
        lines.push(format!("needs one of {}", caps.join(", ")));
    }
    if let Some((major, minor)) = info.min_version {
        let by = if info.extensions.is_empty() {
            String::new()
        } else {
            format!(" (earlier with {})", info.extensions.join(" or "))
        };
        lines.push(format!("needs       SPIR-V {major}.{minor}{by}"));
    }
    lines.push(format!("set         {}", info.set.name()));
    if let Some(f) = info.family {
        lines.push(format!("family      {f}"));
    }
    lines.push(String::new());
    lines.push(info.doc.clone());
    s.popup = Some(super::state::Popup {
        title: info.name.clone(),
        lines,
    });
}

fn move_values(s: &mut State, delta: isize) {
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
            step: s.step,
            line: Some(k),
            value: Some(id),
            text: format!("{:>6}  {}", k + 1, listing.lines[k].trim()),
        })
        .collect();
    ValueList::new(s, ValueListKind::Uses, tok, entries)
}

/// Applies what carrying out an effect gave.
fn outcome(s: &mut State, o: super::action::Outcome) {
    use super::action::Outcome;
    match o {
        Outcome::Failed(e) => s.set_error(e),
        Outcome::Done(m) => s.set_message(m),
        Outcome::CompareFailed(e) => {
            // Its runs will not come.
            for d in &mut s.docs {
                d.compare_answered = d.compare_requested;
            }
            s.set_error(e);
        }
        Outcome::Comparing(spec) => {
            // The outputs against each other first, once the compared run is there.
            s.compare.base = Some(usize::MAX);
            s.set_message(format!("comparing with {spec}…"));
            s.compare.spec = Some(spec);
        }
    }
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
                EventKind::Deleted => format!("{} deleted", old(e.value)),
                EventKind::Lost => "lost: no record, name or place to follow it by".to_string(),
            };
            entries.push(ValueEntry {
                step: e.step,
                line: None,
                value: Some(e.value),
                text: format!("{:>3} {:<24} {what}", e.step, step.pass),
            });
        }
    }
    ValueList::new(s, ValueListKind::History, tok, entries)
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
                s.base = None;
                refresh_panel(s);
                row = s.panel.row_defining(id);
            }
            row
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

fn move_diag(s: &mut State, delta: isize) {
    let n = s.diagnostics_of(s.step).len();
    if n > 0 {
        s.diags.cursor = (s.diags.cursor as isize + delta).clamp(0, n as isize - 1) as usize;
    }
}

fn move_link(s: &mut State, delta: isize) {
    refresh_link_table(s);
    let n = s.link.table.len();
    if n == 0 {
        return;
    }
    s.link.cursor = (s.link.cursor as isize + delta).clamp(0, n as isize - 1) as usize;
}

/// Shows the variable of the selected link view row in its stage: the writer (earlier stage)
/// or the reader (later stage), at the same step.
fn link_jump(s: &mut State, reader: bool) {
    refresh_link_table(s);
    let rows = &s.link.table;
    let Some(row) = rows
        .get(s.link.cursor.min(rows.len().saturating_sub(1)))
        .cloned()
    else {
        s.set_error("the link view has no rows");
        return;
    };
    let side = if reader { &row.reader } else { &row.writer };
    let other = if reader { &row.writer } else { &row.reader };
    // A side outside the shaders (vertex buffer, attachment) jumps to the other side.
    let target = match (side, other) {
        (Some((stage, name)), _) if *stage != usize::MAX => (*stage, name.clone()),
        (_, Some((stage, name))) if *stage != usize::MAX => (*stage, name.clone()),
        _ => {
            s.set_error("this row has no variable in a stage");
            return;
        }
    };
    let (stage, name) = target;
    select_doc(s, stage);
    match show_definition(s, &name) {
        Some(r) => {
            jump_to(s, r);
            let file = s.docs[stage].path.display().to_string();
            s.set_message(format!("{name} in {file} ({})", row.slot));
        }
        None => s.set_error(format!(
            "{name} is not in {} at this step (the link removed it)",
            s.docs[stage].path.display()
        )),
    }
}

/// Shows the whole text of the selected step (not a diff, no function filter) and returns the
/// row that defines `target` (`%name`), if the step has one.
fn show_definition(s: &mut State, target: &str) -> Option<usize> {
    show_whole_step(s);
    (0..s.panel.len()).find(|&r| is_definition_row(s.panel.row_text(r), target))
}

/// Shows the whole text of the selected step: not a diff, no function filter.
fn show_whole_step(s: &mut State) {
    if matches!(s.view, ViewMode::Diff | ViewMode::Split) {
        s.view = if s.text == TextKind::Ir {
            ViewMode::Ir
        } else {
            ViewMode::Spirv
        };
    }
    s.func = None;
    refresh_panel(s);
}

/// Shows the instruction (or function) the selected diagnostic is about.
fn goto_diagnostic(s: &mut State) {
    let Some(run) = s.run().cloned() else { return };
    let diags = s.diagnostics_of(s.step);
    let Some(d) = diags
        .get(s.diags.cursor.min(diags.len().saturating_sub(1)))
        .map(|d| (*d).clone())
    else {
        s.set_error("no diagnostic selected");
        return;
    };
    let names = crate::ir::names::Names::for_module(&run.steps[s.step].module);
    let Some(id) = d.at.or(d.function) else {
        s.set_error("this diagnostic is about the whole module");
        return;
    };
    let target = format!("%{}", names.get(id));
    show_whole_step(s);
    match s.panel.row_defining(id) {
        Some(r) => {
            s.focus = Focus::Code;
            jump_to(s, r);
            s.set_message(format!("{target}: {}", d.message));
        }
        None => s.set_error(format!("{target} is not defined in this step")),
    }
}

fn move_cursor(s: &mut State, delta: isize) {
    let len = s.panel.len();
    if len == 0 {
        return;
    }
    s.code.cursor = (s.code.cursor as isize + delta).clamp(0, len as isize - 1) as usize;
    s.code.token = 0;
}

pub fn update(s: &mut State, action: Action) -> Vec<Effect> {
    let page = s.layout.code_rows().max(2) as isize - 1;
    match action {
        Action::Quit => s.quit = true,
        Action::Help => {
            s.help.shown = !s.help.shown;
            s.help.scroll = 0;
        }
        Action::Cancel => {
            s.search = None;
            s.message = None;
        }
        Action::ClosePopup => s.popup = None,
        Action::PromptInsert(c) => {
            if let Some(buf) = prompt_text(s) {
                buf.push(c);
            }
        }
        Action::PromptBackspace => {
            if prompt_text(s).is_some_and(|buf| buf.pop().is_none()) {
                s.mode = Mode::Normal;
            }
        }
        Action::PromptCancel => s.mode = Mode::Normal,
        Action::PromptSubmit => {
            let mode = std::mem::replace(&mut s.mode, Mode::Normal);
            match mode {
                Mode::Command(buf) => {
                    return match buf.parse::<Action>() {
                        Ok(a) => update(s, a),
                        Err(e) => {
                            s.set_error(e);
                            Vec::new()
                        }
                    }
                }
                Mode::Search(buf) if !buf.is_empty() => return update(s, Action::Find(buf)),
                _ => {}
            }
        }
        Action::Answer(answer) => match answer.take() {
            Some(Answered::Outcome(o)) => outcome(s, o),
            Some(Answered::Step(step)) => super::answer::step(s, step),
            Some(Answered::Run(done)) => super::answer::run(s, done),
            Some(Answered::Compared(done)) => super::answer::compared_run(s, done),
            Some(Answered::Bisect { key, result }) => super::answer::bisect(s, key, result),
            Some(Answered::BisectRun { docs, result }) => {
                super::answer::bisect_run(s, &docs, result)
            }
            None => {}
        },
        Action::Disk(facts) => return super::disk::apply(s, facts),
        Action::Resize(w, h) => s.size = (w, h),
        Action::Click(col, row) => return mouse(s, col, row, MouseKind::Click),
        Action::WheelUp(col, row) => return mouse(s, col, row, MouseKind::WheelUp),
        Action::WheelDown(col, row) => return mouse(s, col, row, MouseKind::WheelDown),
        Action::Focus => {
            // The panes shown, in the order Tab visits them.
            let mut order = Vec::with_capacity(6);
            if s.browser_shown() {
                order.push(Focus::Shaders);
            }
            order.extend([Focus::Passes, Focus::Code]);
            if s.values.is_some() {
                order.push(Focus::Values);
            }
            if !s.diagnostics_of(s.step).is_empty() {
                order.push(Focus::Diagnostics);
            }
            if s.link.shown && s.linked {
                order.push(Focus::Link);
            }
            s.focus = match order.iter().position(|f| *f == s.focus) {
                Some(i) => order[(i + 1) % order.len()],
                None => Focus::Passes,
            };
        }
        Action::Up(n) | Action::Down(n) => {
            let d = if matches!(action, Action::Up(_)) {
                -(n as isize)
            } else {
                n as isize
            };
            if s.help.shown {
                scroll_help(s, d);
                return Vec::new();
            }
            match s.focus {
                Focus::Shaders => move_doc(s, d),
                Focus::Passes => move_step(s, d),
                Focus::Code => move_cursor(s, d),
                Focus::Diagnostics => move_diag(s, d),
                Focus::Link => move_link(s, d),
                Focus::Values => move_values(s, d),
            }
        }
        Action::PageUp | Action::PageDown => {
            if s.help.shown {
                let page = s.layout.help_rows as isize;
                scroll_help(
                    s,
                    if action == Action::PageUp {
                        -page
                    } else {
                        page
                    },
                );
                return Vec::new();
            }
            let d = if action == Action::PageUp {
                -page
            } else {
                page
            };
            match s.focus {
                Focus::Shaders => move_doc(s, d.signum() * 10),
                Focus::Passes => move_step(s, d.signum() * 10),
                Focus::Diagnostics => move_diag(s, d),
                Focus::Values => move_values(s, d),
                Focus::Link => move_link(s, d.signum() * 10),
                Focus::Code => {
                    move_cursor(s, d);
                    scroll_code(s, d);
                }
            }
        }
        Action::Top | Action::Bottom => {
            let top = action == Action::Top;
            if s.help.shown {
                scroll_help(s, if top { isize::MIN / 2 } else { isize::MAX / 2 });
                return Vec::new();
            }
            match s.focus {
                Focus::Shaders => move_doc(s, if top { isize::MIN / 2 } else { isize::MAX / 2 }),
                Focus::Passes => move_step(s, if top { isize::MIN / 2 } else { isize::MAX / 2 }),
                Focus::Diagnostics => {
                    move_diag(s, if top { isize::MIN / 2 } else { isize::MAX / 2 })
                }
                Focus::Values => move_values(s, if top { isize::MIN / 2 } else { isize::MAX / 2 }),
                Focus::Code => move_cursor(s, if top { isize::MIN / 2 } else { isize::MAX / 2 }),
                Focus::Link => move_link(s, if top { isize::MIN / 2 } else { isize::MAX / 2 }),
            }
        }
        Action::Left => return update(s, Action::PrevToken),
        Action::Right => return update(s, Action::NextToken),
        Action::StepNext => move_step(s, 1),
        Action::StepPrev => move_step(s, -1),
        Action::Step(r) => {
            let Some(run) = s.run().cloned() else {
                return Vec::new();
            };
            match step_index(&run, &r) {
                Ok(i) => select_step(s, i),
                Err(e) => s.set_error(e),
            }
        }
        Action::Mark => {
            s.diff_prev = false;
            s.compare.base = None;
            if s.base == Some(s.step) {
                s.base = None;
                s.set_message("diff base cleared: diffs compare with the previous step");
            } else {
                s.base = Some(s.step);
                s.set_message(format!("diff base: step {}", s.step));
            }
        }
        Action::Diff(None) => {
            s.diff_prev = false;
            s.view = if s.view == ViewMode::Split {
                ViewMode::Split
            } else {
                ViewMode::Diff
            }
        }
        Action::Diff(Some((StepRef::Compared(a), b))) => {
            let Some(run) = s.run().cloned() else {
                return Vec::new();
            };
            let Some(n) = s.compare_run().map(|r| r.steps.len()) else {
                s.set_error("b-steps are the compared pipeline's: :compare PIPELINE first");
                return Vec::new();
            };
            if a >= n {
                s.set_error(format!(
                    "no step b{a}: the compared steps are b0–b{}",
                    n - 1
                ));
                return Vec::new();
            }
            match step_index(&run, &b) {
                Ok(b) => {
                    s.diff_prev = false;
                    s.compare.base = Some(a);
                    select_step(s, b);
                    if !matches!(s.view, ViewMode::Diff | ViewMode::Split) {
                        s.view = ViewMode::Diff;
                    }
                    first_hunk(s);
                }
                Err(e) => s.set_error(e),
            }
        }
        Action::Diff(Some((a, b))) => {
            let Some(run) = s.run().cloned() else {
                return Vec::new();
            };
            match (step_index(&run, &a), step_index(&run, &b)) {
                (Ok(a), Ok(b)) => {
                    s.diff_prev = false;
                    s.compare.base = None;
                    s.base = Some(a);
                    select_step(s, b);
                    if !matches!(s.view, ViewMode::Diff | ViewMode::Split) {
                        s.view = ViewMode::Diff;
                    }
                    first_hunk(s);
                }
                (Err(e), _) | (_, Err(e)) => s.set_error(e),
            }
        }
        Action::View(v) => {
            let was_diff = matches!(s.view, ViewMode::Diff | ViewMode::Split) && !s.diff_prev;
            s.diff_prev = false;
            s.view = v;
            if matches!(v, ViewMode::Diff | ViewMode::Split) && !was_diff {
                first_hunk(s);
            }
            match v {
                ViewMode::Ir => s.text = TextKind::Ir,
                ViewMode::Spirv => s.text = TextKind::Spirv,
                _ => {}
            }
        }
        Action::ToggleText => {
            s.text = match s.text {
                TextKind::Ir => TextKind::Spirv,
                TextKind::Spirv => TextKind::Ir,
            };
            if matches!(s.view, ViewMode::Ir | ViewMode::Spirv) {
                s.view = if s.text == TextKind::Ir {
                    ViewMode::Ir
                } else {
                    ViewMode::Spirv
                };
            }
        }
        Action::HideUnchanged(v) => {
            s.passes.hide_unchanged = v.unwrap_or(!s.passes.hide_unchanged);
            s.passes.scroll = 0;
            let step = s.step;
            select_step(s, step);
        }
        Action::IgnoreRenumbering(v) => {
            s.ignore_renumbering = v.unwrap_or(!s.ignore_renumbering);
            s.set_message(if s.ignore_renumbering {
                "diffs hide lines that only renumber ids"
            } else {
                "diffs show every changed line"
            });
        }
        Action::NextHunk | Action::PrevHunk => {
            refresh_panel(s);
            let next = action == Action::NextHunk;
            let target = match &s.panel.rows {
                Rows::Diff { hunks, .. } => {
                    if next {
                        hunks.iter().copied().find(|&h| h > s.code.cursor)
                    } else {
                        hunks.iter().rev().copied().find(|&h| h < s.code.cursor)
                    }
                }
                Rows::Text { .. } => {
                    s.set_error("no diff shown: press d to compare with the base step");
                    return Vec::new();
                }
            };
            match target {
                Some(h) => jump_to(s, h),
                None => s.set_message(if next {
                    "no more changes below"
                } else {
                    "no more changes above"
                }),
            }
        }
        Action::Find(text) => {
            s.search = Some(Search {
                text,
                whole_word: false,
                uses_of: None,
            });
            s.focus = Focus::Code;
            find(s, true, true);
        }
        Action::FindNext | Action::FindPrev => {
            if s.search.is_none() {
                s.set_error("no search: press / to search");
            } else {
                find(s, action == Action::FindNext, false);
            }
        }
        Action::Func(name) => {
            s.func = name.filter(|n| !n.is_empty());
            refresh_panel(s);
            if let Some(f) = &s.func {
                if s.panel.is_empty() {
                    let f = f.clone();
                    s.func = None;
                    s.set_error(format!("no function %{f} in this step"));
                } else {
                    s.set_message(format!("function %{f} only — :func shows all"));
                }
            }
            s.code.cursor = 0;
            s.code.scroll = 0;
        }
        Action::FuncAtCursor => {
            if s.func.is_some() {
                return update(s, Action::Func(None));
            }
            refresh_panel(s);
            match function_at(s) {
                Some(name) => return update(s, Action::Func(Some(name))),
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
                None => s.set_error(format!("line {n} is not shown")),
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
        Action::Definition => definition(s),
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
        Action::ValueGoto => value_goto(s),
        Action::ValueClose => {
            s.values = None;
            if s.focus == Focus::Values {
                s.focus = Focus::Code;
            }
        }
        Action::FirstChange => first_change(s),
        Action::Write(path) => {
            let Some(run) = s.run() else {
                s.set_error("nothing loaded to write");
                return Vec::new();
            };
            let module = &run.steps[s.step.min(run.steps.len() - 1)].module;
            let bytes = crate::ir::spirv::write::write_bytes(module);
            return vec![Effect::Write { path, bytes }];
        }
        Action::Reload if s.batched => return vec![load(s, 0)],
        Action::Reload => return (0..s.docs.len()).map(|i| load(s, i)).collect(),
        Action::NextInput => move_doc(s, 1),
        Action::PrevInput => move_doc(s, -1),
        Action::Shader(name) => {
            let listed = s.listed_docs();
            let found = listed
                .iter()
                .copied()
                .find(|&i| s.docs[i].display_name(&s.roots) == name)
                .or_else(|| {
                    listed
                        .iter()
                        .copied()
                        .find(|&i| s.docs[i].display_name(&s.roots).contains(&name))
                });
            match found {
                Some(i) => select_doc(s, i),
                None => s.set_error(format!("no shader named like '{name}'")),
            }
        }
        Action::DiffPrev => {
            let Some(doc) = s.current() else {
                return Vec::new();
            };
            if doc.prev_run.is_none() {
                s.set_error("no previous run yet: save the file and its new run can be compared with this one");
                return Vec::new();
            }
            s.diff_prev = true;
            if s.view != ViewMode::Split {
                s.view = ViewMode::Diff;
            }
            first_hunk(s);
            if !matches!(&s.message, Some(m) if m.text == "no differences") {
                s.set_message(
                    "diff against the same step of the previous run (d: against the base step)",
                );
            }
        }
        Action::ScrollRight => s.code.hscroll += 8,
        Action::ScrollLeft => s.code.hscroll = s.code.hscroll.saturating_sub(8),
        Action::OpInfo => op_info(s),
        Action::GotoDiagnostic => goto_diagnostic(s),
        Action::LinkView => {
            if !s.linked {
                s.set_error("the link view needs linked stages: open them with --pipeline");
            } else {
                s.link.shown = !s.link.shown;
                s.focus = if s.link.shown {
                    Focus::Link
                } else if s.focus == Focus::Link {
                    Focus::Code
                } else {
                    s.focus
                };
            }
        }
        Action::LinkJump(reader) => link_jump(s, reader),
        // The pane is what it says: no message, so hiding it gives back the screen as it was.
        Action::SourcePane(on) => s.source.shown = on.unwrap_or(!s.source.shown),
        Action::SourceCaller => {
            s.source.shown = true;
            s.source.frame += 1;
        }
        Action::EditSource => match super::derive::cursor_source_path(s) {
            Ok((path, line)) => return vec![Effect::Edit { path, line }],
            Err(why) => s.set_error(why),
        },
        Action::Bisect | Action::BisectRun(_) if s.run_under_way() => {
            s.set_error("the run is still under way: bisect it once it is done");
        }
        Action::Bisect => return vec![Effect::Bisect],
        Action::BisectRun(data) => {
            if s.run().is_none() {
                s.set_error("nothing to run: the input has not loaded");
                return Vec::new();
            }
            s.set_message("running the shader after every step…");
            return vec![Effect::BisectRun(data)];
        }
        Action::Compare(spec) => {
            // Whatever was compared goes; a new comparison starts from nothing.
            for d in &mut s.docs {
                d.compare_run = None;
                d.compare_answered = d.compare_requested;
            }
            s.compare.spec = None;
            s.compare.base = None;
            let spec = match spec {
                None => {
                    s.set_message("comparing no more");
                    None
                }
                Some(_) if s.batched => {
                    s.set_error(":compare compares single shaders, not linked stages or modules");
                    None
                }
                some => some,
            };
            let jobs = match spec {
                Some(_) => (0..s.docs.len()).map(|i| compare_job(s, i)).collect(),
                None => Vec::new(),
            };
            return vec![Effect::Compare { spec, jobs }];
        }
        Action::CompareStep(by) => {
            let Some(n) = s.compare_run().map(|r| r.steps.len()) else {
                s.set_error("nothing is compared: :compare PIPELINE first");
                return Vec::new();
            };
            let from = s.compare.base.unwrap_or(n - 1) as isize;
            s.compare.base = Some((from + by).clamp(0, n as isize - 1) as usize);
            s.diff_prev = false;
            if !matches!(s.view, ViewMode::Diff | ViewMode::Split) {
                s.view = ViewMode::Diff;
            }
        }
        Action::CommandLine => s.mode = Mode::Command(String::new()),
        Action::SearchPrompt => s.mode = Mode::Search(String::new()),
    }
    Vec::new()
}

/// Puts the cursor on the first change of the diff shown.
fn first_hunk(s: &mut State) {
    refresh_panel(s);
    if let Rows::Diff { hunks, .. } = &s.panel.rows {
        match hunks.first().copied() {
            Some(h) => jump_to(s, h),
            None => s.set_message("no differences"),
        }
    }
}

fn jump_to(s: &mut State, row: usize) {
    s.code.cursor = row;
    s.code.token = 0;
    let rows = s.layout.code_rows();
    // Put the target a few lines below the top, as editors do.
    if row < s.code.scroll || row >= s.code.scroll + rows {
        s.code.scroll = row.saturating_sub(rows / 4);
    }
}

fn find(s: &mut State, forward: bool, include_current: bool) {
    refresh_panel(s);
    let Some(search) = s.search.clone() else {
        return;
    };
    let n = s.panel.len();
    if n == 0 {
        return;
    }
    let start = s.code.cursor;
    for k in 0..n {
        let off = if include_current { k } else { k + 1 };
        let r = if forward {
            (start + off) % n
        } else {
            (start + n * 2 - off) % n
        };
        if row_matches(s, r, &search) {
            let wrapped = if forward {
                r < start || (r == start && !include_current)
            } else {
                r > start
            };
            jump_to(s, r);
            if wrapped {
                s.set_message("search wrapped");
            } else if s
                .message
                .as_ref()
                .is_some_and(|m| m.text == "search wrapped")
            {
                s.message = None;
            }
            return;
        }
    }
    s.set_error(format!("not found: {}", search.text));
}

/// Whether row `r` is one the search stops at: one whose instruction uses the value it walks
/// the uses of, else one whose text matches.
fn row_matches(s: &State, r: usize, search: &Search) -> bool {
    match (search.uses_of, s.panel.row_line(r)) {
        (Some(id), Some((l, k))) if l.is_recorded() => l.info(k).uses.contains(&id),
        _ => !search_matches(s.panel.row_text(r), search).is_empty(),
    }
}

/// The selected `%id` token of the cursor row, and the value it names where the printer
/// recorded what the row holds.
fn selected_value(s: &State) -> Option<(String, Option<crate::ir::Id>)> {
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

fn is_definition_row(text: &str, tok: &str) -> bool {
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

fn first_change(s: &mut State) {
    let Some(run) = s.run().cloned() else { return };
    if s.step == 0 {
        s.focus = Focus::Code;
        return;
    }
    let (base, step, kind) = (s.step - 1, s.step, s.text);
    let old = step_lines(s, base, kind);
    let new = step_lines(s, step, kind);
    let d = diff_lines(&old.lines, &new.lines, s.ignore_renumbering);
    s.focus = Focus::Code;
    if !run.steps[step].changed || d.is_empty() {
        s.set_message(format!("{} changed nothing", run.steps[step].pass));
        return;
    }
    s.view = if kind == TextKind::Ir {
        ViewMode::Ir
    } else {
        ViewMode::Spirv
    };
    s.func = None;
    refresh_panel(s);
    let first_new = d
        .lines
        .iter()
        .find(|l| l.change != crate::pipeline::diff::LineChange::Same)
        .and_then(|l| {
            l.new.or_else(|| {
                // A pure deletion: the line after it in the new text.
                d.lines.iter().skip_while(|x| x != &l).find_map(|x| x.new)
            })
        });
    if let Some(line) = first_new {
        jump_to(s, line.min(s.panel.len().saturating_sub(1)));
        s.set_message(format!(
            "first change of {}: +{} −{}",
            run.steps[step].pass, d.added, d.removed
        ));
    }
}
