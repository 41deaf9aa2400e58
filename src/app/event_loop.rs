//! The application object and the event loop. The loop is the same for a real terminal and
//! for replay: events become actions, `update` changes the state, effects are carried out, and
//! a frame is drawn from the state once the queue is empty.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ratatui::backend::Backend;
use ratatui::Terminal;

use super::action::Action;
use super::keymap::{default_keymap, Binding, Key, KeyCode, Keymap};
use super::state::State;
use super::update::{self, Effect, MouseKind};
use super::watch::Watcher;
use crate::pipeline::{input, Pipeline};
use crate::views;

#[derive(Clone, Debug, PartialEq)]
pub enum AppEvent {
    Key(Key),
    Mouse {
        col: u16,
        row: u16,
        kind: MouseKind,
    },
    Resize(u16, u16),
    /// An input changed on disk.
    FileChanged(PathBuf),
    Action(Action),
}

pub struct App {
    pub state: State,
    pub keymap: Keymap,
    pub bindings: Vec<Binding>,
    pipeline: Pipeline,
}

impl App {
    pub fn new(paths: Vec<PathBuf>, pipeline: Pipeline, size: (u16, u16), color: bool) -> Self {
        let bindings = default_keymap();
        let keymap = Keymap::new(&bindings);
        let state = State::new(paths, pipeline.names(), size, color);
        let mut app = App {
            state,
            keymap,
            bindings,
            pipeline,
        };
        for i in 0..app.state.docs.len() {
            app.apply(vec![Effect::Load(i)]);
        }
        app
    }

    pub fn handle(&mut self, ev: AppEvent) {
        let effects = match ev {
            AppEvent::Key(k) => update::handle_key(&mut self.state, &self.keymap, k),
            AppEvent::Mouse { col, row, kind } => {
                update::handle_mouse(&mut self.state, col, row, kind)
            }
            AppEvent::Resize(w, h) => {
                self.state.size = (w, h);
                Vec::new()
            }
            AppEvent::FileChanged(path) => (0..self.state.docs.len())
                .filter(|&i| self.state.docs[i].path == path)
                .map(Effect::Load)
                .collect(),
            AppEvent::Action(a) => update::update(&mut self.state, a),
        };
        self.apply(effects);
    }

    fn apply(&mut self, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::Load(i) => self.load(i),
                Effect::Bisect => self.bisect(),
                Effect::Write { path, bytes } => match std::fs::write(&path, &bytes) {
                    Ok(()) => self.state.set_message(format!(
                        "wrote {} bytes of SPIR-V to {}",
                        bytes.len(),
                        path.display()
                    )),
                    Err(e) => self
                        .state
                        .set_error(format!("cannot write {}: {e}", path.display())),
                },
            }
        }
    }

    /// Validates each step's output with spirv-val, in order, and selects the first that fails:
    /// what bisecting would find, without assuming a later pass cannot repair the module.
    fn bisect(&mut self) {
        use crate::pipeline::external::{spirv_val, target_env, Validation};
        use crate::pipeline::{Diagnostic, Severity};
        let s = &mut self.state;
        let Some(run) = s.run().cloned() else { return };
        let generation = s.current().map_or(0, |d| d.generation);
        for (i, step) in run.steps.iter().enumerate() {
            let env = target_env(&step.module);
            let words = crate::ir::spirv::write::write_words(&step.module);
            match spirv_val(&words, &env) {
                Ok(Validation::Valid) => {}
                Ok(Validation::Invalid(messages)) => {
                    let first = messages.first().map_or(String::new(), |m| m.text.clone());
                    let diags = messages
                        .into_iter()
                        .map(|m| Diagnostic {
                            severity: Severity::Error,
                            message: format!("spirv-val: {}", m.text),
                            function: None,
                            at: m.id,
                            place: None,
                        })
                        .collect();
                    s.found.insert((s.doc, generation, i), diags);
                    s.step = i;
                    s.diag_cursor = 0;
                    s.set_error(format!("first invalid step: {i} {} — {first}", step.pass));
                    return;
                }
                Err(e) => {
                    s.set_error(e);
                    return;
                }
            }
        }
        s.set_message(format!("all {} steps validate", run.steps.len()));
    }

    /// Reads input `i` and runs the pipeline on it. A broken input keeps the last good run.
    fn load(&mut self, i: usize) {
        let path = self.state.docs[i].path.clone();
        let result = input::load(&path).map(|loaded| loaded.run(&self.pipeline));
        let s = &mut self.state;
        let doc = &mut s.docs[i];
        let first = doc.run.is_none() && doc.generation == 0;
        match result {
            Ok(run) => {
                // A pass that fails is shown, not hidden: its step is selected and its
                // diagnostics listed. (STALE is only for inputs that no longer load.)
                doc.error = None;
                let failure = run.failed.map(|f| {
                    let st = &run.steps[f];
                    (
                        f,
                        format!(
                            "pass {} failed: {}",
                            st.pass,
                            st.error.clone().unwrap_or_default()
                        ),
                    )
                });
                doc.run = Some(Arc::new(run));
                doc.generation += 1;
                if !first {
                    doc.reloads += 1;
                }
                match failure {
                    Some((f, msg)) => {
                        if i == s.doc {
                            s.step = f;
                            s.diag_cursor = 0;
                        }
                        s.set_error(msg);
                    }
                    None if !first => s.set_message(format!("reloaded {}", path.display())),
                    None => {}
                }
            }
            Err(e) => {
                let had_run = doc.run.is_some();
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                doc.error = Some(match e.line {
                    Some(l) => format!("{name}:{l}: {}", e.message),
                    None => format!("{name}: {}", e.message),
                });
                // The status bar names the file already; the message leads with the cause.
                let short = match e.line {
                    Some(l) => format!("line {l}: {}", e.message.lines().next().unwrap_or("")),
                    None => e.message.lines().next().unwrap_or("").to_string(),
                };
                if had_run {
                    s.set_error(format!("{short} — showing the last good run"));
                } else if i == s.doc {
                    s.set_error(short);
                }
            }
        }
    }

    pub fn draw<B: Backend>(&mut self, terminal: &mut Terminal<B>) -> Result<(), B::Error> {
        update::prepare(&mut self.state);
        let state = &self.state;
        let bindings = &self.bindings;
        terminal.draw(|f| views::draw(f, state, bindings))?;
        Ok(())
    }
}

pub fn key_from_crossterm(k: crossterm::event::KeyEvent) -> Option<Key> {
    use crossterm::event::{KeyCode as C, KeyModifiers as M};
    let code = match k.code {
        C::Char(c) => KeyCode::Char(c),
        C::Enter => KeyCode::Enter,
        C::Esc => KeyCode::Esc,
        C::Tab => KeyCode::Tab,
        C::BackTab => KeyCode::BackTab,
        C::Backspace => KeyCode::Backspace,
        C::Up => KeyCode::Up,
        C::Down => KeyCode::Down,
        C::Left => KeyCode::Left,
        C::Right => KeyCode::Right,
        C::PageUp => KeyCode::PageUp,
        C::PageDown => KeyCode::PageDown,
        C::Home => KeyCode::Home,
        C::End => KeyCode::End,
        C::Delete => KeyCode::Delete,
        _ => return None,
    };
    Some(Key {
        code,
        ctrl: k.modifiers.contains(M::CONTROL),
        alt: k.modifiers.contains(M::ALT),
    })
}

fn event_from_crossterm(ev: crossterm::event::Event) -> Option<AppEvent> {
    use crossterm::event::{Event, KeyEventKind, MouseEventKind};
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => {
            key_from_crossterm(k).map(AppEvent::Key)
        }
        Event::Mouse(m) => {
            let kind = match m.kind {
                MouseEventKind::Down(_) => MouseKind::Click,
                MouseEventKind::ScrollUp => MouseKind::WheelUp,
                MouseEventKind::ScrollDown => MouseKind::WheelDown,
                _ => return None,
            };
            Some(AppEvent::Mouse {
                col: m.column,
                row: m.row,
                kind,
            })
        }
        Event::Resize(w, h) => Some(AppEvent::Resize(w, h)),
        _ => None,
    }
}

/// Runs the TUI in the real terminal until the user quits.
pub fn run_terminal(paths: Vec<PathBuf>, pipeline: Pipeline) -> color_eyre::Result<()> {
    use crossterm::event;
    let watcher: Option<Watcher> = super::watch::watch(&paths).ok();
    let mut terminal = ratatui::init();
    let _ = crossterm::execute!(io::stdout(), event::EnableMouseCapture);
    let result = (|| -> color_eyre::Result<()> {
        let size = terminal.size()?;
        let mut app = App::new(
            paths,
            pipeline,
            (size.width, size.height),
            views::theme::color_enabled(),
        );
        let mut dirty = true;
        while !app.state.quit {
            if dirty {
                app.draw(&mut terminal)?;
                dirty = false;
            }
            if event::poll(Duration::from_millis(50))? {
                // Drain everything queued, then draw once.
                loop {
                    if let Some(ev) = event_from_crossterm(event::read()?) {
                        app.handle(ev);
                        dirty = true;
                    }
                    if app.state.quit || !event::poll(Duration::ZERO)? {
                        break;
                    }
                }
            }
            if let Some(w) = &watcher {
                while let Ok(path) = w.changes.try_recv() {
                    app.handle(AppEvent::FileChanged(path));
                    dirty = true;
                }
            }
        }
        Ok(())
    })();
    let _ = crossterm::execute!(io::stdout(), event::DisableMouseCapture);
    ratatui::restore();
    result
}

/// The bundled example `shaderstep` opens without arguments.
pub fn default_example() -> PathBuf {
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.frag");
    if bundled.exists() {
        bundled
    } else {
        PathBuf::from("assets/examples/lighting.frag")
    }
}
