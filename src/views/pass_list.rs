//! The pass list: one row per step with its changed marker, instruction delta and time.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

use super::theme::Theme;
use crate::app::action::ViewMode;
use crate::app::state::{Against, Focus, State};

pub fn format_time(us: u128) -> String {
    if us >= 10_000_000 {
        format!("{}s", us / 1_000_000)
    } else if us >= 10_000 {
        format!("{}ms", us / 1000)
    } else if us >= 1000 {
        format!("{:.1}ms", us as f64 / 1000.0)
    } else {
        format!("{us}µs")
    }
}

/// A step's time: below a reported time's resolution, only that it was below.
fn step_time(st: &crate::pipeline::Step) -> String {
    match st.resolution {
        Some(r) if st.duration < r => format!("<{}", format_time(r.as_micros())),
        _ => format_time(st.duration.as_micros()),
    }
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let focused = s.focus == Focus::Passes;
    let title = match s.run() {
        Some(r) if s.run_under_way() => format!(
            " passes {}/{}, running ",
            r.steps.len(),
            r.steps.len() + s.pending_passes().len()
        ),
        Some(r) => format!(" passes {}/{} ", s.visible_steps().len(), r.steps.len()),
        None => " passes ".to_string(),
    };
    let block = t.pane(focused).title(Span::styled(title, t.title));
    let Some(run) = s.run() else {
        let msg = match s.current().and_then(|d| d.error.as_deref()) {
            // The first line says why; the code pane beside holds the compiler's whole
            // message and the text around the line (wrapped in this narrow pane, a
            // compiler's snippet only repeated it, out of shape).
            Some(e) => {
                let mut lines = vec![Line::styled("cannot load:", t.error)];
                let mut said = e.lines();
                lines.extend(said.next().map(|l| Line::raw(l.to_string())));
                if said.next().is_some() {
                    lines.push(Line::styled(
                        "(the whole message is in the code pane)",
                        t.unchanged,
                    ));
                }
                lines
            }
            None if s.docs.iter().any(|d| d.present) => {
                vec![Line::styled("loading…", t.unchanged)]
            }
            None => vec![Line::styled("no shader open", t.unchanged)],
        };
        frame.render_widget(
            Paragraph::new(msg).wrap(Wrap { trim: false }).block(block),
            area,
        );
        return;
    };
    let inner_w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    let visible = s.visible_steps();
    let in_diff = matches!(s.view, ViewMode::Diff | ViewMode::Split);
    // The debug-info audit: what each step lost of the lines and variables the step before
    // carried, in a column of its own when the module has debug info and there is room.
    let losses: Vec<String> = run
        .steps
        .iter()
        .map(|st| st.known_losses().map(loss_mark).unwrap_or_default())
        .collect();
    // (Not at the cost of the names: on a narrow pane the marks wait for more room. They
    // come before the timings, which go first.)
    let longest = run.steps.iter().map(|st| st.pass.len()).max().unwrap_or(0);
    // The delta column is as wide as the widest delta of this run (and a space).
    let delta_w = 1 + run
        .steps
        .windows(2)
        .map(|w| {
            let d = w[1].inst_count as i64 - w[0].inst_count as i64;
            d.to_string().len() + usize::from(d > 0)
        })
        .max()
        .unwrap_or(0)
        .max(3);
    // Number, base mark, marker and the delta column: what every row has besides its name.
    let fixed = 3 + 1 + 2 + 1 + delta_w;
    // With the cost pane open the pressure column comes before the debug-info marks.
    let press_first = if s.cost.shown { PRESSURE_W } else { 0 };
    let loss_w = Some(loss_width(run))
        .filter(|&w| inner_w >= fixed + press_first + w + longest.min(9))
        .unwrap_or(0);
    // Each step's peak pressure (what the worker computed) and its change from the step
    // before: after the debug-info marks, before the timings.
    let pressures: Vec<Option<u32>> = run
        .steps
        .iter()
        .map(|st| st.known_cost().map(|c| c.pressure.max))
        .collect();
    // With the cost pane open the pressure is what is looked at, and in a driver text the
    // driver's figure: names give way to it (cut to 8 characters), where otherwise it waits
    // for room.
    let driver_text = matches!(s.text, crate::app::state::TextKind::Driver(_));
    let names_min = if s.cost.shown || driver_text { 8 } else { 20 };
    // In a driver text, the driver's x86 per step instead: which pass changed what it runs.
    let x86: Vec<Option<u32>> = (0..run.steps.len())
        .map(|i| {
            let n = s.driver_costs.x86.get(i).copied().flatten()?;
            u32::try_from(n).ok()
        })
        .collect();
    let (column, glyph, column_w) = if driver_text && x86.iter().any(Option::is_some) {
        (&x86, "x", X86_W)
    } else {
        (&pressures, "▲", PRESSURE_W)
    };
    let press_w = if column.iter().any(Option::is_some)
        && inner_w >= fixed + loss_w + column_w + longest.min(names_min)
    {
        column_w
    } else {
        0
    };
    // Names before timings: the time column goes first, so that our passes' names stay whole
    // (the longest, eliminate-dead-functions, is 24 characters; an external tool's longer
    // names are cut while timings show only on a wide pane).
    let time_w = if inner_w >= fixed + 8 + loss_w + press_w + longest.min(24) {
        8
    } else {
        0
    };
    let mut lines = Vec::with_capacity(rows);
    for &i in visible.iter().skip(s.passes.scroll).take(rows) {
        let st = &run.steps[i];
        let (marker, mstyle) = if st.is_source() {
            ("≡", t.unchanged)
        } else if st.has_errors() || s.step_has_errors(i) {
            ("!", t.error)
        } else if st.changed {
            ("*", t.changed)
        } else {
            ("·", t.unchanged)
        };
        let delta = if i == 0 {
            String::new()
        } else {
            let d = st.inst_count as i64 - run.steps[i - 1].inst_count as i64;
            match d {
                0 => String::new(),
                d if d > 0 => format!("+{d}"),
                d => format!("{d}"),
            }
        };
        let time = if st.is_source() {
            String::new()
        } else {
            step_time(st)
        };
        let compared = s.compared_base().is_some();
        let base = if in_diff
            && s.diff_against() == Against::Steps
            && !compared
            && i == s.base_step()
            && i != s.step
        {
            "◆"
        } else if s
            .values
            .as_ref()
            .is_some_and(|v| v.doc == s.doc && v.touches(i))
        {
            // A step the listed value's history has an event at.
            "•"
        } else {
            " "
        };
        let name_w = inner_w.saturating_sub(fixed + time_w + loss_w + press_w);
        let name = super::text::shorten_pass(st.pass, name_w);
        let row_style = if i == s.step {
            t.selected
        } else {
            Style::new()
        };
        let name_style = if st.changed || st.has_errors() || st.is_source() {
            t.text
        } else {
            t.unchanged
        };
        lines.push(
            Line::from(vec![
                Span::styled(format!("{i:>3}"), t.gutter),
                Span::styled(base, t.base),
                Span::styled(format!("{marker} "), mstyle),
                Span::styled(format!("{name:<name_w$}"), name_style),
                Span::styled(
                    format!(" {delta:>dw$}", dw = delta_w),
                    if delta.starts_with('-') {
                        t.changed
                    } else {
                        t.unchanged
                    },
                ),
                Span::styled(
                    format!("{:>loss_w$}", if loss_w > 0 { &losses[i] } else { "" }),
                    t.error,
                ),
                figure_span(column, i, press_w, glyph, t),
                Span::styled(
                    format!("{:>time_w$}", if time_w > 0 { time.as_str() } else { "" }),
                    t.unchanged,
                ),
            ])
            .style(row_style),
        );
    }
    // A run under way: the passes still to come, the first of them running.
    let shown = visible.len().saturating_sub(s.passes.scroll);
    let room = rows.saturating_sub(shown.min(rows));
    let name_w = inner_w.saturating_sub(6 + 9);
    for (k, pass) in s.pending_passes().iter().take(room).enumerate() {
        let name: String = pass.chars().take(name_w).collect();
        let what = if k == 0 { "running…" } else { "" };
        lines.push(Line::styled(
            format!("{:>3}   {name:<name_w$}{what:>9}", run.steps.len() + k),
            t.unchanged,
        ));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The compare pane (`:compare`): instructions per function of our selected step and of the
/// compared step diffs are against, then the compared pipeline's steps (`bN`), the one diffs
/// are against marked.
pub fn draw_compare(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let label = s.compare.spec.as_deref().unwrap_or("");
    let Some(run) = s.compare_run() else {
        let block = Block::bordered()
            .border_style(t.border)
            .title(Span::styled(format!(" compare: {label} "), t.title));
        frame.render_widget(
            Paragraph::new(vec![Line::styled("running…", t.unchanged)]).block(block),
            area,
        );
        return;
    };
    let block = Block::bordered().border_style(t.border).title(Span::styled(
        super::text::title(
            &format!("compare: {label}"),
            &format!("{} steps", run.steps.len()),
            area.width,
        ),
        t.title,
    ));
    let inner_w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    let base = s.compared_base();
    let mut lines = Vec::with_capacity(rows);
    // Functions: ours at the selected step against theirs at the compared step (the table is
    // derived before the draw).
    let theirs_step = base.unwrap_or(run.steps.len().saturating_sub(1));
    if let (Some(ours), Some(theirs)) = (
        s.run().and_then(|r| r.steps.get(s.step)),
        run.steps.get(theirs_step),
    ) {
        let name_w = inner_w.saturating_sub(14).max(4);
        let ours_h = format!("{}", s.step);
        let theirs_h = format!("b{theirs_step}");
        lines.push(Line::styled(
            format!("{:<name_w$}{ours_h:>7}{theirs_h:>7}", "function"),
            t.gutter,
        ));
        let shown = |c: Option<usize>| c.map_or("-".to_string(), |c| c.to_string());
        // Room for the steps below: at most half the rows go to functions.
        let room = (rows / 2).saturating_sub(2).max(1);
        for (n, x, y) in s.compare.functions.iter().take(room) {
            let style = if x == y { t.unchanged } else { t.text };
            let name: String = format!("%{n}").chars().take(name_w).collect();
            lines.push(Line::styled(
                format!("{name:<name_w$}{:>7}{:>7}", shown(*x), shown(*y)),
                style,
            ));
        }
        if s.compare.functions.len() > room {
            lines.push(Line::styled(
                format!("… {} more functions", s.compare.functions.len() - room),
                t.unchanged,
            ));
        }
        lines.push(Line::styled(
            format!(
                "{:<name_w$}{:>7}{:>7}",
                "module", ours.inst_count, theirs.inst_count
            ),
            t.text,
        ));
    }
    // Steps, around the one diffs are against.
    let left = rows.saturating_sub(lines.len());
    let start = theirs_step
        .saturating_sub(left / 2)
        .min(run.steps.len().saturating_sub(left));
    for (i, st) in run.steps.iter().enumerate().skip(start).take(left) {
        let marker = if st.has_errors() {
            ("!", t.error)
        } else if st.changed {
            ("*", t.changed)
        } else {
            ("·", t.unchanged)
        };
        let delta = match i
            .checked_sub(1)
            .map(|p| st.inst_count as i64 - run.steps[p].inst_count as i64)
        {
            None | Some(0) => String::new(),
            Some(d) if d > 0 => format!("+{d}"),
            Some(d) => d.to_string(),
        };
        let name_w = inner_w.saturating_sub(5 + 2 + 7);
        let name = super::text::shorten_pass(st.pass, name_w);
        let row_style = if Some(i) == base {
            t.selected
        } else {
            Style::new()
        };
        lines.push(
            Line::from(vec![
                Span::styled(format!("{:>4}", format!("b{i}")), t.gutter),
                Span::styled(if Some(i) == base { "◆" } else { " " }, t.base),
                Span::styled(format!("{} ", marker.0), marker.1),
                Span::styled(format!("{name:<name_w$}"), t.text),
                Span::styled(format!("{delta:>7}"), t.unchanged),
            ])
            .style(row_style),
        );
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The pressure column's width: ` ▲73+18`, a peak and its change.
const PRESSURE_W: usize = 7;

/// The driver column's width: ` x2180+102`, the x86 instructions and their change.
const X86_W: usize = 10;

/// Step `i`'s figure (peak pressure, or the driver's x86 instructions) after `glyph`, and its
/// change from the step before (a rise in the heat's hottest style), `w` wide.
fn figure_span(
    figures: &[Option<u32>],
    i: usize,
    w: usize,
    glyph: &str,
    t: &Theme,
) -> Span<'static> {
    if w == 0 {
        return Span::raw("");
    }
    let Some(p) = figures[i] else {
        return Span::raw(" ".repeat(w));
    };
    let before = i.checked_sub(1).and_then(|b| figures[b]);
    let (change, style) = t.change(before, p, t.unchanged);
    Span::styled(format!("{:>w$}", format!("{glyph}{p}{change}")), style)
}

/// The width of the loss column (a space and the widest mark), 0 when no step lost anything.
pub fn loss_width(run: &crate::pipeline::Run) -> usize {
    run.steps
        .iter()
        .filter_map(|st| st.known_losses())
        .map(|l| loss_mark(l).chars().count())
        .max()
        .filter(|&w| w > 0)
        .map_or(0, |w| w + 1)
}

/// `-12L` for lost source lines, `-2V` for variables no longer described, both when both.
fn loss_mark((lines, variables): (usize, usize)) -> String {
    let mut out = String::new();
    if lines > 0 {
        out.push_str(&format!("-{lines}L"));
    }
    if variables > 0 {
        out.push_str(&format!("-{variables}V"));
    }
    out
}
