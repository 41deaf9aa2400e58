#version 450
// Exercises vector-dce and dead-insert under O: vectors of which only some components are
// read, swizzles that pick from one source, structs built member by member and partly read,
// members written twice, and arrays of vectors written in a loop.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Floats { vec4 v[]; } fin;
layout(set = 0, binding = 1, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 2, std430) buffer FOut { vec4 r[]; } fout;
layout(set = 0, binding = 3, std430) buffer Out { int result[]; } outp;

struct Light {
    vec3 position;
    float radius;
    vec4 color;
    int kind;
};

Light make_light(vec4 a, vec4 b, int k) {
    Light l;
    l.position = a.xyz * 2.0;
    l.radius = a.w + b.w;
    l.color = b * a.x;
    l.kind = k;
    l.radius = l.radius * 0.5;   // written twice: the first write is dead
    return l;
}

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 8u;
    vec4 a = fin.v[i % 64u];
    vec4 b = fin.v[(i + 7u) % 64u];
    int k = data.values[i % 64u];

    // Only .xy of the sum are read: z and w are never computed.
    vec4 s = vec4(a.x + b.x, a.y * b.y, a.z / (b.z + 3.0), sqrt(abs(a.w)));
    vec2 xy = (s + b).xy;

    // A swizzle that picks only from one source.
    vec4 mixed = vec4(a.xy * 3.0, b.zw).zwzw;

    // Only the radius and kind of the light are read.
    Light l = make_light(a, b, k);
    float radius = l.radius;

    // A vector built and partly overwritten in a loop whose invocations leave at different
    // iterations. Mesa 22.3's lavapipe runs such a loop wrongly when its header branches
    // straight to a continue target that holds the whole body (spirv-opt -O's output of this
    // shader computes something else); block-merge keeps the continue block apart.
    vec4 acc = vec4(0.0);
    for (int j = 0; j < (k & 3); ++j) {
        vec4 t = vec4(float(j), a.y, 0.0, 1.0);
        t.z = t.x * 2.0;
        acc += t.xxzw;
    }

    fout.r[i] = vec4(xy, radius, acc.z) + mixed;
    outp.result[i] = l.kind * 3 + int(acc.w);
}
