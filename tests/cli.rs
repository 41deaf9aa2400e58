//! The `shaderstep` command line: exit statuses, messages for bad input, outputs.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{temp_dir, validate};

fn shaderstep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args(args)
        .output()
        .expect("run shaderstep")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const SMALL_ASM: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %main "main"
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpReturn
               OpFunctionEnd
"#;

fn small_binary() -> Vec<u32> {
    shaderstep::ir::spirv::asm::assemble(SMALL_ASM).unwrap()
}

/// Runs `run` on a file holding `bytes`; expects exit 1 and a message naming the file and `cause`.
fn expect_bad(name: &str, bytes: &[u8], cause: &str) {
    let dir = temp_dir("bad");
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let out = shaderstep(&["run", path.to_str().unwrap(), "--emit", "spvasm"]);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{name}: expected exit 1, got {:?}; stderr: {err}",
        out.status
    );
    assert!(
        err.contains(path.to_str().unwrap()),
        "{name}: message does not name the file: {err}"
    );
    assert!(
        err.contains(cause),
        "{name}: message does not say '{cause}': {err}"
    );
    assert!(!err.contains("panicked"), "{name}: panicked: {err}");
}

fn bytes(words: &[u32]) -> Vec<u8> {
    common::words_to_bytes(words)
}

#[test]
fn empty_file() {
    expect_bad("empty.spv", &[], "empty file");
}

#[test]
fn wrong_magic() {
    let mut w = small_binary();
    w[0] = 0xdead_beef;
    expect_bad("magic.spv", &bytes(&w), "bad magic number 0xdeadbeef");
}

#[test]
fn truncated_word_stream() {
    let w = small_binary();
    // Cut inside the label instruction, and exactly after it.
    expect_bad(
        "trunc.spv",
        &bytes(&w[..w.len() - 3]),
        "truncated binary: instruction #",
    );
    expect_bad(
        "trunc1.spv",
        &bytes(&w[..w.len() - 2]),
        "truncated module: the last function has no OpFunctionEnd",
    );
    // Not even whole words.
    let mut b = bytes(&w);
    b.pop();
    expect_bad("trunc2.spv", &b, "not a whole number of 32-bit words");
}

#[test]
fn unknown_opcode() {
    let mut w = small_binary();
    // The first instruction after the header: keep its length, replace the opcode.
    w[5] = (w[5] & 0xffff_0000) | 0x7ff0;
    expect_bad("opcode.spv", &bytes(&w), "unknown opcode 32752");
}

#[test]
fn id_out_of_bound() {
    let mut w = small_binary();
    w[3] = 3; // bound below the ids in use
    expect_bad("bound.spv", &bytes(&w), "invalid id %");
}

#[test]
fn malformed_assembly_has_line_and_column() {
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%x = OpFrobnicate %y\n";
    expect_bad(
        "bad.spvasm",
        text.as_bytes(),
        "bad.spvasm:3: column 6: unknown opcode 'OpFrobnicate'",
    );
}

/// A text file named `.spv` that is not assembly (notes that mention an opcode further down)
/// is "not SPIR-V", not a parse error at some line of it.
#[test]
fn a_text_file_named_spv_is_not_spirv() {
    let text = "Notes on the shader\n\nThe loop below\nOpLoopMerge is where it goes wrong.\n";
    expect_bad(
        "notes.spv",
        text.as_bytes(),
        "not a SPIR-V binary (expected 0x07230203), and the text is not SPIR-V assembly",
    );
}

#[test]
fn wgsl_that_fails_to_compile() {
    let src = "@fragment\nfn main() -> @location(0) vec4<f32> {\n    let x: f32 = 1.0;\n    return vec4<f32>(x, y, 0.0, 1.0);\n}\n";
    expect_bad(
        "broken.wgsl",
        src.as_bytes(),
        "broken.wgsl:4: WGSL does not compile",
    );
}

#[test]
fn glsl_that_fails_to_compile() {
    let src = "#version 450\nlayout(location=0) out vec4 c;\nvoid main() {\n    c = vec4(1.0) + true;\n}\n";
    expect_bad("broken.frag", src.as_bytes(), "GLSL does not compile");
}

/// A `.glsl` file may name its stage in a `#pragma shader_stage(...)` line before `#version`:
/// the pragma is ours, whichever front end compiles the file (glslangValidator refuses it
/// there), and the lines after it keep their numbers. With glslangValidator the file's
/// `#include`s still resolve beside it.
#[test]
fn a_stage_pragma_may_come_before_version() {
    let dir = temp_dir("pragma");
    let head = "#pragma shader_stage(fragment)\n#version 450\nlayout(location = 0) out vec4 c;\n";
    let good = dir.join("outline.glsl");
    std::fs::write(&good, format!("{head}void main() {{ c = vec4(1.0); }}\n")).unwrap();
    let out_path = dir.join("out.spv");
    let out = shaderstep(&[
        "run",
        good.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let words =
        shaderstep::ir::spirv::read::words_from_bytes(&std::fs::read(&out_path).unwrap()).unwrap();
    validate(&words, true).unwrap();
    expect_bad(
        "broken.glsl",
        format!("{head}void main() {{\n    c = vec4(1.0) + true;\n}}\n").as_bytes(),
        "broken.glsl:5: GLSL does not compile",
    );
    let glslang = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("glslangValidator").is_file()));
    if glslang {
        std::fs::write(dir.join("tint.h"), "const vec4 TINT = vec4(0.5);\n").unwrap();
        let included = dir.join("included.glsl");
        std::fs::write(
            &included,
            format!(
                "{head}#extension GL_GOOGLE_include_directive : require\n#include \"tint.h\"\n\
                 void main() {{ c = TINT; }}\n"
            ),
        )
        .unwrap();
        let out = shaderstep(&["run", included.to_str().unwrap(), "--emit", "ir"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

#[test]
fn text_in_a_spv_file_is_assembled() {
    let dir = temp_dir("spvtext");
    let path = dir.join("shader.spv");
    std::fs::write(&path, SMALL_ASM).unwrap();
    let out_path = dir.join("out.spv");
    let out = shaderstep(&[
        "run",
        path.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let words =
        shaderstep::ir::spirv::read::words_from_bytes(&std::fs::read(&out_path).unwrap()).unwrap();
    validate(&words, true).unwrap();
}

#[test]
fn usage_error_exits_2() {
    let out = shaderstep(&["run", "--preset"]);
    assert_eq!(out.status.code(), Some(2));
    let out = shaderstep(&["run", "x.spv", "--emit", "png"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn unknown_pass_and_preset_are_errors() {
    let dir = temp_dir("passes");
    let path = dir.join("s.spvasm");
    std::fs::write(&path, SMALL_ASM).unwrap();
    let out = shaderstep(&[
        "run",
        path.to_str().unwrap(),
        "--passes",
        "lower,frobnicate",
        "--emit",
        "ir",
    ]);
    // A usage error (exit 2), as an unknown preset is.
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid value 'frobnicate'")
            && stderr(&out).contains("unknown pass"),
        "{}",
        stderr(&out)
    );
    let out = shaderstep(&[
        "run",
        path.to_str().unwrap(),
        "--preset",
        "nope",
        "--emit",
        "ir",
    ]);
    // A preset is a name the command line knows: an unknown one is a usage error, listing them.
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("'nope'") && err.contains("roundtrip") && err.contains("O-size"),
        "{err}"
    );
    for command in [&["cost"][..], &["exec"], &["reduce", "--until", "invalid"]] {
        let path = path.to_str().unwrap();
        let out = shaderstep(&[command, &[path, "--preset", "nope"]].concat());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {err}");
        assert!(err.contains("'nope'") && err.contains("O-size"), "{err}");
    }
}

#[test]
fn print_after_all_names_every_pass() {
    let dir = temp_dir("pall");
    let path = dir.join("s.spvasm");
    std::fs::write(&path, SMALL_ASM).unwrap();
    let out = shaderstep(&[
        "run",
        path.to_str().unwrap(),
        "--preset",
        "size",
        "--print-after-all",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let headers: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("; *** IR after pass"))
        .collect();
    let passes = [
        "lower",
        "verify",
        "dce",
        "strip-debug",
        "compact-ids",
        "verify",
        "lift",
    ];
    assert!(
        text.starts_with("; *** step 0: the source text ***"),
        "{text}"
    );
    assert!(headers[0].contains("pass 1: lower"), "{text}");
    assert_eq!(headers.len(), passes.len(), "{text}");
    for (h, pass) in headers.iter().zip(passes) {
        assert!(h.contains(&format!(": {pass} (")), "{h} should name {pass}");
    }
    assert!(text.contains("OpEntryPoint GLCompute %main \"main\""));
}

#[test]
fn stats_json_has_one_object_per_step() {
    let dir = temp_dir("stats");
    let path = dir.join("s.spvasm");
    std::fs::write(&path, SMALL_ASM).unwrap();
    let out = shaderstep(&["run", path.to_str().unwrap(), "--stats", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Numbered as the TUI numbers steps: the assembly text is step 0.
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[0].contains("\"step\":0,\"pass\":\"source\""),
        "{text}"
    );
    assert!(
        lines[1].starts_with('{')
            && lines[1].contains("\"step\":1,\"pass\":\"lower\"")
            && lines[1].contains("\"changed\":true")
    );
    assert!(lines[2].contains("\"pass\":\"verify\"") && lines[2].contains("\"changed\":false"));
    assert!(lines
        .iter()
        .all(|l| l.contains("\"instructions\":11") && l.contains("\"microseconds\":")));
}

/// The debug-info audit in `--stats json`: the source lines each step covers, those it lost
/// against the step before, instructions without a line, and local variables described.
#[test]
fn stats_json_audits_debug_info() {
    let example =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.gVS.frag.spv");
    let out = shaderstep(&[
        "run",
        example.to_str().unwrap(),
        "--preset",
        "O",
        "--stats",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let field = |line: &str, name: &str| -> usize {
        let key = format!("\"{name}\":");
        let at = line
            .find(&key)
            .unwrap_or_else(|| panic!("no {name} in {line}"))
            + key.len();
        line[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect::<String>()
            .parse()
            .unwrap()
    };
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with('{')).collect();
    let covered: Vec<usize> = lines.iter().map(|l| field(l, "lines_covered")).collect();
    let lost: Vec<usize> = lines.iter().map(|l| field(l, "lines_lost")).collect();
    // The -gVS build covers its lines, the optimizer keeps nearly all of them, and what each
    // step lost adds up to what the run lost (no step gains a line it never had).
    assert!(covered[0] >= 40, "{covered:?}");
    assert!(
        *covered.last().unwrap() * 10 >= covered[0] * 9,
        "{covered:?}"
    );
    assert_eq!(lost[0], 0);
    assert!(lost.iter().sum::<usize>() >= covered[0] - covered.last().unwrap());
    let variables = field(lines[0], "variables");
    assert!(variables > 0 && field(lines[0], "variables_described") == variables);
    // A variable no longer described is lost at one step: what the steps lost accounts for
    // every variable the run stopped describing.
    let described_last = field(lines.last().unwrap(), "variables_described");
    let variables_lost: usize = lines.iter().map(|l| field(l, "variables_lost")).sum();
    assert!(variables_lost >= variables - described_last);
    // Without debug info there is nothing to cover.
    let dir = temp_dir("audit");
    let plain = dir.join("s.spvasm");
    std::fs::write(&plain, SMALL_ASM).unwrap();
    let out = shaderstep(&["run", plain.to_str().unwrap(), "--stats", "json"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text
        .lines()
        .all(|l| field(l, "lines_covered") == 0 && field(l, "variables") == 0));
}

#[test]
fn emits_every_format_to_files() {
    let dir = temp_dir("emit");
    let path = dir.join("s.spvasm");
    std::fs::write(&path, SMALL_ASM).unwrap();
    for (emit, check) in [
        ("spv", "binary"),
        ("spvasm", "OpCapability Shader"),
        ("ir", "; shaderstep IR"),
    ] {
        let out_path = dir.join(format!("out.{emit}"));
        let out = shaderstep(&[
            "run",
            path.to_str().unwrap(),
            "--emit",
            emit,
            "-o",
            out_path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let content = std::fs::read(&out_path).unwrap();
        if check == "binary" {
            assert_eq!(&content[..4], &0x0723_0203u32.to_le_bytes());
        } else {
            assert!(String::from_utf8_lossy(&content).contains(check));
        }
    }
}

#[test]
fn several_inputs_write_into_a_directory() {
    let dir = temp_dir("multi");
    let a = dir.join("a.spvasm");
    let b = dir.join("b.spvasm");
    std::fs::write(&a, SMALL_ASM).unwrap();
    std::fs::write(&b, SMALL_ASM).unwrap();
    let out_dir = dir.join("out");
    let out = shaderstep(&[
        "run",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(Path::new(&out_dir.join("a.spv")).exists() && out_dir.join("b.spv").exists());
}

#[test]
fn passes_lists_passes_and_presets() {
    let out = shaderstep(&["passes"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "lower",
        "verify",
        "compact-ids",
        "strip-debug",
        "lift",
        "roundtrip",
        "size",
    ] {
        assert!(text.contains(name), "`passes` does not list {name}");
    }
}

#[test]
fn ops_reference_page_is_current() {
    let out = shaderstep(&["ops", "--markdown"]);
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ops.md");
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        generated == checked_in,
        "docs/ops.md is stale: regenerate it with `cargo run -- ops --markdown > docs/ops.md`"
    );
}

#[test]
fn ops_json_lists_every_op_with_its_fields() {
    let out = shaderstep(&["ops", "--json"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("{\"ops\":["));
    let fadd = text
        .lines()
        .find(|l| l.contains("\"name\":\"OpFAdd\""))
        .expect("OpFAdd listed");
    for field in [
        "\"opcode\":129",
        "\"feature_id\":0",
        "\"class\":\"binary\"",
        "\"attributes\":[\"pure\",\"commutative\"]",
        "{\"width\":16,\"capability\":\"Float16\"}",
        "\"doc\":",
    ] {
        assert!(fadd.contains(field), "OpFAdd entry lacks {field}: {fadd}");
    }
}

const EXPERIMENTAL_ASM: &str = r#"; Version: 1.4
OpCapability Shader
%ss = OpExtInstImport "shaderstep.dialect"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%ptr = OpTypePointer Function %float
%c4 = OpConstant %uint 4
%main = OpFunction %void None %fn
%entry = OpLabel
%a = OpVariable %ptr Function
%b = OpVariable %ptr Function
%copy = qptr.copy %a %b %c4
OpReturn
OpFunctionEnd
"#;

#[test]
fn experimental_ops_need_the_flag_and_mark_the_module_preview() {
    let dir = temp_dir("experimental");
    let path = dir.join("copy.spvasm");
    std::fs::write(&path, EXPERIMENTAL_ASM).unwrap();
    let p = path.to_str().unwrap();

    let refused = shaderstep(&["run", p, "--passes", "lower,verify", "--emit", "ir"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains(&format!(
            "{p}: pass 'lower' failed\n  error: the input uses experimental op qptr.copy (FeatureID 0x8000): pass --experimental to accept it"
        )),
        "{}",
        stderr(&refused)
    );

    let stats = shaderstep(&[
        "run",
        p,
        "--passes",
        "lower,verify",
        "--experimental",
        "--stats",
        "json",
    ]);
    assert_eq!(stats.status.code(), Some(0), "{}", stderr(&stats));
    let lines = String::from_utf8(stats.stdout.clone()).unwrap();
    for line in lines.lines() {
        assert!(
            line.contains(r#""preview":true,"experimental_ops":["qptr.copy"]"#),
            "{line}"
        );
    }
    assert!(
        stderr(&stats).contains(&format!(
            "note: {p}: the result is a preview module: it uses experimental ops (qptr.copy)"
        )),
        "{}",
        stderr(&stats)
    );

    let printed = shaderstep(&[
        "run",
        p,
        "--passes",
        "lower,verify",
        "--experimental",
        "--print-after-all",
    ]);
    let text = String::from_utf8(printed.stdout).unwrap();
    assert!(
        text.contains("; *** IR after pass 2: verify (unchanged) [preview: qptr.copy] ***"),
        "{text}"
    );

    // Lifting refuses to emit a module still in the dialect.
    let lifted = shaderstep(&[
        "run",
        p,
        "--passes",
        "lower,lift",
        "--experimental",
        "-o",
        dir.join("out.spv").to_str().unwrap(),
    ]);
    assert_eq!(lifted.status.code(), Some(1));
    assert!(
        stderr(&lifted).contains(
            "the module still uses the shaderstep dialect (qptr.copy): run qptr-lift and assign-types before lift"
        ),
        "{}",
        stderr(&lifted)
    );
    assert!(!dir.join("out.spv").exists());
}

#[test]
fn stats_json_counts_bitcasts_pointers_and_qptr_ops() {
    // The bundled example through the default pipeline: qptr ops appear at qptr-lower and
    // are gone after qptr-lift; nothing falls back.
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.frag");
    let out = shaderstep(&[
        "run",
        example.to_str().unwrap(),
        "--preset",
        "default",
        "--stats",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let field = |line: &str, key: &str| -> usize {
        let at = line
            .find(&format!("\"{key}\":"))
            .unwrap_or_else(|| panic!("no {key} in {line}"));
        line[at + key.len() + 3..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect::<String>()
            .parse()
            .unwrap()
    };
    let step = |pass: &str| {
        text.lines()
            .find(|l| l.contains(&format!("\"pass\":\"{pass}\"")))
            .unwrap_or_else(|| panic!("no {pass} step in {text}"))
    };
    assert_eq!(field(step("lower"), "qptr_ops"), 0);
    assert!(field(step("qptr-lower"), "qptr_ops") > 0);
    assert_eq!(field(step("qptr-lift"), "qptr_ops"), 0);
    assert!(field(step("lower"), "pointer_values") > 0);
    for line in text.lines() {
        assert_eq!(field(line, "qptr_fallbacks"), 0, "{line}");
        assert_eq!(field(line, "bitcasts"), 0, "{line}");
    }
}

/// Without `--stats` or `--print-after-all` a run keeps no module per step; what it writes must
/// not depend on that, for every output kind and a preset that changes the module many times.
#[test]
fn output_is_the_same_with_and_without_step_snapshots() {
    let dir = temp_dir("snapshots");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/lighting.frag");
    for emit in ["spv", "spvasm", "ir"] {
        let mut written = Vec::new();
        for (k, extra) in [&[][..], &["--stats", "json"][..]].iter().enumerate() {
            let out_path = dir.join(format!("out{k}.{emit}"));
            let mut args = vec![
                "run",
                example.to_str().unwrap(),
                "--preset",
                "memory",
                "--emit",
                emit,
                "-o",
                out_path.to_str().unwrap(),
            ];
            args.extend_from_slice(extra);
            let out = shaderstep(&args);
            assert!(out.status.success(), "{}", stderr(&out));
            written.push(std::fs::read(&out_path).unwrap());
        }
        assert!(!written[0].is_empty(), "{emit}: nothing written");
        assert_eq!(written[0], written[1], "{emit}: outputs differ");
    }
}

/// `run --preset O` stands in for `spirv-opt -O` in a build: `IN -o OUT` or `-` for standard
/// input, exit 0 with a valid module, exit 1 with the file named on stderr and no output
/// written when the input is bad.
#[test]
fn run_preset_o_is_a_drop_in_for_spirv_opt() {
    let dir = temp_dir("drop-in");
    let source = dir.join("s.comp");
    std::fs::write(&source, include_str!("shaders/glslang/opt_scalar.comp")).unwrap();
    let out_path = dir.join("out.spv");
    let out = shaderstep(&[
        "run",
        "--preset",
        "O",
        source.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    let words = common::spv_words(&out_path);
    validate(&words, false).unwrap();

    // The same module through standard input gives the same bytes.
    let mut child = Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args(["run", "--preset", "O", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        &std::fs::read(&out_path).unwrap(),
    )
    .unwrap();
    let piped = child.wait_with_output().unwrap();
    assert!(piped.status.success());
    let again = common::words_to_bytes(&common::spv_words(&out_path));
    assert_eq!(piped.stdout, again, "O of O's output through stdin differs");

    let bad = dir.join("bad.spv");
    std::fs::write(&bad, &again[..again.len() / 2]).unwrap();
    let bad_out = dir.join("bad-out.spv");
    let out = shaderstep(&[
        "run",
        "--preset",
        "O",
        bad.to_str().unwrap(),
        "-o",
        bad_out.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(bad.to_str().unwrap()),
        "{}",
        stderr(&out)
    );
    assert!(!bad_out.exists(), "a failed run wrote its output");
}

/// `--validate-each` over a preset that goes through the dialect: the dialect steps are
/// validated as copies lifted back to SPIR-V (a note says so), and the run succeeds.
#[test]
fn validate_each_lifts_dialect_steps_before_spirv_val() {
    let dir = temp_dir("validate-dialect");
    let source = dir.join("s.comp");
    std::fs::write(&source, include_str!("shaders/glslang/opt_scalar.comp")).unwrap();
    let out = shaderstep(&[
        "run",
        "--preset",
        "default",
        "--validate-each",
        "--stats",
        "json",
        source.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stats = String::from_utf8_lossy(&out.stdout);
    let untype = stats
        .lines()
        .find(|l| l.contains("\"pass\":\"untype\""))
        .expect("an untype step");
    assert!(
        untype.contains("validated a copy lifted by qptr-analyze, qptr-lift, assign-types"),
        "{untype}"
    );
    assert!(!stats.contains("shaderstep.dialect'"), "{stats}");
}

#[test]
fn run_compiles_with_the_compilers_of_shaderstep_toml() {
    // A combined image sampler: naga's GLSL front end rejects it; the configured glslang takes
    // it, in `run` as in the TUI.
    common::tool("glslangValidator");
    let dir = temp_dir("run-config");
    std::fs::write(
        dir.join("shaderstep.toml"),
        "[compilers]\nfrag = \"glslangValidator -V {input} -o {output}\"\n",
    )
    .unwrap();
    let shader = dir.join("textured.frag");
    std::fs::write(
        &shader,
        "#version 450
layout(set = 0, binding = 0) uniform sampler2D albedo;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() { color = texture(albedo, uv) * 0.5; }
",
    )
    .unwrap();
    let out_path = dir.join("textured.spv");
    let out = shaderstep(&[
        "run",
        shader.to_str().unwrap(),
        "--preset",
        "O",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let words = common::spv_words(&out_path);
    validate(&words, false).unwrap_or_else(|e| panic!("{e}"));
}

/// Several inputs write one file each: `-o` names a directory, and a name like a file's is
/// refused instead of becoming a directory.
#[test]
fn several_inputs_want_an_output_directory() {
    let dir = temp_dir("several");
    let (a, b) = (dir.join("a.spvasm"), dir.join("b.spvasm"));
    std::fs::write(&a, SMALL_ASM).unwrap();
    std::fs::write(&b, SMALL_ASM).unwrap();
    let out = dir.join("multi.spv");
    let o = shaderstep(&[
        "run",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("-o names a directory"));
    assert!(!out.exists());
    let outdir = dir.join("out");
    let o = shaderstep(&[
        "run",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        outdir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(outdir.is_dir());
}

/// One numbering of steps: the step numbers `run --stats json` gives are the TUI's (`:step N`
/// selects the same pass) and the compared pipeline's (`:diff bN` names the same pass), for
/// our preset and for spirv-opt's passes as steps.
#[test]
fn steps_are_numbered_alike_in_the_cli_and_the_tui() {
    use shaderstep::app::replay::{run_script, Options};
    common::tool("spirv-opt");
    common::tool("glslangValidator");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/examples/lighting.frag");
    for (cli_pipeline, tui_pipeline, compare) in [
        (["--preset", "O"], "O", "O"),
        (
            ["--external", "spirv-opt -O"],
            "external spirv-opt -O",
            "spirv-opt -O",
        ),
    ] {
        let mut args = vec!["run", example, "--stats", "json"];
        args.extend(cli_pipeline);
        let out = shaderstep(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        let steps: Vec<(usize, String)> = text
            .lines()
            .map(|l| {
                let field = |name: &str| {
                    let from = l.find(&format!("\"{name}\":")).unwrap() + name.len() + 3;
                    let value = l[from..].trim_start_matches('"');
                    value.split([',', '"']).next().unwrap().to_string()
                };
                (field("step").parse().unwrap(), field("pass"))
            })
            .collect();
        assert_eq!(steps[0], (0, "source".to_string()), "{text}");
        let last = steps.len() - 1;
        let mut script = format!(
            "size 200x40\npipeline {tui_pipeline}\nopen {example}\ncmd :compare {compare}\n"
        );
        for (n, pass) in &steps {
            script.push_str(&format!(
                "cmd :step {n}\nexpect \"step {n}/{last} {pass}\"\n"
            ));
            if *n > 0 {
                script.push_str(&format!(
                    "cmd :diff b{n} {n}\nexpect \"diff b{n} {pass} → {n} {pass}\"\n"
                ));
            }
        }
        run_script(&script, Options::default())
            .unwrap_or_else(|e| panic!("{tui_pipeline}: {e}\n{script}"));
    }
}

/// `run … | head`: a reader that stops early ends the run quietly, with status 0.
#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    use std::io::Read;
    let dir = temp_dir("pipe");
    let path = dir.join("big.wgsl");
    // Enough statements that the IR text is larger than a pipe holds.
    let mut src = String::from(
        "@group(0) @binding(0) var<storage, read_write> b: array<f32>;\n@compute @workgroup_size(1) fn main() {\n",
    );
    for i in 0..4000 {
        src.push_str(&format!("    b[{i}] = b[{}] * 1.5 + 2.0;\n", i + 1));
    }
    src.push_str("}\n");
    std::fs::write(&path, src).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args(["run", path.to_str().unwrap(), "--emit", "ir"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe closes here, as head's does.
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}

/// `shaderstep cost`: a table per shader and step with the peak pressure and the mix; `--json`
/// one object per step; `--listing` the last step with the pressure after every line. The
/// same peak and mix are in `run --stats json`.
#[test]
fn cost_prints_pressure_and_mix_per_step() {
    common::tool("glslangValidator");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/examples/lighting.frag");
    let table = shaderstep(&["cost", example, "--preset", "memory"]);
    assert!(table.status.success(), "{}", stderr(&table));
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("pressure") && text.contains("transc"),
        "{text}"
    );
    let row = |pass: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(pass))
            .unwrap_or_else(|| panic!("no row for {pass}:\n{text}"))
            .split_whitespace()
            .nth(3)
            .unwrap()
            .parse::<u32>()
            .unwrap()
    };
    // mem2reg turns loads and stores of locals into values held in registers.
    assert!(row("mem2reg") > row("sroa"), "{text}");

    let json = shaderstep(&["cost", example, "--preset", "memory", "--json"]);
    let json = String::from_utf8(json.stdout).unwrap();
    let mem2reg = json
        .lines()
        .find(|l| l.contains("\"pass\":\"mem2reg\""))
        .unwrap();
    assert!(
        mem2reg.contains(&format!("\"max_pressure\":{}", row("mem2reg"))),
        "{mem2reg}"
    );
    assert!(mem2reg.contains("\"texture sample\":3"), "{mem2reg}");

    let stats = shaderstep(&["run", example, "--preset", "memory", "--stats", "json"]);
    let stats = String::from_utf8(stats.stdout).unwrap();
    let line = stats
        .lines()
        .find(|l| l.contains("\"pass\":\"mem2reg\""))
        .unwrap();
    assert!(
        line.contains(&format!("\"max_pressure\":{}", row("mem2reg"))),
        "{line}"
    );
    assert!(line.contains("\"mix\":{\"arithmetic\":"), "{line}");

    let listing = shaderstep(&["cost", example, "--listing"]);
    let listing = String::from_utf8(listing.stdout).unwrap();
    assert!(listing.contains("; module max "), "{listing}");
    assert!(
        listing
            .lines()
            .any(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit())
                && l.contains("OpImageSampleImplicitLod")),
        "{listing}"
    );

    let missing = shaderstep(&["cost", "no-such-file.spv"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("no-such-file.spv"),
        "{}",
        stderr(&missing)
    );
}

/// `run DIR -o OUT`: a tree compiled as a batch, several shaders at once, mirrored under OUT;
/// a file that is not a shader is skipped, a broken shader is reported while the others are
/// written; outputs newer than their inputs are kept unless `--force`.
#[test]
fn a_tree_compiles_as_a_batch() {
    let dir = temp_dir("batch");
    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    std::fs::write(tree.join("small.spvasm"), SMALL_ASM).unwrap();
    std::fs::write(
        tree.join("sub/tint.wgsl"),
        "@fragment fn main(@location(0) c: vec4<f32>) -> @location(0) vec4<f32> { return c * 2.0; }\n",
    )
    .unwrap();
    std::fs::write(tree.join("sub/broken.wgsl"), "fn main( {").unwrap();
    std::fs::write(tree.join("notes.txt"), "not a shader").unwrap();
    let out = dir.join("out");
    let args = |extra: &[&str]| {
        let mut a = vec!["run", tree.to_str().unwrap(), "--preset", "O", "-o"];
        a.push(out.to_str().unwrap());
        a.extend_from_slice(extra);
        shaderstep(&a)
    };
    let first = args(&["-j", "2", "--stats", "json"]);
    let err = stderr(&first);
    assert_eq!(first.status.code(), Some(1), "{err}");
    assert!(err.contains("3 shaders into"), "{err}");
    assert!(err.contains("2 written, 0 up to date"), "{err}");
    assert!(err.contains("1 failed"), "{err}");
    assert!(err.contains("broken.wgsl"), "{err}");
    for written in ["small.spv", "sub/tint.spv"] {
        let words = common::spv_words(&out.join(written));
        validate(&words, false).unwrap_or_else(|e| panic!("{written}: {e}"));
    }
    assert!(!out.join("notes.spv").exists());
    let json = String::from_utf8(first.stdout).unwrap();
    assert_eq!(json.lines().count(), 3, "{json}");
    assert!(
        json.contains("\"status\":\"written\",\"instructions_before\":"),
        "{json}"
    );
    assert!(json.contains("\"status\":\"failed\""), "{json}");

    // Again: what was written is newer than its input and stays; --force replaces it.
    let again = args(&[]);
    assert!(
        stderr(&again).contains("0 written, 2 up to date"),
        "{}",
        stderr(&again)
    );
    let forced = args(&["--force"]);
    assert!(
        stderr(&forced).contains("2 written, 0 up to date"),
        "{}",
        stderr(&forced)
    );

    // Without -o a directory is refused, saying how.
    let refused = shaderstep(&["run", tree.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("give -o OUTDIR"),
        "{}",
        stderr(&refused)
    );
}

/// The TUI without a terminal (a pipe, a CI job): said in words, no panic and no escape codes.
#[test]
fn the_tui_without_a_terminal_says_so() {
    let o = Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("assets/examples/lighting.frag")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run shaderstep");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(!err.contains("panicked") && o.stdout.is_empty(), "{err}");
}

#[test]
fn each_command_s_help_starts_with_its_own_description() {
    for (command, starts) in [
        ("cost", "What each step costs the GPU"),
        ("reduce", "Reduce a shader to the smallest one"),
        ("exec", "Run a step in shaderstep's interpreter"),
    ] {
        let out = shaderstep(&[command, "--help"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.starts_with(starts),
            "`{command} --help` starts with another text:\n{text}"
        );
    }
}

/// `run --bisect-run --oracle interp`: no driver is needed, and the summary says the
/// interpreter ran the steps, a fragment shader's drawn.
#[test]
fn bisect_run_takes_the_oracle() {
    let file = |p: &str| format!("{}/tests/shaders/{p}", env!("CARGO_MANIFEST_DIR"));
    let comp = file("glslang/dxbc_loop.comp");
    let args = ["--preset", "O", "--bisect-run", "--oracle", "interp"];
    let out = shaderstep(&[&["run", comp.as_str()][..], &args].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(
        text.contains("every step computes what the input does")
            && text.contains("on the interpreter: ")
            && text.contains("the interpreter decides"),
        "{text}"
    );
    let frag = file("pipeline/lit.frag");
    let out = shaderstep(&[&["run", frag.as_str()][..], &args].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(
        text.contains("behind a generated vertex stage")
            && text.contains("the interpreter decides"),
        "{text}"
    );
    let out = shaderstep(&["run", comp.as_str(), "--bisect-run", "--oracle", "gpu"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `run DIR` and `cost DIR` read the directory's own shaderstep.toml (as the TUI does): its
/// compiler for `.hlsl` (here spirv-as, on assembly) compiles the tree's HLSL, which nothing
/// else would take.
#[test]
fn a_directory_reads_its_own_settings() {
    let dir = temp_dir("dir-settings");
    let tree = dir.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("asm.hlsl"), SMALL_ASM).unwrap();
    let spirv_as = common::tool("spirv-as");
    std::fs::write(
        tree.join("shaderstep.toml"),
        format!(
            "[compilers]\nhlsl = \"{} {{input}} -o {{output}}\"\n",
            spirv_as.display()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let r = shaderstep(&["run", tree.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(r.status.success(), "{}", stderr(&r));
    let r = shaderstep(&["cost", tree.to_str().unwrap()]);
    assert!(r.status.success(), "{}", stderr(&r));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cost DIR`: every shader under the directory (as `run DIR -o OUT` finds them: files that
/// are not shaders skipped), each reported; a directory with none is an error.
#[test]
fn cost_takes_a_directory() {
    let dir = temp_dir("cost-dir");
    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    std::fs::write(tree.join("small.spvasm"), SMALL_ASM).unwrap();
    std::fs::write(
        tree.join("sub/tint.wgsl"),
        "@fragment fn main(@location(0) c: vec4<f32>) -> @location(0) vec4<f32> { return c * 2.0; }\n",
    )
    .unwrap();
    std::fs::write(tree.join("notes.txt"), "not a shader").unwrap();
    let out = shaderstep(&["cost", tree.to_str().unwrap(), "--preset", "O"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    for shader in ["small.spvasm", "tint.wgsl"] {
        assert!(
            text.lines()
                .any(|l| l.ends_with(shader) && l.starts_with(tree.to_str().unwrap())),
            "no table for {shader}:\n{text}"
        );
    }
    assert_eq!(text.matches("pressure").count(), 2, "{text}");
    assert!(!text.contains("notes.txt"), "{text}");
    let json = shaderstep(&["cost", tree.to_str().unwrap(), "--json"]);
    let json = String::from_utf8_lossy(&json.stdout);
    assert!(
        json.contains("small.spvasm\",\"step\":") && json.contains("tint.wgsl\",\"step\":"),
        "{json}"
    );
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = shaderstep(&["cost", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no shaders under it"),
        "{}",
        stderr(&out)
    );
}

/// `completions SHELL`: a script clap_complete makes from the command line the binary parses
/// (subcommands, their options, the presets); a shell it does not know is a usage error.
#[test]
fn completions_cover_the_subcommands() {
    let out = shaderstep(&["completions", "bash"]);
    let script = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(script.contains("complete -F _shaderstep"), "{script}");
    for word in ["run", "reduce", "cost", "--print-after-all", "O-size"] {
        assert!(script.contains(word), "no {word} in the bash script");
    }
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = shaderstep(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("reduce"),
            "{shell}"
        );
    }
    let out = shaderstep(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("bash"), "{}", stderr(&out));
}

/// The subcommands, as the command line declares them (not clap's own `help`).
fn subcommands() -> Vec<clap::Command> {
    use clap::CommandFactory;
    let mut cmd = shaderstep::app::cli::Cli::command();
    cmd.build();
    cmd.get_subcommands()
        .filter(|s| s.get_name() != "help")
        .cloned()
        .collect()
}

/// `man`: one roff page, a section per subcommand holding every one of its options.
#[test]
fn man_page_covers_every_subcommand_and_option() {
    let out = shaderstep(&["man"]);
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    // Only roff requests (string definitions) come before the title.
    let title = page.lines().position(|l| l.starts_with(".TH shaderstep 1"));
    let title = title.unwrap_or_else(|| panic!("no .TH:\n{page}"));
    assert!(
        page.lines().take(title).all(|l| l.starts_with('.')),
        "{page}"
    );
    let subs = subcommands();
    assert!(subs.len() >= 9, "{}", subs.len());
    for sub in &subs {
        let heading = format!(".SH \"SHADERSTEP {}\"", sub.get_name().to_uppercase());
        let start = page
            .find(&heading)
            .unwrap_or_else(|| panic!("no section {heading}"));
        let section = &page[start + heading.len()..];
        let section = &section[..section.find("\n.SH ").unwrap_or(section.len())];
        for long in sub.get_arguments().filter_map(|a| a.get_long()) {
            // roff escapes every dash.
            let option = format!("\\-\\-{}", long.replace('-', "\\-"));
            assert!(
                section.contains(&option),
                "{heading} does not list --{long}"
            );
        }
        assert!(section.contains(".SS EXAMPLES"), "{heading}: no examples");
    }
}

/// Every command's help ends with examples, as ripgrep's and cargo's do.
#[test]
fn every_command_s_help_has_examples() {
    let out = shaderstep(&["--help"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\nExamples:\n  shaderstep"),
        "shaderstep --help"
    );
    for sub in subcommands() {
        let name = sub.get_name();
        let out = shaderstep(&[name, "--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(
            help.contains(&format!("\nExamples:\n  shaderstep {name}")),
            "`{name} --help` has no examples:\n{help}"
        );
    }
}
