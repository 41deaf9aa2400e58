#version 450
// Instanced vertices reading per-instance data from a storage buffer.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec4 v_color;

struct Instance {
    mat4 model;
    vec4 color;
};
layout(set = 0, binding = 0) readonly buffer Instances {
    Instance instances[];
};
layout(set = 0, binding = 1) uniform Camera {
    mat4 view_proj;
} camera;

void main() {
    Instance inst = instances[gl_InstanceIndex];
    vec4 world = inst.model * vec4(a_pos, 1.0);
    v_normal = mat3(inst.model) * a_normal;
    v_color = inst.color;
    gl_Position = camera.view_proj * world;
}
