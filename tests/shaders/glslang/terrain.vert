#version 450
// Height-map displacement in a vertex shader with textureLod and a struct output.
layout(location = 0) in vec2 a_grid;
struct Surface {
    vec3 normal;
    float height;
};
layout(location = 0) out vec3 v_normal;
layout(location = 1) out float v_height;
layout(set = 0, binding = 0) uniform sampler2D height_map;
layout(set = 0, binding = 1) uniform Terrain {
    mat4 view_proj;
    float scale;
    float texel;
} t;

Surface sample_surface(vec2 uv) {
    float h = textureLod(height_map, uv, 0.0).r * t.scale;
    float hx = textureLod(height_map, uv + vec2(t.texel, 0.0), 0.0).r * t.scale;
    float hy = textureLod(height_map, uv + vec2(0.0, t.texel), 0.0).r * t.scale;
    Surface s;
    s.normal = normalize(vec3(h - hx, 1.0, h - hy));
    s.height = h;
    return s;
}

void main() {
    Surface s = sample_surface(a_grid);
    v_normal = s.normal;
    v_height = s.height;
    gl_Position = t.view_proj * vec4(a_grid.x, s.height, a_grid.y, 1.0);
}
