//! Loads inputs and runs their pipelines off the UI thread, so a slow compile never freezes
//! the screen. Requests carry a token that grows with every request for the same input; a
//! request replaces one still queued for that input, and the app drops any result older than
//! the newest it asked for, so a newer save always supersedes an older run. A worker that
//! streams reports each step of a run as soon as its pass is done, before the whole run.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};

use crate::pipeline::compile::{compile, Compiled, Progress, Together};
use crate::pipeline::input::{FrontEnds, InputError};
use crate::pipeline::{Pipeline, Step};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub doc: usize,
    pub token: u64,
    pub path: PathBuf,
}

/// A finished job: the run, or why the input did not load.
pub struct Done {
    pub doc: usize,
    pub token: u64,
    pub result: Result<Compiled, InputError>,
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
    Done(Done),
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

/// The compilers a worker loads inputs with: replaced when shaderstep.toml changes, taken
/// afresh for every job.
type SharedFrontEnds = Arc<Mutex<Arc<FrontEnds>>>;

pub struct Worker {
    queue: Arc<(Mutex<Queue>, Condvar)>,
    front: SharedFrontEnds,
    pub done: Receiver<Report>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Why the worker thread did not start (jobs then never run).
    pub spawn_error: Option<String>,
}

impl Worker {
    /// A worker that runs each input on its own, or, with `batch`, every input together (jobs
    /// then come in batches: `submit_all`). A worker that streams (inputs on their own only)
    /// reports every step as it is made.
    pub fn new(
        pipeline: Arc<Pipeline>,
        front: Arc<FrontEnds>,
        batch: Option<Together>,
        stream: bool,
    ) -> Self {
        let queue: Arc<(Mutex<Queue>, Condvar)> = Arc::default();
        let (tx, done) = channel();
        let q = queue.clone();
        let front: SharedFrontEnds = Arc::new(Mutex::new(front));
        let shared = front.clone();
        let thread = std::thread::Builder::new()
            .name("shaderstep-worker".into())
            .spawn(move || match batch {
                Some(batch) => work_batches(&q, &tx, &pipeline, &shared, &batch),
                None => work(&q, &tx, &pipeline, &shared, stream),
            });
        let (thread, spawn_error) = match thread {
            Ok(t) => (Some(t), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Worker {
            queue,
            front,
            done,
            thread,
            spawn_error,
        }
    }

    /// The compilers the jobs queued from now on load their inputs with.
    pub fn set_front_ends(&self, front: Arc<FrontEnds>) {
        *self.front.lock().unwrap_or_else(|e| e.into_inner()) = front;
    }

    /// Queues a job, replacing a queued one for the same input.
    pub fn submit(&self, job: Job) {
        let (lock, cv) = &*self.queue;
        let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
        q.jobs.retain(|j| j.doc != job.doc);
        q.jobs.push_back(job);
        cv.notify_one();
    }
}

impl Worker {
    /// Queues jobs that must run together (the stages of a pipeline), replacing queued ones.
    pub fn submit_all(&self, jobs: Vec<Job>) {
        let (lock, cv) = &*self.queue;
        let mut q = lock.lock().unwrap_or_else(|e| e.into_inner());
        q.jobs.clear();
        q.jobs.extend(jobs);
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
                if !q.jobs.is_empty() {
                    break q.jobs.drain(..).collect();
                }
                q = cv.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let front = front.lock().unwrap_or_else(|e| e.into_inner()).clone();
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
                    })
                })
                .collect()
        });
        for (job, result) in jobs.iter().zip(results) {
            let done = Done {
                doc: job.doc,
                token: job.token,
                result,
            };
            if tx.send(Report::Done(done)).is_err() {
                return;
            }
        }
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
        if let Some(t) = self.thread.take() {
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
                if let Some(j) = q.jobs.pop_front() {
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
            q.closed || q.jobs.iter().any(|j| j.doc == job.doc)
        };
        let front = front.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // The source text goes with the first step only.
        let mut source_sent = false;
        let mut audited: std::collections::HashMap<usize, Arc<crate::ir::debug::Coverage>> =
            std::collections::HashMap::new();
        // The last step of each input, whose cost the next one shares when it changed nothing.
        let mut costed: std::collections::HashMap<usize, crate::pipeline::Step> =
            std::collections::HashMap::new();
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
            }))
        });
        let Some(result) = result else {
            continue;
        };
        if tx
            .send(Report::Done(Done {
                doc: job.doc,
                token: job.token,
                result,
            }))
            .is_err()
        {
            return;
        }
    }
}

/// What a caught panic said.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}
