//! The status bar: input, step, function, view mode, reload state and messages; the `:` and
//! `/` prompts replace it while typing.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::theme::Theme;
use crate::app::action::ViewMode;
use crate::app::state::{Against, Mode, State};

pub fn draw(frame: &mut Frame, area: Rect, s: &State, t: &Theme) {
    let prompt = match &s.prompt.mode {
        Mode::Command(buf) => Some(format!(":{buf}")),
        Mode::Search(buf) => Some(format!("/{buf}")),
        Mode::Filter(buf) => Some(format!("shaders named like /{buf}")),
        Mode::Normal => None,
    };
    if let Some(p) = prompt {
        // What the prompt said meanwhile (completions, "nothing completes"), after the cursor.
        let said = s
            .status
            .message
            .as_ref()
            .map(|m| format!("   {}", m.text.lines().next().unwrap_or("")))
            .unwrap_or_default();
        let line = Line::from(vec![
            Span::styled(p, t.status),
            Span::styled("█", t.status),
            Span::styled(said, t.unchanged),
        ])
        .style(t.status);
        frame.render_widget(Paragraph::new(line), area);
        return;
    }
    let mut parts: Vec<Span> = Vec::new();
    // The file name is enough here; a long path would crowd out the message.
    let file = s
        .current()
        .map(|d| {
            d.path.file_name().map_or_else(
                || d.path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .unwrap_or_default();
    // A corpus file's name can fill the bar: a third of it is enough to tell which.
    let file = super::text::shorten_middle(&file, (area.width as usize / 3).max(12));
    let listed = &s.browser.order;
    let doc_count = match listed.iter().position(|&d| d == s.doc) {
        Some(pos) if listed.len() > 1 => format!(" [{}/{}]", pos + 1, listed.len()),
        _ => String::new(),
    };
    parts.push(Span::styled(format!(" {file}{doc_count} "), t.status_key));
    if let Some(run) = s.run() {
        if let Some(st) = run.steps.get(s.step) {
            parts.push(Span::styled(
                format!(
                    " step {}/{} {} ",
                    s.step,
                    (run.steps.len() + s.pending_passes().len()).saturating_sub(1),
                    st.pass
                ),
                t.status,
            ));
            // The step's module uses experimental ops.
            if !st.preview.is_empty() {
                parts.push(Span::styled(
                    format!(" PREVIEW {} ", st.preview.join(" ")),
                    t.status_key,
                ));
            }
        }
    }
    let text = s.text.name();
    let view = match s.view {
        ViewMode::Ir | ViewMode::Spirv => text.to_string(),
        ViewMode::Diff | ViewMode::Split => match s.diff_against() {
            Against::PreviousRun => format!("diff-prev {} {text}", s.step),
            Against::Input(d) => {
                let path = &s.docs[d].path;
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into(),
                );
                format!(
                    "diff {name}:{}→{} {text}",
                    s.input_step(d).unwrap_or(0),
                    s.step
                )
            }
            Against::Steps => {
                let how = if s.view == ViewMode::Diff {
                    "diff"
                } else {
                    "split"
                };
                match s.compared_base() {
                    Some(b) => format!("{how} b{b}→{} {text}", s.step),
                    None => format!("{how} {}→{} {text}", s.base_step(), s.step),
                }
            }
        },
    };
    parts.push(Span::styled(format!("│ {view} "), t.status));
    if let Some(f) = &s.func {
        parts.push(Span::styled(format!("│ func %{f} "), t.status));
    }
    if s.passes.hide_unchanged {
        parts.push(Span::styled("│ changed only ", t.status));
    }
    if s.diff.ignore_renumbering && matches!(s.view, ViewMode::Diff | ViewMode::Split) {
        parts.push(Span::styled("│ ids ignored ", t.status));
    }
    if let Some(d) = s.current() {
        if d.reloads > 0 {
            parts.push(Span::styled(
                format!("│ reloaded {}× ", d.reloads),
                t.status,
            ));
        }
        if d.error.is_some() && d.run.is_some() {
            parts.push(Span::styled(" STALE ", t.message_error));
        }
    }
    let used: usize = parts.iter().map(|p| p.content.chars().count()).sum();
    let room = (area.width as usize).saturating_sub(used + 3);
    let right = match (
        &s.status.message,
        s.current().and_then(|d| d.error.as_ref()),
    ) {
        (Some(m), _) => Span::styled(
            format!(" {} ", fit_message(&m.text, room)),
            if m.error { t.message_error } else { t.message },
        ),
        (None, Some(e)) => Span::styled(format!(" {} ", fit_message(e, room)), t.message_error),
        (None, None) => Span::styled(" ? help ", t.status),
    };
    parts.push(Span::styled("│", t.status));
    parts.push(right);
    frame.render_widget(Paragraph::new(Line::from(parts).style(t.status)), area);
}

/// A message as the status bar has room for it: its first line, cut with a pointer to
/// `:messages` when there is more of it than fits.
fn fit_message(text: &str, room: usize) -> String {
    let first = text.lines().next().unwrap_or("");
    let more = text.lines().nth(1).is_some();
    if !more && first.chars().count() <= room {
        return first.to_string();
    }
    const MORE: &str = " … (:messages)";
    let keep = room.saturating_sub(MORE.chars().count());
    let mut cut: String = first.chars().take(keep).collect();
    cut.push_str(MORE);
    cut
}
