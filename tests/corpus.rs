//! The shader corpus through the compiler core: every shader round-trips through the IR,
//! validates, disassembles like its input, re-assembles from `spirv-dis` output, and prints as
//! IR text that parses back to the same text.

mod common;

use std::sync::Arc;

use common::{corpus, debug_builds, normalized_dis, spirv_dis, validate};
use shaderstep::ir::spirv::{asm, read};
use shaderstep::ir::{parse, print};
use shaderstep::pipeline::Pipeline;

fn inst_count(words: &[u32]) -> usize {
    read::read_words(words).unwrap().inst_count()
}

#[test]
fn corpus_is_big_enough() {
    let shaders = corpus();
    assert!(shaders.len() >= 40, "only {} test shaders", shaders.len());
}

#[test]
fn verifier_accepts_every_corpus_shader() {
    // spirv-val accepts them all (`inputs_validate`): the verifier, never stricter, must too.
    let mut failures = Vec::new();
    for s in corpus().into_iter().chain(debug_builds().0) {
        let m = read::read_words(&s.words).unwrap();
        for e in shaderstep::ir::verify::verify(&m) {
            if e.level == shaderstep::ir::verify::Level::Error {
                failures.push(format!("{}: {e}", s.name()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn inputs_validate() {
    // A broken input would make every other test here meaningless.
    let mut failures = Vec::new();
    for s in corpus() {
        if let Err(e) = validate(&s.words, s.universal) {
            failures.push(format!("{}: {e}", s.path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "inputs that do not validate:\n{}",
        failures.join("\n")
    );
}

#[test]
fn roundtrip_validates_and_matches_input() {
    let pipeline = Pipeline::preset("roundtrip").unwrap();
    let mut failures = Vec::new();
    for s in corpus() {
        let run = pipeline.run(Arc::new(s.words.clone()));
        let Some(out) = run.output_words() else {
            failures.push(format!(
                "{}: pipeline failed: {:?}",
                s.path.display(),
                run.steps.last().map(|st| &st.diagnostics)
            ));
            continue;
        };
        if let Err(e) = validate(&out, s.universal) {
            failures.push(format!(
                "{}: output does not validate: {e}",
                s.path.display()
            ));
            continue;
        }
        if normalized_dis(&out) != normalized_dis(&s.words) {
            failures.push(format!(
                "{}: disassembly of output differs from input",
                s.path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn size_preset_validates_and_shrinks() {
    let pipeline = Pipeline::preset("size").unwrap();
    let mut failures = Vec::new();
    for s in corpus() {
        let run = pipeline.run(Arc::new(s.words.clone()));
        let Some(out) = run.output_words() else {
            failures.push(format!("{}: pipeline failed", s.path.display()));
            continue;
        };
        if let Err(e) = validate(&out, s.universal) {
            failures.push(format!(
                "{}: output does not validate: {e}",
                s.path.display()
            ));
        }
        let m = read::read_words(&out).unwrap();
        if m.debug().iter().any(|i| i.op() == spirv::Op::Name) {
            failures.push(format!(
                "{}: OpName left after strip-debug",
                s.path.display()
            ));
        }
        if out.len() > s.words.len() || m.bound > read::read_words(&s.words).unwrap().bound {
            failures.push(format!("{}: output is larger than input", s.path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn spirv_dis_output_assembles() {
    let mut failures = Vec::new();
    for s in corpus() {
        let text = spirv_dis(&s.words, &[]);
        match asm::assemble(&text) {
            Err(e) => failures.push(format!("{}: {e}", s.path.display())),
            Ok(words) => {
                if let Err(e) = validate(&words, s.universal) {
                    failures.push(format!(
                        "{}: assembled binary does not validate: {e}",
                        s.path.display()
                    ));
                } else if inst_count(&words) != inst_count(&s.words) {
                    failures.push(format!("{}: instruction count differs", s.path.display()));
                } else if normalized_dis(&words) != normalized_dis(&s.words) {
                    failures.push(format!(
                        "{}: re-assembled module differs from input",
                        s.path.display()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ir_text_round_trips() {
    let mut failures = Vec::new();
    for s in corpus() {
        let m = read::read_words(&s.words).unwrap();
        let text = print::print(&m);
        match parse::parse(&text) {
            Err(e) => failures.push(format!("{}: IR text does not parse: {e}", s.path.display())),
            Ok(back) => {
                if print::print(&back) != text {
                    failures.push(format!(
                        "{}: print(parse(print(m))) != print(m)",
                        s.path.display()
                    ));
                }
                // Checked against the module, not only against itself: what the text reads
                // back as writes the same SPIR-V (ids normalised).
                let words = shaderstep::ir::spirv::write::write_words(&back);
                if normalized_dis(&words) != normalized_dis(&s.words) {
                    failures.push(format!(
                        "{}: parse(print(m)) writes other SPIR-V than m",
                        s.path.display()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn our_disassembly_assembles_back() {
    let mut failures = Vec::new();
    for s in corpus() {
        let m = read::read_words(&s.words).unwrap();
        let text = shaderstep::ir::spirv::disasm::disassemble(&m, &Default::default());
        match asm::assemble(&text) {
            Err(e) => failures.push(format!("{}: {e}", s.path.display())),
            Ok(words) => {
                if normalized_dis(&words) != normalized_dis(&s.words) {
                    failures.push(format!(
                        "{}: differs after disassemble/assemble",
                        s.path.display()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn default_preset_validates_with_verify_each() {
    use shaderstep::pipeline::Checks;
    let pipeline = Pipeline::preset("default").unwrap().with_checks(Checks {
        verify_each: true,
        validate_each: false,
    });
    let mut failures = Vec::new();
    for s in corpus() {
        let run = pipeline.run(Arc::new(s.words.clone()));
        match run.output_words() {
            None => failures.push(format!(
                "{}: {:?}",
                s.path.display(),
                run.steps.last().map(|st| &st.diagnostics)
            )),
            Some(out) => {
                if let Err(e) = validate(&out, s.universal) {
                    failures.push(format!(
                        "{}: output does not validate: {e}",
                        s.path.display()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every step of `default` (through the dialect) and of `O` prints as IR text that parses back
/// to the same text: what the TUI shows of a step can be pasted back in.
#[test]
fn every_step_round_trips_through_ir_text() {
    let mut failures = Vec::new();
    let mut steps = 0;
    for preset in ["default", "O"] {
        let pipeline = shaderstep::pipeline::Pipeline::preset(preset).unwrap();
        for s in corpus() {
            let run = pipeline.run(std::sync::Arc::new(s.words.clone()));
            for step in &run.steps {
                steps += 1;
                let text = print::print(&step.module);
                match parse::parse(&text) {
                    Err(e) => failures.push(format!(
                        "{} after {} ({preset}): does not parse: {e}",
                        s.path.display(),
                        step.pass
                    )),
                    Ok(back) if print::print(&back) != text => failures.push(format!(
                        "{} after {} ({preset}): prints differently once parsed",
                        s.path.display(),
                        step.pass
                    )),
                    Ok(_) => {}
                }
            }
        }
    }
    assert!(steps > 500, "only {steps} steps");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The debug builds of the GLSL shaders (`-g`: `OpLine`; `-gVS`: `DebugLine`, `DebugScope`,
/// `DebugDeclare`…) validate after every preset, as the plain builds do; the equivalence
/// harnesses run what they can of them on lavapipe.
#[test]
fn debug_builds_validate_after_every_preset() {
    let presets: Vec<&str> = shaderstep::pipeline::registry::PRESETS
        .iter()
        .map(|p| p.name)
        .filter(|&p| p != "link")
        .collect();
    assert!(presets.len() >= 9, "{presets:?}");
    let (builds, _) = debug_builds();
    let mut failures = Vec::new();
    for s in &builds {
        if let Err(e) = validate(&s.words, s.universal) {
            failures.push(format!("{}: input does not validate: {e}", s.name()));
            continue;
        }
        for preset in &presets {
            let run = Pipeline::preset(preset)
                .unwrap()
                .run(Arc::new(s.words.clone()));
            match run.output_words() {
                None => failures.push(format!("{}: {preset} failed", s.name())),
                Some(out) => {
                    if let Err(e) = validate(&out, s.universal) {
                        failures.push(format!(
                            "{}: output of {preset} does not validate: {e}",
                            s.name()
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "{} debug builds validated after {} presets",
        builds.len(),
        presets.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
