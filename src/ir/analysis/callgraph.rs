//! The call graph of a module: who calls whom, in which order to visit functions so callees
//! come before their callers, and which functions are recursive (SPIR-V for shaders forbids
//! recursion, but kernels and invalid input may have it, and passes must not loop on it).

use spirv::Op;

use super::super::fxhash::FxHashMap;
use super::super::inst::Id;
use super::super::module::Module;

#[derive(Debug)]
pub struct CallGraph {
    /// Function ids in module order; indices below refer to this order.
    pub functions: Vec<Id>,
    index: FxHashMap<Id, usize>,
    /// Distinct callees per function, in order of first call.
    pub callees: Vec<Vec<usize>>,
    /// Distinct callers per function.
    pub callers: Vec<Vec<usize>>,
    /// Call sites per function, as callee.
    pub call_sites: Vec<usize>,
    /// Functions in callee-before-caller order (Tarjan's strongly connected components).
    pub bottom_up: Vec<usize>,
    /// Whether a function can reach itself through calls.
    pub recursive: Vec<bool>,
}

impl CallGraph {
    pub fn new(m: &Module) -> Self {
        let functions: Vec<Id> = m.functions().iter().map(|f| f.id()).collect();
        let index: FxHashMap<Id, usize> =
            functions.iter().enumerate().map(|(i, f)| (*f, i)).collect();
        let n = functions.len();
        let mut callees: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut call_sites = vec![0; n];
        for (fi, f) in m.functions().iter().enumerate() {
            for inst in f.body() {
                if inst.op != Op::FunctionCall {
                    continue;
                }
                let Some(&callee) = inst.arg(0).and_then(|c| index.get(&c)) else {
                    continue;
                };
                call_sites[callee] += 1;
                if !callees[fi].contains(&callee) {
                    callees[fi].push(callee);
                    callers[callee].push(fi);
                }
            }
        }
        let (bottom_up, recursive) = sccs(&callees);
        CallGraph {
            functions,
            index,
            callees,
            callers,
            call_sites,
            bottom_up,
            recursive,
        }
    }

    /// The index of function `id`.
    pub fn index(&self, id: Id) -> Option<usize> {
        self.index.get(&id).copied()
    }

    /// Functions reachable by calls from `roots` (the roots included).
    pub fn reachable_from(&self, roots: impl IntoIterator<Item = usize>) -> Vec<bool> {
        let mut seen = vec![false; self.functions.len()];
        let mut work: Vec<usize> = roots.into_iter().collect();
        while let Some(f) = work.pop() {
            if f < seen.len() && !seen[f] {
                seen[f] = true;
                work.extend(self.callees[f].iter().copied());
            }
        }
        seen
    }
}

/// Tarjan's algorithm, iteratively: components come out callees first. A function is recursive
/// when its component has more than one member or it calls itself.
fn sccs(succs: &[Vec<usize>]) -> (Vec<usize>, Vec<bool>) {
    let n = succs.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut order = Vec::with_capacity(n);
    let mut recursive = vec![false; n];
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if let Some(&w) = succs[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let start = stack.iter().rposition(|&x| x == v).expect("on stack");
                let members: Vec<usize> = stack.drain(start..).collect();
                let cyclic = members.len() > 1 || succs[v].contains(&v);
                for &x in &members {
                    on_stack[x] = false;
                    recursive[x] = cyclic;
                }
                order.extend(members);
            }
        }
    }
    (order, recursive)
}
