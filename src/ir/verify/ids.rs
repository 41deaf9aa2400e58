//! Rule families 1 and 8 at module level: every id defined once and below the bound, every
//! id used defined, result types that name types; the capabilities, extensions and version
//! the module's own declarations need.

use super::*;

impl<'m> Verifier<'m> {
    pub(super) fn ids(&mut self) {
        let m = self.m;
        let bound = m.bound;
        let mut errors = Vec::new();
        let (defined, value_type) = (&mut self.defined, &mut self.value_type);
        m.for_each_inst(|i| {
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
        for g in m.globals() {
            let dialect_type = g.op == Op::ExtInst
                && ops::for_inst(g, &self.sets).is_some_and(|o| o.class == OpClass::Type);
            if inst::is_type(g.op) || dialect_type {
                if let Some(r) = g.result {
                    *self.types.get_mut(r) = Some(g);
                }
            }
        }
        let (defined, types) = (&self.defined, &self.types);
        m.for_each_inst(|i| {
            for (k, id) in i.uses().enumerate() {
                let is_type = k == 0 && i.ty.is_some();
                if !*defined.get(id) {
                    errors.push(VerifyError {
                        level: Level::Error,
                        function: None,
                        at: i.result,
                        message: format!("Op{} uses %{id}, which is never defined", op_name(i.op)),
                        place: None,
                    });
                } else if is_type && types.get(id).is_none() {
                    errors.push(VerifyError {
                        level: Level::Error,
                        function: None,
                        at: i.result,
                        message: format!(
                            "Op{} has result type %{id}, which is not a type",
                            op_name(i.op)
                        ),
                        place: None,
                    });
                }
            }
        });
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
