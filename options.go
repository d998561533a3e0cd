package gpu

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/profiling"
)

// Option configures Open.
type Option func(*options)

type options struct {
	backends    []string
	device      int
	deviceSet   bool
	fallback    bool
	profiler    *profiling.Profiler
	logger      *slog.Logger
	pool        PoolConfig
	poolSet     bool // WithPool was given: the pool is not scaled to the device
	hostPool    PoolConfig
	fake        fakeSpec
	fakeSet     bool
	backendsEnv bool // backends came from ANYGPU_BACKEND
}

// WithBackends restricts Open to these backends, tried in this order
// (overrides ANYGPU_BACKEND). Names are matched ignoring case; an unknown name
// makes Open fail with an InvalidArgument error.
func WithBackends(names ...string) Option {
	return func(o *options) { o.backends = append(make([]string, 0, len(names)), names...) }
}

// WithDevice picks the device ordinal within the chosen backend (overrides
// ANYGPU_DEVICE).
func WithDevice(ordinal int) Option {
	return func(o *options) { o.device, o.deviceSet = ordinal, true }
}

// WithFallback says whether Open may fall back to the CPU device when no GPU
// backend works (default true). With false, that is an error of category
// Unavailable that joins every backend's reason.
func WithFallback(on bool) Option { return func(o *options) { o.fallback = on } }

// WithProfiler attaches a profiler: every stream operation of the device is
// timed with backend events and recorded in p.
func WithProfiler(p *profiling.Profiler) Option { return func(o *options) { o.profiler = p } }

// WithLogger sets the logger for the fallback warning and other notices
// (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithPool sets the device memory pool (default DefaultPool, scaled up on
// a discrete GPU with more memory: see devicePool).
func WithPool(c PoolConfig) Option { return func(o *options) { o.pool, o.poolSet = c, true } }

// WithHostPool sets the pinned host memory pool (default DefaultHostPool).
func WithHostPool(c PoolConfig) Option { return func(o *options) { o.hostPool = c } }

// WithFake simulates devices as ANYGPU_FAKE does ("cuda:h100,vulkan"),
// overriding the variable; it needs backend/sim imported.
func WithFake(spec string) Option {
	return func(o *options) { o.fake, o.fakeSet = fakeSpec{spec: spec, option: true}, true }
}

// Environment variables read by Probe and Open. A malformed value is an
// InvalidArgument error that names the variable, its value and what is
// accepted.
const (
	EnvBackend = "ANYGPU_BACKEND" // comma-separated backends, in order; case does not matter
	EnvDevice  = "ANYGPU_DEVICE"  // device ordinal: 0, 1, ...
	EnvFake    = "ANYGPU_FAKE"    // simulated devices, e.g. "cuda:h100,vulkan:rtx4090"
)

func buildOptions(opts []Option) (options, error) {
	o := options{fallback: true, logger: slog.Default(), pool: DefaultPool, hostPool: DefaultHostPool}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.backends != nil {
		names, err := canonicalBackends(o.backends, "WithBackends")
		if err != nil {
			return o, err
		}
		o.backends = names
	} else if env := strings.TrimSpace(os.Getenv(EnvBackend)); env != "" {
		names, err := canonicalBackends(splitList(env), fmt.Sprintf("%s=%q", EnvBackend, env))
		if err != nil {
			return o, err
		}
		o.backends, o.backendsEnv = names, true
	}
	if !o.deviceSet {
		if env := strings.TrimSpace(os.Getenv(EnvDevice)); env != "" {
			n, err := strconv.Atoi(env)
			if err != nil || n < 0 {
				return o, errorf(invalidArgument, "open", "%s=%q is not a device ordinal (0, 1, ...)", EnvDevice, env)
			}
			o.device = n
		}
	}
	if o.device < 0 {
		return o, errorf(invalidArgument, "open", "WithDevice(%d): a device ordinal is 0, 1, ...", o.device)
	}
	if !o.fakeSet {
		o.fake = fakeSpec{spec: os.Getenv(EnvFake)}
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	return o, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
