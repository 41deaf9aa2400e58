#version 450
// Frustum culling of bounding spheres into a visibility mask (naga's GLSL has no atomics).
layout(local_size_x = 64) in;
struct Sphere {
    vec4 center_radius;
};
layout(set = 0, binding = 0) readonly buffer Spheres {
    Sphere spheres[];
};
layout(set = 0, binding = 1) buffer Visible {
    uint indices[];
} visible;
layout(set = 0, binding = 2) uniform Frustum {
    vec4 planes[6];
    uint total;
} frustum;

bool inside(vec4 s) {
    for (int i = 0; i < 6; i++) {
        if (dot(frustum.planes[i].xyz, s.xyz) + frustum.planes[i].w < -s.w) {
            return false;
        }
    }
    return true;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= frustum.total) {
        return;
    }
    visible.indices[i] = inside(spheres[i].center_radius) ? i : 0xffffffffu;
}
