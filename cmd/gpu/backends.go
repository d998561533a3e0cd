package main

// The backends this binary links. Once github.com/anygpu/gpu/backend/all
// exists, this file becomes the single import
//
//	_ "github.com/anygpu/gpu/backend/all"
//
// Until then it names each backend package that exists. The CPU backend is
// linked by the gpu package itself; it is listed for clarity. The simulator
// registers "sim" (no devices of its own) and serves ANYGPU_FAKE.
import (
	_ "github.com/anygpu/gpu/backend/cpu"
	_ "github.com/anygpu/gpu/backend/sim"
)
