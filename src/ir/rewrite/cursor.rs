//! `Builder`: the one way passes make instructions. It is a cursor: it inserts at a place in a
//! function and moves on past what it inserts, or it collects what it makes for a block or an
//! `Edits` the pass fills later. What it inserts takes the location and scope in force where it
//! goes (`Function::insert_inst`); what it collects takes the location it was given, or else
//! the one of the instruction it ends up beside or replaces. Declarations (types, constants,
//! imports, globals, decorations) go to the module, interned where an equal one exists.

use rspirv::dr::Operand;
use spirv::{Decoration, Op, StorageClass};

use super::super::func::{Function, InstId};
use super::super::inst::{Id, Inst};
use super::super::loc::Loc;
use super::super::module::Module;
use super::super::typing::Labels;

/// Where a builder puts the code it makes.
enum Target<'m> {
    /// Into `Builder::code` (and a terminator into `Builder::terminator`).
    List,
    /// Into function `f`, block `block`, before position `pos` of its instruction list.
    In {
        f: &'m mut Function,
        block: usize,
        pos: usize,
    },
}

pub struct Builder<'m> {
    pub m: &'m mut Module,
    target: Target<'m>,
    /// The location given to what a collecting builder makes (none: where it is placed).
    loc: Loc,
    /// What a collecting builder made, in order.
    pub code: Vec<Inst>,
    /// The terminator a collecting builder made.
    pub terminator: Option<Inst>,
}

/// The error of a builder: the module has run out of ids.
pub fn out_of_ids() -> String {
    "the module has run out of ids (its bound reached 2^32)".to_string()
}

impl<'m> Builder<'m> {
    /// A builder that collects what it makes in `code`; placed by `Edits`, a new block or a
    /// replacement, it takes the location of where it goes.
    pub fn detached(m: &'m mut Module) -> Self {
        Builder::detached_at(m, Loc::NONE)
    }

    /// A collecting builder whose code has the location `loc` (glue standing for code there).
    pub fn detached_at(m: &'m mut Module, loc: Loc) -> Self {
        Builder {
            m,
            target: Target::List,
            loc,
            code: Vec::new(),
            terminator: None,
        }
    }

    /// A builder that inserts into `f` (taken out of the module, see `Module::with_function`)
    /// at position `pos` of block `block`'s list, moving on past what it inserts.
    pub fn at(m: &'m mut Module, f: &'m mut Function, block: usize, pos: usize) -> Self {
        Builder {
            m,
            target: Target::In { f, block, pos },
            loc: Loc::NONE,
            code: Vec::new(),
            terminator: None,
        }
    }

    /// A builder that appends to block `block` of `f`, before its terminator.
    pub fn at_end(m: &'m mut Module, f: &'m mut Function, block: usize) -> Self {
        let pos = f.block(block).insts.len();
        Builder::at(m, f, block, pos)
    }

    fn emit(&mut self, mut inst: Inst) {
        match &mut self.target {
            Target::List => {
                inst.loc = self.loc;
                self.code.push(inst);
            }
            Target::In { f, block, pos } => {
                f.insert_inst(*block, *pos, inst);
                *pos += 1;
            }
        }
    }

    /// What a collecting builder made, leaving it empty.
    pub fn take(&mut self) -> Vec<Inst> {
        std::mem::take(&mut self.code)
    }

    /// The one instruction a collecting builder made last (for a replacement).
    pub fn take_last(&mut self) -> Option<Inst> {
        self.code.pop()
    }

    pub fn fresh(&mut self) -> Result<Id, String> {
        self.m.fresh_id().ok_or_else(out_of_ids)
    }

    // ---- Code ----

    /// `op` with a result of type `ty` and the given operands; returns the result.
    pub fn op(&mut self, op: Op, ty: Id, operands: Vec<Operand>) -> Result<Id, String> {
        let id = self.fresh()?;
        self.op_as(op, Some(ty), Some(id), operands);
        Ok(id)
    }

    /// `op` whose operands are all ids.
    pub fn ids(&mut self, op: Op, ty: Id, args: &[Id]) -> Result<Id, String> {
        let id = self.fresh()?;
        self.ids_as(op, Some(ty), Some(id), args);
        Ok(id)
    }

    /// `op` with a result the caller chose (a value that keeps its id under new code), or
    /// none.
    fn op_as(&mut self, op: Op, ty: Option<Id>, result: Option<Id>, operands: Vec<Operand>) {
        self.emit(Inst::new(op, ty, result, operands));
    }

    /// `op_as` whose operands are all ids.
    pub fn ids_as(&mut self, op: Op, ty: Option<Id>, result: Option<Id>, args: &[Id]) {
        self.emit(Inst::with_args(op, ty, result, args.to_vec()));
    }

    /// `op` without a result.
    pub fn void(&mut self, op: Op, operands: Vec<Operand>) {
        self.op_as(op, None, None, operands);
    }

    /// A GLSL.std.450 instruction.
    pub fn glsl(&mut self, ty: Id, number: u32, args: &[Id]) -> Result<Id, String> {
        let set = self.m.glsl_import().ok_or_else(out_of_ids)?;
        self.ext(ty, set, number, args)
    }

    /// Instruction `number` of the extended set imported as `set`.
    pub fn ext(&mut self, ty: Id, set: Id, number: u32, args: &[Id]) -> Result<Id, String> {
        let id = self.fresh()?;
        self.ext_as(ty, id, set, number, args);
        Ok(id)
    }

    /// `ext` into a result the caller chose.
    pub fn ext_as(&mut self, ty: Id, result: Id, set: Id, number: u32, args: &[Id]) {
        let mut ops = vec![Operand::IdRef(set), Operand::LiteralExtInstInteger(number)];
        ops.extend(args.iter().map(|a| Operand::IdRef(*a)));
        self.op_as(Op::ExtInst, Some(ty), Some(result), ops);
    }

    pub fn load(&mut self, ty: Id, ptr: Id) -> Result<Id, String> {
        self.ids(Op::Load, ty, &[ptr])
    }

    pub fn store(&mut self, ptr: Id, value: Id) {
        self.ids_as(Op::Store, None, None, &[ptr, value]);
    }

    /// `OpCompositeExtract` at constant indices.
    pub fn extract(&mut self, ty: Id, composite: Id, path: &[u32]) -> Result<Id, String> {
        let id = self.fresh()?;
        self.extract_as(ty, id, composite, path);
        Ok(id)
    }

    /// `extract` into a result the caller chose.
    pub fn extract_as(&mut self, ty: Id, result: Id, composite: Id, path: &[u32]) {
        let mut ops = vec![Operand::IdRef(composite)];
        ops.extend(path.iter().map(|&k| Operand::LiteralBit32(k)));
        self.op_as(Op::CompositeExtract, Some(ty), Some(result), ops);
    }

    /// A function-local `OpVariable` of pointer type `ptr_ty` (to go where a function's
    /// variables go: the top of its entry block).
    pub fn variable(&mut self, ptr_ty: Id, init: Option<Id>) -> Result<Id, String> {
        let mut ops = vec![Operand::StorageClass(StorageClass::Function)];
        ops.extend(init.map(Operand::IdRef));
        self.op(Op::Variable, ptr_ty, ops)
    }

    // ---- Terminators: of the block the builder inserts into, or collected ----

    /// Ends the block with `op` (a terminator) whose operands are all ids. Replacing a
    /// terminator keeps its location.
    pub fn terminate(&mut self, op: Op, args: &[Id]) {
        self.terminate_with(op, args.iter().map(|&a| Operand::IdRef(a)).collect());
    }

    fn terminate_with(&mut self, op: Op, operands: Vec<Operand>) {
        let mut inst = Inst::new(op, None, None, operands);
        match &mut self.target {
            Target::List => {
                inst.loc = self.loc;
                self.terminator = Some(inst);
            }
            Target::In { f, block, .. } => {
                f.set_terminator(*block, inst);
            }
        }
    }

    pub fn branch(&mut self, target: Id) {
        self.terminate(Op::Branch, &[target]);
    }

    pub fn branch_cond(&mut self, cond: Id, yes: Id, no: Id) {
        self.terminate(Op::BranchConditional, &[cond, yes, no]);
    }

    /// `OpReturn`, or `OpReturnValue` of `value`.
    pub fn ret(&mut self, value: Option<Id>) {
        match value {
            Some(v) => self.terminate(Op::ReturnValue, &[v]),
            None => self.terminate(Op::Return, &[]),
        }
    }

    /// The terminator a collecting builder made (a branch nowhere is a bug of the pass).
    pub fn take_terminator(&mut self) -> Inst {
        self.terminator
            .take()
            .expect("a collecting builder ends its block before it is taken")
    }

    // ---- Declarations ----

    pub fn intern(&mut self, op: Op, ty: Option<Id>, operands: Vec<Operand>) -> Result<Id, String> {
        self.m
            .intern(Inst::new(op, ty, None, operands))
            .ok_or_else(out_of_ids)
    }

    /// `intern` whose operands are all ids.
    pub fn intern_ids(&mut self, op: Op, ty: Option<Id>, args: &[Id]) -> Result<Id, String> {
        self.m
            .intern(Inst::with_args(op, ty, None, args.to_vec()))
            .ok_or_else(out_of_ids)
    }

    /// A module-level instruction that is not interned (a global variable, a spec constant):
    /// returns its result.
    pub fn global(&mut self, op: Op, ty: Id, operands: Vec<Operand>) -> Result<Id, String> {
        let id = self.fresh()?;
        self.global_as(op, Some(ty), id, operands);
        Ok(id)
    }

    /// `global` with a result the caller chose.
    pub fn global_as(&mut self, op: Op, ty: Option<Id>, result: Id, operands: Vec<Operand>) {
        self.m
            .push_global(Inst::new(op, ty, Some(result), operands));
    }

    /// Decorates `target` with `decoration` and its literal or enum operands.
    pub fn decorate(&mut self, target: Id, decoration: Decoration, operands: Vec<Operand>) {
        let mut ops = vec![Operand::IdRef(target), Operand::Decoration(decoration)];
        ops.extend(operands);
        self.m
            .annotations_mut()
            .push(Inst::new(Op::Decorate, None, None, ops));
    }

    /// `decorate` unless the same decoration is there already.
    pub fn decorate_once(&mut self, target: Id, decoration: Decoration, operands: Vec<Operand>) {
        let mut ops = vec![Operand::IdRef(target), Operand::Decoration(decoration)];
        ops.extend(operands);
        let inst = Inst::new(Op::Decorate, None, None, ops);
        if !self.m.annotations().contains(&inst) {
            self.m.annotations_mut().push(inst);
        }
    }

    /// Decorates member `member` of struct type `target`.
    pub fn member_decorate(
        &mut self,
        target: Id,
        member: u32,
        decoration: Decoration,
        operands: Vec<Operand>,
    ) {
        let mut ops = vec![
            Operand::IdRef(target),
            Operand::LiteralBit32(member),
            Operand::Decoration(decoration),
        ];
        ops.extend(operands);
        self.annotate(Op::MemberDecorate, ops);
    }

    /// A new function (not yet in the module, without blocks) returning `ret` and taking
    /// parameters of types `params`.
    pub fn function(&mut self, ret: Id, params: &[Id]) -> Result<Function, String> {
        let fn_ty = self.fn_type(ret, params)?;
        let id = self.fresh()?;
        let def = Inst::new(
            Op::Function,
            Some(ret),
            Some(id),
            vec![
                Operand::FunctionControl(spirv::FunctionControl::NONE),
                Operand::IdRef(fn_ty),
            ],
        );
        let mut param_insts = Vec::with_capacity(params.len());
        for &p in params {
            let pid = self.fresh()?;
            param_insts.push(Inst::new(Op::FunctionParameter, Some(p), Some(pid), vec![]));
        }
        Ok(Function::new(def, param_insts))
    }

    /// An annotation or other module-level instruction without a result, by its operands.
    fn annotate(&mut self, op: Op, operands: Vec<Operand>) {
        self.m
            .annotations_mut()
            .push(Inst::new(op, None, None, operands));
    }

    pub fn u32_t(&mut self) -> Result<Id, String> {
        self.m.numeric_type(Labels::U, 32, 1).ok_or_else(out_of_ids)
    }

    pub fn i32_t(&mut self) -> Result<Id, String> {
        self.m.numeric_type(Labels::S, 32, 1).ok_or_else(out_of_ids)
    }

    pub fn f32_t(&mut self) -> Result<Id, String> {
        self.m.numeric_type(Labels::F, 32, 1).ok_or_else(out_of_ids)
    }

    pub fn bool_t(&mut self) -> Result<Id, String> {
        self.intern(Op::TypeBool, None, vec![])
    }

    pub fn vec(&mut self, of: Id, n: u32) -> Result<Id, String> {
        self.m.vector_of(of, n).ok_or_else(out_of_ids)
    }

    pub fn ptr(&mut self, class: StorageClass, to: Id) -> Result<Id, String> {
        self.m.pointer_to(class, to).ok_or_else(out_of_ids)
    }

    /// `OpTypeFunction` returning `ret` and taking `params`.
    pub fn fn_type(&mut self, ret: Id, params: &[Id]) -> Result<Id, String> {
        let mut args = vec![ret];
        args.extend_from_slice(params);
        self.intern_ids(Op::TypeFunction, None, &args)
    }

    /// A 32-bit unsigned constant.
    pub fn cu(&mut self, v: u32) -> Result<Id, String> {
        let t = self.u32_t()?;
        self.intern(Op::Constant, Some(t), vec![Operand::LiteralBit32(v)])
    }

    /// A 32-bit signed constant.
    pub fn ci(&mut self, v: i32) -> Result<Id, String> {
        let t = self.i32_t()?;
        self.intern(Op::Constant, Some(t), vec![Operand::LiteralBit32(v as u32)])
    }

    /// A 32-bit float constant.
    pub fn cf(&mut self, v: f32) -> Result<Id, String> {
        let t = self.f32_t()?;
        self.intern(
            Op::Constant,
            Some(t),
            vec![Operand::LiteralBit32(v.to_bits())],
        )
    }

    /// `true` or `false`.
    pub fn cbool(&mut self, v: bool) -> Result<Id, String> {
        let t = self.bool_t()?;
        let op = if v {
            Op::ConstantTrue
        } else {
            Op::ConstantFalse
        };
        self.intern(op, Some(t), vec![])
    }

    /// A scalar constant of type `ty` from its literal word(s).
    pub fn constant(&mut self, ty: Id, word: Operand) -> Result<Id, String> {
        self.intern(Op::Constant, Some(ty), vec![word])
    }

    /// `OpConstantComposite` of type `ty`.
    pub fn composite(&mut self, ty: Id, parts: &[Id]) -> Result<Id, String> {
        self.intern_ids(Op::ConstantComposite, Some(ty), parts)
    }

    /// `OpUndef` of a type (module-level).
    pub fn undef(&mut self, ty: Id) -> Result<Id, String> {
        self.m.undef(ty).ok_or_else(out_of_ids)
    }
}

/// Rewrites instruction `i` of `f` in place into `op` of type `ty` with `operands`: it keeps
/// its result (so its uses), its place and its location.
pub fn rewrite_inst(f: &mut Function, i: InstId, op: Op, ty: Option<Id>, operands: Vec<Operand>) {
    let result = f.inst(i).result;
    f.replace_inst(i, Inst::new(op, ty, result, operands));
}
