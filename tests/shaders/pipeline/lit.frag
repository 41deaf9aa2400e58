#version 450
// The fragment half: reads locations 0 and 2, not 1.
layout(location = 0) in vec3 v_normal;
layout(location = 2) in float v_shade;
layout(location = 0) out vec4 color;
void main() {
    color = vec4(v_normal * v_shade, 1.0);
}
