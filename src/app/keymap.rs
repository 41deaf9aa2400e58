//! Keys and key maps. Keys have one notation (`j`, `<C-d>`, `<Enter>`, `<S-Tab>`) shared by the
//! key map, the help overlay and replay scripts; the key map is data, and the help overlay is
//! generated from it so the two cannot drift.

use std::fmt;

use super::action::{Action, ViewMode};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyCode {
    Char(char),
    Enter,
    Esc,
    Tab,
    BackTab,
    Backspace,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Delete,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
}

impl Key {
    pub const fn plain(code: KeyCode) -> Self {
        Key {
            code,
            ctrl: false,
            alt: false,
        }
    }
    pub const fn char(c: char) -> Self {
        Key::plain(KeyCode::Char(c))
    }
    pub const fn ctrl(c: char) -> Self {
        Key {
            code: KeyCode::Char(c),
            ctrl: true,
            alt: false,
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char('<') => "lt".to_string(),
            KeyCode::Char(c) if !self.ctrl && !self.alt => return write!(f, "{c}"),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Backspace => "BS".into(),
            KeyCode::Up => "Up".into(),
            KeyCode::Down => "Down".into(),
            KeyCode::Left => "Left".into(),
            KeyCode::Right => "Right".into(),
            KeyCode::PageUp => "PageUp".into(),
            KeyCode::PageDown => "PageDown".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::Delete => "Del".into(),
        };
        let mut s = String::from("<");
        if self.ctrl {
            s.push_str("C-");
        }
        if self.alt {
            s.push_str("A-");
        }
        s.push_str(&name);
        s.push('>');
        f.write_str(&s)
    }
}

/// Parses a key sequence in `<C-d>` notation: `jjd<Enter>`, `<C-u>`, `<lt>` for a literal `<`.
pub fn parse_keys(s: &str) -> Result<Vec<Key>, String> {
    let mut keys = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '<' {
            keys.push(Key::char(c));
            continue;
        }
        let mut name = String::new();
        let mut closed = false;
        for d in chars.by_ref() {
            if d == '>' {
                closed = true;
                break;
            }
            name.push(d);
        }
        if !closed {
            return Err(format!("unterminated key name '<{name}'"));
        }
        keys.push(parse_key_name(&name)?);
    }
    Ok(keys)
}

fn parse_key_name(name: &str) -> Result<Key, String> {
    let mut key = Key::plain(KeyCode::Esc);
    let mut rest = name;
    loop {
        if let Some(r) = rest.strip_prefix("C-") {
            key.ctrl = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("A-") {
            key.alt = true;
            rest = r;
        } else {
            break;
        }
    }
    key.code = match rest {
        "Enter" | "CR" | "Return" => KeyCode::Enter,
        "Esc" => KeyCode::Esc,
        "Tab" => KeyCode::Tab,
        "S-Tab" => KeyCode::BackTab,
        "BS" | "Backspace" => KeyCode::Backspace,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "PageUp" => KeyCode::PageUp,
        "PageDown" => KeyCode::PageDown,
        "Home" => KeyCode::Home,
        "End" => KeyCode::End,
        "Del" => KeyCode::Delete,
        "Space" => KeyCode::Char(' '),
        "lt" => KeyCode::Char('<'),
        s if s.chars().count() == 1 => KeyCode::Char(s.chars().next().unwrap()),
        other => return Err(format!("unknown key '<{other}>'")),
    };
    Ok(key)
}

/// Where keys go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Context {
    /// Anywhere in normal mode.
    Global,
    /// The pass list has focus.
    Passes,
    /// The code pane has focus.
    Code,
    /// The diagnostics pane has focus.
    Diagnostics,
    /// The shader browser has focus.
    Shaders,
    /// The link view has focus.
    Link,
    /// The value list (uses, history) has focus.
    Values,
    /// The source pane has focus.
    Source,
    /// The help is shown over everything: its keys only.
    Help,
    /// An information box is shown: its keys only.
    Popup,
    /// The `:` or `/` prompt: its keys, and characters typed are inserted.
    Prompt,
}

impl Context {
    /// A context that takes every key itself: no global binding applies in it.
    pub fn is_modal(self) -> bool {
        matches!(self, Context::Help | Context::Popup | Context::Prompt)
    }
}

pub struct Binding {
    pub context: Context,
    pub keys: std::borrow::Cow<'static, str>,
    pub action: Action,
    pub help: std::borrow::Cow<'static, str>,
}

/// Applies `[keys]` of shaderstep.toml: each (key, command) binds the key, everywhere, to the
/// command (what `:` takes, e.g. `page-down`, `step lift`), or unbinds it for `none`; the key's
/// other bindings go. Returns what could not be applied, each naming the key.
pub fn apply_overrides(bindings: &mut Vec<Binding>, overrides: &[(String, String)]) -> Vec<String> {
    let mut errors = Vec::new();
    // Where the next override goes: the user's keys first, in file order.
    let mut at = 0;
    for (keys, command) in overrides {
        let key = match parse_keys(keys) {
            Ok(k) if k.len() == 1 => k[0],
            Ok(_) => {
                errors.push(format!("keys.\"{keys}\": one key per binding"));
                continue;
            }
            Err(e) => {
                errors.push(format!("keys.\"{keys}\": {e}"));
                continue;
            }
        };
        let action = if command.trim() == "none" {
            None
        } else {
            match command.parse::<Action>() {
                Ok(a) => Some(a),
                Err(e) => {
                    errors.push(format!("keys.\"{keys}\": {e}"));
                    continue;
                }
            }
        };
        let mut k = 0;
        bindings.retain(|b| {
            k += 1;
            let other = parse_keys(&b.keys).map_or(true, |ks| ks.first() != Some(&key));
            if !other && k <= at {
                // An earlier override of the same key goes too.
                at -= 1;
            }
            other
        });
        if let Some(action) = action {
            bindings.insert(
                at,
                Binding {
                    context: Context::Global,
                    keys: keys.clone().into(),
                    action,
                    help: format!(":{} (shaderstep.toml)", command.trim()).into(),
                },
            );
            at += 1;
        }
    }
    errors
}

/// The default key map. Context-specific bindings win over global ones.
pub fn default_keymap() -> Vec<Binding> {
    use Action as A;
    use Context::{Code, Diagnostics, Global, Help, Link, Passes, Popup, Prompt, Shaders, Values};
    let b = |context, keys: &'static str, action, help: &'static str| Binding {
        context,
        keys: keys.into(),
        action,
        help: help.into(),
    };
    let mut map = vec![
        b(
            Global,
            "q",
            A::Quit,
            "quit (asks first while a bisect runs)",
        ),
        b(
            Global,
            "<C-c>",
            A::Quit,
            "quit (asks first while a bisect runs)",
        ),
        b(Global, "?", A::Help, "show or hide this help"),
        b(
            Global,
            ":",
            A::CommandLine,
            "command line (:step :diff :func :write …)",
        ),
        b(Global, "/", A::SearchPrompt, "search the code pane"),
        b(Global, "n", A::FindNext, "next search match"),
        b(Global, "N", A::FindPrev, "previous search match"),
        b(
            Global,
            "<Tab>",
            A::Focus,
            "focus shaders / pass list / code / diagnostics",
        ),
        b(Global, "J", A::StepNext, "next step"),
        b(Global, "<C-n>", A::StepNext, "next step"),
        b(Global, "K", A::StepPrev, "previous step"),
        b(Global, "<C-p>", A::StepPrev, "previous step"),
        b(Global, "m", A::Mark, "mark the selected step as diff base"),
        b(
            Global,
            "d",
            A::View(ViewMode::Diff),
            "diff selected step against base",
        ),
        b(Global, "D", A::View(ViewMode::Split), "diff side by side"),
        b(Global, "i", A::View(ViewMode::Ir), "IR text view"),
        b(
            Global,
            "s",
            A::View(ViewMode::Spirv),
            "SPIR-V disassembly view",
        ),
        b(
            Global,
            "t",
            A::ToggleText,
            "toggle IR / SPIR-V text (in diffs too)",
        ),
        b(Global, "}", A::NextHunk, "next change"),
        b(Global, "{", A::PrevHunk, "previous change"),
        b(
            Global,
            "r",
            A::IgnoreRenumbering(None),
            "diffs: ignore renumbered ids",
        ),
        b(
            Global,
            "H",
            A::HideUnchanged(None),
            "hide steps that changed nothing",
        ),
        b(
            Global,
            "f",
            A::FuncAtCursor,
            "only the function at the cursor / all",
        ),
        b(Global, "]", A::NextInput, "next shader"),
        b(Global, "[", A::PrevInput, "previous shader"),
        b(
            Global,
            "p",
            A::DiffPrev,
            "diff against this step of the previous run (after a reload)",
        ),
        b(
            Global,
            "(",
            A::CompareStep(-1),
            "compared pipeline: diff against its step before",
        ),
        b(
            Global,
            ")",
            A::CompareStep(1),
            "compared pipeline: diff against its next step",
        ),
        b(Global, ">", A::ScrollRight, "scroll the code right"),
        b(Global, "<lt>", A::ScrollLeft, "scroll the code left"),
        b(Global, "R", A::Reload, "reload inputs from disk"),
        b(
            Global,
            "+",
            A::Split(crate::app::action::SplitTo::By(4)),
            "widen the left column (or drag its edge)",
        ),
        b(
            Global,
            "-",
            A::Split(crate::app::action::SplitTo::By(-4)),
            "narrow the left column",
        ),
        b(Global, "<C-d>", A::PageDown, "page down"),
        b(Global, "<PageDown>", A::PageDown, "page down"),
        b(Global, "<C-u>", A::PageUp, "page up"),
        b(Global, "<PageUp>", A::PageUp, "page up"),
        b(Global, "g", A::Top, "top"),
        b(Global, "<Home>", A::Top, "top"),
        b(Global, "G", A::Bottom, "bottom"),
        b(Global, "<End>", A::Bottom, "bottom"),
        b(Global, "j", A::Down(1), "down"),
        b(Global, "<Down>", A::Down(1), "down"),
        b(Global, "k", A::Up(1), "up"),
        b(Global, "<Up>", A::Up(1), "up"),
        b(
            Passes,
            "<Enter>",
            A::FirstChange,
            "first change of this pass",
        ),
        b(Code, "l", A::NextToken, "select next id on the line"),
        b(Code, "<Right>", A::NextToken, "select next id on the line"),
        b(Code, "h", A::PrevToken, "select previous id on the line"),
        b(
            Code,
            "<Left>",
            A::PrevToken,
            "select previous id on the line",
        ),
        b(
            Code,
            "<Enter>",
            A::Definition,
            "go to the definition of the selected id",
        ),
        b(
            Code,
            "u",
            A::Uses,
            "uses of the selected id: listed below, n/N walk them",
        ),
        b(
            Code,
            "y",
            A::History,
            "history of the selected id across the passes",
        ),
        // `o` for op: J and K step in every pane, as the status bar and help say.
        b(
            Code,
            "o",
            A::OpInfo,
            "the op table's entry for this line's op",
        ),
        b(Shaders, "<Enter>", A::Focus, "show this shader's passes"),
        b(
            Shaders,
            "/",
            A::FilterPrompt,
            "list only the shaders named like what is typed (Esc: all)",
        ),
        b(
            Global,
            "L",
            A::LinkView,
            "link view: the stage interface table (--pipeline)",
        ),
        b(
            Global,
            "P",
            A::Pressure(None),
            "pressure gutter: live components after each line (Enter on the ▲ peak: what is live)",
        ),
        b(
            Global,
            "S",
            A::SourcePane(None),
            "source pane: the source line of the instruction at the cursor",
        ),
        b(
            Global,
            "e",
            A::EditSource,
            "open $EDITOR at the source line of the instruction at the cursor",
        ),
        b(
            Global,
            "c",
            A::SourceCaller,
            "source pane: the line inlined code was called from (again: further out)",
        ),
        b(
            Link,
            "<Enter>",
            A::LinkJump(false),
            "jump to the variable in the earlier stage (writer)",
        ),
        b(
            Link,
            "o",
            A::LinkJump(true),
            "jump to the variable in the later stage (reader)",
        ),
        b(
            Diagnostics,
            "<Enter>",
            A::GotoDiagnostic,
            "go to the instruction it is about",
        ),
        b(
            Values,
            "<Enter>",
            A::ValueGoto,
            "go to the use, or to the step with the value selected",
        ),
        b(Values, "x", A::ValueClose, "close the list"),
        b(
            Global,
            "<Esc>",
            A::Cancel,
            "clear the search and the message",
        ),
        b(Help, "<Esc>", A::Help, "close the help"),
        b(Help, "q", A::Help, "close the help"),
        b(Help, "?", A::Help, "close the help"),
        b(Popup, "<Esc>", A::ClosePopup, "close the box"),
        b(Popup, "q", A::ClosePopup, "close the box"),
        b(Popup, "o", A::ClosePopup, "close the box"),
        b(Popup, "<Enter>", A::ClosePopup, "close the box"),
        b(
            Prompt,
            "<Enter>",
            A::PromptSubmit,
            "run the command or search",
        ),
        b(Prompt, "<Esc>", A::PromptCancel, "leave the prompt"),
        b(Prompt, "<C-c>", A::PromptCancel, "leave the prompt"),
        b(
            Prompt,
            "<Up>",
            A::PromptHistory(true),
            "the command before (history)",
        ),
        b(
            Prompt,
            "<Down>",
            A::PromptHistory(false),
            "the command after (history)",
        ),
        b(
            Prompt,
            "<Tab>",
            A::PromptComplete,
            "complete: commands, pass names, steps, presets, shaders",
        ),
        b(
            Prompt,
            "<BS>",
            A::PromptBackspace,
            "delete the last character (leaves when empty)",
        ),
    ];
    // The help and information boxes scroll alike.
    for ctx in [Help, Popup] {
        map.extend([
            b(ctx, "j", A::Down(1), "scroll down"),
            b(ctx, "<Down>", A::Down(1), "scroll down"),
            b(ctx, "k", A::Up(1), "scroll up"),
            b(ctx, "<Up>", A::Up(1), "scroll up"),
            b(ctx, "<C-d>", A::PageDown, "page down"),
            b(ctx, "<PageDown>", A::PageDown, "page down"),
            b(ctx, "<C-u>", A::PageUp, "page up"),
            b(ctx, "<PageUp>", A::PageUp, "page up"),
            b(ctx, "g", A::Top, "to the top"),
            b(ctx, "<Home>", A::Top, "to the top"),
            b(ctx, "G", A::Bottom, "to the end"),
            b(ctx, "<End>", A::Bottom, "to the end"),
        ]);
    }
    map
}

pub struct Keymap {
    bindings: Vec<(Context, Key, Action)>,
}

impl Keymap {
    pub fn new(bindings: &[Binding]) -> Self {
        let mut out = Vec::new();
        for b in bindings {
            // Defaults are checked by a test; an override was parsed when it was applied.
            let Ok(keys) = parse_keys(&b.keys) else {
                continue;
            };
            let Some(&first) = keys.first() else { continue };
            out.push((b.context, first, b.action.clone()));
        }
        Keymap { bindings: out }
    }

    pub fn lookup(&self, context: Context, key: Key) -> Option<&Action> {
        self.bindings
            .iter()
            .find(|(c, k, _)| *c == context && *k == key)
            .or_else(|| {
                if context.is_modal() {
                    return None;
                }
                self.bindings
                    .iter()
                    .find(|(c, k, _)| *c == Context::Global && *k == key)
            })
            .map(|(_, _, a)| a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_bind_and_unbind() {
        let mut b = default_keymap();
        let errors = apply_overrides(
            &mut b,
            &[
                ("w".into(), "step lift".into()),
                ("J".into(), "none".into()),
                ("w".into(), "bottom".into()),
                ("jj".into(), "top".into()),
                ("x".into(), "frobnicate".into()),
            ],
        );
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("one key") && errors[1].contains("keys.\"x\""));
        let map = Keymap::new(&b);
        assert_eq!(
            map.lookup(Context::Code, Key::plain(KeyCode::Char('w'))),
            Some(&Action::Bottom),
            "the last override of a key wins"
        );
        assert_eq!(
            map.lookup(Context::Global, Key::plain(KeyCode::Char('J'))),
            None
        );
        assert_eq!(b[0].keys, "w", "overrides come first");
    }

    #[test]
    fn key_notation_round_trips() {
        let keys = parse_keys("jj<C-d><Enter><lt><Space>:").unwrap();
        assert_eq!(keys.len(), 7);
        assert_eq!(keys[2], Key::ctrl('d'));
        let text: String = keys.iter().map(|k| k.to_string()).collect();
        assert_eq!(text, "jj<C-d><Enter><lt><Space>:");
        assert!(parse_keys("<Frob>").is_err());
    }

    #[test]
    fn every_binding_parses_and_is_unique() {
        let map = default_keymap();
        let mut seen = std::collections::HashSet::new();
        for b in &map {
            let keys = parse_keys(&b.keys).unwrap();
            assert_eq!(keys.len(), 1, "{}", b.keys);
            assert!(seen.insert((b.context, keys[0])), "{} bound twice", b.keys);
        }
    }
}
