//! Loads inputs and runs their pipelines off the UI thread, so a slow compile never freezes
//! the screen. Requests carry a token that grows with every request for the same input; a
//! request replaces one still queued for that input, and the app drops any result older than
//! the newest it asked for, so a newer save always supersedes an older run. A worker that
//! streams reports each step of a run as soon as its pass is done, before the whole run.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::state::Summary;
use crate::pipeline::compile::{compile, compile_figures, Compiled, Progress, Together};
use crate::pipeline::input::{FrontEnds, InputError};
use crate::pipeline::{Pipeline, Step};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub doc: usize,
    pub token: u64,
    pub path: PathBuf,
    /// Whether the run's steps come back (else only its summary: a shader the browser lists
    /// but nobody looks at keeps no steps).
    pub steps: bool,
    /// Whether it goes before the jobs queued (the selected shader, a save), or after them (a
    /// tree-wide run).
    pub urgent: bool,
}

impl Job {
    /// A job whose steps come back, before the others queued.
    pub fn steps(doc: usize, token: u64, path: PathBuf) -> Self {
        Job {
            doc,
            token,
            path,
            steps: true,
            urgent: true,
        }
    }
}

/// A finished job: what the browser lists of it, and the run or why the input did not load.
pub struct Done {
    pub doc: usize,
    pub token: u64,
    pub summary: Summary,
    /// `Ok(None)`: the job asked for the summary only, and the steps were dropped here.
    pub result: Result<Option<Compiled>, InputError>,
}

/// A step of the run a job asked for, sent before the job is done.
pub struct StepDone {
    pub doc: usize,
    pub token: u64,
    pub step: Step,
    /// The input's source text, with the run's first step (for inputs compiled from source).
    pub source: Option<Arc<str>>,
}

/// What the worker sends back: steps of a run under way (a streaming worker), then the job done.
pub enum Report {
    Step(Box<StepDone>),
    Done(Box<Done>),
}

/// Names an input's bytes (and extension): `content_key`.
pub type ContentKey = u128;

/// Jobs waiting, most urgent first. A job replaced by a newer one for the same input stays
/// in the deque until it comes up and is skipped: replacing never walks a long queue.
#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// The newest token asked for, per input.
    newest: HashMap<usize, u64>,
    /// Summaries of runs by the content of their input (`content_key`): a shader tree holds
    /// many files with the same bytes (copies, variants that came out alike), run once.
    /// Emptied when the compilers change.
    summaries: HashMap<ContentKey, Summary>,
    /// The summaries this session made or answered with: what a session keeps for the next
    /// (`summary_cache`); and a count that grows whenever that set changes.
    used: std::collections::HashSet<ContentKey>,
    uses: u64,
    closed: bool,
}

impl Queue {
    fn push(&mut self, job: Job) {
        self.newest.insert(job.doc, job.token);
        if job.urgent {
            self.jobs.push_front(job);
        } else {
            self.jobs.push_back(job);
        }
    }

    /// The next job that no newer one replaced.
    fn pop(&mut self) -> Option<Job> {
        while let Some(job) = self.jobs.pop_front() {
            if self.newest.get(&job.doc) == Some(&job.token) {
                return Some(job);
            }
        }
        None
    }

    /// Whether a newer job for the same input was asked for since `job`.
    fn replaced(&self, job: &Job) -> bool {
        self.newest.get(&job.doc).is_some_and(|&t| t > job.token)
    }
}

/// The compilers a worker loads inputs with: replaced when shaderstep.toml changes, taken
/// afresh for every job.
type SharedFrontEnds = Arc<Mutex<Arc<FrontEnds>>>;

pub struct Worker {
    queue: Arc<(Mutex<Queue>, Condvar)>,
    front: SharedFrontEnds,
    pub done: Receiver<Report>,
    threads: Vec<std::thread::JoinHandle<()>>,
    /// Why the worker threads did not start (jobs then never run).
    pub spawn_error: Option<String>,
}

impl Worker {
    /// A worker that runs each input on its own, or, with `batch`, every input together (jobs
    /// then come in batches: `submit_all`). A worker that streams (inputs on their own only)
    /// reports every step as it is made. Inputs run on their own run on as many threads as
    /// there are cores: a tree of shaders fills in on all of them.
    pub fn new(
        pipeline: Arc<Pipeline>,
        front: Arc<FrontEnds>,
        batch: Option<Together>,
        stream: bool,
    ) -> Self {
        let threads = match batch {
            Some(_) => 1,
            None => std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
        };
        Worker::with_threads(pipeline, front, batch, stream, threads)
    }

    /// As `new`, on `threads` threads (inputs run on their own only).
    pub fn with_threads(
        pipeline: Arc<Pipeline>,
        front: Arc<FrontEnds>,
        batch: Option<Together>,
        stream: bool,
        threads: usize,
    ) -> Self {
        let queue: Arc<(Mutex<Queue>, Condvar)> = Arc::default();
        let (tx, done) = channel();
        let front: SharedFrontEnds = Arc::new(Mutex::new(front));
        let mut handles = Vec::new();
        let mut spawn_error = None;
        for n in 0..threads.max(1) {
            let (q, tx, pipeline, shared) =
                (queue.clone(), tx.clone(), pipeline.clone(), front.clone());
            let batch = batch.clone();
            let thread = std::thread::Builder::new()
                .name(format!("shaderstep-worker-{n}"))
                .spawn(move || {
                    yield_to_the_ui();
                    match batch {
                        Some(batch) => work_batches(&q, &tx, &pipeline, &shared, &batch),
                        None => work(&q, &tx, &pipeline, &shared, stream),
                    }
                });
            match thread {
                Ok(t) => handles.push(t),
                // Fewer threads still run every job; none runs nothing.
                Err(e) if handles.is_empty() => spawn_error = Some(e.to_string()),
                Err(_) => {}
            }
        }
        Worker {
            queue,
            front,
            done,
            threads: handles,
            spawn_error,
        }
    }

    /// The compilers the jobs queued from now on load their inputs with.
    pub fn set_front_ends(&self, front: Arc<FrontEnds>) {
        *self.front.lock().unwrap_or_else(|e| e.into_inner()) = front;
        let (lock, _) = &*self.queue;
        let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
        q.summaries.clear();
        q.used.clear();
        q.uses += 1;
    }

    /// Summaries of earlier runs (an earlier session's), answering jobs for the same bytes.
    pub fn remember(&self, summaries: HashMap<ContentKey, Summary>) {
        let (lock, _) = &*self.queue;
        lock.lock()
            .unwrap_or_else(|e| e.into_inner())
            .summaries
            .extend(summaries);
    }

    /// A count that grows whenever `summaries_used` would say something else.
    pub fn summary_uses(&self) -> u64 {
        let (lock, _) = &*self.queue;
        lock.lock().unwrap_or_else(|e| e.into_inner()).uses
    }

    /// The summaries this session made or answered with, read when called (on another
    /// thread: a tree's are many).
    pub fn summaries_used(&self) -> impl FnOnce() -> Vec<(ContentKey, Summary)> + Send + 'static {
        let queue = self.queue.clone();
        move || {
            let q = queue.0.lock().unwrap_or_else(|e| e.into_inner());
            q.used
                .iter()
                .filter_map(|k| Some((*k, q.summaries.get(k)?.clone())))
                .collect()
        }
    }

    /// Queues a job, replacing a queued one for the same input.
    pub fn submit(&self, job: Job) {
        self.submit_many(vec![job]);
    }

    /// Queues jobs, each replacing a queued one for the same input, under one lock.
    pub fn submit_many(&self, jobs: Vec<Job>) {
        let (lock, cv) = &*self.queue;
        let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
        // Urgent ones pushed to the front in reverse keep their order there.
        let (urgent, later): (Vec<Job>, Vec<Job>) = jobs.into_iter().partition(|j| j.urgent);
        for job in urgent.into_iter().rev().chain(later) {
            q.push(job);
        }
        cv.notify_all();
    }
}

impl Worker {
    /// Queues jobs that must run together (the stages of a pipeline), replacing queued ones.
    pub fn submit_all(&self, jobs: Vec<Job>) {
        let (lock, cv) = &*self.queue;
        let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
        q.jobs.clear();
        for job in jobs {
            q.push(Job {
                urgent: false,
                ..job
            });
        }
        cv.notify_one();
    }
}

/// Batch mode: takes every queued job at once (one per input), loads them all, links them and
/// answers every job. An input that does not load fails the others too: they cannot be
/// linked without it.
fn work_batches(
    queue: &(Mutex<Queue>, Condvar),
    tx: &Sender<Report>,
    pipeline: &Pipeline,
    front: &Mutex<Arc<FrontEnds>>,
    together: &Together,
) {
    let (lock, cv) = queue;
    loop {
        let jobs: Vec<Job> = {
            let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if q.closed {
                    return;
                }
                let mut jobs = Vec::new();
                while let Some(j) = q.pop() {
                    jobs.push(j);
                }
                if !jobs.is_empty() {
                    break jobs;
                }
                q = cv.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let front = front.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let started = Instant::now();
        let results = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let paths: Vec<PathBuf> = jobs.iter().map(|j| j.path.clone()).collect();
            compile(&paths, pipeline, &front, together, &|| false, &mut |_| {}).unwrap_or_default()
        }))
        .unwrap_or_else(|p| {
            let what = panic_message(p.as_ref());
            jobs.iter()
                .map(|j| {
                    Err(InputError {
                        path: j.path.clone(),
                        line: None,
                        message: format!("internal error while linking (please report): {what}"),
                        source: None,
                    })
                })
                .collect()
        });
        let took = started.elapsed();
        for (job, result) in jobs.iter().zip(results) {
            if tx
                .send(Report::Done(Box::new(done(job, result, took))))
                .is_err()
            {
                return;
            }
        }
    }
}

/// Lowers the calling thread's priority (nice 10) below the UI thread's: with a tree filling
/// in on every core, a frame of 1 ms otherwise waited for a time slice and took 10 to 15 ms.
/// The runs lose nothing while the UI thread sleeps between frames.
fn yield_to_the_ui() {
    // Linux keeps a nice value per thread; `who` is the thread's id.
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority and gettid only read their arguments; a failure leaves the
    // priority as it was.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

/// The answer to `job`: its summary, and the run when the job wants the steps.
fn done(job: &Job, result: Result<Compiled, InputError>, took: Duration) -> Done {
    let summary = match &result {
        Ok(c) => Summary::of_run(&c.run, took).including(includes(&job.path, c.source.as_deref())),
        Err(e) => Summary::of_error(e, took).including(includes(&job.path, None)),
    };
    Done {
        doc: job.doc,
        token: job.token,
        summary,
        result: result.map(|c| job.steps.then_some(c)),
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        {
            let (lock, cv) = &*self.queue;
            let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
            q.closed = true;
            q.jobs.clear();
            cv.notify_all();
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn work(
    queue: &(Mutex<Queue>, Condvar),
    tx: &Sender<Report>,
    pipeline: &Pipeline,
    front: &Mutex<Arc<FrontEnds>>,
    stream: bool,
) {
    let (lock, cv) = queue;
    loop {
        let job = {
            let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if q.closed {
                    return;
                }
                if let Some(j) = q.pop() {
                    break j;
                }
                q = cv.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        // A newer request for the same input, queued meanwhile, makes this run worthless: it
        // stops at the next pass and the newer one answers instead.
        // A worker being dropped gives up too.
        let superseded = || {
            let q = lock.lock().unwrap_or_else(|e| e.into_inner());
            q.closed || q.replaced(&job)
        };
        let front = front.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // A summary of the same bytes run before answers a job that wants only the summary;
        // the bytes read for it are the ones run.
        let content = (!job.steps).then(|| content_key(&job.path)).flatten();
        if let Some((key, _)) = &content {
            let known = {
                let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
                let known = q.summaries.get(key).cloned();
                if known.is_some() && q.used.insert(*key) {
                    q.uses += 1;
                }
                known
            };
            if let Some(summary) = known {
                let done = Done {
                    doc: job.doc,
                    token: job.token,
                    summary,
                    result: Ok(None),
                };
                if tx.send(Report::Done(Box::new(done))).is_err() {
                    return;
                }
                continue;
            }
        }
        // The source text goes with the first step only.
        let mut source_sent = false;
        let mut audited: std::collections::HashMap<usize, Arc<crate::ir::debug::Coverage>> =
            std::collections::HashMap::new();
        // The last step of each input, whose cost the next one shares when it changed nothing.
        let mut costed: std::collections::HashMap<usize, crate::pipeline::Step> =
            std::collections::HashMap::new();
        let started = Instant::now();
        let mut report = |p: Progress| {
            // The debug-info audit the pass list shows, computed here rather than while
            // drawing (once per step; the run keeps it), for inputs with source locations.
            let located = |m: &crate::ir::Module| m.functions().iter().any(|f| !f.locs.is_empty());
            let before = audited.get(&p.input).cloned();
            if before.is_some() || located(&p.step.module) {
                audited.insert(p.input, p.step.audit(before.as_deref()));
            }
            if stream {
                let source = (!source_sent).then(|| p.source.map(Arc::from)).flatten();
                source_sent = true;
                let _ = tx.send(Report::Step(Box::new(StepDone {
                    doc: job.doc,
                    token: job.token,
                    step: p.step.clone(),
                    source,
                })));
            }
            // What the step costs (pressure, mix), for the pass list: here, off the UI thread,
            // once per module (a step that changed nothing shares the one before), and after
            // the step is sent: the clone sent shares the cell this fills.
            p.step.cost_after(costed.get(&p.input));
            costed.insert(p.input, p.step.clone());
        };
        // A pass that panics is a bug, but it must not take the UI down with it.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if !job.steps {
                // Nobody looks at the steps: the modules between passes are not kept.
                let bytes = content.as_ref().map(|(_, b)| b.as_slice());
                return compile_figures(&job.path, bytes, pipeline, &front, &superseded);
            }
            compile(
                std::slice::from_ref(&job.path),
                pipeline,
                &front,
                &Together::Apart,
                &superseded,
                &mut report,
            )
            .and_then(|mut results| results.pop())
        }))
        .unwrap_or_else(|p| {
            let what = panic_message(p.as_ref());
            Some(Err(InputError {
                path: job.path.clone(),
                line: None,
                message: format!("internal error while compiling (please report): {what}"),
                source: None,
            }))
        });
        let Some(result) = result else {
            continue;
        };
        let done = done(&job, result, started.elapsed());
        if let (Some((key, _)), Ok(_)) = (content, &done.result) {
            let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
            q.summaries.insert(key, done.summary.clone());
            q.used.insert(key);
            q.uses += 1;
        }
        if tx.send(Report::Done(Box::new(done))).is_err() {
            return;
        }
    }
}

/// The extensions of GLSL sources (which `#include`), and of all sources that may.
const GLSL: &[&str] = &["vert", "frag", "comp", "geom", "tesc", "tese", "glsl"];
const INCLUDING: &[&str] = &[
    "vert", "frag", "comp", "geom", "tesc", "tese", "glsl", "hlsl", "slang",
];

fn extension_in(path: &std::path::Path, list: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| list.contains(&e.to_ascii_lowercase().as_str()))
}

/// The key of an input whose run depends on its bytes alone (and its extension, which names
/// the language and the stage), with those bytes: SPIR-V, WGSL, and GLSL that includes
/// nothing. `None` for the others (an `#include` reads other files; HLSL and Slang go through
/// configured compilers), and for files that cannot be read (the run says why).
fn content_key(path: &std::path::Path) -> Option<(ContentKey, Vec<u8>)> {
    use std::hash::{Hash, Hasher};
    let glsl = extension_in(path, GLSL);
    if !glsl && !extension_in(path, &["spv", "spvasm", "wgsl"]) {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    if glsl && bytes.windows(8).any(|w| w == b"#include") {
        return None;
    }
    // Two hashes of different families: summaries are kept across sessions, where 64 bits
    // of one fast hash over many trees would in time answer a file with another's run.
    let extension = path.extension()?.to_ascii_lowercase();
    let mut fx = crate::ir::fxhash::FxHasher::default();
    let mut sip = std::hash::DefaultHasher::new();
    extension.hash(&mut fx);
    bytes.hash(&mut fx);
    extension.hash(&mut sip);
    bytes.hash(&mut sip);
    let key = ContentKey::from(fx.finish()) << 64 | ContentKey::from(sip.finish());
    Some((key, bytes))
}

/// The files a source file includes, transitively: `#include "x"` and `#include <x>` lines,
/// found beside the file that names them (as the compilers look for them). Also of a file that
/// does not compile, whose error may be in what it includes. `own`: the file's own text, when
/// the run read it already.
fn includes(path: &std::path::Path, own: Option<&str>) -> Vec<PathBuf> {
    const DEPTH: usize = 8;
    if !extension_in(path, INCLUDING) {
        return Vec::new();
    }
    let mut found: Vec<PathBuf> = Vec::new();
    let mut todo: Vec<(PathBuf, usize)> = vec![(path.to_path_buf(), 0)];
    while let Some((file, depth)) = todo.pop() {
        let read = match own.filter(|_| depth == 0) {
            Some(t) => Ok(t.to_string()),
            None => std::fs::read_to_string(&file),
        };
        let Ok(text) = read else {
            continue;
        };
        if !text.contains("#include") {
            continue;
        }
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix("#include") else {
                continue;
            };
            let rest = rest.trim();
            let name = rest
                .strip_prefix('"')
                .and_then(|r| r.split('"').next())
                .or_else(|| rest.strip_prefix('<').and_then(|r| r.split('>').next()));
            let Some(name) = name.filter(|n| !n.is_empty()) else {
                continue;
            };
            let included = super::watch::absolute(&file.parent().unwrap_or(path).join(name));
            if !found.contains(&included) && included != path {
                found.push(included.clone());
                if depth + 1 < DEPTH {
                    todo.push((included, depth + 1));
                }
            }
        }
    }
    found
}

/// What a caught panic said.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}
