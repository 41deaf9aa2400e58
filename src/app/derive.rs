//! Derived data: what the state shows, kept fresh from the run once per event, after `update`
//! (`settle`) — step texts as listings, the code pane's rows (text or diff, a function filter
//! applied), the link and compare tables, the highlighting of the rows on screen, the source
//! line under the cursor — and the cursor and scroll positions kept inside what the panes show.
//! Each is rebuilt only when what it comes from changed. Drawing only reads what this leaves.

use std::path::PathBuf;
use std::sync::Arc;

use super::action::ViewMode;
use super::state::{
    Against, Layout, LineToHighlight, PanelKey, Rows, SourceFile, SourceFiles, State, Syntax,
    TextKind,
};
use crate::ir::listing::Listing;
use crate::pipeline::diff::{diff_lines, DiffLine};

/// The control-flow graph pane's drawing for the step, base and function shown, drawn again
/// only when one of them or the pane's options changed; the selected box stays in the
/// drawing.
pub(super) fn refresh_cfg(s: &mut State) {
    use crate::pipeline::cfg::{draw, DrawOptions, Graph};
    let (true, Some(function), Some(d)) = (s.cfg.shown, s.cfg.function, s.current()) else {
        return;
    };
    let Some(run) = d.run.clone() else {
        return;
    };
    let Some(last) = run.steps.len().checked_sub(1) else {
        return;
    };
    let step = s.step.min(last);
    let base = if s.cfg.diff {
        Some(s.base_step().min(last))
    } else {
        None
    };
    let key = super::state::CfgKey {
        doc: s.doc,
        generation: d.generation,
        step,
        base,
        function,
        compact: s.cfg.compact,
        folded: s.cfg.folded.clone(),
        width: (s.layout.code.width as usize).saturating_sub(2).max(24),
    };
    if s.cfg.drawn.as_ref().is_some_and(|x| x.key == key) {
        return;
    }
    let graph_at = |k: usize| {
        let m = &run.steps[k].module;
        let f = m
            .functions()
            .iter()
            .find(|f| f.id() == function && !f.is_declaration())?;
        Some(Graph::of(m, f, &crate::ir::names::Names::for_module(m)))
    };
    let pass = |k: usize| run.steps[k].pass;
    let now = graph_at(step);
    let graph = match (now, base) {
        (Some(now), Some(b)) => match graph_at(b) {
            Some(before) => Some(Graph::diff(&before, &now)),
            None => Some(now),
        },
        (now, _) => now,
    };
    let drawn = match graph {
        None => super::state::CfgDrawn {
            key: key.clone(),
            title: format!("CFG at step {step} {}", pass(step)),
            drawing: Default::default(),
            labels: Vec::new(),
            error: Some(format!(
                "the function the graph shows is not in step {step} {} (inlined or removed): pick another step, or C at a function",
                pass(step)
            )),
        },
        Some(g) => {
            let opts = DrawOptions {
                width: key.width,
                compact: key.compact,
                folded: key.folded.clone(),
            };
            let drawing = draw(&g, &opts);
            let mut title = match base {
                Some(b) => format!(
                    "CFG diff {b} {} → {step} {} {}: {}",
                    pass(b),
                    pass(step),
                    g.name,
                    g.summary()
                ),
                None => format!("CFG {} at step {step} {}: {}", g.name, pass(step), g.summary()),
            };
            if drawing.hidden_edges > 0 {
                title += &format!("; {} edges not drawn (too narrow)", drawing.hidden_edges);
            }
            let labels = drawing
                .boxes
                .iter()
                .map(|&(i, _, _)| (g.nodes[i].label, !g.nodes[i].inside.is_empty()))
                .collect();
            super::state::CfgDrawn {
                key: key.clone(),
                title,
                drawing,
                labels,
                error: None,
            }
        }
    };
    s.cfg.cursor = s.cfg.cursor.min(drawn.labels.len().saturating_sub(1));
    s.cfg.drawn = Some(Arc::new(drawn));
}

/// The side-by-side steps' rows for the selected step and the function shown, aligned again
/// only when the step, the text kind or the run changed.
pub(super) fn refresh_columns(s: &mut State) {
    use crate::pipeline::columns::{align, unchanged, Line};
    let (true, Some(function), Some(d)) = (s.columns.shown, s.columns.function, s.current()) else {
        return;
    };
    let Some(run) = d.run.clone() else {
        return;
    };
    let len = run.steps.len();
    let n = s.columns.n.clamp(1, len.max(1));
    // The window starts at the selected step, as far as the run goes.
    let first = s.step.min(len.saturating_sub(n));
    let kind = if s.text == TextKind::Spirv {
        TextKind::Spirv
    } else {
        TextKind::Ir
    };
    let key = (s.doc, d.generation, first, n, function, kind);
    if s.columns.drawn.as_ref().is_some_and(|x| x.key == key) {
        return;
    }
    let mut name = String::new();
    let mut steps = Vec::new();
    let mut versions: Vec<Vec<Line>> = Vec::new();
    for k in first..(first + n).min(len) {
        let st = &run.steps[k];
        steps.push((k, st.pass));
        let listing = if kind == TextKind::Spirv {
            st.spirv_listing()
        } else {
            st.ir_listing()
        };
        let rows = match listing.function(function) {
            Some(f) => {
                name.clone_from(&f.name);
                f.rows.clone()
            }
            None => 0..0,
        };
        // A comment after the code (a label's predecessors) leaves room for the code.
        let code = |line: &str| match line.find("  ;") {
            Some(at) if !line[..at].trim().is_empty() => line[..at].trim_end().to_string(),
            _ => line.to_string(),
        };
        versions.push(
            rows.map(|r| (listing.info(r).def, code(&listing.lines[r])))
                .collect(),
        );
    }
    let rows = align(&versions);
    let same = rows.iter().map(|r| unchanged(&versions, r)).collect();
    s.columns.drawn = Some(Arc::new(super::state::ColumnsDrawn {
        key,
        steps,
        versions,
        rows,
        same,
        name,
    }));
}

/// Keeps the graph pane's selected box in the rows it shows.
fn fit_cfg(s: &mut State) {
    refresh_cfg(s);
    let rows = s.layout.code_rows();
    let Some(d) = s.cfg.drawn.as_ref().filter(|_| s.cfg.shown) else {
        return;
    };
    let total = d.drawing.rows.len();
    if let Some(&(_, first, height)) = d.drawing.boxes.get(s.cfg.cursor) {
        if first < s.cfg.scroll {
            s.cfg.scroll = first;
        } else if rows > 0 && first + height > s.cfg.scroll + rows {
            s.cfg.scroll = (first + height).saturating_sub(rows);
        }
    }
    s.cfg.scroll = s.cfg.scroll.min(total.saturating_sub(rows.min(total)));
}

/// Brings the link view's table up to the selected step; recomputed only when a stage's run
/// or the step changed.
pub(super) fn refresh_link_table(s: &mut State) {
    if !(s.linked && s.link.shown) {
        s.link.table.clear();
        s.cache.link_key = None;
        return;
    }
    let key: Vec<(u64, Option<usize>)> = (0..s.docs.len())
        .map(|d| (s.docs[d].generation, s.aligned_step(d)))
        .collect();
    if s.cache.link_key.as_ref() != Some(&key) {
        s.link.table = s.compute_link_rows();
        s.cache.link_key = Some(key);
    }
}

/// Instructions per function of a module, by name, in module order.
fn function_counts(m: &crate::ir::Module) -> Vec<(String, usize)> {
    let names = crate::ir::names::Names::for_module(m);
    m.functions()
        .iter()
        .map(|f| (names.get(f.id()), f.insts().count()))
        .collect()
}

/// Brings the compare pane's function table up to the selected step and compared step;
/// recomputed only when one of them (or a run) changed.
fn refresh_compare_functions(s: &mut State) {
    let (Some(doc), Some(theirs)) = (s.current(), s.compare_run()) else {
        s.compare.functions.clear();
        s.cache.compare_functions_key = None;
        return;
    };
    let b = s
        .compared_base()
        .unwrap_or(theirs.steps.len().saturating_sub(1));
    let key = (s.doc, doc.generation, s.step, doc.compare_generation, b);
    if s.cache.compare_functions_key == Some(key) {
        return;
    }
    let (Some(ours), Some(them)) = (
        s.run().and_then(|r| r.steps.get(s.step)),
        theirs.steps.get(b),
    ) else {
        return;
    };
    let (a, c) = (function_counts(&ours.module), function_counts(&them.module));
    let mut rows: Vec<(String, Option<usize>, Option<usize>)> = a
        .iter()
        .map(|(n, x)| {
            (
                n.clone(),
                Some(*x),
                c.iter().find(|(m, _)| m == n).map(|t| t.1),
            )
        })
        .collect();
    for (n, y) in &c {
        if !a.iter().any(|(m, _)| m == n) {
            rows.push((n.clone(), None, Some(*y)));
        }
    }
    s.compare.functions = rows;
    s.cache.compare_functions_key = Some(key);
}

/// The lines of a step's text, split once and cached.
pub fn step_lines(s: &mut State, step: usize, kind: TextKind) -> Arc<Listing> {
    step_text(s, Side::Current, step, kind).1
}

/// A step's text of the current run, or of the previous run (`prev`), split into lines and
/// cached with an id; the id's syntax is recorded for highlighting.
/// Which run a step's text comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Current,
    /// The input's previous run (`:diff-prev`).
    Previous,
    /// The compared pipeline's run (`:compare`).
    Compared,
    /// Another input's run (`:diff-input`).
    Input(usize),
}

/// A step decompiled to `lang` as a listing whose lines know their source lines, once the
/// decompiler job has answered (`update::decompile` asks for what the pane needs); until then
/// a line saying so; why not, as a comment, where it cannot be.
fn decompiled(
    cache: &mut super::state::Cache,
    key: (usize, u64, usize),
    module: &crate::ir::Module,
    lang: crate::pipeline::decompile::Lang,
) -> Arc<Listing> {
    let hash = match step_hash(cache, key, module) {
        Ok(h) => h,
        Err(why) => {
            return Arc::new(Listing::plain(&format!(
                "// not SPIR-V at this step, so no {}: {why}",
                lang.name()
            )))
        }
    };
    match cache.decompiled.get(&(hash, lang)) {
        Some(Ok(text)) => Arc::new(crate::pipeline::decompile::listing(module, text)),
        Some(Err(e)) => Arc::new(Listing::plain(&format!(
            "// no {} for this step: {e}",
            lang.name()
        ))),
        None => Arc::new(Listing::plain(&format!(
            "// {} is writing this step as {}…",
            lang.writer(),
            TextKind::Lang(lang).name()
        ))),
    }
}

/// The hash of a step's SPIR-V, what its driver code is kept by: kept by (doc, generation,
/// step) so a step is written once, or why it is no SPIR-V.
pub fn step_hash(
    cache: &mut super::state::Cache,
    key: (usize, u64, usize),
    module: &crate::ir::Module,
) -> Result<u64, String> {
    if let Some(&h) = cache.step_hashes.get(&key) {
        return Ok(h);
    }
    let words = crate::pipeline::validate::spirv_of(module)?.words;
    Ok(keep_step_hash(cache, key, &words))
}

fn keep_step_hash(cache: &mut super::state::Cache, key: (usize, u64, usize), words: &[u32]) -> u64 {
    let h = crate::pipeline::driver_code::content_hash(words);
    if cache.step_hashes.len() > 4096 {
        cache.step_hashes.clear();
    }
    cache.step_hashes.insert(key, h);
    h
}

/// A step's SPIR-V, with its hash (kept as `step_hash` keeps it), where `wanted` wants that
/// hash: the module is written once whether or not its hash was known. `None` where it is not
/// wanted or is no SPIR-V.
pub fn step_spirv(
    cache: &mut super::state::Cache,
    key: (usize, u64, usize),
    module: &crate::ir::Module,
    wanted: impl FnOnce(&super::state::Cache, u64) -> bool,
) -> Option<(u64, Vec<u32>)> {
    let (hash, words) = match cache.step_hashes.get(&key) {
        Some(&h) => (h, None),
        None => {
            let words = crate::pipeline::validate::spirv_of(module).ok()?.words;
            (keep_step_hash(cache, key, &words), Some(words))
        }
    };
    if !wanted(cache, hash) {
        return None;
    }
    let words = match words {
        Some(w) => w,
        None => crate::pipeline::validate::spirv_of(module).ok()?.words,
    };
    Some((hash, words))
}

/// What the driver compiled a step to, as `show` asks, once the driver job has answered
/// (`update::driver` asks for what the panes need); until then a line saying so.
fn driver_code(
    cache: &mut super::state::Cache,
    key: (usize, u64, usize),
    module: &crate::ir::Module,
    show: crate::pipeline::driver_code::Show,
) -> Arc<Listing> {
    let hash = match step_hash(cache, key, module) {
        Ok(h) => h,
        Err(why) => {
            return Arc::new(Listing::plain(&comment(&format!(
                "not SPIR-V at this step, so nothing for the driver: {why}"
            ))))
        }
    };
    match cache.driver_code.get(&hash) {
        Some(Ok(code)) => Arc::new(Listing::plain(&code.show(show))),
        Some(Err(why)) => Arc::new(Listing::plain(&comment(why))),
        None => Arc::new(Listing::plain("// compiling this step on the driver…")),
    }
}

/// `text` as `//` comment lines of at most 80 columns, broken between words: a driver's
/// reason (what it lacks, how to get one that shows its code) reads without scrolling.
fn comment(text: &str) -> String {
    const WIDTH: usize = 80;
    let mut out = String::new();
    let mut line = String::from("//");
    for word in text.split_whitespace() {
        if line.len() > 2 && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = String::from("//");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out
}

/// The driver's x86 instructions per step of the selected shader, for the cost pane's chart
/// and the pass list in a driver text, where the driver job has answered.
fn refresh_driver_costs(s: &mut State) {
    if !s.cost.shown && !matches!(s.text, TextKind::Driver(_)) {
        return;
    }
    let Some(doc) = s.docs.get(s.doc) else { return };
    let Some(run) = doc.run.clone() else { return };
    let generation = doc.generation;
    let key = (s.doc, generation, s.cache.driver_answers);
    if s.driver_costs.key == Some(key) {
        return;
    }
    let x86 = run
        .steps
        .iter()
        .enumerate()
        .map(|(i, st)| {
            if st.is_source() {
                return None;
            }
            let hash = step_hash(&mut s.cache, (s.doc, generation, i), &st.module).ok()?;
            match s.cache.driver_code.get(&hash)? {
                Ok(code) => Some(code.stats.asm_instructions),
                Err(_) => None,
            }
        })
        .collect();
    s.driver_costs = super::state::DriverCosts {
        key: Some(key),
        x86,
    };
}

pub(super) fn step_text(
    s: &mut State,
    side: Side,
    step: usize,
    kind: TextKind,
) -> (u64, Arc<Listing>) {
    let empty = || (0, Arc::new(Listing::default()));
    let at = match side {
        Side::Input(d) => d,
        _ => s.doc,
    };
    let Some(doc) = s.docs.get(at) else {
        return empty();
    };
    // The previous good run keeps the generation it had; compared runs count their
    // generations down from the top, apart from the input's own.
    let (run, generation) = match side {
        Side::Input(_) => (doc.run.clone(), doc.generation),
        Side::Current => (doc.run.clone(), doc.generation),
        Side::Previous => (doc.prev_run.clone(), doc.prev_generation),
        Side::Compared => (doc.compare_run.clone(), u64::MAX - doc.compare_generation),
    };
    let key = (at, generation, step, kind);
    if let Some(t) = s.cache.texts.get(&key) {
        return t.clone();
    }
    let Some(st) = run.as_ref().and_then(|r| r.steps.get(step)) else {
        return empty();
    };
    let syntax = if st.is_source() {
        Syntax::of_source(&doc.path)
    } else {
        Syntax::of(kind)
    };
    let lines = match kind {
        TextKind::Ir => st.ir_listing(),
        TextKind::Spirv => st.spirv_listing(),
        // The source step's text is the source.
        TextKind::Lang(_) if st.is_source() => st.ir_listing(),
        TextKind::Lang(lang) => decompiled(&mut s.cache, (at, generation, step), &st.module, lang),
        TextKind::Driver(_) if st.is_source() => st.ir_listing(),
        TextKind::Driver(show) => {
            driver_code(&mut s.cache, (at, generation, step), &st.module, show)
        }
    };
    let id = s.cache.next_text_id;
    s.cache.next_text_id += 1;
    // Bound the cache: texts of other documents and old generations go first.
    if s.cache.texts.len() > 64 {
        s.cache.texts.clear();
        s.cache.styles.clear();
        s.cache.syntaxes.clear();
    }
    s.cache.texts.insert(key, (id, lines.clone()));
    s.cache.syntaxes.insert(id, syntax);
    (id, lines)
}

/// Pairs the removed and added lines of each hunk into rows of a side-by-side diff: a row
/// with both sides is a changed line (marked `Removed` with both indices).
fn side_by_side(rows: &[DiffLine]) -> (Vec<DiffLine>, Vec<usize>) {
    use crate::pipeline::diff::LineChange;
    let mut out = Vec::with_capacity(rows.len());
    let mut hunks = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        if rows[i].change == LineChange::Same {
            out.push(rows[i]);
            i += 1;
            continue;
        }
        let mut removed = Vec::new();
        let mut added = Vec::new();
        while i < rows.len() && rows[i].change != LineChange::Same {
            match rows[i].change {
                LineChange::Removed => removed.push(rows[i].old),
                _ => added.push(rows[i].new),
            }
            i += 1;
        }
        hunks.push(out.len());
        for k in 0..removed.len().max(added.len()) {
            let old = removed.get(k).copied().flatten();
            let new = added.get(k).copied().flatten();
            let change = if old.is_some() {
                LineChange::Removed
            } else {
                LineChange::Added
            };
            out.push(DiffLine { change, old, new });
        }
    }
    (out, hunks)
}

/// Rebuilds the code pane's rows when what they show has changed, keeping the cursor on the
/// same line of text where that line still exists.
pub fn refresh_panel(s: &mut State) {
    let steps = s.step_count();
    if steps == 0 {
        s.panel = Default::default();
        return;
    }
    s.step = s.step.min(steps - 1);
    if s.diff.base.is_some_and(|b| b >= steps) {
        s.diff.base = None;
    }
    let is_diff = matches!(s.view, ViewMode::Diff | ViewMode::Split);
    let key = PanelKey {
        doc: s.doc,
        generation: s.current().map_or(0, |d| d.generation),
        view: s.view,
        text: s.text,
        step: s.step,
        base: s.base_step(),
        func: s.func.clone(),
        ignore_renumbering: s.diff.ignore_renumbering,
        against: match s.diff_against() {
            _ if !is_diff => (Against::Steps, 0),
            Against::Input(d) => (Against::Input(d), s.docs[d].generation),
            a => (a, 0),
        },
        compared: s
            .compared_base()
            .filter(|_| is_diff && s.diff_against() == Against::Steps)
            .map(|b| (s.current().map_or(0, |d| d.compare_generation), b)),
        answers: match s.text {
            TextKind::Driver(_) => s.cache.driver_answers,
            TextKind::Lang(_) => s.cache.decompile_answers,
            _ => 0,
        },
    };
    if s.panel.key.as_ref() == Some(&key) {
        return;
    }
    // Anchor: the text under the cursor and where it sat on screen.
    let anchor = (!s.panel.is_empty()).then(|| {
        (
            s.panel.row_text(s.code.cursor).to_string(),
            s.code.cursor,
            s.code.cursor.saturating_sub(s.code.scroll),
        )
    });
    let (id, lines) = step_text(s, Side::Current, s.step, s.text);
    // A function's lines: its `; function` comment and leading debug lines through
    // `OpFunctionEnd`, as the printer recorded them.
    let range_of = |lines: &Listing, func: &Option<String>| match func {
        Some(f) => lines.function_named(f).map_or(0..0, |f| f.rows.clone()),
        None => 0..lines.len(),
    };
    let rows = match s.view {
        ViewMode::Ir | ViewMode::Spirv => Rows::Text {
            id,
            range: range_of(&lines, &s.func),
            lines,
        },
        ViewMode::Diff | ViewMode::Split => {
            let (old_id, old) = match key.compared {
                _ if key.against.0 == Against::PreviousRun => {
                    step_text(s, Side::Previous, s.step, s.text)
                }
                _ if matches!(key.against.0, Against::Input(_)) => {
                    let Against::Input(d) = key.against.0 else {
                        unreachable!()
                    };
                    let step = s.input_step(d).unwrap_or(0);
                    step_text(s, Side::Input(d), step, s.text)
                }
                Some((_, b)) => step_text(s, Side::Compared, b, s.text),
                None => step_text(s, Side::Current, s.base_step(), s.text),
            };
            let ro = range_of(&old, &s.func);
            let rn = range_of(&lines, &s.func);
            let d = diff_lines(
                &old.lines[ro.clone()],
                &lines.lines[rn.clone()],
                s.diff.ignore_renumbering,
            );
            let shift = |l: DiffLine| DiffLine {
                change: l.change,
                old: l.old.map(|o| o + ro.start),
                new: l.new.map(|n| n + rn.start),
            };
            let mut rows: Vec<DiffLine> = d.lines.into_iter().map(shift).collect();
            let mut hunks = d.hunks;
            if s.view == ViewMode::Split {
                (rows, hunks) = side_by_side(&rows);
            }
            Rows::Diff {
                old_id,
                old,
                new_id: id,
                new: lines,
                rows,
                hunks,
                added: d.added,
                removed: d.removed,
            }
        }
    };
    s.panel.key = Some(key);
    s.panel.rows = rows;
    let len = s.panel.len();
    match anchor {
        Some((text, old_row, screen_off)) if len > 0 => {
            // The nearest row with the same text, else the same row number.
            let best = (0..len)
                .filter(|&r| s.panel.row_text(r) == text)
                .min_by_key(|&r| r.abs_diff(old_row))
                .unwrap_or(old_row.min(len - 1));
            s.code.cursor = best;
            s.code.scroll = best.saturating_sub(screen_off);
        }
        _ => {
            s.code.cursor = s.code.cursor.min(len.saturating_sub(1));
            s.code.scroll = s.code.scroll.min(s.code.cursor);
        }
    }
}

/// Brings the derived data the layout depends on up to date: the link table, the panel.
fn refresh(s: &mut State) {
    refresh_browser(s);
    refresh_link_table(s);
    refresh_panel(s);
    refresh_values(s);
    refresh_previous_values(s);
    refresh_driver_costs(s);
}

/// The browser's cursor row, and its first row: the cursor's in view, the list scrolled only
/// as far as it must.
fn fit_browser(s: &mut State) {
    let Some(area) = s.layout.shaders else {
        return;
    };
    let rows = area.inner_rows().max(1);
    // `refresh` has just brought the rows up to date.
    let cursor = s.cursor_row_in(&s.browser.rows);
    s.browser.cursor = cursor;
    let len = s.browser.rows.len();
    let mut scroll = s.browser.scroll;
    if cursor < scroll {
        scroll = cursor;
    } else if cursor >= scroll + rows {
        scroll = cursor + 1 - rows;
    }
    s.browser.scroll = scroll.min(len.saturating_sub(rows));
}

/// The browser's tree, built again when the docs, the filter, the sort or the folds changed.
fn refresh_browser(s: &mut State) {
    if !s.browser_shown() {
        return;
    }
    let key = super::tree::key(s);
    if s.browser.rows_key == key && !s.browser.rows.is_empty() {
        return;
    }
    if !s.browser.sorted.fits(s) {
        let sorted = super::tree::sort(s);
        s.browser.order = Arc::new(sorted.order());
        s.browser.sorted = Arc::new(sorted);
        // Presence is part of the order: it changes only when the order is made again.
        s.browser.present = s.docs.iter().filter(|d| d.present).count();
    }
    let sorted = s.browser.sorted.clone();
    if s.browser.rows_shape == super::tree::shape_key(s, &sorted) && !s.browser.rows.is_empty() {
        let mut rows = std::mem::take(&mut s.browser.rows);
        let folder_rows = s.browser.folder_rows.clone();
        let in_place: &mut Vec<_> = Arc::make_mut(&mut rows);
        s.browser.totals = super::tree::recount(s, &sorted, in_place, &folder_rows);
        s.browser.rows = rows;
    } else {
        let tree = super::tree::rows(s, &sorted);
        s.browser.rows = Arc::new(tree.rows);
        s.browser.totals = tree.totals;
        s.browser.rows_shape = tree.shape;
        s.browser.folder_rows = Arc::new(tree.folder_rows);
    }
    s.browser.rows_key = key;
}

/// The previous run's values of the selected step for the chosen invocation, while the code
/// pane diffs against the previous run (`p`): the column then says which values the last
/// save changed. From the run the column made of that step before the save, where it is kept.
fn refresh_previous_values(s: &mut State) {
    let against_previous = s
        .panel
        .key
        .as_ref()
        .is_some_and(|k| k.against.0 == super::state::Against::PreviousRun);
    let wanted = s
        .current()
        .filter(|_| s.exec.shown && against_previous)
        .and_then(|d| {
            d.prev_run.as_ref()?;
            Some((
                (s.doc, d.prev_generation, s.step),
                s.exec.chosen,
                s.exec.hex,
            ))
        });
    if wanted.is_none() {
        s.exec.previous_values = None;
        s.exec.previous_for = None;
        return;
    }
    if s.exec.previous_for == wanted {
        return;
    }
    let Some((key, chosen, hex)) = wanted else {
        return;
    };
    let module = s
        .current()
        .and_then(|d| d.prev_run.as_ref())
        .and_then(|r| r.steps.get(key.2))
        .map(|st| st.module.clone());
    s.exec.previous_values = match (s.exec.run_of(key), module) {
        (Some(Ok(run)), Some(m)) => run.shown(chosen, &m, hex, None).ok().map(Arc::new),
        _ => None,
    };
    // Not kept (the column never ran the step before the save): nothing to compare yet.
    s.exec.previous_for = s.exec.previous_values.as_ref().map(|_| (key, chosen, hex));
}

/// The values column's values: the chosen invocation's, read from the selected step's run
/// when the step, the choice or the base changed.
fn refresh_values(s: &mut State) {
    if !s.exec.shown {
        return;
    }
    let Some(key) = s.step_key() else {
        s.exec.derived_for = None;
        s.exec.shown_values = None;
        return;
    };
    let wanted = (key, s.exec.chosen, s.exec.hex, s.exec.trace);
    if s.exec.derived_for == Some(wanted) {
        return;
    }
    let Some(ran) = s.exec.run_of(key).cloned() else {
        // Not run yet (or dropped): nothing to show until it comes back.
        s.exec.shown_values = None;
        s.exec.derived_for = None;
        return;
    };
    let module = s
        .run()
        .and_then(|r| r.steps.get(s.step))
        .map(|st| st.module.clone());
    s.exec.shown_values = Some(match (ran, module) {
        (Ok(run), Some(m)) => run
            .shown(s.exec.chosen, &m, s.exec.hex, s.exec.trace)
            .map(Arc::new),
        (Err(e), _) => Err(e),
        (_, None) => Err("the step is gone".into()),
    });
    s.exec.derived_for = Some(wanted);
    // An open `:locals` list follows the values (stepping moves them).
    if s.values
        .as_ref()
        .is_some_and(|l| l.kind == super::state::ValueListKind::Locals)
    {
        if let Some(mut list) = super::update::locals_list(s) {
            if let Some(old) = &s.values {
                list.cursor = old.cursor.min(list.entries.len().saturating_sub(1));
            }
            s.values = Some(list);
        }
    }
}

/// Brings everything derived up to date after an event (the event loop calls it once per
/// event, after `update`): first what the layout depends on (the link table's rows, the code
/// pane's rows), then the layout `plan` places the panes by (the views know how), then what
/// depends on the layout — the cursor and scroll kept in view, the source pane, the compare
/// table, the highlighting of the rows on screen. The draw that follows only reads the state.
pub fn settle(s: &mut State, plan: impl FnOnce(&State) -> Layout) {
    refresh(s);
    s.layout = plan(s);
    fit_to_layout(s);
}

/// Everything derived that depends on the layout planned: scroll limits, the source pane, the
/// compare table, and the highlighting of the rows that will be visible.
fn fit_to_layout(s: &mut State) {
    let rows = s.layout.code_rows();
    let len = s.panel.len();
    s.code.cursor = s.code.cursor.min(len.saturating_sub(1));
    if s.code.cursor < s.code.scroll {
        s.code.scroll = s.code.cursor;
    } else if rows > 0 && s.code.cursor >= s.code.scroll + rows {
        s.code.scroll = s.code.cursor + 1 - rows;
    }
    s.code.scroll = s.code.scroll.min(len.saturating_sub(rows.min(len)));
    let visible = s.visible_steps();
    let prow = s.layout.pass_rows();
    if let Some(pos) = visible.iter().position(|&v| v == s.step) {
        if pos < s.passes.scroll {
            s.passes.scroll = pos;
        } else if prow > 0 && pos >= s.passes.scroll + prow {
            s.passes.scroll = pos + 1 - prow;
        }
    }
    // The rows' source lines are indexed with the panel they belong to, so that scrolling
    // through a new region never pays for the whole panel's walk.
    if s.source.shown && !s.panel.is_empty() {
        rows_by_source(s);
    }
    let files = step_sources(s);
    s.source.cursor_line = files
        .as_deref()
        .and_then(|files| source_line_at_cursor(s, files));
    refresh_source_pane(s, files.as_deref());
    refresh_compare_functions(s);
    fit_browser(s);
    fit_cfg(s);
    refresh_columns(s);
    if !s.color {
        return;
    }
    let mut wanted: Vec<LineToHighlight> = Vec::new();
    if let (Some(f), Some(area)) = (&s.source.file, s.layout.source) {
        if let Some(lines) = &f.lines {
            let end = (s.source.scroll + area.inner_rows()).min(lines.len());
            for i in s.source.scroll..end {
                if !s.cache.styles.contains_key(&(f.text_id, i)) {
                    wanted.push(LineToHighlight {
                        key: (f.text_id, i),
                        text: lines[i].clone(),
                        syntax: f.syntax,
                    });
                }
            }
        }
    }
    let kind = Syntax::of(s.text);
    let syntax_of = |id: &u64| s.cache.syntaxes.get(id).copied().unwrap_or(kind);
    let end = (s.code.scroll + rows).min(len);
    for r in s.code.scroll..end {
        let mut want = |id: &u64, i: usize, lines: &Listing| {
            if !s.cache.styles.contains_key(&(*id, i)) {
                wanted.push(LineToHighlight {
                    key: (*id, i),
                    text: lines.lines[i].clone(),
                    syntax: syntax_of(id),
                });
            }
        };
        match &s.panel.rows {
            Rows::Text { id, range, lines } => want(id, range.start + r, lines),
            Rows::Diff {
                old_id,
                old,
                new_id,
                new,
                rows,
                ..
            } => {
                let l = rows[r];
                if let Some(o) = l.old {
                    want(old_id, o, old);
                }
                if let Some(n) = l.new {
                    want(new_id, n, new);
                }
            }
        }
    }
    // Highlighted on the app's highlighter thread, whose regex engine has its state machines
    // built (a line highlighted on a thread for the first time costs milliseconds).
    s.cache.highlight_wanted = wanted;
}

/// Highlighted lines kept at most (the cache is emptied when it would hold more).
pub const MAX_STYLED_LINES: usize = 50_000;

/// The source files of the selected step's module (`sources::resolve`), made once per step;
/// files on disk are read once until they change (`Cache::disk_texts`).
pub fn step_sources(s: &mut State) -> Option<Arc<SourceFiles>> {
    sources_of_step(s, s.step)
}

/// `step_sources` of step `step` of the selected input's run.
pub fn sources_of_step(s: &mut State, step: usize) -> Option<Arc<SourceFiles>> {
    let doc = s.current()?;
    let key = (s.doc, doc.generation, step);
    let step = doc.run.as_ref()?.steps.get(step)?;
    if let Some((k, files)) = &s.cache.source_files {
        if *k == key {
            return Some(files.clone());
        }
    }
    let module = step.module.clone();
    let (path, own) = (doc.path.clone(), doc.source.clone());
    let search = s.source.paths.clone();
    let texts = &mut s.cache.disk_texts;
    let files = Arc::new(super::sources::resolve(
        &module,
        &path,
        own.as_deref(),
        &search,
        &mut |p| {
            texts
                .entry(p.to_path_buf())
                .or_insert_with(|| {
                    std::fs::read(p)
                        .ok()
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                })
                .clone()
        },
    ));
    s.cache.source_files = Some((key, files.clone()));
    Some(files)
}

/// The source line (file's `OpString` id, line) the instruction under the code cursor came
/// from, as the printer recorded it; none in a shader's source step.
fn cursor_source(s: &State) -> Option<(crate::ir::Id, u32)> {
    let step = s.run()?.steps.get(s.step)?;
    if step.is_source() || s.panel.is_empty() {
        return None;
    }
    let (listing, k) = s.panel.row_line(s.code.cursor)?;
    listing.info(k).source
}

/// The file on disk and line the instruction under the code cursor came from: the name the
/// module gives its file, as it is or next to the input, or the input itself when the names
/// match. An error says what was looked for and where.
pub fn cursor_source_path(s: &mut State) -> Result<(PathBuf, u32), String> {
    let Some((file, line)) = cursor_source(s) else {
        return Err("no source line for the instruction at the cursor".into());
    };
    let files = step_sources(s).ok_or("nothing loaded")?;
    let source = files
        .get(file)
        .ok_or("the module names no file for this line")?;
    match (&source.disk, &source.origin) {
        (Some(p), _) => Ok((p.clone(), line)),
        (None, Some(super::sources::Origin::Input)) => {
            Ok((s.current().ok_or("nothing loaded")?.path.clone(), line))
        }
        _ => Err(format!(
            "no file on disk for {} (looked at {})",
            source.name,
            source
                .looked
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The inline stack of the instruction under the code cursor (see `debug::inline_stack`).
fn cursor_inline_stack(s: &State) -> Option<Vec<crate::ir::debug::InlineFrame>> {
    let step = s.run()?.steps.get(s.step)?;
    if step.is_source() || s.panel.is_empty() {
        return None;
    }
    let (listing, k) = s.panel.row_line(s.code.cursor)?;
    let (scope, inlined_at) = listing.info(k).scope?;
    let m = &step.module;
    let sets = crate::ir::debug::DebugSets::of(m);
    Some(crate::ir::debug::inline_stack(m, &sets, scope, inlined_at))
}

/// The source line the source pane shows: the cursor's instruction's, or with `u`, the line
/// a caller of the inlined code called it from (`c`, `SourcePane::frame`; back to the instruction's
/// when the cursor moves, and after the outermost caller).
fn frame_source(s: &mut State) -> Option<(crate::ir::Id, u32)> {
    let here = (s.doc, s.step, s.code.cursor);
    // A line chosen in the pane, until the code cursor moves on its own.
    match s.source.pinned {
        Some((file, line, at)) if at == here => return Some((file, line)),
        Some(_) => s.source.pinned = None,
        None => {}
    }
    if s.source.frame_at != Some(here) {
        s.source.frame = 0;
        s.source.frame_at = Some(here);
    }
    let own = cursor_source(s);
    if s.source.frame == 0 {
        return own;
    }
    let stack = cursor_inline_stack(s).unwrap_or_default();
    match stack.get(s.source.frame) {
        Some(f) => Some((f.file.or(own.map(|o| o.0))?, f.line?)),
        None => {
            s.source.frame = 0;
            own
        }
    }
}

/// The code pane's rows by the source line they came from, made once per panel.
pub fn rows_by_source(s: &mut State) -> Arc<super::state::RowsBySource> {
    let key = s.panel.key.clone();
    if let (Some((k, index)), Some(key)) = (&s.cache.rows_by_source, &key) {
        if k == key {
            return index.clone();
        }
    }
    let mut index = super::state::RowsBySource::new();
    for r in 0..s.panel.len() {
        if let Some(src) = s.panel.row_line(r).and_then(|(l, k)| l.info(k).source) {
            index.entry(src).or_default().push(r);
        }
    }
    let index = Arc::new(index);
    if let Some(key) = key {
        s.cache.rows_by_source = Some((key, index.clone()));
    }
    index
}

/// The file name of a path as a module names it (`/src/lighting.frag` → `lighting.frag`).
fn short_name(name: &str) -> String {
    std::path::Path::new(name)
        .file_name()
        .map_or_else(|| name.to_string(), |n| n.to_string_lossy().into_owned())
}

/// `file:line  text` of the source line the instruction under the cursor came from.
fn source_line_at_cursor(s: &State, files: &SourceFiles) -> Option<String> {
    let (file, line) = cursor_source(s)?;
    let line = line as usize;
    let source = files.get(file)?;
    let short = short_name(&source.name);
    let code = source
        .lines
        .as_ref()
        .and_then(|t| t.get(line.checked_sub(1)?))
        .map_or(String::new(), |l| l.trim().to_string());
    Some(format!("{short}:{line}  {code}"))
}

type Lines = Arc<Vec<String>>;

/// The text id (for highlighting) of source file `name` of the selected document's run
/// `generation`, made the first time it is asked for.
fn source_text_id(s: &mut State, generation: u64, name: &str) -> u64 {
    let key = (s.doc, generation, name.to_string());
    if let Some(&id) = s.cache.source_ids.get(&key) {
        return id;
    }
    let id = s.cache.next_text_id;
    s.cache.next_text_id += 1;
    s.cache.source_ids.insert(key, id);
    id
}

/// Brings the source pane up to the code cursor: the file the cursor's instruction came from
/// (or the last one, when it has no location), its marked line, the title, the scroll that
/// keeps the mark in view, and the code rows that came from the same line.
fn refresh_source_pane(s: &mut State, files: Option<&SourceFiles>) {
    if !s.source.shown {
        s.source.code_rows.clear();
        s.cache.source_rows_key = None;
        return;
    }
    let Some(doc) = s.current() else {
        // Nothing derived is left; what the user set and the cursor's line stay.
        s.source = super::state::SourcePane {
            shown: true,
            paths: std::mem::take(&mut s.source.paths),
            bands: s.source.bands,
            cursor_line: s.source.cursor_line.take(),
            ..Default::default()
        };
        return;
    };
    let (generation, path, own) = (doc.generation, doc.path.clone(), doc.source.clone());
    if s.source
        .file
        .as_ref()
        .is_some_and(|f| f.doc != s.doc || f.generation != generation)
    {
        s.source.file = None;
        s.source.scroll = 0;
    }
    let source_step = s
        .run()
        .and_then(|r| r.steps.get(s.step))
        .is_some_and(|st| st.is_source());
    // The file and line the cursor's instruction came from, and the code rows from that line.
    let mut at: Option<(String, Option<Lines>, usize)> = None;
    let mut from: Option<(crate::ir::Id, u32)> = None;
    // What to say instead of the text (`None`: the default), and whether the file on disk
    // differs from the text the module embeds.
    let mut note: Option<Option<String>> = None;
    let mut differs = false;
    if source_step && !s.panel.is_empty() {
        // The code pane shows the shader's source itself: its cursor line is the line.
        let name = path.display().to_string();
        let lines = match &s.source.file {
            Some(f) if f.name == name && f.lines.is_some() => f.lines.clone(),
            _ => own.map(|t| Arc::new(super::sources::plain_lines(&t))),
        };
        at = Some((name, lines, s.panel.line_number(s.code.cursor)));
    } else if let Some((file, line)) = frame_source(s) {
        let source = files.and_then(|f| f.get(file));
        let name = source.map_or_else(|| format!("%{file}"), |src| src.name.clone());
        let lines = source.and_then(|src| src.lines.clone());
        at = Some((name, lines, line as usize));
        from = Some((file, line));
        s.source.file_id = Some(file);
        note = Some(match source {
            Some(src) if src.lines.is_none() => Some(src.missing_note()),
            Some(_) => None,
            None => Some(format!("the module names no file %{file}")),
        });
        differs = source.is_some_and(|src| src.differs);
    }
    match at {
        Some((name, lines, line)) => {
            let same = s.source.file.as_ref().is_some_and(|f| f.name == name);
            if !same {
                s.source.scroll = 0;
            }
            let text_id = source_text_id(s, generation, &name);
            s.source.title = match cursor_inline_stack(s) {
                // Inlined code: `shade() lighting.frag:88 <- main() :120`, the frame shown
                // (`c` moves out) in brackets.
                Some(stack) if stack.len() > 1 => {
                    let own = cursor_source(s);
                    let own_name = own
                        .and_then(|(f, _)| files.and_then(|fs| fs.get(f)))
                        .map_or_else(|| name.clone(), |src| src.name.clone());
                    let own_line = own.map_or(line as u32, |(_, l)| l);
                    let mut parts = Vec::new();
                    for (k, f) in stack.iter().enumerate() {
                        let text = match f.line {
                            None => {
                                format!("{}() {}:{own_line}", f.function, short_name(&own_name))
                            }
                            Some(l) => format!("{}() :{l}", f.function),
                        };
                        parts.push(if k == s.source.frame && k > 0 {
                            format!("[{text}]")
                        } else {
                            text
                        });
                    }
                    format!(" {} ", parts.join(" <- "))
                }
                _ => format!(" {}:{line} ", short_name(&name)),
            };
            if differs {
                s.source.title = format!("{}· the file on disk differs ", s.source.title);
            }
            s.source.note = match note {
                Some(n) => n,
                None => lines
                    .is_none()
                    .then(|| format!("no source text for \"{name}\": it is not the file opened")),
            };
            s.source.file = Some(SourceFile {
                doc: s.doc,
                generation,
                syntax: Syntax::of_source(std::path::Path::new(&name)),
                name,
                lines,
                text_id,
            });
            s.source.line = Some(line);
        }
        None => {
            s.source.line = None;
            match &s.source.file {
                Some(f) => {
                    s.source.title = format!(
                        " {} — no source line for this instruction ",
                        short_name(&f.name)
                    );
                    // (The note the file had stays: it says why there is no text.)
                    if f.lines.is_some() {
                        s.source.note = None;
                    }
                }
                None => {
                    // Opened above the functions: the first file with text, unmarked, so the
                    // pane has something to show until the cursor reaches code.
                    let first = files.and_then(|f| {
                        f.order
                            .iter()
                            .map(|id| (*id, &f.files[id]))
                            .find(|(_, src)| src.lines.is_some())
                    });
                    if let Some((id, src)) = first {
                        let text_id = source_text_id(s, generation, &src.name);
                        s.source.title = format!(
                            " {} — no source line for this instruction ",
                            short_name(&src.name)
                        );
                        s.source.note = None;
                        s.source.file_id = Some(id);
                        s.source.file = Some(SourceFile {
                            doc: s.doc,
                            generation,
                            syntax: Syntax::of_source(std::path::Path::new(&src.name)),
                            name: src.name.clone(),
                            lines: src.lines.clone(),
                            text_id,
                        });
                    } else {
                        s.source.title = " source — no source line for this instruction ".into();
                        s.source.note = Some(if files.is_none_or(|f| f.files.is_empty()) {
                            "this step's module names no source file: it has no line info \
                             (OpLine, DebugLine); build with -g or -gVS for it"
                                .into()
                        } else {
                            "move the code cursor onto an instruction that has a source line".into()
                        });
                    }
                }
            }
        }
    }
    // Keep the marked line in view, a third of the way down.
    let rows = s.layout.source.map_or(0, |a| a.inner_rows());
    let len = s
        .source
        .file
        .as_ref()
        .and_then(|f| f.lines.as_ref())
        .map_or(0, |l| l.len());
    if let Some(i) = s.source.line.map(|l| l.saturating_sub(1)) {
        if i < s.source.scroll || (rows > 0 && i >= s.source.scroll + rows) {
            s.source.scroll = i.saturating_sub(rows / 3);
        }
    }
    s.source.scroll = s.source.scroll.min(len.saturating_sub(rows.min(len)));
    // For the colour bands: the lines of the file shown that have code in the code pane.
    match (s.source.bands, s.source.file_id, s.panel.key.clone()) {
        (true, Some(file), Some(panel)) if !source_step => {
            let key = (panel, file);
            if s.cache.band_lines_key.as_ref() != Some(&key) {
                let lines: std::collections::BTreeSet<u32> = rows_by_source(s)
                    .keys()
                    .filter(|(f, _)| *f == file)
                    .map(|&(_, n)| n)
                    .collect();
                s.source.code_lines = Arc::new(lines);
                s.cache.band_lines_key = Some(key);
            }
        }
        _ => {
            s.source.code_lines = Arc::default();
            s.cache.band_lines_key = None;
        }
    }
    // The code rows that came from the same line.
    match (from, s.panel.key.clone()) {
        _ if source_step => {
            s.source.code_rows = vec![s.code.cursor];
            s.cache.source_rows_key = None;
        }
        (Some((file, line)), Some(panel)) => {
            let key = (panel, file, line);
            if s.cache.source_rows_key.as_ref() != Some(&key) {
                s.source.code_rows = rows_by_source(s)
                    .get(&(file, line))
                    .cloned()
                    .unwrap_or_default();
                s.cache.source_rows_key = Some(key);
            }
        }
        _ => {
            s.source.code_rows.clear();
            s.cache.source_rows_key = None;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_reason_reads_as_comment_lines_that_fit() {
        let why = "llvmpipe (Mesa 22.3.6) shows nothing of the code it compiles: it has no \
                   VK_KHR_pipeline_executable_properties, and only lavapipe from Mesa 25 on \
                   prints its NIR, LLVM IR and assembly (GALLIVM_DEBUG)";
        let text = super::comment(why);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() >= 3, "{text}");
        assert!(lines
            .iter()
            .all(|l| l.starts_with("// ") && l.chars().count() <= 80));
        let words: Vec<&str> = lines.iter().flat_map(|l| l[3..].split(' ')).collect();
        assert_eq!(words, why.split_whitespace().collect::<Vec<_>>());
    }
}
