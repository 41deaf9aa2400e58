//! Loads inputs and runs their pipelines off the UI thread, so a slow compile never freezes
//! the screen. Requests carry a token that grows with every request for the same input; a
//! request replaces one still queued for that input, and the app drops any result older than
//! the newest it asked for, so a newer save always supersedes an older run.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};

use crate::pipeline::input::{self, FrontEnds, InputError, InputKind};
use crate::pipeline::{Pipeline, Run};

pub struct Job {
    pub doc: usize,
    pub token: u64,
    pub path: PathBuf,
}

/// A finished job: the run, or why the input did not load.
pub struct Done {
    pub doc: usize,
    pub token: u64,
    pub result: Result<Loaded, InputError>,
}

pub struct Loaded {
    pub run: Run,
    pub kind: InputKind,
    /// The source text, for inputs compiled from source.
    pub source: Option<Arc<str>>,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

pub struct Worker {
    queue: Arc<(Mutex<Queue>, Condvar)>,
    pub done: Receiver<Done>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Loads and runs one input: what the worker does for a job. `None` when `cancelled` said
/// to give up.
pub fn load_and_run(
    path: &std::path::Path,
    pipeline: &Pipeline,
    front: &FrontEnds,
    cancelled: &dyn Fn() -> bool,
) -> Option<Result<Loaded, InputError>> {
    let loaded = match input::load_with(path, front) {
        Ok(l) => l,
        Err(e) => return Some(Err(e)),
    };
    let kind = loaded.kind;
    let source = loaded.source.clone().map(Arc::from);
    let run = loaded.run_cancellable(pipeline, cancelled)?;
    Some(Ok(Loaded { run, kind, source }))
}

impl Worker {
    pub fn new(pipeline: Arc<Pipeline>, front: Arc<FrontEnds>) -> Self {
        let queue: Arc<(Mutex<Queue>, Condvar)> = Arc::default();
        let (tx, done) = channel();
        let q = queue.clone();
        let thread = std::thread::Builder::new()
            .name("shaderstep-worker".into())
            .spawn(move || work(&q, &tx, &pipeline, &front))
            .ok();
        Worker {
            queue,
            done,
            thread,
        }
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
    tx: &Sender<Done>,
    pipeline: &Pipeline,
    front: &FrontEnds,
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
        let superseded = || {
            lock.lock()
                .unwrap_or_else(|e| e.into_inner())
                .jobs
                .iter()
                .any(|j| j.doc == job.doc)
        };
        // A pass that panics is a bug, but it must not take the UI down with it.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            load_and_run(&job.path, pipeline, front, &superseded)
        }))
        .unwrap_or_else(|p| {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
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
            .send(Done {
                doc: job.doc,
                token: job.token,
                result,
            })
            .is_err()
        {
            return;
        }
    }
}
