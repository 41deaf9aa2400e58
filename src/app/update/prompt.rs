//! The prompt in the status bar (`views::status_bar`): the `:` command line and the `/` search
//! being typed, and `Esc` clearing the search and the message.

use super::Effect;
use crate::app::action::Action;
use crate::app::state::{Mode, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Cancel => {
            s.search = None;
            s.message = None;
        }
        Action::PromptInsert(c) => {
            if let Some(buf) = prompt_text(s) {
                buf.push(c);
            }
        }
        Action::PromptBackspace => {
            if prompt_text(s).is_some_and(|buf| buf.pop().is_none()) {
                s.mode = Mode::Normal;
            }
        }
        Action::PromptCancel => s.mode = Mode::Normal,
        Action::PromptSubmit => {
            let mode = std::mem::replace(&mut s.mode, Mode::Normal);
            match mode {
                Mode::Command(buf) => {
                    return match buf.parse::<Action>() {
                        Ok(a) => super::update(s, a),
                        Err(e) => {
                            s.set_error(e);
                            Vec::new()
                        }
                    }
                }
                Mode::Search(buf) if !buf.is_empty() => return super::update(s, Action::Find(buf)),
                _ => {}
            }
        }
        Action::CommandLine => s.mode = Mode::Command(String::new()),
        Action::SearchPrompt => s.mode = Mode::Search(String::new()),
        other => unreachable!("not an action of prompt: {other:?}"),
    }
    Vec::new()
}

/// The prompt's text, for an edit: `None` outside the prompt.
fn prompt_text(s: &mut State) -> Option<&mut String> {
    match &mut s.mode {
        Mode::Command(buf) | Mode::Search(buf) => Some(buf),
        Mode::Normal => None,
    }
}
