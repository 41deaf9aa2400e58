//! Shaders run on the driver in a child process: the shaderstep binary started as a GPU worker
//! (`shaderstep __gpu-worker`), asked over its standard input and answering on its standard
//! output (`wire`). A driver that crashes takes the worker down, not shaderstep; one that hangs
//! is killed at the time limit. Either is a result (`DeviceError::Crashed`, `Hung`), and the
//! next request starts a new worker.

use std::cell::RefCell;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use super::wire::{read_frame, write_frame, Answer, Request};
use super::{Device, DeviceError, Draw, Gpu, Layout, Rendered};

/// The argument that makes the shaderstep binary a GPU worker.
pub const WORKER_ARG: &str = "__gpu-worker";

/// How long opening the device may take.
const OPEN_LIMIT: Duration = Duration::from_secs(30);

/// What the driver printed last (kept for a crash report).
const STDERR_KEPT: usize = 2048;

struct Worker {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    answers: Receiver<Option<Vec<u8>>>,
    /// What the driver printed last, once the worker has ended (the reader's result).
    stderr: std::thread::JoinHandle<String>,
}

impl Worker {
    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A device in a worker process.
pub struct Isolated {
    program: PathBuf,
    cpu_only: bool,
    name: String,
    worker: RefCell<Option<Worker>>,
}

impl Isolated {
    /// Starts a worker (`program`, the shaderstep binary) and opens its device.
    pub fn open(program: PathBuf, cpu_only: bool) -> Result<Isolated, String> {
        let mut d = Isolated {
            program,
            cpu_only,
            name: String::new(),
            worker: RefCell::new(None),
        };
        d.name = d.start().map_err(|e| e.to_string())?;
        Ok(d)
    }

    /// `open` with the shaderstep binary as the worker: `SHADERSTEP_GPU_WORKER` when set, else
    /// the running binary when it is shaderstep, else a shaderstep beside it or one directory
    /// up (a test binary in `target/debug/deps` drives the app in-process).
    pub fn open_here(cpu_only: bool) -> Result<Isolated, String> {
        Isolated::open(worker_program()?, cpu_only)
    }

    /// A new worker with its device open; the device's name.
    fn start(&self) -> Result<String, DeviceError> {
        let mut child = Command::new(&self.program)
            .arg(WORKER_ARG)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                DeviceError::Failed(format!(
                    "cannot start the GPU worker {}: {e}",
                    self.program.display()
                ))
            })?;
        let (stdin, stdout, stderr_pipe) = (
            child.stdin.take().expect("piped"),
            child.stdout.take().expect("piped"),
            child.stderr.take().expect("piped"),
        );
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let frame = read_frame(&mut r).ok().flatten();
                let end = frame.is_none();
                if tx.send(frame).is_err() || end {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut r = BufReader::new(stderr_pipe);
            let mut buf = [0u8; 512];
            let mut kept = String::new();
            while let Ok(n) = r.read(&mut buf) {
                if n == 0 {
                    break;
                }
                kept.push_str(&String::from_utf8_lossy(&buf[..n]));
                if kept.len() > STDERR_KEPT {
                    let cut = kept.len() - STDERR_KEPT;
                    let cut = (cut..kept.len())
                        .find(|&i| kept.is_char_boundary(i))
                        .unwrap_or(0);
                    kept.drain(..cut);
                }
            }
            kept
        });
        *self.worker.borrow_mut() = Some(Worker {
            child,
            stdin: BufWriter::new(stdin),
            answers,
            stderr,
        });
        match self.ask(
            &Request::Open {
                cpu_only: self.cpu_only,
            },
            OPEN_LIMIT,
        )? {
            Answer::Opened { name } => Ok(name),
            _ => Err(DeviceError::Failed(
                "the GPU worker answered something else than its device".into(),
            )),
        }
    }

    /// Sends `request` to the worker (starting one if there is none) and waits at most `limit`
    /// for the answer.
    fn ask(&self, request: &Request, limit: Duration) -> Result<Answer, DeviceError> {
        if self.worker.borrow().is_none() {
            self.start()?;
        }
        let mut slot = self.worker.borrow_mut();
        let w = slot.as_mut().expect("started");
        let sent = write_frame(&mut w.stdin, &request.encode());
        let answer = match sent {
            Ok(()) => w.answers.recv_timeout(limit),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        };
        match answer {
            Ok(Some(bytes)) => match Answer::decode(&bytes) {
                Ok(Answer::Failed(why)) => Err(DeviceError::Failed(why)),
                Ok(a) => Ok(a),
                Err(why) => {
                    if let Some(w) = slot.take() {
                        w.stop();
                    }
                    Err(DeviceError::Failed(why))
                }
            },
            Err(RecvTimeoutError::Timeout) => {
                if let Some(w) = slot.take() {
                    w.stop();
                }
                Err(DeviceError::Hung(limit))
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                let mut w = slot.take().expect("started");
                let status = w.child.wait().ok();
                // The process is gone, so its stderr is closed and the reader ends.
                let said = w.stderr.join().unwrap_or_default();
                Err(DeviceError::Crashed(crash_cause(status, &said)))
            }
        }
    }
}

impl Drop for Isolated {
    fn drop(&mut self) {
        if let Some(w) = self.worker.get_mut().take() {
            w.stop();
        }
    }
}

fn worker_program() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("SHADERSTEP_GPU_WORKER") {
        return Ok(PathBuf::from(p));
    }
    let here = std::env::current_exe()
        .map_err(|e| format!("cannot find the shaderstep binary to run shaders in: {e}"))?;
    let name = format!("shaderstep{}", std::env::consts::EXE_SUFFIX);
    if here.file_name().is_some_and(|n| n == name.as_str()) {
        return Ok(here);
    }
    here.ancestors()
        .skip(1)
        .take(2)
        .map(|d| d.join(&name))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "cannot find the shaderstep binary to run shaders in beside {} (set SHADERSTEP_GPU_WORKER)",
                here.display()
            )
        })
}

/// How the worker ended: the signal (`SIGSEGV`) or exit status, and the driver's last line.
fn crash_cause(status: Option<std::process::ExitStatus>, stderr: &str) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match status {
        Some(s) => match s.signal() {
            Some(n) => signal_name(n),
            None => match s.code() {
                Some(c) => format!("exit status {c}"),
                None => "ended".into(),
            },
        },
        None => "ended".into(),
    };
    match stderr.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(last) => format!("{how}: {}", last.trim()),
        None => how,
    }
}

fn signal_name(n: i32) -> String {
    match n {
        4 => "SIGILL".into(),
        6 => "SIGABRT".into(),
        7 => "SIGBUS".into(),
        8 => "SIGFPE".into(),
        9 => "SIGKILL".into(),
        11 => "SIGSEGV".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

impl Device for Isolated {
    fn name(&self) -> &str {
        &self.name
    }

    fn run_buffers(
        &self,
        words: &[u32],
        layout: &Layout,
        groups: [u32; 3],
        buffers: &[Vec<u8>],
        limit: Duration,
    ) -> Result<Vec<Vec<u8>>, DeviceError> {
        let request = Request::Run {
            words: words.to_vec(),
            layout: layout.clone(),
            groups,
            buffers: buffers.to_vec(),
        };
        match self.ask(&request, limit)? {
            Answer::Buffers(b) => Ok(b),
            _ => Err(DeviceError::Failed(
                "the GPU worker answered a run with something else".into(),
            )),
        }
    }

    fn draw_limited(&self, draw: &Draw, limit: Duration) -> Result<Rendered, DeviceError> {
        let request = Request::Draw {
            vs: draw.vs.to_vec(),
            fs: draw.fs.to_vec(),
            vs_entry: draw.vs_entry.to_string(),
            fs_entry: draw.fs_entry.to_string(),
            size: draw.size,
            setup: draw.setup.clone(),
        };
        match self.ask(&request, limit)? {
            Answer::Rendered(r) => Ok(r),
            _ => Err(DeviceError::Failed(
                "the GPU worker answered a draw with something else".into(),
            )),
        }
    }
}

/// The worker's side: answers requests on standard input until it closes. The device is
/// opened by the first request; a request before it is answered with a failure.
pub fn serve() -> i32 {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut input = stdin.lock();
    let mut output = stdout.lock();
    let mut gpu: Option<Gpu> = None;
    loop {
        let frame = match read_frame(&mut input) {
            Ok(Some(f)) => f,
            Ok(None) => return 0,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "gpu worker: {e}");
                return 1;
            }
        };
        let answer = match Request::decode(&frame) {
            Err(why) => Answer::Failed(why),
            Ok(Request::Open { cpu_only }) => match Gpu::open(cpu_only) {
                Ok(mut g) => {
                    // The parent's limit decides when a run has hung: it kills this process.
                    g.timeout = Duration::from_secs(24 * 3600);
                    let name = g.name.clone();
                    gpu = Some(g);
                    Answer::Opened { name }
                }
                Err(e) => Answer::Failed(e),
            },
            Ok(request) => match &gpu {
                None => Answer::Failed("no device is open".into()),
                Some(g) => answer(g, request),
            },
        };
        if write_frame(&mut output, &answer.encode()).is_err() {
            return 1;
        }
    }
}

fn answer(gpu: &Gpu, request: Request) -> Answer {
    match request {
        Request::Open { .. } => Answer::Failed("the device is open already".into()),
        Request::Run {
            words,
            layout,
            groups,
            buffers,
        } => match gpu.run_buffers(&words, &layout, groups, &buffers, gpu.timeout) {
            Ok(b) => Answer::Buffers(b),
            Err(e) => Answer::Failed(e.to_string()),
        },
        Request::Draw {
            vs,
            fs,
            vs_entry,
            fs_entry,
            size,
            setup,
        } => {
            let draw = Draw {
                vs: &vs,
                fs: &fs,
                vs_entry: &vs_entry,
                fs_entry: &fs_entry,
                size,
                setup: &setup,
            };
            match gpu.draw(&draw) {
                Ok(r) => Answer::Rendered(r),
                Err(e) => Answer::Failed(e),
            }
        }
    }
}
