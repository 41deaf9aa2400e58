//! The application: command line, and (with the TUI) state, actions and the event loop.

pub mod action;
pub mod answer;
pub mod batch;
pub mod cli;
pub mod commands;
pub mod config;
pub mod cost;
pub mod derive;
pub mod disk;
pub mod driver;
pub mod event_loop;
pub mod examples;
pub mod exec;
pub mod highlight;
pub mod input;
pub mod install;
pub mod keymap;
pub mod reduce;
pub mod replay;
pub mod run;
pub mod sources;
pub mod state;
pub mod summary_cache;
pub mod tree;
pub mod update;
pub mod watch;
pub mod worker;
pub mod workspace;

use cli::{Cli, Command};

/// The pipeline the TUI and replay run when none is named.
pub const DEFAULT_PRESET: &str = "O";

use crate::pipeline::registry;

/// A directory of the user's, as the XDG base directories say: `$VAR` when it is an absolute
/// path, else `~/under_home`; `None` without either.
pub(crate) fn user_dir(var: &str, under_home: &str) -> Option<std::path::PathBuf> {
    std::env::var_os(var)
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(under_home)))
}

/// Writes to standard output; a reader that went away (`shaderstep ops | head`) ends the
/// output quietly instead of panicking.
fn print_quietly(text: &str) {
    print_quietly_bytes(text.as_bytes());
}

fn print_quietly_bytes(bytes: &[u8]) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(bytes);
}

/// Runs the parsed command line; returns the process exit status.
pub fn main(mut cli: Cli) -> color_eyre::Result<i32> {
    match cli.command {
        Some(Command::Run(args)) => Ok(run::run(&args)),
        Some(Command::Passes) => {
            let passes = registry::all_passes();
            let w = passes.iter().map(|p| p.name().len()).max().unwrap_or(0);
            let mut text = String::from("Passes:\n");
            for p in &passes {
                text += &format!("  {:<w$} {}\n", p.name(), p.description());
            }
            text += "\nPresets:\n";
            for p in registry::PRESETS {
                text += &format!("  {:<w$} {}\n", p.name, p.description);
                text += &format!("  {:<w$} = {}\n", "", p.passes.join(","));
            }
            print_quietly(&text);
            Ok(0)
        }
        Some(Command::Replay(args)) => replay_command(&args),
        Some(Command::Cost(args)) => Ok(cost::run(&args)),
        Some(Command::Reduce(args)) => Ok(reduce::run(&args)),
        Some(Command::Exec(args)) => Ok(exec::run(&args)),
        Some(Command::Driver(args)) => Ok(driver::run(&args)),
        Some(Command::Drivers(args)) => Ok(driver::list(&args)),
        Some(Command::Completions(args)) => {
            print_quietly_bytes(&install::completions(args.shell));
            Ok(0)
        }
        Some(Command::Man) => {
            print_quietly(&install::man());
            Ok(0)
        }
        Some(Command::Ops(args)) => {
            use crate::ir::ops;
            let text = if args.json {
                ops::to_json()
            } else if args.markdown {
                ops::to_markdown()
            } else {
                ops::all()
                    .iter()
                    .map(|o| {
                        format!(
                            "0x{:08x}  {:<40} {:<12} {}\n",
                            o.opcode,
                            o.name,
                            o.class.name(),
                            o.attrs.names().join(" ")
                        )
                    })
                    .collect()
            };
            print_quietly(&text);
            Ok(0)
        }
        None => {
            // `--steps`: the first module dumped is the input, the others its steps.
            // `--steps-cmd`: its $OUT goes when the TUI closes.
            let opened =
                crate::pipeline::dumps::from_flags(cli.steps.as_deref(), cli.steps_cmd.as_deref());
            let (mut paths, dumped, command_out) = match opened {
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(1);
                }
                Ok(Some((input, dumps, out))) => (vec![input], Some(dumps), out),
                Ok(None) => (cli.inputs, None, None),
            };
            // `--steps-cmd … --watch SOURCES`: the sources are not listed; a save runs the
            // command again.
            let steps_command = match (&cli.steps_cmd, &command_out) {
                (Some(command), Some(out)) if !cli.watch.is_empty() => {
                    if let Some(p) = cli.watch.iter().find(|p| !p.exists()) {
                        eprintln!("error: --watch {}: no such file or directory", p.display());
                        return Ok(1);
                    }
                    Some(event_loop::StepsCommand {
                        command: command.clone(),
                        out: out.dir.clone(),
                        input: paths[0].clone(),
                        sources: std::mem::take(&mut cli.watch),
                    })
                }
                _ => None,
            };
            paths.extend(cli.watch);
            if paths.is_empty() {
                match examples::default_example() {
                    Ok(p) => paths.push(p),
                    Err(e) => {
                        eprintln!("error: the bundled example: {e}");
                        return Ok(1);
                    }
                }
            }
            for p in &paths {
                if !p.exists() {
                    eprintln!("error: {}: no such file or directory", p.display());
                    return Ok(1);
                }
            }
            let mut inputs = event_loop::Inputs::from_paths(paths);
            if cli.stages.pipeline {
                if !inputs.roots.is_empty() || inputs.files.len() < 2 {
                    eprintln!(
                        "error: --pipeline needs the stages of a pipeline: two files or more"
                    );
                    return Ok(2);
                }
                match run::stage_link(&cli.stages) {
                    Ok(link) => inputs.stages = Some(link),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return Ok(1);
                    }
                }
            } else if cli.stages.state.is_some() || cli.stages.link_state.is_some() {
                eprintln!(
                    "error: --state and --link-state are pipeline states: use them with --pipeline"
                );
                return Ok(2);
            }
            let config = match config::load(&inputs.roots, &inputs.files) {
                Ok((config, _)) => config,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(1);
                }
            };
            if cli.external.is_some() && cli.stages.pipeline {
                eprintln!("error: --external runs spirv-opt on each input; it does not link --pipeline stages");
                return Ok(2);
            }
            let pipeline = match (&cli.external, dumped) {
                (_, Some(dumps)) => Ok(crate::pipeline::Pipeline::dumps(dumps)),
                (Some(command), None) => config
                    .external_tool(command)
                    .map(crate::pipeline::Pipeline::external),
                (None, None) => {
                    crate::pipeline::Pipeline::from_flags(cli.passes.as_deref(), &cli.preset)
                }
            };
            let pipeline = match pipeline {
                Ok(p) => p
                    .with_checks(cli.checks.into())
                    .with_experimental(cli.experimental),
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(2);
                }
            };
            inputs.external_path = config.external_path.clone();
            inputs.keys = config.keys.clone();
            inputs.source_paths = config.source_paths.clone();
            inputs.driver_flag = cli.driver.driver.clone();
            inputs.driver = match cli.driver.resolve(&config) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(2);
                }
            };
            inputs.history_file = event_loop::history_file();
            if !cli.no_cache {
                inputs.summary_cache = summary_cache::default_dir();
            }
            inputs.front_ends = config.front_ends;
            inputs.steps_command = steps_command;
            {
                use std::io::IsTerminal;
                if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
                    eprintln!("error: the TUI needs a terminal (stdin and stdout are not both one); `shaderstep run` and `shaderstep replay` work without one");
                    return Ok(1);
                }
            }
            event_loop::run_terminal(inputs, pipeline, cli.compare.clone())?;
            Ok(0)
        }
    }
}

fn replay_command(args: &cli::ReplayArgs) -> color_eyre::Result<i32> {
    let script = match std::fs::read_to_string(&args.script) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}: cannot read: {e}", args.script.display());
            return Ok(1);
        }
    };
    let opts = replay::Options {
        size: args.size,
        color: color_enabled(),
    };
    match replay::run_script(&script, opts) {
        Ok(snapshots) => {
            if !snapshots.is_empty() {
                std::fs::create_dir_all(&args.out)?;
            }
            for s in &snapshots {
                std::fs::write(args.out.join(format!("{}.txt", s.name)), &s.text)?;
                std::fs::write(args.out.join(format!("{}.svg", s.name)), &s.svg)?;
            }
            println!(
                "{}: ok, {} snapshot(s) in {}",
                args.script.display(),
                snapshots.len(),
                args.out.display()
            );
            Ok(0)
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.script.display());
            Ok(1)
        }
    }
}

/// Whether colour output is wanted (the `NO_COLOR` convention).
pub fn color_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
