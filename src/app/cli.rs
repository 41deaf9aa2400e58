//! The command line.

use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "shaderstep",
    version,
    about = "Step through a shader compiler's passes: SPIR-V in, IR after every pass, SPIR-V out",
    long_about = None,
    args_conflicts_with_subcommands = true,
    after_help = TUI_EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Shaders or directories to open in the TUI (default: the bundled example). A directory
    /// lists every shader under it; edits on disk reload them.
    pub inputs: Vec<PathBuf>,

    /// Directories to watch: every shader under them is listed, and files that are saved,
    /// created, renamed or deleted update the list and re-run their pipelines. With
    /// `--steps-cmd`, the sources (files or directories) whose saves run the command again.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    pub watch: Vec<PathBuf>,

    /// Named pipeline to run in the TUI (see `shaderstep passes`).
    #[arg(long, default_value = super::DEFAULT_PRESET, conflicts_with = "passes", value_parser = preset_names())]
    pub preset: String,

    /// Comma-separated passes to run in the TUI instead of a preset.
    #[arg(long, value_delimiter = ',', value_parser = pass_name)]
    pub passes: Option<Vec<String>>,

    /// Step through an external optimizer instead of our passes: `--external 'spirv-opt -O'`
    /// (any spirv-opt flags; a bare `--external` takes `[external] flags` from shaderstep.toml,
    /// or -O). Its `--print-all` output becomes one step per pass, named `spirv-opt:PASS`.
    #[arg(long, value_name = "COMMAND", num_args = 0..=1, default_missing_value = "", conflicts_with_all = ["preset", "passes"])]
    pub external: Option<String>,

    /// Another compiler's steps instead of our passes: the modules it dumped after its passes
    /// (.spv or .spvasm files, or directories of them, taken in natural order of their names).
    /// The first is the input; each other is a step named after its file less a number prefix
    /// (`01-inline.spv` is `inline`).
    #[arg(long, value_name = "DIR|FILE", num_args = 1.., conflicts_with_all = ["inputs", "watch", "preset", "passes", "external"])]
    pub steps: Option<Vec<PathBuf>>,

    /// A command that writes another compiler's dumps, or a `--print-all` log, to `$OUT` (a
    /// fresh directory), opened as `--steps` opens them; a command that writes nothing there
    /// but prints a log (`spirv-opt --print-all`, `dxc -fspv-print-all`) has it read. With
    /// `--watch SOURCES`, a save there runs it again and the steps update in place.
    #[arg(long, value_name = "COMMAND", conflicts_with_all = ["steps", "inputs", "preset", "passes", "external"])]
    pub steps_cmd: Option<String>,

    /// Run a second pipeline beside the first on the same inputs and diff against its steps
    /// (`:compare`): a preset, a comma-separated pass list, or 'spirv-opt FLAGS'. The outputs
    /// are diffed first; `:diff bN M` diffs its step N against our step M.
    #[arg(long, value_name = "PIPELINE")]
    pub compare: Option<String>,

    /// Accept experimental ops (FeatureID 0x8000) and let passes emit them; modules that use
    /// them are marked PREVIEW.
    #[arg(long)]
    pub experimental: bool,

    /// Run every shader of the watched directories, rather than taking the summaries of the
    /// ones whose bytes have not changed since the last session from
    /// `~/.cache/shaderstep/summaries` (`$XDG_CACHE_HOME` if set), nor keeping this
    /// session's there.
    #[arg(long)]
    pub no_cache: bool,

    #[command(flatten)]
    pub stages: PipelineArgs,

    #[command(flatten)]
    pub checks: CheckArgs,

    #[command(flatten)]
    pub driver: DriverChoice,
}

/// A subcommand's arguments built only when clap enters that subcommand (`Command::defer`):
/// `shaderstep run` builds `run`'s arguments, not those of every other command, and
/// `--version` none.
#[derive(Debug)]
pub struct Deferred<T>(pub T);

impl<T> std::ops::Deref for Deferred<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }
    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }
}

impl<T: clap::Args> clap::Args for Deferred<T> {
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(T::augment_args)
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(T::augment_args_for_update)
    }
}

/// The presets `--preset` takes: an unknown name is a usage error (exit 2) listing them, and
/// shell completions offer them.
fn preset_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        crate::pipeline::registry::PRESETS.iter().map(|p| p.name),
    )
}

/// A name `--passes` takes: an unknown one is a usage error (exit 2), as an unknown preset is.
fn lang_name(name: &str) -> Result<crate::pipeline::decompile::Lang, String> {
    crate::pipeline::decompile::Lang::parse(name)
        .ok_or_else(|| format!("'{name}' is not glsl, hlsl, msl or wgsl"))
}

fn pass_name(name: &str) -> Result<String, String> {
    match crate::pipeline::registry::pass(name) {
        Some(_) => Ok(name.to_string()),
        None => Err("unknown pass (run `shaderstep passes` for the list)".into()),
    }
}

const TUI_EXAMPLES: &str = "\
Examples:
  shaderstep
  shaderstep shaders/ --preset O-size
  shaderstep lighting.frag --compare 'spirv-opt -O'";

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a pipeline without a UI: print the IR after every pass or write the resulting SPIR-V.
    #[command(after_help = RUN_EXAMPLES)]
    Run(Deferred<RunArgs>),
    /// List every pass and preset with a one-line description.
    #[command(after_help = PASSES_EXAMPLES)]
    Passes,
    /// Print the op table: every op with its opcode, class, overloads, attributes and docs.
    #[command(after_help = OPS_EXAMPLES)]
    Ops(Deferred<OpsArgs>),
    /// Drive the TUI from a script without a terminal: assert on the screen, write snapshots
    /// (text and SVG).
    #[command(long_about = REPLAY_HELP, after_help = REPLAY_EXAMPLES)]
    Replay(Deferred<ReplayArgs>),
    /// What each step costs the GPU: register pressure (peak 32-bit components live) and the
    /// instruction mix, per shader and step.
    #[command(after_help = COST_EXAMPLES)]
    Cost(Deferred<CostArgs>),
    /// Reduce a shader to the smallest one that still shows what a bisect found: a step
    /// spirv-val rejects, a pass that fails, a step whose results differ on the driver or that
    /// crashes it, or what a command says is interesting.
    #[command(after_help = REDUCE_EXAMPLES)]
    Reduce(Deferred<ReduceArgs>),
    /// Run a step in shaderstep's interpreter on the inputs the driver harness makes (a compute
    /// shader dispatched, a vertex or fragment shader drawn): the outputs, one invocation's
    /// values in program order, undefined behaviour found, and the first value that differs
    /// from another step.
    #[command(after_help = EXEC_EXAMPLES)]
    Exec(Deferred<ExecArgs>),
    /// The Vulkan driver's own code for a step: the NIR, LLVM IR and x86 assembly lavapipe
    /// (Mesa 25 on) compiles it to, or their counts; run once in a worker process.
    #[command(after_help = DRIVER_EXAMPLES)]
    Driver(Deferred<DriverArgs>),
    /// List the Vulkan devices found: name, driver and version, subgroup size, and what each
    /// can show of the code it compiles.
    #[command(after_help = DRIVERS_EXAMPLES)]
    Drivers(Deferred<DriversArgs>),
    /// Print a completion script for a shell: subcommands, options, presets.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(Deferred<CompletionsArgs>),
    /// Print the man page (roff): the command and every subcommand with its options.
    #[command(after_help = MAN_EXAMPLES)]
    Man,
}

const RUN_EXAMPLES: &str = "\
Examples:
  shaderstep run shader.spv --preset O -o out.spv
  shaderstep run lighting.frag --preset memory --print-after-all
  shaderstep run shaders/ --preset O -o out/ -j 8";

const PASSES_EXAMPLES: &str = "\
Examples:
  shaderstep passes
  shaderstep run shader.spv --passes inline,sroa,mem2reg --print-after-all";

const OPS_EXAMPLES: &str = "\
Examples:
  shaderstep ops
  shaderstep ops --json
  shaderstep ops --markdown > docs/ops.md";

const REPLAY_EXAMPLES: &str = "\
Examples:
  shaderstep replay smoke.replay
  shaderstep replay tour.replay --out shots --size 160x48";

const COST_EXAMPLES: &str = "\
Examples:
  shaderstep cost lighting.frag --preset O
  shaderstep cost shaders/ --json
  shaderstep cost lighting.frag --listing";

const REDUCE_EXAMPLES: &str = "\
Examples:
  shaderstep reduce shader.spv --preset O --until differs
  shaderstep reduce shader.spv --passes gvn,adce --until invalid --step gvn -o small.spv
  shaderstep reduce shader.spv --until ./interesting.sh
  shaderstep reduce shader.spv --until 'spirv-dis \"$1\" | grep -q OpLoopMerge'";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  shaderstep completions bash > ~/.local/share/bash-completion/completions/shaderstep
  shaderstep completions zsh > ~/.zfunc/_shaderstep
  shaderstep completions fish > ~/.config/fish/completions/shaderstep.fish";

const MAN_EXAMPLES: &str = "\
Examples:
  shaderstep man > ~/.local/share/man/man1/shaderstep.1
  shaderstep man | man -l -";

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

const EXEC_EXAMPLES: &str = "\
Examples:
  shaderstep exec blur.comp --step last --invocation 5,0,0
  shaderstep exec blur.comp --step ccp --against-step 0 --json
  shaderstep exec phong.frag --pixel 12,7 --check-driver
  shaderstep exec lit.vert lit.frag --step last --check-driver";

const DRIVER_EXAMPLES: &str = "\
Examples:
  shaderstep driver blur.comp --show asm --driver \"$(scripts/lavapipe.sh | tail -1)\"
  shaderstep driver phong.frag --step 0 --show stats
  shaderstep driver lit.vert --external 'spirv-opt -O' --step last --show nir";

const DRIVERS_EXAMPLES: &str = "\
Examples:
  shaderstep drivers
  shaderstep drivers --driver ~/.cache/shaderstep/lavapipe-25.0.7-2~bpo12+1/lvp_icd.json";

// Which Vulkan driver runs shaders. (A plain comment, as for `PipelineChoice`.)
#[derive(clap::Args, Debug, Default)]
pub struct DriverChoice {
    /// The Vulkan driver that runs shaders: an ICD file (that driver alone is loaded, in the
    /// worker process) or a name the device's name, driver name or version contains
    /// (`llvmpipe`, `radv`, `Mesa 25`). Also `SHADERSTEP_DRIVER` and `[driver]` in
    /// shaderstep.toml. Default: lavapipe when there is one, else the first device.
    #[arg(long, value_name = "ICD.json|NAME")]
    pub driver: Option<String>,
}

impl DriverChoice {
    /// The driver chosen: `--driver`, else `SHADERSTEP_DRIVER`, else `[driver]` of `config`.
    pub fn resolve(
        &self,
        config: &super::config::Config,
    ) -> Result<crate::pipeline::gpu::Driver, String> {
        crate::pipeline::gpu::Driver::resolve(self.driver.as_deref(), config.driver.as_deref())
    }
}

#[derive(clap::Args, Debug)]
pub struct DriverArgs {
    /// The shader (as `run` takes it).
    pub input: PathBuf,
    #[command(flatten)]
    pub pipeline: PipelineChoice,
    /// The step: a pass number (0 is the input), the first step of a pass of that name, or
    /// `last` (the default).
    #[arg(long, value_name = "STEP")]
    pub step: Option<String>,
    /// What to print: the final NIR, the LLVM IR, the x86 assembly, or their counts.
    #[arg(long, value_name = "WHAT", default_value = "asm", value_parser = ["nir", "llvm", "asm", "stats"])]
    pub show: String,
    /// The entry point to compile (default: the first compute one, else the vertex and
    /// fragment ones).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// Also the driver's helpers (texture sampling functions and the like), after the
    /// shader's own code.
    #[arg(long)]
    pub helpers: bool,
    #[command(flatten)]
    pub choice: DriverChoice,
}

#[derive(clap::Args, Debug)]
pub struct DriversArgs {
    #[command(flatten)]
    pub choice: DriverChoice,
}

#[derive(clap::Args, Debug)]
pub struct ExecArgs {
    /// The shader (as `run` takes it).
    pub input: PathBuf,
    /// A fragment shader to draw the input, a vertex shader, with (as a pipeline links
    /// them): each goes through the pipeline on its own, and the same step of both is drawn.
    pub fragment: Option<PathBuf>,
    #[command(flatten)]
    pub pipeline: PipelineChoice,
    /// The step to run: a pass number (0 is the input), the first step of a pass of that
    /// name, or `last`. Default: the input.
    #[arg(long, value_name = "STEP")]
    pub step: Option<String>,
    /// The invocation whose values are printed, by global invocation id (default 0,0,0).
    #[arg(long, value_name = "X,Y,Z", conflicts_with_all = ["pixel", "vertex"])]
    pub invocation: Option<String>,
    /// A draw: the fragment whose values are printed, by pixel (the last one drawn there;
    /// default: the first fragment drawn).
    #[arg(long, value_name = "X,Y", conflicts_with = "vertex")]
    pub pixel: Option<String>,
    /// A draw: the vertex whose values are printed (its index in the first instance).
    #[arg(long, value_name = "N")]
    pub vertex: Option<u32>,
    /// The entry point to run (default: the first compute one, else the vertex and fragment
    /// ones drawn).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// Another step of the same run to compare with, value by value.
    #[arg(long, value_name = "STEP", conflicts_with = "against")]
    pub against_step: Option<String>,
    /// Another shader to compare with, value by value (the same step of its run).
    #[arg(long, value_name = "FILE")]
    pub against: Option<PathBuf>,
    /// Run the same step on the Vulkan driver (in a worker process) with the same inputs and
    /// compare every buffer, image and attachment, typed: integers exactly, floats within
    /// 2^-18 (denormals may flush).
    #[arg(long)]
    pub check_driver: bool,
    #[command(flatten)]
    pub driver: DriverChoice,
    /// One JSON object: outputs, values, findings and the first difference.
    #[arg(long)]
    pub json: bool,
    /// Instructions executed, in all invocations together, before the run stops.
    #[arg(long, value_name = "N", default_value_t = 20_000_000)]
    pub budget: u64,
    /// Invocations of a subgroup in a compute dispatch [default: the driver's under
    /// --check-driver, else 8, lavapipe's on x86-64 with AVX2].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=128))]
    pub subgroup_size: Option<u32>,
}

// Which pipeline a command runs: a preset, a pass list or an external optimizer. (A plain
// comment: a doc comment here would become the about text of every command that flattens it.)
#[derive(clap::Args, Debug)]
pub struct PipelineChoice {
    /// Named pipeline to run (see `shaderstep passes`).
    #[arg(long, default_value = "O", conflicts_with = "passes", value_parser = preset_names())]
    pub preset: String,
    /// Comma-separated passes to run instead of a preset.
    #[arg(long, value_delimiter = ',', value_parser = pass_name)]
    pub passes: Option<Vec<String>>,
    /// spirv-opt's passes as the steps: `--external 'spirv-opt -O'`.
    #[arg(long, value_name = "COMMAND", conflicts_with_all = ["preset", "passes"])]
    pub external: Option<String>,
    /// Another compiler's dumps after its passes as the steps after the input (files, a
    /// directory of them in natural order, or a `--print-all` log whose first module is
    /// its input); every file is a step (the input's own dump among them changes nothing).
    #[arg(long, value_name = "DIR|FILE", num_args = 1.., conflicts_with_all = ["preset", "passes", "external"])]
    pub steps: Option<Vec<PathBuf>>,
}

impl PipelineChoice {
    /// The pipeline chosen, its external tool found through `config`.
    pub fn pipeline(
        &self,
        config: &super::config::Config,
    ) -> Result<crate::pipeline::Pipeline, String> {
        use crate::pipeline::Pipeline;
        if let Some(paths) = &self.steps {
            return Ok(Pipeline::dumps(crate::pipeline::dumps::steps_after(paths)?));
        }
        match &self.external {
            Some(command) => Ok(Pipeline::external(config.external_tool(command)?)),
            None => Pipeline::from_flags(self.passes.as_deref(), &self.preset),
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct ReduceArgs {
    /// The shader (as `run` takes it).
    pub input: PathBuf,
    #[command(flatten)]
    pub pipeline: PipelineChoice,
    /// What the reduced shader must still show: `invalid` (the step's output is rejected by
    /// spirv-val), `differs` (its results differ on the driver), `crash` (the driver crashes
    /// or hangs on it), `fails` (the pass fails with the same error), or 'COMMAND' (exits 0
    /// when the candidate, whose path it gets last, or as `$1` where it says `$1`, is still
    /// interesting: spirv-reduce's convention; a script without `#!` runs through `sh`).
    #[arg(long, value_name = "PROPERTY")]
    pub until: String,
    /// The step it is about: its pass number (0 is the first pass) or the first step of a pass
    /// of that name. Default: the step the matching bisect finds.
    #[arg(long, value_name = "STEP")]
    pub step: Option<String>,
    /// Where the reduced shader goes (default: NAME.reduced.spv beside the input, or
    /// NAME.reduced-2.spv and on if that exists); its disassembly goes beside it as .spvasm.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Overwrite the output file if it exists.
    #[arg(short, long)]
    pub force: bool,
    #[command(flatten)]
    pub driver: DriverChoice,
}

#[derive(clap::Args, Debug)]
pub struct CostArgs {
    /// Shaders or directories (every shader under them, as `run DIR` finds them).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub pipeline: PipelineChoice,
    /// One JSON object per shader and step: step, pass, instructions, max_pressure, mix.
    #[arg(long, conflicts_with = "listing")]
    pub json: bool,
    /// The last step's functions, each line after the pressure after it, and their peaks.
    #[arg(long)]
    pub listing: bool,
    /// Also the driver's figures per step: the instructions of the code the Vulkan driver
    /// compiles it to (x86 on lavapipe 25), each distinct step compiled once, in a worker
    /// process. A bare `--driver` takes `SHADERSTEP_DRIVER` or `[driver]` of shaderstep.toml.
    #[arg(long, value_name = "ICD.json|NAME", num_args = 0..=1, default_missing_value = "", conflicts_with = "listing")]
    pub driver: Option<String>,
}

const REPLAY_HELP: &str = "\
Drive the TUI from a script without a terminal, through the same state, key handling and views
as the interactive app, rendered off-screen. A failed `expect` exits with status 1 and prints the
screen.

Script lines (`#` starts a comment; `$TMP` is a scratch directory for the run):
  pipeline [--experimental] PRESET|a,b,c   choose the pipeline (before `open`)
  open PATH...                          load inputs
  size WIDTHxHEIGHT                     resize the screen
  key KEY | keys KEYS                   press keys, in <C-d> notation: jjd<Enter>
  cmd :COMMAND                          run a command as typed after `:`
  click COL ROW | drag COL ROW | wheel-up COL ROW | wheel-down COL ROW
  write PATH <<EOF ... EOF              save a file (temporary file, then rename)
  touch PATH | rm PATH | mv FROM TO
  wait-reload                           wait until the watcher reloads an input
  expect \"TEXT\" | expect-not \"TEXT\"     check the rendered screen
  snapshot NAME                         write NAME.txt and NAME.svg into --out";

#[derive(clap::Args, Debug)]
pub struct OpsArgs {
    /// As JSON: {"ops": [{"name", "opcode", "feature_id", "class", "overloads", "attributes", "doc"}, …]}.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// As the markdown reference page (docs/ops.md is this output).
    #[arg(long)]
    pub markdown: bool,
}

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The replay script.
    pub script: PathBuf,
    /// Directory for `snapshot` output (NAME.txt and NAME.svg).
    #[arg(long, default_value = "replay-out")]
    pub out: PathBuf,
    /// Screen size, e.g. 120x36 (a `size` line in the script overrides it).
    #[arg(long, default_value = "120x36", value_parser = parse_size)]
    pub size: (u16, u16),
}

fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let (w, h) = s
        .split_once('x')
        .ok_or("expected WIDTHxHEIGHT, e.g. 120x36")?;
    let w = w.parse().map_err(|_| format!("bad width '{w}'"))?;
    let h = h.parse().map_err(|_| format!("bad height '{h}'"))?;
    Ok((w, h))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// SPIR-V binary.
    Spv,
    /// SPIR-V assembly, as spirv-dis prints it.
    Spvasm,
    /// The IR text form (structured SPIR-V assembly; parseable back).
    Ir,
    /// Each function's control-flow graph drawn as text (as `:cfg` draws it; `COLUMNS` wide,
    /// else 100).
    Cfg,
    /// Each function's control-flow graph as a graphviz file.
    Dot,
    /// GLSL (Vulkan semantics, `#line` directives where the module has line info), by
    /// SPIRV-Cross.
    Glsl,
    /// HLSL (shader model 6.0), by SPIRV-Cross.
    Hlsl,
    /// Metal Shading Language 2.3, by SPIRV-Cross.
    Msl,
    /// WGSL, by naga, where it accepts the module.
    Wgsl,
}

impl Emit {
    /// The shading language it is, if it is one.
    pub fn lang(self) -> Option<crate::pipeline::decompile::Lang> {
        use crate::pipeline::decompile::Lang;
        match self {
            Emit::Glsl => Some(Lang::Glsl),
            Emit::Hlsl => Some(Lang::Hlsl),
            Emit::Msl => Some(Lang::Msl),
            Emit::Wgsl => Some(Lang::Wgsl),
            _ => None,
        }
    }

    /// The extension of a file it writes.
    pub fn extension(self) -> &'static str {
        match self {
            Emit::Spv => "spv",
            Emit::Spvasm => "spvasm",
            Emit::Ir => "ir",
            Emit::Cfg => "cfg.txt",
            Emit::Dot => "dot",
            Emit::Glsl => "glsl",
            Emit::Hlsl => "hlsl",
            Emit::Msl => "metal",
            Emit::Wgsl => "wgsl",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    /// One JSON object per step and line.
    Json,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Shaders to compile: .spv (binary), .spvasm (assembly), .wgsl, or GLSL (.vert, .frag,
    /// .comp, or .glsl with a `#pragma shader_stage(...)` line). The kind is taken from the
    /// content where the extension is wrong. `-` reads standard input.
    #[arg(required_unless_present_any = ["steps", "steps_cmd"])]
    pub inputs: Vec<PathBuf>,

    /// Another compiler's steps instead of our passes: the modules it dumped after its passes
    /// (.spv or .spvasm files, or directories of them, taken in natural order of their names).
    /// The first is the input; each other is a step named after its file less a number prefix
    /// (`01-inline.spv` is `inline`).
    #[arg(long, value_name = "DIR|FILE", num_args = 1.., conflicts_with_all = ["inputs", "preset", "passes", "external"])]
    pub steps: Option<Vec<PathBuf>>,

    /// A command that writes another compiler's dumps, or a `--print-all` log, to `$OUT` (a
    /// fresh directory), opened as `--steps` opens them; a command that writes nothing there
    /// but prints a log (`spirv-opt --print-all`, `dxc -fspv-print-all`) has it read.
    #[arg(long, value_name = "COMMAND", conflicts_with_all = ["steps", "inputs", "preset", "passes", "external"])]
    pub steps_cmd: Option<String>,

    /// Named pipeline to run (see `shaderstep passes`).
    #[arg(long, default_value = "roundtrip", conflicts_with = "passes", value_parser = preset_names())]
    pub preset: String,

    /// Comma-separated list of passes to run, in order, e.g. `lower,verify,strip-debug,lift`.
    /// `lower` is added in front when missing.
    #[arg(long, value_delimiter = ',', value_parser = pass_name)]
    pub passes: Option<Vec<String>>,

    /// Run an external optimizer instead of our passes, one step per pass it runs:
    /// `--external 'spirv-opt -O'` (any spirv-opt flags; bare: `[external] flags` from
    /// shaderstep.toml, or -O). `-o` writes what it wrote.
    #[arg(long, value_name = "COMMAND", num_args = 0..=1, default_missing_value = "", conflicts_with_all = ["preset", "passes"])]
    pub external: Option<String>,

    /// What to write: the SPIR-V binary, its disassembly, or the IR text.
    #[arg(long, value_enum, default_value = "spv")]
    pub emit: Emit,

    /// Output file (or directory, when several inputs or a directory are given: the tree is
    /// mirrored under it, every shader compiled in parallel). Without it, the result goes to
    /// standard output — except a binary, which is never written to a terminal.
    #[arg(short, long)]
    pub output: Option<PathBuf>,

    /// Shaders compiled at once in a batch (several inputs or a directory, with -o); default:
    /// the machine's cores.
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,

    /// In a batch, replace outputs that exist even when they are newer than their inputs.
    #[arg(long)]
    pub force: bool,

    /// Print the IR after every pass under a header naming the pass (like
    /// `spirv-opt --print-all`). The final result is then written only with `-o`.
    #[arg(long)]
    pub print_after_all: bool,

    /// With --print-after-all: each step as this language instead of the IR (glsl, hlsl, msl
    /// or wgsl).
    #[arg(long = "as", value_name = "LANG", requires = "print_after_all", value_parser = lang_name)]
    pub as_lang: Option<crate::pipeline::decompile::Lang>,

    /// Print statistics for every step: pass, changed, instruction count, microseconds,
    /// diagnostics. The final result is then written only with `-o`.
    #[arg(long, value_enum)]
    pub stats: Option<StatsFormat>,

    /// Accept experimental ops (FeatureID 0x8000) and let passes emit them (`qptr-lower` then
    /// keeps OpCopyMemory as qptr.copy); modules that use them are marked preview.
    #[arg(long)]
    pub experimental: bool,

    /// Run the shader on a Vulkan driver (lavapipe) after every step, on the same data, and
    /// print the first step whose results differ from the input's, or that crashes or hangs
    /// the driver (exit status 1 then). Compute shaders; a vertex and a fragment stage, or
    /// either alone (drawn with a stage made for it).
    #[arg(long)]
    pub bisect_run: bool,

    /// With --bisect-run: who runs the steps. `interp`: shaderstep's interpreter alone, no
    /// driver compile per step (compute shaders); `driver`: the Vulkan driver alone; `both`:
    /// the driver's answer, and where the interpreter's differs; `auto` (the default): the
    /// interpreter where it agrees with the driver on the input, else the driver.
    #[arg(
        long,
        value_name = "ORACLE",
        requires = "bisect_run",
        value_parser = clap::builder::PossibleValuesParser::new(crate::pipeline::oracle::Oracle::NAMES)
            .map(|s| s.parse::<crate::pipeline::oracle::Oracle>().unwrap_or_default())
    )]
    pub oracle: Option<crate::pipeline::oracle::Oracle>,

    /// With --bisect-run: the entry point to run when a module has several of its stage
    /// (else the first).
    #[arg(long, value_name = "NAME", requires = "bisect_run")]
    pub entry: Option<String>,

    /// With --bisect-run: the bytes every buffer starts with (repeated to fill it), instead of
    /// the fixed pattern.
    #[arg(long, value_name = "FILE", requires = "bisect_run")]
    pub bisect_data: Option<PathBuf>,

    #[command(flatten)]
    pub driver: DriverChoice,

    /// With `--preset link` (or a `link` pass): keep `Export` linkage on exports no input
    /// imports, making a library rather than a shader.
    #[arg(long)]
    pub keep_exports: bool,

    #[command(flatten)]
    pub stages: PipelineArgs,

    #[command(flatten)]
    pub checks: CheckArgs,
}

#[derive(clap::Args, Debug, Clone)]
pub struct PipelineArgs {
    /// The inputs are the stages of one graphics pipeline (vertex, fragment, …): each runs
    /// the pipeline's passes, then link steps match, check and optimize their interfaces;
    /// `-o DIR` writes `DIR/<input-stem>.spv` per stage.
    #[arg(long)]
    pub pipeline: bool,

    /// With --pipeline: `fs-first` (later stages first: earlier stages drop outputs nobody
    /// reads) or `vs-first` (earlier stages first: later stages learn constant inputs).
    #[arg(long, default_value = "fs-first", value_parser = |s: &str| s.parse::<crate::pipeline::link::LinkOrder>())]
    pub link_order: crate::pipeline::link::LinkOrder,

    /// With --pipeline: the (partial) pipeline state the stages are compiled with (TOML:
    /// vertex bindings and attributes, colour attachments, specialization constants); what it
    /// gives is compiled in as `state-*` steps.
    #[arg(long, value_name = "TOML")]
    pub state: Option<PathBuf>,

    /// With --pipeline: the whole state, known at link time; what it adds to --state is
    /// generated as glue (`link-vertex-fetch`, `link-color-export`, `link-spec-constants`).
    #[arg(long, value_name = "TOML")]
    pub link_state: Option<PathBuf>,
}

#[derive(clap::Args, Debug, Clone, Copy)]
pub struct CheckArgs {
    /// Run the IR verifier after every pass; the first pass that breaks the IR is named.
    #[arg(long)]
    pub verify_each: bool,

    /// Write every step as SPIR-V and run `spirv-val` on it (needs spirv-tools installed); the
    /// first pass whose output does not validate is named.
    #[arg(long)]
    pub validate_each: bool,
}

impl From<CheckArgs> for crate::pipeline::Checks {
    fn from(c: CheckArgs) -> Self {
        crate::pipeline::Checks {
            verify_each: c.verify_each,
            validate_each: c.validate_each,
        }
    }
}
