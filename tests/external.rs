//! `--external 'spirv-opt …'`: spirv-opt's own passes as steps. For the test shaders, the steps
//! are the passes spirv-opt runs (count and names from its own `--print-all`), the last step's
//! module is spirv-opt's output with ids renumbered, and the run's output is its output byte
//! for byte; `--validate-each` holds on every step; a missing binary says how to install it.

mod common;

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use common::{corpus, normalized_dis, temp_dir, tool, words_to_bytes};
use shaderstep::ir::spirv::write::write_words;
use shaderstep::ir::spirv::{asm, read};
use shaderstep::pipeline::external::{parse_print_all, ExternalTool};
use shaderstep::pipeline::{Checks, Pipeline};

/// The passes spirv-opt runs with `flags` on `words` (its `--print-all` headers) and its output.
fn reference(words: &[u32], flags: &[&str]) -> (Vec<String>, Vec<u32>) {
    let dir = temp_dir("external");
    let input = dir.join("in.spv");
    let output = dir.join("out.spv");
    std::fs::write(&input, words_to_bytes(words)).unwrap();
    let r = Command::new(tool("spirv-opt"))
        .args(flags)
        .arg("--print-all")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let passes = String::from_utf8_lossy(&r.stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("; IR before pass "))
        .map(|p| p.trim().to_string())
        .collect();
    let bytes = std::fs::read(&output).unwrap();
    let out = shaderstep::ir::spirv::read::words_from_bytes(&bytes).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (passes, out)
}

#[test]
fn spirv_opt_passes_become_steps_with_its_output_at_the_end() {
    tool("spirv-opt");
    let shaders: Vec<_> = corpus()
        .into_iter()
        .filter(|s| !s.universal)
        .filter(|s| {
            let p = s.path.to_string_lossy();
            p.contains("/glslang/") || p.contains("/wgsl/")
        })
        .collect();
    assert!(shaders.len() >= 20, "only {} shaders", shaders.len());
    let mut checked = 0;
    for flags in [&["-O"][..], &["-Os"], &["--eliminate-dead-code-aggressive"]] {
        let command = format!("spirv-opt {}", flags.join(" "));
        let pipeline = Pipeline::external(ExternalTool::parse(&command, None).unwrap());
        for s in &shaders {
            let name = s.path.display();
            let (passes, expected) = reference(&s.words, flags);
            let run = pipeline.run(Arc::new(s.words.clone()));
            assert!(
                run.ok(),
                "{name}: {:?}",
                run.steps.last().unwrap().diagnostics
            );
            let names: Vec<&str> = run.steps.iter().map(|st| st.pass).collect();
            let wanted: Vec<String> = std::iter::once("input".to_string())
                .chain(passes.iter().map(|p| format!("spirv-opt:{p}")))
                .collect();
            assert_eq!(names, wanted, "{name} with {command}");
            assert_eq!(run.output_words().unwrap(), expected, "{name}: the output");
            // As the IR holds it: locations are attributes, said again with the fewest markers
            // (spirv-opt repeats some).
            let last = write_words(run.final_module().unwrap());
            let expected = write_words(&read::read_words(&expected).unwrap());
            assert_eq!(
                normalized_dis(&last),
                normalized_dis(&expected),
                "{name} with {command}: the last step is not spirv-opt's output"
            );
            // Pass times are spirv-opt's, to its 10 ms; the input step's is ours.
            assert_eq!(run.steps[0].resolution, None);
            assert!(run.steps[1..]
                .iter()
                .all(|st| st.resolution == Some(Duration::from_millis(10))));
            // A step that changed nothing has the module of the step before it.
            for pair in run.steps.windows(2) {
                if !pair[1].changed {
                    assert_eq!(
                        pair[0].inst_count, pair[1].inst_count,
                        "{name}: {} said unchanged",
                        pair[1].pass
                    );
                }
            }
            checked += 1;
        }
    }
    eprintln!("{checked} external runs checked");
}

#[test]
fn validate_each_checks_every_external_step() {
    let s = corpus()
        .into_iter()
        .find(|s| s.path.to_string_lossy().contains("opt_early_return"))
        .unwrap();
    let pipeline = Pipeline::external(ExternalTool::parse("spirv-opt -O", None).unwrap())
        .with_checks(Checks {
            verify_each: true,
            validate_each: true,
        });
    let run = pipeline.run(Arc::new(s.words.clone()));
    assert!(run.ok(), "{:?}", run.steps.last().unwrap().diagnostics);
    assert!(run.steps.len() > 20);
    assert!(run.steps.iter().any(|st| st.changed && st.pass != "input"));
}

#[test]
fn a_missing_or_failing_spirv_opt_is_a_failed_step_that_says_why() {
    let s = &corpus()[0];
    let missing = ExternalTool::parse("spirv-opt -O", Some("/nonexistent/bin/spirv-opt")).unwrap();
    let run = Pipeline::external(missing).run(Arc::new(s.words.clone()));
    assert_eq!(run.failed, Some(1));
    let e = run.steps[1].error.clone().unwrap();
    assert!(e.contains("apt-get install -y spirv-tools"), "{e}");
    assert!(e.contains("/nonexistent/bin/spirv-opt"), "{e}");

    let bad = ExternalTool::parse("spirv-opt --no-such-flag", None).unwrap();
    let run = Pipeline::external(bad).run(Arc::new(s.words.clone()));
    let e = run.steps.last().unwrap().error.clone().unwrap();
    assert!(e.contains("--no-such-flag"), "{e}");
}

#[test]
fn run_external_writes_spirv_opt_output() {
    let dir = temp_dir("external-cli");
    let input = dir.join("in.spv");
    let s = corpus()
        .into_iter()
        .find(|s| s.path.to_string_lossy().contains("opt_scalar"))
        .unwrap();
    std::fs::write(&input, words_to_bytes(&s.words)).unwrap();
    let out = dir.join("out.spv");
    let r = common::shaderstep(&[
        "run",
        input.to_str().unwrap(),
        "--external",
        "spirv-opt -O",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let (_, expected) = reference(&s.words, &["-O"]);
    assert_eq!(std::fs::read(&out).unwrap(), words_to_bytes(&expected));
    // --print-after-all names the tool in every header.
    let r = common::shaderstep(&[
        "run",
        input.to_str().unwrap(),
        "--external",
        "spirv-opt -O",
        "--print-after-all",
    ]);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        text.contains("; *** IR after pass 1: spirv-opt:wrap-opkill"),
        "{}",
        &text[..text.len().min(400)]
    );
    let r = common::shaderstep(&[
        "run",
        input.to_str().unwrap(),
        "--external",
        "spirv-opt -O",
        "--preset",
        "O",
    ]);
    assert_eq!(r.status.code(), Some(2), "--external and --preset conflict");
}

/// `written`, what `original` became through the IR, has the same instructions but for
/// location markers (said again with the fewest), and reads and writes back unchanged.
fn same_code_fewer_markers(original: &[u32], written: &[u32], what: &str) {
    const MARKERS: [&str; 6] = [
        "DebugScope",
        "DebugLine",
        "DebugNoScope",
        "DebugNoLine",
        "OpLine",
        "OpNoLine",
    ];
    let code = |w: &[u32]| -> Vec<String> {
        common::spirv_dis(w, &["--raw-id", "--no-header"])
            .lines()
            .filter(|l| !MARKERS.iter().any(|m| l.contains(m)))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        code(written),
        code(original),
        "{what}: write(read(x)) lost code"
    );
    let twice = write_words(&read::read_words(written).unwrap());
    assert_eq!(
        twice, written,
        "{what}: write(read(x)) is not a fixed point"
    );
}

/// How many `OpExtInst`s a printed module has in functions but outside blocks.
fn floating_ext_insts(text: &str) -> usize {
    const ENDS: [&str; 8] = [
        "OpBranch ",
        "OpBranchConditional",
        "OpReturn",
        "OpSwitch",
        "OpKill",
        "OpUnreachable",
        "OpTerminateInvocation",
        "OpFunctionEnd",
    ];
    let (mut in_function, mut in_block, mut n) = (false, false, 0);
    for line in text.lines() {
        if line.contains("OpFunction ") {
            in_function = true;
        } else if line.contains("OpLabel") {
            in_block = true;
        } else if ENDS.iter().any(|e| line.contains(e)) {
            in_block = false;
        } else if in_function && !in_block && line.contains("OpExtInst ") {
            n += 1;
        }
    }
    n
}

/// Two functions and a loop, for a debug build with `-gVS` (NonSemantic.Shader.DebugInfo.100).
const DEBUG_FRAG: &str = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
float shade(float x, int n) {
    float acc = 0.0;
    for (int i = 0; i < n; i++) {
        acc += x * float(i);
    }
    return acc;
}
void main() {
    color = vec4(shade(uv.x, 4), uv.y, 0.0, 1.0);
}
";

/// spirv-opt prints DebugScope, DebugLine and their kin between functions, between a
/// terminator and the next label, and between OpFunction and the first label: every module it
/// prints assembles with our assembler and reads, with those instructions kept in place.
#[test]
fn spirv_opt_prints_of_a_debug_build_assemble_and_read() {
    let words = common::glslang_words("debug.frag", DEBUG_FRAG.as_bytes(), &["-gVS"]);
    let m = read::read_words(&words).unwrap_or_else(|e| panic!("the -gVS build: {e}"));
    // Written back, it says the same with fewer markers (glslang repeats the scope in force at
    // every block).
    let once = write_words(&m);
    assert!(once.len() < words.len(), "no repeated marker went");
    same_code_fewer_markers(&words, &once, "the -gVS build");

    let dir = temp_dir("external-gvs");
    let input = dir.join("in.spv");
    let output = dir.join("out.spv");
    std::fs::write(&input, words_to_bytes(&words)).unwrap();
    let r = Command::new(tool("spirv-opt"))
        .args(["-O", "--print-all"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let (input_text, passes) = parse_print_all(&String::from_utf8_lossy(&r.stderr));
    assert!(passes.len() > 10, "{} passes", passes.len());
    let texts: Vec<(&str, &str)> = std::iter::once(("input", input_text.as_str()))
        .chain(passes.iter().map(|p| (p.name.as_str(), p.text.as_str())))
        .collect();
    let mut names = asm::SharedNames::above_ids_of(texts.iter().map(|t| t.1));
    let mut floating = 0;
    for (pass, text) in &texts {
        let a = asm::assemble_sharing(text, &mut names).unwrap_or_else(|e| {
            panic!("what spirv-opt printed after {pass} does not assemble: {e}")
        });
        let m = read::read_words(&a.words)
            .unwrap_or_else(|e| panic!("what spirv-opt printed after {pass} does not read: {e}"));
        // Written back, the instructions are where the print has them.
        same_code_fewer_markers(&a.words, &write_words(&m), &format!("after {pass}"));
        // Non-semantic instructions outside blocks: what this test is about.
        floating += floating_ext_insts(text);
    }
    assert!(
        floating > 0,
        "no debug instruction outside a block: the test tests nothing"
    );
    let out = read::words_from_bytes(&std::fs::read(&output).unwrap()).unwrap();
    let m = read::read_words(&out).unwrap_or_else(|e| panic!("spirv-opt's output: {e}"));
    same_code_fewer_markers(&out, &write_words(&m), "spirv-opt's output");
    let _ = std::fs::remove_dir_all(&dir);

    // And the external pipeline steps through all of it.
    let pipeline = Pipeline::external(ExternalTool::parse("spirv-opt -O", None).unwrap());
    let run = pipeline.run(Arc::new(words));
    assert!(run.ok(), "{:?}", run.steps.last().unwrap().diagnostics);
    assert_eq!(run.steps.len(), passes.len() + 1);
}
