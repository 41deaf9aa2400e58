#version 450
// Row-major and column-major matrices, arrays of structs and a runtime array.
layout(local_size_x = 64) in;
struct Instance {
    mat3x4 transform;
    vec4 color;
    uint flags;
};
layout(set = 0, binding = 0, std430, row_major) readonly buffer Instances {
    Instance instances[];
};
layout(set = 0, binding = 1, std140) uniform Globals {
    layout(row_major) mat4 view;
    layout(column_major) mat4 proj;
    vec4 tint[4];
} g;
layout(set = 0, binding = 2, std430) writeonly buffer Out {
    vec4 positions[];
};

void main() {
    uint i = gl_GlobalInvocationID.x;
    Instance inst = instances[i];
    vec4 p = vec4(vec4(0.0, 0.0, 0.0, 1.0) * inst.transform, 1.0);
    if ((inst.flags & 1u) != 0u) {
        p.xyz *= g.tint[inst.flags >> 1 & 3u].xyz;
    }
    positions[i] = g.proj * g.view * p;
}
