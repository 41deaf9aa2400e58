use clap::Parser;

fn main() -> color_eyre::Result<()> {
    color_eyre::install()?;
    let cli = shaderstep::app::cli::Cli::parse();
    let code = shaderstep::app::main(cli)?;
    std::process::exit(code);
}
