//! The `shaderstep` binary: parse the command line, install color-eyre, hand over to `app`.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // The process shaders run on the driver in (`pipeline::gpu::isolated`), not a command.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == shaderstep::pipeline::gpu::isolated::WORKER_ARG)
    {
        return exit_code(shaderstep::pipeline::gpu::isolated::serve());
    }
    // The process a step is decompiled in (`pipeline::decompile`).
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == shaderstep::pipeline::decompile::WORKER_ARG)
    {
        let lang = std::env::args().nth(2);
        return exit_code(shaderstep::pipeline::decompile::serve(lang.as_deref()));
    }
    if let Err(e) = color_eyre::install() {
        eprintln!("Error: {e:?}");
        return ExitCode::FAILURE;
    }
    let cli = shaderstep::app::cli::Cli::parse();
    match shaderstep::app::main(cli) {
        Ok(code) => exit_code(code),
        Err(e) => {
            eprintln!("Error: {e:?}");
            ExitCode::FAILURE
        }
    }
}

/// A status the app computed as an `i32` (0–255 on every platform we run on).
fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
