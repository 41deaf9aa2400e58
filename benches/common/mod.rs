//! Shared benchmark input: a large generated module; and the process's memory.

use std::fmt::Write;

/// A fragment-like module with `functions` helper functions, each with a loop, a branch and
/// a chain of arithmetic — tens of thousands of instructions for a few hundred functions.
pub fn large_module_text(functions: usize) -> String {
    let mut s = String::new();
    let names: String = (0..functions)
        .map(|f| format!("OpName %fn{f} \"helper_{f}\"\n"))
        .collect();
    s.push_str(
        &r#"; Version: 1.3
OpCapability Shader
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %in_v %out_c
OpExecutionMode %main OriginUpperLeft
{names}OpDecorate %in_v Location 0
OpDecorate %out_c Location 0
%void = OpTypeVoid
%fn_void = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%bool = OpTypeBool
%v4float = OpTypeVector %float 4
%fn_f = OpTypeFunction %float %float %int
%ptr_in = OpTypePointer Input %v4float
%ptr_out = OpTypePointer Output %v4float
%ptr_fn_float = OpTypePointer Function %float
%in_v = OpVariable %ptr_in Input
%out_c = OpVariable %ptr_out Output
%k_f0 = OpConstant %float 0
%k_f1 = OpConstant %float 1
%k_f2 = OpConstant %float 2
%k_fhalf = OpConstant %float 0.5
%k_i0 = OpConstant %int 0
%k_i1 = OpConstant %int 1
"#
        .replace("{names}", &names),
    );
    for f in 0..functions {
        let _ = write!(
            s,
            r#"%fn{f} = OpFunction %float None %fn_f
%x{f} = OpFunctionParameter %float
%n{f} = OpFunctionParameter %int
%e{f} = OpLabel
%acc{f} = OpVariable %ptr_fn_float Function
OpStore %acc{f} %x{f}
OpBranch %h{f}
%h{f} = OpLabel
%i{f} = OpPhi %int %k_i0 %e{f} %inext{f} %c{f}
%cond{f} = OpSLessThan %bool %i{f} %n{f}
OpLoopMerge %m{f} %c{f} None
OpBranchConditional %cond{f} %b{f} %m{f}
%b{f} = OpLabel
%a{f} = OpLoad %float %acc{f}
"#
        );
        // A long arithmetic chain in the loop body.
        let mut prev = format!("%a{f}");
        for k in 0..40 {
            let op = ["OpFMul", "OpFAdd", "OpFSub"][k % 3];
            let c = ["%k_fhalf", "%k_f1", "%k_f2"][k % 3];
            let _ = writeln!(s, "%t{f}_{k} = {op} %float {prev} {c}");
            prev = format!("%t{f}_{k}");
        }
        let _ = write!(
            s,
            r#"%gt{f} = OpFOrdGreaterThan %bool {prev} %k_f2
OpSelectionMerge %j{f} None
OpBranchConditional %gt{f} %s{f} %j{f}
%s{f} = OpLabel
%sq{f} = OpExtInst %float %glsl Sqrt {prev}
OpBranch %j{f}
%j{f} = OpLabel
%r{f} = OpPhi %float {prev} %b{f} %sq{f} %s{f}
OpStore %acc{f} %r{f}
OpBranch %c{f}
%c{f} = OpLabel
%inext{f} = OpIAdd %int %i{f} %k_i1
OpBranch %h{f}
%m{f} = OpLabel
%res{f} = OpLoad %float %acc{f}
OpReturnValue %res{f}
OpFunctionEnd
"#
        );
    }
    s.push_str(
        r#"%main = OpFunction %void None %fn_void
%me = OpLabel
%v = OpLoad %v4float %in_v
%vx = OpCompositeExtract %float %v 0
"#,
    );
    let mut prev = "%vx".to_string();
    for f in 0..functions {
        let _ = writeln!(s, "%call{f} = OpFunctionCall %float %fn{f} {prev} %k_i1");
        prev = format!("%call{f}");
    }
    let _ = write!(
        s,
        r#"%outv = OpCompositeConstruct %v4float {prev} {prev} {prev} %k_f1
OpStore %out_c %outv
OpReturn
OpFunctionEnd
"#
    );
    s
}

/// `large_module_text` built with `-g`: an `OpString` names `file`, and every instruction of
/// the arithmetic chains has an `OpLine` into it (45 lines a function); with the text of a
/// source file of as many lines, for the source pane.
#[allow(dead_code)] // only the TUI benchmark shows a source pane
pub fn large_module_with_lines(functions: usize, file: &str) -> (String, String) {
    let mut out = String::new();
    let mut named = false;
    for line in large_module_text(functions).lines() {
        if !named && line.starts_with("OpName") {
            out.push_str(&format!("%srcfile = OpString \"{file}\"\n"));
            named = true;
        }
        // `%t{f}_{k} = …`: line f * 45 + k + 1.
        if let Some(rest) = line.strip_prefix("%t") {
            if let Some((f, k)) = rest
                .split(' ')
                .next()
                .and_then(|id| id.split_once('_'))
                .and_then(|(f, k)| Some((f.parse::<usize>().ok()?, k.parse::<usize>().ok()?)))
            {
                out.push_str(&format!("OpLine %srcfile {} 5\n", f * 45 + k + 1));
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    let source: String = (0..functions * 45)
        .map(|n| format!("    x = x * {}.0 + {}.0; // line {}\n", n % 7, n % 5, n + 1))
        .collect();
    (out, source)
}

/// A `/proc/self/status` figure in KiB (`VmRSS:`, `VmHWM:`); 0 where there is none.
#[allow(dead_code)]
pub fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
