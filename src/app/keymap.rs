//! Keys and key maps. Keys have one notation (`j`, `<C-d>`, `<Enter>`, `<S-Tab>`) shared by the
//! key map, the help overlay and replay scripts; the default keys are data in the command
//! table (`commands::KEYS`), each naming its command, and the help overlay is generated from
//! the key map so the two cannot drift.

use std::fmt;

use super::action::Action;

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

/// Whether `name` is the name of a key (`Enter`, `C-d`): written bare in a replay's `key`
/// line it would type its letters.
pub fn is_key_name(name: &str) -> bool {
    parse_key_name(name).is_ok()
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
    /// The control-flow graph has focus.
    Cfg,
    /// The side-by-side steps have focus.
    Columns,
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

/// The default key map, as the command table's `KEYS` declares it: a binding per context and
/// key, its action read from the command the row names. Context-specific bindings win over
/// global ones.
pub fn default_keymap() -> Vec<Binding> {
    let mut map = Vec::new();
    for row in super::commands::KEYS {
        // Checked for every row by a test.
        let action: Action = row
            .command
            .parse()
            .unwrap_or_else(|e| panic!("default key command :{}: {e}", row.command));
        for &context in row.contexts {
            for &keys in row.keys {
                map.push(Binding {
                    context,
                    keys: keys.into(),
                    action: action.clone(),
                    help: row.help.into(),
                });
            }
        }
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

    /// Each default key row names a command of the table and says what it does once: no two
    /// rows of a context share a text (the help lists the keys of a row together).
    #[test]
    fn default_keys_name_commands_and_say_each_thing_once() {
        use crate::app::commands::{find, KEYS};
        let mut texts = std::collections::HashSet::new();
        for row in KEYS {
            let name = row.command.split_whitespace().next().unwrap_or("");
            assert!(find(name).is_some(), ":{name} is not a command");
            assert!(row.command.parse::<Action>().is_ok(), ":{}", row.command);
            for &context in row.contexts {
                assert!(
                    texts.insert((context, row.help)),
                    "'{}' said twice in {context:?}",
                    row.help
                );
            }
        }
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
