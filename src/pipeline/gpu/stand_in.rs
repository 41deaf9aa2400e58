//! A vertex stage for a fragment shader that comes alone, so that it can be drawn: a triangle
//! that covers the attachments, and every input the fragment shader reads written at its
//! location with a value that varies across the triangle (floats interpolate between the
//! corners; integers, flat, take the provoking corner's). Made in SPIR-V, no compiler needed.

use std::fmt::Write;

use super::reflect::{Scalar, Stage, Ty};
use crate::ir::spirv::asm;

/// The type's name in the text below, declaring it (and what it is made of) the first time.
fn type_name(ty: &Ty, types: &mut String, declared: &mut Vec<String>) -> String {
    let scalar = match ty.scalar {
        Scalar::F32 => "float",
        Scalar::I32 => "int",
        Scalar::U32 => "uint",
    };
    let mut name = scalar.to_string();
    if ty.comps > 1 {
        let vector = format!("v{}{scalar}", ty.comps);
        if !declared.contains(&vector) {
            let _ = writeln!(types, "%{vector} = OpTypeVector %{scalar} {}", ty.comps);
            declared.push(vector.clone());
        }
        name = vector;
    }
    if ty.cols > 1 {
        let matrix = format!("m{}{name}", ty.cols);
        if !declared.contains(&matrix) {
            let _ = writeln!(types, "%{matrix} = OpTypeMatrix %{name} {}", ty.cols);
            declared.push(matrix.clone());
        }
        name = matrix;
    }
    if let Some(len) = ty.len {
        let array = format!("a{len}{name}");
        if !declared.contains(&array) {
            let _ = writeln!(types, "%len{len} = OpConstant %uint {len}");
            let _ = writeln!(types, "%{array} = OpTypeArray %{name} %len{len}");
            declared.push(array.clone());
        }
        name = array;
    }
    name
}

/// SPIR-V words of a vertex stage that feeds every input of `fs`. An input it cannot write (an
/// interface block) is an error that names it.
pub fn vertex_for(fs: &Stage) -> Result<Vec<u32>, String> {
    let mut types = String::new();
    // What the text below declares itself.
    let mut declared: Vec<String> = vec!["v4float".into(), "ptr_v4float".into()];
    let mut vars = String::new();
    let mut decorations = String::new();
    let mut constants = 0u32;
    let mut body = String::new();
    let mut interface = String::from("%vertex_index %position");
    let mut fresh = 0u32;
    let mut next = |prefix: &str| {
        fresh += 1;
        format!("%{prefix}{fresh}")
    };
    for (k, input) in fs.inputs.iter().enumerate() {
        if input.members.is_some() {
            return Err(format!(
                "the fragment shader reads an interface block at location {}, which a generated vertex stage does not write",
                input.location
            ));
        }
        let ty = &input.ty;
        let name = type_name(ty, &mut types, &mut declared);
        let var = format!("%out{k}");
        if !declared.contains(&format!("ptr_{name}")) {
            let _ = writeln!(types, "%ptr_{name} = OpTypePointer Output %{name}");
            declared.push(format!("ptr_{name}"));
        }
        let _ = writeln!(vars, "{var} = OpVariable %ptr_{name} Output");
        let _ = writeln!(decorations, "OpDecorate {var} Location {}", input.location);
        interface.push(' ');
        interface.push_str(&var);
        // One value per scalar, from the corner: a different slope and offset for each.
        let scalar = match ty.scalar {
            Scalar::F32 => "float",
            Scalar::I32 => "int",
            Scalar::U32 => "uint",
        };
        let mut scalars = Vec::new();
        for _ in 0..ty.slots() * ty.comps {
            let n = constants;
            constants += 1;
            let v = next("v");
            match ty.scalar {
                Scalar::F32 => {
                    let _ = writeln!(
                        body,
                        "{v}_m = OpFMul %float %corner_f %slope{n}\n{v} = OpFAdd %float {v}_m %offset{n}"
                    );
                    let _ = writeln!(
                        types,
                        "%slope{n} = OpConstant %float {}\n%offset{n} = OpConstant %float {}",
                        0.375 + 0.125 * f64::from(n % 7),
                        0.0625 * f64::from(n % 5)
                    );
                }
                Scalar::I32 => {
                    let _ = writeln!(body, "{v} = OpIAdd %int %corner %step{n}");
                    let _ = writeln!(types, "%step{n} = OpConstant %int {}", 3 * n + 1);
                }
                Scalar::U32 => {
                    let _ = writeln!(
                        body,
                        "{v}_a = OpIAdd %int %corner %step{n}\n{v} = OpBitcast %uint {v}_a"
                    );
                    let _ = writeln!(types, "%step{n} = OpConstant %int {}", 3 * n + 1);
                }
            }
            scalars.push(v);
        }
        // Build the value up: vectors of scalars, matrix columns, array elements.
        let mut parts = scalars;
        if ty.comps > 1 {
            let vector = format!("v{}{scalar}", ty.comps);
            parts = parts
                .chunks(ty.comps as usize)
                .map(|c| {
                    let v = next("vec");
                    let _ = writeln!(body, "{v} = OpCompositeConstruct %{vector} {}", c.join(" "));
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
                    let v = next("mat");
                    let _ = writeln!(body, "{v} = OpCompositeConstruct %{matrix} {}", c.join(" "));
                    v
                })
                .collect();
        }
        let value = if ty.len.is_some() {
            let v = next("arr");
            let _ = writeln!(
                body,
                "{v} = OpCompositeConstruct %{name} {}",
                parts.join(" ")
            );
            v
        } else {
            parts.pop().expect("one value")
        };
        let _ = writeln!(body, "OpStore {var} {value}");
    }
    let text = format!(
        r#"OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main "main" {interface}
OpDecorate %vertex_index BuiltIn VertexIndex
OpDecorate %position BuiltIn Position
{decorations}%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%v4float = OpTypeVector %float 4
%ptr_in_int = OpTypePointer Input %int
%ptr_v4float = OpTypePointer Output %v4float
%vertex_index = OpVariable %ptr_in_int Input
%position = OpVariable %ptr_v4float Output
%int_1 = OpConstant %int 1
%int_2 = OpConstant %int 2
%int_3 = OpConstant %int 3
%far = OpConstant %float 3
%near = OpConstant %float -1
%depth = OpConstant %float 0.5
%one = OpConstant %float 1
{types}{vars}%main = OpFunction %void None %fn
%entry = OpLabel
%index = OpLoad %int %vertex_index
%corner = OpSMod %int %index %int_3
%corner_f = OpConvertSToF %float %corner
%is_1 = OpIEqual %bool %corner %int_1
%is_2 = OpIEqual %bool %corner %int_2
%x = OpSelect %float %is_1 %far %near
%y = OpSelect %float %is_2 %far %near
%pos = OpCompositeConstruct %v4float %x %y %depth %one
OpStore %position %pos
{body}OpReturn
OpFunctionEnd
"#
    );
    asm::assemble(&text).map_err(|e| format!("the generated vertex stage: {e}"))
}

/// Attachments a generated fragment stage may write (Vulkan guarantees four; lavapipe has 8).
const MAX_ATTACHMENTS: u32 = 8;

/// SPIR-V words of a fragment stage that reads every output of `vs` at its location and writes
/// each (each column and element apart) to an attachment of its own, so that whatever the
/// vertex stage computes shows in the image. An output it cannot read (an interface block), or
/// more than the attachments hold, is an error that says so.
pub fn fragment_for(vs: &Stage) -> Result<Vec<u32>, String> {
    let mut types = String::new();
    // What the text below declares itself.
    let mut declared: Vec<String> = vec!["v4float".into()];
    let mut vars = String::new();
    let mut decorations = String::new();
    let mut body = String::new();
    let mut interface = String::new();
    let mut attachment = 0u32;
    for (k, output) in vs.outputs.iter().enumerate() {
        if output.members.is_some() {
            return Err(format!(
                "the vertex shader writes an interface block at location {}, which a generated fragment stage does not read",
                output.location
            ));
        }
        let ty = &output.ty;
        let name = type_name(ty, &mut types, &mut declared);
        let var = format!("%in{k}");
        if !declared.contains(&format!("in_{name}")) {
            let _ = writeln!(types, "%in_{name} = OpTypePointer Input %{name}");
            declared.push(format!("in_{name}"));
        }
        let _ = writeln!(vars, "{var} = OpVariable %in_{name} Input");
        let _ = writeln!(decorations, "OpDecorate {var} Location {}", output.location);
        if ty.scalar != Scalar::F32 || output.flat {
            let _ = writeln!(decorations, "OpDecorate {var} Flat");
        }
        interface.push(' ');
        interface.push_str(&var);
        let _ = writeln!(body, "%value{k} = OpLoad %{name} {var}");
        // Each element and column apart: what an attachment holds.
        let part = Ty {
            scalar: ty.scalar,
            comps: ty.comps,
            cols: 1,
            len: None,
        };
        let part_name = type_name(&part, &mut types, &mut declared);
        let mut parts = Vec::new();
        for e in 0..ty.len.unwrap_or(1) {
            for c in 0..ty.cols {
                let indices = match (ty.len.is_some(), ty.cols > 1) {
                    (true, true) => format!(" {e} {c}"),
                    (true, false) => format!(" {e}"),
                    (false, true) => format!(" {c}"),
                    (false, false) => String::new(),
                };
                if indices.is_empty() {
                    parts.push(format!("%value{k}"));
                } else {
                    let p = format!("%part{k}_{e}_{c}");
                    let _ = writeln!(
                        body,
                        "{p} = OpCompositeExtract %{part_name} %value{k}{indices}"
                    );
                    parts.push(p);
                }
            }
        }
        for p in parts {
            if attachment >= MAX_ATTACHMENTS {
                return Err(format!(
                    "the vertex shader's outputs take more than {MAX_ATTACHMENTS} attachments of a generated fragment stage"
                ));
            }
            let out = format!("%out{attachment}");
            if !declared.contains(&format!("out_{part_name}")) {
                let _ = writeln!(
                    types,
                    "%out_{part_name} = OpTypePointer Output %{part_name}"
                );
                declared.push(format!("out_{part_name}"));
            }
            let _ = writeln!(vars, "{out} = OpVariable %out_{part_name} Output");
            let _ = writeln!(decorations, "OpDecorate {out} Location {attachment}");
            let _ = writeln!(body, "OpStore {out} {p}");
            interface.push(' ');
            interface.push_str(&out);
            attachment += 1;
        }
    }
    if attachment == 0 {
        // Nothing to read: the coverage of the triangles the vertex stage places is the image.
        let _ = writeln!(types, "%out_v4float = OpTypePointer Output %v4float");
        let _ = writeln!(vars, "%covered = OpVariable %out_v4float Output");
        let _ = writeln!(decorations, "OpDecorate %covered Location 0");
        let _ = writeln!(body, "OpStore %covered %white");
        interface.push_str(" %covered");
    }
    let text = format!(
        r#"OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main"{interface}
OpExecutionMode %main OriginUpperLeft
{decorations}%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%one = OpConstant %float 1
%v4float = OpTypeVector %float 4
%white = OpConstantComposite %v4float %one %one %one %one
{types}{vars}%main = OpFunction %void None %fn
%entry = OpLabel
{body}OpReturn
OpFunctionEnd
"#
    );
    asm::assemble(&text).map_err(|e| format!("the generated fragment stage: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::gpu::reflect::{reflect, Var};
    use spirv::ExecutionModel;

    fn input(location: u32, scalar: Scalar, comps: u32, cols: u32, len: Option<u32>) -> Var {
        Var {
            location,
            ty: Ty {
                scalar,
                comps,
                cols,
                len,
            },
            members: None,
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
}
