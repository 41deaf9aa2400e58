#version 450
// A forward-lit material: normal mapping, Cook-Torrance specular, a handful of point lights,
// fog and tone mapping. The bundled example `cargo run` opens.

layout(location = 0) in vec3 v_world_pos;
layout(location = 1) in vec3 v_normal;
layout(location = 2) in vec4 v_tangent;
layout(location = 3) in vec2 v_uv;

layout(location = 0) out vec4 out_color;

struct PointLight {
    vec4 position_radius;
    vec4 color_intensity;
};

layout(set = 0, binding = 0) uniform Frame {
    mat4 view_proj;
    vec4 camera_pos;
    vec4 fog_color_density;
    vec4 ambient;
    uint light_count;
    float exposure;
    float time;
    uint debug_mode;
} frame;

layout(set = 0, binding = 1) readonly buffer Lights {
    PointLight lights[];
};

layout(set = 1, binding = 0) uniform texture2D albedo_map;
layout(set = 1, binding = 1) uniform texture2D normal_map;
layout(set = 1, binding = 2) uniform texture2D roughness_metal_map;
layout(set = 1, binding = 3) uniform sampler material_sampler;

const float PI = 3.14159265;

float distribution_ggx(float n_dot_h, float roughness) {
    float a = roughness * roughness;
    float a2 = a * a;
    float d = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    return a2 / (PI * d * d);
}

float geometry_schlick(float n_dot_v, float roughness) {
    float r = roughness + 1.0;
    float k = (r * r) / 8.0;
    return n_dot_v / (n_dot_v * (1.0 - k) + k);
}

vec3 fresnel_schlick(float cos_theta, vec3 f0) {
    return f0 + (1.0 - f0) * pow(clamp(1.0 - cos_theta, 0.0, 1.0), 5.0);
}

vec3 perturbed_normal(vec2 uv) {
    vec3 n = normalize(v_normal);
    vec3 t = normalize(v_tangent.xyz);
    vec3 b = cross(n, t) * v_tangent.w;
    vec3 tangent_normal = texture(sampler2D(normal_map, material_sampler), uv).xyz * 2.0 - 1.0;
    return normalize(mat3(t, b, n) * tangent_normal);
}

float attenuation(float dist, float radius) {
    if (dist >= radius) {
        return 0.0;
    }
    float x = dist / radius;
    float falloff = clamp(1.0 - x * x * x * x, 0.0, 1.0);
    return falloff * falloff / (dist * dist + 1.0);
}

vec3 aces(vec3 x) {
    const float a = 2.51;
    const float b = 0.03;
    const float c = 2.43;
    const float d = 0.59;
    const float e = 0.14;
    return clamp((x * (a * x + b)) / (x * (c * x + d) + e), 0.0, 1.0);
}

void main() {
    vec4 albedo = texture(sampler2D(albedo_map, material_sampler), v_uv);
    if (albedo.a < 0.1) {
        discard;
    }
    vec2 rm = texture(sampler2D(roughness_metal_map, material_sampler), v_uv).gb;
    float roughness = max(rm.x, 0.04);
    float metallic = rm.y;

    vec3 n = perturbed_normal(v_uv);
    vec3 v = normalize(frame.camera_pos.xyz - v_world_pos);
    float n_dot_v = max(dot(n, v), 0.0001);
    vec3 f0 = mix(vec3(0.04), albedo.rgb, metallic);

    vec3 lo = vec3(0.0);
    for (uint i = 0u; i < frame.light_count; i++) {
        PointLight light = lights[i];
        vec3 to_light = light.position_radius.xyz - v_world_pos;
        float dist = length(to_light);
        float att = attenuation(dist, light.position_radius.w);
        if (att <= 0.0) {
            continue;
        }
        vec3 l = to_light / dist;
        vec3 h = normalize(v + l);
        float n_dot_l = max(dot(n, l), 0.0);
        float n_dot_h = max(dot(n, h), 0.0);
        vec3 f = fresnel_schlick(max(dot(h, v), 0.0), f0);
        float g = geometry_schlick(n_dot_v, roughness) * geometry_schlick(n_dot_l, roughness);
        vec3 specular = distribution_ggx(n_dot_h, roughness) * g * f / (4.0 * n_dot_v * n_dot_l + 0.0001);
        vec3 kd = (vec3(1.0) - f) * (1.0 - metallic);
        vec3 radiance = light.color_intensity.rgb * light.color_intensity.a * att;
        lo += (kd * albedo.rgb / PI + specular) * radiance * n_dot_l;
    }

    vec3 color = frame.ambient.rgb * albedo.rgb + lo;
    float fog = 1.0 - exp(-frame.fog_color_density.w * length(frame.camera_pos.xyz - v_world_pos));
    color = mix(color, frame.fog_color_density.rgb, fog);

    switch (frame.debug_mode) {
        case 1u:
            color = n * 0.5 + 0.5;
            break;
        case 2u:
            color = vec3(roughness, metallic, 0.0);
            break;
        default:
            color = aces(color * frame.exposure);
            break;
    }
    out_color = vec4(pow(color, vec3(1.0 / 2.2)), albedo.a);
}
