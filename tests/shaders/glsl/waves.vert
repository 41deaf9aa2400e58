#version 450
// Gerstner waves: loops over a uniform array of wave parameters.
layout(location = 0) in vec2 a_xz;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out float v_foam;

struct Wave {
    vec4 dir_steepness_length;
};
layout(set = 0, binding = 0) uniform Waves {
    mat4 view_proj;
    Wave waves[4];
    float time;
} w;

void main() {
    vec3 p = vec3(a_xz.x, 0.0, a_xz.y);
    vec3 tangent = vec3(1.0, 0.0, 0.0);
    vec3 binormal = vec3(0.0, 0.0, 1.0);
    for (int i = 0; i < 4; i++) {
        vec4 wv = w.waves[i].dir_steepness_length;
        float k = 6.2831853 / wv.w;
        float c = sqrt(9.8 / k);
        vec2 d = normalize(wv.xy);
        float f = k * (dot(d, a_xz) - c * w.time);
        float a = wv.z / k;
        p += vec3(d.x * a * cos(f), a * sin(f), d.y * a * cos(f));
        tangent += vec3(-d.x * d.x * wv.z * sin(f), d.x * wv.z * cos(f), -d.x * d.y * wv.z * sin(f));
        binormal += vec3(-d.x * d.y * wv.z * sin(f), d.y * wv.z * cos(f), -d.y * d.y * wv.z * sin(f));
    }
    v_normal = normalize(cross(binormal, tangent));
    v_foam = clamp(p.y, 0.0, 1.0);
    gl_Position = w.view_proj * vec4(p, 1.0);
}
