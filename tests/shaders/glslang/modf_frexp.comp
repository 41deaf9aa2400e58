#version 450
// modf and frexp with out-parameters into locals and into a buffer: qptr lowers them as a
// struct result and a store (Modf/Frexp write through a pointer qptr-lift cannot retype).
layout(local_size_x = 8) in;
layout(set = 0, binding = 0, std430) buffer Data {
    vec4 values[64];
    ivec4 exponents[64];
    vec4 wholes[64];
} data;

void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 v = data.values[i] * 3.7 - 1.3;
    vec4 whole;
    vec4 frac = modf(v, whole);
    ivec4 e;
    vec4 mant = frexp(v * 100.0, e);
    float f = modf(v.x * 2.5, data.wholes[i].w);
    data.values[i] = frac + mant * 0.5 + vec4(f);
    data.exponents[i] = e;
    data.wholes[i].xyz = whole.xyz;
}
