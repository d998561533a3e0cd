package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/anygpu/gpu/health"
)

const watchUsage = `usage: gpu watch [--interval D] [--count N] [--json]

Samples every NVIDIA GPU through NVML, like nvidia-smi dmon: one line per GPU
per interval with utilisation (sm%, mem%: share of the last period a kernel
ran / memory was accessed), memory used and total, temperature, power draw
and limit, SM and memory clocks, and the throttle reasons (why the clocks are
below their maximum). A figure the GPU does not report shows as "-". Stops
after --count rounds, or on Ctrl-C.

flags:
  --interval D   time between rounds (default 1s)
  --count N      stop after N rounds (default 0: until interrupted)
  --json         one JSON object per GPU per round instead of the table
`

func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("watch", flag.ContinueOnError)
	interval := fs.Duration("interval", time.Second, "time between rounds")
	count := fs.Int("count", 0, "rounds (0: until interrupted)")
	asJSON := fs.Bool("json", false, "print JSON lines")
	if code, ok := parseFlags(fs, watchUsage, args, stdout, stderr); !ok {
		return code
	}
	if *interval <= 0 || *count < 0 {
		fmt.Fprintf(stderr, "gpu watch: --interval must be positive and --count not negative\n")
		fmt.Fprint(stderr, watchUsage)
		return exitUsage
	}
	mon, err := health.Open()
	if err != nil {
		fmt.Fprintf(stderr, "gpu watch: %v\n", err)
		return exitFail
	}
	defer mon.Close()
	devs := mon.Devices()
	if len(devs) == 0 {
		fmt.Fprintln(stderr, "gpu watch: NVML lists no NVIDIA GPU")
		return exitFail
	}
	enc := json.NewEncoder(stdout)
	if !*asJSON {
		fmt.Fprintln(stdout, watchHeader)
	}
	tick := time.NewTicker(*interval)
	defer tick.Stop()
	for round := 1; ; round++ {
		for _, d := range devs {
			s, err := mon.Sample(d.Index)
			if *asJSON {
				if err := enc.Encode(toJSON(s, err)); err != nil {
					fmt.Fprintf(stderr, "gpu watch: %v\n", err)
					return exitFail
				}
				continue
			}
			fmt.Fprintln(stdout, watchLine(s, err))
		}
		if *count > 0 && round >= *count {
			return exitOK
		}
		select {
		case <-ctx.Done():
			return exitOK
		case <-tick.C:
		}
	}
}

// watchHeader names the columns of watchLine, as dmon does, units second.
const watchHeader = "# time      gpu  sm%  mem%  used MiB  total MiB  temp C  power W  limit W  sm MHz  mem MHz  throttle"

// watchLine is one GPU's row; a figure it does not report is "-", and a
// failed sample ends with its error.
func watchLine(s health.Sample, err error) string {
	num := func(m health.Metric, v int) string {
		if !s.Has(m) || s.Time.IsZero() {
			return "-"
		}
		return strconv.Itoa(v)
	}
	throttle := "-"
	if s.Has(health.MetricThrottle) && !s.Time.IsZero() {
		throttle = s.Throttle.String()
	}
	t := s.Time
	if t.IsZero() {
		t = time.Now()
	}
	line := fmt.Sprintf("  %s %4d %4s %5s %9s %10s %7s %8s %8s %7s %8s  %s",
		t.Format("15:04:05"), s.Device.Index,
		num(health.MetricUtilization, s.GPUPercent), num(health.MetricUtilization, s.MemoryPercent),
		num(health.MetricMemory, int(s.MemoryUsed>>20)), num(health.MetricMemory, int(s.MemoryTotal>>20)),
		num(health.MetricTemperature, s.TemperatureC),
		num(health.MetricPower, int(s.PowerW+0.5)), num(health.MetricPowerLimit, int(s.PowerLimitW+0.5)),
		num(health.MetricClocks, s.SMClockMHz), num(health.MetricClocks, s.MemoryClockMHz), throttle)
	if err != nil {
		line += "  error: " + oneLine(err)
	}
	return line
}
