//! Where each pane goes, as a pure function of the terminal size (the event loop also uses it
//! to map mouse positions to panes).

use ratatui::layout::{Constraint, Layout, Rect};

use crate::app::state::{Area, Layout as Panes, State};

pub struct Areas {
    /// The shader browser, above the pass list (for directories and several inputs).
    pub shaders: Option<Rect>,
    pub passes: Rect,
    /// Under the pass list, when a second pipeline is compared (`:compare`).
    pub compare: Option<Rect>,
    pub code: Rect,
    /// Under the code, when a value's uses or history are listed (`u`, `y`).
    pub values: Option<Rect>,
    /// Under the code, when the selected step has diagnostics.
    pub diagnostics: Option<Rect>,
    /// Under the code, when the link view is shown (`L`, linked stages only).
    pub link: Option<Rect>,
    /// The source pane (`S`): right of the code on wide terminals, under it on narrow ones.
    pub source: Option<Rect>,
    /// Under the code, when the cost pane is shown (`:cost`).
    pub cost: Option<Rect>,
    pub status: Rect,
}

pub fn areas(s: &State) -> Areas {
    let area = Rect::new(0, 0, s.size.0, s.size.1);
    let [main, status] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
    let browser = s.browser_shown();
    // The left column's width comes from the screen's alone, so the layout does not jump
    // between shaders or presets: on a narrow screen names get 3/8 of it (the time column
    // goes first, see the pass list); a wide one 3/10, from 40 up to 64 columns. The
    // user's choice (`+`, `-`, `:split`, a drag) wins, leaving the code 20 columns.
    let default = if area.width >= 100 {
        (area.width * 3 / 10).clamp(40, 64)
    } else {
        (area.width * 3 / 8).max(20)
    };
    let pass_width = s
        .split
        .width
        .unwrap_or(default)
        .clamp(12.min(area.width), area.width.saturating_sub(20).max(12))
        .min(area.width);
    // On a narrow screen the link view's table takes the whole width, under both columns.
    let link_wide = s.link.shown && s.linked && area.width < 100 && main.height > 16;
    let (main, wide_link) = if link_wide {
        let rows = s.link.table.len() as u16;
        let h = (rows + 3).min(main.height / 2).max(4);
        let [m, l] = Layout::vertical([Constraint::Min(8), Constraint::Length(h)]).areas(main);
        (m, Some(l))
    } else {
        (main, None)
    };
    let [left, code] =
        Layout::horizontal([Constraint::Length(pass_width), Constraint::Min(0)]).areas(main);
    let (code, source) = source_split(s, code);
    let (shaders, passes) = if browser {
        let listed = s.browser.rows.len().min(u16::MAX as usize) as u16;
        // An empty directory gets room to say what it looks for.
        let h = if s.docs.is_empty() && !s.roots.is_empty() {
            8.min(left.height / 2)
        } else {
            // A tree (folders) gets half the column, a flat list a third.
            let folders = s
                .browser
                .rows
                .iter()
                .any(|r| matches!(r, crate::app::state::BrowserRow::Folder { .. }));
            let share = if folders { 2 } else { 3 };
            (listed.max(1) + 2).min((left.height / share).max(5))
        };
        let [b, p] = Layout::vertical([Constraint::Length(h), Constraint::Min(0)]).areas(left);
        (Some(b), p)
    } else {
        (None, left)
    };
    let (passes, compare) = if s.compare.spec.is_some() && passes.height > 14 {
        let [p, c] =
            Layout::vertical([Constraint::Min(6), Constraint::Percentage(50)]).areas(passes);
        (p, Some(c))
    } else {
        (passes, None)
    };
    let (code, link) = if wide_link.is_some() {
        (code, wide_link)
    } else if s.link.shown && s.linked && code.height > 12 {
        let rows = s.link.table.len() as u16;
        let h = (rows + 3).min(code.height / 2).max(4);
        let [c, l] = Layout::vertical([Constraint::Min(6), Constraint::Length(h)]).areas(code);
        (c, Some(l))
    } else {
        (code, None)
    };
    // The cost pane: a table of the mix beside a chart over the steps.
    let (code, cost) = if s.cost.shown && code.height >= 14 {
        let h = (code.height / 2).clamp(8, 16);
        let [c, k] = Layout::vertical([Constraint::Min(6), Constraint::Length(h)]).areas(code);
        (c, Some(k))
    } else {
        (code, None)
    };
    // A list asked for is shown even on a short code pane (the source pane under it at 80x24):
    // three rows of it, and six of code, are better than a list that silently stays hidden.
    let (code, values) = match &s.values {
        Some(list) if code.height >= 9 => {
            let h = (list.entries.len().max(1) as u16 + 2)
                .min(code.height / 3)
                .max(3);
            let [c, v] = Layout::vertical([Constraint::Min(6), Constraint::Length(h)]).areas(code);
            (c, Some(v))
        }
        _ => (code, None),
    };
    // Diagnostics wrapped whole, up to a few rows (or a third of the code's height).
    let n = super::diagnostics::rows_needed(s, code.width);
    let (code, diagnostics) = if n > 0 && code.height >= 9 {
        let rows = n
            .min(super::diagnostics::MAX_ROWS)
            .min(code.height as usize / 3)
            .max(2) as u16;
        let [c, d] =
            Layout::vertical([Constraint::Min(6), Constraint::Length(rows + 2)]).areas(code);
        (c, Some(d))
    } else {
        (code, None)
    };
    Areas {
        shaders,
        passes,
        compare,
        code,
        values,
        diagnostics,
        link,
        source,
        cost,
        status,
    }
}

/// Code columns from which the source pane stands beside the code rather than under it.
pub const SOURCE_BESIDE_MIN_WIDTH: u16 = 140;

/// Splits the source pane off the code's area when it is shown: beside the code (right of it)
/// when the area is wide, under it when it is narrow; nothing when too small for both.
fn source_split(s: &State, code: Rect) -> (Rect, Option<Rect>) {
    if !s.source.shown {
        return (code, None);
    }
    if code.width >= SOURCE_BESIDE_MIN_WIDTH {
        let [c, src] =
            Layout::horizontal([Constraint::Min(60), Constraint::Percentage(42)]).areas(code);
        (c, Some(src))
    } else if code.height >= 12 {
        let [c, src] =
            Layout::vertical([Constraint::Min(6), Constraint::Percentage(40)]).areas(code);
        (c, Some(src))
    } else {
        (code, None)
    }
}

/// The layout `update` reads: the panes' places, and the help overlay's rows and length for
/// the key map in use (worked out only while the help is shown).
pub fn plan(s: &State, keymap: &[crate::app::keymap::Binding]) -> Panes {
    let a = areas(s);
    let (help_lines, help_rows) = if s.help.shown {
        super::help::extent(keymap, s.size)
    } else {
        (0, 0)
    };
    let area = |r: Rect| Area {
        x: r.x,
        y: r.y,
        width: r.width,
        height: r.height,
    };
    Panes {
        shaders: a.shaders.map(area),
        passes: area(a.passes),
        compare: a.compare.map(area),
        code: area(a.code),
        values: a.values.map(area),
        diagnostics: a.diagnostics.map(area),
        link: a.link.map(area),
        source: a.source.map(area),
        cost: a.cost.map(area),
        status: area(a.status),
        help_rows,
        help_lines,
    }
}
