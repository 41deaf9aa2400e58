//! `shaderstep reduce`: a shader reduced to the smallest one that still shows a property, with
//! a progress line on a terminal, the result written as SPIR-V and as assembly beside it.

use std::io::IsTerminal;

use super::cli::ReduceArgs;
use crate::pipeline::reduce::{self, Property};

/// Exit status: 0 when the shader was reduced, 1 when it could not be.
pub fn run(args: &ReduceArgs) -> i32 {
    match run_inner(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {}: {e}", args.input.display());
            1
        }
    }
}

fn run_inner(args: &ReduceArgs) -> Result<(), String> {
    let config = super::config::load(&[], std::slice::from_ref(&args.input))?.0;
    let pipeline = args.pipeline.pipeline(&config)?;
    let driver = args.driver.resolve(&config)?;
    let property: Property = args.until.parse()?;
    // Dumps are what another compiler made of its own input: a candidate does not change
    // them, so only a command, which judges the candidate itself, means anything.
    if args.pipeline.steps.is_some() && !matches!(property, Property::Command(_)) {
        return Err(format!(
            "--steps are dumps another compiler wrote, which a reduced candidate does not change: reduce them with a command (--until 'COMMAND'), not --until {}",
            args.until
        ));
    }
    let loaded = crate::pipeline::input::load_with(&args.input, &config.front_ends)
        .map_err(|e| e.to_string())?;
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| reduce::default_output(&args.input));
    if output.exists() && !args.force {
        return Err(format!(
            "{} exists: --force overwrites it, or -o names another file",
            output.display()
        ));
    }
    let terminal = std::io::stderr().is_terminal();
    // Ctrl-C stops the reduction: the smallest shader so far is written.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone());
    let summary = reduce::reduce_to_file(
        &pipeline,
        &driver,
        property,
        args.step.as_deref(),
        &loaded.words,
        &output,
        &mut |p| {
            if terminal {
                eprint!("\r{p}   ");
            }
        },
        &|| stop.load(std::sync::atomic::Ordering::Relaxed),
    );
    if terminal {
        eprintln!();
    }
    println!("{}: {}", args.input.display(), summary?);
    Ok(())
}
