#version 450
// Local arrays indexed by constants and by input, copied whole, initialized; vector and matrix element writes.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 1, std430) buffer Out { int result[]; } outp;

void main() {
    uint idx = gl_GlobalInvocationID.y * 64u + gl_GlobalInvocationID.x;
    int v = data.values[idx] & 15;
    int k = data.values[idx + 1u] & 7;

    // Only constant indices: can become plain values.
    int consts[4];
    consts[0] = v;
    consts[1] = consts[0] * 3;
    consts[2] = consts[1] - 2;
    consts[3] = consts[0] ^ consts[2];

    // Indexed with values read from the buffer: has to stay in memory.
    int table[8];
    for (int i = 0; i < 8; i++) {
        table[i] = (i * 5 + v) & 15;
    }
    table[k] += 100;
    int picked = table[(k + 3) & 7] + table[data.values[idx + 2u] & 7];

    // Whole-array copy, then the copy and the original diverge.
    int copy[8] = table;
    copy[2] = consts[3];
    table[2] = -1;

    // Constant initializer list, read at a dynamic index.
    int lut[8] = int[8](3, 1, 4, 1, 5, 9, 2, 6);
    lut[v & 7] += consts[1];

    ivec4 iv = ivec4(v & 3);
    iv.y = copy[k];
    iv.w = lut[k] - table[2];

    vec3 vv = vec3(0.0);
    vv.y = float(consts[1]) * 0.5;
    vv.z = vv.y + float(k);
    vv.x = float(picked);
    mat3 m = mat3(1.0);
    m[1][2] = vv.y;
    m[0].x = float(k);
    m[2] = vv;
    m[2][0] -= 1.0;
    vec3 r = m * vec3(1.0, 2.0, 3.0);

    int s = iv.x + iv.y * 3 + iv.z * 5 + iv.w * 7 + copy[(k + 1) & 7];
    outp.result[idx] = s + int(r.x) + int(r.y) * 11 + int(r.z) * 13;
}
