//! A step read as a shading language: GLSL, HLSL and MSL written by SPIRV-Cross, WGSL by naga
//! (its SPIR-V front end, then its WGSL back end, where it accepts the step).
//!
//! Both run in a child process, the shaderstep binary started as `shaderstep __decompile
//! LANG` with the module's words on its standard input: SPIRV-Cross is C++ that can abort or
//! crash on a module it does not expect, and a crash or a hang is this step's error, never the
//! end of shaderstep. GLSL keeps Vulkan semantics (what glslang compiles back) and `#line`
//! directives where the module has line info, which tell each line's source line.

use std::io::{Read, Write};
use std::time::Duration;

use crate::ir::Module;

/// The argument that makes the shaderstep binary a decompiler.
pub const WORKER_ARG: &str = "__decompile";

/// How long a step may take to decompile.
const LIMIT: Duration = Duration::from_secs(20);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    Glsl,
    Hlsl,
    Msl,
    Wgsl,
}

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::Glsl, Lang::Hlsl, Lang::Msl, Lang::Wgsl];

    pub fn name(self) -> &'static str {
        match self {
            Lang::Glsl => "glsl",
            Lang::Hlsl => "hlsl",
            Lang::Msl => "msl",
            Lang::Wgsl => "wgsl",
        }
    }

    pub fn parse(name: &str) -> Option<Lang> {
        Lang::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name))
    }

    /// Who writes it.
    pub fn writer(self) -> &'static str {
        match self {
            Lang::Wgsl => "naga",
            _ => "SPIRV-Cross",
        }
    }
}

/// `words` as `lang`, in this process: what the worker does.
pub fn translate(words: &[u32], lang: Lang) -> Result<String, String> {
    use spirv_cross2::compile::CompilableTarget;
    use spirv_cross2::targets::{Glsl, Hlsl, Msl};
    use spirv_cross2::{Compiler, Module as CrossModule};
    let cross = |e: spirv_cross2::SpirvCrossError| format!("SPIRV-Cross: {e}");
    let trimmed = match lang {
        Lang::Wgsl => None,
        _ => without_unneeded_variable_pointers(words),
    };
    let words = trimmed.as_deref().unwrap_or(words);
    match lang {
        Lang::Glsl => {
            use spirv_cross2::compile::glsl::GlslVersion;
            let glsl = |version| {
                let c = Compiler::<Glsl>::new(CrossModule::from_words(words))?;
                let mut o = Glsl::options();
                o.version = version;
                o.vulkan_semantics = true;
                o.common.emit_line_directives = true;
                c.compile(&o).map(|text| text.to_string())
            };
            // 450 reads like most shaders; what needs 460 (ray queries) gets it.
            match glsl(GlslVersion::Glsl450) {
                Err(e) if e.to_string().contains("460") => {
                    glsl(GlslVersion::Glsl460).map_err(cross)
                }
                r => r.map_err(cross),
            }
        }
        Lang::Hlsl => {
            let c = Compiler::<Hlsl>::new(CrossModule::from_words(words)).map_err(cross)?;
            let mut o = Hlsl::options();
            o.shader_model = spirv_cross2::compile::hlsl::HlslShaderModel::ShaderModel6_0;
            o.common.emit_line_directives = true;
            Ok(c.compile(&o).map_err(cross)?.to_string())
        }
        Lang::Msl => {
            let c = Compiler::<Msl>::new(CrossModule::from_words(words)).map_err(cross)?;
            let mut o = Msl::options();
            o.version = spirv_cross2::compile::msl::MslVersion::from((2, 3));
            o.common.emit_line_directives = true;
            Ok(c.compile(&o).map_err(cross)?.to_string())
        }
        Lang::Wgsl => {
            let options = naga::front::spv::Options {
                // The step as it is: no flip of the position's y.
                adjust_coordinate_space: false,
                ..Default::default()
            };
            // naga reads no line info among the types: the step without it (names stay).
            let bytes: Vec<u8> = without_lines(words)
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let module = naga::front::spv::parse_u8_slice(&bytes, &options)
                .map_err(|e| format!("naga does not read this step: {e}"))?;
            let info = naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
            .validate(&module)
            .map_err(|e| format!("naga does not accept this step: {}", e.into_inner()))?;
            naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
                .map_err(|e| format!("naga cannot write this step as WGSL: {e}"))
        }
    }
}

/// `words` without `OpCapability VariablePointers` and `VariablePointersStorageBuffer` where no
/// instruction needs them any more (a pass folded the pointer select away, say): SPIRV-Cross
/// refuses a module that declares them, whatever it uses. `None` when they stay (declared and
/// needed, or not declared). Conservative: a pointer made by anything but a variable, an
/// access chain, a copy or a function parameter outside storage buffers keeps them.
fn without_unneeded_variable_pointers(words: &[u32]) -> Option<Vec<u32>> {
    use spirv::{Capability, Op, StorageClass};
    let op = |i: &[u32]| i[0] & 0xffff;
    let is = |i: &[u32], o: Op| op(i) == o as u32;
    let variable_pointers = |i: &[u32]| {
        is(i, Op::Capability)
            && i.get(1).is_some_and(|&c| {
                c == Capability::VariablePointers as u32
                    || c == Capability::VariablePointersStorageBuffer as u32
            })
    };
    // What a pointer type may be named by, as the type of its result or as a target.
    const TAKES_POINTER_TYPE: [Op; 14] = [
        Op::Name,
        Op::MemberName,
        Op::TypePointer,
        Op::TypeForwardPointer,
        Op::Variable,
        Op::ImageTexelPointer,
        Op::AccessChain,
        Op::InBoundsAccessChain,
        Op::Decorate,
        Op::MemberDecorate,
        Op::CopyObject,
        Op::DecorateId,
        Op::DecorateString,
        Op::MemberDecorateString,
    ];
    // Pointer arithmetic and comparisons, and untyped pointers.
    const NEED_THEM: [Op; 5] = [
        Op::PtrAccessChain,
        Op::PtrEqual,
        Op::PtrNotEqual,
        Op::PtrDiff,
        Op::TypeUntypedPointerKHR,
    ];
    let insts = || crate::ir::spirv::read::instruction_words(words);
    if !insts().any(variable_pointers) {
        return None;
    }
    // Pointer types, with their storage class.
    let pointers: std::collections::HashMap<u32, u32> = insts()
        .filter(|i| is(i, Op::TypePointer) && i.len() >= 4)
        .map(|i| (i[1], i[2]))
        .collect();
    let pointer = |w: Option<&u32>| w.is_some_and(|w| pointers.contains_key(w));
    let storage_buffer = |w: Option<&u32>| {
        w.and_then(|w| pointers.get(w)) == Some(&(StorageClass::StorageBuffer as u32))
    };
    let needed = insts().any(|i| {
        let tail = |from: usize| &i[from.min(i.len())..];
        if NEED_THEM.iter().any(|&o| is(i, o)) {
            return true;
        }
        match Op::from_u32(op(i)) {
            // A pointer to a pointer.
            Some(Op::TypePointer) => pointer(i.get(3)),
            // A function that returns a pointer or takes a storage buffer's.
            Some(Op::TypeFunction) => {
                pointer(i.get(2)) || tail(3).iter().any(|t| storage_buffer(Some(t)))
            }
            // Arrays and structs of pointers.
            Some(Op::TypeArray | Op::TypeRuntimeArray | Op::TypeStruct) => {
                tail(2).iter().any(|t| pointer(Some(t)))
            }
            Some(Op::FunctionParameter) => storage_buffer(i.get(1)),
            _ => !TAKES_POINTER_TYPE.iter().any(|&o| is(i, o)) && pointer(i.get(1)),
        }
    });
    if needed {
        return None;
    }
    let mut out = words[..words.len().min(5)].to_vec();
    for i in insts().filter(|i| !variable_pointers(i)) {
        out.extend_from_slice(i);
    }
    Some(out)
}

/// `words` without `OpLine` and `OpNoLine`.
fn without_lines(words: &[u32]) -> Vec<u32> {
    let line = |i: &[u32]| {
        let op = i[0] & 0xffff;
        op == spirv::Op::Line as u32 || op == spirv::Op::NoLine as u32
    };
    let mut out = words[..words.len().min(5)].to_vec();
    for i in crate::ir::spirv::read::instruction_words(words).filter(|i| !line(i)) {
        out.extend_from_slice(i);
    }
    out
}

/// The worker's side: reads a module's words from standard input and prints it as the
/// language `args` names; the reason on standard error and status 1 when it cannot.
pub fn serve(lang: Option<&str>) -> i32 {
    let Some(lang) = lang.and_then(Lang::parse) else {
        eprintln!("{WORKER_ARG} needs a language: glsl, hlsl, msl or wgsl");
        return 2;
    };
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
        eprintln!("cannot read the module: {e}");
        return 1;
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    match translate(&words, lang) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            if out.write_all(text.as_bytes()).is_err() {
                return 1;
            }
            0
        }
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}

/// `module` as `lang`, decompiled in a child process (see the module's comment); a step in
/// the shaderstep dialect is decompiled as a copy lifted back to SPIR-V.
pub fn decompile(module: &Module, lang: Lang) -> Result<String, String> {
    let spirv = super::validate::spirv_of(module).map_err(|why| format!("not SPIR-V: {why}"))?;
    decompile_words(&spirv.words, lang)
}

/// `words` as `lang`, in a child process.
pub fn decompile_words(words: &[u32], lang: Lang) -> Result<String, String> {
    let program = super::gpu::isolated::worker_program()?;
    let mut child = std::process::Command::new(&program)
        .arg(WORKER_ARG)
        .arg(lang.name())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("piped");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    // Written beside the reading, so that a large text never fills both pipes at once.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = match rx.recv_timeout(LIMIT) {
        Ok(out) => out.map_err(|e| format!("{}: {e}", lang.writer()))?,
        Err(_) => {
            #[cfg(unix)]
            // SAFETY: `pid` is our child's, which has not been waited for (its waiter is
            // still blocked on it).
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
            return Err(format!(
                "{} took more than {} s on this step: stopped",
                lang.writer(),
                LIMIT.as_secs()
            ));
        }
    };
    let _ = writer.join();
    if output.status.success() {
        return String::from_utf8(output.stdout)
            .map_err(|_| format!("{} wrote text that is not UTF-8", lang.writer()));
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let said = said
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    match output.status.code() {
        Some(_) => Err(said.trim().to_string()),
        None => Err(format!(
            "{} crashed on this step ({}){}",
            lang.writer(),
            super::gpu::isolated::ended_how(output.status),
            if said.is_empty() {
                String::new()
            } else {
                format!(": {}", said.trim())
            }
        )),
    }
}

/// The source line each line of a decompiled text came from, by the `#line N ["FILE"]`
/// directives SPIRV-Cross writes (the last in force above it; `None` before the first, and
/// for line 0, which says none): the line and the file named, if one is.
pub fn line_directives(text: &str) -> Vec<Option<(u32, Option<String>)>> {
    let mut now: Option<(u32, Option<String>)> = None;
    text.lines()
        .map(|l| {
            if let Some(rest) = l.trim_start().strip_prefix("#line ") {
                let mut words = rest.splitn(2, char::is_whitespace);
                let line = words.next().and_then(|n| n.parse().ok());
                let file = words
                    .next()
                    .map(|f| f.trim().trim_matches('"').to_string())
                    .filter(|f| !f.is_empty())
                    .or_else(|| now.as_ref().and_then(|(_, f)| f.clone()));
                now = line.filter(|&n| n != 0).map(|n| (n, file));
            }
            now.clone()
        })
        .collect()
}

/// A decompiled text as a listing whose lines know the source line they came from: the file
/// a `#line` names is the module's `OpString` of that text (else its only file).
pub fn listing(module: &Module, text: &str) -> crate::ir::listing::Listing {
    use rspirv::dr::Operand;
    let strings: Vec<(crate::ir::Id, &str)> = module
        .debug()
        .iter()
        .filter(|i| i.op() == spirv::Op::String)
        .filter_map(|i| match (i.result(), i.lits().first()) {
            (Some(id), Some(Operand::LiteralString(s))) => Some((id, s.as_str())),
            _ => None,
        })
        .collect();
    let only = match strings.as_slice() {
        [(id, _)] => Some(*id),
        _ => None,
    };
    let sources: Vec<Option<(crate::ir::Id, u32)>> = line_directives(text)
        .into_iter()
        .map(|d| {
            let (line, file) = d?;
            let id = file
                .and_then(|f| strings.iter().find(|(_, s)| *s == f).map(|(id, _)| *id))
                .or(only)?;
            Some((id, line))
        })
        .collect();
    crate::ir::listing::Listing::with_sources(text, &sources)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_have_names() {
        for l in Lang::ALL {
            assert_eq!(Lang::parse(l.name()), Some(l));
        }
        assert_eq!(Lang::parse("GLSL"), Some(Lang::Glsl));
        assert_eq!(Lang::parse("spirv"), None);
    }

    fn capabilities(words: &[u32]) -> Vec<u32> {
        crate::ir::spirv::read::instruction_words(words)
            .filter(|i| i[0] & 0xffff == spirv::Op::Capability as u32)
            .map(|i| i[1])
            .collect()
    }

    #[test]
    fn variable_pointers_no_instruction_needs_are_left_out() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/spvasm");
        let read = |name: &str| {
            let text = std::fs::read_to_string(root.join(name)).unwrap();
            crate::ir::spirv::asm::assemble(&text).unwrap()
        };
        // Both select a pointer: nothing is left out until a pass folds the select.
        let folded = read("variable_pointers_folded.spvasm");
        let kept = read("variable_pointers_kept.spvasm");
        assert_eq!(without_unneeded_variable_pointers(&folded), None);
        assert_eq!(without_unneeded_variable_pointers(&kept), None);
        // The folded one without its select (the load reads `%pa`).
        let text = std::fs::read_to_string(root.join("variable_pointers_folded.spvasm"))
            .unwrap()
            .replace(
                "%p = OpSelect %pInt %true %pa %pb",
                "%p = OpCopyObject %pInt %pa",
            );
        let words = crate::ir::spirv::asm::assemble(&text).unwrap();
        let trimmed = without_unneeded_variable_pointers(&words).expect("left out");
        assert_eq!(capabilities(&trimmed), [1], "only Shader stays");
        assert_eq!(trimmed.len(), words.len() - 2);
        // A storage buffer's pointer passed to a function needs them.
        let param = text.replace(
            "%fn = OpTypeFunction %void",
            "%fn = OpTypeFunction %void\n%takes = OpTypeFunction %void %pInt",
        );
        let words = crate::ir::spirv::asm::assemble(&param).unwrap();
        assert_eq!(without_unneeded_variable_pointers(&words), None);
    }

    #[test]
    fn line_directives_say_each_line_s_source_line() {
        let text = "#version 450\n#line 12 \"a.frag\"\nfloat x = 1.0;\ny();\n#line 20\nz();\n#line 0\nw();\n";
        let a = |n: u32| Some((n, Some("a.frag".to_string())));
        assert_eq!(
            line_directives(text),
            [None, a(12), a(12), a(12), a(20), a(20), None, None]
        );
    }
}
