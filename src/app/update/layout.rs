//! Where input goes: the pane a mouse event lands on (by the layout the views planned), the
//! pane the motion keys move in (the focused one, or the help over everything), the order Tab
//! visits the panes in, and the terminal's size.

use super::browser::{move_doc, select_doc};
use super::code_view::{move_cursor, scroll_code};
use super::diagnostics::move_diag;
use super::help::{scroll_help, scroll_popup};
use super::link_view::move_link;
use super::pass_list::move_step;
use super::values::move_values;
use super::Effect;
use crate::app::action::{Action, SplitTo, StepRef};
use crate::app::state::{Focus, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    let page = s.layout.code_rows().max(2) as isize - 1;
    match action {
        Action::Resize(w, h) => s.size = (w, h),
        Action::Click(col, row) => {
            // A press on the left column's edge starts moving it.
            let edge = s.layout.passes.x + s.layout.passes.width;
            s.split.dragging = row < s.layout.status.y && (col + 1 == edge || col == edge);
            if s.split.dragging {
                return Vec::new();
            }
            return mouse(s, col, row, Press::Click);
        }
        Action::Drag(col, _) => {
            if s.split.dragging {
                s.split.width = Some(col + 1);
            }
        }
        Action::Split(to) => {
            let now = s.layout.passes.width;
            s.split.width = match to {
                SplitTo::Default => None,
                SplitTo::At(n) => Some(n),
                SplitTo::By(d) => Some(now.saturating_add_signed(d)),
            };
            s.split.dragging = false;
        }
        Action::WheelUp(col, row) => return mouse(s, col, row, Press::WheelUp),
        Action::WheelDown(col, row) => return mouse(s, col, row, Press::WheelDown),
        Action::Focus => {
            // The panes shown, in the order Tab visits them.
            let mut order = Vec::with_capacity(6);
            if s.browser_shown() {
                order.push(Focus::Shaders);
            }
            // The graph stands where the code is.
            order.extend([
                Focus::Passes,
                if s.cfg.shown {
                    Focus::Cfg
                } else if s.columns.shown {
                    Focus::Columns
                } else {
                    Focus::Code
                },
            ]);
            if s.values.is_some() {
                order.push(Focus::Values);
            }
            if !s.diagnostics_of(s.step).is_empty() {
                order.push(Focus::Diagnostics);
            }
            if s.link.shown && s.linked {
                order.push(Focus::Link);
            }
            if s.source.shown && s.source.file.is_some() {
                order.push(Focus::Source);
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
            if s.popup.is_some() {
                scroll_popup(s, d);
                return Vec::new();
            }
            match s.focus {
                Focus::Shaders => move_doc(s, d),
                Focus::Passes => move_step(s, d),
                Focus::Code => move_cursor(s, d),
                Focus::Diagnostics => move_diag(s, d),
                Focus::Link => move_link(s, d),
                Focus::Values => move_values(s, d),
                Focus::Source => super::source_view::move_line(s, d),
                Focus::Cfg => super::cfg_view::move_cfg(s, d),
                Focus::Columns => super::columns_view::scroll_columns(s, d),
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
            if s.popup.is_some() {
                let page = s.size.1.saturating_sub(6).max(1) as isize;
                scroll_popup(
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
                Focus::Source => super::source_view::move_line(s, d),
                Focus::Link => move_link(s, d.signum() * 10),
                Focus::Cfg => super::cfg_view::move_cfg(s, d.signum() * 5),
                Focus::Columns => super::columns_view::scroll_columns(s, d),
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
            if s.popup.is_some() {
                scroll_popup(s, if top { isize::MIN / 2 } else { isize::MAX / 2 });
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
                Focus::Source => super::source_view::move_line(
                    s,
                    if top { isize::MIN / 2 } else { isize::MAX / 2 },
                ),
                Focus::Cfg => {
                    super::cfg_view::move_cfg(s, if top { isize::MIN / 2 } else { isize::MAX / 2 })
                }
                Focus::Columns => super::columns_view::scroll_columns(
                    s,
                    if top { isize::MIN / 2 } else { isize::MAX / 2 },
                ),
            }
        }
        Action::Left => return super::update(s, Action::PrevToken),
        Action::Right => return super::update(s, Action::NextToken),
        other => unreachable!("not an action of layout: {other:?}"),
    }
    Vec::new()
}

/// What the mouse did over a pane (a drag only moves the split).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Press {
    Click,
    WheelUp,
    WheelDown,
}

/// A click or wheel turn at a terminal cell, on the pane under it.
fn mouse(s: &mut State, col: u16, row: u16, kind: Press) -> Vec<Effect> {
    let areas = s.layout.clone();
    let inside = |r: crate::app::state::Area| r.contains(col, row);
    if let Some(b) = areas.shaders.filter(|&b| inside(b)) {
        match kind {
            Press::Click => {
                let (listed, _) = s.browser_tree();
                let idx = (row.saturating_sub(b.y + 1)) as usize + s.browser.scroll;
                if row > b.y && idx < listed.len() {
                    s.focus = Focus::Shaders;
                    match &listed[idx] {
                        // A click on a folder folds or unfolds it.
                        crate::app::state::BrowserRow::Folder { key, .. } => {
                            super::browser::toggle_fold(s, key.clone())
                        }
                        crate::app::state::BrowserRow::Shader { doc, .. } => select_doc(s, *doc),
                    }
                }
            }
            Press::WheelDown => move_doc(s, 1),
            Press::WheelUp => move_doc(s, -1),
        }
    } else if inside(areas.passes) {
        match kind {
            Press::Click => {
                let visible = s.visible_steps();
                let idx = (row.saturating_sub(areas.passes.y + 1)) as usize + s.passes.scroll;
                if row > areas.passes.y && idx < visible.len() {
                    s.focus = Focus::Passes;
                    return super::update(s, Action::Step(StepRef::Index(visible[idx])));
                }
            }
            Press::WheelDown => return super::update(s, Action::StepNext),
            Press::WheelUp => return super::update(s, Action::StepPrev),
        }
    } else if inside(areas.code) && s.cfg.shown {
        // The graph stands where the code is: a click selects the box under it.
        match kind {
            Press::Click => {
                let r = (row.saturating_sub(areas.code.y + 1)) as usize + s.cfg.scroll;
                let at = s.cfg.drawn.as_ref().and_then(|d| d.drawing.box_at(r));
                if let (true, Some(k)) = (row > areas.code.y, at) {
                    s.focus = Focus::Cfg;
                    s.cfg.cursor = k;
                }
            }
            Press::WheelDown => super::cfg_view::move_cfg(s, 1),
            Press::WheelUp => super::cfg_view::move_cfg(s, -1),
        }
    } else if inside(areas.code) && s.columns.shown {
        match kind {
            Press::Click => s.focus = Focus::Columns,
            Press::WheelDown => super::columns_view::scroll_columns(s, 3),
            Press::WheelUp => super::columns_view::scroll_columns(s, -3),
        }
    } else if inside(areas.code) {
        match kind {
            Press::Click => {
                let r = (row.saturating_sub(areas.code.y + 1)) as usize + s.code.scroll;
                if row > areas.code.y && r < s.panel.len() {
                    s.focus = Focus::Code;
                    s.code.cursor = r;
                    s.code.token = 0;
                }
            }
            Press::WheelDown => scroll_code(s, 3),
            Press::WheelUp => scroll_code(s, -3),
        }
    } else if let Some(v) = areas.values.filter(|&v| inside(v)) {
        match kind {
            Press::Click => {
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
            Press::WheelDown => move_values(s, 1),
            Press::WheelUp => move_values(s, -1),
        }
    }
    Vec::new()
}
