#version 450
#extension GL_EXT_control_flow_attributes : require
// Exercises loop-unroll under O: loops marked [[unroll]] with constant trip counts (counting
// up, down, by steps, nested, with a branch and a phi in the body), one marked loop whose
// count is read from a buffer (stays, with a note), and an unmarked loop (stays).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, std430) buffer Floats { float f[]; } fin;
layout(set = 0, binding = 1, std430) buffer Data { int values[]; } data;
layout(set = 0, binding = 2, std430) buffer FOut { float r[]; } fout;
layout(set = 0, binding = 3, std430) buffer Out { int result[]; } outp;

const float weights[5] = float[](0.0625, 0.25, 0.375, 0.25, 0.0625);

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 8u;
    float blur = 0.0;
    [[unroll]] for (int k = 0; k < 5; ++k) {
        blur += weights[k] * fin.f[(i + uint(k)) % 64u];
    }
    int sum = 0;
    [[unroll]] for (int k = 10; k > 0; k -= 3) {
        if ((data.values[i % 64u] & k) != 0) {
            sum += k;
        } else {
            sum -= 1;
        }
    }
    [[unroll]] for (uint a = 0u; a < 3u; ++a) {
        [[unroll]] for (uint b = a; b < 3u; ++b) {
            sum += int(a * 3u + b) * data.values[(i + a + b) % 64u];
        }
    }
    int n = data.values[i % 64u] & 7;
    [[unroll]] for (int k = 0; k < n; ++k) {
        sum ^= k << 2;
    }
    for (int k = 0; k < 4; ++k) {
        sum += k;
    }
    fout.r[i] = blur;
    outp.result[i] = sum;
}
