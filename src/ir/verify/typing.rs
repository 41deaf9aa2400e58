//! Rule families 5 and 7: operand and result types (loads, stores, calls, the op table's result
//! rules, composites, shuffles, matrices, bit fields) and the overloads an op has.

use super::*;

/// A composite type's member types: each its own (a struct), or one repeated (vectors,
/// matrices, arrays — never spelled out, a count may be huge).
pub(super) enum Members {
    List(Vec<Id>),
    Repeat(Id, u64),
}

impl Members {
    pub(super) fn len(&self) -> u64 {
        match self {
            Members::List(l) => l.len() as u64,
            Members::Repeat(_, n) => *n,
        }
    }

    pub(super) fn get(&self, k: u64) -> Option<Id> {
        match self {
            Members::List(l) => usize::try_from(k).ok().and_then(|k| l.get(k)).copied(),
            Members::Repeat(of, n) => (k < *n).then_some(*of),
        }
    }
}

/// Where a result rule is checked: the function and instruction its findings name, the op's
/// name, the result type, and the value operands that have a type, with it.
struct RuleSite<'a> {
    fid: Option<Id>,
    at: Option<Id>,
    op: &'a str,
    result: Id,
    typed: smallvec::SmallVec<[(Id, Id); 4]>,
}

/// A shape as findings say it: `an i32`, `a bool`, `4 × f32`.
fn describe((k, w, n): (Kind, u32, u32)) -> String {
    let element = if k == Kind::Bool {
        "bool".to_string()
    } else {
        format!("{}{w}", k.short())
    };
    if n == 1 {
        let article = if matches!(k, Kind::Int | Kind::Float) {
            "an"
        } else {
            "a"
        };
        format!("{article} {element}")
    } else {
        format!("{n} × {element}")
    }
}

/// A signed integer shape where an unsigned one is wanted: `a signed i32`, `2 × signed i32`.
fn signed_text((_, w, n): (Kind, u32, u32)) -> String {
    if n == 1 {
        format!("a signed i{w}")
    } else {
        format!("{n} × signed i{w}")
    }
}

/// The kind a typing symbol wants (`Same`: the result's), as findings say it.
fn kind_text(want: Val, result: Option<Kind>, plural: bool) -> &'static str {
    let kind = match want {
        Val::Same => result,
        other => other.kind(),
    };
    match (kind, want.unsigned(), plural) {
        (Some(Kind::Int), true, false) => "an unsigned integer",
        (Some(Kind::Int), true, true) => "unsigned integers",
        (Some(Kind::Int), false, false) => "an integer",
        (Some(Kind::Int), false, true) => "integers",
        (Some(Kind::Float), _, false) => "a float",
        (Some(Kind::Float), _, true) => "floats",
        (_, _, false) => "a bool",
        (_, _, true) => "bools",
    }
}

impl<'m> Verifier<'m> {
    /// Element kind and width of a numeric or bool type, looking through vectors and matrices.
    pub(super) fn element(&self, ty: Id) -> Option<(Kind, u32)> {
        // A matrix of vectors of scalars is two steps deep; a broken module may loop.
        let mut ty = ty;
        for _ in 0..3 {
            let t = self.type_inst(ty)?;
            match (t.op, t.lits(), t.arg(0)) {
                (Op::TypeFloat, [Operand::LiteralBit32(w), ..], _) => {
                    return Some((Kind::Float, *w))
                }
                (Op::TypeInt, [Operand::LiteralBit32(w), ..], _) => return Some((Kind::Int, *w)),
                (Op::TypeBool, _, _) => return Some((Kind::Bool, 1)),
                (Op::TypeVector | Op::TypeMatrix, _, Some(c)) => ty = c,
                (Op::ExtInst, _, _) => {
                    return dialect_type_width(t, &self.sets).map(|w| (Kind::Bits, w))
                }
                _ => return None,
            }
        }
        None
    }

    /// Whether a value of type `a` may stand where `b` is expected: the same type, or a
    /// bit-vector and a numeric type of the same width and count (the access types the bits).
    pub(super) fn compatible(&self, a: Id, b: Id) -> bool {
        if a == b {
            return true;
        }
        match (self.shape(a), self.shape(b)) {
            (Some((ka, wa, na)), Some((kb, wb, nb))) => {
                wa == wb && na == nb && (ka == Kind::Bits || kb == Kind::Bits)
            }
            _ => false,
        }
    }

    /// Element kind, width and component count of a scalar or vector type.
    pub(super) fn shape(&self, ty: Id) -> Option<(Kind, u32, u32)> {
        let t = self.type_inst(ty)?;
        let count = match (t.op, t.lits()) {
            (Op::TypeVector, [Operand::LiteralBit32(n)]) => *n,
            (Op::TypeMatrix | Op::TypeVector, _) => return None,
            _ => 1,
        };
        let (kind, width) = self.element(ty)?;
        Some((kind, width, count))
    }

    /// The op table's overloads: the element type the op works on must be one it has, and the
    /// capability that width needs must be declared.
    pub(super) fn overload(&mut self, f: &Function, i: &Inst, info: &OpInfo, at: Option<Id>) {
        if info.overloads.is_empty() {
            return;
        }
        // Comparisons produce bools: their overload is the operands' type.
        let ty = if info.class == OpClass::Compare {
            self.value_operands(i, info)
                .first()
                .and_then(|v| self.value_type(*v))
        } else {
            i.ty
        };
        let Some((kind, width)) = ty.and_then(|t| self.element(t)) else {
            return;
        };
        let matching: smallvec::SmallVec<[Kind; 4]> = info
            .overloads
            .iter()
            .filter(|o| {
                o.widths.contains(&width)
                    && (o.kind == kind
                        || (kind == Kind::Bits && matches!(o.kind, Kind::Int | Kind::Float)))
            })
            .map(|o| o.kind)
            .collect();
        if matching.is_empty() {
            let valid: Vec<String> = info.overloads.iter().map(ToString::to_string).collect();
            self.warn(
                Some(f.id()),
                at,
                format!(
                    "{} has no {}{width} overload (it takes {})",
                    info.name,
                    kind.short(),
                    valid.join("; ")
                ),
            );
            return;
        }
        // A bit-vector needs the capability of the kind the op reads it as, when that is one.
        let read_as = match matching.as_slice() {
            [k] => *k,
            _ if kind != Kind::Bits => kind,
            _ => return,
        };
        if let Some(cap) = ops::width_capability(read_as, width) {
            if !self.capabilities.contains(&cap) {
                self.warn(
                    Some(f.id()),
                    at,
                    format!(
                        "{} on {}{width} needs capability {cap:?}, which the module does not declare",
                        info.name,
                        kind.short()
                    ),
                );
            }
        }
    }

    /// The value operands of an instruction: after the set and number of an extended one.
    pub(super) fn value_operands(&self, i: &Inst, info: &OpInfo) -> smallvec::SmallVec<[Id; 4]> {
        let skip = if info.set == OpSet::Core { 0 } else { 1 };
        i.id_operands().skip(skip).collect()
    }

    /// Whether a type is a signed integer (or a vector or matrix of them).
    pub(super) fn is_signed_int(&self, ty: Id) -> bool {
        let mut ty = ty;
        for _ in 0..3 {
            let Some(t) = self.type_inst(ty) else {
                return false;
            };
            match (t.op, t.lits(), t.arg(0)) {
                (Op::TypeInt, [_, Operand::LiteralBit32(s)], _) => return *s != 0,
                (Op::TypeVector | Op::TypeMatrix, _, Some(c)) => ty = c,
                _ => return false,
            }
        }
        false
    }

    /// Whether a value of type `ty` is of the kind (and signedness) typing symbol `want` names.
    /// Types that are not scalars or vectors, and symbols that name no kind, always fit.
    pub(super) fn fits(&self, ty: Id, want: Val, result_kind: Option<Kind>) -> Option<bool> {
        let want_kind = match want {
            Val::Same => result_kind?,
            other => other.kind()?,
        };
        let (kind, _, _) = self.shape(ty)?;
        let kind_ok = kind == want_kind
            || (kind == Kind::Bits && matches!(want_kind, Kind::Int | Kind::Float));
        Some(kind_ok && !(want.unsigned() && self.is_signed_int(ty)))
    }

    /// The op table's result rule: how the value operands' types relate to the result type,
    /// and the element kinds its typing names. Returns whether the result or an operand is of
    /// the wrong kind (then the overload check, which would say it again, is skipped).
    pub(super) fn result_rule(
        &mut self,
        f: &Function,
        i: &Inst,
        info: &OpInfo,
        at: Option<Id>,
    ) -> bool {
        let (Some(t), true) = (i.ty, info.rule != Rule::None) else {
            return false;
        };
        let operands = self.value_operands(i, info);
        let site = RuleSite {
            fid: Some(f.id()),
            at,
            op: &info.name,
            result: t,
            typed: operands
                .iter()
                .filter_map(|v| Some((*v, self.value_type(*v)?)))
                .collect(),
        };
        if self.result_kinds(&site, info) {
            return true;
        }
        match info.rule {
            Rule::None => {}
            Rule::SameType => self.same_type_rule(&site),
            Rule::SameShape => self.same_shape_rule(&site, false),
            Rule::Shift => self.same_shape_rule(&site, true),
            Rule::Compare => self.compare_rule(&site),
            Rule::SameCount => self.same_count_rule(&site),
            Rule::Resize => self.resize_rule(&site),
            Rule::Reduce => self.reduce_rule(&site),
            Rule::Select => self.select_rule(&site),
        }
        false
    }

    /// Element kinds, from the op's typing: the result's, then each value operand's. Returns
    /// whether one is wrong. A comparison's bool result is its rule's to check; a same-type
    /// rule compares whole types, which says more than the kind.
    fn result_kinds(&mut self, site: &RuleSite, info: &OpInfo) -> bool {
        let Some(typing) = info.typing.clone() else {
            return false;
        };
        let (fid, at, t) = (site.fid, site.at, site.result);
        let rs = self.shape(t);
        if info.rule != Rule::Compare && self.fits(t, typing.result, None) == Some(false) {
            let rs = rs.expect("a type that fits or not is a scalar or vector");
            let what = if typing.result.unsigned() && rs.0 == Kind::Int {
                signed_text(rs)
            } else {
                describe(rs)
            };
            self.error(
                fid,
                at,
                format!(
                    "{} gives %{t}, {what}; it gives {}",
                    site.op,
                    kind_text(typing.result, None, true)
                ),
            );
            return true;
        }
        if info.rule == Rule::SameType {
            return false;
        }
        let result_kind = rs.map(|s| s.0);
        let mut wrong = false;
        for (k, &(v, vt)) in site.typed.iter().enumerate() {
            let want = typing.operand(k);
            if self.fits(vt, want, result_kind) != Some(false) {
                continue;
            }
            let Some(vs) = self.shape(vt) else { continue };
            let what = if want.unsigned() && vs.0 == Kind::Int {
                signed_text(vs)
            } else {
                describe(vs)
            };
            self.error(
                fid,
                at,
                format!(
                    "{} operand %{v} is {what}, not {}",
                    site.op,
                    kind_text(want, result_kind, false)
                ),
            );
            wrong = true;
        }
        wrong
    }

    /// `Rule::SameType`: every value operand has the result type.
    fn same_type_rule(&mut self, site: &RuleSite) {
        let t = site.result;
        for &(v, vt) in &site.typed {
            if !self.compatible(vt, t) {
                // spirv-val lets signedness differ for some ops (GLSL.std.450's SAbs
                // on unsigned values); kind, width and count must agree.
                let message = format!("{} operand %{v} has type %{vt}, the result %{t}", site.op);
                if self.shape(vt).is_some() && self.shape(vt) == self.shape(t) {
                    self.warn(site.fid, site.at, message);
                } else {
                    self.error(site.fid, site.at, message);
                }
            }
        }
    }

    /// `Rule::SameShape`, and `Rule::Shift` (`shift`), whose second operand needs only the
    /// result's component count.
    fn same_shape_rule(&mut self, site: &RuleSite, shift: bool) {
        let Some(rs) = self.shape(site.result) else {
            return;
        };
        for (k, &(v, vt)) in site.typed.iter().enumerate() {
            let Some(vs) = self.shape(vt) else { continue };
            let ok = if shift && k == 1 {
                vs.2 == rs.2
            } else {
                vs.1 == rs.1 && vs.2 == rs.2
            };
            if !ok {
                self.error(
                    site.fid,
                    site.at,
                    format!(
                        "{} operand %{v} is {}; the result is {}",
                        site.op,
                        describe(vs),
                        describe(rs)
                    ),
                );
            }
        }
    }

    /// `Rule::Compare`: a bool result of the operands' count; operands of one shape.
    fn compare_rule(&mut self, site: &RuleSite) {
        let t = site.result;
        let shapes: Vec<(Id, (Kind, u32, u32))> = site
            .typed
            .iter()
            .filter_map(|(v, vt)| Some((*v, self.shape(*vt)?)))
            .collect();
        let Some(&(_, first)) = shapes.first() else {
            return;
        };
        let result_ok = self
            .shape(t)
            .is_some_and(|(k, _, n)| k == Kind::Bool && n == first.2);
        if !result_ok {
            self.error(
                site.fid,
                site.at,
                format!(
                    "{} gives %{t}; it must give {}",
                    site.op,
                    if first.2 == 1 {
                        "a bool".to_string()
                    } else {
                        format!("a vector of {} bools", first.2)
                    }
                ),
            );
        }
        for &(v, vs) in &shapes[1..] {
            if vs.1 != first.1 || vs.2 != first.2 {
                self.error(
                    site.fid,
                    site.at,
                    format!(
                        "{} compares {} with {} (%{v})",
                        site.op,
                        describe(first),
                        describe(vs)
                    ),
                );
            }
        }
    }

    /// `Rule::SameCount`: every operand has the result's component count.
    fn same_count_rule(&mut self, site: &RuleSite) {
        let Some(rs) = self.shape(site.result) else {
            return;
        };
        for &(v, vt) in &site.typed {
            let Some(vs) = self.shape(vt) else { continue };
            if vs.2 != rs.2 {
                self.error(
                    site.fid,
                    site.at,
                    format!(
                        "{} operand %{v} has {} component{}; the result {}",
                        site.op,
                        vs.2,
                        if vs.2 == 1 { "" } else { "s" },
                        rs.2
                    ),
                );
            }
        }
    }

    /// `Rule::Resize`: the result's component count, another width.
    fn resize_rule(&mut self, site: &RuleSite) {
        let Some(rs) = self.shape(site.result) else {
            return;
        };
        for &(v, vt) in &site.typed {
            let Some(vs) = self.shape(vt) else { continue };
            if vs.2 != rs.2 || vs.1 == rs.1 {
                let why = if vs.2 != rs.2 {
                    "the component counts differ"
                } else {
                    "a conversion changes the width"
                };
                self.error(
                    site.fid,
                    site.at,
                    format!(
                        "{} operand %{v} is {}; the result is {}: {why}",
                        site.op,
                        describe(vs),
                        describe(rs)
                    ),
                );
            }
        }
    }

    /// `Rule::Reduce`: a scalar result of vectors of one count and the result's width.
    fn reduce_rule(&mut self, site: &RuleSite) {
        let t = site.result;
        let Some(rs) = self.shape(t) else {
            return;
        };
        if rs.2 != 1 {
            self.error(
                site.fid,
                site.at,
                format!(
                    "{} gives %{t}, {}; it gives a scalar",
                    site.op,
                    describe(rs)
                ),
            );
            return;
        }
        let mut count = None;
        for &(v, vt) in &site.typed {
            let Some(vs) = self.shape(vt) else { continue };
            let problem = if vs.2 == 1 {
                Some("it takes vectors".to_string())
            } else if vs.1 != rs.1 {
                Some(format!("the result is {}", describe(rs)))
            } else if count.is_some_and(|n| n != vs.2) {
                Some("the operands' component counts differ".to_string())
            } else {
                None
            };
            count = Some(vs.2);
            if let Some(problem) = problem {
                self.error(
                    site.fid,
                    site.at,
                    format!("{} operand %{v} is {}; {problem}", site.op, describe(vs)),
                );
            }
        }
    }

    /// `Rule::Select`: a bool condition (a vector one: of the result's count), the other
    /// operands of the result type.
    fn select_rule(&mut self, site: &RuleSite) {
        let t = site.result;
        let Some((&(c, ct), objects)) = site.typed.split_first() else {
            return;
        };
        if let (Some(cs), Some(rs)) = (self.shape(ct), self.shape(t)) {
            if cs.2 != 1 && cs.2 != rs.2 {
                self.error(
                    site.fid,
                    site.at,
                    format!(
                        "{} condition %{c} is {}; the result is {}: a vector condition needs \
                         a vector result of its component count",
                        site.op,
                        describe(cs),
                        describe(rs)
                    ),
                );
            }
        }
        for &(v, vt) in objects {
            if !self.compatible(vt, t) {
                self.error(
                    site.fid,
                    site.at,
                    format!("{} operand %{v} has type %{vt}, the result %{t}", site.op),
                );
            }
        }
    }

    pub(super) fn operand_types(&mut self, f: &Function, i: &Inst, at: Option<Id>) {
        let fid = Some(f.id());
        let ids: smallvec::SmallVec<[Id; 4]> = i.id_operands().collect();
        match i.op {
            Op::Load => {
                if let (Some(t), Some(&p)) = (i.ty, ids.first()) {
                    match self.pointee(p) {
                        Some(pt) if !self.compatible(t, pt) => self.error(
                            fid,
                            at,
                            format!("OpLoad of %{t} through a pointer to %{pt}"),
                        ),
                        None if self.value_type(p).is_some() && !self.is_untyped_pointer(p) => {
                            self.error(fid, at, format!("OpLoad from %{p}, which is not a pointer"))
                        }
                        _ => {}
                    }
                }
            }
            Op::Store => {
                if let (Some(&p), Some(&v)) = (ids.first(), ids.get(1)) {
                    if let (Some(pt), Some(vt)) = (self.pointee(p), self.value_type(v)) {
                        if !self.compatible(vt, pt) {
                            self.error(
                                fid,
                                at,
                                format!("OpStore of a %{vt} value through a pointer to %{pt}"),
                            );
                        }
                    }
                }
            }
            Op::ReturnValue => {
                let ret = f.def.ty;
                if let (Some(&v), Some(r)) = (ids.first(), ret) {
                    if let Some(vt) = self.value_type(v) {
                        if !self.compatible(vt, r) {
                            self.error(
                                fid,
                                at,
                                format!("returns a %{vt} from a function returning %{r}"),
                            );
                        }
                    }
                }
            }
            Op::BranchConditional => {
                if let Some(&c) = ids.first() {
                    if self.value_type(c).is_some() && !self.is_bool(c) {
                        self.error(fid, at, format!("branch condition %{c} is not a bool"));
                    }
                }
            }
            Op::FunctionCall => {
                if let Some(&callee) = ids.first() {
                    if let Some(cf) = self.m.function(callee) {
                        if cf.params.len() != ids.len() - 1 {
                            self.error(
                                fid,
                                at,
                                format!(
                                    "call to %{callee} passes {} arguments; it takes {}",
                                    ids.len() - 1,
                                    cf.params.len()
                                ),
                            );
                        }
                    }
                }
            }
            Op::CompositeExtract | Op::CompositeInsert => self.composite_access(fid, i, at),
            Op::CompositeConstruct => self.composite_construct(fid, i, at),
            Op::VectorShuffle => self.vector_shuffle(fid, i, at),
            Op::MatrixTimesVector
            | Op::VectorTimesMatrix
            | Op::MatrixTimesMatrix
            | Op::MatrixTimesScalar
            | Op::VectorTimesScalar
            | Op::Transpose
            | Op::OuterProduct => self.matrix_op(fid, i, at),
            Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract => {
                self.bit_field(fid, i, at)
            }
            _ => {}
        }
    }

    /// The members of a composite type: their types and how many (`None` for a runtime
    /// array, whose length is not known, or what is not a composite).
    pub(super) fn members(&self, ty: Id) -> Option<(Members, &'static str)> {
        let t = self.type_inst(ty)?;
        Some(match t.op {
            Op::TypeStruct => (Members::List(t.args.to_vec()), "members"),
            Op::TypeVector | Op::TypeMatrix => (
                Members::Repeat(*t.args.first()?, u64::from(t.lit_u32(0)?)),
                "components",
            ),
            Op::TypeArray => {
                let len = self.m.global(*t.args.get(1)?)?;
                if len.op != Op::Constant {
                    return None;
                }
                (
                    Members::Repeat(*t.args.first()?, u64::from(len.lit_u32(0)?)),
                    "elements",
                )
            }
            _ => return None,
        })
    }

    /// `OpCompositeExtract`/`OpCompositeInsert`: the index path stays inside the composite,
    /// and the part it reaches has the type of the result (or of the inserted object).
    pub(super) fn composite_access(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        let name = if i.op == Op::CompositeExtract {
            "OpCompositeExtract"
        } else {
            "OpCompositeInsert"
        };
        let (composite, object) = match i.op {
            Op::CompositeExtract => (i.arg(0), None),
            _ => (i.arg(1), i.arg(0)),
        };
        let Some(mut ty) = composite.and_then(|c| self.value_type(c)) else {
            return;
        };
        let whole = ty;
        for l in i.lits() {
            let Operand::LiteralBit32(k) = l else { return };
            if self
                .type_inst(ty)
                .is_some_and(|t| t.op == Op::TypeRuntimeArray)
            {
                self.error(
                    fid,
                    at,
                    format!("{name} into %{ty}, a runtime array: its length is not known"),
                );
                return;
            }
            let Some((members, what)) = self.members(ty) else {
                // Not a composite the verifier knows (a dialect type, a cooperative matrix).
                if self
                    .type_inst(ty)
                    .is_some_and(|t| matches!(t.op, Op::TypeInt | Op::TypeFloat | Op::TypeBool))
                {
                    self.error(
                        fid,
                        at,
                        format!("{name} index {k} goes into %{ty}, which is not a composite"),
                    );
                }
                return;
            };
            match members.get(u64::from(*k)) {
                Some(m) => ty = m,
                None => {
                    self.error(
                        fid,
                        at,
                        format!(
                            "{name} index {k} is out of %{ty}, which has {} {what}",
                            members.len()
                        ),
                    );
                    return;
                }
            }
        }
        let (want, said) = match i.op {
            Op::CompositeExtract => (i.ty, "gives"),
            _ => (object.and_then(|o| self.value_type(o)), "inserts"),
        };
        if let Some(want) = want {
            if !self.compatible(want, ty) {
                self.error(
                    fid,
                    at,
                    format!("{name} {said} a %{want}; the path reaches a %{ty} of %{whole}"),
                );
            }
        }
        if i.op == Op::CompositeInsert {
            if let Some(t) = i.ty {
                if !self.compatible(t, whole) {
                    self.error(
                        fid,
                        at,
                        format!("{name} gives %{t}; the composite is a %{whole}"),
                    );
                }
            }
        }
    }

    /// `OpCompositeConstruct`: a struct, array or matrix from one value per member of its
    /// type; a vector from scalars and vectors of its component type, as many components as
    /// it has.
    pub(super) fn composite_construct(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        let Some(t) = i.ty else { return };
        let Some(ti) = self.type_inst(t) else { return };
        let parts: Vec<Id> = i.args.to_vec();
        if ti.op == Op::TypeVector {
            let (Some(&comp), Some(n)) = (ti.args.first(), ti.lit_u32(0)) else {
                return;
            };
            let mut total = 0u64;
            for &p in &parts {
                let Some(pt) = self.value_type(p) else { return };
                let Some(pi) = self.type_inst(pt) else { return };
                let (c, k) = if pi.op == Op::TypeVector {
                    (*pi.args.first().unwrap_or(&0), pi.lit_u32(0).unwrap_or(0))
                } else {
                    (pt, 1)
                };
                if !self.compatible(c, comp) {
                    self.error(
                        fid,
                        at,
                        format!("OpCompositeConstruct of %{t}: part %{p} is a %{pt}, not of its component type %{comp}"),
                    );
                    return;
                }
                total += u64::from(k);
            }
            if total != u64::from(n) {
                self.error(
                    fid,
                    at,
                    format!("OpCompositeConstruct of %{t} gives it {total} components; it has {n}"),
                );
            }
            return;
        }
        let Some((members, what)) = self.members(t) else {
            return;
        };
        if members.len() != parts.len() as u64 {
            self.error(
                fid,
                at,
                format!(
                    "OpCompositeConstruct of %{t} has {} parts; it has {} {what}",
                    parts.len(),
                    members.len()
                ),
            );
            return;
        }
        for (k, &p) in parts.iter().enumerate() {
            let Some(m) = members.get(k as u64) else {
                break;
            };
            if let Some(pt) = self.value_type(p) {
                if !self.compatible(pt, m) {
                    self.error(
                        fid,
                        at,
                        format!(
                            "OpCompositeConstruct of %{t}: part %{p} is a %{pt}, where a %{m} goes"
                        ),
                    );
                    return;
                }
            }
        }
    }

    /// `OpVectorShuffle`: two vectors of the result's component type, as many components in
    /// the result as indices, each index one of their components (or 0xFFFFFFFF, undefined).
    pub(super) fn vector_shuffle(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        let vector = |v: &Self, ty: Id| -> Option<(Id, u32)> {
            let t = v.type_inst(ty)?;
            if t.op != Op::TypeVector {
                return None;
            }
            Some((*t.args.first()?, t.lit_u32(0)?))
        };
        let (Some(t), Some(a), Some(b)) = (i.ty, i.arg(0), i.arg(1)) else {
            return;
        };
        let (Some((rc, rn)), Some(at_), Some(bt)) =
            (vector(self, t), self.value_type(a), self.value_type(b))
        else {
            return;
        };
        let (Some((ac, an)), Some((bc, bn))) = (vector(self, at_), vector(self, bt)) else {
            return;
        };
        if !self.compatible(ac, rc) || !self.compatible(bc, rc) {
            self.error(
                fid,
                at,
                format!(
                    "OpVectorShuffle of %{at_} and %{bt} gives %{t}: the component types differ"
                ),
            );
            return;
        }
        if i.lits().len() != rn as usize {
            self.error(
                fid,
                at,
                format!(
                    "OpVectorShuffle gives %{t}, {rn} components, from {} indices",
                    i.lits().len()
                ),
            );
            return;
        }
        for l in i.lits() {
            if let Operand::LiteralBit32(k) = l {
                if *k != u32::MAX && u64::from(*k) >= u64::from(an) + u64::from(bn) {
                    self.error(
                        fid,
                        at,
                        format!(
                            "OpVectorShuffle index {k} is out of the {} components of its vectors",
                            u64::from(an) + u64::from(bn)
                        ),
                    );
                    return;
                }
            }
        }
    }

    /// Matrix arithmetic: the shapes of its operands and result agree (columns and rows, the
    /// component type).
    pub(super) fn matrix_op(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        // (component type, rows, columns) of a float matrix, vector (columns 1) or scalar.
        let shape = |v: &Self, ty: Id| -> Option<(Id, u32, u32)> {
            let t = v.type_inst(ty)?;
            match t.op {
                Op::TypeMatrix => {
                    let col = v.type_inst(*t.args.first()?)?;
                    Some((*col.args.first()?, col.lit_u32(0)?, t.lit_u32(0)?))
                }
                Op::TypeVector => Some((*t.args.first()?, t.lit_u32(0)?, 1)),
                Op::TypeFloat => Some((ty, 1, 1)),
                _ => None,
            }
        };
        let Some(t) = i.ty else { return };
        let ops: Vec<Id> = i.args.to_vec();
        let mut shapes = Vec::new();
        for &o in &ops {
            let Some(s) = self.value_type(o).and_then(|ty| shape(self, ty)) else {
                return;
            };
            shapes.push(s);
        }
        let Some((rc, rr, rcols)) = shape(self, t) else {
            return;
        };
        let name = format!("{:?}", i.op);
        let same_comp = shapes.iter().all(|s| self.compatible(s.0, rc));
        let ok = same_comp
            && match (i.op, shapes.as_slice()) {
                // r x c matrix times c-vector: an r-vector.
                (Op::MatrixTimesVector, [(_, r, c), (_, n, 1)]) => {
                    *c == *n && rr == *r && rcols == 1
                }
                // r-vector times r x c matrix: a c-vector.
                (Op::VectorTimesMatrix, [(_, n, 1), (_, r, c)]) => {
                    *n == *r && rr == *c && rcols == 1
                }
                (Op::MatrixTimesMatrix, [(_, r, c), (_, r2, c2)]) => {
                    *c == *r2 && rr == *r && rcols == *c2
                }
                (Op::MatrixTimesScalar, [(_, r, c), (_, 1, 1)]) => {
                    rr == *r && rcols == *c && *c > 1
                }
                (Op::VectorTimesScalar, [(_, n, 1), (_, 1, 1)]) => rr == *n && rcols == 1 && *n > 1,
                (Op::Transpose, [(_, r, c)]) => rr == *c && rcols == *r,
                (Op::OuterProduct, [(_, r, 1), (_, c, 1)]) => rr == *r && rcols == *c,
                _ => false,
            };
        if !ok {
            let names: Vec<String> = ops
                .iter()
                .map(|o| format!("%{}", self.value_type(*o).unwrap_or(0)))
                .collect();
            self.error(
                fid,
                at,
                format!(
                    "Op{} of {} cannot give %{t}: the shapes do not agree",
                    name,
                    names.join(" and ")
                ),
            );
        }
    }

    /// `OpBitFieldInsert` and the extracts: base (and insert) of the result type; offset and
    /// count scalar integers.
    pub(super) fn bit_field(&mut self, fid: Option<Id>, i: &Inst, at: Option<Id>) {
        let Some(t) = i.ty else { return };
        let values = if i.op == Op::BitFieldInsert { 2 } else { 1 };
        let name = format!("Op{:?}", i.op);
        for (k, &a) in i.args.iter().enumerate() {
            let Some(at_) = self.value_type(a) else {
                continue;
            };
            if k < values {
                if !self.compatible(at_, t) {
                    self.error(
                        fid,
                        at,
                        format!("{name} operand %{a} has type %{at_}, the result %{t}"),
                    );
                    return;
                }
            } else if !matches!(self.shape(at_), Some((Kind::Int | Kind::Bits, _, 1))) {
                self.error(
                    fid,
                    at,
                    format!("{name} offset or count %{a} is a %{at_}, not an integer scalar"),
                );
                return;
            }
        }
    }
}
