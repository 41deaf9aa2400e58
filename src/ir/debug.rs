//! Debug info of the `NonSemantic.Shader.DebugInfo.100` and `OpenCL.DebugInfo.100` sets: which
//! `OpExtInst`s are debug records, and which of them only describe a value.
//!
//! `DebugDeclare` and `DebugValue` name a variable or a value without using it: they never keep
//! a value alive nor stop a pass from promoting, splitting or deleting it. Passes ask
//! [`DebugSets::is_debug_use`] to skip them, and the rewrite kit fixes them up afterwards
//! (`rewrite::debug`): what they describe may be gone.

use rspirv::dr::Operand;
use spirv::Op;

use super::inst::{Id, Inst};
use super::loc::Location;
use super::module::Module;

pub use super::ext_sets::{OPENCL_DEBUG_SET as OPENCL_SET, SHADER_DEBUG_SET as SHADER_SET};

pub use super::ext_sets::{fits_grammar, record_name, Flavor};
pub use super::ext_sets::{
    record, DECLARE, EXPRESSION, FUNCTION, FUNCTION_DEFINITION, GLOBAL_VARIABLE, INFO_NONE,
    INLINED_AT, LEXICAL_BLOCK, LINE, LOCAL_VARIABLE, NO_LINE, NO_SCOPE, SCOPE, SOURCE,
    SOURCE_CONTINUED, VALUE,
};

/// The debug-info sets a module imports, by the id of their import: the module's one
/// classification of its sets (see `ext_sets`), read for its debug records.
pub type DebugSets = super::ext_sets::ExtSets;

/// What the core does not understand of a module's debug info, for a warning: instructions of
/// `NonSemantic.*` sets other than `NonSemantic.Shader.DebugInfo.100` and
/// `NonSemantic.DebugPrintf` (an effect the core keeps as it is), and records of the debug
/// sets whose number or operands the grammar does not have (see [`fits_grammar`]). Each kind
/// once, with how many there are; empty when everything is understood.
pub fn not_understood(m: &Module) -> Vec<String> {
    let sets = DebugSets::of(m);
    let other: Vec<(Id, &str)> = m
        .preamble
        .iter()
        .filter(|i| i.op == Op::ExtInstImport)
        .filter_map(|i| match (i.result, i.lits().first()) {
            (Some(id), Some(Operand::LiteralString(s)))
                if s.starts_with("NonSemantic.")
                    && s != SHADER_SET
                    && s != super::ext_sets::PRINTF_SET =>
            {
                Some((id, s.as_str()))
            }
            _ => None,
        })
        .collect();
    if sets.is_empty() && other.is_empty() {
        return Vec::new();
    }
    // (what, how many), in the order first met.
    let mut found: Vec<(String, usize)> = Vec::new();
    let mut note = |what: String| match found.iter_mut().find(|(w, _)| *w == what) {
        Some((_, k)) => *k += 1,
        None => found.push((what, 1)),
    };
    m.for_each_inst(|i| {
        let Some((set, n)) = i.ext_inst() else {
            return;
        };
        if let Some(&(_, name)) = other.iter().find(|(id, _)| *id == set) {
            note(format!("instructions of {name}"));
        } else if let Some((flavor, _)) = sets.set_of(i) {
            if fits_grammar(i, flavor, n) {
                return;
            }
            let set_name = match flavor {
                Flavor::Shader => SHADER_SET,
                Flavor::OpenCl => OPENCL_SET,
            };
            note(match record_name(flavor, n) {
                Some(name) => {
                    format!("{name} ({set_name}) with operands its grammar does not have")
                }
                None => format!("instruction {n} of {set_name}, which it does not have"),
            });
        }
    });
    found
        .into_iter()
        .map(|(what, k)| format!("{k} × {what}"))
        .collect()
}

/// `DebugGlobalVariable`'s variable among `args` (`NonSemantic.Shader.DebugInfo.100`, whose
/// numbers are ids too; in `OpenCL.DebugInfo.100` line and column are literals).
pub fn global_variable_arg(flavor: Flavor) -> usize {
    match flavor {
        Flavor::Shader => 8,
        Flavor::OpenCl => 6,
    }
}

/// The variable a `DebugGlobalVariable` describes: no use of it, so it goes when nothing else
/// uses it (and the record then names `DebugInfoNone`).
pub fn described_global(sets: &DebugSets, inst: &Inst) -> Option<Id> {
    match sets.record(inst)? {
        (flavor, GLOBAL_VARIABLE) => inst.arg(global_variable_arg(flavor)),
        _ => None,
    }
}

/// The source line a `DebugLine` (`NonSemantic.Shader.DebugInfo.100`) sets: the `OpString` id of
/// its `DebugSource`'s file and its first line. `None` for any other instruction, and for a
/// `DebugLine` whose operands are not a `DebugSource` and a 32-bit integer constant.
pub fn debug_line(m: &Module, sets: &DebugSets, inst: &Inst) -> Option<(Id, u32)> {
    if sets.record(inst)? != (Flavor::Shader, LINE) {
        return None;
    }
    line_of_source(m, sets, inst.arg(1)?, inst.arg(2)?)
}

/// The `OpString` id of a `DebugSource`'s file and the value of a line constant.
fn line_of_source(m: &Module, sets: &DebugSets, source: Id, line: Id) -> Option<(Id, u32)> {
    let source = m.global(source)?;
    if !sets.is(source, SOURCE) {
        return None;
    }
    let line = m.global(line)?;
    if line.op != Op::Constant {
        return None;
    }
    Some((source.arg(1)?, line.lit_u32(0)?))
}

/// The source line a location says: its `DebugLine`'s (see [`debug_line`]; line 0, glslang's
/// at the head of a function, says none), else its `OpLine`'s: the file's `OpString` id and the
/// line.
pub fn source_line(m: &Module, sets: &DebugSets, loc: &Location) -> Option<(Id, u32)> {
    let from_debug = loc
        .debug_line
        .and_then(|d| line_of_source(m, sets, d.source, d.lines[0]))
        .filter(|&(_, l)| l != 0);
    from_debug.or_else(|| loc.line.map(|l| (l.file, l.line)))
}

/// The text of an `OpString`.
fn string_text(m: &Module, id: Id) -> Option<String> {
    m.debug
        .iter()
        .find(|i| i.result == Some(id))
        .and_then(|i| match i.lits().first() {
            Some(Operand::LiteralString(s)) => Some(s.clone()),
            _ => None,
        })
}

/// The `DebugFunction` a scope is in: the scope itself, or the function a
/// `DebugLexicalBlock` is nested in.
fn scope_function<'m>(m: &'m Module, sets: &DebugSets, mut scope: Id) -> Option<&'m Inst> {
    // Nesting no real source has (or a cycle in a broken module): none.
    for _ in 0..64 {
        let record = m.global(scope)?;
        let (flavor, n) = sets.record(record)?;
        match n {
            FUNCTION => return Some(record),
            // The parent: after source, line and column (literals in OpenCL.DebugInfo.100).
            LEXICAL_BLOCK => {
                scope = record.arg(if flavor == Flavor::Shader { 4 } else { 2 })?;
            }
            _ => return None,
        }
    }
    None
}

/// The name of the function a scope is in.
pub fn scope_function_name(m: &Module, sets: &DebugSets, scope: Id) -> Option<String> {
    string_text(m, scope_function(m, sets, scope)?.arg(1)?)
}

/// The `OpString` id of the source file of the function a scope is in.
fn scope_file(m: &Module, sets: &DebugSets, scope: Id) -> Option<Id> {
    let source = m.global(scope_function(m, sets, scope)?.arg(3)?)?;
    sets.is(source, SOURCE).then(|| source.arg(1)).flatten()
}

/// Where code inlined at a `DebugInlinedAt` was called from: the caller's scope, the line of
/// the call, and where the caller itself was inlined.
fn inlined_at_site(m: &Module, sets: &DebugSets, at: Id) -> Option<(Id, u32, Option<Id>)> {
    let record = m.global(at)?;
    let (flavor, n) = sets.record(record)?;
    if n != INLINED_AT {
        return None;
    }
    if flavor == Flavor::Shader {
        let line = m.global(record.arg(1)?)?.lit_u32(0)?;
        Some((record.arg(2)?, line, record.arg(3)))
    } else {
        Some((record.arg(1)?, record.lit_u32(0)?, record.arg(2)))
    }
}

/// One function of an inline stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineFrame {
    pub function: String,
    /// The `OpString` id of the function's source file, when its record says.
    pub file: Option<Id>,
    /// The line the next function out called this one from (`None` for the outermost, and
    /// for the innermost, whose line is the instruction's).
    pub line: Option<u32>,
}

/// The inline stack of code in `scope` inlined at `inlined_at` (`None`: not inlined): each
/// function from the innermost out, the line each was called from in the next one out.
/// Empty when the scope names no function.
pub fn inline_stack(
    m: &Module,
    sets: &DebugSets,
    scope: Id,
    inlined_at: Option<Id>,
) -> Vec<InlineFrame> {
    let mut out = Vec::new();
    let Some(name) = scope_function_name(m, sets, scope) else {
        return out;
    };
    out.push(InlineFrame {
        function: name,
        file: scope_file(m, sets, scope),
        line: None,
    });
    let mut at = inlined_at;
    while let Some(a) = at {
        let Some((caller, line, outer)) = inlined_at_site(m, sets, a) else {
            break;
        };
        let Some(name) = scope_function_name(m, sets, caller) else {
            break;
        };
        out.push(InlineFrame {
            function: name,
            file: scope_file(m, sets, caller),
            line: Some(line),
        });
        at = outer;
        if out.len() > 64 {
            break;
        }
    }
    out
}

/// What debug info a module still carries: the source lines its functions' instructions come
/// from (file name and line), how many instructions have none, and its local variables with
/// how many a `DebugDeclare` or `DebugValue` still describes. For each line, the first
/// instruction that carries it (to show what a pass removed when the line goes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coverage {
    pub lines: std::collections::BTreeSet<(String, u32)>,
    pub carriers: std::collections::BTreeMap<(String, u32), Carrier>,
    pub unlocated: usize,
    pub variables: usize,
    /// The local variables still described (their `DebugLocalVariable` ids).
    pub described_variables: std::collections::BTreeSet<Id>,
}

/// An instruction that carries a source line: its function and its result (or, without one,
/// its opcode and position in the function's layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Carrier {
    pub function: Id,
    pub result: Option<Id>,
    pub op: Op,
    pub position: usize,
}

impl Coverage {
    /// How many local variables are still described.
    pub fn described(&self) -> usize {
        self.described_variables.len()
    }

    /// The lines `self` covers that `after` does not, with what carried each here.
    pub fn lost_in<'a>(
        &'a self,
        after: &'a Coverage,
    ) -> impl Iterator<Item = (&'a (String, u32), &'a Carrier)> + 'a {
        self.carriers
            .iter()
            .filter(move |(line, _)| !after.lines.contains(*line))
    }

    /// How many lines and described variables `after` lost against `self`.
    pub fn losses(&self, after: &Coverage) -> (usize, usize) {
        let lines = self.lines.difference(&after.lines).count();
        let variables = self
            .described_variables
            .difference(&after.described_variables)
            .count();
        (lines, variables)
    }
}

/// Every `OpString` of `m`, by id.
pub fn strings(m: &Module) -> std::collections::BTreeMap<Id, String> {
    m.debug
        .iter()
        .filter(|i| i.op == Op::String)
        .filter_map(|i| match (i.result, i.lits().first()) {
            (Some(r), Some(Operand::LiteralString(s))) => Some((r, s.clone())),
            _ => None,
        })
        .collect()
}

/// The debug info `m` carries (see [`Coverage`]). Phis, variables and debug records are not
/// counted as instructions that need a line, as spirv-opt does not give them one.
pub fn coverage(m: &Module) -> Coverage {
    let sets = DebugSets::of(m);
    let mut out = Coverage::default();
    let names = strings(m);
    let mut described = std::collections::BTreeSet::new();
    for f in m.functions() {
        for (position, (_, i)) in f.layout().enumerate() {
            let inst = f.inst(i);
            if sets.is_debug_use(inst) {
                described.extend(inst.arg(ARG_VARIABLE));
            }
            if matches!(inst.op, Op::Phi | Op::Variable) || sets.record(inst).is_some() {
                continue;
            }
            match source_line(m, &sets, f.location(inst.loc)) {
                Some((file, line)) => {
                    let name = names
                        .get(&file)
                        .cloned()
                        .unwrap_or_else(|| format!("%{file}"));
                    let key = (name, line);
                    if !out.carriers.contains_key(&key) {
                        out.carriers.insert(
                            key.clone(),
                            Carrier {
                                function: f.id(),
                                result: inst.result,
                                op: inst.op,
                                position,
                            },
                        );
                    }
                    out.lines.insert(key);
                }
                None => out.unlocated += 1,
            }
        }
    }
    let variables: Vec<Id> = m
        .globals()
        .iter()
        .filter(|g| sets.is(g, LOCAL_VARIABLE))
        .filter_map(|g| g.result)
        .collect();
    out.variables = variables.len();
    out.described_variables = variables
        .iter()
        .copied()
        .filter(|v| described.contains(v))
        .collect();
    out
}

/// The source texts `DebugSource` records embed (`NonSemantic.Shader.DebugInfo.100`): the
/// `OpString` id of the file and the text, with its `DebugSourceContinued` parts appended.
pub fn source_texts(m: &Module) -> Vec<(Id, String)> {
    let sets = DebugSets::of(m);
    if sets.is_empty() {
        return Vec::new();
    }
    let string = |id: Option<Id>| match m.debug.iter().find(|i| i.result == id && id.is_some()) {
        Some(i) if i.op == Op::String => match i.lits().first() {
            Some(Operand::LiteralString(s)) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    };
    let mut out: Vec<(Id, String)> = Vec::new();
    // A continuation belongs to the `DebugSource` just before it.
    let mut last: Option<usize> = None;
    for inst in m.globals() {
        match sets.record(inst) {
            Some((Flavor::Shader, SOURCE)) => {
                last = None;
                if let (Some(file), Some(text)) = (inst.arg(1), string(inst.arg(2))) {
                    out.push((file, text));
                    last = Some(out.len() - 1);
                }
            }
            Some((Flavor::Shader, SOURCE_CONTINUED)) => {
                if let (Some(k), Some(text)) = (last, string(inst.arg(1))) {
                    out[k].1.push_str(&text);
                }
            }
            _ => last = None,
        }
    }
    out
}

/// The `OpString` ids that name source files: those `OpSource`, `DebugSource` and the
/// functions' `OpLine`s name, in that order, each once.
pub fn source_file_ids(m: &Module) -> Vec<Id> {
    let sets = DebugSets::of(m);
    let mut out: Vec<Id> = Vec::new();
    let mut push = |id: Id| {
        if !out.contains(&id) {
            out.push(id);
        }
    };
    for inst in &m.debug {
        if inst.op == Op::Source {
            inst.arg(0).into_iter().for_each(&mut push);
        }
    }
    for g in m.globals() {
        if sets.record(g) == Some((Flavor::Shader, SOURCE)) {
            g.arg(1).into_iter().for_each(&mut push);
        }
    }
    for f in m.functions() {
        for loc in f.locs.iter() {
            if let Some(l) = loc.line {
                push(l.file);
            }
        }
    }
    out
}

/// `DebugDeclare`'s and `DebugValue`'s operands among `args` (the set's import is `args[0]`).
pub const ARG_VARIABLE: usize = 1;
/// The variable (`DebugDeclare`) or the value (`DebugValue`) described.
pub const ARG_DESCRIBED: usize = 2;

/// The `DebugValue` saying that the variable `declare` (a `DebugDeclare`) describes now holds
/// `value`: same variable, expression and indexes, result `id`.
pub fn value_from_declare(declare: &Inst, value: Id, id: Id) -> Inst {
    let mut v = declare.clone();
    if let Some(n) = v.lits_mut().first_mut() {
        *n = Operand::LiteralExtInstInteger(VALUE);
    }
    if let Some(d) = v.args.get_mut(ARG_DESCRIBED) {
        *d = value;
    }
    v.result = Some(id);
    // It is said where it goes, not where the declare was.
    v.loc = super::loc::Loc::NONE;
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_the_grammars() {
        for (n, expect) in [
            (INFO_NONE, "DebugInfoNone"),
            (GLOBAL_VARIABLE, "DebugGlobalVariable"),
            (FUNCTION, "DebugFunction"),
            (SCOPE, "DebugScope"),
            (NO_SCOPE, "DebugNoScope"),
            (INLINED_AT, "DebugInlinedAt"),
            (LOCAL_VARIABLE, "DebugLocalVariable"),
            (DECLARE, "DebugDeclare"),
            (VALUE, "DebugValue"),
            (EXPRESSION, "DebugExpression"),
            (SOURCE, "DebugSource"),
            (SOURCE_CONTINUED, "DebugSourceContinued"),
            (FUNCTION_DEFINITION, "DebugFunctionDefinition"),
            (LINE, "DebugLine"),
            (NO_LINE, "DebugNoLine"),
        ] {
            assert_eq!(
                record_name(Flavor::Shader, n),
                Some(expect),
                "NonSemantic.Shader.DebugInfo.100 #{n}"
            );
            if n < FUNCTION_DEFINITION {
                assert_eq!(
                    record_name(Flavor::OpenCl, n),
                    Some(expect),
                    "OpenCL.DebugInfo.100 #{n}"
                );
            }
        }
    }
}
