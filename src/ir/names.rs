//! Friendly names for ids, in the style of `spirv-dis`: debug names where the module has them,
//! names derived from structure for types and constants (`%v4float`, `%_ptr_Input_float`,
//! `%int_1`), and the id number otherwise. Derived names depend on content, not on ids, so they
//! do not shift when an unrelated instruction is added.

use super::fxhash::{FxHashMap, FxHashSet};

use rspirv::dr::Operand;
use spirv::Op;

use super::inst::Id;
use super::module::Module;
use super::number::{format_literal_number, ScalarKind};

#[derive(Default, Clone, Debug)]
pub struct Names {
    map: FxHashMap<Id, String>,
}

impl Names {
    /// Ids print as numbers only.
    pub fn raw() -> Self {
        Names::default()
    }

    pub fn get(&self, id: Id) -> String {
        match self.map.get(&id) {
            Some(n) => n.clone(),
            None => id.to_string(),
        }
    }

    /// Appends the name of `id` to `out` (what `get` gives, without a string of its own).
    pub fn push(&self, id: Id, out: &mut String) {
        match self.map.get(&id) {
            Some(n) => out.push_str(n),
            None => push_u32(out, id),
        }
    }

    pub fn for_module(m: &Module) -> Self {
        let mut debug: FxHashMap<Id, &str> = FxHashMap::default();
        for inst in &m.debug {
            if let (Op::Name, Some(id), [Operand::LiteralString(s)]) =
                (inst.op, inst.arg(0), inst.lits())
            {
                debug.entry(id).or_insert(s);
            }
        }
        let mut names = Names::default();
        let mut taken: FxHashSet<String> = FxHashSet::default();
        let mut assign = |names: &mut Names, id: Id, base: String| {
            if base.is_empty() || names.map.contains_key(&id) {
                return;
            }
            let mut candidate = base.clone();
            let mut n = 0;
            while taken.contains(&candidate) {
                candidate = format!("{base}_{n}");
                n += 1;
            }
            taken.insert(candidate.clone());
            names.map.insert(id, candidate);
        };
        let scalars = super::types::scalar_kinds(m);
        m.for_each_inst(|inst| {
            let Some(id) = inst.result else { return };
            let base = match debug.get(&id) {
                Some(s) => sanitize(s),
                None => derived_name(inst, &names, &scalars),
            };
            assign(&mut names, id, base);
        });
        names
    }
}

fn sanitize(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn derived_name(
    inst: &super::inst::Inst,
    names: &Names,
    scalars: &FxHashMap<Id, ScalarKind>,
) -> String {
    let arg = |k: usize| inst.arg(k).map(|id| names.get(id));
    let lits = inst.lits();
    match inst.op {
        Op::TypeVoid => "void".into(),
        Op::TypeBool => "bool".into(),
        Op::TypeInt => match lits {
            [Operand::LiteralBit32(32), Operand::LiteralBit32(s)] => {
                if *s == 1 { "int" } else { "uint" }.into()
            }
            [Operand::LiteralBit32(w), Operand::LiteralBit32(s)] => {
                format!("{}{w}", if *s == 1 { "int" } else { "uint" })
            }
            _ => String::new(),
        },
        Op::TypeFloat => match lits.first() {
            Some(Operand::LiteralBit32(16)) => "half".into(),
            Some(Operand::LiteralBit32(32)) => "float".into(),
            Some(Operand::LiteralBit32(64)) => "double".into(),
            Some(Operand::LiteralBit32(w)) => format!("fp{w}"),
            _ => String::new(),
        },
        Op::TypeVector => match (arg(0), lits.first()) {
            (Some(c), Some(Operand::LiteralBit32(k))) => format!("v{k}{c}"),
            _ => String::new(),
        },
        Op::TypeMatrix => match (arg(0), lits.first()) {
            (Some(c), Some(Operand::LiteralBit32(k))) => format!("mat{k}{c}"),
            _ => String::new(),
        },
        Op::TypeArray => match (arg(0), arg(1)) {
            (Some(e), Some(l)) => format!("_arr_{e}_{l}"),
            _ => String::new(),
        },
        Op::TypeRuntimeArray => match arg(0) {
            Some(e) => format!("_runtimearr_{e}"),
            None => String::new(),
        },
        Op::TypePointer => match (lits.first(), arg(0)) {
            (Some(Operand::StorageClass(sc)), Some(p)) => format!("_ptr_{sc:?}_{p}"),
            _ => String::new(),
        },
        Op::TypeUntypedPointerKHR => match lits.first() {
            Some(Operand::StorageClass(sc)) => format!("_qptr_{sc:?}"),
            _ => String::new(),
        },
        // Dialect bit-vector types are the only extended instructions with a scalar kind.
        Op::ExtInst => match inst.result.and_then(|r| scalars.get(&r)) {
            Some(ScalarKind::Bits { width }) => format!("b{width}"),
            _ => String::new(),
        },
        Op::TypeSampler => "type_sampler".into(),
        Op::ConstantTrue => "true".into(),
        Op::ConstantFalse => "false".into(),
        Op::Constant => {
            let Some(ty) = inst.ty else {
                return String::new();
            };
            let Some(kind) = scalars.get(&ty) else {
                return String::new();
            };
            let text = format_literal_number(*kind, lits);
            let text: String = text
                .chars()
                .map(|c| match c {
                    '-' => 'n',
                    '.' | '+' => '_',
                    c if c.is_ascii_alphanumeric() => c,
                    _ => '_',
                })
                .collect();
            format!("{}_{text}", names.get(ty))
        }
        _ => String::new(),
    }
}

/// Appends the decimal digits of `v` (without `fmt`'s machinery: most ids print this way).
pub fn push_u32(out: &mut String, mut v: u32) {
    let mut buf = [0u8; 10];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &buf[at..] {
        out.push(char::from(d));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn push_u32_writes_decimal_digits() {
        for v in [0, 7, 10, 4096, 1_000_000_007, u32::MAX] {
            let mut s = String::from("%");
            super::push_u32(&mut s, v);
            assert_eq!(s, format!("%{v}"));
        }
    }
}
