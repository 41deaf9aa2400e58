#version 450
// Metallic-roughness shading with a combined image sampler and a std140 block; compiled with -g
// too, so the module carries OpLine/OpSource debug info.
layout(location = 0) in vec3 v_pos;
layout(location = 1) in vec3 v_normal;
layout(location = 2) in vec2 v_uv;
layout(location = 0) out vec4 o_color;

layout(set = 0, binding = 0, std140) uniform Material {
    vec4 base_color;
    float roughness;
    float metallic;
    vec2 pad;
    mat4 light_dirs;
} mat;

layout(set = 0, binding = 1) uniform sampler2D albedo_tex;

const float PI = 3.14159265;

float ggx(float n_dot_h, float a) {
    float a2 = a * a;
    float d = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    return a2 / (PI * d * d);
}

vec3 fresnel(float c, vec3 f0) {
    return f0 + (1.0 - f0) * pow(1.0 - c, 5.0);
}

void main() {
    vec3 n = normalize(v_normal);
    vec3 v = normalize(-v_pos);
    vec4 albedo = texture(albedo_tex, v_uv) * mat.base_color;
    vec3 f0 = mix(vec3(0.04), albedo.rgb, mat.metallic);
    vec3 color = vec3(0.0);
    for (int i = 0; i < 4; ++i) {
        vec3 l = normalize(mat.light_dirs[i].xyz);
        vec3 h = normalize(l + v);
        float n_dot_l = max(dot(n, l), 0.0);
        if (n_dot_l <= 0.0) {
            continue;
        }
        float spec = ggx(max(dot(n, h), 0.0), mat.roughness);
        color += (albedo.rgb / PI + fresnel(max(dot(h, v), 0.0), f0) * spec) * n_dot_l * mat.light_dirs[i].w;
    }
    o_color = vec4(color, albedo.a);
}
