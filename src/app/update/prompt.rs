//! The prompt in the status bar (`views::status_bar`): the `:` command line and the `/` search
//! being typed, and `Esc` clearing the search and the message.

use super::Effect;
use crate::app::action::Action;
use crate::app::state::{Focus, Mode, State};

/// Applies the actions `update` routes here.
pub(super) fn handle(s: &mut State, action: Action) -> Vec<Effect> {
    match action {
        Action::Cancel => {
            s.search = None;
            s.status.message = None;
            // A reduction under way stops, keeping the smallest shader so far.
            if s.bisect.reducing.is_some() {
                return vec![Effect::StopReduce];
            }
            // In the browser, Esc lists every shader again.
            if s.focus == Focus::Shaders && !s.browser.filter.is_empty() {
                s.browser.filter.clear();
            }
        }
        Action::PromptInsert(c) => {
            if let Some(buf) = prompt_text(s) {
                buf.push(c);
            }
            s.status.message = None;
            filter_as_typed(s);
        }
        Action::PromptBackspace => {
            if prompt_text(s).is_some_and(|buf| buf.pop().is_none()) {
                s.prompt.mode = Mode::Normal;
            }
            filter_as_typed(s);
        }
        Action::PromptCancel => {
            // A filter left with Esc lists every shader again.
            if matches!(s.prompt.mode, Mode::Filter(_)) {
                super::browser::filter(s, String::new());
            }
            s.prompt.mode = Mode::Normal;
            s.prompt.history.at = None;
        }
        Action::PromptHistory(back) => browse(s, back),
        Action::PromptComplete => complete(s),
        Action::PromptSubmit => {
            let mode = std::mem::replace(&mut s.prompt.mode, Mode::Normal);
            s.prompt.history.at = None;
            match &mode {
                Mode::Command(buf) => s.prompt.history.push(true, buf),
                Mode::Search(buf) => s.prompt.history.push(false, buf),
                Mode::Normal | Mode::Filter(_) => {}
            }
            let mut effects = Vec::new();
            if let Mode::Command(buf) | Mode::Search(buf) = &mode {
                if !buf.trim().is_empty() {
                    effects.push(Effect::RememberPrompt {
                        command: matches!(mode, Mode::Command(_)),
                        line: buf.clone(),
                    });
                }
            }
            match mode {
                Mode::Command(buf) => {
                    effects.extend(match buf.parse::<Action>() {
                        Ok(a) => super::update(s, a),
                        Err(e) => {
                            s.set_error(e);
                            Vec::new()
                        }
                    });
                }
                Mode::Search(buf) if !buf.is_empty() => {
                    effects.extend(super::update(s, Action::Find(buf)))
                }
                _ => {}
            }
            return effects;
        }
        // A fresh prompt says nothing yet: what it shows after the cursor is its own.
        Action::CommandLine => {
            s.prompt.mode = Mode::Command(String::new());
            s.status.message = None;
        }
        Action::SearchPrompt => {
            s.prompt.mode = Mode::Search(String::new());
            s.status.message = None;
        }
        Action::FilterPrompt => {
            s.prompt.mode = Mode::Filter(s.browser.filter.clone());
            s.status.message = None;
            filter_as_typed(s);
        }
        other => unreachable!("not an action of prompt: {other:?}"),
    }
    Vec::new()
}

/// The browser's filter follows the `/` prompt typed in it, and says how many it lists.
fn filter_as_typed(s: &mut State) {
    let Mode::Filter(text) = &s.prompt.mode else {
        return;
    };
    super::browser::filter(s, text.clone());
    let listed = s.listed_docs().len();
    let all = s.docs.iter().filter(|d| d.present).count();
    s.set_message(format!("{listed} of {all} shaders"));
}

/// `Up`/`Down` in the prompt: the command (or search) before or after the one shown; after the
/// newest, what was typed before browsing.
fn browse(s: &mut State, back: bool) {
    let (typed, command) = match &s.prompt.mode {
        Mode::Command(b) => (b.clone(), true),
        Mode::Search(b) => (b.clone(), false),
        Mode::Normal | Mode::Filter(_) => return,
    };
    let list = if command {
        &s.prompt.history.commands
    } else {
        &s.prompt.history.searches
    };
    let (at, draft) = match s.prompt.history.at.take() {
        Some((at, draft)) => (Some(at), draft),
        None => (None, typed),
    };
    let next = match (at, back) {
        (None, true) => (!list.is_empty()).then_some(0),
        (None, false) => None,
        (Some(k), true) => Some((k + 1).min(list.len().saturating_sub(1))),
        (Some(0), false) => None,
        (Some(k), false) => Some(k - 1),
    };
    let text = match next {
        Some(k) => list[list.len() - 1 - k].clone(),
        None => draft.clone(),
    };
    s.prompt.history.at = next.map(|k| (k, draft));
    s.prompt.mode = if command {
        Mode::Command(text)
    } else {
        Mode::Search(text)
    };
}

/// `Tab` in the `:` prompt: completes the command name, or its argument — a pass name or step
/// number (`:step`, `:diff`), a preset (`:compare`), a shader (`:shader`), on/off. One
/// candidate completes; several complete their common part and are listed in the status bar.
fn complete(s: &mut State) {
    let Mode::Command(buf) = &s.prompt.mode else {
        return;
    };
    let buf = buf.clone();
    let (head, word) = match buf.rfind(' ') {
        Some(i) => (buf[..=i].to_string(), buf[i + 1..].to_string()),
        None => (String::new(), buf.clone()),
    };
    let candidates: Vec<String> = if head.is_empty() {
        crate::app::commands::COMMANDS
            .iter()
            .filter(|c| !c.is_key_action())
            .map(|c| c.name.to_string())
            .collect()
    } else {
        use crate::app::commands::{find, Complete};
        let cmd = head.split_whitespace().next().unwrap_or("");
        match find(cmd).map_or(Complete::Nothing, |c| c.complete) {
            Complete::Steps => s.run().map_or(Vec::new(), |r| {
                r.steps.iter().map(|st| st.pass.to_string()).collect()
            }),
            Complete::Presets => crate::pipeline::registry::PRESETS
                .iter()
                .map(|p| p.name.to_string())
                .chain(["spirv-opt".to_string()])
                .collect(),
            Complete::Shaders => s
                .listed_docs()
                .iter()
                .map(|&d| s.docs[d].display_name(&s.roots))
                .collect(),
            Complete::View => [
                "ir", "spirv", "diff", "split", "glsl", "hlsl", "msl", "wgsl",
            ]
            .iter()
            .map(|w| w.to_string())
            .collect(),
            Complete::OnOff => ["on", "off"].iter().map(|w| w.to_string()).collect(),
            Complete::Nothing => Vec::new(),
        }
    };
    let mut matches: Vec<String> = candidates
        .into_iter()
        .filter(|c| c.starts_with(&word))
        .collect();
    matches.sort();
    matches.dedup();
    match matches.as_slice() {
        [] => s.set_error(format!("nothing completes '{word}'")),
        [one] => s.prompt.mode = Mode::Command(format!("{head}{one} ")),
        many => {
            let common = many.iter().skip(1).fold(many[0].clone(), |acc, m| {
                acc.chars()
                    .zip(m.chars())
                    .take_while(|(a, b)| a == b)
                    .map(|(a, _)| a)
                    .collect()
            });
            s.prompt.mode = Mode::Command(format!("{head}{common}"));
            s.set_message(many.join("  "));
        }
    }
}

/// The prompt's text, for an edit: `None` outside the prompt.
fn prompt_text(s: &mut State) -> Option<&mut String> {
    match &mut s.prompt.mode {
        Mode::Command(buf) | Mode::Search(buf) | Mode::Filter(buf) => Some(buf),
        Mode::Normal => None,
    }
}
