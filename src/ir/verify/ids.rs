//! Rule families 1 and 8 at module level: every id defined once and below the bound, every
//! id used defined, result types that name types; the capabilities, extensions and version
//! the module's own declarations need.

use super::*;

/// A use of an id not defined yet where the walk meets it: checked once every definition is.
struct ForwardUse {
    /// The instruction's place in the walk and the use's among its ids.
    place: (usize, usize),
    id: Id,
    /// Whether it is the result type.
    is_type: bool,
    op: Op,
    at: Option<Id>,
}

impl<'m> Verifier<'m> {
    pub(super) fn ids(&mut self) {
        let m = self.m;
        let bound = m.bound;
        for g in m.globals() {
            let dialect_type = g.op == Op::ExtInst
                && ops::for_inst(g, &self.sets).is_some_and(|o| o.class == OpClass::Type);
            if inst::is_type(g.op) || dialect_type {
                if let Some(r) = g.result {
                    *self.types.get_mut(r) = Some(g);
                }
            }
        }
        let mut errors = Vec::new();
        // One walk (it makes the location markers afresh): a use of what is defined already
        // is checked at once, a forward one (names, decorations, phis) once every definition
        // is known. Errors of uses keep the walk's order.
        let mut use_errors: Vec<((usize, usize), VerifyError)> = Vec::new();
        let mut forward: Vec<ForwardUse> = Vec::new();
        let (defined, value_type, types) = (&mut self.defined, &mut self.value_type, &self.types);
        let use_error = |id: Id, is_type: bool, op: Op, at: Option<Id>, defined: bool| {
            let message = if !defined {
                format!("Op{} uses %{id}, which is never defined", op_name(op))
            } else if is_type && types.get(id).is_none() {
                format!(
                    "Op{} has result type %{id}, which is not a type",
                    op_name(op)
                )
            } else {
                return None;
            };
            Some(VerifyError {
                level: Level::Error,
                function: None,
                at,
                message,
                place: None,
            })
        };
        let mut seq = 0usize;
        m.for_each_inst(|i| {
            seq += 1;
            for (k, id) in i.uses().enumerate() {
                let is_type = k == 0 && i.ty.is_some();
                if *defined.get(id) {
                    if let Some(e) = use_error(id, is_type, i.op, i.result, true) {
                        use_errors.push(((seq, k), e));
                    }
                } else {
                    forward.push(ForwardUse {
                        place: (seq, k),
                        id,
                        is_type,
                        op: i.op,
                        at: i.result,
                    });
                }
            }
            let Some(id) = i.result else { return };
            if id >= bound {
                errors.push(VerifyError {
                    level: Level::Error,
                    function: None,
                    at: Some(id),
                    message: format!("%{id} is not below the bound {bound}"),
                    place: None,
                });
            }
            let d = defined.get_mut(id);
            if *d {
                errors.push(VerifyError {
                    level: Level::Error,
                    function: None,
                    at: Some(id),
                    message: format!("%{id} is defined more than once"),
                    place: None,
                });
            } else {
                *d = true;
                if let Some(t) = i.ty {
                    *value_type.get_mut(id) = t;
                }
            }
        });
        for u in forward {
            if let Some(e) = use_error(u.id, u.is_type, u.op, u.at, *defined.get(u.id)) {
                use_errors.push((u.place, e));
            }
        }
        use_errors.sort_by_key(|(place, _)| *place);
        errors.extend(use_errors.into_iter().map(|(_, e)| e));
        self.errors.extend(errors);
    }

    /// The table checks of every instruction outside function bodies.
    pub(super) fn module_level(&mut self) {
        let m = self.m;
        let sections = [
            &m.preamble,
            &m.entry_points,
            &m.execution_modes,
            &m.debug,
            m.annotations(),
            m.globals(),
            &m.trailing_debug,
        ];
        for i in sections.into_iter().flatten() {
            self.check_inst(None, i, i.result);
        }
        for f in m.functions() {
            let headers = f
                .leading_debug
                .iter()
                .chain(std::iter::once(&f.def))
                .chain(&f.params)
                .chain(&f.prologue_debug)
                .chain(&f.epilogue_debug);
            for i in headers {
                self.check_inst(Some(f), i, i.result);
            }
        }
    }
}
