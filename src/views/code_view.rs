//! The code pane: a step's text with line numbers and highlighting, or a diff between two
//! steps (unified or side by side, changed words marked). Only visible rows are built.

use std::ops::Range;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme::Theme;
use crate::app::action::ViewMode;
use crate::app::state::{
    id_tokens, search_matches, Against, Focus, Rows, Search, State, TextStyle,
};
use crate::pipeline::diff::{word_changes, DiffLine, LineChange};

/// Splits `text` into spans where any style changes: base highlighting, then overlays on top.
/// The first `skip` characters are scrolled out of view; at most `max_width` are shown.
pub(super) fn styled(
    text: &str,
    base: &[(Style, Range<usize>)],
    overlays: &[(Style, Range<usize>)],
    default: Style,
    skip: usize,
    max_width: usize,
) -> Vec<Span<'static>> {
    let mut cuts: Vec<usize> = vec![0, text.len()];
    for (_, r) in base.iter().chain(overlays) {
        cuts.push(r.start.min(text.len()));
        cuts.push(r.end.min(text.len()));
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut spans = Vec::new();
    let mut width = 0;
    let mut skipped = 0;
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        if a >= b || !text.is_char_boundary(a) || !text.is_char_boundary(b) {
            continue;
        }
        let mut style = default;
        for (s, r) in base.iter().chain(overlays) {
            if r.start <= a && b <= r.end {
                style = style.patch(*s);
            }
        }
        let chars = text[a..b].chars().count();
        let drop = (skip - skipped).min(chars);
        skipped += drop;
        let piece: String = text[a..b]
            .chars()
            .skip(drop)
            .take(max_width.saturating_sub(width))
            .map(visible)
            .collect();
        if piece.is_empty() {
            continue;
        }
        width += piece.chars().count();
        spans.push(Span::styled(piece, style));
        if width >= max_width {
            break;
        }
    }
    spans
}

/// The lines of `text` around line `at` (1-based), at most `room` of them, numbered, with
/// `at` marked: where a source that did not compile went wrong.
fn excerpt(text: &str, at: usize, room: usize, t: &Theme) -> Vec<Line<'static>> {
    let all: Vec<&str> = text.lines().collect();
    if at == 0 || at > all.len() || room == 0 {
        return Vec::new();
    }
    // Centred, and as many lines as fit near the end of the text too.
    let first = at
        .saturating_sub(room / 2)
        .min((all.len() + 1).saturating_sub(room))
        .max(1);
    let last = (first + room - 1).min(all.len());
    let digits = last.to_string().len();
    (first..=last)
        .map(|n| {
            let here = n == at;
            let text: String = crate::ir::listing::expand_tabs(all[n - 1])
                .chars()
                .map(visible)
                .collect();
            Line::from(vec![
                Span::styled(
                    format!("{} {n:>digits$} │ ", if here { '▶' } else { ' ' }),
                    if here { t.error } else { t.gutter },
                ),
                Span::styled(text, if here { t.error } else { t.text }),
            ])
        })
        .collect()
}

/// A character as one cell: the terminal draws control characters as nothing, so a string
/// literal's newline (an `OpSource` holding a whole file) would join its lines (`esvoid main`)
/// and shift every column after it.
fn visible(c: char) -> char {
    match c {
        '\n' => '↵',
        '\t' => ' ',
        c if c.is_control() => '·',
        c => c,
    }
}

pub(super) fn line_styles(s: &State, id: u64, line: usize) -> Vec<(Style, Range<usize>)> {
    s.cache
        .styles
        .get(&(id, line))
        .map(|v| {
            v.iter()
                .map(|(look, r)| (terminal_style(*look), r.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// The terminal style of a highlighted piece of text.
fn terminal_style(look: TextStyle) -> Style {
    let mut s = Style::new();
    if let Some((r, g, b)) = look.fg {
        s = s.fg(Color::Rgb(r, g, b));
    }
    if look.bold {
        s = s.add_modifier(Modifier::BOLD);
    }
    if look.italic {
        s = s.add_modifier(Modifier::ITALIC);
    }
    s
}

/// The `%id` selected on the cursor row, while the code pane has focus: every line that
/// defines, uses or mentions it shows it marked.
fn selected_token(s: &State) -> Option<Search> {
    if s.focus != Focus::Code {
        return None;
    }
    let text = s.panel.row_text(s.code.cursor);
    let toks = id_tokens(text);
    let tok = toks.get(s.code.token.min(toks.len().saturating_sub(1)))?;
    Some(Search {
        text: text[tok.clone()].to_string(),
        whole_word: true,
        uses_of: None,
    })
}

fn overlays(
    s: &State,
    t: &Theme,
    text: &str,
    is_cursor: bool,
    selected: Option<&Search>,
) -> Vec<(Style, Range<usize>)> {
    let mut out = Vec::new();
    if let Some(sel) = selected {
        // Names are unique in a module, so the token's text is the value wherever it stands.
        out.extend(search_matches(text, sel).into_iter().map(|r| (t.value, r)));
    }
    if let Some(search) = &s.search {
        out.extend(
            search_matches(text, search)
                .into_iter()
                .map(|r| (t.search, r)),
        );
    }
    if is_cursor && s.focus == Focus::Code {
        let toks = id_tokens(text);
        if let Some(r) = toks.get(s.code.token.min(toks.len().saturating_sub(1))) {
            out.push((t.token, r.clone()));
        }
    }
    out
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let focused = s.focus == Focus::Code;
    let selected = selected_token(s);
    let kind = s.text.name();
    let step_name = |i: usize| {
        s.run()
            .and_then(|r| r.steps.get(i))
            .map_or("", |st| st.pass)
    };
    let against = s.panel.key.as_ref().map_or(Against::Steps, |k| k.against.0);
    let compared = s.panel.key.as_ref().and_then(|k| k.compared);
    let title = match (&s.panel.rows, against, compared) {
        _ if s.run().is_none() => match s.current() {
            Some(d) if d.error.is_some() => {
                format!(" cannot load {} ", d.display_name(&s.roots))
            }
            _ => " no module loaded ".to_string(),
        },
        (Rows::Text { .. }, ..) => format!(" {kind} after {} {} ", s.step, step_name(s.step)),
        (Rows::Diff { added, removed, .. }, Against::PreviousRun, _) => format!(
            " {kind} diff {} {}: previous run → this run  +{added} −{removed}{} ",
            s.step,
            step_name(s.step),
            match previous_column(s, area.width) {
                Some(c) if s.view != ViewMode::Split =>
                    format!(" · values of {}: {} changed", c.now.who, values_changed(&c)),
                None if s.exec.shown => " · values: the previous run's are not kept".into(),
                _ => String::new(),
            }
        ),
        (Rows::Diff { added, removed, .. }, Against::Input(d), _) => {
            let other = &s.docs[d];
            let b = s.input_step(d).unwrap_or(0);
            let pass = other
                .run
                .as_ref()
                .and_then(|r| r.steps.get(b))
                .map_or("", |st| st.pass);
            format!(
                " {kind} diff {} {b} {pass} → {} {}  +{added} −{removed} ",
                other.display_name(&s.roots),
                s.step,
                step_name(s.step)
            )
        }
        (Rows::Diff { added, removed, .. }, _, Some((_, b))) => format!(
            " {kind} diff b{b} {} → {} {}  +{added} −{removed} ",
            s.compare_run()
                .and_then(|r| r.steps.get(b))
                .map_or("", |st| st.pass),
            s.step,
            step_name(s.step)
        ),
        (Rows::Diff { added, removed, .. }, ..) => format!(
            " {kind} diff {} {} → {} {}  +{added} −{removed} ",
            s.base_step(),
            step_name(s.base_step()),
            s.step,
            step_name(s.step)
        ),
    };
    // A stale run is of an earlier version of the file than the one the error is about.
    let title = match s.current() {
        Some(d) if d.error.is_some() && s.run().is_some() => {
            format!("{}(the last version that loaded) ", title)
        }
        _ => title,
    };
    let title = match values_title(s) {
        Some(v) if matches!(s.panel.rows, Rows::Text { .. }) => format!("{title}· {v} "),
        _ => title,
    };
    let title = if s.code.hscroll > 0 {
        format!("{title}› col {} ", s.code.hscroll + 1)
    } else {
        title
    };
    let mut block = t.pane(focused).title(Span::styled(title, t.title));
    let width = (area.width as usize).saturating_sub(4);
    let failed_line = s
        .current()
        .filter(|_| s.run().is_some())
        .and_then(|d| d.error_at.as_ref())
        .and_then(|(text, at)| Some((*at, text.lines().nth(at.checked_sub(1)?)?)));
    if let Some(src) = &s.source.cursor_line {
        let src: String = format!(" {src} ").chars().take(width).collect();
        block = block.title_bottom(Span::styled(src, t.title));
    } else if let Some((at, line)) = failed_line {
        // The steps are of the last version that loaded: the saved one's failing line, below.
        let said: String = format!(" ✗ line {at}: {} ", line.trim())
            .chars()
            .map(visible)
            .take(width)
            .collect();
        block = block.title_bottom(Span::styled(said, t.error));
    }
    if s.run().is_none() {
        // Nothing ran: the code pane shows why, with the compiler's whole message.
        let lines: Vec<Line> = match s.current().and_then(|d| d.error.as_deref()) {
            Some(e) => {
                let mut lines: Vec<Line> = e
                    .lines()
                    .map(|l| Line::styled(l.to_string(), t.text))
                    .collect();
                if let Some((text, at)) = s.current().and_then(|d| d.error_at.as_ref()) {
                    let room =
                        usize::from(area.height.saturating_sub(2)).saturating_sub(lines.len() + 1);
                    lines.push(Line::default());
                    lines.extend(excerpt(text, *at, room, t));
                }
                lines
            }
            None if s.current().is_some_and(|d| d.running()) => {
                vec![Line::styled("running the pipeline…", t.unchanged)]
            }
            None => Vec::new(),
        };
        frame.render_widget(
            ratatui::widgets::Paragraph::new(lines)
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(block),
            area,
        );
        return;
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = inner.height as usize;
    // The function shown alone is not in this step (inlined and removed, or not made yet).
    if let (Some(f), true) = (&s.func, s.panel.is_empty()) {
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!("%{f} is not in this step (inlined and removed, or not there yet): :func shows the whole module"),
                t.unchanged,
            ))
            .wrap(ratatui::widgets::Wrap { trim: true }),
            inner,
        );
        return;
    }
    match &s.panel.rows {
        Rows::Text { id, lines, range } => {
            let listing = &**lines;
            let lines = &lines.lines;
            let digits = range.end.max(1).to_string().len().max(3);
            // The pressure gutter: what the worker computed for this step (blank until then).
            let cost = s
                .cost
                .pressure
                .then(|| s.run().and_then(|r| r.steps.get(s.step)))
                .flatten()
                .and_then(|st| st.known_cost());
            let gutter_w = if s.cost.pressure { 4 } else { 0 };
            let values = values_column(s, inner.width);
            let values_w = values.as_ref().map_or(0, |c| c.width + 1);
            let text_w = (inner.width as usize).saturating_sub(digits + 1 + gutter_w + values_w);
            let mut out = Vec::with_capacity(rows);
            for r in s.code.scroll..(s.code.scroll + rows).min(range.len()) {
                let i = range.start + r;
                let text = &lines[i];
                let is_cursor = r == s.code.cursor;
                let mut spans = Vec::with_capacity(8);
                if s.cost.pressure {
                    spans.push(pressure_cell(listing, i, cost, t));
                }
                spans.push(Span::styled(format!("{:>digits$}", i + 1), t.gutter));
                spans.push(source_gutter(s, t, r, " "));
                let text_spans = styled(
                    text,
                    &line_styles(s, *id, i),
                    &overlays(s, t, text, is_cursor, selected.as_ref()),
                    t.text,
                    s.code.hscroll,
                    text_w,
                );
                let cell = values.as_ref().map(|c| value_cell(listing, i, c, t));
                let ran = cell.as_ref().is_none_or(|c| c.ran);
                let shown_w: usize = text_spans.iter().map(|sp| sp.content.chars().count()).sum();
                spans.extend(text_spans);
                if let Some(c) = cell {
                    spans.push(Span::raw(" ".repeat(text_w.saturating_sub(shown_w) + 1)));
                    spans.push(c.span);
                }
                let mut line = Line::from(spans);
                if let Some(band) = band_style(s, t, r) {
                    line = line.style(band);
                }
                if is_cursor {
                    line = line.style(t.cursor_line);
                }
                if !ran {
                    // Code the invocation never ran.
                    line = line.patch_style(Modifier::DIM);
                }
                out.push(line);
            }
            frame.render_widget(Paragraph::new(out), inner);
        }
        Rows::Diff {
            old_id,
            old,
            new_id,
            new,
            rows: diff_rows,
            ..
        } => {
            let (old_listing, new_listing) = (&**old, &**new);
            let (old, new) = (&old.lines, &new.lines);
            let split = s.view == ViewMode::Split;
            let digits = old.len().max(new.len()).max(1).to_string().len().max(3);
            let visible = s.code.scroll..(s.code.scroll + rows).min(diff_rows.len());
            if split {
                let [left, right] =
                    Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)]).areas(inner);
                let w = (left.width as usize).saturating_sub(digits + 2);
                let mut lo = Vec::new();
                let mut ro = Vec::new();
                for r in visible {
                    let d = diff_rows[r];
                    let is_cursor = r == s.code.cursor;
                    let (wo, wn) = match (d.old, d.new) {
                        (Some(o), Some(n)) if d.change != LineChange::Same => {
                            word_changes(&old[o], &new[n])
                        }
                        _ => (Vec::new(), Vec::new()),
                    };
                    let side = |idx: Option<usize>,
                                id: u64,
                                lines: &Vec<String>,
                                words: Vec<Range<usize>>,
                                changed_style: Style,
                                word_style: Style,
                                mark: &str,
                                src: bool| {
                        match idx {
                            Some(i) => {
                                let text = &lines[i];
                                let changed = d.change != LineChange::Same;
                                let mut ov: Vec<(Style, Range<usize>)> =
                                    words.into_iter().map(|r| (word_style, r)).collect();
                                ov.extend(overlays(s, t, text, is_cursor, selected.as_ref()));
                                let mark = if changed { mark } else { " " };
                                let mut spans =
                                    vec![Span::styled(format!("{:>digits$}", i + 1), t.gutter)];
                                spans.push(if src {
                                    source_gutter(s, t, r, mark)
                                } else {
                                    Span::styled(mark.to_string(), t.gutter)
                                });
                                spans.extend(styled(
                                    text,
                                    &line_styles(s, id, i),
                                    &ov,
                                    t.text,
                                    s.code.hscroll,
                                    w,
                                ));
                                let mut line = Line::from(spans);
                                if changed {
                                    line = line.style(changed_style);
                                }
                                if is_cursor {
                                    line = line.patch_style(t.cursor_line);
                                }
                                line
                            }
                            None => Line::raw(""),
                        }
                    };
                    lo.push(side(
                        d.old,
                        *old_id,
                        old,
                        wo,
                        t.removed,
                        t.removed_word,
                        "-",
                        d.new.is_none(),
                    ));
                    ro.push(side(
                        d.new,
                        *new_id,
                        new,
                        wn,
                        t.added,
                        t.added_word,
                        "+",
                        d.new.is_some(),
                    ));
                }
                frame.render_widget(Paragraph::new(lo), left);
                frame.render_widget(Paragraph::new(ro), right);
            } else {
                let full = (inner.width as usize).saturating_sub(2 * digits + 3);
                let before_after = previous_column(s, inner.width);
                let w = match &before_after {
                    Some(c) => full.saturating_sub(c.width + 1),
                    None => full,
                };
                let mut out = Vec::new();
                for r in visible {
                    let d = diff_rows[r];
                    let is_cursor = r == s.code.cursor;
                    let partner = pair_of(diff_rows, r);
                    let (text, id, idx, mark, style, word_style) = match d.change {
                        LineChange::Same => (
                            &new[d.new.unwrap()],
                            *new_id,
                            d.new.unwrap(),
                            ' ',
                            Style::new(),
                            Style::new(),
                        ),
                        LineChange::Removed => (
                            &old[d.old.unwrap()],
                            *old_id,
                            d.old.unwrap(),
                            '-',
                            t.removed,
                            t.removed_word,
                        ),
                        LineChange::Added => (
                            &new[d.new.unwrap()],
                            *new_id,
                            d.new.unwrap(),
                            '+',
                            t.added,
                            t.added_word,
                        ),
                    };
                    let words = match (d.change, partner) {
                        (LineChange::Removed, Some(p)) => {
                            word_changes(text, &new[diff_rows[p].new.unwrap()]).0
                        }
                        (LineChange::Added, Some(p)) => {
                            word_changes(&old[diff_rows[p].old.unwrap()], text).1
                        }
                        _ => Vec::new(),
                    };
                    let mut ov: Vec<(Style, Range<usize>)> =
                        words.into_iter().map(|r| (word_style, r)).collect();
                    ov.extend(overlays(s, t, text, is_cursor, selected.as_ref()));
                    let num = |n: Option<usize>| {
                        n.map_or(" ".repeat(digits), |n| format!("{:>digits$}", n + 1))
                    };
                    let mut spans = vec![
                        Span::styled(format!("{} {}", num(d.old), num(d.new)), t.gutter),
                        source_gutter(s, t, r, " "),
                        Span::styled(mark.to_string(), t.gutter),
                    ];
                    let text_spans = styled(
                        text,
                        &line_styles(s, id, idx),
                        &ov,
                        t.text,
                        s.code.hscroll,
                        w,
                    );
                    let shown_w: usize =
                        text_spans.iter().map(|sp| sp.content.chars().count()).sum();
                    spans.extend(text_spans);
                    if let Some(c) = &before_after {
                        spans.push(Span::raw(" ".repeat(w.saturating_sub(shown_w) + 1)));
                        spans.push(previous_cell(old_listing, new_listing, d, c, t));
                    }
                    let mut line = Line::from(spans).style(style);
                    if let Some(band) = band_style(s, t, r).filter(|_| d.change == LineChange::Same)
                    {
                        line = line.patch_style(band);
                    }
                    if is_cursor {
                        line = line.patch_style(t.cursor_line);
                    }
                    out.push(line);
                }
                frame.render_widget(Paragraph::new(out), inner);
            }
        }
    }
}

/// The pressure gutter's cell for line `i`: the components live after its instruction, by heat
/// against its function's peak, `▲` at the peak; blank for lines that print no instruction.
/// What the title says of the values column: whose values, or why there are none.
fn values_title(s: &State) -> Option<String> {
    if !s.exec.shown || s.run().is_none() {
        return None;
    }
    let key = s.step_key()?;
    if s.run()
        .and_then(|r| r.steps.get(s.step))
        .is_some_and(|st| st.is_source())
    {
        return Some("values: none in the source text".into());
    }
    Some(match &s.exec.shown_values {
        _ if s.exec.running == Some(key) => "values: running…".into(),
        Some(Ok(v)) if v.cut => format!("values of {} (trace cut)", v.who),
        Some(Ok(v)) => match v.at {
            Some(p) => format!(
                "values of {}, result {} of {}",
                v.who,
                (p + 1).min(v.order.len()),
                v.order.len()
            ),
            None => format!("values of {}", v.who),
        },
        Some(Err(e)) => format!("values: {e}"),
        None => "values: waiting…".into(),
    })
}

/// What the values column shows: its width, the values, and the first difference found at
/// this step for the invocation shown (`:first-difference`).
struct Column<'s> {
    width: usize,
    values: &'s crate::pipeline::step_values::Shown,
    difference: Option<&'s crate::pipeline::step_values::FirstDifference>,
}

/// The values column, when it is shown with values to show.
fn values_column(s: &State, width: u16) -> Option<Column<'_>> {
    if !s.exec.shown {
        return None;
    }
    let Some(Ok(v)) = &s.exec.shown_values else {
        return None;
    };
    let difference = s
        .exec
        .difference
        .as_ref()
        .filter(|(k, d)| Some(*k) == s.step_key() && d.chosen == v.chosen)
        .map(|(_, d)| d);
    Some(Column {
        width: (width as usize / 3).clamp(12, 40),
        values: v,
        difference,
    })
}

/// The values column of a diff against the previous run (`p`): this run's values and the
/// previous run's, of the invocation chosen.
struct BeforeAfter<'s> {
    width: usize,
    now: &'s crate::pipeline::step_values::Shown,
    before: &'s crate::pipeline::step_values::Shown,
}

fn previous_column(s: &State, width: u16) -> Option<BeforeAfter<'_>> {
    let against = s.panel.key.as_ref().map(|k| k.against.0);
    if !s.exec.shown || against != Some(Against::PreviousRun) {
        return None;
    }
    let (Some(Ok(now)), Some(before)) = (&s.exec.shown_values, &s.exec.previous_values) else {
        return None;
    };
    Some(BeforeAfter {
        width: (width as usize / 3).clamp(12, 40),
        now,
        before,
    })
}

/// How many values both runs compute for the chosen invocation differ.
fn values_changed(c: &BeforeAfter) -> usize {
    c.now
        .values
        .iter()
        .filter(|(id, (text, _))| c.before.values.get(id).is_some_and(|(b, _)| b != text))
        .count()
}

/// A diff row's cell: the value this run computes; where the line is the same in both runs
/// and its value is not, the previous run's then this one's; a removed line's old value.
fn previous_cell(
    old: &crate::ir::listing::Listing,
    new: &crate::ir::listing::Listing,
    d: DiffLine,
    c: &BeforeAfter,
    t: &Theme,
) -> Span<'static> {
    let value = |shown: &crate::pipeline::step_values::Shown,
                 listing: &crate::ir::listing::Listing,
                 row: Option<usize>| {
        let id = listing.info(row?).def?;
        shown.values.get(&id).map(|(text, _)| text.clone())
    };
    let now = value(c.now, new, d.new);
    let before = value(c.before, old, d.old);
    let (text, style) = match (d.change, before, now) {
        (LineChange::Same, Some(b), Some(n)) if b != n => (format!("{b} → {n}"), t.changed),
        (LineChange::Removed, Some(b), _) => (b, t.unchanged),
        (_, _, Some(n)) => (n, t.text),
        _ => (String::new(), t.text),
    };
    let mut cut: String = text.chars().take(c.width).collect();
    if text.chars().count() > c.width {
        cut.pop();
        cut.push('…');
    }
    Span::styled(cut, style)
}

/// One row's cell of the values column, and whether the invocation ran the row's code.
struct ValueCell {
    span: Span<'static>,
    ran: bool,
}

fn value_cell(
    listing: &crate::ir::listing::Listing,
    i: usize,
    column: &Column,
    t: &Theme,
) -> ValueCell {
    let (v, w) = (column.values, column.width);
    let info = listing.info(i);
    if let Some(d) = column.difference.filter(|d| info.def == Some(d.id)) {
        // The first difference: the other step's value, then this one's.
        let text = format!("{} → {}", d.against, d.value);
        let mut cut: String = text.chars().take(w).collect();
        if text.chars().count() > w {
            cut.pop();
            cut.push('…');
        }
        return ValueCell {
            span: Span::styled(cut, t.changed),
            ran: true,
        };
    }
    let entered = |b| v.entered.get(&b).copied().unwrap_or(0);
    let ran = info.block.is_none_or(|b| entered(b) > 0);
    let text = match info.def {
        // A block's label: how many times it was entered (a loop's body, its iterations).
        Some(d) if info.block == Some(d) => match entered(d) {
            0 => "not run".into(),
            // Counts are the whole run's: stepping, they would read as so far.
            _ if v.at.is_some() => String::new(),
            1 => String::new(),
            n => format!("ran ×{n}"),
        },
        // Stepping: the value just computed.
        Some(d) if v.at.is_some_and(|p| v.order.get(p) == Some(&d)) => {
            let text = v.values.get(&d).map_or("", |(t, _)| t.as_str());
            let mut cut: String = format!("▶ {text}").chars().take(w).collect();
            if text.chars().count() + 2 > w {
                cut.pop();
                cut.push('…');
            }
            return ValueCell {
                span: Span::styled(cut, t.token),
                ran: true,
            };
        }
        Some(d) => match v.values.get(&d) {
            Some((text, 1)) => text.clone(),
            Some((text, n)) => format!("{text} ×{n}"),
            None => String::new(),
        },
        None => String::new(),
    };
    let mut cut: String = text.chars().take(w).collect();
    if text.chars().count() > w {
        cut.pop();
        cut.push('…');
    }
    let label = info.def.is_some() && info.block == info.def;
    let (cut, style) = if label {
        // Right-aligned, apart from the values, and from the label's comment.
        (format!("{cut:>w$}"), t.gutter)
    } else {
        (cut, t.value)
    };
    ValueCell {
        span: Span::styled(cut, style),
        ran,
    }
}

fn pressure_cell(
    listing: &crate::ir::listing::Listing,
    i: usize,
    cost: Option<&std::sync::Arc<crate::pipeline::cost::Cost>>,
    t: &Theme,
) -> Span<'static> {
    let info = listing.info(i);
    let found = cost
        .zip(info.func)
        .zip(info.inst)
        .and_then(|((c, f), inst)| {
            let p = c.pressure.function(f)?;
            Some((p.at(inst)?, p.max, p.peak == Some(inst)))
        });
    match found {
        Some((v, peak, at_peak)) => Span::styled(
            format!("{v:>3}{}", if at_peak { "▲" } else { " " }),
            t.heat_of(v, peak),
        ),
        None => Span::raw("    "),
    }
}

/// The colour band of code row `r` (`:bands`): the colour of the source line its instruction
/// came from, which the source pane gives that line too.
fn band_style(s: &State, t: &Theme, r: usize) -> Option<Style> {
    if !s.source.bands {
        return None;
    }
    let (listing, k) = s.panel.row_line(r)?;
    let (_, line) = listing.info(k).source?;
    Some(band_of(t, line))
}

/// The band colour of source line `line`: neighbours differ.
pub fn band_of(t: &Theme, line: u32) -> Style {
    t.bands[line as usize % t.bands.len()]
}

/// The gutter cell after a row's number: `│` in the source mark's style where the row came
/// from the source line the source pane marks, else `plain` as the gutter always shows it (a
/// diff's `+`/`-` is kept, coloured).
fn source_gutter(s: &State, t: &Theme, row: usize, plain: &str) -> Span<'static> {
    if !s.source.marks_code_row(row) {
        return Span::styled(plain.to_string(), t.gutter);
    }
    let mark = if plain == " " { "│" } else { plain };
    Span::styled(mark.to_string(), t.source_mark)
}

/// In a hunk, the k-th removed line pairs with the k-th added line (for word highlights).
fn pair_of(rows: &[DiffLine], r: usize) -> Option<usize> {
    let is_change = |i: usize| rows[i].change != LineChange::Same;
    let mut start = r;
    while start > 0 && is_change(start - 1) {
        start -= 1;
    }
    let mut end = r;
    while end + 1 < rows.len() && is_change(end + 1) {
        end += 1;
    }
    let removed: Vec<usize> = (start..=end)
        .filter(|&i| rows[i].change == LineChange::Removed)
        .collect();
    let added: Vec<usize> = (start..=end)
        .filter(|&i| rows[i].change == LineChange::Added)
        .collect();
    match rows[r].change {
        LineChange::Removed => removed
            .iter()
            .position(|&i| i == r)
            .and_then(|k| added.get(k).copied()),
        LineChange::Added => added
            .iter()
            .position(|&i| i == r)
            .and_then(|k| removed.get(k).copied()),
        LineChange::Same => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_literals_newlines_and_tabs_take_a_cell_each() {
        let text = "OpSource ESSL 310 %1 \"#version 310 es\n\tvoid main()\"";
        let spans = styled(text, &[], &[], Style::default(), 0, 80);
        let shown: String = spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(
            shown,
            "OpSource ESSL 310 %1 \"#version 310 es↵ void main()\""
        );
        assert_eq!(shown.chars().count(), text.chars().count());
    }

    #[test]
    fn an_excerpt_centres_the_line_in_the_room_it_has_and_marks_it() {
        let text: String = (1..=40).map(|n| format!("line {n}\n")).collect();
        let t = Theme::new(false);
        let shown = |at, room| -> Vec<String> {
            excerpt(&text, at, room, &t)
                .iter()
                .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
                .collect()
        };
        assert_eq!(
            shown(20, 5),
            [
                "  18 │ line 18",
                "  19 │ line 19",
                "▶ 20 │ line 20",
                "  21 │ line 21",
                "  22 │ line 22"
            ]
        );
        assert_eq!(
            shown(1, 3),
            ["▶ 1 │ line 1", "  2 │ line 2", "  3 │ line 3"]
        );
        assert_eq!(
            shown(40, 3),
            ["  38 │ line 38", "  39 │ line 39", "▶ 40 │ line 40"]
        );
        assert!(shown(41, 3).is_empty(), "a line past the end shows nothing");
    }
}
