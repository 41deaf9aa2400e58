//! Module linking (`--preset link`): imports resolved against exports with type checks, equal
//! types merged, unused exports dropped, the Linkage capability removed; every output
//! validates, and `spirv-link` on the same inputs is the reference.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{shaderstep, tool};

const LIB: &str = "tests/shaders/spvasm/link/export_lib.spvasm";
const MAIN: &str = "tests/shaders/spvasm/link/import_main.spvasm";

fn scratch() -> PathBuf {
    common::temp_dir("link")
}

fn validate(path: &Path) {
    let out = Command::new(tool("spirv-val")).arg(path).output().unwrap();
    assert!(
        out.status.success(),
        "{} does not validate: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Instructions in a binary, by opcode name, from spirv-dis.
fn ops(path: &Path) -> Vec<String> {
    let out = Command::new(tool("spirv-dis"))
        .args(["--raw-id", "--no-header"])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            l.split_whitespace()
                .find(|w| w.starts_with("Op"))
                .map(str::to_string)
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn links_like_spirv_link_and_validates() {
    let dir = scratch();
    let out = dir.join("linked.spv");
    let r = shaderstep(&[
        "run",
        MAIN,
        LIB,
        "--preset",
        "link",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    validate(&out);

    // The reference: spirv-link on the same modules, assembled by us.
    let (a, b) = (dir.join("main.spv"), dir.join("lib.spv"));
    for (src, bin) in [(MAIN, &a), (LIB, &b)] {
        let r = shaderstep(&["run", src, "-o", bin.to_str().unwrap()]);
        assert!(r.status.success());
    }
    let reference = dir.join("reference.spv");
    let r = Command::new(tool("spirv-link"))
        .arg(&a)
        .arg(&b)
        .arg("-o")
        .arg(&reference)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    validate(&reference);

    let (ours, theirs) = (ops(&out), ops(&reference));
    let count = |v: &[String], op: &str| v.iter().filter(|o| *o == op).count();
    for op in [
        "OpFunction",
        "OpFunctionCall",
        "OpEntryPoint",
        "OpTypeFloat",
        "OpTypeFunction",
        "OpConstant",
        "OpFMul",
    ] {
        assert_eq!(
            count(&ours, op),
            count(&theirs, op),
            "{op}: ours {ours:?}\nspirv-link {theirs:?}"
        );
    }
    assert_eq!(count(&ours, "OpCapability"), 1, "Linkage is gone: {ours:?}");
    assert!(
        ours.len() <= theirs.len(),
        "ours {} instructions, spirv-link {}",
        ours.len(),
        theirs.len()
    );
}

const LIB_TWO: &str = "; Version: 1.3
OpCapability Shader
OpCapability Linkage
OpMemoryModel Logical GLSL450
OpDecorate %scale LinkageAttributes \"scale\" Export
OpDecorate %unused LinkageAttributes \"unused\" Export
%float = OpTypeFloat 32
%fn = OpTypeFunction %float %float
%float_3 = OpConstant %float 3
%scale = OpFunction %float None %fn
%x = OpFunctionParameter %float
%e = OpLabel
%r = OpFMul %float %x %float_3
OpReturnValue %r
OpFunctionEnd
%unused = OpFunction %float None %fn
%y = OpFunctionParameter %float
%e2 = OpLabel
%s = OpFAdd %float %y %float_3
OpReturnValue %s
OpFunctionEnd
";

#[test]
fn unused_exports_are_dropped_unless_kept() {
    let dir = scratch();
    let lib = write(&dir, "lib2.spvasm", LIB_TWO);
    let out = dir.join("out.spvasm");
    let r = shaderstep(&[
        "run",
        MAIN,
        &lib,
        "--preset",
        "link",
        "--emit",
        "spvasm",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        !text.contains("OpFAdd"),
        "the unused export's body is gone:\n{text}"
    );
    assert!(!text.contains("Linkage"), "{text}");

    let r = shaderstep(&[
        "run",
        MAIN,
        &lib,
        "--preset",
        "link",
        "--keep-exports",
        "--emit",
        "spvasm",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("OpFAdd"), "{text}");
    assert!(
        text.contains("LinkageAttributes \"unused\" Export"),
        "{text}"
    );
    assert!(text.contains("OpCapability Linkage"), "{text}");
    assert!(!text.contains("Import"), "the import was resolved: {text}");
}

#[test]
fn an_unresolved_import_names_the_import_and_its_module() {
    let dir = scratch();
    let other = write(
        &dir,
        "other.spvasm",
        &LIB_TWO.replace("\"scale\"", "\"scaled\""),
    );
    let r = shaderstep(&["run", MAIN, &other, "--preset", "link", "--emit", "ir"]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("unresolved import 'scale' (%"), "{err}");
    assert!(
        err.contains(" in tests/shaders/spvasm/link/import_main.spvasm): no module exports it"),
        "{err}"
    );
}

#[test]
fn a_type_mismatch_names_both_sides() {
    let dir = scratch();
    let int_lib = "; Version: 1.3
OpCapability Shader
OpCapability Linkage
OpMemoryModel Logical GLSL450
OpDecorate %scale LinkageAttributes \"scale\" Export
%int = OpTypeInt 32 1
%fn = OpTypeFunction %int %int
%scale = OpFunction %int None %fn
%x = OpFunctionParameter %int
%e = OpLabel
OpReturnValue %x
OpFunctionEnd
";
    let lib = write(&dir, "intlib.spvasm", int_lib);
    let r = shaderstep(&["run", MAIN, &lib, "--preset", "link", "--emit", "ir"]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("'scale' is imported as %"), "{err}");
    assert!(err.contains("but exported as %"), "{err}");
    assert!(
        err.contains("intlib.spvasm"),
        "names the exporting module: {err}"
    );
    assert!(
        err.contains("import_main.spvasm"),
        "names the importing module: {err}"
    );
}

#[test]
fn exported_twice_is_an_error_and_one_input_is_not_enough() {
    let dir = scratch();
    let r = shaderstep(&["run", MAIN, LIB, LIB, "--preset", "link", "--emit", "ir"]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("'scale' is exported twice"), "{err}");
    let r = shaderstep(&["run", MAIN, "--preset", "link", "--emit", "ir"]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("linking needs at least two inputs"));
    let _ = dir;
}
