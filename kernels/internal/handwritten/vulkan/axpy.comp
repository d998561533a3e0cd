#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

// axpy(y buf, x buf, n u32, a f32): y[i] = a*x[i] + y[i]
layout(set = 0, binding = 0) buffer Y { float y[]; };
layout(set = 0, binding = 0) buffer Y4 { vec4 y4[]; };
layout(set = 0, binding = 1) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(push_constant) uniform Params { uint n; float a; } p;

bool inputsFit(uint n) { return uint(y.length()) >= n && uint(x.length()) >= n; }
#define ELEMENT(i) y[i] = fma(p.a, x[i], y[i])
#define VECTOR(v) y4[v] = fma(vec4(p.a), x4[v], y4[v])

#include "elementwise.glsl"
