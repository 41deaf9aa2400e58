//! Stand-in stages, so that a shader that comes alone can be drawn, made in SPIR-V (no compiler
//! needed):
//!
//! - for a fragment shader, a vertex stage: a triangle that covers the attachments, and every
//!   input the fragment shader reads written at its location with a value that varies across
//!   the triangle (floats interpolate between the corners; integers, flat, take the provoking
//!   corner's);
//! - for a vertex shader, a fragment stage that reads each of its outputs and writes each
//!   (each member, field, column and element apart) to an attachment of its own.
//!
//! Interface blocks are declared as the other stage declares them (a `Block` struct at the same
//! location), so the interfaces match.

use std::fmt::Write;

use super::reflect::{Scalar, Stage, Ty, Var};
use crate::ir::spirv::asm;

fn scalar_name(s: Scalar) -> &'static str {
    match s {
        Scalar::F32 => "float",
        Scalar::I32 => "int",
        Scalar::U32 => "uint",
    }
}

/// The text of a stand-in stage, as it is built.
#[derive(Default)]
struct Text {
    types: String,
    declared: Vec<String>,
    decorations: String,
    vars: String,
    body: String,
    interface: String,
    fresh: u32,
    /// Integer inputs all zero (`vertex_with_zero_ints`).
    zero_ints: bool,
}

impl Text {
    fn next(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("%{prefix}{}", self.fresh)
    }

    /// Declares `name` with `line` (a declaration naming `%{name}`) unless it was.
    fn declare(&mut self, name: &str, line: String) {
        if !self.declared.iter().any(|d| d == name) {
            self.types.push_str(&line);
            self.types.push('\n');
            self.declared.push(name.to_string());
        }
    }

    /// Declares variable `var` of type `ty` in storage class `class` (`Input`, `Output`) at
    /// `location`, in the entry point's interface.
    fn variable(&mut self, var: &str, ty: &str, class: &str, location: u32, component: u32) {
        let pointer = format!("{class}_{ty}");
        self.declare(
            &pointer,
            format!("%{pointer} = OpTypePointer {class} %{ty}"),
        );
        let _ = writeln!(self.vars, "{var} = OpVariable %{pointer} {class}");
        let _ = writeln!(self.decorations, "OpDecorate {var} Location {location}");
        if component != 0 {
            let _ = writeln!(self.decorations, "OpDecorate {var} Component {component}");
        }
        self.interface.push(' ');
        self.interface.push_str(var);
    }

    /// The stage's words: `model`'s entry point `main`, after `modes` (execution modes, then
    /// annotations of its own), `globals` and its variables, running `prologue` then the body.
    fn finish(
        self,
        model: &str,
        modes: &str,
        globals: &str,
        prologue: &str,
    ) -> Result<Vec<u32>, String> {
        let Text {
            types,
            decorations,
            vars,
            body,
            interface,
            ..
        } = self;
        let text = format!(
            r#"OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint {model} %main "main"{interface}
{modes}{decorations}%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%one = OpConstant %float 1
%v4float = OpTypeVector %float 4
{globals}{types}{vars}%main = OpFunction %void None %fn
%entry = OpLabel
{prologue}{body}OpReturn
OpFunctionEnd
"#
        );
        asm::assemble(&text)
            .map_err(|e| format!("the generated {} stage: {e}", model.to_lowercase()))
    }

    /// The type's name, declaring it (and what it is made of) the first time.
    fn type_name(&mut self, ty: &Ty) -> String {
        let scalar = scalar_name(ty.scalar);
        let mut name = scalar.to_string();
        if !ty.fields.is_empty() {
            let fields: Vec<String> = ty.fields.iter().map(|f| self.type_name(f)).collect();
            // `S…E` around the fields: nested structs get names of their own.
            name = format!("S{}E", fields.join("_"));
            let list: Vec<String> = fields.iter().map(|f| format!("%{f}")).collect();
            self.declare(&name, format!("%{name} = OpTypeStruct {}", list.join(" ")));
        } else if ty.comps > 1 {
            let vector = format!("v{}{scalar}", ty.comps);
            self.declare(
                &vector,
                format!("%{vector} = OpTypeVector %{scalar} {}", ty.comps),
            );
            name = vector;
        }
        if ty.cols > 1 {
            let matrix = format!("m{}{name}", ty.cols);
            self.declare(
                &matrix,
                format!("%{matrix} = OpTypeMatrix %{name} {}", ty.cols),
            );
            name = matrix;
        }
        if let Some(len) = ty.len {
            let array = format!("a{len}{name}");
            self.declare(
                &format!("len{len}"),
                format!("%len{len} = OpConstant %uint {len}"),
            );
            self.declare(&array, format!("%{array} = OpTypeArray %{name} %len{len}"));
            name = array;
        }
        name
    }

    /// The type of a variable of the interface: its type, or its block's struct.
    fn var_type(&mut self, var: &Var, k: usize) -> (String, Vec<(Ty, String)>) {
        match &var.members {
            None => {
                let name = self.type_name(&var.ty);
                (name.clone(), vec![(var.ty.clone(), name)])
            }
            Some(members) => {
                let members: Vec<(Ty, String)> = members
                    .iter()
                    .map(|m| (m.clone(), self.type_name(m)))
                    .collect();
                let block = format!("block{k}");
                let list: Vec<String> = members.iter().map(|(_, n)| format!("%{n}")).collect();
                let _ = writeln!(self.types, "%{block} = OpTypeStruct {}", list.join(" "));
                // A struct variable is not a block: the other stage's is the same kind.
                if var.block {
                    let _ = writeln!(self.decorations, "OpDecorate %{block} Block");
                }
                (block, members)
            }
        }
    }

    /// The step of integer input `n` from the corner: a different one for each input, or
    /// zero.
    fn step(&self, n: u32) -> u32 {
        if self.zero_ints {
            0
        } else {
            3 * n + 1
        }
    }

    /// A value of `ty` (named `name`) that varies with the triangle's corner, for the vertex
    /// stage: one slope and offset per scalar.
    fn varying_value(&mut self, ty: &Ty, name: &str, constants: &mut u32) -> String {
        // Arrays and structs are built from their elements' and fields' values.
        let composite: Option<Vec<String>> = if let Some(len) = ty.len {
            let element = ty.element();
            let element_name = self.type_name(&element);
            Some(
                (0..len)
                    .map(|_| self.varying_value(&element, &element_name, constants))
                    .collect(),
            )
        } else if !ty.fields.is_empty() {
            Some(
                ty.fields
                    .iter()
                    .map(|f| {
                        let n = self.type_name(f);
                        self.varying_value(f, &n, constants)
                    })
                    .collect(),
            )
        } else {
            None
        };
        if let Some(parts) = composite {
            let v = self.next("part");
            let _ = writeln!(
                self.body,
                "{v} = OpCompositeConstruct %{name} {}",
                parts.join(" ")
            );
            return v;
        }
        let scalar = scalar_name(ty.scalar);
        let mut parts = Vec::new();
        for _ in 0..ty.slots() * ty.comps {
            let n = *constants;
            *constants += 1;
            let v = self.next("v");
            match ty.scalar {
                Scalar::F32 => {
                    let _ = writeln!(
                        self.body,
                        "{v}_m = OpFMul %float %corner_f %slope{n}\n{v} = OpFAdd %float {v}_m %offset{n}"
                    );
                    let _ = writeln!(
                        self.types,
                        "%slope{n} = OpConstant %float {}\n%offset{n} = OpConstant %float {}",
                        0.375 + 0.125 * f64::from(n % 7),
                        0.0625 * f64::from(n % 5)
                    );
                }
                // Flat: the provoking corner's (the first, corner 0) is the step.
                Scalar::I32 => {
                    let _ = writeln!(self.body, "{v} = OpIAdd %int %corner %step{n}");
                    let _ = writeln!(self.types, "%step{n} = OpConstant %int {}", self.step(n));
                }
                Scalar::U32 => {
                    let _ = writeln!(
                        self.body,
                        "{v}_a = OpIAdd %int %corner %step{n}\n{v} = OpBitcast %uint {v}_a"
                    );
                    let _ = writeln!(self.types, "%step{n} = OpConstant %int {}", self.step(n));
                }
            }
            parts.push(v);
        }
        // Built up: vectors of scalars, matrix columns, array elements.
        if ty.comps > 1 {
            let vector = format!("v{}{scalar}", ty.comps);
            parts = parts
                .chunks(ty.comps as usize)
                .map(|c| {
                    let v = self.next("vec");
                    let _ = writeln!(
                        self.body,
                        "{v} = OpCompositeConstruct %{vector} {}",
                        c.join(" ")
                    );
                    v
                })
                .collect();
        }
        if ty.cols > 1 {
            let column = if ty.comps > 1 {
                format!("v{}{scalar}", ty.comps)
            } else {
                scalar.to_string()
            };
            let matrix = format!("m{}{column}", ty.cols);
            parts = parts
                .chunks(ty.cols as usize)
                .map(|c| {
                    let v = self.next("mat");
                    let _ = writeln!(
                        self.body,
                        "{v} = OpCompositeConstruct %{matrix} {}",
                        c.join(" ")
                    );
                    v
                })
                .collect();
        }
        parts.pop().expect("one value")
    }
}

/// SPIR-V words of a vertex stage that feeds every input of `fs`.
pub fn vertex_for(fs: &Stage) -> Result<Vec<u32>, String> {
    vertex_made(fs, false)
}

/// `vertex_for` with every integer input zero where each fragment gets it (the provoking
/// corner's): for a fragment stage that indexes arrays of descriptors with them, where the
/// driver crashed on the indices the other inputs make.
pub fn vertex_with_zero_ints(fs: &Stage) -> Result<Vec<u32>, String> {
    vertex_made(fs, true)
}

fn vertex_made(fs: &Stage, zero_ints: bool) -> Result<Vec<u32>, String> {
    let mut t = Text {
        declared: vec!["v4float".into(), "Output_v4float".into()],
        interface: " %vertex_index %position".into(),
        zero_ints,
        ..Text::default()
    };
    let mut constants = 0u32;
    for (k, input) in fs.inputs.iter().enumerate() {
        let (name, members) = t.var_type(input, k);
        let var = format!("%out{k}");
        t.variable(&var, &name, "Output", input.location, input.component);
        let values: Vec<String> = members
            .iter()
            .map(|(ty, n)| t.varying_value(ty, n, &mut constants))
            .collect();
        let value = if input.members.is_some() {
            let v = t.next("block");
            let _ = writeln!(
                t.body,
                "{v} = OpCompositeConstruct %{name} {}",
                values.join(" ")
            );
            v
        } else {
            values.into_iter().next().expect("one value")
        };
        let _ = writeln!(t.body, "OpStore {var} {value}");
    }
    t.finish(
        "Vertex",
        "OpDecorate %vertex_index BuiltIn VertexIndex\nOpDecorate %position BuiltIn Position\n",
        r#"%bool = OpTypeBool
%ptr_in_int = OpTypePointer Input %int
%Output_v4float = OpTypePointer Output %v4float
%vertex_index = OpVariable %ptr_in_int Input
%position = OpVariable %Output_v4float Output
%int_1 = OpConstant %int 1
%int_2 = OpConstant %int 2
%int_3 = OpConstant %int 3
%far = OpConstant %float 3
%near = OpConstant %float -1
%depth = OpConstant %float 0.5
"#,
        r#"%index = OpLoad %int %vertex_index
%corner = OpSMod %int %index %int_3
%corner_f = OpConvertSToF %float %corner
%is_1 = OpIEqual %bool %corner %int_1
%is_2 = OpIEqual %bool %corner %int_2
%x = OpSelect %float %is_1 %far %near
%y = OpSelect %float %is_2 %far %near
%pos = OpCompositeConstruct %v4float %x %y %depth %one
OpStore %position %pos
"#,
    )
}

/// Attachments a generated fragment stage may write (Vulkan guarantees four; lavapipe has 8).
const MAX_ATTACHMENTS: u32 = 8;

/// SPIR-V words of a fragment stage that reads every output of `vs` at its location and writes
/// each (each member, field, column and element apart) to an attachment of its own, so that
/// whatever the vertex stage computes shows in the image. Where that takes more attachments
/// than there are, the components are packed instead, four to an attachment (floats and
/// integers apart); more than that holds is an error that says so.
pub fn fragment_for(vs: &Stage) -> Result<Vec<u32>, String> {
    let mut t = Text {
        declared: vec!["v4float".into()],
        ..Text::default()
    };
    // Each leaf read: its value, its type's name and its type.
    let mut parts: Vec<(String, String, Ty)> = Vec::new();
    for (k, output) in vs.outputs.iter().enumerate() {
        let (name, members) = t.var_type(output, k);
        let var = format!("%in{k}");
        t.variable(&var, &name, "Input", output.location, output.component);
        let integers = members
            .iter()
            .any(|(ty, _)| ty.leaves().iter().any(|(_, l)| l.scalar != Scalar::F32));
        if integers || output.flat {
            let _ = writeln!(t.decorations, "OpDecorate {var} Flat");
        }
        let _ = writeln!(t.body, "%value{k} = OpLoad %{name} {var}");
        for (j, (ty, _)) in members.iter().enumerate() {
            for (mut path, leaf) in ty.leaves() {
                if output.members.is_some() {
                    path.insert(0, j as u32);
                }
                let part_name = t.type_name(&leaf);
                if path.is_empty() {
                    parts.push((format!("%value{k}"), part_name, leaf));
                } else {
                    let p = t.next("part");
                    let indices: Vec<String> = path.iter().map(u32::to_string).collect();
                    let _ = writeln!(
                        t.body,
                        "{p} = OpCompositeExtract %{part_name} %value{k} {}",
                        indices.join(" ")
                    );
                    parts.push((p, part_name, leaf));
                }
            }
        }
    }
    let too_many = || {
        format!(
            "the vertex shader's outputs take more than {MAX_ATTACHMENTS} attachments of a generated fragment stage"
        )
    };
    let mut attachment = 0u32;
    if parts.len() <= MAX_ATTACHMENTS as usize {
        for (p, part_name, _) in parts {
            let out = format!("%out{attachment}");
            t.variable(&out, &part_name, "Output", attachment, 0);
            let _ = writeln!(t.body, "OpStore {out} {p}");
            attachment += 1;
        }
    } else {
        // Packed: every component apart, then four of one scalar type to an attachment.
        for scalar in [Scalar::F32, Scalar::I32, Scalar::U32] {
            let name = scalar_name(scalar);
            let mut components = Vec::new();
            for (p, _, leaf) in parts.iter().filter(|(_, _, l)| l.scalar == scalar) {
                if leaf.comps == 1 {
                    components.push(p.clone());
                    continue;
                }
                for c in 0..leaf.comps {
                    let x = t.next("c");
                    let _ = writeln!(t.body, "{x} = OpCompositeExtract %{name} {p} {c}");
                    components.push(x);
                }
            }
            let vector = t.type_name(&Ty::new(scalar, 4, 1, None));
            for four in components.chunks(4) {
                if attachment >= MAX_ATTACHMENTS {
                    return Err(too_many());
                }
                let zero = format!("zero_{name}");
                t.declare(&zero, format!("%{zero} = OpConstant %{name} 0"));
                let mut list: Vec<String> = four.to_vec();
                list.resize(4, format!("%{zero}"));
                let v = t.next("packed");
                let _ = writeln!(
                    t.body,
                    "{v} = OpCompositeConstruct %{vector} {}",
                    list.join(" ")
                );
                let out = format!("%out{attachment}");
                t.variable(&out, &vector, "Output", attachment, 0);
                let _ = writeln!(t.body, "OpStore {out} {v}");
                attachment += 1;
            }
        }
    }
    if attachment == 0 {
        // Nothing to read: the coverage of the triangles the vertex stage places is the image.
        t.variable("%covered", "v4float", "Output", 0, 0);
        let _ = writeln!(t.body, "OpStore %covered %white");
    }
    t.finish(
        "Fragment",
        "OpExecutionMode %main OriginUpperLeft\n",
        "%white = OpConstantComposite %v4float %one %one %one %one\n",
        "",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::gpu::reflect::{reflect, Var};
    use spirv::ExecutionModel;

    fn input(location: u32, scalar: Scalar, comps: u32, cols: u32, len: Option<u32>) -> Var {
        Var {
            location,
            component: 0,
            ty: Ty::new(scalar, comps, cols, len),
            members: None,
            block: false,
            flat: scalar != Scalar::F32,
            noperspective: false,
        }
    }

    /// The stage made writes each input at its location with its type: its own reflection
    /// gives them back as outputs.
    #[test]
    fn writes_every_input_of_the_fragment_shader() {
        let fs = Stage {
            entry: "main".into(),
            inputs: vec![
                input(0, Scalar::F32, 3, 1, None),
                input(1, Scalar::I32, 1, 1, None),
                input(2, Scalar::U32, 2, 1, Some(2)),
                input(4, Scalar::F32, 4, 4, None),
                input(8, Scalar::F32, 1, 1, None),
            ],
            outputs: Vec::new(),
            resources: Vec::new(),
            push: false,
        };
        let words = vertex_for(&fs).unwrap_or_else(|e| panic!("{e}"));
        if let Ok(path) = std::env::var("STAND_IN_OUT") {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(path, bytes).unwrap();
        }
        let vs = reflect(&words, ExecutionModel::Vertex).unwrap();
        let got: Vec<(u32, Scalar, u32, u32, Option<u32>)> = vs
            .outputs
            .iter()
            .map(|o| (o.location, o.ty.scalar, o.ty.comps, o.ty.cols, o.ty.len))
            .collect();
        let want: Vec<(u32, Scalar, u32, u32, Option<u32>)> = fs
            .inputs
            .iter()
            .map(|i| (i.location, i.ty.scalar, i.ty.comps, i.ty.cols, i.ty.len))
            .collect();
        assert_eq!(got, want);
    }

    /// The fragment stage made for a vertex stage reads each of its outputs at its location and
    /// writes each column and element to an attachment of its own.
    #[test]
    fn reads_every_output_of_the_vertex_shader() {
        let vs = Stage {
            entry: "main".into(),
            inputs: Vec::new(),
            outputs: vec![
                input(0, Scalar::F32, 3, 1, None),
                input(1, Scalar::I32, 1, 1, Some(2)),
                input(3, Scalar::F32, 2, 2, None),
            ],
            resources: Vec::new(),
            push: false,
        };
        let words = fragment_for(&vs).unwrap_or_else(|e| panic!("{e}"));
        let fs = reflect(&words, ExecutionModel::Fragment).unwrap();
        let inputs: Vec<(u32, Scalar, bool)> = fs
            .inputs
            .iter()
            .map(|i| (i.location, i.ty.scalar, i.flat))
            .collect();
        assert_eq!(
            inputs,
            [
                (0, Scalar::F32, false),
                (1, Scalar::I32, true),
                (3, Scalar::F32, false)
            ]
        );
        let attachments: Vec<(u32, u32)> = fs
            .outputs
            .iter()
            .map(|o| (o.location, o.ty.comps))
            .collect();
        assert_eq!(attachments, [(0, 3), (1, 1), (2, 1), (3, 2), (4, 2)]);
        // Too many for the attachments: said.
        let wide = Stage {
            outputs: vec![input(0, Scalar::F32, 4, 4, Some(3))],
            ..vs
        };
        assert!(fragment_for(&wide).unwrap_err().contains("attachments"));
    }

    /// Interface blocks are declared as the other stage declares them, at the same location,
    /// and each member read or written.
    #[test]
    fn interface_blocks_match_the_other_stage() {
        let block = Var {
            members: Some(vec![
                Ty::new(Scalar::F32, 4, 1, None),
                Ty::new(Scalar::F32, 2, 1, Some(2)),
            ]),
            block: true,
            ..input(1, Scalar::F32, 4, 1, None)
        };
        let stage = Stage {
            entry: "main".into(),
            inputs: vec![block.clone()],
            outputs: vec![block],
            resources: Vec::new(),
            push: false,
        };
        let vs = reflect(&vertex_for(&stage).unwrap(), ExecutionModel::Vertex).unwrap();
        assert_eq!(vs.outputs.len(), 1);
        assert_eq!(vs.outputs[0].location, 1);
        assert_eq!(vs.outputs[0].members.as_ref().map(Vec::len), Some(2));
        let fs = reflect(&fragment_for(&stage).unwrap(), ExecutionModel::Fragment).unwrap();
        assert_eq!(fs.inputs[0].members.as_ref().map(Vec::len), Some(2));
        // The vec4, then the array's two vec2s: three attachments.
        assert_eq!(fs.outputs.len(), 3);
    }

    /// Inputs that share a location by their `Component` decorations are written the same way.
    #[test]
    fn components_of_one_location_are_kept() {
        let fs = Stage {
            entry: "main".into(),
            inputs: vec![
                input(0, Scalar::F32, 2, 1, None),
                Var {
                    component: 2,
                    ..input(0, Scalar::F32, 2, 1, None)
                },
            ],
            outputs: Vec::new(),
            resources: Vec::new(),
            push: false,
        };
        let vs = reflect(&vertex_for(&fs).unwrap(), ExecutionModel::Vertex).unwrap();
        let got: Vec<(u32, u32)> = vs
            .outputs
            .iter()
            .map(|o| (o.location, o.component))
            .collect();
        assert_eq!(got, [(0, 0), (0, 2)]);
    }
}
