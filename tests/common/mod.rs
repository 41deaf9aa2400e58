//! Shared test helpers: the external oracles and the shader corpus in `tests/shaders/`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Path of an external tool; fails the test with how to install it when it is missing.
pub fn tool(name: &str) -> PathBuf {
    let package = match name {
        "glslangValidator" => "glslang-tools",
        _ => "spirv-tools",
    };
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!("`{name}` is not installed; the tests use it as an oracle. Install it with `apt-get install -y {package}` (scripts/test.sh does this).")
    })
}

pub fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "shaderstep-test-{}-{tag}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// The app on the shaders under `dir` (run through `preset`), every first run done.
pub fn open_dir(dir: &Path, preset: &str) -> shaderstep::app::event_loop::App {
    let mut app = shaderstep::app::event_loop::App::open(
        shaderstep::app::event_loop::Inputs {
            roots: vec![dir.to_path_buf()],
            ..Default::default()
        },
        shaderstep::pipeline::Pipeline::preset(preset).unwrap(),
        (120, 40),
        false,
    );
    app.settle();
    app
}

/// Everything the status bar said, oldest first.
pub fn messages(app: &shaderstep::app::event_loop::App) -> Vec<String> {
    app.state
        .status
        .messages
        .iter()
        .map(|m| m.text.clone())
        .collect()
}

/// The `shaderstep` binary run with `args` from the project directory.
pub fn shaderstep(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_shaderstep"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("run shaderstep")
}

/// Compiles GLSL with glslangValidator into `dir/NAME.spv`; glslang's messages on failure.
pub fn glslang(dir: &Path, name: &str, source: &str) -> PathBuf {
    let src = dir.join(name);
    std::fs::write(&src, source).unwrap();
    let out = dir.join(format!("{name}.spv"));
    let r = Command::new(tool("glslangValidator"))
        .arg("-V")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stdout));
    out
}

/// Compiles GLSL source bytes (which need not be UTF-8) with `glslangValidator -V` and `flags`
/// (`-g`, `-gVS`) into words; glslang's messages on failure.
pub fn glslang_words(name: &str, source: &[u8], flags: &[&str]) -> Vec<u32> {
    let dir = temp_dir("glslang-words");
    let src = dir.join(name);
    std::fs::write(&src, source).unwrap();
    let out = dir.join(format!("{name}.spv"));
    let r = Command::new(tool("glslangValidator"))
        .arg("-V")
        .args(flags)
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stdout));
    let words =
        shaderstep::ir::spirv::read::words_from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    words
}

/// The words of a SPIR-V binary file.
pub fn spv_words(path: &Path) -> Vec<u32> {
    std::fs::read(path)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `spirv-val` with the environment a shader of this version targets; Err holds its message.
pub fn validate(words: &[u32], universal: bool) -> Result<(), String> {
    let dir = temp_dir("val");
    let file = dir.join("m.spv");
    std::fs::write(&file, words_to_bytes(words)).unwrap();
    let mut cmd = Command::new(tool("spirv-val"));
    if !universal {
        let minor = (words[1] >> 8) & 0xff;
        // The Vulkan version whose SPIR-V this is.
        cmd.arg("--target-env").arg(match minor {
            0..=3 => "vulkan1.1",
            4 | 5 => "vulkan1.2",
            _ => "vulkan1.3",
        });
    }
    let out = cmd.arg(&file).output().expect("run spirv-val");
    let _ = std::fs::remove_dir_all(&dir);
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `spirv-dis` text of a binary.
pub fn spirv_dis(words: &[u32], extra: &[&str]) -> String {
    let dir = temp_dir("dis");
    let file = dir.join("m.spv");
    std::fs::write(&file, words_to_bytes(words)).unwrap();
    let out = Command::new(tool("spirv-dis"))
        .args(extra)
        .arg(&file)
        .output()
        .expect("run spirv-dis");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "spirv-dis failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Disassembly with ids renumbered in order of appearance and the header dropped, so two
/// modules that differ only in id numbering compare equal.
pub fn normalized_dis(words: &[u32]) -> String {
    let text = spirv_dis(words, &["--raw-id", "--no-header"]);
    let mut map = std::collections::HashMap::new();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            let mut num = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                num.push(*d);
                chars.next();
            }
            let n = map.len() + 1;
            let id = *map.entry(num).or_insert(n);
            out.push_str(&format!("%{id}"));
        } else {
            out.push(c);
        }
    }
    // Alignment depends on id widths; compare tokens, not spacing.
    out.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

pub struct Shader {
    pub path: PathBuf,
    pub words: Vec<u32>,
    /// Linkage modules validate without a target environment.
    pub universal: bool,
    /// The glslangValidator debug flag the shader was built with: `""`, `"-g"` or `"-gVS"`.
    pub build: &'static str,
}

impl Shader {
    /// The path, and the debug build if it is one (`glslang/pbr.g.frag -gVS`).
    pub fn name(&self) -> String {
        if self.build.is_empty() {
            self.path.display().to_string()
        } else {
            format!("{} {}", self.path.display(), self.build)
        }
    }
}

/// `glslangValidator -V` with `flags` (`-g`, `-gVS`, HLSL options) on `path`: the words, or
/// glslang's messages.
fn glslang_build(path: &Path, flags: &[&str]) -> Result<Vec<u32>, String> {
    let dir = temp_dir("glslang");
    let out = dir.join("out.spv");
    let res = Command::new(tool("glslangValidator"))
        .arg("-V")
        .args(flags)
        .arg(path)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("run glslangValidator");
    let words = if res.status.success() {
        let bytes = std::fs::read(&out).unwrap();
        Ok(shaderstep::ir::spirv::read::words_from_bytes(&bytes).unwrap())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&res.stdout).trim(),
            String::from_utf8_lossy(&res.stderr).trim()
        ))
    };
    let _ = std::fs::remove_dir_all(&dir);
    words
}

fn compile_glslang(path: &Path, hlsl: bool) -> Vec<(&'static str, Vec<u32>)> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut variants = vec![""];
    if name.contains(".g.") {
        variants.push("-g");
    }
    let mut outs = Vec::new();
    for build in variants {
        let mut flags: Vec<&str> = [build].into_iter().filter(|f| !f.is_empty()).collect();
        if hlsl {
            let stage = if name.contains(".vs.") {
                "vert"
            } else if name.contains(".ps.") {
                "frag"
            } else {
                "comp"
            };
            flags.extend(["-D", "-e", "main", "-S", stage]);
        }
        let words = glslang_build(path, &flags)
            .unwrap_or_else(|e| panic!("glslangValidator failed on {}: {e}", path.display()));
        outs.push((build, words));
    }
    outs
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else if p.extension().is_some_and(|e| e != "md") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Every shader of the corpus, compiled to SPIR-V (glslang/HLSL with glslangValidator; the rest
/// with shaderstep's own front ends and assembler).
pub fn corpus() -> Vec<Shader> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders");
    let mut shaders = Vec::new();
    for sub in ["glslang", "hlsl", "spvasm", "wgsl", "glsl"] {
        for path in files(&root.join(sub)) {
            let universal = path.components().any(|c| c.as_os_str() == "link");
            let compiled = match sub {
                "glslang" => compile_glslang(&path, false),
                "hlsl" => compile_glslang(&path, true),
                _ => vec![(
                    "",
                    shaderstep::pipeline::input::load(&path)
                        .unwrap_or_else(|e| panic!("corpus shader does not load: {e}"))
                        .words,
                )],
            };
            for (build, words) in compiled {
                shaders.push(Shader {
                    path: path.clone(),
                    words,
                    universal,
                    build,
                });
            }
        }
    }
    shaders
}

/// The debug builds of every GLSL shader of `tests/shaders/glslang/`: `-g` (`OpLine`,
/// `OpSource` with the text) and `-gVS` (`NonSemantic.Shader.DebugInfo.100`), but for the `-g`
/// builds of `.g.` files, which `corpus()` has already. A build glslang itself refuses is left
/// out with a note on stderr naming the shader and glslang's message; the notes are returned
/// too.
pub fn debug_builds() -> (Vec<Shader>, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shaders/glslang");
    let (mut shaders, mut notes) = (Vec::new(), Vec::new());
    for path in files(&dir) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for build in ["-g", "-gVS"] {
            if build == "-g" && name.contains(".g.") {
                continue;
            }
            match glslang_build(&path, &[build]) {
                Ok(words) => shaders.push(Shader {
                    path: path.clone(),
                    words,
                    universal: false,
                    build,
                }),
                Err(e) => {
                    let note = format!(
                        "glslangValidator {build} fails on {}, left out: {e}",
                        path.display()
                    );
                    eprintln!("note: {note}");
                    notes.push(note);
                }
            }
        }
    }
    assert!(
        shaders.len() >= dir.read_dir().map_or(0, |d| d.count()),
        "only {} debug builds",
        shaders.len()
    );
    (shaders, notes)
}

/// A buffer holding a device address that the shader dereferences far past its end: runs give
/// the buffer a real address, the shader adds an offset that leaves every mapping, and
/// lavapipe crashes on it.
pub const WILD_POINTER: &str = r#"; Version: 1.5
OpCapability Shader
OpCapability Int64
OpCapability PhysicalStorageBufferAddresses
OpExtension "SPV_KHR_physical_storage_buffer"
OpMemoryModel PhysicalStorageBuffer64 GLSL450
OpEntryPoint GLCompute %main "main" %buf
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %Buf Block
OpMemberDecorate %Buf 0 Offset 0
OpMemberDecorate %Buf 1 Offset 8
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%ulong = OpTypeInt 64 0
%Buf = OpTypeStruct %ulong %uint
%pBuf = OpTypePointer StorageBuffer %Buf
%buf = OpVariable %pBuf StorageBuffer
%p_ulong = OpTypePointer StorageBuffer %ulong
%p_uint = OpTypePointer StorageBuffer %uint
%psb_uint = OpTypePointer PhysicalStorageBuffer %uint
%int = OpTypeInt 32 1
%i0 = OpConstant %int 0
%i1 = OpConstant %int 1
%far = OpConstant %ulong 6510615555426900568
%main = OpFunction %void None %fn
%e = OpLabel
%pa = OpAccessChain %p_ulong %buf %i0
%a = OpLoad %ulong %pa
%wild = OpIAdd %ulong %a %far
%ptr = OpConvertUToPtr %psb_uint %wild
%v = OpLoad %uint %ptr Aligned 4
%po = OpAccessChain %p_uint %buf %i1
OpStore %po %v
OpReturn
OpFunctionEnd
"#;

/// Test pass: turns the first integer add of every function into a subtract — still valid,
/// computes something else.
pub struct SwapAddSub;
impl shaderstep::pipeline::Pass for SwapAddSub {
    fn name(&self) -> &'static str {
        "swap-add-sub"
    }
    fn description(&self) -> &'static str {
        "test pass: changes what the shader computes"
    }
    fn run(
        &self,
        m: &mut shaderstep::ir::Module,
        _: &mut shaderstep::pipeline::PassCx,
    ) -> Result<shaderstep::pipeline::Changed, shaderstep::pipeline::PassError> {
        let mut changed = shaderstep::pipeline::Changed::No;
        for f in shaderstep::ir::rewrite::functions_mut(m) {
            let add = f
                .layout()
                .map(|(_, i)| i)
                .find(|&i| f.inst(i).op() == spirv::Op::IAdd);
            if let Some(add) = add {
                let (ty, operands) = (f.inst(add).ty(), f.inst(add).to_operands());
                shaderstep::ir::rewrite::rewrite_inst(f, add, spirv::Op::ISub, ty, operands);
                changed = shaderstep::pipeline::Changed::Yes;
            }
        }
        Ok(changed)
    }
}

/// Test pass: replaces the module with `WILD_POINTER`, which reads far past the buffer its
/// address names and crashes the driver, as a miscompiling pass might.
pub struct WildPointer;
impl shaderstep::pipeline::Pass for WildPointer {
    fn name(&self) -> &'static str {
        "wild-pointer"
    }
    fn description(&self) -> &'static str {
        "test pass: dereferences far past the buffer"
    }
    fn run(
        &self,
        m: &mut shaderstep::ir::Module,
        _: &mut shaderstep::pipeline::PassCx,
    ) -> Result<shaderstep::pipeline::Changed, shaderstep::pipeline::PassError> {
        let words = shaderstep::ir::spirv::asm::assemble(WILD_POINTER).unwrap();
        *m = shaderstep::ir::spirv::read::read_words(&words).unwrap();
        Ok(shaderstep::pipeline::Changed::Yes)
    }
}

/// The ICD file of Mesa 25's lavapipe: `SHADERSTEP_LAVAPIPE25`, else what `scripts/lavapipe.sh`
/// prints (instant once fetched; it fetches from Debian's bookworm-backports the first time).
pub fn lavapipe25() -> PathBuf {
    if let Some(p) = std::env::var_os("SHADERSTEP_LAVAPIPE25").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/lavapipe.sh");
    let out = Command::new("bash")
        .arg(&script)
        .output()
        .expect("run scripts/lavapipe.sh");
    let printed = String::from_utf8_lossy(&out.stdout);
    match printed.lines().last().filter(|_| out.status.success()) {
        Some(icd) => PathBuf::from(icd.trim()),
        None => panic!(
            "Mesa 25's lavapipe is not there and scripts/lavapipe.sh could not fetch it (it needs Debian's apt and deb.debian.org; scripts/test.sh runs it): {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}
