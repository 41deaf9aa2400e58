//! The help overlay, generated from the key map and the command table so it cannot drift.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::theme::Theme;
use crate::app::commands::COMMANDS;
use crate::app::keymap::{Binding, Context};

/// A bordered box of text lines centred over the screen: `lines` from line `from` of `total`
/// (the title says where, and how to scroll, when they do not all fit).
pub fn popup(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    lines: &[String],
    from: usize,
    total: usize,
    t: &Theme,
) {
    // Room for where the box is, when it scrolls: ", j/k: 120–140 of 200".
    let position_room = 24;
    let width = (lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16 + 4)
        .max((title.chars().count() + 18 + position_room) as u16)
        .min(area.width);
    // Long lines wrap: count the rows they take inside the borders.
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| (l.chars().count() + 1).div_ceil(inner).max(1))
        .sum();
    let height = (rows as u16 + 2).min(area.height);
    let [_, mid, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(height),
        Constraint::Fill(1),
    ])
    .areas(area);
    let [_, rect, _] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(width),
        Constraint::Fill(1),
    ])
    .areas(mid);
    frame.render_widget(Clear, rect);
    let cut = from > 0 || rows + 2 > usize::from(area.height);
    let position = if cut {
        // The lines shown: as many as fit, each taking the rows it wraps to.
        let mut shown = 0;
        let mut used = 0;
        for l in lines {
            used += (l.chars().count() + 1).div_ceil(inner).max(1);
            if used + 2 > usize::from(height) {
                break;
            }
            shown += 1;
        }
        format!(", j/k: {}–{} of {total}", from + 1, from + shown.max(1))
    } else {
        String::new()
    };
    let block = Block::bordered()
        .border_style(t.border_focus)
        .title(Span::styled(
            format!(" {title} — Esc to close{position} "),
            t.title,
        ));
    let text: Vec<Line> = lines
        .iter()
        .map(|l| Line::styled(format!(" {l}"), t.text))
        .collect();
    frame.render_widget(
        Paragraph::new(text)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .block(block),
        rect,
    );
}

/// One entry of the help: what to press or type, and what it does (`None`: a heading).
struct Entry {
    keys: String,
    help: String,
}

/// The help's entries, generated from the key map and the command table: headings have
/// empty keys.
fn entries(keymap: &[Binding]) -> Vec<Entry> {
    // Group keys that do the same thing: "j <Down>  down".
    let mut rows: Vec<(String, &str, Context)> = Vec::new();
    for b in keymap {
        let key = b.keys.replace("<lt>", "<");
        match rows
            .iter_mut()
            .find(|(_, h, c)| *h == b.help.as_ref() && *c == b.context)
        {
            Some(row) => {
                row.0.push(' ');
                row.0.push_str(&key);
            }
            None => rows.push((key, b.help.as_ref(), b.context)),
        }
    }
    let heading = |h: &str| Entry {
        keys: String::new(),
        help: h.to_string(),
    };
    let mut out = vec![heading("Keys")];
    for (ctx, title) in [
        (Context::Global, ""),
        (Context::Passes, "in the pass list"),
        (Context::Code, "in the code pane"),
        (Context::Diagnostics, "in the diagnostics pane"),
        (Context::Values, "in the list of a value's uses or history"),
        (
            Context::Source,
            "in the source pane (j/k move the code pane to the line's code)",
        ),
        (
            Context::Cfg,
            "in the control-flow graph (j/k move between blocks)",
        ),
        (Context::Columns, "in the steps side by side (j/k scroll)"),
        (Context::Shaders, "in the shader browser"),
        (Context::Link, "in the link view"),
        (Context::Help, "in this help"),
        (Context::Popup, "in an information box"),
        (Context::Prompt, "at the : or / prompt (other keys type)"),
    ] {
        if !title.is_empty() {
            out.push(heading(&format!(" {title}")));
        }
        for (keys, help, _) in rows.iter().filter(|r| r.2 == ctx) {
            out.push(Entry {
                keys: keys.clone(),
                help: help.to_string(),
            });
        }
    }
    out.push(heading(""));
    out.push(heading("Commands (:)"));
    for (usage, help) in COMMANDS.iter().flat_map(|c| c.usage) {
        out.push(Entry {
            keys: format!(":{usage}"),
            help: help.to_string(),
        });
    }
    out.push(heading(""));
    out.push(heading(
        "What keys do are commands too, and can be bound in shaderstep.toml's [keys]:",
    ));
    out.push(Entry {
        keys: PARAGRAPH.into(),
        help: COMMANDS
            .iter()
            .filter(|c| c.is_key_action())
            .map(|c| c.name)
            .collect::<Vec<_>>()
            .join(" "),
    });
    out
}

/// The keys of an entry that is a paragraph of text, across the whole column.
const PARAGRAPH: &str = "\t";

/// Widest key column: longer keys put their text on the next line.
const KEYS_MAX: usize = 24;

/// The help text for a column `width` wide, generated from the key map and the command
/// table: keys in a column as wide as the widest (up to `KEYS_MAX`), what they do wrapped
/// beside them.
pub fn lines(keymap: &[Binding], t: &Theme, width: usize) -> Vec<Line<'static>> {
    let entries = entries(keymap);
    let keys_w = entries
        .iter()
        .filter(|e| e.keys != PARAGRAPH)
        .map(|e| e.keys.chars().count())
        .filter(|&n| n <= KEYS_MAX)
        .max()
        .unwrap_or(0)
        .min(width / 3);
    let text_w = width.saturating_sub(keys_w + 3).max(12);
    let mut out = Vec::new();
    for e in entries {
        if e.keys.is_empty() {
            for l in wrap(&e.help, width) {
                out.push(Line::styled(l, t.title));
            }
            continue;
        }
        if e.keys == PARAGRAPH {
            for l in wrap(&e.help, width.saturating_sub(1)) {
                out.push(Line::styled(format!(" {l}"), t.text));
            }
            continue;
        }
        let wrapped = wrap(&e.help, text_w);
        let mut wrapped = wrapped.into_iter();
        if e.keys.chars().count() > keys_w {
            // The keys take the row; what they do goes under them.
            out.push(Line::styled(format!(" {}", e.keys), t.base));
        } else {
            let first = wrapped.next().unwrap_or_default();
            out.push(Line::from(vec![
                Span::styled(format!(" {:<keys_w$}  ", e.keys), t.base),
                Span::styled(first, t.text),
            ]));
        }
        for rest in wrapped {
            out.push(Line::from(vec![
                Span::raw(" ".repeat(keys_w + 3)),
                Span::styled(rest, t.text),
            ]));
        }
    }
    out
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let n = line.chars().count();
        if n > 0 && n + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let head: String = line.chars().take(width).collect();
            line = line.chars().skip(width).collect();
            out.push(head);
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}

/// Where the help goes on a screen: its box, its columns (two side by side when the screen
/// is wide enough), each column's width, and the rows of each column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub rect: Rect,
    pub columns: usize,
    pub column_width: usize,
    pub rows: usize,
}

/// A column narrower than this is not split off.
const COLUMN_MIN: usize = 72;
/// Wider than this, a column is hard to read.
const COLUMN_MAX: usize = 110;

pub fn placement(area: Rect) -> Placement {
    let avail = usize::from(area.width.saturating_sub(4)).max(20);
    let columns = if avail >= 2 * COLUMN_MIN + 5 { 2 } else { 1 };
    let column_width = ((avail - 2 - 3 * (columns - 1)) / columns).min(COLUMN_MAX);
    let width = (column_width * columns + 3 * (columns - 1) + 2) as u16;
    let rows = usize::from(area.height.saturating_sub(4)).max(1);
    let [_, mid, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length((rows + 2) as u16),
        Constraint::Fill(1),
    ])
    .areas(area);
    let [_, rect, _] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(width.min(area.width)),
        Constraint::Fill(1),
    ])
    .areas(mid);
    Placement {
        rect,
        columns,
        column_width,
        rows,
    }
}

/// The help's length in lines and how many it shows at once, on a screen of `size` (for the
/// scrolling `update` does).
pub fn extent(keymap: &[Binding], size: (u16, u16)) -> (usize, usize) {
    let p = placement(Rect::new(0, 0, size.0, size.1.saturating_sub(1)));
    let total = lines(keymap, &Theme::new(false), p.column_width).len();
    (total, p.rows * p.columns)
}

pub fn draw(frame: &mut Frame, area: Rect, keymap: &[Binding], scroll: usize, t: &Theme) {
    let p = placement(area);
    let all = lines(keymap, t, p.column_width);
    let page = p.rows * p.columns;
    let scroll = scroll.min(all.len().saturating_sub(page));
    let shown = all.len().saturating_sub(scroll).min(page);
    // Where the margins around the box are thin, the panes' text in them reads as part of the
    // help: the whole screen is cleared instead.
    let thin = p.rect.width + 8 >= area.width || p.rect.height + 4 >= area.height;
    frame.render_widget(Clear, if thin { area } else { p.rect });
    let position = if all.len() > page {
        format!(
            " {}–{} of {}, j/k to scroll",
            scroll + 1,
            scroll + shown,
            all.len()
        )
    } else {
        String::new()
    };
    let block = Block::bordered()
        .border_style(t.border_focus)
        .title(Span::styled(
            format!(" help — Esc or ? to close{position} "),
            t.title,
        ));
    let inner = block.inner(p.rect);
    frame.render_widget(block, p.rect);
    // Columns read top to bottom, then the next one, as a newspaper's.
    for c in 0..p.columns {
        let x = inner.x + (c * (p.column_width + 3)) as u16;
        let rect = Rect::new(x, inner.y, p.column_width as u16, inner.height).intersection(inner);
        let from = scroll + c * p.rows;
        let column: Vec<Line> = all.iter().skip(from).take(p.rows).cloned().collect();
        frame.render_widget(Paragraph::new(column), rect);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::keymap::default_keymap;

    /// The help lists every command of the command table and every key action, at any width.
    #[test]
    fn every_command_is_in_the_help() {
        let keymap = default_keymap();
        for width in [60, 74, 106] {
            let text: String = lines(&keymap, &Theme::new(false), width)
                .iter()
                .map(|l| format!("{l}\n"))
                .collect();
            let words: Vec<&str> = text.split_whitespace().collect();
            for command in COMMANDS {
                let name = command.name;
                if command.is_key_action() {
                    assert!(words.contains(&name), "{name} is not in the help");
                } else {
                    assert!(
                        words.iter().any(|w| w.starts_with(&format!(":{name}"))),
                        ":{name} is not in the help at width {width}"
                    );
                }
            }
        }
    }

    #[test]
    fn wraps_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("a bb ccc", 4), vec!["a bb", "ccc"]);
        assert_eq!(wrap("abcdefgh", 3), vec!["abc", "def", "gh"]);
        assert_eq!(wrap("", 5), vec![""]);
    }

    #[test]
    fn every_line_fits_its_column_and_wide_screens_get_two() {
        let keymap = default_keymap();
        for width in [80u16, 120, 220] {
            let p = placement(Rect::new(0, 0, width, 50));
            assert!(p.rect.width <= width);
            assert_eq!(p.columns, if width >= 220 { 2 } else { 1 }, "{width}");
            for l in lines(&keymap, &Theme::new(false), p.column_width) {
                assert!(l.width() <= p.column_width, "{width}: {l:?}");
            }
        }
    }
}
