//! The application object and the event loop. The loop is the same for a real terminal and
//! for replay: events become actions, `update` changes the state, effects are carried out, and
//! a frame is drawn from the state once the queue is empty.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ratatui::backend::Backend;
use ratatui::Terminal;

use super::action::{Action, Answer, Answered, DiskFact, MouseKind, Outcome, Settings};
use super::derive;
use super::input;
use super::keymap::{default_keymap, Binding, Key, KeyCode, Keymap};
use super::state::{Doc, Focus, LineStyles, LineToHighlight, State};
use super::update::{self, Effect};
use super::watch::absolute;
use super::worker::{Done, Job, Report, Worker};
use super::workspace;
use crate::pipeline::compile::Together;
use crate::pipeline::input::FrontEnds;
use crate::pipeline::{Pipeline, StageLink};
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
    /// Paths (absolute) that changed on disk: created, written, removed or renamed.
    FilesChanged(Vec<PathBuf>),
    Action(Action),
}

/// What the app opens: files by name, and directories whose shaders it lists and watches.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub files: Vec<PathBuf>,
    pub roots: Vec<PathBuf>,
    pub front_ends: FrontEnds,
    /// The files are the stages of one graphics pipeline, linked as this says.
    pub stages: Option<StageLink>,
    /// `[external] path` of shaderstep.toml: the spirv-opt `:compare spirv-opt …` runs.
    pub external_path: Option<String>,
    /// `[keys]` of shaderstep.toml: (key, command) overrides of the key map.
    pub keys: Vec<(String, String)>,
    /// `[source] paths` of shaderstep.toml: where the source pane looks for files.
    pub source_paths: Vec<PathBuf>,
    /// Where the prompt's history is kept across runs (`history_file`); none in replays.
    pub history_file: Option<PathBuf>,
    /// Where a shader tree's summaries are kept across sessions (`summary_cache`); none in
    /// replays, tests and `--no-cache`.
    pub summary_cache: Option<PathBuf>,
    /// `--steps-cmd COMMAND --watch PATH...`: a save there runs the command again.
    pub steps_command: Option<StepsCommand>,
    /// The Vulkan driver `:bisect run` and `:reduce` run shaders on (`--driver`).
    pub driver: crate::pipeline::gpu::Driver,
    /// `--driver` as given, which a `[driver]` of shaderstep.toml read again does not override.
    pub driver_flag: Option<String>,
}

/// A command that writes another compiler's dumps (`--steps-cmd`), run again when one of the
/// sources it compiles is saved (`--watch`).
#[derive(Clone, Debug)]
pub struct StepsCommand {
    pub command: String,
    /// Where its first run wrote (the input and the steps are read from there) and the input.
    pub out: PathBuf,
    pub input: PathBuf,
    /// Files and directories whose saves run it again.
    pub sources: Vec<PathBuf>,
}

impl Inputs {
    /// Splits command-line paths into files and directories.
    pub fn from_paths(paths: Vec<PathBuf>) -> Self {
        let (roots, files) = paths.into_iter().partition(|p| p.is_dir());
        Inputs {
            files,
            roots,
            front_ends: FrontEnds::default(),
            stages: None,
            external_path: None,
            keys: Vec::new(),
            source_paths: Vec::new(),
            history_file: None,
            summary_cache: None,
            steps_command: None,
            driver: Default::default(),
            driver_flag: None,
        }
    }

    /// What the file watcher watches: directories recursively (the listed ones and the
    /// sources of a steps command), and the directories of files.
    pub fn watched(&self) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let mut roots = self.roots.clone();
        let mut files = self.files.clone();
        if let Some(c) = &self.steps_command {
            let (dirs, sources): (Vec<PathBuf>, Vec<PathBuf>) =
                c.sources.iter().cloned().partition(|p| p.is_dir());
            roots.extend(dirs);
            files.extend(sources);
        }
        (roots, files)
    }
}

/// A validation bisect running in the background: (doc, generation) and its answer.
type ValidationJob = (
    (usize, u64),
    std::sync::mpsc::Receiver<Result<crate::pipeline::validate::FirstInvalid, String>>,
);

/// The interpreter running a step for the values column: the step, its answer, when it
/// started (for the progress line), and the flag that stops it.
type ExecJob = (
    crate::app::state::StepKey,
    std::sync::mpsc::Receiver<Result<Arc<crate::pipeline::step_values::StepRun>, String>>,
    std::time::Instant,
    Arc<std::sync::atomic::AtomicBool>,
);

/// How long the values column's run goes before the status line counts its time.
const EXEC_PROGRESS_AFTER: std::time::Duration = std::time::Duration::from_millis(200);

/// `:first-difference` running in the background: the step, what it is compared with, and
/// its answer.
type FirstDifferenceJob = (
    crate::app::state::StepKey,
    String,
    std::sync::mpsc::Receiver<
        Result<Option<crate::pipeline::step_values::FirstDifference>, String>,
    >,
);

/// A semantic bisect running in the background.
struct BisectJob {
    /// The docs run (one, or the linked stages) with the generation each had.
    docs: Vec<(usize, u64)>,
    done: std::sync::mpsc::Receiver<Result<crate::pipeline::semantic::BisectRun, String>>,
}

/// A thread that answers requests in the order asked, started the first time one is wanted:
/// the driver's code per step (`:driver`, with a worker process whose driver prints its code)
/// and the decompiler (`:view glsl`, each step in a child process).
struct RequestJob<Q, A> {
    requests: std::sync::mpsc::Sender<Q>,
    done: std::sync::mpsc::Receiver<A>,
}

impl<Q: Send + 'static, A: Send + 'static> RequestJob<Q, A> {
    fn start(name: &str, mut answer: impl FnMut(Q) -> A + Send + 'static) -> Self {
        let (requests, asked) = std::sync::mpsc::channel::<Q>();
        let (answers, done) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                while let Ok(q) = asked.recv() {
                    if answers.send(answer(q)).is_err() {
                        break;
                    }
                }
            });
        // Without its thread, the requests' receiver is gone: each request says so
        // (`ask_driver`, `ask_decompile`).
        drop(spawned);
        RequestJob { requests, done }
    }
}

type DriverJob = RequestJob<(u64, Vec<u32>), DriverAnswer>;
type DriverAnswer = (u64, Result<Arc<crate::pipeline::driver_code::Code>, String>);

fn start_driver_job(driver: crate::pipeline::gpu::Driver) -> DriverJob {
    use crate::pipeline::gpu::isolated::{worker_program, Isolated};
    let mut worker: Option<Result<Isolated, String>> = None;
    RequestJob::start(
        "shaderstep-driver-code",
        move |(key, words): (u64, Vec<u32>)| {
            let w = worker.get_or_insert_with(|| {
                worker_program().and_then(|p| Isolated::open_with(p, false, &driver, true))
            });
            let result = match w {
                Err(e) => Err(e.clone()),
                Ok(w) => crate::ir::spirv::read::read_words(&words)
                    .map_err(|e| format!("the step does not read back: {e}"))
                    .and_then(|m| crate::pipeline::driver_code::code_of(w, &m, None))
                    .map(Arc::new),
            };
            (key, result)
        },
    )
}

type DecompileJob = RequestJob<DecompileRequest, DecompileAnswer>;
type DecompileRequest = (u64, crate::pipeline::decompile::Lang, Vec<u32>);
type DecompileAnswer = (
    u64,
    crate::pipeline::decompile::Lang,
    Result<String, String>,
);

fn start_decompile_job() -> DecompileJob {
    RequestJob::start(
        "shaderstep-decompile",
        |(hash, lang, words): DecompileRequest| {
            (
                hash,
                lang,
                crate::pipeline::decompile::decompile_words(&words, lang),
            )
        },
    )
}

/// How long an event waits for the steps it asked to be decompiled before its frame says they
/// are being written: a typical step takes 3 to 8 ms, and shows at once; a large one later.
const DECOMPILE_WAIT: Duration = Duration::from_millis(25);

/// Highlights the lines `derive` left to it (`Cache::highlight_wanted`) off the event's time.
struct Highlighter {
    requests: std::sync::mpsc::Sender<Vec<LineToHighlight>>,
    done: std::sync::mpsc::Receiver<Vec<((u64, usize), LineStyles)>>,
    /// The lines asked for and not answered yet.
    asked: std::collections::HashSet<(u64, usize)>,
}

/// How long an event waits for the highlighter's answer before its frame shows lines plain.
const HIGHLIGHT_WAIT: Duration = Duration::from_millis(3);

impl Highlighter {
    /// Starts the thread, which compiles the grammars (`highlight::warm_up`) while nobody asks
    /// it for lines.
    fn start() -> Highlighter {
        let (requests, asked) = std::sync::mpsc::channel::<Vec<LineToHighlight>>();
        let (answer, done) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("shaderstep-highlight".into())
            .spawn(move || {
                let mut cold = super::highlight::GRAMMARS.into_iter();
                loop {
                    let first = match asked.try_recv() {
                        Ok(batch) => batch,
                        Err(std::sync::mpsc::TryRecvError::Disconnected) => return,
                        Err(std::sync::mpsc::TryRecvError::Empty) => match cold.next() {
                            Some(syntax) => {
                                // A grammar that panics here fails its lines later, one by one.
                                let warm = || super::highlight::warm_up(syntax);
                                let _ = std::panic::catch_unwind(warm);
                                continue;
                            }
                            None => match asked.recv() {
                                Ok(batch) => batch,
                                Err(_) => return,
                            },
                        },
                    };
                    let mut batches = vec![first];
                    batches.extend(asked.try_iter());
                    // The newest first: they are the rows on screen now.
                    for batch in batches.into_iter().rev() {
                        // A grammar that panics on a line leaves that line plain.
                        let styles = |l: &LineToHighlight| {
                            std::panic::catch_unwind(|| {
                                super::highlight::highlight(&l.text, l.syntax)
                            })
                            .unwrap_or_default()
                        };
                        let lines = batch.iter().map(|l| (l.key, Arc::new(styles(l)))).collect();
                        if answer.send(lines).is_err() {
                            return;
                        }
                    }
                }
            });
        // Without its thread, the requests' receiver is gone: the lines stay plain
        // (`ask_highlights`).
        drop(spawned);
        Highlighter {
            requests,
            done,
            asked: Default::default(),
        }
    }
}

/// A reduction running in the background (`:reduce`).
struct ReduceJob {
    done: std::sync::mpsc::Receiver<Result<super::action::Reduced, String>>,
    progress: std::sync::mpsc::Receiver<String>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

pub struct App {
    pub state: State,
    pub keymap: Keymap,
    pub bindings: Vec<Binding>,
    worker: Worker,
    /// Runs the compared pipeline (`:compare`) on the same inputs.
    compare: Option<Worker>,
    /// A semantic bisect under way (`:bisect run`): its input, generation, and answer.
    bisect_run: Option<BisectJob>,
    /// The interpreter running a step for the values column: the step and its answer.
    exec: Option<ExecJob>,
    /// The tenth of a second of the values column's run last said (`exec_progress`).
    exec_said: Option<u128>,
    /// `:first-difference` under way: the step, what it is compared with, the answer.
    first_difference: Option<FirstDifferenceJob>,
    /// A validation bisect under way (`:bisect`): its (doc, generation) and answer.
    validation: Option<ValidationJob>,
    /// A reduction under way (`:reduce`).
    reduce: Option<ReduceJob>,
    /// The pipeline the inputs run, which `:reduce` runs its candidates through.
    pipeline: Arc<Pipeline>,
    front_ends: Arc<FrontEnds>,
    external_path: Option<String>,
    /// The Vulkan driver shaders run on (`--driver`, `SHADERSTEP_DRIVER`, `[driver]`).
    driver: crate::pipeline::gpu::Driver,
    /// `--driver` as given: it wins over a `[driver]` read again.
    driver_flag: Option<String>,
    /// The driver's code of steps (`:driver`), once asked for.
    driver_job: Option<DriverJob>,
    /// The decompiler's thread (`:view glsl`), once asked for a step.
    decompile_job: Option<DecompileJob>,
    /// The highlighter thread, once a line is left to it.
    highlighter: Option<Highlighter>,
    /// An editor to open (`e`): whoever owns the terminal hands it over (`take_edit`).
    edit: Option<(PathBuf, u32)>,
    /// The prompt's history file, appended to as commands are run.
    history_file: Option<PathBuf>,
    /// Where shaderstep.toml is looked for (the watched directories, beside the first file,
    /// the user's config directory): a change to one reloads the settings.
    config_from: (Vec<PathBuf>, Vec<PathBuf>),
    /// `--steps-cmd` with `--watch`: the command, run again when a source is saved.
    steps_command: Option<StepsCommand>,
    /// Its run under way, and whether a save came during it (it runs once more after).
    steps_rerun: Option<std::sync::mpsc::Receiver<Result<String, String>>>,
    steps_again: bool,
    /// Where the tree's summaries are kept for the next session, when they are.
    summary_file: Option<SummaryFile>,
    /// Whether the last `poll_jobs` applied an answer to draw at once (`answers_can_wait`).
    foreground_answered: bool,
}

/// While only summaries of shaders nobody looks at come in (a tree filling), a frame at most
/// this often: the rows and counts move at 25 frames a second, and the loop's time goes to
/// the runs (on 2 cores, a frame per 10 ms poll took a seventh of one).
pub const FILL_FRAME: Duration = Duration::from_millis(40);

/// The file a tree's summaries are kept in (`summary_cache`), and when it was last written.
struct SummaryFile {
    path: PathBuf,
    fingerprint: String,
    /// `Worker::summary_uses` when it was last written, and then.
    saved_uses: u64,
    saved_at: Option<std::time::Instant>,
    /// The thread writing it (a tree's summaries take longer than a frame).
    writing: Option<std::thread::JoinHandle<()>>,
}

/// At most this often is the summaries' file written while the tree changes (and once more
/// when the session ends).
const SUMMARIES_SAVED_EVERY: Duration = Duration::from_secs(5);

impl App {
    /// Opens `paths` (files) and waits for their first runs: what tests and benchmarks want.
    pub fn new(paths: Vec<PathBuf>, pipeline: Pipeline, size: (u16, u16), color: bool) -> Self {
        let mut app = App::open(
            Inputs {
                files: paths,
                ..Inputs::default()
            },
            pipeline,
            size,
            color,
        );
        app.settle();
        app
    }

    /// Opens the inputs and starts their first runs in the background.
    pub fn open(inputs: Inputs, pipeline: Pipeline, size: (u16, u16), color: bool) -> Self {
        let mut bindings = default_keymap();
        let key_errors = super::keymap::apply_overrides(&mut bindings, &inputs.keys);
        let keymap = Keymap::new(&bindings);
        let roots: Vec<PathBuf> = inputs.roots.iter().map(|r| absolute(r)).collect();
        let config_from = (inputs.roots.clone(), inputs.files.clone());
        let steps_command = inputs.steps_command.clone();
        let mut docs: Vec<Doc> = inputs
            .files
            .into_iter()
            .map(|p| Doc::new(p, None))
            .collect();
        // A shader named and under a watched directory too, or under two, is listed once.
        let mut seen: std::collections::HashSet<PathBuf> =
            docs.iter().map(|d| d.abs.clone()).collect();
        for (r, root) in roots.iter().enumerate() {
            for p in workspace::scan(root) {
                if seen.insert(p.clone()) {
                    docs.push(Doc::new(p, Some(r)));
                }
            }
        }
        let names = pipeline.names();
        let linked = inputs.stages.is_some();
        // `--preset link` with several files: each links with the others.
        let modules = !linked && pipeline.links() && docs.len() > 1 && roots.is_empty();
        let batched = linked || modules;
        let mut state = State::new(docs, roots, names, size, color);
        state.source.paths = inputs.source_paths.clone();
        if let Some(text) = inputs
            .history_file
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
        {
            for line in text.lines() {
                match line.split_once(' ') {
                    Some(("cmd", c)) => state.prompt.history.push(true, c),
                    Some(("find", f)) => state.prompt.history.push(false, f),
                    _ => {}
                }
            }
        }
        state.linked = linked;
        state.batched = batched;
        let batch = match inputs.stages {
            Some(link) => Some(Together::Stages(Box::new(link))),
            None if modules => Some(Together::Linked { first_only: false }),
            None => None,
        };
        let front_ends = Arc::new(inputs.front_ends);
        // Inputs run apart show their first steps while the rest of the run goes on.
        let pipeline = Arc::new(pipeline);
        let tree_alone = batch.is_none() && !config_from.0.is_empty();
        let worker = Worker::new(pipeline.clone(), front_ends.clone(), batch, true);
        // An earlier session's summaries answer the files whose bytes have not changed since.
        let summary_file = match &inputs.summary_cache {
            Some(dir) if tree_alone => {
                let path = super::summary_cache::file_for(dir, &config_from.0);
                let fingerprint = super::summary_cache::fingerprint(&pipeline, &front_ends);
                let kept = super::summary_cache::load(&path, &fingerprint);
                if !kept.is_empty() {
                    state.set_message(format!(
                        "{} summaries from the last session; --no-cache runs all",
                        kept.len()
                    ));
                }
                worker.remember(kept);
                Some(SummaryFile {
                    path,
                    fingerprint,
                    saved_uses: worker.summary_uses(),
                    saved_at: None,
                    writing: None,
                })
            }
            _ => None,
        };
        if let Some(e) = &worker.spawn_error {
            state.set_error(format!(
                "cannot start the worker thread, nothing will run: {e}"
            ));
        }
        let mut app = App {
            state,
            keymap,
            bindings,
            worker,
            compare: None,
            bisect_run: None,
            exec: None,
            exec_said: None,
            first_difference: None,
            validation: None,
            reduce: None,
            pipeline,
            front_ends,
            external_path: inputs.external_path,
            driver: inputs.driver,
            driver_flag: inputs.driver_flag,
            driver_job: None,
            decompile_job: None,
            // Started now, it compiles the grammars before the first lines are asked for.
            highlighter: color.then(Highlighter::start),
            edit: None,
            history_file: inputs.history_file,
            config_from,
            steps_command,
            steps_rerun: None,
            steps_again: false,
            summary_file,
            foreground_answered: false,
        };
        if !key_errors.is_empty() {
            app.state
                .set_error(format!("shaderstep.toml: {}", key_errors.join("; ")));
        }
        if let Some(&first) = app.state.listed_docs().first() {
            app.state.doc = first;
        }
        if app.state.browser_shown() && app.state.docs.len() > 1 {
            app.state.focus = Focus::Shaders;
        }
        let selected = app.state.doc;
        app.state.browser.kept.push_front(selected);
        if !app.state.docs.is_empty() {
            let loads = update::load_all(&mut app.state);
            app.apply(loads);
        }
        app.settle_derived();
        app
    }

    /// Brings what is derived from the state up to date after an event, once (see
    /// `derive::settle`), with the panes placed for the state as it is now: `update` reads the
    /// layout (page sizes, the pane under the mouse), and only the event loop asks the views
    /// for it. The draw that follows only reads the state.
    fn settle_derived(&mut self) {
        let bindings = &self.bindings;
        derive::settle(&mut self.state, |s| views::layout::plan(s, bindings));
        if !self.ask_highlights() {
            return;
        }
        // A screen of lines takes the highlighter about a millisecond: the frame waits that
        // long for its colours rather than show the lines plain, and no longer (a grammar
        // still compiling answers later, and the lines are drawn again then).
        let deadline = std::time::Instant::now() + HIGHLIGHT_WAIT;
        while let Some(h) = self.highlighter.as_ref().filter(|h| !h.asked.is_empty()) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match h.done.recv_timeout(left) {
                Ok(lines) => self.highlighted(lines),
                Err(_) => break,
            }
        }
    }

    /// Hands the highlighter the lines on screen `derive` left unhighlighted and nobody has
    /// asked for yet (a highlighter without its thread leaves them plain); whether it asked.
    fn ask_highlights(&mut self) -> bool {
        let wanted = &self.state.cache.highlight_wanted;
        if wanted.is_empty() {
            return false;
        }
        let h = self.highlighter.get_or_insert_with(Highlighter::start);
        let new: Vec<LineToHighlight> = wanted
            .iter()
            .filter(|l| !h.asked.contains(&l.key))
            .cloned()
            .collect();
        if new.is_empty() {
            return false;
        }
        h.asked.extend(new.iter().map(|l| l.key));
        if let Err(unsent) = h.requests.send(new) {
            let plain = unsent.0.into_iter().map(|l| (l.key, LineStyles::default()));
            self.highlighted(plain.collect());
            return false;
        }
        true
    }

    /// The highlighter's answer, kept.
    fn highlighted(&mut self, lines: Vec<((u64, usize), LineStyles)>) {
        if let Some(h) = &mut self.highlighter {
            for (key, _) in &lines {
                h.asked.remove(key);
            }
        }
        self.answer(Answered::Highlighted(lines));
    }

    /// Handles one event: `update` changes the state, the effects are carried out, and what is
    /// derived from the state is brought up to date, once.
    pub fn handle(&mut self, ev: AppEvent) {
        self.apply_event(ev);
        self.settle_derived();
    }

    /// The state change of one event and its effects, with what is derived from the state left
    /// as it was: for answers that arrive together, settled once after the last of them (as a
    /// draw would have seen them), and for answers to an event's own effects, within `handle`.
    fn apply_event(&mut self, ev: AppEvent) {
        let effects = match ev {
            AppEvent::Key(k) => input::handle_key(&mut self.state, &self.keymap, k),
            AppEvent::Mouse { col, row, kind } => {
                input::handle_mouse(&mut self.state, col, row, kind)
            }
            AppEvent::Resize(w, h) => update::update(&mut self.state, Action::Resize(w, h)),
            AppEvent::FilesChanged(paths) => self.files_changed(&paths),
            AppEvent::Action(a) => update::update(&mut self.state, a),
        };
        self.apply(effects);
    }

    /// Applies the results of finished background runs, then settles what is derived from the
    /// state once; returns whether there were any.
    pub fn poll_jobs(&mut self) -> bool {
        self.foreground_answered = false;
        let any = self.poll_answers();
        if any {
            let idle = !self.state.docs.iter().any(Doc::running);
            // The last of a fill, or a save's run while nothing else runs, is drawn at once.
            self.foreground_answered |= idle;
            if idle {
                self.save_summaries(false);
            }
        }
        any
    }

    /// Whether the answers the last `poll_jobs` applied can wait for the next frame of a
    /// tree filling in (`FILL_FRAME`): summaries of shaders not selected while others still
    /// run, which change only the list's rows and counts. Anything else (the selected
    /// shader's steps, the fill's last summary, a bisect, a reduction…) is drawn at once.
    pub fn answers_can_wait(&self) -> bool {
        !self.foreground_answered
    }

    /// Writes the tree's summaries for the next session, now, and waits until they are
    /// written: the session ends.
    pub fn keep_summaries(&mut self) {
        self.save_summaries(true);
    }

    /// Writes the tree's summaries for the next session when this one made or used new ones,
    /// on a thread of its own (`poll_jobs` asks once the tree is idle): at most every
    /// `SUMMARIES_SAVED_EVERY`, or, `now`, whatever the time, waiting until written. A file
    /// that cannot be written costs only the next session's time.
    fn save_summaries(&mut self, now: bool) {
        let uses = self.worker.summary_uses();
        let Some(f) = &mut self.summary_file else {
            return;
        };
        let writing = f.writing.as_ref().is_some_and(|t| !t.is_finished());
        let due = f.saved_uses != uses
            && (now
                || (!writing
                    && f.saved_at
                        .is_none_or(|t| t.elapsed() >= SUMMARIES_SAVED_EVERY)));
        if due {
            let read = self.worker.summaries_used();
            let (path, fingerprint) = (f.path.clone(), f.fingerprint.clone());
            let earlier = f.writing.take();
            f.writing = std::thread::Builder::new()
                .name("shaderstep-summaries".into())
                .spawn(move || {
                    // One writer at a time: the newer list is written last.
                    if let Some(t) = earlier {
                        let _ = t.join();
                    }
                    let _ = super::summary_cache::save(&path, &fingerprint, &read());
                })
                .ok();
            f.saved_uses = uses;
            f.saved_at = Some(std::time::Instant::now());
        }
        if now {
            if let Some(t) = f.writing.take() {
                let _ = t.join();
            }
        }
    }

    fn poll_answers(&mut self) -> bool {
        let mut any = false;
        if let Some(done) = &self.steps_rerun {
            let result = match done.try_recv() {
                Ok(result) => Some(result),
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    Some(Err("--steps-cmd stopped without an answer".into()))
                }
                Err(_) => None,
            };
            if let Some(result) = result {
                self.steps_command_done(result);
                any = true;
            }
        }
        // The worker's answers say themselves whether they can wait (`report`); whatever
        // else answers is drawn at once.
        let mut reported = false;
        while let Ok(report) = self.worker.done.try_recv() {
            self.report(report);
            reported = true;
        }
        while let Some(report) = self.compare.as_ref().and_then(|w| w.done.try_recv().ok()) {
            if let Report::Done(done) = report {
                self.finish_compare(*done);
            }
            any = true;
        }
        if let Some((key, done)) = &self.validation {
            let key = *key;
            match done.try_recv() {
                Ok(result) => {
                    self.validation = None;
                    self.finish_bisect(key, result);
                    any = true;
                }
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.validation = None;
                    self.finish_bisect(key, Err("the bisect stopped without an answer".into()));
                    any = true;
                }
                Err(_) => {}
            }
        }
        if let Some(job) = &self.reduce {
            let mut lines = Vec::new();
            while let Ok(line) = job.progress.try_recv() {
                lines.push(line);
            }
            let done = job.done.try_recv();
            if let Some(line) = lines.pop() {
                self.answer(Answered::Reducing(line));
                any = true;
            }
            match done {
                Ok(result) => {
                    self.reduce = None;
                    self.answer(Answered::Reduced(result));
                    any = true;
                }
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.reduce = None;
                    self.answer(Answered::Reduced(Err(
                        "the reduction stopped without an answer".into(),
                    )));
                    any = true;
                }
                Err(_) => {}
            }
        }
        if let Some((key, done, started, _)) = &self.exec {
            let (key, started) = (*key, *started);
            match done.try_recv() {
                Ok(result) => {
                    self.exec = None;
                    self.answer(Answered::Executed { key, result });
                    any = true;
                }
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.exec = None;
                    self.answer(Answered::Executed {
                        key,
                        result: Err("the interpreter stopped without an answer".into()),
                    });
                    any = true;
                }
                Err(_) => any |= self.exec_progress(key, started),
            }
        }
        if let Some((key, other, done)) = &self.first_difference {
            let (key, other) = (*key, other.clone());
            let result = match done.try_recv() {
                Ok(result) => Some(result),
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    Some(Err("the interpreter stopped without an answer".into()))
                }
                Err(_) => None,
            };
            if let Some(result) = result {
                self.first_difference = None;
                self.answer(Answered::FirstDifference { key, other, result });
                any = true;
            }
        }
        while let Some((hash, result)) = self
            .driver_job
            .as_ref()
            .and_then(|j| j.done.try_recv().ok())
        {
            self.answer(Answered::DriverCode { hash, result });
            any = true;
        }
        while let Some((hash, lang, result)) = self
            .decompile_job
            .as_ref()
            .and_then(|j| j.done.try_recv().ok())
        {
            self.answer(Answered::Decompiled { hash, lang, result });
            any = true;
        }
        while let Some(answer) = self.highlighter.as_ref().map(|h| h.done.try_recv()) {
            let lines = match answer {
                Ok(lines) => lines,
                Err(std::sync::mpsc::TryRecvError::Empty) => break,
                // A highlighter that stopped leaves what it was asked plain, and is started
                // again when lines are next asked for.
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    let Some(h) = self.highlighter.take() else {
                        break;
                    };
                    h.asked
                        .into_iter()
                        .map(|k| (k, LineStyles::default()))
                        .collect()
                }
            };
            self.highlighted(lines);
            any = true;
        }
        let answer = self.bisect_run.as_ref().map(|j| j.done.try_recv());
        match answer {
            Some(Ok(result)) => {
                self.finish_bisect_run(result);
                any = true;
            }
            Some(Err(std::sync::mpsc::TryRecvError::Disconnected)) => {
                self.finish_bisect_run(Err("the bisect run stopped without an answer".into()));
                any = true;
            }
            _ => {}
        }
        self.foreground_answered |= any;
        let any = any || reported;
        if any {
            self.settle_derived();
        }
        any
    }

    /// Waits until every requested run has finished and been applied (replay and tests: "run
    /// until idle"), then settles what is derived from the state once. Gives up after a minute
    /// rather than hang.
    pub fn settle(&mut self) {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        // The steps command first: its dumps are what the inputs run on.
        while let Some(done) = &self.steps_rerun {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let result = done
                .recv_timeout(left)
                .unwrap_or_else(|_| Err("--steps-cmd did not finish in time".into()));
            self.steps_command_done(result);
        }
        while self.state.docs.iter().any(Doc::running) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if self.state.docs.iter().any(|d| d.requested > d.answered) {
                match self.worker.done.recv_timeout(left) {
                    Ok(report) => self.report(report),
                    Err(_) => break,
                }
                continue;
            }
            let Some(compare) = &self.compare else { break };
            match compare.done.recv_timeout(left) {
                Ok(Report::Done(done)) => self.finish_compare(*done),
                Ok(Report::Step(_)) => {}
                Err(_) => break,
            }
        }
        if let Some((key, done)) = self.validation.take() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match done.recv_timeout(left) {
                Ok(result) => self.finish_bisect(key, result),
                Err(_) => self.finish_bisect(key, Err("the bisect did not answer in time".into())),
            }
        }
        if let Some((key, other, done)) = self.first_difference.take() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let result = done
                .recv_timeout(left)
                .unwrap_or_else(|_| Err("the interpreter did not answer in time".into()));
            self.answer(Answered::FirstDifference { key, other, result });
        }
        // The values column's runs (one may start another, for the step selected meanwhile).
        while let Some((key, done, ..)) = self.exec.take() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let result = done
                .recv_timeout(left)
                .unwrap_or_else(|_| Err("the interpreter did not answer in time".into()));
            self.answer(Answered::Executed { key, result });
        }
        if let Some(job) = self.reduce.take() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let result = job.done.recv_timeout(left).unwrap_or_else(|_| {
                job.stop.store(true, std::sync::atomic::Ordering::Relaxed);
                Err("the reduction did not finish in time".into())
            });
            self.answer(Answered::Reduced(result));
        }
        if let Some(job) = &self.bisect_run {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match job.done.recv_timeout(left) {
                Ok(result) => self.finish_bisect_run(result),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    self.finish_bisect_run(Err("the bisect run stopped without an answer".into()))
                }
                Err(_) => {}
            }
        }
        self.settle_derived();
        // The driver's code of the steps shown.
        while !self.state.cache.driver_pending.is_empty() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let Some(job) = &self.driver_job else { break };
            match job.done.recv_timeout(left) {
                Ok((hash, result)) => self.answer(Answered::DriverCode { hash, result }),
                Err(_) => {
                    let pending: Vec<u64> =
                        self.state.cache.driver_pending.iter().copied().collect();
                    for hash in pending {
                        let result = Err("the driver did not answer in time".into());
                        self.answer(Answered::DriverCode { hash, result });
                    }
                }
            }
            self.settle_derived();
        }
        // The steps shown, decompiled.
        while !self.state.cache.decompile_pending.is_empty() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.next_decompiled(left) {
                Some(true) => {}
                None => break,
                Some(false) => {
                    let pending: Vec<_> =
                        self.state.cache.decompile_pending.iter().copied().collect();
                    for (hash, lang) in pending {
                        let result = Err("the decompiler did not answer in time".into());
                        self.answer(Answered::Decompiled { hash, lang, result });
                    }
                }
            }
            self.settle_derived();
        }
        // The rows on screen highlighted (settling may show rows that want more).
        while let Some(h) = self.highlighter.as_ref().filter(|h| !h.asked.is_empty()) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match h.done.recv_timeout(left) {
                Ok(lines) => self.highlighted(lines),
                Err(_) => break,
            }
            self.settle_derived();
        }
    }

    /// Whether a background run is under way (highlighting the rows on screen among them).
    pub fn busy(&self) -> bool {
        self.highlighter
            .as_ref()
            .is_some_and(|h| !h.asked.is_empty())
            || self.state.docs.iter().any(Doc::running)
            || !self.state.cache.decompile_pending.is_empty()
            || self.bisect_run.is_some()
            || self.exec.is_some()
            || self.first_difference.is_some()
            || self.validation.is_some()
            || self.reduce.is_some()
            || self.steps_rerun.is_some()
    }

    /// Hands jobs to the worker: all together when the inputs run together (a batch replaces
    /// a queued one), else each on its own (replacing one queued for the same input).
    fn submit(&mut self, jobs: Vec<Job>, compared: Option<Job>) {
        if self.state.batched {
            self.worker.submit_all(jobs);
        } else {
            self.worker.submit_many(jobs);
        }
        if let (Some(job), Some(compare)) = (compared, &self.compare) {
            compare.submit(job);
        }
    }

    /// Starts (or stops, with `None`) running a second pipeline beside this one: a preset, a
    /// comma-separated pass list, or `spirv-opt FLAGS`.
    fn start_compare(&mut self, spec: Option<String>, jobs: Vec<Job>) -> Option<Outcome> {
        // Dropping a worker waits for the run it is in: let a thread of its own wait.
        if let Some(old) = self.compare.take() {
            let _ = std::thread::Builder::new()
                .name("shaderstep-compare-drop".into())
                .spawn(move || drop(old));
        }
        let spec = spec?.trim().to_string();
        let pipeline = if spec.starts_with("spirv-opt") || spec.contains('/') {
            crate::pipeline::external::ExternalTool::parse(&spec, self.external_path.as_deref())
                .map(Pipeline::external)
        } else if spec.contains(',') {
            let names: Vec<&str> = spec.split(',').map(str::trim).collect();
            Pipeline::from_names(&names)
        } else {
            Pipeline::preset(&spec)
        };
        let pipeline = match pipeline {
            Ok(p) => p,
            Err(e) => return Some(Outcome::CompareFailed(e)),
        };
        let worker = Worker::new(Arc::new(pipeline), self.front_ends.clone(), None, false);
        if let Some(e) = &worker.spawn_error {
            return Some(Outcome::CompareFailed(format!(
                "cannot run the compared pipeline: {e}"
            )));
        }
        for job in jobs {
            worker.submit(job);
        }
        self.compare = Some(worker);
        Some(Outcome::Comparing(spec))
    }

    /// Starts a semantic bisect of the current input's run on a thread of its own (it runs the
    /// shader once per step on `oracle`: the interpreter, or a Vulkan driver, opened only when
    /// asked for, where a shader that hangs is given up after the device's timeout).
    fn start_bisect_run(
        &mut self,
        data: Option<PathBuf>,
        oracle: crate::pipeline::oracle::Oracle,
    ) -> Option<Outcome> {
        let s = &self.state;
        let data = match data
            .map(|p| std::fs::read(&p).map_err(|e| (p, e)))
            .transpose()
        {
            Ok(d) => d,
            Err((p, e)) => {
                return Some(Outcome::Failed(format!(
                    "{}: cannot read: {e}",
                    p.display()
                )));
            }
        };
        let run = s.run().cloned()?;
        // Linked stages are drawn together.
        let (runs, docs): (Vec<Arc<crate::pipeline::Run>>, Vec<(usize, u64)>) = if s.linked {
            s.docs
                .iter()
                .enumerate()
                .filter_map(|(i, d)| Some((d.run.clone()?, (i, d.generation))))
                .unzip()
        } else {
            let generation = s.current().map_or(0, |d| d.generation);
            (vec![run], vec![(s.doc, generation)])
        };
        if self.bisect_run.is_some() {
            return Some(Outcome::Failed("a bisect run is under way already".into()));
        }
        let driver = self.driver.clone();
        let (tx, done) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("shaderstep-bisect-run".into())
            .spawn(move || {
                let runs: Vec<&crate::pipeline::Run> = runs.iter().map(|r| &**r).collect();
                // A panic is a bug, but it must not leave the app waiting for an answer.
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    // In a worker process: a driver that crashes or hangs is a finding.
                    let gpu = std::cell::OnceCell::new();
                    let open = || -> Result<&dyn crate::pipeline::gpu::Device, String> {
                        match gpu.get_or_init(|| {
                            crate::pipeline::gpu::isolated::Isolated::open_here(&driver)
                        }) {
                            Ok(g) => Ok(g),
                            Err(e) => Err(e.clone()),
                        }
                    };
                    crate::pipeline::semantic::bisect_with(
                        &open,
                        &runs,
                        crate::pipeline::semantic::Feed {
                            data: data.as_deref(),
                            oracle,
                            ..Default::default()
                        },
                        &|| false,
                    )
                }))
                .unwrap_or_else(|_| Err("internal error in the bisect run (please report)".into()));
                let _ = tx.send(result);
            });
        match spawned {
            Ok(_) => {
                self.bisect_run = Some(BisectJob { docs, done });
                Some(Outcome::Started {
                    job: "bisect run",
                    said: "running the shader after every step…".into(),
                })
            }
            Err(e) => Some(Outcome::Failed(format!("cannot start the bisect run: {e}"))),
        }
    }

    /// Tells `update` how long the values column's run has gone, past `EXEC_PROGRESS_AFTER`
    /// and once a tenth of a second: whether it did.
    fn exec_progress(
        &mut self,
        key: crate::app::state::StepKey,
        started: std::time::Instant,
    ) -> bool {
        let took = started.elapsed();
        let tenths = took.as_millis() / 100;
        if took < EXEC_PROGRESS_AFTER || self.exec_said == Some(tenths) {
            return false;
        }
        self.exec_said = Some(tenths);
        self.answer(Answered::ExecRunning { key, took });
        true
    }

    /// Runs a step on the interpreter for the values column, on a thread of its own (a step
    /// that loops runs into the interpreter's budget, never hangs).
    fn start_exec(
        &mut self,
        key: crate::app::state::StepKey,
        module: Arc<crate::ir::Module>,
        chosen: Option<crate::pipeline::step_values::Chosen>,
    ) -> Option<Outcome> {
        let (tx, done) = std::sync::mpsc::channel();
        let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop = cancel.clone();
        let spawned = std::thread::Builder::new()
            .name("shaderstep-exec".into())
            .spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crate::pipeline::step_values::run_cancellable(&module, chosen, stop)
                        .map(Arc::new)
                }))
                .unwrap_or_else(|_| {
                    Err("internal error in the interpreter (please report)".into())
                });
                let _ = tx.send(result);
            });
        match spawned {
            Ok(_) => {
                self.exec = Some((key, done, std::time::Instant::now(), cancel));
                self.exec_said = None;
                None
            }
            Err(e) => {
                self.answer(Answered::Executed {
                    key,
                    result: Err(format!("cannot start the interpreter: {e}")),
                });
                None
            }
        }
    }

    /// Starts reducing the current input on a thread of its own: while it has `property` (at
    /// the step shown), else what the last bisect found (at its step).
    fn start_reduce(&mut self, property: Option<String>) -> Option<Outcome> {
        use crate::pipeline::reduce::{self, Property};
        if self.reduce.is_some() {
            return Some(Outcome::Failed("a reduction is under way already".into()));
        }
        let s = &self.state;
        let run = s.run().cloned()?;
        let doc = s.current()?;
        let steps = crate::pipeline::semantic::pass_steps(&run);
        let (property, step) = match property {
            Some(p) => {
                let property: Property = match p.parse() {
                    Ok(p) => p,
                    Err(e) => return Some(Outcome::Failed(e)),
                };
                let step =
                    match property {
                        Property::Command(_) => None,
                        _ => match steps.iter().position(|&i| i == s.step) {
                            Some(k) => Some(k),
                            None => return Some(Outcome::Failed(
                                "select the step the property is about (the source text is none)"
                                    .into(),
                            )),
                        },
                    };
                (property, step)
            }
            None => match s.bisect.last_found {
                Some((d, _, k, what)) if d == s.doc => (what.parse().ok()?, Some(k)),
                _ => return Some(Outcome::Failed("nothing found to reduce for".into())),
            },
        };
        let first = *steps.first()?;
        let words = match crate::pipeline::validate::spirv_of(&run.steps[first].module) {
            Ok(w) => w.words,
            Err(e) => return Some(Outcome::Failed(format!("the input cannot be written: {e}"))),
        };
        let output = reduce::default_output(&doc.abs);
        let original = doc.abs.clone();
        let pipeline = self.pipeline.clone();
        let driver = self.driver.clone();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (tx, done) = std::sync::mpsc::channel();
        let (progress_tx, progress) = std::sync::mpsc::channel();
        let stopped = stop.clone();
        let spawned = std::thread::Builder::new()
            .name("shaderstep-reduce".into())
            .spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let step = step.map(|k| k.to_string());
                    let summary = reduce::reduce_to_file(
                        &pipeline,
                        &driver,
                        property,
                        step.as_deref(),
                        &words,
                        &output,
                        &mut |p| {
                            let _ = progress_tx.send(format!("{p} (Esc stops)"));
                        },
                        &|| stopped.load(std::sync::atomic::Ordering::Relaxed),
                    )?;
                    let stamp = super::watch::stamp(&output);
                    Ok((original, output, stamp, summary))
                }))
                .unwrap_or_else(|_| Err("internal error in the reduction (please report)".into()));
                let _ = tx.send(result);
            });
        match spawned {
            Ok(_) => {
                self.reduce = Some(ReduceJob {
                    done,
                    progress,
                    stop,
                });
                Some(Outcome::Started {
                    job: "reduce",
                    said: "reducing the input (Esc stops and keeps the smallest so far)…".into(),
                })
            }
            Err(e) => Some(Outcome::Failed(format!("cannot start the reduction: {e}"))),
        }
    }

    /// Looks at paths that changed on disk and says what it found, for `update` to apply
    /// (reload, list, unlist): which are files now and the watched directory that lists them,
    /// which directories and their shaders, which are gone, and the directories whose
    /// `.gitignore` changed, scanned again.
    fn files_changed(&mut self, paths: &[PathBuf]) -> Vec<Effect> {
        let candidates: Vec<PathBuf> = self
            .config_candidates()
            .iter()
            .map(|p| absolute(p))
            .collect();
        let (settings, paths): (Vec<&PathBuf>, Vec<&PathBuf>) =
            paths.iter().partition(|p| candidates.contains(p));
        if !settings.is_empty() {
            self.reload_config();
        }
        let mut paths = paths;
        if let Some(c) = &self.steps_command {
            // A source saved runs the command again; its own writes to $OUT are read once
            // it is done (`Answered::StepsCommand`), not as they come.
            let saved = paths
                .iter()
                .any(|p| c.sources.iter().any(|s| p.starts_with(absolute(s))));
            let out = absolute(&c.out);
            paths.retain(|p| {
                !p.starts_with(&out) && !c.sources.iter().any(|s| p.starts_with(absolute(s)))
            });
            if saved {
                self.rerun_steps_command();
            }
        }
        if paths.is_empty() {
            return Vec::new();
        }
        let roots = &self.state.roots;
        let root_of = |p: &Path| roots.iter().position(|r| p.starts_with(r));
        let mut found = Vec::new();
        let mut rescanned: Vec<usize> = Vec::new();
        for p in paths {
            if p.file_name().is_some_and(|n| n == ".gitignore") {
                if let Some(r) = root_of(p) {
                    if !rescanned.contains(&r) {
                        rescanned.push(r);
                    }
                }
                continue;
            }
            if p.is_file() {
                let listed_under = roots.iter().position(|r| workspace::is_listed(r, p));
                found.push(DiskFact::File {
                    path: p.clone(),
                    listed_under,
                    stamp: super::watch::stamp(p),
                });
            } else if p.is_dir() {
                let files = match root_of(p) {
                    Some(r) => workspace::scan(p)
                        .into_iter()
                        .filter(|f| workspace::is_listed(&roots[r], f))
                        .map(|f| (f, r))
                        .collect(),
                    None => Vec::new(),
                };
                found.push(DiskFact::Dir { files });
            } else {
                found.push(DiskFact::Gone(p.clone()));
            }
        }
        for r in rescanned {
            found.push(DiskFact::Rescanned {
                root: r,
                files: workspace::scan(&roots[r]),
            });
        }
        update::update(&mut self.state, Action::Disk(found))
    }

    /// Runs the steps command again in the background (once more after the run under way,
    /// when one is).
    fn rerun_steps_command(&mut self) {
        let Some(c) = self.steps_command.clone() else {
            return;
        };
        if self.steps_rerun.is_some() {
            self.steps_again = true;
            return;
        }
        let (tx, done) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("shaderstep-steps-cmd".into())
            .spawn(move || {
                let started = std::time::Instant::now();
                let result = crate::pipeline::dumps::rerun(&c.command, &c.out, &c.input)
                    .map(|said| format!("{said} in {:.1}s", started.elapsed().as_secs_f64()));
                let _ = tx.send(result);
            });
        match spawned {
            Ok(_) => {
                self.steps_rerun = Some(done);
                self.answer(Answered::Outcome(Outcome::Done(
                    "a source changed: running --steps-cmd again".into(),
                )));
            }
            Err(e) => self.answer(Answered::StepsCommand(Err(format!(
                "cannot run --steps-cmd again: {e}"
            )))),
        }
    }

    /// The steps command's run again is done: its steps are read (or its error said), and it
    /// runs once more when a save came meanwhile.
    fn steps_command_done(&mut self, result: Result<String, String>) {
        self.steps_rerun = None;
        self.answer(Answered::StepsCommand(result));
        if std::mem::take(&mut self.steps_again) {
            self.rerun_steps_command();
        }
    }

    /// Where shaderstep.toml is looked for.
    pub fn config_candidates(&self) -> Vec<PathBuf> {
        let (roots, files) = &self.config_from;
        super::config::candidates(roots, files)
    }

    /// Reads shaderstep.toml again (it changed): its keys, compilers, source paths and
    /// spirv-opt path take effect, and every input runs again with them. A file that does not
    /// parse says why and the settings before stay.
    fn reload_config(&mut self) {
        let (roots, files) = &self.config_from;
        let settings = super::config::load(roots, files).map(|(config, path)| {
            let mut bindings = default_keymap();
            let key_errors = super::keymap::apply_overrides(&mut bindings, &config.keys);
            self.keymap = Keymap::new(&bindings);
            self.bindings = bindings;
            let front_ends = Arc::new(config.front_ends);
            if front_ends != self.front_ends {
                self.worker.set_front_ends(front_ends.clone());
                if let Some(file) = &mut self.summary_file {
                    file.fingerprint =
                        super::summary_cache::fingerprint(&self.pipeline, &front_ends);
                }
                self.front_ends = front_ends;
            }
            self.external_path = config.external_path;
            // `[driver]` takes effect where `--driver` and SHADERSTEP_DRIVER do not decide:
            // the driver's code and runs from now on are the new driver's.
            let flag = self.driver_flag.as_deref();
            let driver = match crate::pipeline::gpu::Driver::resolve(flag, config.driver.as_deref())
            {
                Ok(d) if d != self.driver => {
                    self.driver = d;
                    self.driver_job = None;
                    Some(Ok(self.driver.to_string()))
                }
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            };
            Settings {
                name: path.map_or_else(
                    || format!("{} (none now: the defaults)", super::config::FILE_NAME),
                    |p| p.display().to_string(),
                ),
                source_paths: config.source_paths,
                key_errors,
                driver,
            }
        });
        self.answer(Answered::Settings(settings));
    }

    /// The editor `e` asked for, if any, for the owner of the terminal to open.
    pub fn take_edit(&mut self) -> Option<(PathBuf, u32)> {
        self.edit.take()
    }

    /// Tells the user how the editor ended.
    pub fn edited(&mut self, result: Result<String, String>) {
        let o = match result {
            Ok(m) => Outcome::Done(m),
            Err(e) => Outcome::Failed(e),
        };
        self.answer(Answered::Outcome(o));
        self.settle_derived();
    }

    /// Hands steps to the driver job (started the first time); a job that has stopped answers
    /// each with why.
    fn ask_driver(&mut self, asked: Vec<(u64, Vec<u32>)>) {
        let driver = &self.driver;
        let job = self
            .driver_job
            .get_or_insert_with(|| start_driver_job(driver.clone()));
        let mut stopped = Vec::new();
        for (hash, words) in asked {
            if job.requests.send((hash, words)).is_err() {
                stopped.push(hash);
            }
        }
        for hash in stopped {
            let result = Err("the driver's thread has stopped".into());
            self.answer(Answered::DriverCode { hash, result });
        }
    }

    /// Hands steps to the decompiler job (started the first time), then waits a little for
    /// those on screen (`DECOMPILE_WAIT`); a job that has stopped answers each with why.
    fn ask_decompile(
        &mut self,
        asked: Vec<DecompileRequest>,
        shown: &[(u64, crate::pipeline::decompile::Lang)],
    ) {
        let job = self.decompile_job.get_or_insert_with(start_decompile_job);
        let mut stopped = Vec::new();
        for (hash, lang, words) in asked {
            if job.requests.send((hash, lang, words)).is_err() {
                stopped.push((hash, lang));
            }
        }
        for (hash, lang) in stopped {
            let result = Err("the decompiler's thread has stopped".into());
            self.answer(Answered::Decompiled { hash, lang, result });
        }
        let deadline = std::time::Instant::now() + DECOMPILE_WAIT;
        let pending = |s: &crate::app::state::State| {
            shown.iter().any(|k| s.cache.decompile_pending.contains(k))
        };
        while pending(&self.state) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if self.next_decompiled(left) != Some(true) {
                break;
            }
        }
    }

    /// Waits up to `left` for the decompiler job's next answer and takes it: whether one came
    /// (`None` without a job).
    fn next_decompiled(&mut self, left: Duration) -> Option<bool> {
        let job = self.decompile_job.as_ref()?;
        let (hash, lang, result) = match job.done.recv_timeout(left) {
            Ok(answer) => answer,
            Err(_) => return Some(false),
        };
        self.answer(Answered::Decompiled { hash, lang, result });
        Some(true)
    }

    /// Carries out effects; what each gave goes back to `update` as an answer.
    fn apply(&mut self, effects: Vec<Effect>) {
        for e in effects {
            let outcome = match e {
                Effect::RememberPrompt { command, line } => {
                    if let Some(path) = &self.history_file {
                        remember(path, command, &line);
                    }
                    None
                }
                Effect::Load { jobs, compared } => {
                    self.submit(jobs, compared);
                    None
                }
                Effect::Edit { path, line } => {
                    self.edit = Some((path, line));
                    None
                }
                Effect::Bisect => self.bisect(),
                Effect::DriverCode(asked) => {
                    self.ask_driver(asked);
                    None
                }
                Effect::Decompile { asked, shown } => {
                    self.ask_decompile(asked, &shown);
                    None
                }
                Effect::Compare { spec, jobs } => self.start_compare(spec, jobs),
                Effect::BisectRun(data, oracle) => self.start_bisect_run(data, oracle),
                Effect::Reduce(property) => self.start_reduce(property),
                Effect::Exec {
                    key,
                    module,
                    chosen,
                } => self.start_exec(key, module, chosen),
                Effect::CancelExec => {
                    if let Some((.., cancel)) = &self.exec {
                        cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    None
                }
                Effect::FirstDifference {
                    key,
                    other,
                    this,
                    against,
                    forward,
                    this_is_later,
                } => {
                    let (tx, done) = std::sync::mpsc::channel();
                    let spawned = std::thread::Builder::new()
                        .name("shaderstep-first-difference".into())
                        .spawn(move || {
                            let result =
                                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                    crate::pipeline::step_values::first_difference(
                                        &this,
                                        &against,
                                        &forward,
                                        this_is_later,
                                    )
                                }))
                                .unwrap_or_else(|_| {
                                    Err("internal error in the interpreter (please report)".into())
                                });
                            let _ = tx.send(result);
                        });
                    match spawned {
                        Ok(_) => {
                            self.first_difference = Some((key, other, done));
                            None
                        }
                        Err(e) => Some(Outcome::Failed(format!(
                            "cannot start the interpreter: {e}"
                        ))),
                    }
                }
                Effect::StopReduce => {
                    if let Some(job) = &self.reduce {
                        job.stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    None
                }
                Effect::Write {
                    path,
                    bytes,
                    force,
                    inputs,
                    note,
                } => Some(write_step(&path, &bytes, force, &inputs, &note)),
            };
            if let Some(o) = outcome {
                self.answer(Answered::Outcome(o));
            }
        }
    }

    /// Validates each step's output with spirv-val, in order, on a thread of its own, and
    /// selects the first that fails: what bisecting would find, without assuming a later pass
    /// cannot repair the module. Steps in the dialect are validated as a lifted copy, or
    /// skipped, saying so.
    fn bisect(&mut self) -> Option<Outcome> {
        let s = &self.state;
        let run = s.run().cloned()?;
        if self.validation.is_some() {
            return Some(Outcome::Failed("a bisect is under way already".into()));
        }
        let doc = (s.doc, s.current().map_or(0, |d| d.generation));
        let (tx, done) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("shaderstep-bisect".into())
            .spawn(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crate::pipeline::validate::first_invalid(&run)
                }))
                .unwrap_or_else(|_| Err("internal error in the bisect (please report)".into()));
                let _ = tx.send(result);
            });
        Some(match spawned {
            Ok(_) => {
                self.validation = Some((doc, done));
                Outcome::Started {
                    job: "bisect",
                    said: "validating every step…".into(),
                }
            }
            Err(e) => Outcome::Failed(format!("cannot start the bisect: {e}")),
        })
    }

    /// Hands what a background job answered to `update` (see `answer`). Whoever receives the
    /// answers settles what is derived once they are applied (`poll_jobs`, `settle`, `handle`).
    fn answer(&mut self, answered: Answered) {
        self.apply_event(AppEvent::Action(Action::Answer(Answer::new(answered))));
    }

    fn report(&mut self, report: Report) {
        match report {
            Report::Step(step) => {
                self.foreground_answered = true;
                self.answer(Answered::Step(*step))
            }
            Report::Done(done) => {
                self.foreground_answered |= done.doc == self.state.doc;
                self.answer(Answered::Run(*done))
            }
        }
    }

    fn finish_compare(&mut self, done: Done) {
        self.answer(Answered::Compared(done));
    }

    fn finish_bisect(
        &mut self,
        key: (usize, u64),
        result: Result<crate::pipeline::validate::FirstInvalid, String>,
    ) {
        self.answer(Answered::Bisect { key, result });
    }

    fn finish_bisect_run(&mut self, result: Result<crate::pipeline::semantic::BisectRun, String>) {
        if let Some(job) = self.bisect_run.take() {
            self.answer(Answered::BisectRun {
                docs: job.docs,
                result,
            });
        }
    }

    /// Draws the state as the last event left it: derived data, layout, scrolling and
    /// highlighting were brought up to date after that event (`settle_derived`), so drawing
    /// only reads.
    pub fn draw<B: Backend>(&self, terminal: &mut Terminal<B>) -> Result<(), B::Error> {
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
                MouseEventKind::Drag(_) => MouseKind::Drag,
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
pub fn run_terminal(
    inputs: Inputs,
    pipeline: Pipeline,
    compare: Option<String>,
) -> color_eyre::Result<()> {
    use crossterm::event;
    let (roots, files) = inputs.watched();
    let (mut watcher, watch_error) = match super::watch::watch(&roots, &files) {
        Ok(w) => (Some(w), None),
        Err(e) => (None, Some(format!("file watching is off: {e}"))),
    };
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            ratatui::restore();
            return Err(color_eyre::eyre::eyre!(
                "the TUI needs a terminal ({e}); `shaderstep run` and `shaderstep replay` work without one"
            ));
        }
    };
    let _ = crossterm::execute!(io::stdout(), event::EnableMouseCapture);
    let result = (|| -> color_eyre::Result<()> {
        let size = terminal.size()?;
        let mut app = App::open(
            inputs,
            pipeline,
            (size.width, size.height),
            super::color_enabled(),
        );
        if compare.is_some() {
            app.handle(AppEvent::Action(Action::Compare(compare)));
        }
        if let Some(e) = watch_error {
            app.handle(AppEvent::Action(Action::Disk(vec![DiskFact::WatchError(
                e,
            )])));
        }
        if let Some(w) = &mut watcher {
            // shaderstep.toml is reloaded when it changes, wherever it is looked for.
            for p in app.config_candidates() {
                if p.parent().is_some_and(Path::is_dir) {
                    let _ = w.watch_beside(&p);
                }
            }
        }
        let mut dirty = true;
        // Answers that can wait for the next frame of a filling tree, and the last frame.
        let mut waiting = false;
        let mut drawn = std::time::Instant::now();
        while !app.state.quit {
            if waiting && drawn.elapsed() >= FILL_FRAME {
                dirty = true;
            }
            if dirty {
                app.draw(&mut terminal)?;
                drawn = std::time::Instant::now();
                dirty = false;
                waiting = false;
            }
            // Short polls while a run is under way, so its result shows as soon as it is done.
            let wait = if app.busy() { 10 } else { 40 };
            if event::poll(Duration::from_millis(wait))? {
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
            if let Some((path, line)) = app.take_edit() {
                // The editor gets the terminal as it was before the TUI, and the TUI gets it
                // back as it left it (tig and lazygit do the same).
                let _ = crossterm::execute!(io::stdout(), event::DisableMouseCapture);
                ratatui::restore();
                let result = open_editor(&path, line);
                terminal = ratatui::init();
                let _ = crossterm::execute!(io::stdout(), event::EnableMouseCapture);
                terminal.clear()?;
                app.edited(result);
                dirty = true;
            }
            if let Some(w) = &mut watcher {
                // Source files read from elsewhere are reloaded as watched shaders are.
                for p in app.state.cache.disk_texts.keys() {
                    let _ = w.watch_beside(p);
                }
                while let Ok(paths) = w.changes.try_recv() {
                    app.handle(AppEvent::FilesChanged(paths));
                    dirty = true;
                }
                while let Ok(e) = w.errors.try_recv() {
                    app.handle(AppEvent::Action(Action::Disk(vec![DiskFact::WatchError(
                        e,
                    )])));
                    dirty = true;
                }
            }
            if app.poll_jobs() {
                if app.answers_can_wait() {
                    waiting = true;
                } else {
                    dirty = true;
                }
            }
        }
        app.keep_summaries();
        Ok(())
    })();
    let _ = crossterm::execute!(io::stdout(), event::DisableMouseCapture);
    ratatui::restore();
    result
}

/// Where the prompt's history is kept: `$XDG_STATE_HOME/shaderstep/history`, else
/// `~/.local/state/shaderstep/history`.
pub fn history_file() -> Option<PathBuf> {
    let state = super::user_dir("XDG_STATE_HOME", ".local/state")?;
    Some(state.join("shaderstep").join("history"))
}

/// Appends a command (or search) to the history file; a file that cannot be written only
/// costs the history.
fn remember(path: &Path, command: bool, line: &str) {
    use std::io::Write;
    if line.contains('\n') {
        return;
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{} {line}", if command { "cmd" } else { "find" });
    }
}

/// `:write`: never over a file that is there without `:write!`, and never over an input
/// (a shader's source) without it either.
fn write_step(path: &Path, bytes: &[u8], force: bool, inputs: &[PathBuf], note: &str) -> Outcome {
    let abs = absolute(path);
    if !force && inputs.contains(&abs) {
        return Outcome::Failed(format!(
            "not written: {} is an open input (:write! replaces it)",
            path.display()
        ));
    }
    if !force && path.exists() {
        return Outcome::Failed(format!(
            "not written: {} exists (:write! replaces it)",
            path.display()
        ));
    }
    match std::fs::write(path, bytes) {
        Ok(()) => Outcome::Done(format!(
            "wrote {} bytes of SPIR-V{note} to {}",
            bytes.len(),
            path.display()
        )),
        Err(e) => Outcome::Failed(format!("cannot write {}: {e}", path.display())),
    }
}

/// The editor command: `$VISUAL`, else `$EDITOR`, else `vi`, split on whitespace (`code -w`).
fn editor_command() -> Vec<String> {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(std::env::var_os)
        .map(|v| v.to_string_lossy().into_owned())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".into())
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Opens the editor at `line` of `path` (`+LINE FILE`, which vi, vim, nano, emacs, micro and
/// kakoune read) and waits for it.
pub fn open_editor(path: &Path, line: u32) -> Result<String, String> {
    let command = editor_command();
    let (program, args) = command.split_first().ok_or("no editor")?;
    let status = std::process::Command::new(program)
        .args(args)
        .arg(format!("+{line}"))
        .arg(path)
        .status()
        .map_err(|e| format!("cannot run the editor `{program}`: {e} (set $EDITOR)"))?;
    if status.success() {
        Ok(format!("edited {}:{line}", path.display()))
    } else {
        Err(format!("the editor `{program}` ended with {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_long_values_run_says_its_time_once_a_tenth() {
        let pipeline = Pipeline::preset("O").unwrap();
        let mut app = App::new(Vec::new(), pipeline, (80, 24), false);
        let key = (0, 0, 3);
        let now = Instant::now();
        assert!(!app.exec_progress(key, now), "nothing said before 200ms");
        let long_ago = now - Duration::from_millis(1500);
        assert!(app.exec_progress(key, long_ago));
        assert!(
            !app.exec_progress(key, long_ago),
            "once a tenth of a second"
        );
    }
}
