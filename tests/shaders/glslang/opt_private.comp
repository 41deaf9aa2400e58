#version 450
// Module-scope globals: main-only, shared with a helper across calls, an initialized array, a loop accumulator.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 1, std430) buffer Out { int result[]; } outp;

int g_main_only;
int g_counter = 3;
int g_table[5] = int[5](2, 7, 1, 8, 2);
int g_sum;

// Reads and updates g_counter: the second call sees the first call's value.
int next_value(int step) {
    g_counter = g_counter * 2 + step;
    return g_counter & 31;
}

int table_at(int i) {
    return g_table[i % 5];
}

void main() {
    uint idx = gl_GlobalInvocationID.y * 64u + gl_GlobalInvocationID.x;
    g_main_only = data.values[idx] & 15;
    int w = data.values[idx + 1u] & 15;
    int a = next_value(g_main_only);
    int b = next_value(a + w);
    g_sum = 0;
    for (int i = 0; i < 5; i++) {
        g_sum += g_table[i] * (g_main_only + i);
        g_table[i] = g_sum & 7;
        if (g_sum > 60) {
            g_counter -= 1;
        }
    }
    g_table[w % 5] += b;
    int c = table_at(g_main_only) + table_at(w + 2);
    g_main_only = g_main_only * 3 + c;
    outp.result[idx] = a + b * 7 + g_sum * 3 + c * 5 + g_counter + g_main_only * 11;
}
