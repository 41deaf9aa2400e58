//! Replay: the app driven by a script instead of a terminal, rendered into ratatui's
//! `TestBackend`. Same state, same `update`, same views; no test-only logic. Used by tests and
//! to make the screenshots in `screenshots/`.
//!
//! Script lines (`#` starts a comment; `$TMP` is a scratch directory for this run):
//!   pipeline [--experimental] PRESET | a,b,c    before `open`
//!   pipeline external [spirv-opt FLAGS]  spirv-opt's passes as the steps
//!   pipeline steps PATH... | steps-cmd [--watch PATH]... COMMAND
//!                                        another compiler's dumps as the steps (`--steps`,
//!                                        `--steps-cmd`, `--watch`); `open` alone opens their
//!                                        input
//!   stages [--link-order O] [--state F] [--link-state F]
//!                                        before `open`: the inputs are linked stages
//!   open PATH...                         load inputs (relative to the working directory)
//!   size 120x40
//!   key KEY | keys KEYS                  `<C-d>` notation
//!   cmd :COMMAND                         as typed on the command line
//!   click COL ROW | drag COL ROW | wheel-up COL ROW | wheel-down COL ROW
//!   write PATH <<EOF … EOF | touch PATH | rm PATH | mv FROM TO
//!   wait-reload                          wait until the file watcher reloaded an input
//!   expect "TEXT" | expect-not "TEXT"    on the rendered screen
//!   snapshot NAME                        NAME.txt and NAME.svg in the output directory

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;

use super::action::MouseKind;
use super::event_loop::{App, AppEvent, Inputs};
use super::keymap::parse_keys;
use super::watch::{watch, Watcher};
use crate::pipeline::Pipeline;

#[derive(Debug)]
pub struct ReplayError {
    pub line: usize,
    pub message: String,
    /// The screen when the error happened, as text.
    pub screen: String,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)?;
        if !self.screen.is_empty() {
            write!(f, "\nscreen:\n{}", self.screen)?;
        }
        Ok(())
    }
}

impl std::error::Error for ReplayError {}

pub struct Snapshot {
    pub name: String,
    pub text: String,
    pub svg: String,
}

pub struct Options {
    pub size: (u16, u16),
    pub color: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            size: (120, 36),
            color: true,
        }
    }
}

/// The screen as plain text, one line per row, trailing spaces trimmed.
pub fn screen_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn hex(c: Color, default: &str) -> String {
    match c {
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Reset => default.to_string(),
        Color::Black => "#000000".into(),
        Color::Red => "#cd3131".into(),
        Color::Green => "#0dbc79".into(),
        Color::Yellow => "#e5e510".into(),
        Color::Blue => "#2472c8".into(),
        Color::Magenta => "#bc3fbc".into(),
        Color::Cyan => "#11a8cd".into(),
        Color::Gray => "#cccccc".into(),
        Color::DarkGray => "#666666".into(),
        Color::LightRed => "#f14c4c".into(),
        Color::LightGreen => "#23d18b".into(),
        Color::LightYellow => "#f5f543".into(),
        Color::LightBlue => "#3b8eea".into(),
        Color::LightMagenta => "#d670d6".into(),
        Color::LightCyan => "#29b8db".into(),
        Color::White => "#e5e5e5".into(),
        Color::Indexed(i) => format!("#{:02x}{:02x}{:02x}", i, i, i),
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The screen as an SVG image: one rectangle per background run, one text per style run.
pub fn screen_svg(buf: &Buffer) -> String {
    const CW: f32 = 8.4;
    const LH: f32 = 17.0;
    let (bg0, fg0) = ("#1e2127", "#c8ccd4");
    let area = buf.area;
    let (w, h) = (area.width as f32 * CW, area.height as f32 * LH);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"{bg0}\"/>\n\
         <g font-family=\"'DejaVu Sans Mono', Menlo, Consolas, monospace\" font-size=\"14\" xml:space=\"preserve\">\n"
    );
    for y in 0..area.height {
        let mut x = 0;
        while x < area.width {
            let cell = &buf[(x, y)];
            let reversed = cell.modifier.contains(Modifier::REVERSED);
            let (mut fg, mut bg) = (hex(cell.fg, fg0), hex(cell.bg, bg0));
            if reversed {
                std::mem::swap(&mut fg, &mut bg);
            }
            let style = (cell.fg, cell.bg, cell.modifier);
            let start = x;
            let mut text = String::new();
            while x < area.width {
                let c = &buf[(x, y)];
                if (c.fg, c.bg, c.modifier) != style {
                    break;
                }
                text.push_str(c.symbol());
                x += 1;
            }
            let (px, py) = (start as f32 * CW, y as f32 * LH);
            if bg != bg0 {
                out.push_str(&format!(
                    "<rect x=\"{px:.1}\" y=\"{py:.1}\" width=\"{:.1}\" height=\"{LH:.1}\" fill=\"{bg}\"/>\n",
                    (x - start) as f32 * CW
                ));
            }
            if !text.trim().is_empty() {
                let mut attrs = format!("fill=\"{fg}\"");
                if cell.modifier.contains(Modifier::BOLD) {
                    attrs.push_str(" font-weight=\"bold\"");
                }
                if cell.modifier.contains(Modifier::ITALIC) {
                    attrs.push_str(" font-style=\"italic\"");
                }
                if cell.modifier.contains(Modifier::UNDERLINED) {
                    attrs.push_str(" text-decoration=\"underline\"");
                }
                if cell.modifier.contains(Modifier::DIM) {
                    attrs.push_str(" opacity=\"0.6\"");
                }
                out.push_str(&format!(
                    "<text x=\"{px:.1}\" y=\"{:.1}\" {attrs}>{}</text>\n",
                    py + LH - 4.0,
                    xml_escape(&text)
                ));
            }
        }
    }
    out.push_str("</g>\n</svg>\n");
    out
}

fn unquote(s: &str) -> Result<String, String> {
    let s = s.trim();
    let inner = s
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| format!("expected a quoted string, got {s}"))?;
    Ok(inner.replace("\\\"", "\"").replace("\\\\", "\\"))
}

struct Runner {
    app: Option<App>,
    terminal: Terminal<TestBackend>,
    pipeline: Option<Pipeline>,
    /// `pipeline external COMMAND`: the tool is made at `open`, with the config found there.
    external: Option<String>,
    /// `pipeline steps …` or `pipeline steps-cmd …`: the input `open` opens when it names
    /// none, and the command's `$OUT`, kept while the script runs.
    steps_input: Option<PathBuf>,
    command_out: Option<crate::pipeline::dumps::CommandOut>,
    /// `pipeline steps-cmd --watch …`: run again when a source is written.
    steps_command: Option<super::event_loop::StepsCommand>,
    stages: Option<crate::pipeline::StageLink>,
    opts: Options,
    watcher: Option<Watcher>,
    tmp: PathBuf,
    snapshots: Vec<Snapshot>,
}

impl Runner {
    fn expand(&self, s: &str) -> PathBuf {
        PathBuf::from(s.replace("$TMP", &self.tmp.display().to_string()))
    }

    fn screen(&mut self) -> Result<String, String> {
        let Some(app) = self.app.as_mut() else {
            return Ok(String::new());
        };
        app.draw(&mut self.terminal)
            .map_err(|e| -> String { match e {} })?;
        Ok(screen_text(self.terminal.backend().buffer()))
    }

    fn app(&mut self) -> Result<&mut App, String> {
        self.app
            .as_mut()
            .ok_or_else(|| "no input opened yet: use `open PATH`".to_string())
    }

    /// Handles an event and runs until idle: background runs it started are finished and
    /// applied before the next script line, so replays are deterministic.
    fn event(&mut self, ev: AppEvent) -> Result<(), String> {
        let app = self.app()?;
        app.handle(ev);
        app.settle();
        // No terminal to hand over: the editor just runs.
        if let Some((path, line)) = app.take_edit() {
            app.edited(super::event_loop::open_editor(&path, line));
        }
        Ok(())
    }

    fn step(&mut self, cmd: &str, rest: &str, heredoc: Option<String>) -> Result<(), String> {
        match cmd {
            "pipeline" if rest.trim_start().starts_with("steps") => {
                // `pipeline steps PATH...` or `pipeline steps-cmd COMMAND`: another compiler's
                // dumps as the steps; `open` alone opens their input.
                let rest = rest.trim_start();
                let (input, dumps) = match rest.strip_prefix("steps-cmd") {
                    Some(command) => {
                        let mut command = command.trim();
                        let mut sources = Vec::new();
                        while let Some(after) = command.strip_prefix("--watch ") {
                            let (path, more) =
                                after.trim_start().split_once(' ').unwrap_or((after, ""));
                            sources.push(self.expand(path));
                            command = more.trim_start();
                        }
                        let command = command.replace("$TMP", &self.tmp.display().to_string());
                        let (input, dumps, out) = crate::pipeline::dumps::from_command(&command)?;
                        self.steps_command =
                            (!sources.is_empty()).then(|| super::event_loop::StepsCommand {
                                command,
                                out: out.dir.clone(),
                                input: input.clone(),
                                sources,
                            });
                        self.command_out = Some(out);
                        (input, dumps)
                    }
                    None => {
                        let paths: Vec<PathBuf> = rest["steps".len()..]
                            .split_whitespace()
                            .map(|p| self.expand(p))
                            .collect();
                        crate::pipeline::dumps::open(&paths)?
                    }
                };
                self.steps_input = Some(input);
                self.pipeline = Some(Pipeline::dumps(dumps));
                self.external = None;
            }
            "pipeline" if rest.trim_start().starts_with("external") => {
                // `pipeline external [COMMAND]`: spirv-opt's passes as steps.
                self.external = Some(rest.trim_start()["external".len()..].trim().to_string());
                self.pipeline = None;
            }
            "pipeline" => {
                // `pipeline [--experimental] PRESET|a,b,c`
                let experimental = rest.split_whitespace().any(|w| w == "--experimental");
                let spec: String = rest
                    .split_whitespace()
                    .filter(|w| *w != "--experimental")
                    .collect::<Vec<_>>()
                    .join(" ");
                let p = if spec.contains(',') {
                    let names: Vec<&str> = spec.split(',').map(str::trim).collect();
                    Pipeline::from_names(&names)?
                } else {
                    Pipeline::preset(&spec)?
                };
                self.pipeline = Some(p.with_experimental(experimental));
            }
            "stages" => {
                let mut args = super::cli::PipelineArgs {
                    pipeline: true,
                    link_order: Default::default(),
                    state: None,
                    link_state: None,
                };
                let mut words = rest.split_whitespace();
                while let Some(w) = words.next() {
                    let mut value = || words.next().ok_or(format!("{w} needs a value"));
                    match w {
                        "--link-order" => args.link_order = value()?.parse()?,
                        "--state" => args.state = Some(self.expand(value()?)),
                        "--link-state" => args.link_state = Some(self.expand(value()?)),
                        other => return Err(format!("stages: unknown flag '{other}'")),
                    }
                }
                self.stages = Some(super::run::stage_link(&args)?);
            }
            "open" => {
                let mut paths: Vec<PathBuf> =
                    rest.split_whitespace().map(|p| self.expand(p)).collect();
                if paths.is_empty() {
                    paths.extend(self.steps_input.take());
                }
                if paths.is_empty() {
                    return Err("open needs a path".into());
                }
                let mut inputs = Inputs::from_paths(paths);
                let config = super::config::load(&inputs.roots, &inputs.files)?.0;
                let pipeline = match (self.pipeline.take(), self.external.take()) {
                    (_, Some(command)) => Pipeline::external(config.external_tool(&command)?),
                    (Some(p), None) => p,
                    (None, None) => Pipeline::preset(super::DEFAULT_PRESET)?,
                };
                inputs.external_path = config.external_path.clone();
                inputs.keys = config.keys.clone();
                inputs.source_paths = config.source_paths.clone();
                // As the TUI takes it, less the flag: `SHADERSTEP_DRIVER`, else `[driver]`.
                inputs.driver =
                    crate::pipeline::gpu::Driver::resolve(None, config.driver.as_deref())?;
                inputs.front_ends = config.front_ends;
                inputs.stages = self.stages.take();
                inputs.steps_command = self.steps_command.take();
                let (roots, files) = inputs.watched();
                let watched = watch(&roots, &files);
                self.app = Some(App::open(inputs, pipeline, self.opts.size, self.opts.color));
                self.watcher = match watched {
                    Ok(w) => Some(w),
                    Err(e) => {
                        self.app()?
                            .state
                            .set_error(format!("file watching is off: {e}"));
                        None
                    }
                };
                self.app()?.settle();
            }
            "size" => {
                let (w, h) = rest.split_once('x').ok_or("size takes WIDTHxHEIGHT")?;
                let (w, h): (u16, u16) = (
                    w.trim().parse().map_err(|_| "bad width")?,
                    h.trim().parse().map_err(|_| "bad height")?,
                );
                self.opts.size = (w, h);
                self.terminal.backend_mut().resize(w, h);
                if self.app.is_some() {
                    self.event(AppEvent::Resize(w, h))?;
                }
            }
            "key" | "keys" => {
                let keys = rest.trim();
                if keys.chars().count() > 1 && crate::app::keymap::is_key_name(keys) {
                    // `key Enter` would type E, n, t, e, r (and `e` opens the editor).
                    return Err(format!(
                        "'{cmd} {keys}' would type the letters of {keys}: the key is <{keys}>"
                    ));
                }
                for k in parse_keys(keys)? {
                    self.event(AppEvent::Key(k))?;
                }
            }
            "cmd" => {
                let a = rest
                    .replace("$TMP", &self.tmp.display().to_string())
                    .parse()?;
                self.event(AppEvent::Action(a))?;
            }
            "click" | "drag" | "wheel-up" | "wheel-down" => {
                let nums: Vec<u16> = rest
                    .split_whitespace()
                    .filter_map(|n| n.parse().ok())
                    .collect();
                let [col, row] = nums[..] else {
                    return Err(format!("{cmd} takes COL ROW"));
                };
                let kind = match cmd {
                    "click" => MouseKind::Click,
                    "drag" => MouseKind::Drag,
                    "wheel-up" => MouseKind::WheelUp,
                    _ => MouseKind::WheelDown,
                };
                self.event(AppEvent::Mouse { col, row, kind })?;
            }
            "write" => {
                // Source files the source pane read elsewhere are watched, as the terminal's
                // event loop does, so a write there reloads them.
                if let (Some(w), Some(app)) = (&mut self.watcher, &self.app) {
                    for p in app.state.cache.disk_texts.keys() {
                        let _ = w.watch_beside(p);
                    }
                }
                let path = self.expand(rest.trim());
                let content = heredoc.ok_or("write needs a <<EOF … EOF body")?;
                write_atomically(&path, content.as_bytes())
                    .map_err(|e| format!("write {}: {e}", path.display()))?;
            }
            "touch" => {
                let path = self.expand(rest.trim());
                let bytes = std::fs::read(&path).unwrap_or_default();
                std::fs::write(&path, bytes)
                    .map_err(|e| format!("touch {}: {e}", path.display()))?;
            }
            "rm" => {
                let path = self.expand(rest.trim());
                std::fs::remove_file(&path).map_err(|e| format!("rm {}: {e}", path.display()))?;
            }
            "mv" => {
                let parts: Vec<&str> = rest.split_whitespace().collect();
                let [from, to] = parts[..] else {
                    return Err("mv takes FROM TO".into());
                };
                std::fs::rename(self.expand(from), self.expand(to))
                    .map_err(|e| format!("mv: {e}"))?;
            }
            "wait-reload" => {
                let deadline = Instant::now() + Duration::from_secs(10);
                let w = self.watcher.as_ref().ok_or("no file watcher is running")?;
                let mut paths = loop {
                    match w.changes.recv_timeout(Duration::from_millis(50)) {
                        Ok(p) => break p,
                        Err(_) if Instant::now() > deadline => {
                            return Err("no reload within 10 s".into())
                        }
                        Err(_) => {}
                    }
                };
                // Collect what else arrived in the same burst.
                while let Ok(p) = w.changes.recv_timeout(super::watch::DEBOUNCE * 3) {
                    paths.extend(p);
                }
                self.event(AppEvent::FilesChanged(paths))?;
            }
            "expect" | "expect-not" => {
                let want = unquote(rest)?;
                let screen = self.screen()?;
                let found = screen.contains(&want);
                if found != (cmd == "expect") {
                    return Err(format!(
                        "{cmd} \"{want}\": the text is {}on the screen",
                        if found { "" } else { "not " }
                    ));
                }
            }
            "snapshot" => {
                let name = rest.trim().to_string();
                if name.is_empty() {
                    return Err("snapshot needs a name".into());
                }
                let text = self.screen()?;
                let svg = screen_svg(self.terminal.backend().buffer());
                self.snapshots.push(Snapshot { name, text, svg });
            }
            other => return Err(format!("unknown replay command '{other}'")),
        }
        Ok(())
    }
}

/// Writes like an editor saving: a temporary file in the same directory, renamed over the target.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.tmp~",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file")
    ));
    std::fs::create_dir_all(dir)?;
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// Runs a replay script; returns the snapshots it took, or where and why it failed.
pub fn run_script(script: &str, opts: Options) -> Result<Vec<Snapshot>, ReplayError> {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let tmp = std::env::temp_dir().join(format!(
        "shaderstep-replay-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::create_dir_all(&tmp);
    let backend = TestBackend::new(opts.size.0, opts.size.1);
    let terminal = Terminal::new(backend).map_err(|e| ReplayError {
        line: 0,
        message: e.to_string(),
        screen: String::new(),
    })?;
    let mut r = Runner {
        app: None,
        terminal,
        pipeline: None,
        external: None,
        steps_input: None,
        command_out: None,
        steps_command: None,
        stages: None,
        opts,
        watcher: None,
        tmp: tmp.clone(),
        snapshots: Vec::new(),
    };
    let lines: Vec<&str> = script.lines().collect();
    let mut i = 0;
    let result = loop {
        if i >= lines.len() {
            break Ok(());
        }
        let lno = i + 1;
        let line = lines[i].trim();
        i += 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (cmd, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let mut rest = rest.trim().to_string();
        let mut heredoc = None;
        if let Some(pos) = rest.find("<<") {
            let marker = rest[pos + 2..].trim().to_string();
            rest = rest[..pos].trim().to_string();
            let mut body = String::new();
            loop {
                if i >= lines.len() {
                    break;
                }
                let l = lines[i];
                i += 1;
                if l.trim() == marker {
                    break;
                }
                body.push_str(l);
                body.push('\n');
            }
            heredoc = Some(body);
        }
        if let Err(message) = r.step(cmd, &rest, heredoc) {
            let screen = r.screen().unwrap_or_default();
            break Err(ReplayError {
                line: lno,
                message,
                screen,
            });
        }
        if r.app.as_ref().is_some_and(|a| a.state.quit) {
            break Ok(());
        }
    };
    let _ = std::fs::remove_dir_all(&tmp);
    result.map(|()| r.snapshots)
}
