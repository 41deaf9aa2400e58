#version 450
// Dead values, dead stores, dead branches and loops, discarded call results, next to the live output.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 1, std430) buffer Out { int result[]; } outp;
layout(set = 0, binding = 2, std430) buffer Log { int entries[]; } log_buf;

int spin(int x) {
    int s = 0;
    for (int i = 0; i < 8; i++) {
        s += (x >> i) & 3;
    }
    return s * x;
}

// Has a side effect: calls must stay even when the result is dropped.
int record(uint i, int x) {
    log_buf.entries[i] = x * 3 + 1;
    return x + 1;
}

int live_helper(int x) {
    return x * x - 3;
}

void main() {
    uint idx = gl_GlobalInvocationID.y * 64u + gl_GlobalInvocationID.x;
    int v = data.values[idx] & 15;
    int w = data.values[idx + 1u] & 15;
    int dead_value = v * 17 + w;
    float dead_float = sqrt(float(v)) * 2.0 + 0.5;
    int never_read = v + 1;
    never_read = never_read * w;
    int dead_branch;
    if (v > w) {
        dead_branch = v * 9;
        float z = float(w) / 3.0;
        dead_branch += int(z);
    } else {
        dead_branch = v - w;
    }
    int dead_loop = 0;
    for (int i = 0; i < 10; i++) {
        dead_loop += i * v + dead_value;
    }
    spin(v);
    spin(dead_value + w);
    record(idx, v ^ w);
    int partial[4];
    partial[0] = v + w;
    partial[1] = live_helper(w);
    partial[2] = dead_value;
    int live = live_helper(v) + partial[0] * 5;
    outp.result[idx] = live + spin(w);
}
