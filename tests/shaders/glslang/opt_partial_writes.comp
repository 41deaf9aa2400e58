#version 450
// Variables written on some paths only, a variable passed by inout, and values merged from many branches.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 1, std430) buffer Out { int result[]; } outp;

void maybe_set(inout int x, int c) {
    if (c > 12) {
        x = c * 2 - x;
    }
}

void main() {
    uint idx = gl_GlobalInvocationID.y * 64u + gl_GlobalInvocationID.x;
    int v = data.values[idx] & 15;
    int w = data.values[idx + 1u] & 15;
    int a = 1;
    if (v > 5) {
        a = v * 3;
    }
    int b = -1;
    switch (w) {
    case 3:
    case 4:
        b = w + v;
        break;
    case 9:
        b = v - w; // falls through
    case 10:
        b *= 3;
        break;
    }
    int c = 7;
    for (int i = 0; i < (v & 3); i++) {
        c = c * 2 + i;
    }
    int d;
    if (w < 8) {
        d = w * 5 + a;
    }
    int e = v + 2;
    maybe_set(e, v + w);
    int p;
    if (v < 3) {
        p = 11;
    } else if (v < 6) {
        p = a + 1;
    } else if (v < 9) {
        p = b * 2;
    } else {
        p = e - a;
    }
    int lo = 0, hi = 0;
    for (int i = 0; i < 6; i++) {
        int t = (v + i * w) & 7;
        if (t < 2) {
            lo += t + 1;
        } else if (t < 5) {
            hi += t;
        } else {
            lo ^= hi;
            hi = i;
        }
    }
    int res = a + b * 3 + c * 5 + p * 7 + lo * 11 + hi * 13 + e * 17;
    if (w < 8) {
        res += d;
    }
    outp.result[idx] = res;
}
