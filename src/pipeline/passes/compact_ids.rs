//! `compact-ids`: renumbers ids densely, 1…N, in order of definition in the binary, and lowers
//! the bound to N+1. It changes no instruction other than the ids it names, and records each
//! renumbering as a replacement (`old → new`), so a value's history follows it.

use std::collections::HashMap;

use crate::ir::module::Replacement;
use crate::ir::rewrite;
use crate::ir::{Id, Module};
use crate::pipeline::pass::{Changed, Pass, PassCx, PassError};

pub struct CompactIds;

pub fn compact_ids(m: &mut Module) -> bool {
    let mut map: HashMap<Id, Id> = HashMap::new();
    let mut next = 1;
    let mut define = |id: Id, map: &mut HashMap<Id, Id>| {
        map.entry(id).or_insert_with(|| {
            let n = next;
            next += 1;
            n
        });
    };
    m.for_each_inst(|i| {
        if let Some(r) = i.result() {
            define(r, &mut map);
        }
    });
    // Ids used but never defined (only in invalid modules) still get distinct numbers.
    m.for_each_inst(|i| {
        for u in i.uses() {
            define(u, &mut map);
        }
    });
    let changed = map.iter().any(|(a, b)| a != b) || m.bound != next;
    if !changed {
        return false;
    }
    rewrite::remap_ids(m, |id: Id| map.get(&id).copied().unwrap_or(id));
    m.bound = next;
    let mut renamed: Vec<(Id, Id)> = map.into_iter().filter(|(a, b)| a != b).collect();
    renamed.sort_unstable();
    m.replacements
        .extend(renamed.into_iter().map(|(old, new)| Replacement {
            old,
            new,
            function: None,
            pass: "compact-ids",
        }));
    for f in rewrite::functions_mut(m) {
        f.compact();
    }
    true
}

impl Pass for CompactIds {
    fn name(&self) -> &'static str {
        "compact-ids"
    }
    fn description(&self) -> &'static str {
        "renumber ids densely in definition order and shrink the id bound"
    }
    fn run(&self, module: &mut Module, _cx: &mut PassCx) -> Result<Changed, PassError> {
        Ok(compact_ids(module).into())
    }
}
