#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// copy(y buf, x buf, n u32): y[i] = x[i]
layout(set = 0, binding = 0) writeonly buffer Y { float y[]; };
layout(set = 0, binding = 0) writeonly buffer Y4 { vec4 y4[]; };
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(push_constant) uniform Params { uint n; } p;

bool inputsFit(uint n) { return uint(y.length()) >= n && uint(x.length()) >= n; }
#define ELEMENT(i) y[i] = x[i]
#define VECTOR(v) y4[v] = x4[v]

#include "elementwise.glsl"
