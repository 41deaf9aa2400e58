//! Inputs: SPIR-V binaries, SPIR-V assembly, and WGSL/GLSL sources compiled in-process with
//! naga. The kind is decided by content first (a SPIR-V magic number is a binary, whatever the
//! extension says; a `.spv` that is text is assembled) and by extension otherwise.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::ir::spirv::{asm, read, MAGIC};
use crate::ir::Module;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Vertex,
    Fragment,
    Compute,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    SpirvBinary,
    SpirvAsm,
    Wgsl,
    Glsl(Stage),
    /// Compiled to SPIR-V by an external command (`shaderstep.toml`).
    External,
}

impl fmt::Display for InputKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputKind::SpirvBinary => write!(f, "SPIR-V binary"),
            InputKind::SpirvAsm => write!(f, "SPIR-V assembly"),
            InputKind::Wgsl => write!(f, "WGSL"),
            InputKind::Glsl(s) => write!(f, "GLSL ({s:?})"),
            InputKind::External => write!(f, "compiled by an external command"),
        }
    }
}

/// A bad input: the file and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct InputError {
    pub path: PathBuf,
    /// 1-based line in the file, when the cause has one.
    pub line: Option<usize>,
    pub message: String,
    /// The text `line` is a line of (a source that did not compile), to show it beside the
    /// message.
    pub source: Option<Arc<str>>,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for InputError {}

/// A loaded input: where it came from, what it was, and its SPIR-V words.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub path: PathBuf,
    pub kind: InputKind,
    pub words: Vec<u32>,
    /// The words decoded: every input is decoded once to check it.
    pub module: Module,
    /// How long decoding took (it is `lower`'s work, done early).
    pub decode_time: std::time::Duration,
    /// The source text for text inputs.
    pub source: Option<String>,
}

impl Loaded {
    /// Runs `pipeline` on this input without decoding it again.
    pub fn run(self, pipeline: &crate::pipeline::Pipeline) -> crate::pipeline::Run {
        pipeline.run_decoded(
            std::sync::Arc::new(self.words),
            Some((self.module, self.decode_time)),
        )
    }

    /// Runs `pipeline`, whose `link` pass merges `others` into this input.
    pub fn run_linked(
        self,
        pipeline: &crate::pipeline::Pipeline,
        others: Vec<crate::pipeline::link::LinkInput>,
    ) -> crate::pipeline::Run {
        pipeline.run_linked(
            std::sync::Arc::new(self.words),
            Some((self.module, self.decode_time)),
            self.path.display().to_string(),
            others,
        )
    }

    /// Runs `pipeline`, giving up between passes when `cancelled` says so.
    pub fn run_cancellable(
        self,
        pipeline: &crate::pipeline::Pipeline,
        cancelled: &dyn Fn() -> bool,
    ) -> Option<crate::pipeline::Run> {
        pipeline.run_cancellable(
            std::sync::Arc::new(self.words),
            Some((self.module, self.decode_time)),
            cancelled,
        )
    }
}

/// External compilers by file extension (from `shaderstep.toml`): a command line in which
/// `{input}` is the shader's path and `{output}` the SPIR-V file the command must write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrontEnds {
    pub commands: Vec<(String, String)>,
}

impl FrontEnds {
    pub fn command_for(&self, path: &Path) -> Option<&str> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        self.commands
            .iter()
            .find(|(e, _)| e.trim_start_matches('.').eq_ignore_ascii_case(&ext))
            .map(|(_, c)| c.as_str())
    }
}

/// Loads `path`, with the external compiler configured for its extension if there is one.
pub fn load_with(path: &Path, front: &FrontEnds) -> Result<Loaded, InputError> {
    match front.command_for(path) {
        Some(command) => compile_external(path, command),
        None => load(path),
    }
}

/// Splits a command line into words: whitespace separates, quotes group.
fn split_command(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// The first line number the compiler's messages give for `path` (`file:12:` or `file(12)`).
fn line_in_messages(messages: &str, path: &Path) -> Option<usize> {
    let name = path.file_name()?.to_str()?;
    for line in messages.lines() {
        let mut rest = line;
        while let Some(pos) = rest.find(name) {
            let after = &rest[pos + name.len()..];
            let digits: String = after
                .strip_prefix(':')
                .or_else(|| after.strip_prefix('('))
                .unwrap_or("")
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(n) = digits.parse() {
                return Some(n);
            }
            rest = after;
        }
    }
    None
}

fn compile_external(path: &Path, command: &str) -> Result<Loaded, InputError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let err = |line: Option<usize>, message: String| InputError {
        path: path.to_path_buf(),
        line,
        message,
        source: None,
    };
    let source = std::fs::read(path).map_err(|e| err(None, format!("cannot read: {e}")))?;
    let output = std::env::temp_dir().join(format!(
        "shaderstep-ext-{}-{}.spv",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let words: Vec<String> = split_command(command)
        .into_iter()
        .map(|w| {
            w.replace("{input}", &path.display().to_string())
                .replace("{output}", &output.display().to_string())
        })
        .collect();
    let Some((program, args)) = words.split_first() else {
        return Err(err(None, "the external compiler command is empty".into()));
    };
    let result = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output();
    let out = match result {
        Ok(o) => o,
        Err(e) => {
            return Err(err(
                None,
                format!("cannot run the external compiler `{program}`: {e} (command: {command})"),
            ))
        }
    };
    let bytes = std::fs::read(&output);
    let _ = std::fs::remove_file(&output);
    let messages = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    let messages = messages.trim();
    if !out.status.success() {
        let status = out
            .status
            .code()
            .map_or_else(|| "killed by a signal".to_string(), |c| format!("exit {c}"));
        let e = err(
            line_in_messages(messages, path),
            format!("`{program}` failed ({status}):\n{messages}"),
        );
        return Err(with_source(e, &source));
    }
    let bytes = bytes.map_err(|e| {
        err(
            None,
            format!("`{program}` succeeded but wrote no output file ({e}); does the command use {{output}}?"),
        )
    })?;
    if !is_spirv_magic(&bytes) {
        return Err(err(
            None,
            format!("`{program}` did not write a SPIR-V binary to {{output}}"),
        ));
    }
    let words = read::words_from_bytes(&bytes).map_err(|e| err(None, e.to_string()))?;
    let start = std::time::Instant::now();
    let module = read::read_words(&words).map_err(|e| err(None, e.to_string()))?;
    Ok(Loaded {
        path: path.to_path_buf(),
        kind: InputKind::External,
        words,
        module,
        decode_time: start.elapsed(),
        source: Some(String::from_utf8_lossy(&source).into_owned()),
    })
}

/// Reads and decodes `path`; `-` is standard input (as spirv-opt reads it).
pub fn load(path: &Path) -> Result<Loaded, InputError> {
    let read = |path: &Path| {
        if path == Path::new("-") {
            Ok(stdin_bytes().to_vec())
        } else {
            std::fs::read(path)
        }
    };
    let bytes = read(path).map_err(|e| InputError {
        path: path.to_path_buf(),
        line: None,
        message: format!("cannot read: {e}"),
        source: None,
    })?;
    load_bytes(path, &bytes)
}

/// Standard input, read once for the program's life: a log given as `-` is the input and the
/// steps both, and a re-run reads it again.
pub fn stdin_bytes() -> &'static [u8] {
    static STDIN: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    STDIN.get_or_init(|| {
        let mut bytes = Vec::new();
        // An unreadable standard input reads as empty, which loading reports.
        let _ = std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes);
        bytes
    })
}

fn is_spirv_magic(bytes: &[u8]) -> bool {
    bytes.len() >= 4
        && (u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == MAGIC
            || u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == MAGIC)
}

pub fn detect(path: &Path, bytes: &[u8]) -> Result<InputKind, InputError> {
    let err = |message: String| InputError {
        path: path.to_path_buf(),
        line: None,
        message,
        source: None,
    };
    if bytes.is_empty() {
        return Err(err("empty file".into()));
    }
    if is_spirv_magic(bytes) {
        return Ok(InputKind::SpirvBinary);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(err(match ext.as_str() {
            "spv" => format!(
                "bad magic number 0x{:08x}: not a SPIR-V binary (expected 0x{MAGIC:08x}), and not text either",
                first_word(bytes)
            ),
            _ => "binary file that is not SPIR-V (no SPIR-V magic number)".into(),
        }));
    };
    let stage_from_ext = match ext.as_str() {
        "vert" => Some(Stage::Vertex),
        "frag" => Some(Stage::Fragment),
        "comp" => Some(Stage::Compute),
        _ => None,
    };
    if let Some(stage) = stage_from_ext {
        return Ok(InputKind::Glsl(stage));
    }
    match ext.as_str() {
        "wgsl" => return Ok(InputKind::Wgsl),
        "glsl" => {
            return pragma_stage(text).map(InputKind::Glsl).ok_or_else(|| {
                err("GLSL file without a stage: use a .vert/.frag/.comp extension or a `#pragma shader_stage(vertex|fragment|compute)` line".into())
            })
        }
        "spvasm" => return Ok(InputKind::SpirvAsm),
        "hlsl" | "slang" | "geom" | "tesc" | "tese" => {
            return Err(err(format!(
                "no compiler for .{ext} files: shaderstep compiles WGSL and GLSL (vertex, fragment, compute) itself; for others add an external compiler to shaderstep.toml, e.g.\n[compilers]\n{ext} = \"glslangValidator -V {{input}} -o {{output}}\""
            )))
        }
        _ => {}
    }
    // Content sniffing for `.spv` text and unknown extensions: assembly when its first line
    // that is not blank or a comment is an instruction (a text that only mentions one further
    // down is something else, and would get a parse error for a line of it).
    let looks_asm = text
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with(';'))
        .is_some_and(|l| l.starts_with("Op") || (l.starts_with('%') && l.contains("= Op")));
    if looks_asm {
        return Ok(InputKind::SpirvAsm);
    }
    if text.contains("@fragment") || text.contains("@vertex") || text.contains("@compute") {
        return Ok(InputKind::Wgsl);
    }
    if text.contains("#version") {
        if let Some(stage) = pragma_stage(text) {
            return Ok(InputKind::Glsl(stage));
        }
    }
    if ext == "spv" {
        return Err(err(format!(
            "bad magic number 0x{:08x}: not a SPIR-V binary (expected 0x{MAGIC:08x}), and the text is not SPIR-V assembly",
            first_word(bytes)
        )));
    }
    if ext.is_empty() {
        return Err(err(
            "cannot tell what kind of shader this is from its content (no extension to go by; GLSL needs a `#pragma shader_stage(...)` line)".into(),
        ));
    }
    Err(err(format!(
        "cannot tell what kind of shader this is from its extension '.{ext}' or its content"
    )))
}

fn first_word(bytes: &[u8]) -> u32 {
    let mut w = [0u8; 4];
    let n = bytes.len().min(4);
    w[..n].copy_from_slice(&bytes[..n]);
    u32::from_le_bytes(w)
}

fn pragma_stage(text: &str) -> Option<Stage> {
    text.lines().find_map(|l| {
        let rest = l
            .trim()
            .strip_prefix("#pragma")?
            .trim()
            .strip_prefix("shader_stage")?;
        let stage = rest
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .trim();
        match stage {
            "vertex" | "vert" => Some(Stage::Vertex),
            "fragment" | "frag" => Some(Stage::Fragment),
            "compute" | "comp" => Some(Stage::Compute),
            _ => None,
        }
    })
}

pub fn load_bytes(path: &Path, bytes: &[u8]) -> Result<Loaded, InputError> {
    load_text_or_binary(path, bytes).map_err(|e| with_source(e, bytes))
}

/// An error at a line of a text input, with the text, so that the line can be shown.
fn with_source(mut e: InputError, bytes: &[u8]) -> InputError {
    if e.line.is_some() && e.source.is_none() {
        if let Ok(text) = std::str::from_utf8(bytes) {
            e.source = Some(Arc::from(text));
        }
    }
    e
}

fn load_text_or_binary(path: &Path, bytes: &[u8]) -> Result<Loaded, InputError> {
    let kind = detect(path, bytes)?;
    let err = |line: Option<usize>, message: String| InputError {
        path: path.to_path_buf(),
        line,
        message,
        source: None,
    };
    let text = || String::from_utf8_lossy(bytes).into_owned();
    // Decode once here, so a broken module is reported as the input's fault. `rewrite`: the
    // input's words are the module as our writer writes it.
    let finish = |words: Vec<u32>, source: Option<String>, rewrite: bool| {
        let start = std::time::Instant::now();
        let module = read::read_words(&words).map_err(|e| err(None, e.to_string()))?;
        let decode_time = start.elapsed();
        Ok(Loaded {
            path: path.to_path_buf(),
            kind,
            words: if rewrite {
                crate::ir::spirv::write::write_words(&module)
            } else {
                words
            },
            module,
            decode_time,
            source,
        })
    };
    let (words, source) = match kind {
        InputKind::External => {
            return Err(err(
                None,
                "no external compiler is configured for this file".into(),
            ))
        }
        InputKind::SpirvBinary => {
            let words = read::words_from_bytes(bytes).map_err(|e| err(None, e.to_string()))?;
            (words, None)
        }
        InputKind::SpirvAsm => {
            let src = text();
            // A `--print-all` log: its first module is the input (`--steps LOG`).
            let first = super::dumps::is_log(&src)
                .then(|| super::dumps::parse_log(&src))
                .flatten()
                .and_then(|s| s.into_iter().next());
            if let Some(first) = first {
                let mut names =
                    crate::ir::spirv::asm::SharedNames::above_ids_of([first.text.as_str()]);
                let words = super::dumps::printed_words(&first.text, &mut names)
                    .map_err(|e| err(None, format!("the log's first module: {e}")))?;
                return finish(words, None, false);
            }
            // The IR text form says locations in `; @loc` lines, which only the IR parser reads.
            let words = if src.contains("; @loc") {
                let m = crate::ir::parse::parse(&src).map_err(|e| {
                    let line = (e.line > 0).then_some(e.line);
                    err(line, format!("column {}: {}", e.col, e.message))
                })?;
                crate::ir::spirv::write::write_words(&m)
            } else {
                asm::assemble(&src)
                    .map_err(|e| err(Some(e.line), format!("column {}: {}", e.col, e.message)))?
            };
            (words, Some(src))
        }
        InputKind::Wgsl => {
            let src = text();
            let module = naga::front::wgsl::parse_str(&src).map_err(|e| {
                let line = e.location(&src).map(|l| l.line_number as usize);
                err(
                    line,
                    format!(
                        "WGSL does not compile: {}\n{}",
                        e.message(),
                        e.emit_to_string_with_path(&src, &path.display().to_string())
                    ),
                )
            })?;
            (
                // `WGSL` (10) is newer than the SPIR-V validators many systems have.
                naga_to_spirv(
                    path,
                    "WGSL",
                    &src,
                    module,
                    naga::back::spv::SourceLanguage::Unknown,
                )?,
                Some(src),
            )
        }
        InputKind::Glsl(stage) => {
            let src = text();
            let words = match glslang() {
                Some(program) => glslang_to_spirv(path, program, stage, bytes)?,
                None => naga_glsl(path, stage, &src)?,
            };
            (words, Some(src))
        }
    };
    match kind {
        InputKind::Wgsl | InputKind::Glsl(_) => {
            // The front ends embed the whole source in `OpSource`, which would fill the top of
            // every step's text; the source is a step of its own already, so the copy goes (the
            // file name in `OpString`, which `OpLine` refers to, stays). Written again as our
            // writer writes, so the input's words are what its steps are compared with.
            let before = words.len();
            let words = read::without_source_text(words);
            let dropped = words.len() != before;
            finish(words, source, dropped)
        }
        _ => finish(words, source, false),
    }
}

/// glslangValidator, the reference GLSL compiler, when it is on `PATH`: GLSL goes through it
/// (naga's GLSL front end refuses much ordinary GLSL, such as combined image samplers).
/// Looked up once.
fn glslang() -> Option<&'static Path> {
    static FOUND: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|dir| dir.join("glslangValidator"))
                .find(|p| p.is_file())
        })
        .as_deref()
}

/// Compiles GLSL with glslangValidator as Vulkan GLSL (SPIR-V 1.3, as the WGSL path writes),
/// with line info (`-g`), and bindings and locations assigned where the source gives none, so
/// shaders written for OpenGL (`uniform sampler2D tex;`) open too.
fn glslang_to_spirv(
    path: &Path,
    program: &Path,
    stage: Stage,
    bytes: &[u8],
) -> Result<Vec<u32>, InputError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let err = |line: Option<usize>, message: String| InputError {
        path: path.to_path_buf(),
        line,
        message,
        source: None,
    };
    let scratch = std::env::temp_dir().join(format!(
        "shaderstep-glsl-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| err(None, format!("cannot make {}: {e}", scratch.display())))?;
    // Our stage pragma is not glslang's, which refuses it before `#version` (where a `.glsl`
    // file may have it): its lines are blanked, keeping the others' numbers.
    let text = String::from_utf8_lossy(bytes);
    let is_pragma = |l: &str| l.trim_start().starts_with("#pragma shader_stage");
    let cleaned = text.lines().any(is_pragma).then(|| {
        text.lines()
            .map(|l| if is_pragma(l) { "" } else { l })
            .collect::<Vec<_>>()
            .join("\n")
    });
    let bytes = cleaned.as_ref().map_or(bytes, |c| c.as_bytes());
    let result = (|| {
        // The file itself where it holds these bytes (its `#include`s resolve beside it, and
        // the line info names it); else a copy under its own name, whose `#include`s are
        // looked for beside the file too.
        let on_disk = cleaned.is_none() && std::fs::read(path).is_ok_and(|b| b == bytes);
        let source = if on_disk {
            path.to_path_buf()
        } else {
            let copy = scratch.join(path.file_name().unwrap_or("shader.glsl".as_ref()));
            std::fs::write(&copy, bytes)
                .map_err(|e| err(None, format!("cannot write {}: {e}", copy.display())))?;
            copy
        };
        let beside = path.parent().filter(|_| !on_disk).map(|d| {
            let mut arg = std::ffi::OsString::from("-I");
            arg.push(if d.as_os_str().is_empty() {
                ".".as_ref()
            } else {
                d
            });
            arg
        });
        let output = scratch.join("out.spv");
        let stage_name = match stage {
            Stage::Vertex => "vert",
            Stage::Fragment => "frag",
            Stage::Compute => "comp",
        };
        let out = std::process::Command::new(program)
            .args(["-V", "-g", "--target-env", "vulkan1.1", "--amb", "--aml"])
            .args(beside)
            .arg("-S")
            .arg(stage_name)
            .arg(&source)
            .arg("-o")
            .arg(&output)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| err(None, format!("cannot run {}: {e}", program.display())))?;
        if !out.status.success() {
            // glslang names the file on a line of its own first, then `ERROR: FILE:LINE: …`.
            let shown = source.display().to_string();
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let messages: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .chain(String::from_utf8_lossy(&out.stderr).lines())
                .map(str::trim_end)
                .filter(|l| !l.is_empty() && *l != shown)
                .filter(|l| !l.starts_with("SPIR-V is not generated"))
                .map(|l| l.replace(&shown, &name))
                .collect();
            // The first error heads the message (it is what a status line shows), all follow.
            let first = messages
                .iter()
                .find_map(|l| l.strip_prefix("ERROR: "))
                .map(|l| l.strip_prefix(&format!("{name}:")).unwrap_or(l))
                .map(|l| l.trim_start_matches(|c: char| c.is_ascii_digit() || c == ':'))
                .unwrap_or("")
                .trim();
            let messages = messages.join("\n");
            return Err(err(
                line_in_messages(&messages, path),
                format!("GLSL does not compile (glslangValidator): {first}\n{messages}"),
            ));
        }
        let bytes = std::fs::read(&output).map_err(|e| {
            err(
                None,
                format!("glslangValidator succeeded but wrote no SPIR-V: {e}"),
            )
        })?;
        read::words_from_bytes(&bytes).map_err(|e| err(None, e.to_string()))
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Compiles GLSL with naga's front end, in process: when glslangValidator is not installed.
fn naga_glsl(path: &Path, stage: Stage, src: &str) -> Result<Vec<u32>, InputError> {
    let err = |line: Option<usize>, message: String| InputError {
        path: path.to_path_buf(),
        line,
        message,
        source: None,
    };
    let naga_stage = match stage {
        Stage::Vertex => naga::ShaderStage::Vertex,
        Stage::Fragment => naga::ShaderStage::Fragment,
        Stage::Compute => naga::ShaderStage::Compute,
    };
    // naga's preprocessor does not know our stage pragma.
    let cleaned: String = src
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("#pragma shader_stage") {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let module = naga::front::glsl::Frontend::default()
        .parse(&naga::front::glsl::Options::from(naga_stage), &cleaned)
        .map_err(|e| {
            let first = e.errors.first();
            let line = first
                .and_then(|f| f.location(&cleaned))
                .map(|l| l.line_number as usize);
            let msg = first.map(|f| f.kind.to_string()).unwrap_or_default();
            err(
                line,
                format!(
                    "GLSL does not compile: {msg}\n{}\n{GLSLANG_HINT}",
                    e.emit_to_string_with_path(&cleaned, &path.display().to_string())
                ),
            )
        })?;
    naga_to_spirv(
        path,
        "GLSL",
        &cleaned,
        module,
        naga::back::spv::SourceLanguage::GLSL,
    )
}

/// naga's GLSL front end takes a subset of GLSL; glslangValidator takes it all.
const GLSLANG_HINT: &str = "(this is naga's GLSL front end, which takes only part of GLSL; \
glslangValidator, the reference compiler, would take this shader: install it (Debian: \
apt-get install glslang-tools) and shaderstep compiles GLSL with it)";

/// An error and its causes, outermost first: naga's validation errors nest.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        text.push_str(": ");
        text.push_str(&s.to_string());
        cur = s.source();
    }
    text
}

fn naga_to_spirv(
    path: &Path,
    lang: &str,
    src: &str,
    module: naga::Module,
    language: naga::back::spv::SourceLanguage,
) -> Result<Vec<u32>, InputError> {
    use naga::valid::{Capabilities, ValidationFlags, Validator};
    let err = |line: Option<usize>, message: String| InputError {
        path: path.to_path_buf(),
        line,
        message,
        source: None,
    };
    let info = Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| {
            // The innermost span points at the offending expression, not its function.
            let line = e
                .spans()
                .filter(|(span, _)| span.is_defined())
                .last()
                .map(|(span, _)| span.location(src).line_number as usize)
                .or_else(|| e.location(src).map(|l| l.line_number as usize));
            err(
                line,
                format!(
                    "{lang} does not compile: {}\n{}",
                    error_chain(e.as_inner()),
                    e.emit_to_string_with_path(src, &path.display().to_string())
                ),
            )
        })?;
    // naga's SPIR-V writer cannot emit specialization constants: overrides take their
    // defaults and become plain constants.
    let (module, info) = if module.overrides.is_empty() {
        (
            std::borrow::Cow::Owned(module),
            std::borrow::Cow::Owned(info),
        )
    } else {
        let (m, i) = naga::back::pipeline_constants::process_overrides(
            &module,
            &info,
            None,
            &Default::default(),
        )
        .map_err(|e| {
            err(
                None,
                format!("{lang}: cannot give overrides their defaults: {e}"),
            )
        })?;
        (
            std::borrow::Cow::Owned(m.into_owned()),
            std::borrow::Cow::Owned(i.into_owned()),
        )
    };
    // Realistic input: no injected loop bounding, division guards, workgroup zeroing or
    // wgpu coordinate fix-ups; debug names always (naga's default keeps them only in its own
    // debug builds, so release and debug builds of shaderstep would disagree); and line info
    // (OpString, OpSource, OpLine), so the code view can show each instruction's source line.
    use naga::back::spv::{DebugInfo, WriterFlags, ZeroInitializeWorkgroupMemoryMode};
    let file_name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let options = naga::back::spv::Options {
        flags: WriterFlags::DEBUG | WriterFlags::LABEL_VARYINGS,
        zero_initialize_workgroup_memory: ZeroInitializeWorkgroupMemoryMode::None,
        lang_version: (1, 3),
        force_loop_bounding: false,
        emit_int_div_checks: false,
        bounds_check_policies: naga::proc::BoundsCheckPolicies::default(),
        debug_info: Some(DebugInfo {
            source_code: src,
            file_name: &file_name,
            language,
        }),
        ..naga::back::spv::Options::default()
    };
    let words = naga::back::spv::write_vec(&module, &info, &options, None).map_err(|e| {
        err(
            None,
            format!("naga cannot write SPIR-V for this shader: {e}"),
        )
    })?;
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where naga's GLSL front end refuses a shader (a combined sampler), its message says
    /// glslang would take it and how to install it (naga is used when glslang is not).
    #[test]
    fn naga_refusals_point_to_glslang() {
        let src = "#version 450\nuniform sampler2D tex;\nlayout(location = 0) in vec2 uv;\n\
                   layout(location = 0) out vec4 c;\nvoid main() { c = texture(tex, uv); }\n";
        let e = naga_glsl(Path::new("t.frag"), Stage::Fragment, src).unwrap_err();
        assert!(e.message.contains("GLSL does not compile"), "{}", e.message);
        assert!(
            e.message.contains("glslangValidator")
                && e.message.contains("apt-get install glslang-tools"),
            "{}",
            e.message
        );
    }
}
