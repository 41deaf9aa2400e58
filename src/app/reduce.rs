//! `shaderstep reduce`: a shader reduced to the smallest one that still shows a property, with
//! a progress line on a terminal, the result written as SPIR-V and as assembly beside it.

use std::io::IsTerminal;
use std::path::PathBuf;

use super::cli::ReduceArgs;
use crate::pipeline::reduce::{self, Property};
use crate::pipeline::Pipeline;

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
    let property: Property = args.until.parse()?;
    let loaded = crate::pipeline::input::load_with(&args.input, &config.front_ends)
        .map_err(|e| e.to_string())?;
    // A driver only for the properties that run shaders, in a worker process.
    let worker = match property {
        Property::Differs | Property::Crash => {
            Some(crate::pipeline::gpu::isolated::Isolated::open_here(false)?)
        }
        _ => None,
    };
    let gpu = worker
        .as_ref()
        .map(|w| w as &dyn crate::pipeline::gpu::Device);
    let output = args.output.clone().unwrap_or_else(|| {
        let mut name = args.input.clone().into_os_string();
        name.push(".reduced.spv");
        PathBuf::from(name)
    });
    // Candidates a command judges are written here, one file per lane.
    let scratch_dir =
        std::env::temp_dir().join(format!("shaderstep-reduce-{}", std::process::id()));
    std::fs::create_dir_all(&scratch_dir).map_err(|e| format!("{}: {e}", scratch_dir.display()))?;
    let scratch = scratch_dir.join("candidate.spv");
    let test = reduce::prepare(
        &pipeline,
        property,
        args.step.as_deref(),
        &loaded.words,
        gpu,
        scratch.clone(),
    )?;
    let start = Pipeline::from_names(&["lower"])?
        .run(std::sync::Arc::new(loaded.words.clone()))
        .final_module()
        .map(|m| (**m).clone())
        .ok_or("the input does not read")?;
    let about = match test.step {
        Some(k) => {
            let run = pipeline.run(std::sync::Arc::new(loaded.words.clone()));
            let steps = crate::pipeline::semantic::pass_steps(&run);
            format!(
                " at step {k} ({})",
                steps.get(k).map_or("?", |&i| run.steps[i].pass)
            )
        }
        None => String::new(),
    };
    let terminal = std::io::stderr().is_terminal();
    // Ctrl-C stops the reduction: the smallest shader so far is written.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone());
    let reduced = reduce::reduce(
        &test,
        start,
        &mut |p| {
            if terminal {
                eprint!(
                    "\rreducing: {} tried, {} kept, {} instructions   ",
                    p.tried, p.accepted, p.instructions
                );
            }
        },
        &|| stop.load(std::sync::atomic::Ordering::Relaxed),
    );
    let _ = std::fs::remove_dir_all(&scratch_dir);
    if terminal {
        eprintln!();
    }
    let reduced = reduced?;
    let summary = reduce::write(&reduced, &output)?;
    println!("{}{about}: {summary}", args.input.display());
    Ok(())
}
