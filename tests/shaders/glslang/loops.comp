#version 450
// Every loop form: for, while, do-while, nested, with break and continue.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 1, std430) buffer Out { int result[]; } outp;

int collatz(int n) {
    int steps = 0;
    while (n != 1) {
        if (steps > 1000) {
            break;
        }
        n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
        steps++;
    }
    return steps;
}

int digit_sum(int n) {
    int s = 0;
    do {
        s += n % 10;
        n /= 10;
    } while (n > 0);
    return s;
}

void main() {
    uint idx = gl_GlobalInvocationID.y * 64u + gl_GlobalInvocationID.x;
    int v = data.values[idx];
    int acc = 0;
    for (int i = 0; i < 16; i++) {
        if ((i & 1) == 1) {
            continue;
        }
        for (int j = 0; j < i; j++) {
            acc += (v >> j) & 1;
            if (acc > 100) {
                break;
            }
        }
    }
    outp.result[idx] = acc + collatz(max(v, 1)) + digit_sum(abs(v));
}
