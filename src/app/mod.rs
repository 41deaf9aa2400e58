//! The application: command line, and (with the TUI) state, actions and the event loop.

pub mod cli;
pub mod run;

use cli::{Cli, Command};

use crate::pipeline::registry;

/// Runs the parsed command line; returns the process exit status.
pub fn main(cli: Cli) -> color_eyre::Result<i32> {
    match cli.command {
        Some(Command::Run(args)) => Ok(run::run(&args)),
        Some(Command::Passes) => {
            println!("Passes:");
            for p in registry::all_passes() {
                println!("  {:<14} {}", p.name(), p.description());
            }
            println!("\nPresets:");
            for p in registry::PRESETS {
                println!("  {:<14} {}", p.name, p.description);
                println!("  {:<14} = {}", "", p.passes.join(","));
            }
            Ok(0)
        }
        None => {
            use clap::CommandFactory;
            Cli::command().print_help()?;
            Ok(2)
        }
    }
}
