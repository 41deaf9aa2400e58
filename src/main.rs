//! The `shaderstep` binary. Its own C `main` rather than Rust's: a build runs it once per
//! shader, and Rust's start-up asks glibc where the main thread's stack is, which reads and
//! parses /proc/self/maps (a twentieth of a small shader's whole run) only to turn a stack
//! overflow into a message instead of a plain segmentation fault. The rest of that start-up
//! is kept: SIGPIPE ignored (a write to a child that exited is an error, not our death), and
//! a panic ends the process with status 101.
// The test harness brings its own `main`.
#![cfg_attr(not(test), no_main)]

use clap::Parser;
use std::ffi::c_int;

#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: c_int, _argv: *const *const std::ffi::c_char) -> c_int {
    #[cfg(unix)]
    // SAFETY: called before any other thread exists; SIG_IGN is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // The panic hook has printed the message; the status is what Rust's own start-up gives.
    let code = std::panic::catch_unwind(start).unwrap_or(101);
    // Not a return: `exit` flushes Rust's buffered stdout first, as Rust's start-up would.
    std::process::exit(code)
}

#[cfg_attr(test, allow(dead_code))]
fn start() -> c_int {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // The process shaders run on the driver in (`pipeline::gpu::isolated`), not a command.
    if args
        .get(1)
        .is_some_and(|a| a == shaderstep::pipeline::gpu::isolated::WORKER_ARG)
    {
        return shaderstep::pipeline::gpu::isolated::serve();
    }
    if let Err(e) = color_eyre::install() {
        eprintln!("Error: {e:?}");
        return 1;
    }
    if let Some(run) = shaderstep::app::cli::quick_run_args(&args) {
        return shaderstep::app::run::run(&run);
    }
    let cli = shaderstep::app::cli::Cli::parse_from(args);
    match shaderstep::app::main(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("Error: {e:?}");
            1
        }
    }
}
