//! The shader browser: every shader opened or found under the watched directories, with its
//! status, stage and the instruction count of its pipeline's output.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme::Theme;
use crate::app::state::{BrowserRow, DocStatus, Focus, FolderCounts, SortBy, State};

/// The browser: folders (folded ▸, unfolded ▾) with their counts, shaders under them by the
/// names their folder and file give them, with stage, output size and status.
pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let focused = s.focus == Focus::Shaders;
    let rows_all = &s.browser.rows;
    let listed = &s.browser.order;
    let running = s.browser.totals.running;
    let count = if s.browser.filter.is_empty() {
        listed.len().to_string()
    } else {
        format!(
            "{} of {} /{}",
            listed.len(),
            s.browser.present,
            s.browser.filter
        )
    };
    let mut title = format!(" shaders {count}");
    if running > 0 {
        title.push_str(&format!(" · {running} to run"));
    }
    if s.browser.sort != SortBy::Name {
        title.push_str(&format!(" · by {}", s.browser.sort.name()));
    }
    title.push(' ');
    let block = t.pane(focused).title(Span::styled(title, t.title));
    let inner_w = area.width.saturating_sub(2) as usize;
    let rows = area.height.saturating_sub(2) as usize;
    if listed.is_empty() {
        let msg = if !s.browser.filter.is_empty() {
            vec![Line::styled("none named so (Esc: all)", t.unchanged)]
        } else if s.roots.is_empty() {
            vec![Line::styled("no shaders here yet", t.unchanged)]
        } else {
            // The directories were scanned when they were opened: say what was looked for.
            let roots: Vec<String> = s.roots.iter().map(|r| r.display().to_string()).collect();
            let extensions: Vec<String> = crate::app::workspace::SHADER_EXTENSIONS
                .iter()
                .map(|e| format!(".{e}"))
                .collect();
            vec![
                Line::styled(format!("no shaders under {}", roots.join(", ")), t.error),
                Line::styled("(a shader saved there shows here)", t.unchanged),
                Line::styled(
                    format!(
                        "looks for {}, not hidden or .gitignored",
                        extensions.join(" ")
                    ),
                    t.unchanged,
                ),
            ]
        };
        frame.render_widget(
            Paragraph::new(msg)
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(block),
            area,
        );
        return;
    }
    let (cursor, first) = (s.browser.cursor, s.browser.scroll);
    // name, stage (5), count (6), status (8). Names come first: on a narrow column the
    // stage goes, then the count, and the status becomes a mark.
    let (mut stage_w, mut count_w, mut status_w) = (5, 6, 8);
    const NAME_MIN: usize = 16;
    // Below this, a mark is worth more than the status's word (long corpus names).
    const NAME_WITH_WORD: usize = 24;
    let name_w = |st: usize, c: usize, l: usize| inner_w.saturating_sub(st + c + l + 1);
    if name_w(stage_w, count_w, status_w) < NAME_MIN {
        stage_w = 0;
    }
    if name_w(stage_w, count_w, status_w) < NAME_MIN {
        count_w = 0;
    }
    if name_w(stage_w, count_w, status_w) < NAME_WITH_WORD && stage_w + count_w == 0 {
        status_w = 2;
    }
    let name_w = name_w(stage_w, count_w, status_w);
    let label_w = status_w - 1;
    let mut lines = Vec::with_capacity(rows);
    for (r, row) in rows_all.iter().enumerate().skip(first).take(rows) {
        let row_style = if r == cursor {
            t.selected
        } else {
            Style::new()
        };
        match row {
            BrowserRow::Folder {
                name,
                depth,
                folded,
                counts,
                ..
            } => {
                let FolderCounts {
                    shaders,
                    failing,
                    changed,
                    running,
                } = *counts;
                let mark = if *folded { "▸" } else { "▾" };
                // The folder's name, then how many shaders are under it.
                let pad = indent(*depth);
                let count = format!(" ({shaders})");
                let room = name_w.saturating_sub(pad.len() + 2 + count.len());
                // Sibling folders often share a long beginning (`project.shaders.a`,
                // `project.shaders.b`): a long name keeps its beginning, its end and where it
                // parts from the folders beside it, as shaders' names do.
                let sibling = |rows: &mut dyn Iterator<Item = &BrowserRow>| {
                    rows.take(SIBLING_SCAN)
                        .filter_map(|row| match row {
                            BrowserRow::Folder { name, depth: d, .. } => Some((name, *d)),
                            BrowserRow::Shader { .. } => None,
                        })
                        .take_while(|(_, d)| d >= depth)
                        .find(|(_, d)| d == depth)
                        .map(|(n, _)| format!("{n}/"))
                };
                let before = sibling(&mut rows_all[..r].iter().rev());
                let after = sibling(&mut rows_all.iter().skip(r + 1));
                let shown = super::text::shorten_beside(
                    &format!("{name}/"),
                    before.as_deref(),
                    after.as_deref(),
                    room,
                );
                let folder = format!("{pad}{mark} {}", cut(&shown, room).trim_end());
                let mut spans = vec![
                    Span::styled(format!(" {folder}"), t.title),
                    Span::styled(
                        format!(
                            "{count:<w$}",
                            w = name_w.saturating_sub(folder.chars().count())
                        ),
                        t.gutter,
                    ),
                ];
                if stage_w + count_w > 0 {
                    spans.push(Span::raw(" ".repeat(stage_w + count_w)));
                }
                // Failures first, then what is still to run, then what the newest runs changed.
                let (mut label, style) = if failing > 0 {
                    (format!("{failing}✗"), t.error)
                } else if running > 0 {
                    (format!("{running}…"), t.unchanged)
                } else if changed > 0 {
                    (format!("{changed}Δ"), t.changed)
                } else {
                    (String::new(), t.unchanged)
                };
                if failing > 0 && changed > 0 && label.chars().count() + 4 <= label_w {
                    label.push_str(&format!(" {changed}Δ"));
                }
                spans.push(Span::styled(format!(" {}", cut(&label, label_w)), style));
                lines.push(Line::from(spans).style(row_style));
            }
            BrowserRow::Shader { doc, depth } => {
                let d = &s.docs[*doc];
                let file = d.path.file_name().map_or_else(
                    || d.path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                // Long names keep their beginning and their end, and where they part from the
                // shaders listed beside them.
                let pad = indent(*depth);
                let room = name_w.saturating_sub(pad.len());
                let neighbour = |k: Option<usize>| {
                    k.and_then(|k| rows_all.get(k)).and_then(|row| match row {
                        BrowserRow::Shader { doc: o, .. } => s.docs[*o].path.file_name(),
                        BrowserRow::Folder { .. } => None,
                    })
                };
                let (before, after) = (neighbour(r.checked_sub(1)), neighbour(Some(r + 1)));
                let text = format!(
                    "{pad}{}",
                    super::text::shorten_beside(
                        &file,
                        before.and_then(|n| n.to_str()),
                        after.and_then(|n| n.to_str()),
                        room
                    )
                );
                let status = d.status();
                let style = match status {
                    DocStatus::Ok => t.changed,
                    DocStatus::Running => t.unchanged,
                    DocStatus::CompileError | DocStatus::ValidationError => t.error,
                };
                let label = if status_w == 2 {
                    status.mark()
                } else {
                    status.label()
                };
                let mut stage = d.stage().unwrap_or_default();
                if stage.chars().count() >= stage_w {
                    // Several stages in one module: their initials (`v+f`).
                    stage = stage
                        .split('+')
                        .map(|st| st.chars().next().unwrap_or('?').to_string())
                        .collect::<Vec<_>>()
                        .join("+");
                    stage = stage.chars().take(stage_w.saturating_sub(1)).collect();
                }
                let count = d.output_count().map_or(String::new(), |c| c.to_string());
                let mut spans = vec![Span::styled(
                    format!(" {:<name_w$}", cut(&text, name_w)),
                    t.text,
                )];
                if stage_w > 0 {
                    spans.push(Span::styled(format!("{stage:>stage_w$}"), t.gutter));
                }
                if count_w > 0 {
                    spans.push(Span::styled(format!("{count:>count_w$}"), t.unchanged));
                }
                spans.push(Span::styled(format!(" {label:<label_w$}"), style));
                lines.push(Line::from(spans).style(row_style));
            }
        }
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// How far up and down the rows a folder's siblings are looked for (beyond, its name is cut
/// in the middle alone).
const SIBLING_SCAN: usize = 256;

/// Two columns a level, up to six levels: deeper trees still leave room for names.
fn indent(depth: usize) -> String {
    "  ".repeat(depth.min(6))
}

/// `text` in `w` columns, cut at the end with `…` (names are never cut from the front: the
/// folder says the rest).
fn cut(text: &str, w: usize) -> String {
    if text.chars().count() <= w {
        return format!("{text:<w$}");
    }
    let mut out: String = text.chars().take(w.saturating_sub(1)).collect();
    out.push('…');
    out
}
