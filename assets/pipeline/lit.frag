#version 450
// The fragment stage: reads locations 0, 1 and 3.
layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec4 v_tint;
layout(location = 3) in float v_ambient;
layout(location = 0) out vec4 color;
void main() {
    float light = max(dot(normalize(v_normal), normalize(vec3(0.3, 0.8, 0.5))), 0.0);
    color = vec4(v_tint.rgb * (light + v_ambient), v_tint.a);
}
