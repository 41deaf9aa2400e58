//! Semantic bisect (`:bisect run`, `run --bisect-run`): the shader is run on a Vulkan driver
//! after every step of a run, on the same data, and the first step whose results differ from
//! the input's is the answer — "which pass changed what my shader computes". Steps in the
//! shaderstep dialect are lifted to SPIR-V first (as `--validate-each` does); a step that did
//! not change the module computes what the step before did and is not run again.
//!
//! Compute shaders run (`gpu::Layout`) with buffers, images of every shape, texel buffers,
//! samplers, push constants and buffer addresses: every binding starts with the same bytes,
//! from a file or a fixed pattern, and everything the shader can write (storage buffers,
//! storage images, the buffers behind addresses) is compared after the dispatch. A vertex and
//! a fragment stage (linked stages, one module with both entry points, or one stage alone with
//! a generated partner) are drawn (`gpu::reflect`): vertex attributes, descriptors and push
//! constants from fixed patterns (the first of them with which the input draws something),
//! every fragment output into a 32-bit attachment, compared texel by texel.
//!
//! Runs of the input that disagree (races, reads of memory nothing wrote) leave the words
//! they disagree on out; a step found to differ is run again, and the input too, before it is
//! blamed. The driver gets float arithmetic without contraction (`driver_words`).
//!
//! This file is the driver's bisect; `oracle` decides who runs the steps (`Feed::oracle`: the
//! interpreter, the driver, or both) and names a blamed step's first differing value.

use spirv::ExecutionModel;

use std::time::{Duration, Instant};

use super::gpu::reflect::{covers, difference, mixed, reflect_entry, setup, Kind, FILLS, ZEROS};
use super::gpu::{Binding, Device, DeviceError, Layout, BUFFER_SIZE};
pub use super::oracle::Oracle;
use super::validate::spirv_of;
use super::Run;

/// The words a driver runs for a step: its SPIR-V with every float result of arithmetic
/// decorated `NoContraction`. SPIR-V lets a driver fuse a multiply and an add into one
/// rounding (llvmpipe does) wherever it sees both, so two shapes of the same arithmetic (a
/// value kept in a variable, then promoted to a register by mem2reg) could round apart and
/// a pass that only moved code would be blamed for the driver's choice.
pub fn driver_words(module: &crate::ir::Module) -> Result<Vec<u32>, String> {
    use crate::ir::spirv::{read, write};
    use rspirv::dr::Operand;
    use spirv::{Decoration, Op};
    let words = spirv_of(module)?.words;
    let Ok(mut m) = read::read_words(&words) else {
        return Ok(words);
    };
    let exact = |d: &crate::ir::Inst| {
        d.op() == Op::Decorate
            && d.lits().first() == Some(&Operand::Decoration(Decoration::NoContraction))
    };
    let already: std::collections::HashSet<u32> = m
        .annotations()
        .iter()
        .filter(|d| exact(d))
        .filter_map(|d| d.arg(0))
        .collect();
    let mut results = Vec::new();
    for f in m.functions() {
        for i in f.insts() {
            let arithmetic = matches!(
                i.op(),
                Op::FAdd
                    | Op::FSub
                    | Op::FMul
                    | Op::FDiv
                    | Op::VectorTimesScalar
                    | Op::MatrixTimesScalar
                    | Op::VectorTimesMatrix
                    | Op::MatrixTimesVector
                    | Op::MatrixTimesMatrix
                    | Op::Dot
                    | Op::ExtInst
            );
            if let (true, Some(r)) = (arithmetic, i.result()) {
                if !already.contains(&r) {
                    results.push(r);
                }
            }
        }
    }
    let mut b = crate::ir::rewrite::Builder::detached(&mut m);
    for r in results {
        b.decorate(r, Decoration::NoContraction, Vec::new());
    }
    Ok(write::write_words(&m))
}

/// What a semantic bisect feeds the shader, beyond its fixed patterns, and who says what a
/// step computes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Feed<'a> {
    /// The bytes every buffer starts with (repeated to fill it).
    pub data: Option<&'a [u8]>,
    /// The entry point run, when a module has several of its stage (else the first).
    pub entry: Option<&'a str>,
    /// Only the passes numbered from `.0` to `.1` are run and compared (`reduce` asks whether
    /// one step, and not the one before, differs); the others count as the same.
    pub window: Option<(usize, usize)>,
    /// The interpreter, the driver or both (`oracle`); the default is the interpreter where it
    /// agrees with the driver on the input, else the driver.
    pub oracle: Oracle,
    /// A step the interpreter finds differing only where its values are undefined, or running
    /// into undefined behaviour the input does not, counts as computing what the input does
    /// when no driver is there to say: a reducer's question, whose result the driver confirms.
    pub undefined_same: bool,
    /// Instructions the interpreter runs of a step before it stops, where fewer than its own
    /// budget: a reducer's candidate that loops for ever is refused as soon as it runs far
    /// longer than the input did.
    pub budget: Option<u64>,
    /// The interpreter draws only the quads holding these pixels (`Options::only_quads_of`):
    /// a reducer asks whether a candidate still differs where its input did.
    pub quads_of: Option<[[u32; 2]; 4]>,
}

impl Feed<'_> {
    pub(super) fn skips(&self, pass: usize) -> bool {
        self.window.is_some_and(|(lo, hi)| pass < lo || pass > hi)
    }
}

/// Runs more of the input, and of a step found to differ, before that step is blamed.
const CONFIRM_RUNS: usize = 2;

/// Workgroups dispatched: two, so that a shader's workgroups can disagree.
pub const GROUPS: [u32; 3] = [2, 1, 1];

/// How long the input may run (the first run opens the device too).
const INPUT_LIMIT: Duration = Duration::from_secs(20);

/// How long a step may run: ten times what the input took, and at least two seconds, so a
/// slow shader is not refused and a step that hangs is found.
fn step_limit(input: Duration) -> Duration {
    (input * 10).max(Duration::from_secs(2))
}

/// What a step does that the input does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Its results differ.
    Differs,
    /// The driver refuses or fails it.
    Fails,
    /// The driver crashes on it.
    Crashes,
    /// The driver does not finish it within the limit.
    Hangs,
}

impl Finding {
    pub(super) fn of(e: &DeviceError) -> Finding {
        match e {
            DeviceError::Failed(_) => Finding::Fails,
            DeviceError::Crashed(_) => Finding::Crashes,
            DeviceError::Hung(_) => Finding::Hangs,
        }
    }

    /// How the summary names the step found.
    pub fn first_step(self) -> &'static str {
        match self {
            Finding::Differs => "first step whose results differ",
            Finding::Fails => "first step the driver cannot run",
            Finding::Crashes => "first step that crashes the driver",
            Finding::Hangs => "first step that hangs the driver",
        }
    }
}

/// The first step whose results differ from the input's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The step, in the run of the stage it is reported on (the fragment stage's for a
    /// pipeline).
    pub step: usize,
    /// Its number among the passes (the steps that are not the source text): the same in
    /// every linked stage's run, whatever the steps in front.
    pub pass_index: usize,
    pub pass: &'static str,
    pub finding: Finding,
    /// Which buffer and word, and how: `set 0 binding 1, word 4: 0x3f800000 (1) → …`; or how
    /// the driver failed, crashed or hung.
    pub what: String,
    /// The first value that differs between the step before and this one, as the interpreter
    /// runs them (`pipeline::exec::first_difference_text`), with this step's ids:
    /// `%12 = OpISub %6 %10 %11: 7 → 3 (invocation 0,0,0), line 5`. `None` where the
    /// interpreter cannot run both (graphics stages so far) or finds every value the same.
    pub value: Option<String>,
    /// Undefined behaviour the interpreter finds at this step and not at the one before.
    pub undefined: Vec<String>,
}

/// What a semantic bisect found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BisectRun {
    pub first: Option<Difference>,
    /// Steps whose results were compared with the input's (run, or unchanged).
    pub compared: usize,
    /// Steps that could not be run, with why.
    pub skipped: Vec<(usize, String)>,
    /// The device, and what ran: `llvmpipe …: 3 buffers of 16 KiB, 2 workgroups`.
    pub setup: String,
    /// Words (or texels) that differ between runs of the input itself, left out of every
    /// comparison, and how many were compared.
    pub varying: usize,
    pub stable: usize,
    /// The shader writes no storage buffer or image: nothing was compared, only the driver's
    /// crashes, hangs and failures looked for.
    pub writes_nothing: bool,
    /// Which oracle decided and why, where the bisect chose or compared them: `the
    /// interpreter agrees with the driver on the input, so it decides`.
    pub oracle: Option<String>,
    /// Steps whose results the interpreter finds undefined where the input's are not, which
    /// the driver then ran and found computing what the input does (`auto`).
    pub driver_judged: Vec<usize>,
    /// The interpreter decided (`interp`, or `auto` where it agrees with the driver on the
    /// input).
    pub interpreter_decided: bool,
}

impl BisectRun {
    /// One line for the status bar and `run --bisect-run`.
    pub fn summary(&self) -> String {
        let mut skipped = if self.skipped.is_empty() {
            String::new()
        } else {
            format!("; {} steps skipped", self.skipped.len())
        };
        if self.varying > 0 {
            skipped.push_str(&format!(
                "; {} words vary between runs of the input, the other {} compared",
                self.varying, self.stable
            ));
        }
        if !self.driver_judged.is_empty() {
            skipped.push_str(&format!(
                "; {} steps whose results the interpreter finds undefined compute what the input does on the driver",
                self.driver_judged.len()
            ));
        }
        if let Some(why) = &self.oracle {
            skipped.push_str(&format!("; {why}"));
        }
        match &self.first {
            Some(d) => {
                let mut found = String::new();
                if let Some(v) = &d.value {
                    found.push_str(&format!("; first difference: {v}"));
                }
                if !d.undefined.is_empty() {
                    found.push_str(&format!(
                        "; undefined behaviour first found at this step: {}",
                        d.undefined.join("; ")
                    ));
                }
                format!(
                    "{}: {} {} — {}{found}{skipped}",
                    d.finding.first_step(),
                    d.step,
                    d.pass,
                    d.what
                )
            }
            None if self.writes_nothing => format!(
                "every step runs as the input does — it writes no storage buffer or image, so only the driver's crashes, hangs and failures were looked for ({} steps on {}){skipped}",
                self.compared, self.setup
            ),
            None => format!(
                "every step computes what the input does ({} steps on {}){skipped}",
                self.compared, self.setup
            ),
        }
    }
}

/// `n` things, in the plural unless one.
pub fn counted(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// What a dispatch of the bisect ran with, for its summary: the device (or the interpreter),
/// then what it held, only what there is of it.
pub fn setup_text(device: &str, buffers: usize, images: usize, push: &str) -> String {
    let mut held = Vec::new();
    if buffers > 0 {
        held.push(format!(
            "{} of {} KiB",
            counted(buffers, "buffer"),
            BUFFER_SIZE / 1024
        ));
    }
    if images > 0 {
        held.push(counted(images, "image"));
    }
    if !push.is_empty() {
        held.push(push.to_string());
    }
    held.push(counted(GROUPS[0] as usize, "workgroup"));
    format!("{device}: {}", held.join(", "))
}

/// The bytes a binding starts with: `data` repeated to fill it, or the fixed pattern the
/// graphics draws use too (`reflect::mixed`: small integers every fourth word, where counts and
/// indices usually live; floats elsewhere), different per binding and per buffer of an array.
/// Images get their own pattern (`Image::fill`), valid for their format.
pub fn initial_bytes(b: &Binding, element: u32, data: Option<&[u8]>) -> Vec<u8> {
    let seed = b.set * 16 + b.binding + element * 257;
    match (&b.kind, data) {
        (Kind::Image(image), _) => image.fill(seed),
        (Kind::Sampler | Kind::AccelerationStructure, _) => Vec::new(),
        (Kind::Buffer { .. }, Some(d)) if !d.is_empty() => {
            d.iter().copied().cycle().take(BUFFER_SIZE).collect()
        }
        (Kind::Buffer { .. }, _) => mixed(seed, BUFFER_SIZE / 4),
    }
}

/// Whether a shader can write what a binding holds.
pub(super) fn writable(kind: &Kind) -> bool {
    match kind {
        Kind::Buffer { storage } => *storage,
        Kind::Image(image) => image.storage,
        Kind::Sampler | Kind::AccelerationStructure => false,
    }
}

/// Whether a shader's results may change from run to run of the same module: it uses atomics,
/// subgroup operations or workgroup memory (whose order between invocations is the driver's).
pub fn may_race(m: &crate::ir::Module) -> bool {
    let sets = crate::ir::ops::ExtSets::of(m);
    let shared = m.globals().iter().any(|g| {
        g.op() == spirv::Op::Variable
            && matches!(
                g.lits().first(),
                Some(rspirv::dr::Operand::StorageClass(
                    spirv::StorageClass::Workgroup
                ))
            )
    });
    shared
        || m.functions().iter().any(|f| {
            f.insts().any(|i| {
                crate::ir::inst::is_atomic(i.op())
                    || crate::ir::ops::attrs_of(i, &sets).contains(crate::ir::ops::Attrs::WAVE)
            })
        })
}

/// A draw's attachments then storage buffers, as `varying_words` takes runs.
fn flat_rendered(r: &super::gpu::Rendered) -> Vec<Vec<u8>> {
    r.colors.iter().chain(&r.buffers).cloned().collect()
}

/// The draw with the words that vary between draws of the input zeroed.
fn masked(
    r: &super::gpu::Rendered,
    varying: &std::collections::BTreeSet<(usize, usize)>,
) -> super::gpu::Rendered {
    let mut r = r.clone();
    let colors = r.colors.len();
    for &(k, w) in varying {
        let bytes = if k < colors {
            r.colors.get_mut(k)
        } else {
            r.buffers.get_mut(k - colors)
        };
        if let Some(word) = bytes.and_then(|b| b.get_mut(w * 4..w * 4 + 4)) {
            word.fill(0);
        }
    }
    r
}

/// The (binding, word) places where runs of the same module disagree.
fn varying_words(runs: &[Vec<Vec<u8>>]) -> std::collections::BTreeSet<(usize, usize)> {
    let mut out = std::collections::BTreeSet::new();
    let Some((first, rest)) = runs.split_first() else {
        return out;
    };
    for other in rest {
        for (b, (x, y)) in first.iter().zip(other).enumerate() {
            for (w, (p, q)) in x.chunks(4).zip(y.chunks(4)).enumerate() {
                if p != q {
                    out.insert((b, w));
                }
            }
        }
    }
    out
}

/// Where two runs' buffers first differ, leaving out the words that vary between runs of the
/// input.
fn first_difference(
    layout: &Layout,
    before: &[Vec<u8>],
    after: &[Vec<u8>],
    varying: &std::collections::BTreeSet<(usize, usize)>,
) -> Option<String> {
    // The buffers behind buffer addresses come after the bindings' (`addresses::POINTEES`).
    let slots = layout.slots();
    for (k, (slot, (x, y))) in slots
        .iter()
        .map(Some)
        .chain(std::iter::repeat(None))
        .zip(before.iter().zip(after))
        .enumerate()
    {
        let differs = |(w, (p, q)): &(usize, (&[u8], &[u8]))| p != q && !varying.contains(&(k, *w));
        let Some((word, _)) = x.chunks(4).zip(y.chunks(4)).enumerate().find(differs) else {
            continue;
        };
        let read = |bytes: &[u8]| {
            let w = u32::from_le_bytes(bytes[word * 4..word * 4 + 4].try_into().unwrap_or([0; 4]));
            format!("{w:#010x} ({})", f32::from_bits(w))
        };
        let count = x
            .chunks(4)
            .zip(y.chunks(4))
            .enumerate()
            .filter(differs)
            .count();
        let Some((b, element)) = slot else {
            return Some(format!(
                "the buffer behind address {}, word {word}: {} → {} ({count} words differ)",
                k - slots.len() + 1,
                read(x),
                read(y)
            ));
        };
        let index = if b.count > 1 {
            format!("[{element}]")
        } else {
            String::new()
        };
        let at = match &b.kind {
            Kind::Image(image) => format!(
                "texel {} of {image}",
                word * 4 / image.texel_bytes().max(1) as usize
            ),
            _ => format!("word {word}"),
        };
        return Some(format!(
            "set {} binding {}{index}, {at}: {} → {} ({count} words differ)",
            b.set,
            b.binding,
            read(x),
            read(y)
        ));
    }
    None
}

/// Runs the shader after every step of `run` on `gpu` and finds the first step whose results
/// differ from the input's. `cancelled` is asked between steps. `Err` says why the shader
/// cannot be run at all.
pub fn bisect_run(
    gpu: &dyn Device,
    run: &Run,
    feed: Feed,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    let data = feed.data;
    // The input: the first step that is not the source text.
    let steps: Vec<usize> = (0..run.steps.len())
        .filter(|&i| !run.steps[i].is_source())
        .collect();
    let &first = steps.first().ok_or("the run has no steps")?;
    let words = driver_words(&run.steps[first].module)
        .map_err(|e| format!("the input cannot be run: {e}"))?;
    let mut layout = Layout::of_entry(&words, feed.entry).map_err(|why| {
        format!(
            "cannot run this shader: {why} (compute shaders with buffers, images of every shape, texel buffers, samplers and push constants run)"
        )
    })?;
    let fill = |layout: &Layout, data: Option<&[u8]>| -> Vec<Vec<u8>> {
        layout
            .slots()
            .iter()
            .map(|(b, e)| initial_bytes(b, *e, data))
            .collect()
    };
    let mut buffers = fill(&layout, data);
    let started = Instant::now();
    // Where the driver crashes on the pattern, the buffers and push constants start zeroed
    // instead (see `reflect::zeros`: indices read from them are then in range).
    let mut zeroed = false;
    let before = match gpu.run_buffers(&words, &layout, GROUPS, &buffers, INPUT_LIMIT) {
        Err(e @ DeviceError::Crashed(_)) if data.is_none() => {
            layout.zero_push = true;
            buffers = fill(&layout, Some(&[0; 4]));
            zeroed = true;
            gpu.run_buffers(&words, &layout, GROUPS, &buffers, INPUT_LIMIT)
                .map_err(|_| format!("the input does not run: {e}"))?
        }
        r => r.map_err(|e| format!("the input does not run: {e}"))?,
    };
    let limit = step_limit(started.elapsed());
    // Runs of the input again: what differs between them is not the passes' doing.
    // Three runs in all, five when the shader uses what makes invocations race: workgroups
    // that write the same words without atomics race too, and a race seen in one run of two
    // is easily missed.
    let again = if may_race(&run.steps[first].module) {
        4
    } else {
        2
    };
    let mut runs = vec![before.clone()];
    for _ in 0..again {
        runs.push(
            gpu.run_buffers(&words, &layout, GROUPS, &buffers, limit)
                .map_err(|e| format!("the input does not run again: {e}"))?,
        );
    }
    let mut varying = varying_words(&runs);
    let run_words = words;
    let total: usize = before.iter().map(|b| b.len().div_ceil(4)).sum();
    // A shader that writes nothing anyone can read is still run after every step: the
    // driver may crash, hang or fail on one.
    let writes = (layout.bindings.iter().any(|b| writable(&b.kind))
        || !layout.addresses.is_empty())
        && total > 0;
    if writes && varying.len() == total {
        return Err(format!(
            "every word of the results varies between runs of the input ({} runs): there is nothing stable to compare",
            runs.len()
        ));
    }
    // The driver's name without its build details (`llvmpipe`, not its LLVM version).
    let device = gpu.short_name();
    let push = if layout.push > 0 {
        format!("{} bytes of push constants", layout.push)
    } else {
        String::new()
    };
    let slots = layout.slots();
    let buffer_count = slots
        .iter()
        .filter(|(b, _)| matches!(b.kind, Kind::Buffer { .. }))
        .count();
    let images = slots
        .iter()
        .filter(|(b, _)| matches!(b.kind, Kind::Image(_)))
        .count();
    let mut setup = setup_text(&device, buffer_count, images, &push);
    if zeroed {
        setup.push_str(
            ", buffers and push constants zeroed (the driver crashed on the pattern's values)",
        );
    }
    if slots
        .iter()
        .any(|(b, _)| matches!(b.kind, Kind::AccelerationStructure))
    {
        setup.push_str(", a ray-query scene of two triangles");
    }
    let mut out = BisectRun {
        first: None,
        compared: 1,
        skipped: Vec::new(),
        setup,
        varying: varying.len(),
        stable: total - varying.len(),
        writes_nothing: !writes,
        oracle: None,
        driver_judged: Vec::new(),
        interpreter_decided: false,
    };
    for (k, &i) in steps.iter().enumerate().skip(1) {
        if cancelled() {
            return Err("cancelled".into());
        }
        let step = &run.steps[i];
        if !step.changed || feed.skips(k) {
            out.compared += 1;
            continue;
        }
        let words = match driver_words(&step.module) {
            Ok(w) => w,
            Err(why) => {
                out.skipped.push((i, why));
                continue;
            }
        };
        let after = match gpu.run_buffers(&words, &layout, GROUPS, &buffers, limit) {
            Ok(a) => a,
            Err(e) => {
                out.first = Some(Difference {
                    step: i,
                    pass_index: k,
                    pass: step.pass,
                    finding: Finding::of(&e),
                    what: format!("it does not run: {e}"),
                    value: None,
                    undefined: Vec::new(),
                });
                return Ok(out);
            }
        };
        out.compared += 1;
        if first_difference(&layout, &before, &after, &varying).is_none() {
            continue;
        }
        // A difference is confirmed before a pass is blamed: the input runs again (words
        // that vary now join the ones left out) and so does the step, and every run of the
        // step must still differ.
        for _ in 0..CONFIRM_RUNS {
            runs.push(
                gpu.run_buffers(&run_words, &layout, GROUPS, &buffers, limit)
                    .map_err(|e| format!("the input does not run again: {e}"))?,
            );
        }
        varying = varying_words(&runs);
        out.varying = varying.len();
        out.stable = total - varying.len();
        let mut step_runs = vec![after];
        for _ in 0..CONFIRM_RUNS {
            match gpu.run_buffers(&words, &layout, GROUPS, &buffers, limit) {
                Ok(a) => step_runs.push(a),
                Err(_) => break,
            }
        }
        let confirmed = step_runs
            .iter()
            .all(|a| first_difference(&layout, &before, a, &varying).is_some());
        if let (true, Some(what)) = (
            confirmed,
            first_difference(&layout, &before, &step_runs[0], &varying),
        ) {
            out.first = Some(Difference {
                step: i,
                pass_index: k,
                pass: step.pass,
                finding: Finding::Differs,
                what,
                value: None,
                undefined: Vec::new(),
            });
            return Ok(out);
        }
    }
    Ok(out)
}

/// The steps of a run that are passes (not the source text).
pub fn pass_steps(run: &Run) -> Vec<usize> {
    (0..run.steps.len())
        .filter(|&i| !run.steps[i].is_source())
        .collect()
}

/// The entry points of a run's input: (execution model, name).
pub(super) fn entry_points(run: &Run) -> Vec<(ExecutionModel, String)> {
    use rspirv::dr::Operand;
    let Some(&first) = pass_steps(run).first() else {
        return Vec::new();
    };
    run.steps[first]
        .module
        .entry_points()
        .iter()
        .filter_map(|e| match e.lits() {
            [Operand::ExecutionModel(m), Operand::LiteralString(n), ..] => Some((*m, n.clone())),
            _ => None,
        })
        .collect()
}

/// The execution models of a run's input.
fn models(run: &Run) -> Vec<ExecutionModel> {
    entry_points(run).into_iter().map(|(m, _)| m).collect()
}

/// The device a bisect opens when, and only when, it needs one (`--oracle interp` never does).
pub type Opener<'g> = dyn Fn() -> Result<&'g dyn Device, String> + 'g;

/// A semantic bisect of whatever `runs` are, asking `gpu` and the interpreter as `feed.oracle`
/// says (`bisect_with`).
pub fn bisect(
    gpu: &dyn Device,
    runs: &[&Run],
    feed: Feed,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    bisect_with(&|| Ok(gpu), runs, feed, cancelled)
}

/// A semantic bisect of whatever `runs` are: one compute shader, one module with a vertex and
/// a fragment entry point, or the linked stages of a graphics pipeline (a vertex and a fragment
/// stage among them, their steps side by side). `feed.oracle` says who runs the steps
/// (`oracle::bisect`); the driver's device is opened by `open` the first time it is needed.
pub fn bisect_with<'g>(
    open: &Opener<'g>,
    runs: &[&Run],
    feed: Feed,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    if let Some(name) = feed.entry {
        let names: Vec<String> = runs
            .iter()
            .flat_map(|r| entry_points(r))
            .map(|(_, n)| n)
            .collect();
        if !names.iter().any(|n| n == name) {
            return Err(format!(
                "no entry point is called '{name}' (there are: {})",
                names.join(", ")
            ));
        }
    }
    super::oracle::bisect(open, runs, feed, cancelled)
}

/// The driver's bisect of `runs`: compute shaders dispatched, graphics stages drawn.
pub(super) fn driver_bisect(
    gpu: &dyn Device,
    runs: &[&Run],
    feed: Feed,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    let with = |m: ExecutionModel| runs.iter().copied().find(|r| models(r).contains(&m));
    match (
        runs,
        with(ExecutionModel::Vertex),
        with(ExecutionModel::Fragment),
    ) {
        ([one], _, _) if models(one).contains(&ExecutionModel::GLCompute) => {
            bisect_run(gpu, one, feed, cancelled)
        }
        (_, Some(vs), Some(fs)) => bisect_draw(gpu, vs, fs, feed, cancelled),
        ([_], None, Some(fs)) => {
            // A fragment shader alone: drawn behind a vertex stage made for it.
            let first = *pass_steps(fs).first().ok_or("the run has no steps")?;
            let words = spirv_of(&fs.steps[first].module)
                .map_err(|e| format!("the fragment stage cannot be run: {e}"))?
                .words;
            let stage = reflect_entry(&words, ExecutionModel::Fragment, feed.entry)
                .map_err(|e| format!("cannot draw the fragment stage: {e}"))?;
            let vertex = super::gpu::stand_in::vertex_for(&stage)?;
            draw_bisect(
                gpu,
                Side::Generated(vertex),
                Side::Stage(fs),
                feed,
                cancelled,
            )
        }
        ([_], Some(vs), None) => {
            // A vertex shader alone: drawn before a fragment stage made for it.
            let first = *pass_steps(vs).first().ok_or("the run has no steps")?;
            let words = spirv_of(&vs.steps[first].module)
                .map_err(|e| format!("the vertex stage cannot be run: {e}"))?
                .words;
            let stage = reflect_entry(&words, ExecutionModel::Vertex, feed.entry)
                .map_err(|e| format!("cannot draw the vertex stage: {e}"))?;
            let fragment = super::gpu::stand_in::fragment_for(&stage)?;
            draw_bisect(
                gpu,
                Side::Stage(vs),
                Side::Generated(fragment),
                feed,
                cancelled,
            )
        }
        ([one], _, _) => bisect_run(gpu, one, feed, cancelled),
        _ => Err("the stages have no vertex and fragment stage to draw".into()),
    }
}

/// Draws a vertex and a fragment stage after every step (their runs' steps side by side: a
/// step whose stages both changed nothing is not drawn again) and finds the first step whose
/// image differs from the input's.
pub fn bisect_draw(
    gpu: &dyn Device,
    vs: &Run,
    fs: &Run,
    feed: Feed,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    draw_bisect(gpu, Side::Stage(vs), Side::Stage(fs), feed, cancelled)
}

/// One stage of a draw: the pipeline's own, stepped through (beside the other stage), or one
/// made for a shader that came alone (the same at every step).
enum Side<'r> {
    Stage(&'r Run),
    Generated(Vec<u32>),
}

impl Side<'_> {
    fn run(&self) -> Option<&Run> {
        match self {
            Side::Stage(r) => Some(r),
            Side::Generated(_) => None,
        }
    }
    fn words(&self, i: usize) -> Result<Vec<u32>, String> {
        match self {
            Side::Stage(r) => driver_words(&r.steps[i].module),
            Side::Generated(w) => Ok(w.clone()),
        }
    }
    fn changed(&self, i: usize) -> bool {
        self.run().is_some_and(|r| r.steps[i].changed)
    }
}

fn draw_bisect(
    gpu: &dyn Device,
    vertex: Side,
    fragment: Side,
    feed: Feed,
    cancelled: &dyn Fn() -> bool,
) -> Result<BisectRun, String> {
    // The steps come from the stages stepped through (a step is named after the fragment
    // stage's when both are).
    let named = fragment
        .run()
        .or(vertex.run())
        .ok_or("no stage to step through")?;
    let fsteps = fragment.run().map_or_else(|| pass_steps(named), pass_steps);
    let vsteps = vertex.run().map_or_else(|| pass_steps(named), pass_steps);
    if vsteps.len() != fsteps.len() || vsteps.is_empty() {
        return Err("the stages' runs do not have the same steps".into());
    }
    let v0 = vertex
        .words(vsteps[0])
        .map_err(|e| format!("the vertex stage cannot be run: {e}"))?;
    let f0 = fragment
        .words(fsteps[0])
        .map_err(|e| format!("the fragment stage cannot be run: {e}"))?;
    let vstage = reflect_entry(&v0, ExecutionModel::Vertex, feed.entry)
        .map_err(|e| format!("cannot draw the vertex stage: {e}"))?;
    let fstage = reflect_entry(&f0, ExecutionModel::Fragment, feed.entry)
        .map_err(|e| format!("cannot draw the fragment stage: {e}"))?;
    // The first fill with which the input draws something (or the last one). One the driver
    // crashes on is passed over; zeros are tried when it crashed on a fill, a generated vertex
    // stage then giving the fragment stage zero integers too.
    let mut chosen = None;
    let mut crashed = None;
    let mut took = Duration::ZERO;
    for (name, data) in FILLS.into_iter().chain([ZEROS]) {
        let vs = match (name == ZEROS.0, &vertex) {
            (false, _) => v0.clone(),
            (true, _) if crashed.is_none() => break,
            (true, Side::Generated(_)) => super::gpu::stand_in::vertex_with_zero_ints(&fstage)?,
            (true, Side::Stage(_)) => v0.clone(),
        };
        let set = setup(&vstage, &fstage, 12, 2, data)?;
        let started = Instant::now();
        let before = match set.draw(gpu, (&vs, &vstage.entry), (&f0, &fstage.entry), INPUT_LIMIT) {
            Ok(b) => b,
            Err(e @ DeviceError::Crashed(_)) => {
                crashed.get_or_insert_with(|| format!("the input does not draw: {e}"));
                continue;
            }
            Err(e) => return Err(format!("the input does not draw: {e}")),
        };
        took = took.max(started.elapsed());
        let drew = covers(&before);
        chosen = Some((set, before, name, vs));
        if drew {
            break;
        }
    }
    let limit = step_limit(took);
    let Some((set, before, fill, v0)) = chosen else {
        return Err(crashed.unwrap_or_else(|| "the input does not draw".into()));
    };
    // The generated vertex stage every step is drawn behind, where it is not `vertex`'s own.
    let zero_vertex = (fill == ZEROS.0 && matches!(vertex, Side::Generated(_))).then(|| v0.clone());
    // The input drawn again (twice more when a stage uses atomics, subgroup operations or
    // workgroup memory): words that differ between its draws (a read of memory nothing wrote,
    // a race) are left out of the comparison.
    let racy = [vertex.run(), fragment.run()]
        .into_iter()
        .flatten()
        .any(|r| {
            pass_steps(r)
                .first()
                .is_some_and(|&i| may_race(&r.steps[i].module))
        });
    let first_draw = before.clone();
    let mut draws = vec![flat_rendered(&before)];
    for _ in 0..if racy { 2 } else { 1 } {
        let again = set
            .draw(gpu, (&v0, &vstage.entry), (&f0, &fstage.entry), limit)
            .map_err(|e| format!("the input does not draw the same way twice: {e}"))?;
        draws.push(flat_rendered(&again));
    }
    let mut varying = varying_words(&draws);
    let total: usize = draws[0].iter().map(|b| b.len() / 4).sum();
    if total > 0 && varying.len() == total {
        return Err(format!(
            "every word of the image varies between draws of the input ({} draws): there is nothing stable to compare",
            draws.len()
        ));
    }
    let mut before = masked(&before, &varying);
    let device = gpu.short_name();
    let mut out = BisectRun {
        first: None,
        compared: 1,
        skipped: Vec::new(),
        varying: varying.len(),
        stable: total - varying.len(),
        writes_nothing: false,
        oracle: None,
        driver_judged: Vec::new(),
        interpreter_decided: false,
        setup: format!(
            "{device}: {} of {}×{}{}, {}{}",
            counted(before.colors.len(), "attachment"),
            super::gpu::reflect::SIZE.0,
            super::gpu::reflect::SIZE.1,
            match (&vertex, &fragment) {
                (Side::Generated(_), _) => ", behind a generated vertex stage",
                (_, Side::Generated(_)) => ", before a generated fragment stage",
                _ => "",
            },
            if fill == ZEROS.0 {
                "inputs zero (the driver crashed on the patterns' values)".to_string()
            } else {
                format!("inputs in the {fill} pattern")
            },
            if covers(&before) {
                ""
            } else {
                ", which draws nothing"
            }
        ),
    };
    for k in 1..vsteps.len() {
        if cancelled() {
            return Err("cancelled".into());
        }
        let (vi, fi) = (vsteps[k], fsteps[k]);
        if (!vertex.changed(vi) && !fragment.changed(fi)) || feed.skips(k) {
            out.compared += 1;
            continue;
        }
        let vertex_words = match &zero_vertex {
            Some(w) => Ok(w.clone()),
            None => vertex.words(vi),
        };
        let (v, f) = match (vertex_words, fragment.words(fi)) {
            (Ok(v), Ok(f)) => (v, f),
            (Err(why), _) | (_, Err(why)) => {
                out.skipped.push((fi, why));
                continue;
            }
        };
        let which = if vertex.changed(vi) && fragment.changed(fi) {
            ""
        } else if vertex.changed(vi) {
            " (vertex stage)"
        } else {
            " (fragment stage)"
        };
        let step = if fragment.run().is_some() { fi } else { vi };
        let pass = named.steps[step].pass;
        match set.draw(gpu, (&v, &vstage.entry), (&f, &fstage.entry), limit) {
            Ok(after) => {
                out.compared += 1;
                if difference(&before, &masked(&after, &varying)).is_none() {
                    continue;
                }
                // Confirmed before blamed, as for compute shaders.
                for _ in 0..CONFIRM_RUNS {
                    let again = set
                        .draw(gpu, (&v0, &vstage.entry), (&f0, &fstage.entry), limit)
                        .map_err(|e| format!("the input does not draw the same way twice: {e}"))?;
                    draws.push(flat_rendered(&again));
                }
                varying = varying_words(&draws);
                out.varying = varying.len();
                out.stable = total - varying.len();
                before = masked(&first_draw, &varying);
                let mut step_draws = vec![after];
                for _ in 0..CONFIRM_RUNS {
                    match set.draw(gpu, (&v, &vstage.entry), (&f, &fstage.entry), limit) {
                        Ok(a) => step_draws.push(a),
                        Err(_) => break,
                    }
                }
                let confirmed = step_draws
                    .iter()
                    .all(|a| difference(&before, &masked(a, &varying)).is_some());
                if let (true, Some(what)) = (
                    confirmed,
                    difference(&before, &masked(&step_draws[0], &varying)),
                ) {
                    out.first = Some(Difference {
                        step: fi,
                        pass_index: k,
                        pass,
                        finding: Finding::Differs,
                        what: format!("{what}{which}"),
                        value: None,
                        undefined: Vec::new(),
                    });
                    return Ok(out);
                }
            }
            Err(e) => {
                out.first = Some(Difference {
                    step: fi,
                    pass_index: k,
                    pass,
                    finding: Finding::of(&e),
                    what: format!("it does not draw{which}: {e}"),
                    value: None,
                    undefined: Vec::new(),
                });
                return Ok(out);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// A summary says only what the dispatch held, in the right number.
    #[test]
    fn setups_say_what_there_is() {
        assert_eq!(setup_text("llvmpipe", 0, 0, ""), "llvmpipe: 2 workgroups");
        assert_eq!(
            setup_text("llvmpipe", 1, 2, "16 bytes of push constants"),
            "llvmpipe: 1 buffer of 16 KiB, 2 images, 16 bytes of push constants, 2 workgroups"
        );
        assert_eq!(counted(1, "attachment"), "1 attachment");
    }

    /// A draw's words that vary between draws of the input are zeroed before images are
    /// compared: a step that changes only them differs in nothing.
    #[test]
    fn texels_that_vary_between_draws_of_the_input_are_not_compared() {
        let draw = |a: u32, b: u32| super::super::gpu::Rendered {
            colors: vec![words(&[1, a, 3])],
            buffers: vec![words(&[b])],
        };
        let runs = [flat_rendered(&draw(2, 7)), flat_rendered(&draw(5, 7))];
        let varying = varying_words(&runs);
        assert_eq!(varying.iter().copied().collect::<Vec<_>>(), [(0, 1)]);
        let before = masked(&draw(2, 7), &varying);
        assert_eq!(before, masked(&draw(9, 7), &varying));
        assert_ne!(before, masked(&draw(9, 8), &varying));
    }

    /// The driver gets every float operation exact, so that it cannot fuse a multiply and an
    /// add in one step's shape of the code and not in another's.
    #[test]
    fn drivers_get_float_arithmetic_without_contraction() {
        let text = r#"; Version: 1.3
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%two = OpConstant %float 2
%main = OpFunction %void None %fn
%e = OpLabel
%m = OpFMul %float %two %two
%a = OpFAdd %float %m %two
OpReturn
OpFunctionEnd
"#;
        let words = crate::ir::spirv::asm::assemble(text).unwrap();
        let m = crate::ir::spirv::read::read_words(&words).unwrap();
        let out = crate::ir::spirv::read::read_words(&super::driver_words(&m).unwrap()).unwrap();
        let exact = out
            .annotations()
            .iter()
            .filter(|d| {
                d.lits().first()
                    == Some(&rspirv::dr::Operand::Decoration(
                        spirv::Decoration::NoContraction,
                    ))
            })
            .count();
        assert_eq!(exact, 2);
    }

    #[test]
    fn words_that_vary_between_runs_of_the_input_are_not_compared() {
        let layout = Layout {
            entry: "main".into(),
            bindings: vec![Binding {
                set: 0,
                binding: 0,
                count: 1,
                kind: crate::pipeline::gpu::reflect::Kind::Buffer { storage: true },
            }],
            push: 0,
            zero_push: false,
            addresses: Default::default(),
        };
        // Word 1 is a race: it came out 7, then 9.
        let runs = vec![vec![words(&[1, 7, 3])], vec![words(&[1, 9, 3])]];
        let varying = varying_words(&runs);
        assert_eq!(varying.into_iter().collect::<Vec<_>>(), [(0, 1)]);
        let varying = varying_words(&runs);
        // A step whose word 1 differs again computes what the input does...
        let step = vec![words(&[1, 8, 3])];
        assert_eq!(first_difference(&layout, &runs[0], &step, &varying), None);
        // ...and one whose word 2 differs does not.
        let step = vec![words(&[1, 7, 4])];
        let what = first_difference(&layout, &runs[0], &step, &varying).unwrap();
        assert!(what.starts_with("set 0 binding 0, word 2:"), "{what}");
        assert!(what.ends_with("(1 words differ)"), "{what}");
    }
}
