//! Shaders run on the driver in a child process: the shaderstep binary started as a GPU worker
//! (`shaderstep __gpu-worker`), asked and answering over two pipes of its own (`wire`), at fds
//! [`REQUEST_FD`] and [`ANSWER_FD`]. Its standard output and error go to a log the parent keeps
//! the end of: drivers, layers and the Vulkan loader print to either, and nothing they print
//! can be taken for an answer. A driver that crashes takes the worker down, not shaderstep; one
//! that hangs is killed at the time limit; a worker that breaks the protocol is killed at once.
//! Each is a result (`DeviceError::Crashed`, `Hung`, `Failed`) with what the worker printed
//! last, and the next request starts a new worker. Unix only: the fds are handed over between
//! `fork` and `exec`.

use std::cell::RefCell;
use std::io::{BufReader, BufWriter, Read};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use super::wire::{read_frame, write_frame, Answer, Request};
use super::{Device, DeviceError, DeviceInfo, Draw, Driver, Gpu, Layout, Rendered};

/// The argument that makes the shaderstep binary a GPU worker.
pub const WORKER_ARG: &str = "__gpu-worker";

/// The worker's fd it reads requests from.
pub const REQUEST_FD: i32 = 3;
/// The worker's fd it writes answers to.
pub const ANSWER_FD: i32 = 4;

/// How long opening the device may take.
const OPEN_LIMIT: Duration = Duration::from_secs(30);

/// How much of what the worker printed last is kept for a report.
const LOG_KEPT: usize = 2048;

/// What came on the answer pipe: a frame, the end of the pipe, or bytes that are no frame.
type Frame = Result<Option<Vec<u8>>, String>;

struct Worker {
    child: std::process::Child,
    requests: BufWriter<std::io::PipeWriter>,
    answers: Receiver<Frame>,
    /// What the worker printed last, once it has ended (the log reader's result).
    log: std::thread::JoinHandle<String>,
}

impl Worker {
    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Kills the worker and gives what it printed last.
    fn stop_and_read_log(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The worker is gone, so the log's write end is closed and the reader ends.
        self.log.join().unwrap_or_default()
    }
}

/// A device in a worker process.
pub struct Isolated {
    program: PathBuf,
    cpu_only: bool,
    driver: Driver,
    /// The worker runs with the driver printing its code (`GALLIVM_DEBUG`).
    code: bool,
    /// The open device, described (its name among it).
    info: DeviceInfo,
    worker: RefCell<Option<Worker>>,
}

impl Isolated {
    /// Starts a worker (`program`, the shaderstep binary) and opens its device.
    pub fn open(program: PathBuf, cpu_only: bool) -> Result<Isolated, String> {
        Isolated::open_with(program, cpu_only, &Driver::System, false)
    }

    /// `open` on `driver`; with `code`, the driver prints the code it compiles (lavapipe from
    /// Mesa 25 on, under `GALLIVM_DEBUG`), for [`Isolated::code`].
    pub fn open_with(
        program: PathBuf,
        cpu_only: bool,
        driver: &Driver,
        code: bool,
    ) -> Result<Isolated, String> {
        let mut d = Isolated {
            program,
            cpu_only: cpu_only && !driver.any_device(),
            driver: driver.clone(),
            code,
            info: DeviceInfo::default(),
            worker: RefCell::new(None),
        };
        d.info = d.start().map_err(|e| e.to_string())?;
        Ok(d)
    }

    /// `open_with` with the shaderstep binary as the worker: `SHADERSTEP_GPU_WORKER` when set,
    /// else the running binary when it is shaderstep, else a shaderstep beside it or one
    /// directory up (a test binary in `target/debug/deps` drives the app in-process).
    pub fn open_here(driver: &Driver) -> Result<Isolated, String> {
        Isolated::open_with(worker_program()?, false, driver, false)
    }

    /// What the driver printed while it compiled and ran `request` (a run or a draw): its
    /// code, when the worker was opened with `code`. A refusal is an error.
    pub fn code(&self, request: Request, limit: Duration) -> Result<String, DeviceError> {
        match self.ask(&Request::Code(Box::new(request)), limit)? {
            Answer::Code(text) => Ok(text),
            _ => Err(DeviceError::Failed(
                "the GPU worker answered a code request with something else".into(),
            )),
        }
    }

    /// The open device, described.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// A new worker with its device open; the device, described.
    fn start(&self) -> Result<DeviceInfo, DeviceError> {
        let worker = spawn_worker(&self.program, &self.driver, self.code).map_err(|e| {
            DeviceError::Failed(format!(
                "cannot start the GPU worker {}: {e}",
                self.program.display()
            ))
        })?;
        *self.worker.borrow_mut() = Some(worker);
        match self.ask(
            &Request::Open {
                cpu_only: self.cpu_only,
                name: self.driver.name().to_string(),
            },
            OPEN_LIMIT,
        )? {
            Answer::Opened { info } => Ok(info),
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
        let sent = write_frame(&mut w.requests, &request.encode());
        let answer = match sent {
            Ok(()) => w.answers.recv_timeout(limit),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        };
        match answer {
            Ok(Ok(Some(bytes))) => match Answer::decode(&bytes) {
                Ok(Answer::Failed(why)) => Err(DeviceError::Failed(why)),
                Ok(a) => Ok(a),
                Err(why) => {
                    let log = slot.take().map(Worker::stop_and_read_log);
                    Err(DeviceError::Failed(protocol_error(&why, log)))
                }
            },
            Ok(Err(why)) => {
                let log = slot.take().map(Worker::stop_and_read_log);
                Err(DeviceError::Failed(protocol_error(&why, log)))
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Some(w) = slot.take() {
                    w.stop();
                }
                Err(DeviceError::Hung(limit))
            }
            Ok(Ok(None)) | Err(RecvTimeoutError::Disconnected) => {
                let mut w = slot.take().expect("started");
                let status = w.child.wait().ok();
                // The process is gone, so its log is closed and the reader ends.
                let said = w.log.join().unwrap_or_default();
                Err(DeviceError::Crashed(crash_cause(status, &said)))
            }
        }
    }
}

/// A protocol error's report, with the last line the worker printed.
fn protocol_error(why: &str, log: Option<String>) -> String {
    let last = log
        .as_deref()
        .and_then(|l| l.lines().rev().find(|l| !l.trim().is_empty()))
        .map(|l| format!("; it printed last: {}", l.trim()))
        .unwrap_or_default();
    format!("the GPU worker broke the protocol ({why}) and was stopped{last}")
}

/// Starts `program` as a worker: requests and answers on pipes handed over at [`REQUEST_FD`]
/// and [`ANSWER_FD`], its standard output and error into one log pipe read by a thread.
#[cfg(unix)]
fn spawn_worker(program: &std::path::Path, driver: &Driver, code: bool) -> std::io::Result<Worker> {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    // std makes its pipes close-on-exec: only what `pre_exec` puts at 3 and 4 reaches the
    // worker, and no other child started meanwhile inherits them.
    let (request_read, request_write) = std::io::pipe()?;
    let (answer_read, answer_write) = std::io::pipe()?;
    let (log_read, log_write) = std::io::pipe()?;
    let (from, to) = (request_read.as_raw_fd(), answer_write.as_raw_fd());
    let mut command = Command::new(program);
    command
        .arg(WORKER_ARG)
        .stdin(Stdio::null())
        .stdout(Stdio::from(log_write.try_clone()?))
        .stderr(Stdio::from(log_write));
    driver.apply(&mut command);
    if code {
        // Every shader compiled again, whatever the disk cache holds, and printed.
        command
            .env("GALLIVM_DEBUG", "ir,asm")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .env("MESA_GLSL_CACHE_DISABLE", "true");
    }
    // SAFETY: the closure runs in the child between fork and exec and calls only fcntl, dup2
    // and close, which are async-signal-safe; it allocates nothing. The fds it reads are open
    // in the parent (owned above, alive until `spawn` returns), so they are open in the child.
    unsafe {
        command.pre_exec(move || {
            // Out of the way first (at 10 or above): either fd may be 3 or 4 itself, and dup2
            // onto an fd that is the other one's would close it. dup2's copies are not
            // close-on-exec.
            let high_from = libc::fcntl(from, libc::F_DUPFD, 10);
            let high_to = libc::fcntl(to, libc::F_DUPFD, 10);
            if high_from < 0
                || high_to < 0
                || libc::dup2(high_from, REQUEST_FD) < 0
                || libc::dup2(high_to, ANSWER_FD) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
            libc::close(high_from);
            libc::close(high_to);
            Ok(())
        });
    }
    let child = command.spawn()?;
    // The parent's copies of the worker's ends go, so each pipe ends when the worker does.
    drop(command);
    drop((request_read, answer_write));
    let (tx, answers) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(answer_read);
        loop {
            let frame = read_frame(&mut r).map_err(|e| e.to_string());
            let end = !matches!(frame, Ok(Some(_)));
            if tx.send(frame).is_err() || end {
                break;
            }
        }
    });
    let log = std::thread::spawn(move || {
        let mut r = BufReader::new(log_read);
        let mut buf = [0u8; 512];
        let mut kept = String::new();
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            kept.push_str(&String::from_utf8_lossy(&buf[..n]));
            if kept.len() > LOG_KEPT {
                let cut = kept.len() - LOG_KEPT;
                let cut = (cut..kept.len())
                    .find(|&i| kept.is_char_boundary(i))
                    .unwrap_or(0);
                kept.drain(..cut);
            }
        }
        kept
    });
    Ok(Worker {
        child,
        requests: BufWriter::new(request_write),
        answers,
        log,
    })
}

#[cfg(not(unix))]
fn spawn_worker(_program: &std::path::Path, _: &Driver, _: bool) -> std::io::Result<Worker> {
    Err(std::io::Error::other(
        "running shaders in a worker process needs a Unix system",
    ))
}

/// Every device the loader finds with `driver` chosen, described by a worker process (a
/// driver may crash while it is loaded).
pub fn devices(program: &std::path::Path, driver: &Driver) -> Result<Vec<DeviceInfo>, String> {
    let d = Isolated {
        program: program.to_path_buf(),
        cpu_only: false,
        driver: driver.clone(),
        code: false,
        info: DeviceInfo::default(),
        worker: RefCell::new(None),
    };
    let worker = spawn_worker(program, driver, false)
        .map_err(|e| format!("cannot start the GPU worker {}: {e}", program.display()))?;
    *d.worker.borrow_mut() = Some(worker);
    match d.ask(&Request::Describe, OPEN_LIMIT) {
        Ok(Answer::Devices(list)) => Ok(list),
        Ok(_) => Err("the GPU worker answered something else than its devices".into()),
        Err(e) => Err(e.to_string()),
    }
}

impl Drop for Isolated {
    fn drop(&mut self) {
        if let Some(w) = self.worker.get_mut().take() {
            w.stop();
        }
    }
}

/// The shaderstep binary, to start as a worker: `SHADERSTEP_GPU_WORKER` when set, else the
/// running binary when it is shaderstep, else a shaderstep beside it or one directory up.
pub(crate) fn worker_program() -> Result<PathBuf, String> {
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

/// How a child ended: the signal (`SIGSEGV`) or its exit status.
pub(crate) fn ended_how(status: std::process::ExitStatus) -> String {
    match signal_of(status) {
        Some(n) => signal_name(n),
        None => match status.code() {
            Some(c) => format!("exit status {c}"),
            None => "ended".into(),
        },
    }
}

/// How the worker ended: the signal (`SIGSEGV`) or exit status, and the last line it printed.
fn crash_cause(status: Option<std::process::ExitStatus>, log: &str) -> String {
    let how = status.map_or_else(|| "ended".into(), ended_how);
    match log.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(last) => format!("{how}: {}", last.trim()),
        None => how,
    }
}

#[cfg(unix)]
fn signal_of(status: std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn signal_of(_: std::process::ExitStatus) -> Option<i32> {
    None
}

#[cfg(unix)]
fn signal_name(n: i32) -> String {
    let name = match n {
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGTERM => "SIGTERM",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGSYS => "SIGSYS",
        n => return format!("signal {n}"),
    };
    name.into()
}

#[cfg(not(unix))]
fn signal_name(n: i32) -> String {
    format!("signal {n}")
}

impl Device for Isolated {
    fn name(&self) -> &str {
        &self.info.name
    }

    fn version(&self) -> &str {
        &self.info.driver_info
    }

    fn run_buffers(
        &self,
        words: &[u32],
        layout: &Layout,
        groups: [u32; 3],
        buffers: &[Vec<u8>],
        limit: Duration,
    ) -> Result<Vec<Vec<u8>>, DeviceError> {
        let request = Request::run(words, layout, groups, buffers);
        match self.ask(&request, limit)? {
            Answer::Buffers(b) => Ok(b),
            _ => Err(DeviceError::Failed(
                "the GPU worker answered a run with something else".into(),
            )),
        }
    }

    fn draw_limited(&self, draw: &Draw, limit: Duration) -> Result<Rendered, DeviceError> {
        let request = Request::draw(draw);
        match self.ask(&request, limit)? {
            Answer::Rendered(r) => Ok(r),
            _ => Err(DeviceError::Failed(
                "the GPU worker answered a draw with something else".into(),
            )),
        }
    }
}

/// The worker's side: answers requests read from [`REQUEST_FD`] on [`ANSWER_FD`] until the
/// requests end. The device is opened by the first request; a request before it is answered
/// with a failure.
pub fn serve() -> i32 {
    let (mut input, mut output) = match protocol_files() {
        Ok(files) => files,
        Err(e) => {
            eprintln!("gpu worker: {e} (it is started by shaderstep, not by hand)");
            return 2;
        }
    };
    let mut gpu: Option<Gpu> = None;
    loop {
        let frame = match read_frame(&mut input) {
            Ok(Some(f)) => f,
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("gpu worker: {e}");
                return 1;
            }
        };
        let answer = match Request::decode(&frame) {
            Err(why) => Answer::Failed(why),
            Ok(Request::Describe) => match Gpu::devices() {
                Ok(list) => Answer::Devices(list),
                Err(e) => Answer::Failed(e),
            },
            Ok(Request::Open { cpu_only, name }) => match Gpu::open_named(cpu_only, &name) {
                Ok(mut g) => {
                    // The parent's limit decides when a run has hung: it kills this process.
                    g.timeout = Duration::from_secs(24 * 3600);
                    let info = g.info.clone();
                    gpu = Some(g);
                    Answer::Opened { info }
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

/// The pipes the parent handed over, taken as files.
#[cfg(unix)]
fn protocol_files() -> Result<(BufReader<std::fs::File>, BufWriter<std::fs::File>), String> {
    use std::os::fd::FromRawFd;
    for fd in [REQUEST_FD, ANSWER_FD] {
        // SAFETY: F_GETFD only reads the fd's flags; it fails (EBADF) on an fd that is not open.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
            return Err(format!("fd {fd} is not open"));
        }
    }
    // SAFETY: both fds are open (checked above), were put there for this process by the
    // parent (`spawn_worker`), and nothing else in this process takes ownership of them.
    let (input, output) = unsafe {
        (
            std::fs::File::from_raw_fd(REQUEST_FD),
            std::fs::File::from_raw_fd(ANSWER_FD),
        )
    };
    Ok((BufReader::new(input), BufWriter::new(output)))
}

#[cfg(not(unix))]
fn protocol_files() -> Result<(BufReader<std::fs::File>, BufWriter<std::fs::File>), String> {
    Err("the GPU worker needs a Unix system".into())
}

fn answer(gpu: &Gpu, request: Request) -> Answer {
    match request {
        Request::Open { .. } => Answer::Failed("the device is open already".into()),
        Request::Describe => match Gpu::devices() {
            Ok(list) => Answer::Devices(list),
            Err(e) => Answer::Failed(e),
        },
        Request::Code(inner) => match capture_stderr(|| answer(gpu, *inner)) {
            Ok((Answer::Failed(why), _)) => Answer::Failed(why),
            Ok((_, printed)) => Answer::Code(printed),
            Err(e) => Answer::Failed(format!("cannot capture what the driver prints: {e}")),
        },
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

/// Runs `f` with this process's standard error (fd 2, where drivers print) going to a file, and
/// gives what was printed meanwhile. A file, not a pipe: nothing needs to read while `f` runs.
#[cfg(unix)]
fn capture_stderr<T>(f: impl FnOnce() -> T) -> std::io::Result<(T, String)> {
    use std::io::{Seek, Write};
    use std::os::fd::AsRawFd;
    let path =
        std::env::temp_dir().join(format!("shaderstep-driver-code-{}.txt", std::process::id()));
    let mut file = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)?;
    let _ = std::fs::remove_file(&path);
    let _ = std::io::stderr().flush();
    // SAFETY: dup, dup2 and fflush on fds this process owns (2 is open: the parent gave it a
    // log pipe; `file` is alive until the end); fd 2 is put back before returning.
    let saved = unsafe {
        libc::fflush(std::ptr::null_mut());
        let saved = libc::dup(2);
        if saved < 0 || libc::dup2(file.as_raw_fd(), 2) < 0 {
            if saved >= 0 {
                libc::close(saved);
            }
            return Err(std::io::Error::last_os_error());
        }
        saved
    };
    let result = f();
    let _ = std::io::stderr().flush();
    // SAFETY: as above; `saved` is the original fd 2, closed once after it is put back.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::dup2(saved, 2);
        libc::close(saved);
    }
    file.rewind()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok((result, String::from_utf8_lossy(&bytes).into_owned()))
}

#[cfg(not(unix))]
fn capture_stderr<T>(f: impl FnOnce() -> T) -> std::io::Result<(T, String)> {
    Ok((f(), String::new()))
}
