#version 450
// Exercises the scalar passes of O: constants through calls, phis and branches (ccp,
// dead-branch), values computed twice (gvn), identities and composites (simplify), small
// diamonds (if-convert), a loop that computes nothing kept (adce), and the transcendental
// functions folded on constants.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 1, std430) buffer Floats { float f[]; } fdata;
layout(set = 0, binding = 2, std430) buffer Out { int result[]; } outp;
layout(set = 0, binding = 3, std430) buffer FOut { float fresult[]; } foutp;

const int MODE = 2;

int pick(int mode, int x) {
    if (mode == 1) {
        return x * 3;
    } else if (mode == 2) {
        return x + 7;
    }
    return -x;
}

ivec4 shuffle_around(ivec4 v) {
    ivec4 w = v.wzyx;
    w = w.wzyx;      // back to v
    w.y = v.x;
    return ivec4(w.x, w.y, w.z, w.w);
}

void main() {
    uint i = gl_GlobalInvocationID.y * 8u + gl_GlobalInvocationID.x;
    int x = data.values[i];
    int y = data.values[i + 64u];

    // ccp + dead-branch through an inlined call on a constant.
    int a = pick(MODE, x);

    // gvn: the same expressions again, in a dominated block too.
    int s1 = x * y + (y ^ 3);
    int s2 = (3 ^ y) + y * x;
    int acc = s1 - s2;               // 0
    if (x > 4) {
        acc += x * y + (y ^ 3);
    }

    // simplify: identities.
    int z = ((a + 0) * 1) | 0;
    z = z - (z ^ z);
    bool same = (y == y) && (x < 100 || x >= 100);

    // if-convert: small diamonds.
    int m = x < y ? x * 2 : y - 1;
    int n;
    if (y > 6) {
        n = m + 1;
    } else {
        n = m - 1;
    }
    ivec4 v = shuffle_around(ivec4(x, y, a, n));

    // A loop whose result nobody reads, and one whose result is read.
    int waste = 0;
    for (int k = 0; k < x; k++) {
        waste += k * k;
    }
    int used = 0;
    for (int k = 0; k < 4; k++) {
        used += (k == 2) ? y : k;
    }

    // Float folding: exact cases and correctly rounded ones (results only compared as floats
    // that every implementation must compute the same: powers of two, small sums).
    float fx = fdata.f[i];
    float p = pow(2.0, -3.0) + exp2(4.0) + log2(8.0);   // 0.125 + 16 + 3
    float g = fx * 1.0 + (-0.0) + p;
    float h = fx < 0.5 ? fx * 2.0 : fx - 0.5;

    outp.result[i] = a + z + acc + (same ? 1 : 0) + n + v.x + v.y * 3 + v.z * 5 + v.w * 7 + used;
    foutp.fresult[i] = g + h;
}
