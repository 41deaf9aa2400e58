//! The GLSL.std.450 extended instructions, in families as the core ops are. Names are the set's
//! own (`Sqrt`); a test checks every one exists in rspirv's grammar of the set and that every
//! instruction of the set is in exactly one family. Overloads follow the set's specification:
//! transcendental functions take 16- and 32-bit floats only, `Find*` 32-bit integers only.

use super::{Attrs, Family, Kind, OpClass, Overload, Rule};

static FLOATS: &[Overload] = &[Overload {
    kind: Kind::Float,
    widths: &[16, 32, 64],
    vector: true,
}];
static FLOATS_16_32: &[Overload] = &[Overload {
    kind: Kind::Float,
    widths: &[16, 32],
    vector: true,
}];
static INTS: &[Overload] = &[Overload {
    kind: Kind::Int,
    widths: &[8, 16, 32, 64],
    vector: true,
}];
static INTS_32: &[Overload] = &[Overload {
    kind: Kind::Int,
    widths: &[32],
    vector: true,
}];

const PURE: Attrs = Attrs::PURE;

pub static FAMILIES: &[Family] = &[
    Family {
        name: "glsl-float",
        typing: "f: f",
        class: OpClass::Unary,
        attrs: PURE,
        overloads: FLOATS,
        rule: Rule::SameType,
        doc: "Rounding, absolute value, sign, fractional part and square roots of floats, component-wise; exactly rounded.",
        ops: &["Round", "RoundEven", "Trunc", "FAbs", "FSign", "Floor", "Ceil", "Fract", "Sqrt", "InverseSqrt"],
    },
    Family {
        name: "glsl-float-binary",
        typing: "f: f",
        class: OpClass::Binary,
        attrs: PURE,
        overloads: FLOATS,
        rule: Rule::SameType,
        doc: "Minimum, maximum, clamping, interpolation, steps and fused multiply-add of floats, component-wise; \
              all operands have the result type. The N forms return the non-NaN operand.",
        ops: &["FMin", "FMax", "FClamp", "FMix", "Step", "SmoothStep", "Fma", "NMin", "NMax", "NClamp"],
    },
    Family {
        name: "glsl-transcendental",
        typing: "f: f",
        class: OpClass::Unary,
        attrs: PURE,
        overloads: FLOATS_16_32,
        rule: Rule::SameType,
        doc: "Trigonometric, hyperbolic, exponential and logarithmic functions, component-wise; precision is \
              the implementation's, so they are not folded.",
        ops: &[
            "Radians", "Degrees", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh",
            "Acosh", "Atanh", "Atan2", "Pow", "Exp", "Log", "Exp2", "Log2",
        ],
    },
    Family {
        name: "glsl-int",
        typing: "i: *",
        class: OpClass::Binary,
        attrs: PURE,
        overloads: INTS,
        rule: Rule::SameType,
        doc: "Absolute value, sign, minimum, maximum, clamping and selection of integers, component-wise; S and U \
              say how the bits are read.",
        ops: &["SAbs", "SSign", "UMin", "SMin", "UMax", "SMax", "UClamp", "SClamp", "IMix"],
    },
    Family {
        name: "glsl-find-bit",
        typing: "i: i",
        class: OpClass::Unary,
        attrs: PURE,
        overloads: INTS_32,
        rule: Rule::SameShape,
        doc: "Index of the least or most significant set (or, for negative signed values, clear) bit; -1 when \
              there is none.",
        ops: &["FindILsb", "FindSMsb", "FindUMsb"],
    },
    Family {
        name: "glsl-geometry",
        typing: "f: f",
        class: OpClass::Other,
        attrs: PURE,
        overloads: FLOATS,
        rule: Rule::None,
        doc: "Vector geometry: length, distance, cross product, normalization, face-forward, reflection and refraction.",
        ops: &["Length", "Distance", "Cross", "Normalize", "FaceForward", "Reflect", "Refract"],
    },
    Family {
        name: "glsl-matrix",
        typing: "c: c",
        class: OpClass::Other,
        attrs: PURE,
        overloads: FLOATS,
        rule: Rule::None,
        doc: "Determinant and inverse of a square float matrix.",
        ops: &["Determinant", "MatrixInverse"],
    },
    Family {
        name: "glsl-float-parts",
        typing: "c: f",
        class: OpClass::Other,
        attrs: PURE,
        overloads: FLOATS,
        rule: Rule::None,
        doc: "Splitting a float into whole and fractional parts or mantissa and exponent (the Struct forms return \
              both), and building one from mantissa and exponent.",
        ops: &["ModfStruct", "FrexpStruct", "Ldexp"],
    },
    Family {
        name: "glsl-float-parts-out",
        typing: "f: f p",
        class: OpClass::Memory,
        attrs: Attrs::WRITES_MEMORY,
        overloads: FLOATS,
        rule: Rule::None,
        doc: "Modf and Frexp: like the Struct forms, but the second part is written through a pointer operand.",
        ops: &["Modf", "Frexp"],
    },
    Family {
        name: "glsl-pack",
        typing: "i: f",
        class: OpClass::Convert,
        attrs: PURE,
        overloads: &[],
        rule: Rule::None,
        doc: "Packing vectors into integers (normalized, half-precision or double halves) and unpacking them.",
        ops: &[
            "PackSnorm4x8", "PackUnorm4x8", "PackSnorm2x16", "PackUnorm2x16", "PackHalf2x16", "PackDouble2x32",
            "UnpackSnorm2x16", "UnpackUnorm2x16", "UnpackHalf2x16", "UnpackSnorm4x8", "UnpackUnorm4x8",
            "UnpackDouble2x32",
        ],
    },
    Family {
        name: "glsl-interpolate",
        typing: "f: p f",
        class: OpClass::Memory,
        attrs: Attrs::READS_MEMORY,
        overloads: FLOATS_16_32,
        rule: Rule::None,
        doc: "Interpolates a fragment input at the centroid, a sample or an offset; reads the input through its pointer.",
        ops: &["InterpolateAtCentroid", "InterpolateAtSample", "InterpolateAtOffset"],
    },
];

/// Typing signatures of single instructions where their family's does not fit.
pub static TYPINGS: &[(&str, &str)] = &[
    ("Determinant", "f: c"),
    ("Ldexp", "f: f i"),
    ("PackDouble2x32", "f: i"),
    ("UnpackSnorm2x16", "f: i"),
    ("UnpackUnorm2x16", "f: i"),
    ("UnpackHalf2x16", "f: i"),
    ("UnpackSnorm4x8", "f: i"),
    ("UnpackUnorm4x8", "f: i"),
    ("UnpackDouble2x32", "i: f"),
    ("InterpolateAtCentroid", "f: p"),
    ("InterpolateAtSample", "f: p i"),
];
