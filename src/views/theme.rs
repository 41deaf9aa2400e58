//! Colours of the panes. With `NO_COLOR` set every style is made of modifiers only.

use ratatui::style::{Color, Modifier, Style};

pub struct Theme {
    pub color: bool,
    pub border: Style,
    pub border_focus: Style,
    pub title: Style,
    pub selected: Style,
    pub changed: Style,
    pub unchanged: Style,
    pub error: Style,
    pub base: Style,
    pub gutter: Style,
    pub cursor_line: Style,
    pub token: Style,
    /// Other places of the selected value: its definition and uses.
    pub value: Style,
    pub search: Style,
    pub added: Style,
    pub removed: Style,
    pub added_word: Style,
    pub removed_word: Style,
    pub status: Style,
    pub status_key: Style,
    pub message: Style,
    pub message_error: Style,
    pub text: Style,
    /// The source pane's marked line, and the code rows that came from it.
    pub source_mark: Style,
    /// Backgrounds of the colour bands (`:bands`), by source line.
    pub bands: [Style; 6],
    /// The pressure gutter's heat, from a quarter of the function's peak or less to the peak.
    pub heat: [Style; 4],
}

impl Theme {
    /// How a count changed from `before` to `now`: `+4` in the heat's hottest style when it
    /// rose, `-4` as a change when it fell, nothing (and `same`) when it did not.
    pub fn change(&self, before: Option<u32>, now: u32, same: Style) -> (String, Style) {
        match before {
            Some(b) if now > b => (format!("+{}", now - b), self.heat[3]),
            Some(b) if now < b => (format!("-{}", b - now), self.changed),
            _ => (String::new(), same),
        }
    }

    /// The heat style of `value` against `peak`.
    pub fn heat_of(&self, value: u32, peak: u32) -> Style {
        let k = if peak == 0 {
            0
        } else {
            ((value * 4).saturating_sub(1) / peak.max(1)).min(3) as usize
        };
        self.heat[k]
    }
}

impl Theme {
    /// A pane's frame: the focused one stands out by colour, or, without colours (`NO_COLOR`),
    /// by a thick border (bold alone is hard to see on many terminals).
    pub fn pane(&self, focused: bool) -> ratatui::widgets::Block<'static> {
        use ratatui::widgets::{Block, BorderType};
        Block::bordered()
            .border_style(if focused {
                self.border_focus
            } else {
                self.border
            })
            .border_type(if focused && !self.color {
                BorderType::Thick
            } else {
                BorderType::Plain
            })
    }

    pub fn new(color: bool) -> Self {
        let plain = Style::new();
        if !color {
            return Theme {
                color,
                border: plain,
                border_focus: plain.add_modifier(Modifier::BOLD),
                title: plain.add_modifier(Modifier::BOLD),
                selected: plain.add_modifier(Modifier::REVERSED),
                changed: plain.add_modifier(Modifier::BOLD),
                unchanged: plain.add_modifier(Modifier::DIM),
                error: plain.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                base: plain.add_modifier(Modifier::UNDERLINED),
                gutter: plain.add_modifier(Modifier::DIM),
                cursor_line: plain.add_modifier(Modifier::BOLD),
                token: plain.add_modifier(Modifier::UNDERLINED),
                value: plain.add_modifier(Modifier::UNDERLINED),
                search: plain.add_modifier(Modifier::REVERSED),
                added: plain,
                removed: plain.add_modifier(Modifier::DIM),
                added_word: plain.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                removed_word: plain.add_modifier(Modifier::CROSSED_OUT),
                status: plain.add_modifier(Modifier::REVERSED),
                status_key: plain.add_modifier(Modifier::REVERSED | Modifier::BOLD),
                message: plain.add_modifier(Modifier::REVERSED),
                message_error: plain.add_modifier(Modifier::REVERSED | Modifier::BOLD),
                text: plain,
                source_mark: plain.add_modifier(Modifier::BOLD),
                // Without colour there are no bands to tell apart.
                bands: [plain; 6],
                heat: [
                    plain.add_modifier(Modifier::DIM),
                    plain,
                    plain.add_modifier(Modifier::BOLD),
                    plain.add_modifier(Modifier::BOLD | Modifier::REVERSED),
                ],
            };
        }
        let bg = Color::Rgb(30, 33, 39);
        Theme {
            color,
            border: Style::new().fg(Color::Rgb(75, 82, 99)),
            border_focus: Style::new().fg(Color::Rgb(97, 175, 239)),
            title: Style::new()
                .fg(Color::Rgb(200, 204, 212))
                .add_modifier(Modifier::BOLD),
            selected: Style::new()
                .bg(Color::Rgb(44, 50, 60))
                .add_modifier(Modifier::BOLD),
            changed: Style::new().fg(Color::Rgb(229, 192, 123)),
            unchanged: Style::new().fg(Color::Rgb(92, 99, 112)),
            error: Style::new()
                .fg(Color::Rgb(224, 108, 117))
                .add_modifier(Modifier::BOLD),
            base: Style::new()
                .fg(Color::Rgb(86, 182, 194))
                .add_modifier(Modifier::BOLD),
            gutter: Style::new().fg(Color::Rgb(75, 82, 99)),
            cursor_line: Style::new().bg(Color::Rgb(44, 50, 60)),
            token: Style::new().add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
            value: Style::new().bg(Color::Rgb(62, 68, 81)),
            search: Style::new().bg(Color::Rgb(229, 192, 123)).fg(bg),
            added: Style::new().bg(Color::Rgb(30, 52, 38)),
            removed: Style::new().bg(Color::Rgb(60, 32, 36)),
            added_word: Style::new()
                .bg(Color::Rgb(45, 95, 60))
                .add_modifier(Modifier::BOLD),
            removed_word: Style::new()
                .bg(Color::Rgb(110, 45, 52))
                .add_modifier(Modifier::BOLD),
            status: Style::new()
                .bg(Color::Rgb(44, 50, 60))
                .fg(Color::Rgb(200, 204, 212)),
            status_key: Style::new()
                .bg(Color::Rgb(97, 175, 239))
                .fg(bg)
                .add_modifier(Modifier::BOLD),
            message: Style::new()
                .bg(Color::Rgb(44, 50, 60))
                .fg(Color::Rgb(152, 195, 121)),
            message_error: Style::new()
                .bg(Color::Rgb(224, 108, 117))
                .fg(bg)
                .add_modifier(Modifier::BOLD),
            text: Style::new().fg(Color::Rgb(200, 204, 212)),
            source_mark: Style::new()
                .fg(Color::Rgb(86, 182, 194))
                .add_modifier(Modifier::BOLD),
            bands: [
                Style::new().bg(Color::Rgb(52, 40, 44)),
                Style::new().bg(Color::Rgb(38, 50, 42)),
                Style::new().bg(Color::Rgb(36, 44, 60)),
                Style::new().bg(Color::Rgb(54, 50, 36)),
                Style::new().bg(Color::Rgb(48, 38, 58)),
                Style::new().bg(Color::Rgb(34, 52, 56)),
            ],
            heat: [
                Style::new().fg(Color::Rgb(92, 99, 112)),
                Style::new().fg(Color::Rgb(152, 195, 121)),
                Style::new().fg(Color::Rgb(229, 192, 123)),
                Style::new()
                    .fg(Color::Rgb(224, 108, 117))
                    .add_modifier(Modifier::BOLD),
            ],
        }
    }
}
