//! A table keyed by id: a vector when the module's ids are dense (the usual case, and the
//! fast one), a hash map when they are sparse — SPIR-V allows ids up to four billion in a
//! module of ten instructions, and a table must not allocate for all of them.

use std::collections::HashMap;

use super::inst::Id;
use super::module::Module;

/// How far a module's ids reach, against its size: what decides a table's representation.
#[derive(Clone, Copy, Debug)]
pub struct IdSpan {
    /// One past the largest id defined or used.
    pub limit: usize,
    pub insts: usize,
}

impl IdSpan {
    /// The module's bound when it is dense enough for a vector (it is above every id a valid
    /// module uses, and a table grows for the few marker ids past it), so that no walk of the
    /// module is needed; else one past its largest id, read from every instruction.
    pub fn of(m: &Module) -> Self {
        let insts = m.inst_count();
        let bound = m.bound as usize;
        let limit = if dense(bound, insts) {
            bound
        } else {
            m.id_limit()
        };
        IdSpan { limit, insts }
    }
}

/// Whether ids up to `limit` are dense enough in a module of `insts` instructions for a
/// vector indexed by id.
fn dense(limit: usize, insts: usize) -> bool {
    limit <= 8 * insts + 4096
}

pub struct IdMap<T: Clone> {
    dense: Vec<T>,
    sparse: HashMap<Id, T>,
    is_dense: bool,
    default: T,
}

impl<T: Clone> IdMap<T> {
    pub fn new(m: &Module, default: T) -> Self {
        Self::sized(IdSpan::of(m), default)
    }

    /// A table for a module whose ids span `span` (several tables of one module measure it
    /// once: it reads every instruction).
    pub fn sized(span: IdSpan, default: T) -> Self {
        let IdSpan { limit, insts } = span;
        let is_dense = dense(limit, insts);
        IdMap {
            dense: if is_dense {
                vec![default.clone(); limit]
            } else {
                Vec::new()
            },
            sparse: HashMap::new(),
            is_dense,
            default,
        }
    }

    pub fn get(&self, id: Id) -> &T {
        if self.is_dense {
            self.dense.get(id as usize).unwrap_or(&self.default)
        } else {
            self.sparse.get(&id).unwrap_or(&self.default)
        }
    }

    pub fn get_mut(&mut self, id: Id) -> &mut T {
        if self.is_dense {
            if id as usize >= self.dense.len() {
                self.dense.resize(id as usize + 1, self.default.clone());
            }
            &mut self.dense[id as usize]
        } else {
            self.sparse
                .entry(id)
                .or_insert_with(|| self.default.clone())
        }
    }
}
