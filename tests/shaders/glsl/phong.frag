#version 450
// Blinn-Phong with a separate texture and sampler (naga has no combined samplers).
layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec3 v_view;
layout(location = 2) in vec2 v_uv;
layout(location = 0) out vec4 o_color;

layout(set = 0, binding = 0) uniform Light {
    vec4 dir;
    vec4 color;
    float shininess;
} light;
layout(set = 0, binding = 1) uniform texture2D diffuse_tex;
layout(set = 0, binding = 2) uniform sampler diffuse_samp;

vec3 blinn(vec3 n, vec3 v, vec3 l) {
    vec3 h = normalize(l + v);
    float spec = pow(max(dot(n, h), 0.0), light.shininess);
    return vec3(max(dot(n, l), 0.0)) + vec3(spec);
}

void main() {
    vec3 n = normalize(v_normal);
    vec3 v = normalize(v_view);
    vec4 albedo = texture(sampler2D(diffuse_tex, diffuse_samp), v_uv);
    o_color = vec4(albedo.rgb * blinn(n, v, normalize(-light.dir.xyz)) * light.color.rgb, albedo.a);
}
