//! `shaderstep driver` (the driver's own code for a step) and `shaderstep drivers` (the Vulkan
//! devices found, and what each can show).

use super::cli::{DriverArgs, DriversArgs};
use crate::pipeline::driver_code::{code_of, Kind, Show};
use crate::pipeline::gpu::isolated::{self, worker_program, Isolated};
use crate::pipeline::gpu::{DeviceInfo, Driver};

/// Exit status: 0; 1 when the shader does not load, a pass fails, or the driver cannot show
/// or compile the step.
pub fn run(args: &DriverArgs) -> i32 {
    match run_inner(args) {
        Ok(text) => {
            super::print_quietly(&text);
            0
        }
        Err(e) => {
            eprintln!("error: {}", super::exec::of_input(&args.input, &e));
            1
        }
    }
}

fn run_inner(args: &DriverArgs) -> Result<String, String> {
    let show = Show::parse(&args.show).ok_or("--show takes nir, llvm, asm or stats")?;
    let config = super::config::load(&[], std::slice::from_ref(&args.input))?.0;
    let driver = args.choice.resolve(&config)?;
    let run = super::exec::compile(&args.input, &args.pipeline)?;
    let picked = super::exec::pick(&run, Some(args.step.as_deref().unwrap_or("last")))?;
    let worker = Isolated::open_with(worker_program()?, false, &driver, true)?;
    let info = worker.info().clone();
    let module = &run.steps[picked.index].module;
    let code = code_of(&worker, module, args.entry.as_deref())?;
    let mut out = format!(
        "// {} — {}: {}\n",
        info.name, info.driver_info, picked.label
    );
    match show {
        Show::Stats => {
            out.push_str(&format!("SPIR-V instructions {}\n", module.inst_count()));
            out.push_str(&code.show(Show::Stats));
        }
        _ => {
            let kind = match show {
                Show::Nir => Kind::Nir,
                Show::Llvm => Kind::Llvm,
                _ => Kind::Asm,
            };
            let text = code.listing(kind, args.helpers);
            if text.is_empty() {
                return Err(format!(
                    "{} printed no {} for this step",
                    info.name,
                    show.name()
                ));
            }
            out.push_str(&text);
        }
    }
    Ok(out)
}

/// Exit status: 0; 1 when no Vulkan loader or device is found.
pub fn list(args: &DriversArgs) -> i32 {
    match list_inner(args) {
        Ok(text) => {
            super::print_quietly(&text);
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn list_inner(args: &DriversArgs) -> Result<String, String> {
    let config = super::config::load(&[], &[])?.0;
    let chosen = args.choice.resolve(&config)?;
    let program = worker_program()?;
    let mut out = String::new();
    // The system's devices, then each lavapipe `scripts/lavapipe.sh` fetched, and the one
    // chosen when it is an ICD file of its own.
    let mut sources = vec![Driver::System];
    sources.extend(
        crate::pipeline::gpu::driver::fetched_lavapipes()
            .into_iter()
            .map(Driver::Icd),
    );
    if matches!(chosen, Driver::Icd(_)) && !sources.contains(&chosen) {
        sources.push(chosen.clone());
    }
    let mut any = false;
    for source in &sources {
        let found = isolated::devices(&program, source);
        let title = match source {
            Driver::Icd(p) => format!("--driver {}", p.display()),
            _ => "the system's drivers".into(),
        };
        out.push_str(&format!("{title}\n"));
        match found {
            Ok(list) if list.is_empty() => out.push_str("  no device\n"),
            Ok(list) => {
                for d in &list {
                    any = true;
                    out.push_str(&device_lines(d, is_chosen(&chosen, source, d)));
                }
            }
            Err(e) => out.push_str(&format!("  {e}\n")),
        }
    }
    if !any {
        return Err(format!(
            "no Vulkan device found: {}",
            crate::pipeline::gpu::INSTALL
        ));
    }
    if !sources.iter().any(|s| matches!(s, Driver::Icd(_))) {
        out.push_str(
            "\nMesa 25's lavapipe shows its code per step: scripts/lavapipe.sh fetches it (no root), then --driver \"$(scripts/lavapipe.sh | tail -1)\"\n",
        );
    }
    Ok(out)
}

/// Whether the device would run shaders with `chosen`.
fn is_chosen(chosen: &Driver, source: &Driver, d: &DeviceInfo) -> bool {
    match chosen {
        Driver::System => *source == Driver::System && d.kind == "cpu",
        Driver::Icd(_) => source == chosen,
        Driver::Named(n) => d.matches(n),
    }
}

fn device_lines(d: &DeviceInfo, chosen: bool) -> String {
    let mark = if chosen { "*" } else { " " };
    let mut s = format!(
        "{mark} {} [{}]\n    driver {} — {}, Vulkan {}, subgroup size {}\n    shows {}\n",
        d.name,
        d.kind,
        d.driver_name,
        d.driver_info,
        d.api,
        d.subgroup_size,
        d.shows()
    );
    if d.ray_query {
        s.push_str("    ray queries (acceleration structures)\n");
    }
    s
}
