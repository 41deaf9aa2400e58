#version 450
// Linear blend skinning from a storage buffer of joint matrices, with push constants.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in uvec4 a_joints;
layout(location = 3) in vec4 a_weights;

layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec3 v_world;

layout(set = 0, binding = 0, std430) readonly buffer Joints {
    mat4 joints[];
};

layout(push_constant) uniform Push {
    mat4 view_proj;
    mat4 model;
    uint joint_offset;
} pc;

mat4 skin_matrix() {
    mat4 m = mat4(0.0);
    for (int i = 0; i < 4; i++) {
        m += joints[pc.joint_offset + a_joints[i]] * a_weights[i];
    }
    return m;
}

void main() {
    mat4 skin = pc.model * skin_matrix();
    vec4 world = skin * vec4(a_pos, 1.0);
    v_world = world.xyz;
    v_normal = normalize(mat3(skin) * a_normal);
    gl_Position = pc.view_proj * world;
}
