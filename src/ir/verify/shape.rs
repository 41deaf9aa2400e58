//! Rule families 6, 8 and 9 per instruction: its shape against the op table and the grammar
//! (result type and id, operand count and kinds), the version, extensions and capabilities its
//! op and enumerants need, and the experimental partition.

use super::*;
use std::sync::OnceLock;

/// The grammar kind an operand value is, for comparison with what the grammar expects.
pub(super) fn operand_fits(kind: OperandKind, op: Opd) -> bool {
    use OperandKind as K;
    let op = match (kind, op) {
        (K::IdRef | K::IdScope | K::IdMemorySemantics, Opd::Id(_)) => return true,
        (_, Opd::Id(_)) => return false,
        (_, Opd::Lit(l)) => l,
    };
    match kind {
        K::IdRef | K::IdScope | K::IdMemorySemantics => false,
        K::LiteralInteger | K::LiteralContextDependentNumber | K::LiteralFloat => {
            matches!(op, Operand::LiteralBit32(_) | Operand::LiteralBit64(_))
        }
        K::LiteralExtInstInteger => matches!(
            op,
            Operand::LiteralExtInstInteger(_) | Operand::LiteralBit32(_)
        ),
        K::LiteralSpecConstantOpInteger => matches!(op, Operand::LiteralSpecConstantOpInteger(_)),
        K::LiteralString => matches!(op, Operand::LiteralString(_)),
        K::PairLiteralIntegerIdRef | K::PairIdRefLiteralInteger | K::PairIdRefIdRef => true,
        _ => {
            // Enumerants and masks.
            crate::ir::spirv::operand_tables::kind_of(op) == Some(kind)
        }
    }
}

pub(super) fn is_enum_kind(kind: OperandKind) -> bool {
    use OperandKind as K;
    !matches!(
        kind,
        K::IdRef
            | K::IdScope
            | K::IdMemorySemantics
            | K::IdResult
            | K::IdResultType
            | K::LiteralInteger
            | K::LiteralContextDependentNumber
            | K::LiteralFloat
            | K::LiteralExtInstInteger
            | K::LiteralSpecConstantOpInteger
            | K::LiteralString
            | K::PairLiteralIntegerIdRef
            | K::PairIdRefLiteralInteger
            | K::PairIdRefIdRef
    )
}

/// What `grammar_shape` checks of a core op, read from its grammar entry once: walking the
/// entry's operand list for every instruction was most of checking one.
struct GrammarShape {
    name: &'static str,
    wants_type: bool,
    wants_result: bool,
    /// The operands checked one by one, in order (result type and id left out): the required
    /// ones up to the first optional one, and an enumerant that ends the list checked (the
    /// grammar does not list its parameters).
    checked: Vec<OperandKind>,
    /// The operand count when the list is fixed: every operand required, none an enumerant.
    takes: Option<usize>,
}

impl GrammarShape {
    fn of(g: &rspirv::grammar::Instruction<'static>) -> Self {
        let wants_type = g
            .operands
            .iter()
            .any(|o| o.kind == OperandKind::IdResultType);
        let wants_result = g.operands.iter().any(|o| o.kind == OperandKind::IdResult);
        let required: Vec<_> = g
            .operands
            .iter()
            .filter(|o| !matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult))
            .collect();
        let mut checked = Vec::new();
        let mut takes = Some(required.len());
        for lo in &required {
            // OpSpecConstantOp's operands after the opcode are the wrapped op's.
            if lo.quantifier != OperandQuantifier::One
                || lo.kind == OperandKind::LiteralSpecConstantOpInteger
            {
                takes = None;
                break;
            }
            checked.push(lo.kind);
            if is_enum_kind(lo.kind) {
                takes = None;
                break;
            }
        }
        GrammarShape {
            name: g.opname,
            wants_type,
            wants_result,
            checked,
            takes,
        }
    }
}

fn grammar_shape_of(opcode: u32) -> Option<&'static GrammarShape> {
    static SHAPES: OnceLock<Vec<OnceLock<GrammarShape>>> = OnceLock::new();
    let at = spirv_grammar::core_position(opcode)?;
    let shapes = SHAPES.get_or_init(|| {
        (0..spirv_grammar::core_count())
            .map(|_| OnceLock::new())
            .collect()
    });
    let cell = &shapes[at];
    if let Some(shape) = cell.get() {
        return Some(shape);
    }
    let g = spirv_grammar::core(opcode)?;
    Some(cell.get_or_init(|| GrammarShape::of(g)))
}

/// Checks an instruction against its grammar: result type and id, the required operands up
/// to the first optional one or enumerant (whose parameters the grammar does not list), and no
/// more operands than an op with a fixed list takes.
pub(super) fn grammar_shape(i: &Inst) -> Option<String> {
    let shape = grammar_shape_of(i.op as u32)?;
    // Said only when something is wrong: formatting it for every instruction was a fifth of
    // verifying a small module.
    let name = OpName(shape.name);
    if shape.wants_type != i.ty.is_some() {
        return Some(if shape.wants_type {
            format!("{name} needs a result type")
        } else {
            format!("{name} takes no result type")
        });
    }
    if shape.wants_result != i.result.is_some() {
        return Some(if shape.wants_result {
            format!("{name} needs a result id")
        } else {
            format!("{name} has no result id")
        });
    }
    for (k, &kind) in shape.checked.iter().enumerate() {
        let Some(op) = i.operand(k) else {
            return Some(format!("{name} is missing operand {} ({kind:?})", k + 1));
        };
        if !operand_fits(kind, op) {
            let variant = match op {
                Opd::Id(_) => "IdRef".to_string(),
                Opd::Lit(l) => format!("{l:?}"),
            };
            return Some(format!(
                "{name} operand {} should be {kind:?}, not {}",
                k + 1,
                variant.split('(').next().unwrap_or("")
            ));
        }
    }
    let takes = shape.takes?;
    (i.operand_count() > takes)
        .then(|| operand_count_message(&name.to_string(), takes, i.operand_count(), &[]))
}

pub(super) fn operand_count_message(
    name: &str,
    takes: usize,
    has: usize,
    names: &[&str],
) -> String {
    let list = if names.is_empty() {
        String::new()
    } else {
        format!(" ({})", names.join(", "))
    };
    format!(
        "{name} takes {takes} operand{}{list}, not {has}",
        if takes == 1 { "" } else { "s" }
    )
}

/// Checks an extended instruction of a set the table knows: operand count, and for dialect
/// ops whether the result type is void exactly when the op yields no value.
pub(super) fn ext_shape(i: &Inst, info: &OpInfo, void: impl Fn(Id) -> bool) -> Option<String> {
    let has = i.operand_count().saturating_sub(2);
    let fixed = info
        .operands
        .iter()
        .all(|(_, q)| *q == OperandQuantifier::One);
    let takes = info.operands.len();
    if (fixed && has != takes) || has < takes {
        return Some(operand_count_message(
            &info.name,
            takes,
            has,
            info.operand_names,
        ));
    }
    if info.set == OpSet::Dialect {
        let is_void = i.ty.is_some_and(&void);
        if info.typed && is_void {
            return Some(format!(
                "{} yields a value: its result type cannot be void",
                info.name
            ));
        }
        if !info.typed && !is_void {
            return Some(format!(
                "{} yields no value: its result type must be void",
                info.name
            ));
        }
    }
    None
}

pub(super) fn version_text((major, minor): (u8, u8)) -> String {
    format!("{major}.{minor}")
}

pub(super) fn capability_list(caps: &[spirv::Capability]) -> String {
    match caps {
        [one] => format!("capability {one:?}"),
        _ => format!(
            "one of the capabilities {}",
            caps.iter()
                .map(|c| format!("{c:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `OpX` when displayed.
pub(super) struct OpName(&'static str);

impl std::fmt::Display for OpName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Op{}", self.0)
    }
}

impl<'m> Verifier<'m> {
    /// Everything the op table says about one instruction: shape, target version,
    /// capabilities, the experimental gate, overloads and the result rule.
    pub(super) fn check_inst(&mut self, f: Option<&Function>, i: &Inst, at: Option<Id>) {
        let func = f.map(Function::id);
        let info = ops::for_inst(i, &self.sets);
        let shape = match info {
            Some(info) if info.set != OpSet::Core => ext_shape(i, info, |t| self.is_void(t)),
            _ => grammar_shape(i),
        };
        if let Some(e) = shape {
            self.error(func, at, e);
            return;
        }
        self.type_sizes(func, i, at);
        let Some(info) = info else { return };
        self.target(func, i, info, at);
        if let Some(f) = f {
            // A kind error from the rule would be said again as a missing overload.
            if (info.set != OpSet::Core || !matches!(i.op, Op::Function | Op::FunctionParameter))
                && !self.result_rule(f, i, info, at)
            {
                self.overload(f, i, info, at);
            }
        }
    }

    /// Vector sizes and scalar widths a SPIR-V type can have.
    fn type_sizes(&mut self, func: Option<Id>, i: &Inst, at: Option<Id>) {
        if i.op == Op::TypeVector {
            let n = i.lit_u32(0).unwrap_or(0);
            let any = self
                .capabilities
                .contains(&spirv::Capability::VectorAnyINTEL);
            if !(matches!(n, 2 | 3 | 4 | 8 | 16) || any && n >= 2) {
                self.error(
                    func,
                    at,
                    format!("a vector has 2, 3, 4, 8 or 16 components, not {n}"),
                );
            }
        }
        // Widths no SPIR-V type has (the passes compute with them: a width of 0 shifts by 64).
        if matches!(i.op, Op::TypeInt | Op::TypeFloat) {
            let w = i.lit_u32(0).unwrap_or(0);
            if w == 0 || w > 64 {
                self.error(
                    func,
                    at,
                    format!("Op{} of width {w}: widths are 1 to 64 bits", op_name(i.op)),
                );
            }
        }
    }

    /// Rules 8 and 9 for one instruction: the experimental gate, the SPIR-V version its op
    /// needs, and the capabilities its op and its enumerant operands need.
    fn target(&mut self, func: Option<Id>, i: &Inst, info: &OpInfo, at: Option<Id>) {
        if info.experimental() && !self.options.experimental {
            self.error(
                func,
                at,
                format!(
                    "{} is an experimental op (FeatureID 0x{:04x}); pass --experimental to use it",
                    info.name,
                    info.feature_id()
                ),
            );
        }
        if let Some(need) = info.min_version {
            let have = self.m.header.version;
            let by_extension = info.extensions.iter().any(|e| self.extensions.contains(*e));
            if have < need && !by_extension {
                let alternative = if info.extensions.is_empty() {
                    String::new()
                } else {
                    format!(" (or the extension {})", info.extensions.join(" or "))
                };
                self.warn(
                    func,
                    at,
                    format!(
                        "{} needs SPIR-V {}{alternative}; the module is {}",
                        info.name,
                        version_text(need),
                        version_text(have)
                    ),
                );
            }
        }
        if !info.capabilities.is_empty()
            && !info
                .capabilities
                .iter()
                .any(|c| self.capabilities.contains(c))
        {
            self.warn(
                func,
                at,
                format!(
                    "{} needs {}, which the module does not declare",
                    info.name,
                    capability_list(&info.capabilities)
                ),
            );
        }
        if i.op != Op::Capability {
            // A built-in needs its capability only where it is used; a block member such as
            // gl_PerVertex's ClipDistance is declared whether or not the shader writes it.
            let member_builtin = i.op == Op::MemberDecorate;
            for operand in i.lits() {
                if member_builtin && matches!(operand, Operand::BuiltIn(_)) {
                    continue;
                }
                let needs = operand.required_capabilities();
                if !needs.is_empty() && !needs.iter().any(|c| self.capabilities.contains(c)) {
                    self.warn(
                        func,
                        at,
                        format!(
                            "{} operand {} needs {}, which the module does not declare",
                            info.name,
                            enum_text(operand).unwrap_or_else(|| operand.to_string()),
                            capability_list(&needs)
                        ),
                    );
                }
            }
        }
    }
}
