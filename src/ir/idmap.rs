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
    pub fn of(m: &Module) -> Self {
        IdSpan {
            limit: m.id_limit(),
            insts: m.inst_count(),
        }
    }
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
        let is_dense = limit <= 8 * insts + 4096;
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
