//! `simplify`: algebraic simplification. The rules are data (`RULES`, NIR's `nir_opt_algebraic`
//! is the model): a pattern over instructions and constants, and what it becomes — one of the
//! pattern's values, a constant, or one new instruction over them (the matched instruction is
//! rewritten in place, keeping its result). The table is parsed when it is first used and
//! checked against the op table (by the unit test, and on first use in debug builds): every
//! op exists, has that many operands, and every constant is of the kind the op reads at that
//! place (no `0.0` where `OpIAdd` reads an integer).
//!
//! Pattern syntax: `(Op p…)` matches an instruction of the function (either operand order for
//! an op the table marks commutative); a lowercase name binds any value (the same name twice
//! must be the same value); `0`, `1`, `-1` (all ones), `0.0`, `1.0`, `-0.0`, `-1.0`, `true`,
//! `false` match a scalar constant of that value or a vector of it in every component, and in
//! a result stand for that constant of the result's type. Float rules are only those IEEE 754
//! makes exact for every input: `x * 1.0` is `x`, but `x + 0.0` is not (`-0.0 + 0.0` is
//! `+0.0`) and `x * 0.0` is not (NaN, infinities, signed zeros).
//!
//! Besides the table, rules on composites (they need the literal indices): an extract of a
//! construct, of an insert or of a shuffle is the part it reads; a construct of every part
//! of one composite (vector, matrix, array, struct), in order, is that composite; a shuffle that reorders nothing is its operand; a
//! shuffle of a shuffle reads the vectors underneath directly; a chain of inserts that writes
//! every component of a vector is a construct of them; an access chain into an access chain
//! is one chain (unless the inner one is decorated), and a chain without indices its base; a
//! select on a vector of constants, some true and some false, is a shuffle of its operands; a
//! bitcast back to the type a bitcast came from is the value it came from.

use std::sync::OnceLock;

use rspirv::dr::Operand;
use spirv::Op;

use crate::ir::consts::{mask, Const, Consts};
use crate::ir::func::Function;
use crate::ir::fxhash::FxHashSet;
use crate::ir::ops::{self, fold::Value, Attrs, Val};
use crate::ir::rewrite::{self, rewrite_inst, Replacer};
use crate::ir::types::{literal_path, vector_len};
use crate::ir::{Id, Inst, InstId, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError, Preserves};

pub struct Simplify;

/// The algebraic rules, one per line: `pattern -> result`. `#` starts a comment.
pub const RULES: &str = r"
# Integers (two's complement: exact for every input)
(IAdd a 0) -> a
(ISub a 0) -> a
(ISub a a) -> 0
(ISub 0 a) -> (SNegate a)
(IMul a 1) -> a
(IMul a 0) -> 0
(IMul a -1) -> (SNegate a)
(UDiv a 1) -> a
(SDiv a 1) -> a
(BitwiseAnd a 0) -> 0
(BitwiseAnd a -1) -> a
(BitwiseAnd a a) -> a
(BitwiseOr a 0) -> a
(BitwiseOr a -1) -> -1
(BitwiseOr a a) -> a
(BitwiseXor a 0) -> a
(BitwiseXor a a) -> 0
(BitwiseXor a -1) -> (Not a)
(ShiftLeftLogical a 0) -> a
(ShiftRightLogical a 0) -> a
(ShiftRightArithmetic a 0) -> a
(Not (Not a)) -> a
(SNegate (SNegate a)) -> a
(IEqual a a) -> true
(INotEqual a a) -> false
(ULessThan a a) -> false
(SLessThan a a) -> false
(UGreaterThan a a) -> false
(SGreaterThan a a) -> false
(ULessThanEqual a a) -> true
(SLessThanEqual a a) -> true
(UGreaterThanEqual a a) -> true
(SGreaterThanEqual a a) -> true
# Booleans
(LogicalAnd a true) -> a
(LogicalAnd a false) -> false
(LogicalAnd a a) -> a
(LogicalOr a false) -> a
(LogicalOr a true) -> true
(LogicalOr a a) -> a
(LogicalNot (LogicalNot a)) -> a
(LogicalEqual a a) -> true
(LogicalNotEqual a a) -> false
(LogicalEqual a true) -> a
(LogicalNotEqual a false) -> a
(LogicalNot (IEqual a b)) -> (INotEqual a b)
(LogicalNot (INotEqual a b)) -> (IEqual a b)
(LogicalNot (ULessThan a b)) -> (UGreaterThanEqual a b)
(LogicalNot (SLessThan a b)) -> (SGreaterThanEqual a b)
(LogicalNot (UGreaterThan a b)) -> (ULessThanEqual a b)
(LogicalNot (SGreaterThan a b)) -> (SLessThanEqual a b)
(Select c a a) -> a
(Select true a b) -> a
(Select false a b) -> b
(Select c true false) -> c
(Select c false true) -> (LogicalNot c)
# Floats: exact for every input, NaN, infinities and signed zeros included
(FMul a 1.0) -> a
(FDiv a 1.0) -> a
(FAdd a -0.0) -> a
(FSub a 0.0) -> a
(FMul a -1.0) -> (FNegate a)
(FSub -0.0 a) -> (FNegate a)
(FNegate (FNegate a)) -> a
";

#[derive(Clone, Debug, PartialEq)]
enum Lit {
    Int(i64),
    Float(f64),
    Bool(bool),
}

#[derive(Clone, Debug)]
enum Pat {
    Var(String),
    Lit(Lit),
    Op(Op, Vec<Pat>),
}

#[derive(Debug)]
pub struct Rule {
    pattern: Pat,
    result: Pat,
    pub text: String,
}

/// The tokens of a rule's side: parentheses and the words between them.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let delimiter = c == '(' || c == ')' || c.is_whitespace();
        if delimiter {
            if let Some(s) = start.take() {
                out.push(&text[s..i]);
            }
            if !c.is_whitespace() {
                out.push(&text[i..i + 1]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

fn parse_pat(toks: &[&str], at: &mut usize) -> Result<Pat, String> {
    let t = *toks.get(*at).ok_or("unexpected end")?;
    *at += 1;
    if t == "(" {
        let name = *toks.get(*at).ok_or("missing op name")?;
        *at += 1;
        let op = ops::core_op_by_name(name).ok_or_else(|| format!("unknown op {name}"))?;
        let mut args = Vec::new();
        while toks.get(*at) != Some(&")") {
            args.push(parse_pat(toks, at)?);
        }
        *at += 1;
        return Ok(Pat::Op(op, args));
    }
    Ok(match t {
        "true" => Pat::Lit(Lit::Bool(true)),
        "false" => Pat::Lit(Lit::Bool(false)),
        s if s.contains('.') => {
            Pat::Lit(Lit::Float(s.parse().map_err(|_| format!("bad float {s}"))?))
        }
        s if s.starts_with(|c: char| c == '-' || c.is_ascii_digit()) => {
            Pat::Lit(Lit::Int(s.parse().map_err(|_| format!("bad integer {s}"))?))
        }
        s if s.chars().all(|c| c.is_ascii_lowercase()) => Pat::Var(s.to_string()),
        s => return Err(format!("bad token {s}")),
    })
}

/// The kind of value an op reads at operand `n` (or makes, for `None`).
fn kind_at(op: Op, n: Option<usize>) -> Result<Val, String> {
    let info = ops::info(op).ok_or_else(|| format!("{op:?} is not in the op table"))?;
    let typing = info
        .typing
        .as_ref()
        .ok_or_else(|| format!("{} has no typing", info.name))?;
    let v = match n {
        Some(n) => {
            let v = typing.operand(n);
            if v == Val::Same {
                typing.result
            } else {
                v
            }
        }
        None => typing.result,
    };
    // A polymorphic op's "the result's type" is any type here.
    Ok(if v == Val::Same { Val::Any } else { v })
}

fn lit_fits(l: &Lit, v: Val) -> bool {
    matches!(
        (l, v),
        (Lit::Int(_), Val::Int | Val::Uint | Val::Any)
            | (Lit::Float(_), Val::Float | Val::Any)
            | (Lit::Bool(_), Val::Bool | Val::Any)
    )
}

/// Checks a pattern's ops and constants against the op table; collects its variables.
fn check(p: &Pat, want: Val, vars: &mut Vec<String>) -> Result<(), String> {
    match p {
        Pat::Var(v) => {
            vars.push(v.clone());
            Ok(())
        }
        Pat::Lit(l) => lit_fits(l, want)
            .then_some(())
            .ok_or_else(|| format!("constant {l:?} where the op reads {want:?}")),
        Pat::Op(op, args) => {
            let info = ops::info(*op).ok_or_else(|| format!("{op:?} is not in the op table"))?;
            let arity = info.operands.len().saturating_sub(2);
            if arity != args.len() {
                return Err(format!(
                    "{} takes {arity} operands, not {}",
                    info.name,
                    args.len()
                ));
            }
            for (n, a) in args.iter().enumerate() {
                check(a, kind_at(*op, Some(n))?, vars)?;
            }
            Ok(())
        }
    }
}

/// Parses the rules; `checked`: checks them against the op table too.
fn parse_rules(text: &str, checked: bool) -> Result<Vec<Rule>, String> {
    let mut rules = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (lhs, rhs) = line
            .split_once("->")
            .ok_or_else(|| format!("`{line}`: no `->`"))?;
        let err = |e: String| format!("`{line}`: {e}");
        let (lt, rt) = (tokens(lhs), tokens(rhs));
        let mut at = 0;
        let pattern = parse_pat(&lt, &mut at).map_err(err)?;
        let mut at2 = 0;
        let result = parse_pat(&rt, &mut at2).map_err(err)?;
        let Pat::Op(op, _) = &pattern else {
            return Err(err("a pattern must be an op".into()));
        };
        if checked {
            let mut bound = Vec::new();
            check(&pattern, Val::Any, &mut bound).map_err(err)?;
            let mut used = Vec::new();
            check(&result, kind_at(*op, None).map_err(err)?, &mut used).map_err(err)?;
            if let Some(v) = used.iter().find(|v| !bound.contains(v)) {
                return Err(err(format!("`{v}` is not bound by the pattern")));
            }
            if matches!(&result, Pat::Op(_, args) if args.iter().any(|a| matches!(a, Pat::Op(..))))
            {
                return Err(err("a result makes at most one instruction".into()));
            }
        }
        rules.push(Rule {
            pattern,
            result,
            text: line.to_string(),
        });
    }
    Ok(rules)
}

/// The whole rule table (a malformed rule is a bug of this file: it panics, and the unit test
/// below builds and checks the table). Debug builds check each op's rules against the op table
/// when `rules_for` parses them; release builds trust the table the tests checked, because the
/// check looks up ops a small shader never uses, and start-up is most of a small shader's time.
#[cfg(test)]
pub fn rules() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        parse_rules(RULES, cfg!(debug_assertions)).unwrap_or_else(|e| panic!("simplify rule {e}"))
    })
}

/// The rule lines of one op, and its rules once a module has an instruction of that op.
type OpRules = (Vec<&'static str>, OnceLock<Vec<Rule>>);

/// The rules whose pattern is an instruction of `op`, in table order. The table is split by
/// the pattern's op at start and each op's rules are parsed the first time an instruction of
/// that op is simplified: a small shader uses few of the ops the table covers, and parsing all
/// of it was a sixth of such a shader's whole run.
fn rules_for(op: Op) -> &'static [Rule] {
    static BY_OP: OnceLock<crate::ir::fxhash::FxHashMap<Op, OpRules>> = OnceLock::new();
    let by_op = BY_OP.get_or_init(|| {
        let mut map: crate::ir::fxhash::FxHashMap<Op, OpRules> = Default::default();
        for line in RULES.lines() {
            let rule = line.trim_start();
            if rule.is_empty() || rule.starts_with('#') {
                continue;
            }
            // The pattern's op: the first word after its opening parenthesis.
            let name = rule.trim_start_matches('(');
            let name = &name[..name
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(name.len())];
            let op = ops::core_op_by_name(name)
                .unwrap_or_else(|| panic!("simplify rule `{rule}`: unknown op {name}"));
            map.entry(op).or_default().0.push(line);
        }
        map
    });
    let Some((lines, parsed)) = by_op.get(&op) else {
        return &[];
    };
    parsed.get_or_init(|| {
        parse_rules(&lines.join("\n"), cfg!(debug_assertions))
            .unwrap_or_else(|e| panic!("simplify rule {e}"))
    })
}

/// A rule's variables bound so far: a handful at most.
type Env<'p> = smallvec::SmallVec<[(&'p str, Id); 4]>;

struct Matcher<'a> {
    f: &'a Function,
    consts: &'a Consts,
    replace: &'a Replacer,
}

impl Matcher<'_> {
    fn is_lit(&self, id: Id, l: &Lit) -> bool {
        let Some(c) = self.consts.of(id) else {
            return false;
        };
        let scalar = |c: &Const| match (c, l) {
            (Const::Scalar(Value::Int { bits, width }), Lit::Int(v)) => {
                *bits == (*v as u64) & mask(*width)
            }
            (Const::Scalar(Value::Float { value, .. }), Lit::Float(v)) => {
                value.to_bits() == v.to_bits()
            }
            (Const::Scalar(Value::Bool(b)), Lit::Bool(v)) => b == v,
            _ => false,
        };
        match c {
            Const::Composite(parts) => !parts.is_empty() && parts.iter().all(scalar),
            s => scalar(s),
        }
    }

    /// `env` binds the pattern's variables, by the names the rule spells them with.
    fn matches<'p>(&self, p: &'p Pat, id: Id, env: &mut Env<'p>) -> bool {
        let id = self.replace.resolve(id);
        match p {
            Pat::Var(v) => match env.iter().find(|(n, _)| n == v) {
                Some(&(_, bound)) => bound == id,
                None => {
                    env.push((v, id));
                    true
                }
            },
            Pat::Lit(l) => self.is_lit(id, l),
            Pat::Op(op, args) => {
                let Some(inst) = self.f.def_of(id) else {
                    return false;
                };
                if inst.op() != *op || inst.args().len() != args.len() {
                    return false;
                }
                let saved = env.len();
                if args
                    .iter()
                    .zip(inst.args())
                    .all(|(p, &a)| self.matches(p, a, env))
                {
                    return true;
                }
                env.truncate(saved);
                let commutative =
                    ops::info(*op).is_some_and(|i| i.attrs.contains(Attrs::COMMUTATIVE));
                if commutative && args.len() == 2 {
                    if self.matches(&args[0], inst.args()[1], env)
                        && self.matches(&args[1], inst.args()[0], env)
                    {
                        return true;
                    }
                    env.truncate(saved);
                }
                false
            }
        }
    }
}

/// What a matched instruction becomes.
enum Outcome {
    /// Its uses take this value.
    Value(Id),
    /// It is rewritten in place into this op and these operands (keeping its result, type and
    /// location).
    Rewrite(Op, Vec<Operand>),
}

/// A rewrite whose operands are all ids.
fn rewrite_ids(op: Op, args: impl IntoIterator<Item = Id>) -> Outcome {
    Outcome::Rewrite(op, args.into_iter().map(Operand::IdRef).collect())
}

fn lit_constant(m: &mut Module, consts: &mut Consts, ty: Id, l: &Lit) -> Option<Id> {
    let scalar_ty = match m.global(ty)?.op() {
        Op::TypeVector => m.global(ty)?.arg(0)?,
        _ => ty,
    };
    let t = m.global(scalar_ty)?;
    let value = match (t.op(), l) {
        (Op::TypeInt, Lit::Int(v)) => {
            let width = t.lit_u32(0)?;
            Value::Int {
                bits: (*v as u64) & mask(width),
                width,
            }
        }
        (Op::TypeFloat, Lit::Float(v)) => Value::Float {
            value: *v,
            width: t.lit_u32(0)?,
        },
        (Op::TypeBool, Lit::Bool(b)) => Value::Bool(*b),
        _ => return None,
    };
    let c = match vector_len(m, ty) {
        Some(n) => Const::Composite(vec![Const::Scalar(value); n as usize]),
        None => Const::Scalar(value),
    };
    consts.materialize(m, ty, &c)
}

/// The first table rule that applies to `inst`.
fn apply_rules(
    m: &mut Module,
    consts: &mut Consts,
    f: &Function,
    replace: &Replacer,
    inst: &Inst,
) -> Option<Outcome> {
    let r = inst.result()?;
    let ty = inst.ty()?;
    let mut env = Env::new();
    for rule in rules_for(inst.op()) {
        env.clear();
        let matched = Matcher { f, consts, replace }.matches(&rule.pattern, r, &mut env);
        if !matched {
            continue;
        }
        let lookup = |v: &str| env.iter().find(|(n, _)| *n == v).map(|&(_, id)| id);
        match &rule.result {
            Pat::Var(v) => return lookup(v).map(Outcome::Value),
            Pat::Lit(l) => return lit_constant(m, consts, ty, l).map(Outcome::Value),
            Pat::Op(op, args) => {
                let mut ids = Vec::new();
                for a in args {
                    ids.push(match a {
                        Pat::Var(v) => lookup(v)?,
                        Pat::Lit(l) => lit_constant(m, consts, ty, l)?,
                        Pat::Op(..) => return None,
                    });
                }
                return Some(rewrite_ids(*op, ids));
            }
        }
    }
    None
}

/// How many components a vector type has (`None` for other types, and for counts no valid
/// module has).
fn extract(from: Id, path: &[u32]) -> Outcome {
    let mut ops = vec![Operand::IdRef(from)];
    ops.extend(path.iter().map(|&k| Operand::LiteralBit32(k)));
    Outcome::Rewrite(Op::CompositeExtract, ops)
}

/// Where component `k` of a vector value comes from, looking through shuffles: (vector, index).
fn vector_source(m: &Module, f: &Function, replace: &Replacer, v: Id, k: u32) -> (Id, u32) {
    let v = replace.resolve(v);
    if let Some(s) = f.def_of(v).filter(|s| s.op() == Op::VectorShuffle) {
        let sel = literal_path(s);
        if let (Some(&a), Some(&b), Some(&idx)) =
            (s.args().first(), s.args().get(1), sel.get(k as usize))
        {
            let a = replace.resolve(a);
            let b = replace.resolve(b);
            let na = f
                .def_of(a)
                .and_then(|d| d.ty())
                .or_else(|| m.global(a).and_then(|g| g.ty()));
            if let Some(n) = na.and_then(|t| vector_len(m, t)) {
                if idx != u32::MAX {
                    return if idx < n { (a, idx) } else { (b, idx - n) };
                }
            }
        }
    }
    (v, k)
}

fn type_of(m: &Module, f: &Function, v: Id) -> Option<Id> {
    f.def_of(v)
        .and_then(|d| d.ty())
        .or_else(|| m.global(v).and_then(|g| g.ty()))
        .or_else(|| {
            f.params()
                .iter()
                .find(|p| p.result() == Some(v))
                .and_then(|p| p.ty())
        })
}

/// The composite rules.
fn composite(
    m: &Module,
    f: &Function,
    replace: &Replacer,
    decorated: &FxHashSet<Id>,
    inst: &Inst,
) -> Option<Outcome> {
    inst.result()?;
    let ty = inst.ty()?;
    let arg = |k: usize| inst.args().get(k).map(|&a| replace.resolve(a));
    match inst.op() {
        Op::Bitcast => {
            // A bitcast back to the type a bitcast came from: the value it came from.
            let inner = f.def_of(arg(0)?)?;
            if inner.op() != Op::Bitcast {
                return None;
            }
            let from = replace.resolve(*inner.args().first()?);
            (type_of(m, f, from)? == ty).then_some(Outcome::Value(from))
        }
        Op::Select => {
            // A vector condition of constants, some true, some false: a shuffle of the two.
            let n = vector_len(m, ty)?;
            let cond = m.global(arg(0)?)?;
            if cond.op() != Op::ConstantComposite || cond.args().len() != n as usize {
                return None;
            }
            let picks: Vec<bool> = cond
                .args()
                .iter()
                .map(|&c| match m.global(c).map(|g| g.op()) {
                    Some(Op::ConstantTrue) => Some(true),
                    Some(Op::ConstantFalse) => Some(false),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            if picks.iter().all(|&p| p) || picks.iter().all(|&p| !p) {
                return None; // the table's rules take these
            }
            let operands: Vec<Operand> =
                [Operand::IdRef(arg(1)?), Operand::IdRef(arg(2)?)]
                    .into_iter()
                    .chain(picks.iter().enumerate().map(|(k, &p)| {
                        Operand::LiteralBit32(if p { k as u32 } else { n + k as u32 })
                    }))
                    .collect();
            Some(Outcome::Rewrite(Op::VectorShuffle, operands))
        }
        Op::AccessChain | Op::InBoundsAccessChain => {
            let base = arg(0)?;
            if inst.args().len() == 1 {
                // No index: the base itself.
                return Some(Outcome::Value(base));
            }
            // A chain into a chain is one chain, unless the inner one is decorated
            // (`NonUniform` belongs to the pointer it marks).
            let def = f.def_of(base)?;
            if !matches!(def.op(), Op::AccessChain | Op::InBoundsAccessChain)
                || decorated.contains(&base)
            {
                return None;
            }
            let op = if inst.op() == Op::InBoundsAccessChain && def.op() == Op::InBoundsAccessChain
            {
                Op::InBoundsAccessChain
            } else {
                Op::AccessChain
            };
            let args: Vec<Id> = def
                .args()
                .iter()
                .chain(&inst.args()[1..])
                .map(|&a| replace.resolve(a))
                .collect();
            Some(rewrite_ids(op, args))
        }
        Op::CompositeExtract => {
            let path = literal_path(inst);
            let c = arg(0)?;
            let def = f.def_of(c)?;
            match def.op() {
                Op::CompositeInsert => {
                    let ipath = literal_path(def);
                    let (part, whole) = (
                        replace.resolve(def.args()[0]),
                        replace.resolve(def.args()[1]),
                    );
                    let common = path.iter().zip(&ipath).take_while(|(a, b)| a == b).count();
                    if common == ipath.len() {
                        // The insert wrote what is read, or a composite containing it.
                        return Some(if path.len() == ipath.len() {
                            Outcome::Value(part)
                        } else {
                            extract(part, &path[common..])
                        });
                    }
                    if common < path.len() {
                        // Disjoint: the read is of what the insert left alone.
                        return Some(extract(whole, &path));
                    }
                    None
                }
                Op::CompositeConstruct => {
                    let k = *path.first()? as usize;
                    let cty = def.ty()?;
                    let parts: Vec<Id> = def.args().iter().map(|&a| replace.resolve(a)).collect();
                    let part = match vector_len(m, cty) {
                        // A vector built from pieces: find the piece holding component k.
                        Some(_) => {
                            let mut at = 0usize;
                            let mut found = None;
                            for &p in &parts {
                                let width =
                                    type_of(m, f, p).and_then(|t| vector_len(m, t)).unwrap_or(1)
                                        as usize;
                                if k < at + width {
                                    found = Some((p, k - at, width));
                                    break;
                                }
                                at += width;
                            }
                            let (p, within, width) = found?;
                            if width == 1 {
                                (p, None)
                            } else {
                                (p, Some(within as u32))
                            }
                        }
                        None => (*parts.get(k)?, None),
                    };
                    let mut rest: Vec<u32> = part.1.into_iter().collect();
                    rest.extend_from_slice(&path[1..]);
                    Some(if rest.is_empty() {
                        Outcome::Value(part.0)
                    } else {
                        extract(part.0, &rest)
                    })
                }
                Op::VectorShuffle => {
                    let [k] = path.as_slice() else { return None };
                    let (src, idx) = vector_source(m, f, replace, c, *k);
                    (src != c).then(|| extract(src, &[idx]))
                }
                _ => None,
            }
        }
        Op::CompositeConstruct => {
            // Every part of one composite, in order: that composite (a vector may also be
            // built from smaller vectors, which this does not see through).
            let n = crate::ir::types::members(m, ty)?.count();
            if inst.args().len() != n as usize {
                return None;
            }
            let mut source = None;
            for (k, &a) in inst.args().iter().enumerate() {
                let e = f.def_of(replace.resolve(a))?;
                if e.op() != Op::CompositeExtract || literal_path(e) != [k as u32] {
                    return None;
                }
                let v = replace.resolve(e.args()[0]);
                match source {
                    None => source = Some(v),
                    Some(s) if s == v => {}
                    Some(_) => return None,
                }
            }
            let v = source?;
            (type_of(m, f, v) == Some(ty)).then_some(Outcome::Value(v))
        }
        Op::VectorShuffle => {
            let sel = literal_path(inst);
            let (a, b) = (arg(0)?, arg(1)?);
            let na = vector_len(m, type_of(m, f, a)?)?;
            if sel.contains(&u32::MAX) {
                return None;
            }
            // Where every component comes from, through shuffles beneath.
            let sources: Vec<(Id, u32)> = sel
                .iter()
                .map(|&k| {
                    if k < na {
                        vector_source(m, f, replace, a, k)
                    } else {
                        vector_source(m, f, replace, b, k - na)
                    }
                })
                .collect();
            let mut vectors: Vec<Id> = Vec::new();
            for (v, _) in &sources {
                if !vectors.contains(v) {
                    vectors.push(*v);
                }
            }
            // Identity: every component of one vector of the result's type, in order.
            if let [v] = vectors.as_slice() {
                let identity = sources.iter().enumerate().all(|(k, &(_, i))| i == k as u32);
                if identity && type_of(m, f, *v) == Some(ty) {
                    return Some(Outcome::Value(*v));
                }
            }
            // Nothing read through a shuffle beneath: as it is.
            if vectors.len() > 2 || vectors.iter().all(|&v| v == a || v == b) {
                return None;
            }
            let x = vectors[0];
            let y = *vectors.get(1).unwrap_or(&x);
            let nx = vector_len(m, type_of(m, f, x)?)?;
            let mut ops = vec![Operand::IdRef(x), Operand::IdRef(y)];
            for (v, i) in &sources {
                ops.push(Operand::LiteralBit32(if *v == x { *i } else { nx + i }));
            }
            (ops != inst.to_operands()).then_some(Outcome::Rewrite(Op::VectorShuffle, ops))
        }
        Op::CompositeInsert => {
            // A chain of single-index inserts that writes every component of a vector.
            let n = vector_len(m, ty)? as usize;
            let mut parts: Vec<Option<Id>> = vec![None; n];
            let mut cur = inst.clone();
            loop {
                let path = literal_path(&cur);
                let [k] = path.as_slice() else { return None };
                let slot = parts.get_mut(*k as usize)?;
                if slot.is_none() {
                    *slot = Some(replace.resolve(cur.args()[0]));
                }
                if parts.iter().all(Option::is_some) {
                    break;
                }
                match f.def_of(replace.resolve(cur.args()[1])) {
                    Some(d) if d.op() == Op::CompositeInsert && d.ty() == Some(ty) => {
                        cur = d.clone()
                    }
                    _ => return None,
                }
            }
            let ids: Vec<Id> = parts.into_iter().map(|p| p.unwrap_or(0)).collect();
            Some(rewrite_ids(Op::CompositeConstruct, ids))
        }
        _ => None,
    }
}

fn simplify_function(
    m: &mut Module,
    consts: &mut Consts,
    decorated: &FxHashSet<Id>,
    f: &mut Function,
    replace: &mut Replacer,
) -> bool {
    let fid = f.id();
    let mut changed = false;
    // Until nothing applies: a rewrite may let another rule match (bounded, in case two rules
    // undo each other).
    for _round in 0..8 {
        let mut any = false;
        let ids: Vec<InstId> = f.layout().map(|(_, i)| i).collect();
        for i in ids {
            let op = f.inst(i).op();
            let composite_op = matches!(
                op,
                Op::Bitcast
                    | Op::CompositeExtract
                    | Op::CompositeConstruct
                    | Op::CompositeInsert
                    | Op::VectorShuffle
                    | Op::AccessChain
                    | Op::InBoundsAccessChain
                    | Op::Select
            );
            if !composite_op && rules_for(op).is_empty() {
                continue;
            }
            let inst = f.inst(i);
            let Some(r) = inst.result() else { continue };
            if replace.is_replaced(r) {
                continue;
            }
            let ty = inst.ty();
            let outcome = composite(m, f, replace, decorated, inst)
                .or_else(|| apply_rules(m, consts, f, replace, inst));
            match outcome {
                Some(Outcome::Value(v)) if v != r => {
                    any |= replace.replace_in(fid, r, v);
                }
                Some(Outcome::Rewrite(op, operands)) => {
                    rewrite_inst(f, i, op, ty, operands);
                    any = true;
                }
                _ => {}
            }
        }
        if !any {
            break;
        }
        changed = true;
    }
    if changed {
        f.retain_all(|i| !i.result().is_some_and(|r| replace.is_replaced(r)));
        replace.apply_to_function(f);
    }
    changed
}

pub fn simplify(m: &mut Module) -> bool {
    let mut consts = Consts::new(m);
    let mut replace = Replacer::new();
    let mut changed = false;
    let decorated: FxHashSet<Id> = m.annotations().iter().filter_map(|a| a.arg(0)).collect();
    rewrite::edit_functions(m, |m, f| {
        changed |= simplify_function(m, &mut consts, &decorated, f, &mut replace);
    });
    replace.apply(m, "simplify");
    changed
}

impl Pass for Simplify {
    fn name(&self) -> &'static str {
        "simplify"
    }
    fn description(&self) -> &'static str {
        "algebraic simplification by rules kept as data, and composites read through"
    }
    fn preserves(&self) -> Preserves {
        Preserves::Cfg
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(simplify(module).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_table_checks_against_the_op_table() {
        let checked = parse_rules(RULES, true).unwrap_or_else(|e| panic!("simplify rule {e}"));
        assert!(checked.len() > 40);
        assert_eq!(checked.len(), rules().len());
    }

    #[test]
    fn malformed_rules_are_refused_with_the_reason() {
        for (rule, why) in [
            ("(IAdd a 0.0) -> a", "constant"),
            ("(FAdd a b c) -> a", "takes 2 operands"),
            ("(Frobnicate a) -> a", "unknown op"),
            ("(IAdd a 0) -> b", "not bound"),
            ("(LogicalAnd a 1) -> a", "constant"),
        ] {
            let e = parse_rules(rule, true).expect_err(rule);
            assert!(e.contains(why), "{rule}: {e}");
        }
    }
}
