//! The bundled examples' debug builds (`assets/examples/*.gVS.*.spv`, made by
//! `scripts/examples.sh` with `glslangValidator -V -gVS` and committed): each loads, validates,
//! has `DebugLine`s, and embeds the text of its source as it is now, so a source edited without
//! running the script fails here. When the installed glslang is the one that made them
//! (`glslang-version.txt`), they are rebuilt and must come out byte for byte the same.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use common::{temp_dir, tool, validate};
use shaderstep::ir::debug::{self, DebugSets};
use shaderstep::ir::Module;
use shaderstep::pipeline::Pipeline;

/// Each source and the debug build `scripts/examples.sh` makes of it.
const BUILDS: [(&str, &str); 2] = [
    ("lighting.frag", "lighting.gVS.frag.spv"),
    ("cull.comp", "cull.gVS.comp.spv"),
];

fn examples() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/examples"))
}

/// How many instructions have a `DebugLine` location.
fn debug_lines(m: &Module) -> usize {
    let sets = DebugSets::of(m);
    let mut n = 0;
    for f in m.functions() {
        for (_, i) in f.layout() {
            let loc = f.location_of(i);
            n += usize::from(
                loc.debug_line.is_some() && debug::source_line(m, &sets, loc).is_some(),
            );
        }
    }
    n
}

#[test]
fn committed_debug_builds_load_validate_and_embed_their_source() {
    for (source, binary) in BUILDS {
        let path = examples().join(binary);
        let loaded = shaderstep::pipeline::input::load(&path)
            .unwrap_or_else(|e| panic!("{binary} does not load ({e}); run scripts/examples.sh"));
        validate(&loaded.words, false).unwrap_or_else(|e| panic!("{binary}: {e}"));
        let m = shaderstep::ir::spirv::read::read_words(&loaded.words).unwrap();
        let lines = debug_lines(&m);
        assert!(lines >= 10, "{binary}: only {lines} DebugLines");

        // The text it embeds is the source as it is now (glslang puts a few comments and a
        // `#line 1` in front), under the bare file name.
        let texts = debug::source_texts(&m);
        let file = texts
            .iter()
            .find_map(|(file, text)| {
                let name = m.debug().iter().find(|i| i.result() == Some(*file))?;
                match name.lits().first() {
                    Some(rspirv::dr::Operand::LiteralString(n)) if n == source => Some(text),
                    _ => None,
                }
            })
            .unwrap_or_else(|| panic!("{binary}: no DebugSource named {source}: {texts:?}"));
        let embedded = file
            .split_once("#line 1\n")
            .map_or(file.as_str(), |(_, t)| t);
        let now = std::fs::read_to_string(examples().join(source)).unwrap();
        assert!(
            embedded == now,
            "{binary} was built from another {source} than the one in assets/examples: run scripts/examples.sh and commit what it writes"
        );

        // The optimizer keeps line info on it, and its output validates.
        let out = Pipeline::preset("O")
            .unwrap()
            .run(Arc::new(loaded.words.clone()))
            .output_words()
            .unwrap_or_else(|| panic!("{binary}: O failed"));
        validate(&out, false).unwrap_or_else(|e| panic!("{binary} after O: {e}"));
        let m = shaderstep::ir::spirv::read::read_words(&out).unwrap();
        assert!(debug_lines(&m) >= 10, "{binary}: O dropped its DebugLines");
    }
}

#[test]
fn committed_debug_builds_are_what_the_script_makes() {
    let version = Command::new(tool("glslangValidator"))
        .arg("--version")
        .output()
        .expect("run glslangValidator");
    let installed = String::from_utf8_lossy(&version.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    let recorded = std::fs::read_to_string(examples().join("glslang-version.txt")).unwrap();
    if installed != recorded.trim() {
        eprintln!(
            "note: the debug builds were made by `{}`, this is `{installed}`: not rebuilt (the other test checks them)",
            recorded.trim()
        );
        return;
    }
    let dir = temp_dir("examples");
    for (source, binary) in BUILDS {
        let out = dir.join(binary);
        // As the script runs it: in assets/examples, on the bare file name.
        let r = Command::new(tool("glslangValidator"))
            .current_dir(examples())
            .args(["-V", "-gVS", source, "-o"])
            .arg(&out)
            .output()
            .expect("run glslangValidator");
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stdout));
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(examples().join(binary)).unwrap(),
            "assets/examples/{binary} is not what scripts/examples.sh makes from {source} now: run it and commit what it writes"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
