#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// fill(y buf, n u32, value f32): y[i] = value
layout(set = 0, binding = 0) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 0) writeonly buffer Y4 { vec4 y4[]; };
layout(push_constant) uniform Params { uint n; float value; } p;

bool inputsFit(uint n) { return uint(y.length()) >= n; }
#define ELEMENT(i) y[i] = p.value
#define VECTOR(v) y4[v] = vec4(p.value)

#include "elementwise.glsl"
