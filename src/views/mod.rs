//! Drawing. Every view is a function of `&State`; none of them changes it or does real work
//! (highlighting, diffs and scrolling are brought up to date by `app::derive::settle` after
//! each event, before the draw).

pub mod browser;
pub mod cfg_view;
pub mod code_view;
pub mod columns_view;
pub mod cost;
pub mod diagnostics;
pub mod help;
pub mod layout;
pub mod link_view;
pub mod pass_list;
pub mod source_view;
pub mod status_bar;
pub mod text;
pub mod theme;
pub mod values;

use ratatui::Frame;

use crate::app::keymap::Binding;
use crate::app::state::State;

pub fn draw(frame: &mut Frame, s: &State, keymap: &[Binding]) {
    let areas = layout::areas(s);
    let theme = theme::Theme::new(s.color);
    if let Some(b) = areas.shaders {
        browser::draw(frame, b, s, &theme);
    }
    pass_list::draw(frame, areas.passes, s, &theme);
    if let Some(c) = areas.compare {
        pass_list::draw_compare(frame, c, s, &theme);
    }
    if s.cfg.shown {
        cfg_view::draw(frame, areas.code, s, &theme);
    } else if s.columns.shown {
        columns_view::draw(frame, areas.code, s, &theme);
    } else {
        code_view::draw(frame, areas.code, s, &theme);
    }
    if let Some(c) = areas.cost {
        cost::draw(frame, c, s, &theme);
    }
    if let Some(v) = areas.values {
        values::draw(frame, v, s, &theme);
    }
    if let Some(d) = areas.diagnostics {
        diagnostics::draw(frame, d, s, &theme);
    }
    if let Some(l) = areas.link {
        link_view::draw(frame, l, s, &theme);
    }
    if let Some(src) = areas.source {
        source_view::draw(frame, src, s, &theme);
    }
    status_bar::draw(frame, areas.status, s, &theme);
    if let Some(p) = &s.popup {
        help::popup(
            frame,
            frame.area(),
            &p.title,
            &p.lines[p.scroll.min(p.lines.len())..],
            p.scroll,
            p.lines.len(),
            &theme,
        );
    }
    if s.help.shown {
        help::draw(frame, frame.area(), keymap, s.help.scroll, &theme);
    }
}
