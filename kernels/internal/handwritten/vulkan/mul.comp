#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// mul(z buf, x buf, y buf, n u32): z[i] = x[i] * y[i]
layout(set = 0, binding = 0) writeonly buffer Z { float z[]; };
layout(set = 0, binding = 0) writeonly buffer Z4 { vec4 z4[]; };
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(set = 0, binding = 2) readonly buffer Y { float y[]; };
layout(set = 0, binding = 2) readonly buffer Y4 { vec4 y4[]; };
layout(push_constant) uniform Params { uint n; } p;

bool inputsFit(uint n) { return uint(z.length()) >= n && uint(x.length()) >= n && uint(y.length()) >= n; }
#define ELEMENT(i) z[i] = x[i] * y[i]
#define VECTOR(v) z4[v] = x4[v] * y4[v]

#include "elementwise.glsl"
