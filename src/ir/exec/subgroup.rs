//! Subgroup operations of a compute dispatch. A workgroup's invocations, in local index
//! order, are cut into subgroups of `Options::subgroup_size` (the driver's; lavapipe's is its
//! SIMD width). Each invocation runs until it reaches a subgroup operation; when no invocation
//! of the workgroup can run further, each subgroup executes one of the operations its
//! invocations wait at.
//!
//! Which invocations are active together (the reconvergence rule): those of one subgroup that
//! wait at the same instruction of the same call, in the same iteration of each loop around
//! it (loops are entered at their header and left at their merge block). Where a subgroup's
//! invocations wait at different places, the one earliest in the function's block order goes
//! first (then earlier iterations, then the earlier instruction): invocations that skipped a
//! loop's body or an `if`'s arm wait at the merge while the others finish it, which is what a
//! SIMD machine with execution masks, as lavapipe is, does with structured control flow.

use spirv::{GroupOperation, Op};

use super::super::consts::Const;
use super::super::ops::fold::Value as Scalar;
use super::{floats2, Invocation, Machine, State, Value};

/// Whether `op` is an operation across a subgroup.
pub(super) fn is_subgroup_op(op: Op) -> bool {
    matches!(
        op,
        Op::GroupNonUniformElect
            | Op::GroupNonUniformAll
            | Op::GroupNonUniformAny
            | Op::GroupNonUniformAllEqual
            | Op::GroupNonUniformBroadcast
            | Op::GroupNonUniformBroadcastFirst
            | Op::GroupNonUniformBallot
            | Op::GroupNonUniformInverseBallot
            | Op::GroupNonUniformBallotBitExtract
            | Op::GroupNonUniformBallotBitCount
            | Op::GroupNonUniformBallotFindLSB
            | Op::GroupNonUniformBallotFindMSB
            | Op::GroupNonUniformShuffle
            | Op::GroupNonUniformShuffleXor
            | Op::GroupNonUniformShuffleUp
            | Op::GroupNonUniformShuffleDown
            | Op::GroupNonUniformQuadBroadcast
            | Op::GroupNonUniformQuadSwap
            | Op::SubgroupBallotKHR
            | Op::SubgroupFirstInvocationKHR
            | Op::SubgroupAllKHR
            | Op::SubgroupAnyKHR
            | Op::SubgroupAllEqualKHR
            | Op::SubgroupReadInvocationKHR
    ) || arithmetic(op).is_some()
}

/// The op table's binary op a subgroup reduction or scan applies, and whether it is a
/// minimum or maximum (kept by comparison) rather than arithmetic.
fn arithmetic(op: Op) -> Option<(Op, bool)> {
    Some(match op {
        Op::GroupNonUniformIAdd | Op::GroupIAddNonUniformAMD => (Op::IAdd, false),
        Op::GroupNonUniformFAdd | Op::GroupFAddNonUniformAMD => (Op::FAdd, false),
        Op::GroupNonUniformIMul => (Op::IMul, false),
        Op::GroupNonUniformFMul => (Op::FMul, false),
        Op::GroupNonUniformSMin | Op::GroupSMinNonUniformAMD => (Op::SLessThan, true),
        Op::GroupNonUniformUMin | Op::GroupUMinNonUniformAMD => (Op::ULessThan, true),
        Op::GroupNonUniformFMin | Op::GroupFMinNonUniformAMD => (Op::FOrdLessThan, true),
        Op::GroupNonUniformSMax | Op::GroupSMaxNonUniformAMD => (Op::SGreaterThan, true),
        Op::GroupNonUniformUMax | Op::GroupUMaxNonUniformAMD => (Op::UGreaterThan, true),
        Op::GroupNonUniformFMax | Op::GroupFMaxNonUniformAMD => (Op::FOrdGreaterThan, true),
        Op::GroupNonUniformBitwiseAnd => (Op::BitwiseAnd, false),
        Op::GroupNonUniformBitwiseOr => (Op::BitwiseOr, false),
        Op::GroupNonUniformBitwiseXor => (Op::BitwiseXor, false),
        Op::GroupNonUniformLogicalAnd => (Op::LogicalAnd, false),
        Op::GroupNonUniformLogicalOr => (Op::LogicalOr, false),
        Op::GroupNonUniformLogicalXor => (Op::LogicalNotEqual, false),
        _ => return None,
    })
}

fn uint(v: u64) -> Const {
    Const::Scalar(Scalar::Int { bits: v, width: 32 })
}

fn boolean(b: bool) -> Value {
    Value::Const(Const::Scalar(Scalar::Bool(b)))
}

/// A ballot: the bits of `lanes` as a `uvec4`.
fn ballot(lanes: impl Iterator<Item = u32>) -> Value {
    let mut words = [0u64; 4];
    for l in lanes.filter(|&l| l < 128) {
        words[(l / 32) as usize] |= 1 << (l % 32);
    }
    Value::Const(Const::Composite(words.iter().map(|&w| uint(w)).collect()))
}

/// The lanes set in a ballot `uvec4`.
fn ballot_bits(v: &Value) -> Option<u128> {
    let Value::Const(Const::Composite(words)) = v else {
        return None;
    };
    let mut bits = 0u128;
    for (k, w) in words.iter().enumerate().take(4) {
        bits |= u128::from(w.as_int_bits()?.0 as u32) << (32 * k);
    }
    Some(bits)
}

/// Where an invocation waits, in the order groups go: block, iterations of the loops around
/// it, instruction, then the call (its function and depth) to keep groups of different calls
/// apart.
type Place = (usize, Vec<u32>, usize, usize, usize);

impl Machine<'_> {
    fn waiting_at(&self, inv: &Invocation) -> Option<Place> {
        let fr = inv.frames.last()?;
        let iterations = fr.loops.iter().map(|l| l.2).collect();
        Some((fr.block, iterations, fr.ip, fr.func, inv.frames.len()))
    }

    /// Runs one subgroup operation in each subgroup some of whose invocations wait at one.
    pub(super) fn subgroups(&mut self, invs: &mut [Invocation]) {
        let size = self.options.subgroup_size.max(1) as usize;
        for start in (0..invs.len()).step_by(size) {
            let end = (start + size).min(invs.len());
            let first = (start..end)
                .filter(|&k| invs[k].state == State::AtSubgroup)
                .filter_map(|k| self.waiting_at(&invs[k]))
                .min();
            let Some(place) = first else {
                continue;
            };
            let active: Vec<usize> = (start..end)
                .filter(|&k| {
                    invs[k].state == State::AtSubgroup
                        && self.waiting_at(&invs[k]).as_ref() == Some(&place)
                })
                .collect();
            self.subgroup_op(invs, start, &active);
        }
    }

    /// One subgroup operation, for the `active` invocations (indices into `invs`) of the
    /// subgroup starting at `start`.
    fn subgroup_op(&mut self, invs: &mut [Invocation], start: usize, active: &[usize]) {
        let Some((f, at)) = self.current(&invs[active[0]]) else {
            return;
        };
        let inst = f.inst(at);
        let op = inst.op();
        // The GroupNonUniform ops (and AMD's) take a scope first; the KHR ones do not.
        let skip = usize::from(!matches!(
            op,
            Op::SubgroupBallotKHR
                | Op::SubgroupFirstInvocationKHR
                | Op::SubgroupAllKHR
                | Op::SubgroupAnyKHR
                | Op::SubgroupAllEqualKHR
                | Op::SubgroupReadInvocationKHR
        ));
        let lane = |k: usize| (k - start) as u32;
        let operand = |s: &Self, k: usize, j: usize| -> Value {
            inst.args()
                .get(skip + j)
                .map_or(Value::Undef, |&a| s.value(&invs[k], a))
        };
        let lanes: Vec<u32> = active.iter().map(|&k| lane(k)).collect();
        let by_lane = |s: &Self, l: u32, j: usize| -> Value {
            if lanes.contains(&l) {
                operand(s, start + l as usize, j)
            } else {
                // An inactive (or absent) invocation's value is undefined.
                Value::Undef
            }
        };
        let index = |v: &Value| match v {
            Value::Const(c) => c.as_int_bits().map(|(b, _)| b as u32),
            _ => None,
        };
        let truth = |v: &Value| match v {
            Value::Const(c) => c.as_bool(),
            _ => None,
        };
        let lowest = lanes[0];
        let mut results = Vec::with_capacity(active.len());
        for &k in active {
            let me = lane(k);
            let v = match op {
                Op::GroupNonUniformElect => boolean(me == lowest),
                Op::GroupNonUniformAll | Op::SubgroupAllKHR => {
                    let all: Option<Vec<bool>> =
                        lanes.iter().map(|&l| truth(&by_lane(self, l, 0))).collect();
                    all.map_or(Value::Undef, |a| boolean(a.iter().all(|&b| b)))
                }
                Op::GroupNonUniformAny | Op::SubgroupAnyKHR => {
                    let all: Option<Vec<bool>> =
                        lanes.iter().map(|&l| truth(&by_lane(self, l, 0))).collect();
                    all.map_or(Value::Undef, |a| boolean(a.iter().any(|&b| b)))
                }
                Op::GroupNonUniformAllEqual | Op::SubgroupAllEqualKHR => {
                    let vs: Vec<Value> = lanes.iter().map(|&l| by_lane(self, l, 0)).collect();
                    if vs.iter().any(|v| !matches!(v, Value::Const(_))) {
                        Value::Undef
                    } else {
                        boolean(vs.windows(2).all(|w| w[0] == w[1]))
                    }
                }
                Op::GroupNonUniformBroadcastFirst | Op::SubgroupFirstInvocationKHR => {
                    by_lane(self, lowest, 0)
                }
                Op::GroupNonUniformBroadcast | Op::SubgroupReadInvocationKHR => {
                    match index(&operand(self, k, 1)) {
                        Some(l) => by_lane(self, l, 0),
                        None => Value::Undef,
                    }
                }
                Op::GroupNonUniformShuffle => match index(&operand(self, k, 1)) {
                    Some(l) => by_lane(self, l, 0),
                    None => Value::Undef,
                },
                Op::GroupNonUniformShuffleXor => match index(&operand(self, k, 1)) {
                    Some(m) => by_lane(self, me ^ m, 0),
                    None => Value::Undef,
                },
                Op::GroupNonUniformShuffleUp => match index(&operand(self, k, 1)) {
                    Some(d) if d <= me => by_lane(self, me - d, 0),
                    _ => Value::Undef,
                },
                Op::GroupNonUniformShuffleDown => match index(&operand(self, k, 1)) {
                    Some(d) => by_lane(self, me.saturating_add(d), 0),
                    None => Value::Undef,
                },
                Op::GroupNonUniformQuadBroadcast => match index(&operand(self, k, 1)) {
                    Some(q) => by_lane(self, me / 4 * 4 + q, 0),
                    None => Value::Undef,
                },
                Op::GroupNonUniformQuadSwap => match index(&operand(self, k, 1)) {
                    // 0 swaps horizontally, 1 vertically, 2 diagonally.
                    Some(d) if d <= 2 => by_lane(self, me ^ (d + 1), 0),
                    _ => Value::Undef,
                },
                Op::GroupNonUniformBallot | Op::SubgroupBallotKHR => {
                    let set: Option<Vec<bool>> =
                        lanes.iter().map(|&l| truth(&by_lane(self, l, 0))).collect();
                    match set {
                        Some(set) => ballot(lanes.iter().zip(set).filter(|p| p.1).map(|p| *p.0)),
                        None => Value::Undef,
                    }
                }
                Op::GroupNonUniformInverseBallot => match ballot_bits(&operand(self, k, 0)) {
                    Some(bits) => boolean(bits >> me & 1 == 1),
                    None => Value::Undef,
                },
                Op::GroupNonUniformBallotBitExtract => {
                    match (
                        ballot_bits(&operand(self, k, 0)),
                        index(&operand(self, k, 1)),
                    ) {
                        (Some(bits), Some(i)) if i < 128 => boolean(bits >> i & 1 == 1),
                        _ => Value::Undef,
                    }
                }
                Op::GroupNonUniformBallotBitCount => {
                    // The group operation is a literal; the ballot the only id after scope.
                    let bits = ballot_bits(&operand(self, k, 0));
                    let below = |n: u32| {
                        if n >= 128 {
                            u128::MAX
                        } else {
                            (1u128 << n) - 1
                        }
                    };
                    let size = self.options.subgroup_size;
                    let within = below(size);
                    match (bits, group_operation(inst)) {
                        (Some(b), Some(GroupOperation::Reduce)) => {
                            Value::Const(uint(u64::from((b & within).count_ones())))
                        }
                        (Some(b), Some(GroupOperation::InclusiveScan)) => {
                            Value::Const(uint(u64::from((b & below(me + 1)).count_ones())))
                        }
                        (Some(b), Some(GroupOperation::ExclusiveScan)) => {
                            Value::Const(uint(u64::from((b & below(me)).count_ones())))
                        }
                        _ => Value::Undef,
                    }
                }
                Op::GroupNonUniformBallotFindLSB | Op::GroupNonUniformBallotFindMSB => {
                    match ballot_bits(&operand(self, k, 0)) {
                        Some(0) | None => Value::Undef,
                        Some(b) if op == Op::GroupNonUniformBallotFindLSB => {
                            Value::Const(uint(u64::from(b.trailing_zeros())))
                        }
                        Some(b) => Value::Const(uint(u64::from(127 - b.leading_zeros()))),
                    }
                }
                _ => self.reduce(inst, &lanes, me, &by_lane),
            };
            results.push((k, v));
        }
        for (k, v) in results {
            self.resume(&mut invs[k], inst, v);
        }
    }

    /// A reduction or scan (`GroupOperation`) over the active lanes, in lane order.
    fn reduce(
        &self,
        inst: &super::super::inst::Inst,
        lanes: &[u32],
        me: u32,
        by_lane: &dyn Fn(&Self, u32, usize) -> Value,
    ) -> Value {
        let Some((op, keeps)) = arithmetic(inst.op()) else {
            return Value::Undef;
        };
        let cluster = match group_operation(inst) {
            Some(GroupOperation::ClusteredReduce) => {
                let size = inst
                    .args()
                    .get(2)
                    .and_then(|&c| self.consts.of(c))
                    .and_then(Const::as_int_bits)
                    .map(|(b, _)| b as u32);
                match size {
                    Some(s) if s > 0 => Some(s),
                    _ => return Value::Undef,
                }
            }
            _ => None,
        };
        let take: Vec<u32> = match (group_operation(inst), cluster) {
            (Some(GroupOperation::Reduce), _) => lanes.to_vec(),
            (Some(GroupOperation::ClusteredReduce), Some(s)) => {
                lanes.iter().copied().filter(|&l| l / s == me / s).collect()
            }
            (Some(GroupOperation::InclusiveScan), _) => {
                lanes.iter().copied().filter(|&l| l <= me).collect()
            }
            (Some(GroupOperation::ExclusiveScan), _) => {
                lanes.iter().copied().filter(|&l| l < me).collect()
            }
            _ => return Value::Undef,
        };
        let mut acc: Option<Const> = None;
        for l in take {
            let Value::Const(c) = by_lane(self, l, 0) else {
                return Value::Undef;
            };
            acc = Some(match acc {
                None => c,
                Some(a) if keeps => match floats2(op, &c, &a).and_then(|b| keep(&b, &c, &a)) {
                    Some(v) => v,
                    None => return Value::Undef,
                },
                Some(a) => match floats2(op, &a, &c) {
                    Some(v) => v,
                    None => return Value::Undef,
                },
            });
        }
        match acc {
            Some(c) => Value::Const(c),
            // An exclusive scan's first lane gets the operation's identity.
            None => identity(inst, by_lane(self, me, 0)),
        }
    }
}

/// Component by component, `c` where `chose` holds, else `a` (a minimum's or maximum's pick).
fn keep(chose: &Const, c: &Const, a: &Const) -> Option<Const> {
    match (chose, c, a) {
        (Const::Scalar(Scalar::Bool(b)), _, _) => Some(if *b { c.clone() } else { a.clone() }),
        (Const::Composite(bs), Const::Composite(cs), Const::Composite(as_)) => bs
            .iter()
            .zip(cs)
            .zip(as_)
            .map(|((b, c), a)| keep(b, c, a))
            .collect::<Option<Vec<_>>>()
            .map(Const::Composite),
        _ => None,
    }
}

fn group_operation(inst: &super::super::inst::Inst) -> Option<GroupOperation> {
    inst.lits().iter().find_map(|l| match l {
        rspirv::dr::Operand::GroupOperation(g) => Some(*g),
        _ => None,
    })
}

/// The identity of a reduction, shaped as `like` (a value of the operand's type).
fn identity(inst: &super::super::inst::Inst, like: Value) -> Value {
    fn shaped(c: &Const, op: Op) -> Option<Const> {
        Some(match c {
            Const::Composite(parts) => Const::Composite(
                parts
                    .iter()
                    .map(|p| shaped(p, op))
                    .collect::<Option<Vec<_>>>()?,
            ),
            Const::Scalar(Scalar::Int { width, .. }) => {
                let w = *width;
                let max = if w >= 64 { u64::MAX } else { (1 << w) - 1 };
                let bits = match op {
                    Op::GroupNonUniformIAdd
                    | Op::GroupIAddNonUniformAMD
                    | Op::GroupNonUniformBitwiseOr
                    | Op::GroupNonUniformBitwiseXor
                    | Op::GroupNonUniformUMax
                    | Op::GroupUMaxNonUniformAMD => 0,
                    Op::GroupNonUniformIMul => 1,
                    Op::GroupNonUniformBitwiseAnd
                    | Op::GroupNonUniformUMin
                    | Op::GroupUMinNonUniformAMD => max,
                    Op::GroupNonUniformSMin | Op::GroupSMinNonUniformAMD => max >> 1,
                    Op::GroupNonUniformSMax | Op::GroupSMaxNonUniformAMD => (max >> 1) + 1,
                    _ => return None,
                };
                Const::Scalar(Scalar::Int { bits, width: w })
            }
            Const::Scalar(Scalar::Float { width, .. }) => {
                let value = match op {
                    Op::GroupNonUniformFAdd | Op::GroupFAddNonUniformAMD => 0.0,
                    Op::GroupNonUniformFMul => 1.0,
                    Op::GroupNonUniformFMin | Op::GroupFMinNonUniformAMD => f64::INFINITY,
                    Op::GroupNonUniformFMax | Op::GroupFMaxNonUniformAMD => f64::NEG_INFINITY,
                    _ => return None,
                };
                Const::Scalar(Scalar::Float {
                    value,
                    width: *width,
                })
            }
            Const::Scalar(Scalar::Bool(_)) => {
                Const::Scalar(Scalar::Bool(matches!(op, Op::GroupNonUniformLogicalAnd)))
            }
            _ => return None,
        })
    }
    match like {
        Value::Const(c) => shaped(&c, inst.op()).map_or(Value::Undef, Value::Const),
        _ => Value::Undef,
    }
}
