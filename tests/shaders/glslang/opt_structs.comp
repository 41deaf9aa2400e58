#version 450
// Local structs with nested struct and array members: built, copied, passed, returned, in arrays.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 1, std430) buffer Out { int result[]; } outp;

struct Inner {
    int a;
    ivec2 b;
};

struct Outer {
    Inner inner;
    int arr[4];
    float f;
};

Outer make(int seed) {
    Outer o;
    o.inner.a = seed;
    o.inner.b = ivec2(seed + 1, seed * 2);
    o.arr[0] = seed;
    o.arr[1] = seed ^ 5;
    o.arr[2] = seed * 3;
    o.arr[3] = 7 - seed;
    o.f = float(seed) * 0.5;
    return o;
}

int sum(Outer o) {
    int s = o.inner.a + o.inner.b.x - o.inner.b.y;
    s += o.arr[0] + 2 * o.arr[1] + 3 * o.arr[2] + 4 * o.arr[3];
    return s + int(o.f * 4.0);
}

void bump(inout Outer o, int k) {
    o.inner.b.y += k;
    o.arr[2] = o.arr[1] - k;
    o.f += 1.5;
    o.inner.a = o.inner.a * 2;
}

void main() {
    uint idx = gl_GlobalInvocationID.y * 64u + gl_GlobalInvocationID.x;
    int v = data.values[idx] & 15;
    int w = data.values[idx + 1u] & 15;
    Outer a = make(v);
    Outer b = a;
    bump(b, w);
    Inner t = b.inner;
    t.a += a.inner.b.x;
    Outer list[3];
    list[0] = a;
    list[1] = b;
    list[2] = make(w);
    list[2].inner = t;
    list[1].arr[3] = list[0].arr[2] + list[2].arr[0];
    list[0].inner.b.x = sum(b);
    int r = sum(list[0]) * 3 + sum(list[1]) * 5 + sum(list[2]) * 7 + sum(a);
    outp.result[idx] = r ^ (int(list[1].f * 2.0) << 8);
}
