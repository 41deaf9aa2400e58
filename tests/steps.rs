//! `--steps`: another compiler's dumps after its passes open as the steps of one pipeline. The
//! dumps here are spirv-opt's, written pass by pass by the test (binary and assembly), in a
//! directory whose names sort as numbers, with one file that is not SPIR-V among them.

mod common;

use std::path::Path;
use std::process::Command;

use common::{shaderstep, temp_dir, tool, words_to_bytes};

/// Runs spirv-opt with `flag` on `from`, writing `to`.
fn spirv_opt(flag: &str, from: &Path, to: &Path) {
    let r = Command::new(tool("spirv-opt"))
        .arg(flag)
        .arg(from)
        .arg("-o")
        .arg(to)
        .output()
        .expect("spirv-opt runs");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
}

/// A directory of a shader and what three spirv-opt passes made of it, one after another,
/// and the last again as assembly.
fn dumps(tag: &str) -> std::path::PathBuf {
    let dir = temp_dir(tag);
    let source = "#version 450\n\
        layout(local_size_x = 8) in;\n\
        layout(binding = 0) buffer B { float v[]; };\n\
        float twice(float x) { float y = x; y = y * 2.0; return y; }\n\
        void main() {\n\
          uint i = gl_GlobalInvocationID.x;\n\
          float unused = v[i] + 1.0;\n\
          v[i] = twice(v[i]);\n\
        }\n";
    let words = common::glslang_words("dumped.comp", source.as_bytes(), &[]);
    std::fs::write(dir.join("00-input.spv"), words_to_bytes(&words)).unwrap();
    spirv_opt(
        "--inline-entry-points-exhaustive",
        &dir.join("00-input.spv"),
        &dir.join("1-inline.spv"),
    );
    spirv_opt(
        "--eliminate-local-multi-store",
        &dir.join("1-inline.spv"),
        &dir.join("2_ssa.spv"),
    );
    spirv_opt(
        "--eliminate-dead-code-aggressive",
        &dir.join("2_ssa.spv"),
        &dir.join("10-adce.spv"),
    );
    let text = common::spirv_dis(&common::spv_words(&dir.join("10-adce.spv")), &[]);
    std::fs::write(dir.join("11-again.spvasm"), text).unwrap();
    dir
}

/// The step headers `run --print-after-all` printed: (name, changed).
fn headers(out: &[u8]) -> Vec<(String, bool)> {
    String::from_utf8_lossy(out)
        .lines()
        .filter_map(|l| l.strip_prefix("; *** IR after pass "))
        .map(|l| {
            let (_, rest) = l.split_once(": ").unwrap();
            let (name, state) = rest.split_once(" (").unwrap();
            (name.to_string(), state.starts_with("changed"))
        })
        .collect()
}

#[test]
fn a_directory_of_dumps_opens_as_steps_in_natural_order() {
    let dir = dumps("steps-dir");
    let r = shaderstep(&["run", "--steps", dir.to_str().unwrap(), "--print-after-all"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let steps = headers(&r.stdout);
    let names: Vec<&str> = steps.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["input", "inline", "ssa", "adce", "again"]);
    let changed: Vec<bool> = steps.iter().map(|&(_, c)| c).collect();
    // Inlining, SSA and dead code each change the module; the assembly is the same module.
    assert_eq!(changed, [true, true, true, true, false]);
    // The steps are the files' modules: the inlined call is gone from the second on.
    let text = String::from_utf8_lossy(&r.stdout);
    let after_inline = text.split("IR after pass 1:").nth(1).unwrap();
    assert!(!after_inline.contains("FunctionCall"), "{after_inline}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dump_that_does_not_read_is_a_step_with_its_error() {
    let dir = dumps("steps-broken");
    std::fs::write(dir.join("3-broken.spv"), b"not a module").unwrap();
    let r = shaderstep(&["run", "--steps", dir.to_str().unwrap(), "--print-after-all"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(
        err.contains("3-broken.spv: does not read"),
        "the file and the cause: {err}"
    );
    let names: Vec<String> = headers(&r.stdout).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["input", "inline", "ssa", "broken", "adce", "again"],
        "the steps after it still open"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A dump that reads but does not validate (an OpFAdd made an OpIAdd) is a marked step with
/// spirv-val's message, and, where spirv-val is not installed, our verifier's; the steps after
/// it still open.
#[test]
fn a_dump_that_does_not_validate_is_marked() {
    let dir = dumps("steps-invalid");
    let text = common::spirv_dis(&common::spv_words(&dir.join("10-adce.spv")), &["--raw-id"]);
    assert!(
        text.contains("OpFMul"),
        "the shader multiplies floats: {text}"
    );
    std::fs::write(
        dir.join("3-broken.spvasm"),
        text.replacen("OpFMul", "OpIMul", 1),
    )
    .unwrap();
    let args = ["run", "--steps", dir.to_str().unwrap(), "--print-after-all"];
    let r = shaderstep(&args);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(
        err.contains("pass 'broken' failed")
            && err.contains("spirv-val")
            && err.contains("Expected int scalar or vector type as Result Type"),
        "spirv-val's message: {err}"
    );
    let names: Vec<String> = headers(&r.stdout).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["input", "inline", "ssa", "broken", "adce", "again"]);
    // No spirv-val on PATH: our verifier judges.
    let no_tools = temp_dir("steps-invalid-no-tools");
    let r = std::process::Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args(args)
        .env("PATH", &no_tools)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(
        err.contains("pass 'broken' broke the IR: 1 verifier error") && err.contains("OpIMul"),
        "the verifier's message: {err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&no_tools);
}

#[test]
fn too_few_dumps_are_said() {
    let dir = temp_dir("steps-few");
    let r = shaderstep(&["run", "--steps", dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(err.contains("no modules in it"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// spirv-opt's `--print-all` log (as DXC's `-fspv-print-all` prints it too), from a file and
/// from standard input, and our own `--print-after-all` read back: the same steps.
#[test]
fn print_all_logs_open_as_the_steps_they_print() {
    let dir = dumps("steps-log");
    let r = Command::new(tool("spirv-opt"))
        .args(["-O", "--print-all"])
        .arg(dir.join("00-input.spv"))
        .arg("-o")
        .arg(dir.join("out.spv"))
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let log = dir.join("opt.log");
    std::fs::write(&log, &r.stderr).unwrap();
    let from_file = shaderstep(&["run", "--steps", log.to_str().unwrap(), "--print-after-all"]);
    assert!(
        from_file.status.success(),
        "{}",
        String::from_utf8_lossy(&from_file.stderr)
    );
    let steps = headers(&from_file.stdout);
    assert_eq!(steps[0].0, "input");
    assert_eq!(
        steps[1].0, "wrap-opkill",
        "named by the passes the log names"
    );
    assert!(steps.len() > 20, "{steps:?}");
    assert!(
        steps
            .iter()
            .any(|(n, c)| n == "inline-entry-points-exhaustive" && *c),
        "{steps:?}"
    );
    // The log's last module is what spirv-opt wrote.
    let last = String::from_utf8_lossy(&from_file.stdout)
        .rsplit("; *** IR after pass ")
        .next()
        .unwrap()
        .to_string();
    let written = common::spirv_dis(&common::spv_words(&dir.join("out.spv")), &[]);
    let stores = |t: &str| t.matches("OpStore").count();
    assert_eq!(stores(&last), stores(&written));

    let mut child = Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .args(["run", "--steps", "-", "--print-after-all"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&r.stderr).unwrap();
    }
    let from_stdin = child.wait_with_output().unwrap();
    assert_eq!(
        headers(&from_stdin.stdout),
        steps,
        "the same from standard input"
    );

    // Our own log of the dumps reads back as the same steps.
    let ours = shaderstep(&["run", "--steps", dir.to_str().unwrap(), "--print-after-all"]);
    let our_log = dir.join("ours.log");
    std::fs::write(&our_log, &ours.stdout).unwrap();
    let again = shaderstep(&[
        "run",
        "--steps",
        our_log.to_str().unwrap(),
        "--print-after-all",
    ]);
    assert_eq!(headers(&again.stdout), headers(&ours.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A step the test breaks on purpose (a multiply made an add, in assembly): the semantic
/// bisect over the dumps blames it by its file's name.
#[test]
fn the_bisect_finds_the_dump_that_computes_otherwise() {
    let dir = dumps("steps-bisect");
    let _ = std::fs::remove_file(dir.join("11-again.spvasm"));
    let text = common::spirv_dis(&common::spv_words(&dir.join("10-adce.spv")), &[]);
    assert!(text.contains("OpFMul"), "{text}");
    std::fs::write(
        dir.join("12-broken.spvasm"),
        text.replace("OpFMul", "OpFAdd"),
    )
    .unwrap();
    std::fs::write(
        dir.join("13-after.spvasm"),
        text.replace("OpFMul", "OpFAdd"),
    )
    .unwrap();
    let r = shaderstep(&[
        "run",
        "--steps",
        dir.to_str().unwrap(),
        "--bisect-run",
        "--oracle",
        "interp",
    ]);
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(
        out.contains("first step whose results differ: 4 broken"),
        "{out}"
    );
    assert!(out.contains("OpFAdd"), "the first differing value: {out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--steps-cmd`: a command that writes dumps to `$OUT`, and one that only prints spirv-opt's
/// log; its directory goes when the run is done; a failing command is said with its words.
#[test]
fn a_command_writes_the_steps() {
    let dir = dumps("steps-cmd");
    let copy = format!(
        "cp '{}'/*.spv \"$OUT\"/",
        dir.display().to_string().replace('\'', "'\\''")
    );
    let r = shaderstep(&["run", "--steps-cmd", &copy, "--print-after-all"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let names: Vec<String> = headers(&r.stdout).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["input", "inline", "ssa", "adce"]);
    let opt = format!(
        "'{}' -O --print-all '{}' -o /dev/null",
        tool("spirv-opt").display(),
        dir.join("00-input.spv").display()
    );
    let r = shaderstep(&["run", "--steps-cmd", &opt, "--stats", "json"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let stats = String::from_utf8_lossy(&r.stdout);
    assert!(stats.contains("\"pass\":\"wrap-opkill\""), "{stats}");
    let r = shaderstep(&["run", "--steps-cmd", "echo no such compiler >&2; exit 3"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(
        err.contains("failed") && err.contains("no such compiler"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `exec`, `cost` and `reduce` take the dumps as the steps after an input given apart: a
/// dump runs on the interpreter by its name, the cost table has a row per dump, and a
/// reduction judged at a step is refused (a candidate does not change the dumps).
#[test]
fn exec_cost_and_reduce_take_the_dumps_as_steps() {
    let dir = dumps("steps-commands");
    let input = dir.join("00-input.spv");
    let (input, dir_arg) = (input.to_str().unwrap(), dir.to_str().unwrap());
    let r = shaderstep(&["exec", input, "--steps", dir_arg, "--step", "adce"]);
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(out.contains("step 4 (adce)"), "{out}");
    assert!(out.contains("instructions executed"), "{out}");
    let r = shaderstep(&["cost", input, "--steps", dir_arg]);
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    for name in ["inline", "ssa", "adce", "again"] {
        assert!(out.contains(name), "{name}: {out}");
    }
    let r = shaderstep(&["reduce", input, "--steps", dir_arg, "--until", "differs"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(err.contains("reduce them with a command"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
