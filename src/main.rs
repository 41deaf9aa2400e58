use clap::Parser;

fn main() -> color_eyre::Result<()> {
    // The process shaders run on the driver in (`pipeline::gpu::isolated`), not a command.
    if std::env::args().nth(1).as_deref() == Some(shaderstep::pipeline::gpu::isolated::WORKER_ARG) {
        std::process::exit(shaderstep::pipeline::gpu::isolated::serve());
    }
    color_eyre::install()?;
    let cli = shaderstep::app::cli::Cli::parse();
    let code = shaderstep::app::main(cli)?;
    std::process::exit(code);
}
