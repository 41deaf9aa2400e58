#version 450
// A luminance histogram with shared atomics and image loads.
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2D hdr;
layout(set = 0, binding = 1, std430) buffer Histogram { uint bins[256]; };
shared uint local_bins[256];

uint bin_of(vec3 c) {
    float l = dot(c, vec3(0.2126, 0.7152, 0.0722));
    if (l < 1e-4) {
        return 0u;
    }
    float t = clamp((log2(l) + 10.0) / 12.0, 0.0, 1.0);
    return uint(t * 254.0 + 1.0);
}

void main() {
    uint li = gl_LocalInvocationIndex;
    local_bins[li] = 0u;
    barrier();
    ivec2 size = imageSize(hdr);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (all(lessThan(p, size))) {
        atomicAdd(local_bins[bin_of(imageLoad(hdr, p).rgb)], 1u);
    }
    barrier();
    atomicAdd(bins[li], local_bins[li]);
}
