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
    const CAPABILITY: u32 = 17;
    const VARIABLE_POINTERS_STORAGE_BUFFER: u32 = 4441;
    const VARIABLE_POINTERS: u32 = 4442;
    const TYPE_POINTER: u32 = 32;
    const STORAGE_BUFFER: u32 = 12;
    // What a pointer type may be named by, as the type of its result or as a target.
    const TAKES_POINTER_TYPE: [u32; 14] = [
        5,    // OpName
        6,    // OpMemberName
        32,   // OpTypePointer (its own result)
        39,   // OpTypeForwardPointer
        59,   // OpVariable
        60,   // OpImageTexelPointer
        65,   // OpAccessChain
        66,   // OpInBoundsAccessChain
        71,   // OpDecorate
        72,   // OpMemberDecorate
        83,   // OpCopyObject
        332,  // OpDecorateId
        5632, // OpDecorateString
        5633, // OpMemberDecorateString
    ];
    // Pointer comparisons and arithmetic, and untyped pointers.
    const NEED_THEM: [u32; 5] = [67, 401, 402, 403, 4417];
    const FUNCTION_PARAMETER: u32 = 55;
    let insts = || {
        let mut at = 5;
        std::iter::from_fn(move || {
            let count = (*words.get(at)? >> 16) as usize;
            let inst = &words[at..(at + count.max(1)).min(words.len())];
            at += count.max(1);
            Some(inst)
        })
    };
    let declared = insts().any(|i| {
        i[0] & 0xffff == CAPABILITY
            && matches!(
                i.get(1),
                Some(&(VARIABLE_POINTERS | VARIABLE_POINTERS_STORAGE_BUFFER))
            )
    });
    if !declared {
        return None;
    }
    // Pointer types, with their storage class.
    let pointers: std::collections::HashMap<u32, u32> = insts()
        .filter(|i| i[0] & 0xffff == TYPE_POINTER && i.len() >= 4)
        .map(|i| (i[1], i[2]))
        .collect();
    let needed = insts().any(|i| {
        let op = i[0] & 0xffff;
        let pointer = |w: Option<&u32>| w.is_some_and(|w| pointers.contains_key(w));
        if NEED_THEM.contains(&op) {
            return true;
        }
        match op {
            // A pointer to a pointer, or a function that takes a storage buffer's or
            // returns a pointer.
            TYPE_POINTER => pointer(i.get(3)),
            // OpTypeFunction.
            33 => {
                pointer(i.get(2))
                    || i[3.min(i.len())..]
                        .iter()
                        .any(|t| pointers.get(t) == Some(&STORAGE_BUFFER))
            }
            // Arrays and structs of pointers (OpTypeArray, OpTypeRuntimeArray, OpTypeStruct).
            28..=30 => i[2.min(i.len())..].iter().any(|t| pointer(Some(t))),
            FUNCTION_PARAMETER => pointers.get(&i[1]) == Some(&STORAGE_BUFFER),
            _ => !TAKES_POINTER_TYPE.contains(&op) && pointer(i.get(1)),
        }
    });
    if needed {
        return None;
    }
    let mut out = words[..words.len().min(5)].to_vec();
    for i in insts() {
        let unneeded = i[0] & 0xffff == CAPABILITY
            && matches!(
                i.get(1),
                Some(&(VARIABLE_POINTERS | VARIABLE_POINTERS_STORAGE_BUFFER))
            );
        if !unneeded {
            out.extend_from_slice(i);
        }
    }
    Some(out)
}

/// `words` without `OpLine` and `OpNoLine`.
fn without_lines(words: &[u32]) -> Vec<u32> {
    const LINE: u32 = 8;
    const NO_LINE: u32 = 317;
    let mut out = words[..words.len().min(5)].to_vec();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let op = words[at] & 0xffff;
        let end = (at + count.max(1)).min(words.len());
        if op != LINE && op != NO_LINE {
            out.extend_from_slice(&words[at..end]);
        }
        at = end;
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
        let mut at = 5;
        let mut out = Vec::new();
        while at < words.len() {
            if words[at] & 0xffff == 17 {
                out.push(words[at + 1]);
            }
            at += (words[at] >> 16) as usize;
        }
        out
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
