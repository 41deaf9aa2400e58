//! The cost pane (`:cost`): the selected step's instruction mix against its base step's, and a
//! chart over the run's steps — instructions, the driver's x86 instructions (where the driver
//! shows its code), peak pressure, texture and memory operations, each scaled to its own
//! highest — with the selected step marked.

use std::collections::BTreeSet;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, LegendPosition, Paragraph};
use ratatui::Frame;

use super::theme::Theme;
use crate::app::state::State;
use crate::pipeline::cost::{Cost, Kind};

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let Some(run) = s.run() else { return };
    let step = s.step.min(run.steps.len().saturating_sub(1));
    let base = s.base_step();
    let cost_of = |i: usize| run.steps.get(i).and_then(|st| st.known_cost().cloned());
    let title = super::text::title(
        &format!(
            "cost of {} {} against {} {}",
            step,
            run.steps[step].pass,
            base,
            run.steps.get(base).map_or("", |st| st.pass)
        ),
        ":cost closes",
        area.width,
    );
    let block = Block::bordered()
        .border_style(t.border)
        .title(Span::styled(title, t.title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let (Some(now), before) = (cost_of(step), cost_of(base)) else {
        let why = if run.steps[step].is_source() {
            "the source text has no cost: select a step (J, or :step NAME)"
        } else {
            "computing the step's cost…"
        };
        frame.render_widget(Paragraph::new(Line::styled(why, t.unchanged)), inner);
        return;
    };
    let x86_of = |i: usize| s.driver_costs.x86.get(i).copied().flatten();
    let x86 = (x86_of(step), x86_of(base));
    let table_w = 43.min(inner.width);
    let [left, right] =
        Layout::horizontal([Constraint::Length(table_w), Constraint::Fill(1)]).areas(inner);
    if right.width >= 20 {
        frame.render_widget(Paragraph::new(table(&now, before.as_deref(), x86, t)), left);
        chart(frame, right, s, t);
        return;
    }
    // No room beside the table (80 columns): the peak pressure over the steps goes under it,
    // one column a step, the selected step marked.
    let [top, bottom] = Layout::vertical([Constraint::Fill(1), Constraint::Length(2)]).areas(inner);
    frame.render_widget(Paragraph::new(table(&now, before.as_deref(), x86, t)), top);
    pressure_strip(frame, bottom, s, t);
}

/// Each step's peak pressure as a bar, in the columns there are (the last steps' when there
/// are more steps than columns), with the selected step's column marked under it.
fn pressure_strip(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let Some(run) = s.run() else { return };
    let peaks: Vec<Option<u32>> = run
        .steps
        .iter()
        .map(|st| st.known_cost().map(|c| c.pressure.max))
        .collect();
    let high = peaks.iter().flatten().copied().max().unwrap_or(0).max(1);
    let label = format!(" peak ≤{high}");
    let width = usize::from(area.width).saturating_sub(label.chars().count());
    let first = peaks.len().saturating_sub(width);
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let bars: String = peaks[first..]
        .iter()
        .map(|p| match p {
            Some(p) => BARS[((*p as usize * 7) / high as usize).min(7)],
            None => ' ',
        })
        .collect();
    let mark: String = (first..peaks.len())
        .map(|i| if i == s.step { '^' } else { ' ' })
        .collect();
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(vec![
                Span::styled(bars, t.changed),
                Span::styled(label, t.unchanged),
            ]),
            Line::styled(format!("{mark} step {}", s.step), t.unchanged),
        ]),
        area,
    );
}

/// The mix of the step against its base: kind, base count, step count, change.
/// With the driver's x86 instructions of the step and its base, where it has compiled both.
fn table(
    now: &Cost,
    before: Option<&Cost>,
    x86: (Option<usize>, Option<usize>),
    t: &Theme,
) -> Vec<Line<'static>> {
    let kinds: BTreeSet<&Kind> = now
        .mix
        .0
        .keys()
        .chain(before.into_iter().flat_map(|b| b.mix.0.keys()))
        .collect();
    let mut lines = vec![Line::styled(
        format!("{:<22}{:>6}{:>6}{:>6}", "", "base", "step", "Δ"),
        t.title,
    )];
    let row = |name: String, b: Option<u32>, n: u32| {
        let (delta, style) = t.change(b, n, t.text);
        Line::from(vec![
            Span::styled(format!("{name:<22}"), t.text),
            Span::styled(
                format!("{:>6}", b.map_or(String::new(), |b| b.to_string())),
                t.unchanged,
            ),
            Span::styled(format!("{n:>6}"), t.text),
            Span::styled(format!("{delta:>6}"), style),
        ])
    };
    lines.push(row(
        "peak pressure".into(),
        before.map(|b| b.pressure.max),
        now.pressure.max,
    ));
    if let (Some(n), b) = x86 {
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        let b = b.map(|b| u32::try_from(b).unwrap_or(u32::MAX));
        lines.push(row("driver x86".into(), b, n));
    }
    for k in kinds {
        lines.push(row(k.name(), before.map(|b| b.mix.get(k)), now.mix.get(k)));
    }
    lines
}

/// A series of the chart: its legend, style and points.
type Series = (String, Style, Vec<(f64, f64)>);

/// The chart over the steps, each series scaled to its highest (the legend says it).
fn chart(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let Some(run) = s.run() else { return };
    let points: Vec<(usize, usize, std::sync::Arc<Cost>)> = run
        .steps
        .iter()
        .enumerate()
        .filter(|(_, st)| !st.is_source())
        .filter_map(|(i, st)| Some((i, st.inst_count, st.known_cost()?.clone())))
        .collect();
    if points.is_empty() {
        return;
    }
    let series: [(&str, Style, Vec<f64>); 4] = [
        (
            "instructions",
            t.text,
            points.iter().map(|p| p.1 as f64).collect(),
        ),
        (
            "pressure",
            t.heat[3],
            points.iter().map(|p| f64::from(p.2.pressure.max)).collect(),
        ),
        (
            "texture",
            t.base,
            points
                .iter()
                .map(|p| f64::from(p.2.mix.texture()))
                .collect(),
        ),
        (
            "memory",
            t.changed,
            points.iter().map(|p| f64::from(p.2.mix.memory())).collect(),
        ),
    ];
    let mut data: Vec<Series> = series
        .iter()
        .map(|(name, style, ys)| {
            let top = ys.iter().copied().fold(0.0, f64::max);
            let scaled = points
                .iter()
                .zip(ys)
                .map(|(p, y)| (p.0 as f64, if top > 0.0 { y / top * 100.0 } else { 0.0 }))
                .collect();
            (format!("{name} ≤{top}"), *style, scaled)
        })
        .collect();
    // The driver's code size beside our IR's, over the steps it has compiled.
    let x86: Vec<(f64, f64)> = s
        .driver_costs
        .x86
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((i as f64, (*n)? as f64)))
        .collect();
    let top = x86.iter().map(|p| p.1).fold(0.0, f64::max);
    if top > 0.0 {
        let scaled = x86.iter().map(|&(x, y)| (x, y / top * 100.0)).collect();
        data.insert(1, (format!("driver x86 ≤{top}"), t.added, scaled));
    }
    let x_max = run.steps.len().saturating_sub(1).max(1) as f64;
    let marker = [(s.step as f64, 0.0), (s.step as f64, 100.0)];
    let mut datasets: Vec<Dataset> = data
        .iter()
        .map(|(name, style, pts)| {
            Dataset::default()
                .name(name.clone())
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(*style)
                .data(pts)
        })
        .collect();
    datasets.push(
        Dataset::default()
            .name(format!("step {}", s.step))
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(t.border_focus)
            .data(&marker),
    );
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .style(t.gutter)
                .bounds([0.0, x_max])
                .labels(vec![
                    Line::from("0"),
                    Line::from(format!("step {}", run.steps.len() - 1)),
                ]),
        )
        .y_axis(
            Axis::default()
                .style(t.gutter)
                .bounds([0.0, 100.0])
                .labels(vec![Line::from("0"), Line::from("max")]),
        )
        .legend_position(Some(LegendPosition::TopRight))
        .hidden_legend_constraints((Constraint::Percentage(60), Constraint::Percentage(80)));
    frame.render_widget(chart, area);
}
