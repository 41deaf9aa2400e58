#version 450
// Helpers with several returns: in ifs, loops, nested loops, a switch, and a void inout early return.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 1, std430) buffer Out { int result[]; } outp;

int first_set_bit(int n) {
    if (n <= 0) {
        return n < 0 ? -1 : 32;
    }
    for (int i = 0; i < 16; i++) {
        if (((n >> i) & 1) != 0) {
            return i;
        }
    }
    return -1;
}

int find_pair(int n, int target) {
    for (int i = 0; i < 8; i++) {
        for (int j = i; j < 8; j++) {
            if (((n + i) & 7) + j == target) {
                return i * 8 + j;
            }
        }
        if (i == (n & 3) + 4) {
            return -i;
        }
    }
    return 100;
}

int pick(int n) {
    switch (n & 7) {
    case 0:
        return 10;
    case 1:
    case 2:
        if (n > 8) {
            return 20;
        }
        break;
    case 5:
        return n * 3;
    default:
        break;
    }
    return n + 1;
}

void fold_acc(inout int acc, int limit) {
    if (acc <= limit) {
        return;
    }
    acc = acc - limit * 2;
    if (acc < 0) {
        acc = -acc;
        return;
    }
    acc += 1;
}

void main() {
    uint idx = gl_GlobalInvocationID.y * 64u + gl_GlobalInvocationID.x;
    int v = data.values[idx];
    int m = v & 15;
    int acc = first_set_bit(v) + first_set_bit(m - 3);
    for (int i = 0; i < 4; i++) {
        int w = data.values[idx + uint(i) + 1u] & 15;
        acc += first_set_bit(w + m) + find_pair(m + i, w) + pick(m ^ w);
        fold_acc(acc, 40 + i);
    }
    outp.result[idx] = acc;
}
