//! Input to actions: a key becomes the action the key map binds it to in the context of what
//! has the keys; a mouse event becomes a click or wheel action at its cell. Nothing here
//! changes state but through `update`.

use super::action::{Action, MouseKind};
use super::keymap::{Context, Key, KeyCode, Keymap};
use super::state::{Focus, Mode, State};
use super::update::{update, Effect};

/// A key: the action the key map binds it to in the context of what has the keys (the help,
/// an information box, the prompt, or the focused pane). At the prompt, a character nothing
/// binds is typed.
pub fn handle_key(s: &mut State, keymap: &Keymap, key: Key) -> Vec<Effect> {
    let context = key_context(s);
    match keymap.lookup(context, key) {
        Some(a) => update(s, a.clone()),
        None => match key.code {
            KeyCode::Char(c) if context == Context::Prompt && !key.ctrl => {
                update(s, Action::PromptInsert(c))
            }
            _ => Vec::new(),
        },
    }
}

/// The context whose bindings a key is looked up in.
pub fn key_context(s: &State) -> Context {
    if matches!(
        s.prompt.mode,
        Mode::Command(_) | Mode::Search(_) | Mode::Filter(_)
    ) {
        return Context::Prompt;
    }
    if s.help.shown {
        return Context::Help;
    }
    if s.popup.is_some() {
        return Context::Popup;
    }
    match s.focus {
        Focus::Shaders => Context::Shaders,
        Focus::Passes => Context::Passes,
        Focus::Code => Context::Code,
        Focus::Diagnostics => Context::Diagnostics,
        Focus::Link => Context::Link,
        Focus::Values => Context::Values,
        Focus::Source => Context::Source,
        Focus::Cfg => Context::Cfg,
        Focus::Columns => Context::Columns,
    }
}

/// A mouse event at a terminal cell: the action it is.
pub fn handle_mouse(s: &mut State, col: u16, row: u16, kind: MouseKind) -> Vec<Effect> {
    update(
        s,
        match kind {
            MouseKind::Click => Action::Click(col, row),
            MouseKind::Drag => Action::Drag(col, row),
            MouseKind::WheelUp => Action::WheelUp(col, row),
            MouseKind::WheelDown => Action::WheelDown(col, row),
        },
    )
}
