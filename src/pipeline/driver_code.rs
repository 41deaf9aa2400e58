//! The driver's own code for a step: what the Vulkan driver compiled the step's SPIR-V to.
//!
//! The step runs once on the harness's inputs (a compute shader dispatched; a vertex or
//! fragment stage drawn, a lone one behind or before a stage made for it) in a worker process
//! whose driver prints its code: lavapipe from Mesa 25 on, under `GALLIVM_DEBUG=ir,asm`, prints
//! the final NIR, the LLVM IR and the x86 assembly of each shader it compiles, on standard
//! error, which the worker captures for that request alone (`wire::Request::Code`). The text is
//! cut into sections (`parse`) by kind and shader, and counted (`Stats`).
//!
//! The SPIR-V is the step's own (`spirv_of`), not the bisect's (`driver_words` forbids
//! contraction, which changes the code the driver makes).

use std::cell::RefCell;
use std::time::Duration;

use spirv::ExecutionModel;

use super::gpu::isolated::Isolated;
use super::gpu::reflect::{reflect_entry, setup, FILLS};
use super::gpu::wire::Request;
use super::gpu::{Device, DeviceError, DeviceInfo, Draw, Layout, Rendered};
use super::semantic::{initial_bytes, GROUPS};
use super::validate::spirv_of;
use crate::ir::Module;

/// How long compiling and running a step with the driver printing may take.
pub const LIMIT: Duration = Duration::from_secs(60);

/// What of the driver's code to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Show {
    Nir,
    Llvm,
    Asm,
    Stats,
}

impl Show {
    pub const ALL: [Show; 4] = [Show::Nir, Show::Llvm, Show::Asm, Show::Stats];

    pub fn parse(name: &str) -> Option<Show> {
        Show::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Show::Nir => "nir",
            Show::Llvm => "llvm",
            Show::Asm => "asm",
            Show::Stats => "stats",
        }
    }
}

/// What a section of the driver's output holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Nir,
    Llvm,
    Asm,
}

/// One shader's NIR, one LLVM module or function, or one function's assembly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub kind: Kind,
    /// The NIR's stage (`compute`), the LLVM module's name (`cs0_variant0`), the function's
    /// (`fs_variant_whole`).
    pub name: String,
    /// The shader stage whose code it is (`compute`, `vertex`, `fragment`, …); `None` for the
    /// driver's own helpers (texture sampling, triangle setup and the like).
    pub stage: Option<String>,
    pub text: String,
}

/// The driver's code of one step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Code {
    pub sections: Vec<Section>,
    /// The step's own stages: the others' code (a stage made to draw a lone one, the
    /// driver's helpers) is shown only when asked for and never counted.
    pub own: Vec<String>,
    /// The own sections counted, once (`parse`): the pass list and `:cost` read them for
    /// every step at every answer.
    pub stats: Stats,
}

/// Counts of one step's driver code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// x86 instructions in the shader's own functions.
    pub asm_instructions: usize,
    /// Instructions in the shader's LLVM functions.
    pub llvm_instructions: usize,
    /// Instructions in the final NIR.
    pub nir_instructions: usize,
    /// Per shader function: its name and its x86 instructions.
    pub functions: Vec<(String, usize)>,
}

impl Code {
    /// Whether a section is the step's own code.
    pub fn owns(&self, s: &Section) -> bool {
        s.stage.as_ref().is_some_and(|st| self.own.contains(st))
    }

    /// The text of the step's own sections of `kind`, each under a header; with `others`, the
    /// rest after them (a stage made for the draw, the driver's helpers).
    pub fn text(&self, kind: Kind, others: bool) -> String {
        let mut out = String::new();
        let mut sections: Vec<&Section> = self
            .sections
            .iter()
            .filter(|s| s.kind == kind && (others || self.owns(s)))
            .collect();
        sections.sort_by_key(|s| !self.owns(s));
        for s in sections {
            if !out.is_empty() {
                out.push('\n');
            }
            let whose = match &s.stage {
                _ if self.owns(s) => String::new(),
                Some(stage) => format!(" (the {stage} stage made for the draw)"),
                None => " (driver helper)".into(),
            };
            out.push_str(&format!("// ── {}{whose} ──\n", s.name));
            out.push_str(s.text.trim_end());
            out.push('\n');
        }
        out
    }

    /// `text`, with the assembly tidied (`tidy_asm`).
    pub fn listing(&self, kind: Kind, others: bool) -> String {
        let text = self.text(kind, others);
        match kind {
            Kind::Asm => tidy_asm(&text),
            _ => text,
        }
    }

    fn count(&self) -> Stats {
        let mut st = Stats::default();
        for s in self.sections.iter().filter(|s| self.owns(s)) {
            match s.kind {
                Kind::Asm => {
                    let n = asm_instructions(&s.text);
                    st.asm_instructions += n;
                    st.functions.push((s.name.clone(), n));
                }
                Kind::Llvm => st.llvm_instructions += llvm_instructions(&s.text),
                Kind::Nir => st.nir_instructions += nir_instructions(&s.text),
            }
        }
        st
    }

    /// What `--show` prints.
    pub fn show(&self, show: Show) -> String {
        match show {
            Show::Nir => self.text(Kind::Nir, false),
            Show::Llvm => self.text(Kind::Llvm, false),
            Show::Asm => self.listing(Kind::Asm, false),
            Show::Stats => {
                let st = &self.stats;
                let mut out = format!(
                    "x86 instructions   {}\nLLVM instructions  {}\nNIR instructions   {}\n",
                    st.asm_instructions, st.llvm_instructions, st.nir_instructions
                );
                for (name, n) in &st.functions {
                    out.push_str(&format!("  {name:<28} {n} x86 instructions\n"));
                }
                out
            }
        }
    }
}

/// Assembly as people read it, and as diffs between steps can compare it: without the offsets
/// (every one after a changed instruction moves), jumps to labels (`.L2`) instead of
/// displacements from the next offset, and the addresses of the driver's constants, which
/// differ on every compile, as `$<address>`.
pub fn tidy_asm(text: &str) -> String {
    // (offset, mnemonic, operands) of an assembly line.
    fn split(line: &str) -> Option<(u64, &str, &str)> {
        let (at, rest) = line.trim_start().split_once(":\t")?;
        let at = u64::from_str_radix(at, 16).ok()?;
        let (mnemonic, operands) = rest.split_once('\t').unwrap_or((rest, ""));
        Some((at, mnemonic, operands))
    }
    let lines: Vec<&str> = text.lines().collect();
    let parsed: Vec<Option<(u64, &str, &str)>> = lines.iter().map(|l| split(l)).collect();
    // Each jump's target: (the line its function starts at, the offset), as offsets restart
    // in each function.
    let mut jumps: Vec<Option<(usize, u64)>> = vec![None; lines.len()];
    let mut targets = std::collections::HashSet::new();
    let mut function = 0;
    for (k, p) in parsed.iter().enumerate() {
        let Some((_, mnemonic, operands)) = p else {
            function = k;
            continue;
        };
        let next = parsed.get(k + 1).and_then(|n| n.map(|(at, _, _)| at));
        if let (true, Some(next), Ok(displacement)) = (
            mnemonic.starts_with('j'),
            next,
            operands.trim().parse::<i64>(),
        ) {
            let target = (function, next.wrapping_add_signed(displacement));
            jumps[k] = Some(target);
            targets.insert(target);
        }
    }
    // Labels numbered in the order their targets come in the text.
    let mut labels = std::collections::HashMap::new();
    let mut function = 0;
    for (k, p) in parsed.iter().enumerate() {
        match p {
            None => function = k,
            Some((at, _, _)) if targets.contains(&(function, *at)) => {
                let n = labels.len();
                labels.insert((function, *at), n);
            }
            Some(_) => {}
        }
    }
    let label = |target: (usize, u64)| labels.get(&target).copied();
    let mut out = String::with_capacity(text.len());
    let mut function = 0;
    for (k, line) in lines.iter().enumerate() {
        let Some((at, mnemonic, operands)) = parsed[k] else {
            function = k;
            out.push_str(line);
            out.push('\n');
            continue;
        };
        if let Some(n) = label((function, at)) {
            out.push_str(&format!(".L{n}:\n"));
        }
        let operands = match jumps[k].and_then(label) {
            Some(n) => format!(".L{n}"),
            None => hide_addresses(operands),
        };
        let operands = operands.trim_end();
        if operands.is_empty() {
            out.push_str(&format!("        {mnemonic}\n"));
        } else {
            out.push_str(&format!("        {mnemonic:<7} {operands}\n"));
        }
    }
    out
}

/// Immediates too large for 32 bits (`movabsq $140471409299744, %rcx`): the addresses of the
/// driver's constants in memory, which change on every compile.
fn hide_addresses(operands: &str) -> String {
    let mut out = String::with_capacity(operands.len());
    let mut rest = operands;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let large = rest[..digits]
            .parse::<u64>()
            .is_ok_and(|v| v > u64::from(u32::MAX));
        if large || digits > 19 {
            out.push_str("<address>");
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// An assembly line as LLVM's disassembler prints it: `    1f:\tvmovaps ...`.
fn is_asm_line(line: &str) -> bool {
    let t = line.trim_start();
    match t.split_once(":\t") {
        Some((at, _)) => !at.is_empty() && at.bytes().all(|b| b.is_ascii_hexdigit()),
        None => false,
    }
}

fn asm_instructions(text: &str) -> usize {
    text.lines().filter(|l| is_asm_line(l)).count()
}

/// Instructions in LLVM IR functions: indented lines that are neither comments nor labels.
fn llvm_instructions(text: &str) -> usize {
    let mut inside = false;
    let mut n = 0;
    for line in text.lines() {
        if line.starts_with("define ") {
            inside = true;
        } else if line.starts_with('}') {
            inside = false;
        } else if inside {
            let t = line.trim();
            if line.starts_with("  ") && !t.is_empty() && !t.starts_with(';') {
                n += 1;
            }
        }
    }
    n
}

/// Instructions in NIR: the lines inside an `impl` that define or store something.
fn nir_instructions(text: &str) -> usize {
    let mut inside = false;
    let mut n = 0;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("impl ") || t.starts_with("decl_function") && t.ends_with('{') {
            inside = true;
            continue;
        }
        if !inside || t.is_empty() || t.starts_with("//") {
            continue;
        }
        if t.starts_with("block ")
            || t.starts_with('}')
            || t.starts_with("loop ")
            || t.starts_with("if ")
            || t.starts_with("} else")
            || t.starts_with("decl_")
            || t.starts_with("preds:")
        {
            continue;
        }
        n += 1;
    }
    n
}

/// The stage a NIR header names: `shader: MESA_SHADER_COMPUTE` is `compute`.
fn nir_stage(line: &str) -> Option<String> {
    let rest = line.strip_prefix("shader: MESA_SHADER_")?;
    Some(rest.trim().to_lowercase())
}

/// A function header in the assembly: `name:` alone on its line, an assembly line after it.
fn asm_header(line: &str, next: Option<&str>) -> Option<String> {
    let name = line.strip_suffix(':')?;
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
    (ok && next.is_some_and(is_asm_line)).then(|| name.to_string())
}

/// The stage whose code an LLVM module or function of lavapipe's is, by its name: `cs…`
/// compute, `fs…` fragment, `draw_llvm_vs…` vertex; `None` for the driver's helpers
/// (`sample_function`, `setup_variant_0`, …).
fn stage_of(name: &str) -> Option<String> {
    let stage = if name.starts_with("cs") {
        "compute"
    } else if name.starts_with("fs") {
        "fragment"
    } else if name.starts_with("draw_llvm_vs") || name.starts_with("vs") {
        "vertex"
    } else if name.starts_with("draw_llvm_gs") || name.starts_with("gs") {
        "geometry"
    } else if name.starts_with("tcs") {
        "tess_ctrl"
    } else if name.starts_with("tes") {
        "tess_eval"
    } else if name.starts_with("task") {
        "task"
    } else if name.starts_with("mesh") {
        "mesh"
    } else {
        return None;
    };
    Some(stage.to_string())
}

/// Cuts what the driver printed into sections: each NIR shader (from its `shader:` line), each
/// LLVM module (from its `; ModuleID` line) and each function's assembly (from `name:`).
pub fn parse(printed: &str, own: &[&str]) -> Code {
    let lines: Vec<&str> = printed.lines().collect();
    let mut sections: Vec<Section> = Vec::new();
    let mut current: Option<Section> = None;
    for (k, &line) in lines.iter().enumerate() {
        let in_llvm = current.as_ref().is_some_and(|s| s.kind == Kind::Llvm);
        let start = if let Some(stage) = nir_stage(line) {
            Some((Kind::Nir, stage.clone(), Some(stage)))
        } else if let Some(rest) = line.strip_prefix("; ModuleID = '") {
            let module = rest.trim_end_matches('\'').to_string();
            let stage = stage_of(&module);
            Some((Kind::Llvm, module, stage))
        } else if let Some(f) = line.strip_prefix("define ").filter(|_| !in_llvm) {
            // A function printed alone (the vertex stage's, by the draw module).
            let name = f
                .split_once('@')
                .map(|(_, n)| n.split('(').next().unwrap_or(n).to_string())
                .unwrap_or_default();
            let stage = stage_of(&name);
            Some((Kind::Llvm, name, stage))
        } else {
            asm_header(line, lines.get(k + 1).copied()).map(|f| {
                let stage = stage_of(&f);
                (Kind::Asm, f, stage)
            })
        };
        let started = start.is_some();
        if let Some((kind, name, stage)) = start {
            sections.extend(current.take());
            current = Some(Section {
                kind,
                name,
                stage,
                text: String::new(),
            });
        }
        if let Some(s) = &mut current {
            // An assembly function ends at its last instruction, an LLVM function printed
            // alone at its closing brace; what follows is other output.
            if s.kind == Kind::Asm && !started && !is_asm_line(line) {
                sections.extend(current.take());
                continue;
            }
            s.text.push_str(line);
            s.text.push('\n');
            if s.kind == Kind::Llvm && line == "}" && !s.text.starts_with("; ModuleID") {
                sections.extend(current.take());
            }
        }
    }
    sections.extend(current);
    let mut code = Code {
        sections,
        own: own.iter().map(|s| s.to_string()).collect(),
        stats: Stats::default(),
    };
    code.stats = code.count();
    code
}

/// A device that answers every run or draw with what the driver printed meanwhile, kept in
/// `printed` (the results are not wanted: empty buffers and images stand for them).
struct Printing<'a> {
    worker: &'a Isolated,
    printed: RefCell<String>,
}

impl Device for Printing<'_> {
    fn name(&self) -> &str {
        self.worker.name()
    }

    fn version(&self) -> &str {
        self.worker.version()
    }

    fn run_buffers(
        &self,
        words: &[u32],
        layout: &Layout,
        groups: [u32; 3],
        buffers: &[Vec<u8>],
        limit: Duration,
    ) -> Result<Vec<Vec<u8>>, DeviceError> {
        let request = Request::run(words, layout, groups, buffers);
        let text = self.worker.code(request, limit)?;
        self.printed.borrow_mut().push_str(&text);
        Ok(vec![Vec::new(); buffers.len()])
    }

    fn draw_limited(&self, draw: &Draw, limit: Duration) -> Result<Rendered, DeviceError> {
        let request = Request::draw(draw);
        let text = self.worker.code(request, limit)?;
        self.printed.borrow_mut().push_str(&text);
        Ok(Rendered {
            colors: Vec::new(),
            buffers: Vec::new(),
        })
    }
}

/// Runs `module` once on `gpu`: a compute entry point dispatched, else its vertex and
/// fragment entry points drawn, a lone one with a stage made for it. The module's own stages
/// that ran.
pub fn run_once(
    gpu: &dyn Device,
    module: &Module,
    entry: Option<&str>,
) -> Result<Vec<&'static str>, String> {
    let words = spirv_of(module)?.words;
    let models = super::exec::models(module);
    if models.contains(&ExecutionModel::GLCompute) {
        let layout = Layout::of_entry(&words, entry)
            .map_err(|why| format!("cannot run this compute shader: {why}"))?;
        let buffers: Vec<Vec<u8>> = layout
            .slots()
            .iter()
            .map(|(b, e)| initial_bytes(b, *e, None))
            .collect();
        gpu.run_buffers(&words, &layout, GROUPS, &buffers, LIMIT)
            .map_err(|e| e.to_string())?;
        return Ok(vec!["compute"]);
    }
    let vertex = models.contains(&ExecutionModel::Vertex);
    let fragment = models.contains(&ExecutionModel::Fragment);
    let own = match (vertex, fragment) {
        (true, true) => vec!["vertex", "fragment"],
        (true, false) => vec!["vertex"],
        _ => vec!["fragment"],
    };
    let (vs_words, vs, fs_words, fs) =
        match (vertex, fragment) {
            (true, true) => {
                let vs = reflect_entry(&words, ExecutionModel::Vertex, entry)?;
                let fs = reflect_entry(&words, ExecutionModel::Fragment, entry)?;
                (words.clone(), vs, words, fs)
            }
            (false, true) => {
                let fs = reflect_entry(&words, ExecutionModel::Fragment, entry)?;
                let made = super::gpu::stand_in::vertex_for(&fs)?;
                let vs = reflect_entry(&made, ExecutionModel::Vertex, None)?;
                (made, vs, words, fs)
            }
            (true, false) => {
                let vs = reflect_entry(&words, ExecutionModel::Vertex, entry)?;
                let made = super::gpu::stand_in::fragment_for(&vs)?;
                let fs = reflect_entry(&made, ExecutionModel::Fragment, None)?;
                (words, vs, made, fs)
            }
            (false, false) => return Err(
                "no compute, vertex or fragment entry point: the driver's code is shown for those"
                    .into(),
            ),
        };
    let set = setup(&vs, &fs, 12, 2, FILLS[0].1)?;
    set.draw(gpu, (&vs_words, &vs.entry), (&fs_words, &fs.entry), LIMIT)
        .map_err(|e| e.to_string())?;
    Ok(own)
}

/// The driver's code of `module`, compiled by the driver of `worker` (opened with `code`).
/// A driver that cannot print its code says so in the error.
pub fn code_of(worker: &Isolated, module: &Module, entry: Option<&str>) -> Result<Code, String> {
    let info = worker.info();
    if !info.gallivm_debug {
        return Err(no_code(info));
    }
    let printing = Printing {
        worker,
        printed: RefCell::new(String::new()),
    };
    let own = run_once(&printing, module, entry)?;
    let code = parse(&printing.printed.into_inner(), &own);
    if code.sections.is_empty() {
        return Err(format!(
            "{} printed none of its code (is GALLIVM_DEBUG honoured by this build?)",
            info.name
        ));
    }
    Ok(code)
}

/// What the driver's code of a module is kept by: the hash of its SPIR-V.
pub fn content_hash(words: &[u32]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::ir::fxhash::FxHasher::default();
    words.hash(&mut h);
    h.finish()
}

/// The driver's code of modules, each compiled once per SPIR-V content: a step that changed
/// nothing costs nothing (`cost --driver`).
#[derive(Default)]
pub struct Compiled {
    by_content: std::collections::HashMap<u64, Result<std::sync::Arc<Code>, String>>,
}

impl Compiled {
    /// The code of `module` on `worker`'s driver.
    pub fn of(
        &mut self,
        worker: &Isolated,
        module: &Module,
    ) -> Result<std::sync::Arc<Code>, String> {
        let words = spirv_of(module)?.words;
        self.by_content
            .entry(content_hash(&words))
            .or_insert_with(|| code_of(worker, module, None).map(std::sync::Arc::new))
            .clone()
    }

    /// How many distinct modules were compiled.
    pub fn compiled(&self) -> usize {
        self.by_content.len()
    }
}

/// Why a device shows no code, in words.
pub fn no_code(info: &DeviceInfo) -> String {
    if info.executable_properties {
        return format!(
            "{} ({}) reports its statistics and representations through VK_KHR_pipeline_executable_properties, which shaderstep does not read yet; lavapipe from Mesa 25 on prints its NIR, LLVM IR and assembly (GALLIVM_DEBUG): --driver \"$(scripts/lavapipe.sh | tail -1)\"",
            info.name, info.driver_info
        );
    }
    format!(
        "{} ({}) shows nothing of the code it compiles: it has no VK_KHR_pipeline_executable_properties, and only lavapipe from Mesa 25 on prints its NIR, LLVM IR and assembly (GALLIVM_DEBUG); `scripts/lavapipe.sh` fetches one: --driver \"$(scripts/lavapipe.sh | tail -1)\"",
        info.name, info.driver_info
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_driver_without_code_is_told_apart_from_one_whose_statistics_are_not_read() {
        let mut info = DeviceInfo {
            name: "llvmpipe".into(),
            driver_info: "Mesa 22.3.6".into(),
            ..Default::default()
        };
        assert!(no_code(&info).contains("shows nothing of the code it compiles"));
        info.executable_properties = true;
        assert!(no_code(&info).contains("which shaderstep does not read yet"));
    }

    #[test]
    fn assembly_reads_with_labels_and_without_offsets_or_addresses() {
        let raw = "f:\n     0:\ttestl\t%eax, %eax\n     2:\tje\t1\n     4:\tnop\n     5:\tmovabsq\t$140471409299744, %rcx\n     f:\tjmp\t-17\n    11:\tretq\n";
        assert_eq!(
            tidy_asm(raw),
            "f:\n.L0:\n        testl   %eax, %eax\n        je      .L1\n        nop\n.L1:\n        movabsq $<address>, %rcx\n        jmp     .L0\n        retq\n"
        );
    }

    const PRINTED: &str = "\
; ModuleID = 'sample_function'
define void @sample() {
entry:
  ret void
}
sample:
     0:\tvxorps\t%xmm0, %xmm0, %xmm0
     4:\tretq

shader: MESA_SHADER_COMPUTE
name: main
impl main {
    block b0:
    32     %0 = load_const (0x00000000)
    32     %1 = iadd %0, %0
}
; ModuleID = 'cs0_variant0'
define void @cs0_variant0(ptr %0) {
entry:
  %1 = add i32 1, 2
  store i32 %1, ptr %0
  ret void
}
cs0_variant0:
     0:\tpushq\t%rbp
     1:\tmovq\t%rsp, %rbp
     4:\tpopq\t%rbp
     5:\tretq

define i8 @draw_llvm_vs_variant(ptr %0) {
entry:
  ret i8 0
}
";

    #[test]
    fn cuts_the_output_into_sections_and_counts_the_shaders_own() {
        let code = parse(PRINTED, &["compute"]);
        let kinds: Vec<(Kind, &str, bool)> = code
            .sections
            .iter()
            .map(|s| (s.kind, s.name.as_str(), code.owns(s)))
            .collect();
        assert_eq!(
            kinds,
            [
                (Kind::Llvm, "sample_function", false),
                (Kind::Asm, "sample", false),
                (Kind::Nir, "compute", true),
                (Kind::Llvm, "cs0_variant0", true),
                (Kind::Asm, "cs0_variant0", true),
                (Kind::Llvm, "draw_llvm_vs_variant", false),
            ]
        );
        assert_eq!(code.sections[5].stage.as_deref(), Some("vertex"));
        let st = &code.stats;
        assert_eq!(st.asm_instructions, 4);
        assert_eq!(st.llvm_instructions, 3);
        assert_eq!(st.nir_instructions, 2);
        assert_eq!(
            code.text(Kind::Asm, false),
            "// ── cs0_variant0 ──\ncs0_variant0:\n     0:\tpushq\t%rbp\n     1:\tmovq\t%rsp, %rbp\n     4:\tpopq\t%rbp\n     5:\tretq\n"
        );
        assert!(code
            .text(Kind::Asm, true)
            .contains("sample (driver helper)"));
        assert!(code
            .text(Kind::Llvm, true)
            .contains("draw_llvm_vs_variant (the vertex stage made for the draw)"));
    }
}
