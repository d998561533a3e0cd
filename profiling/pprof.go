package profiling

import (
	"io"
	"strconv"

	"github.com/google/pprof/profile"
)

// WritePprof writes the records as a gzipped pprof profile
// (profile.proto), which `go tool pprof` reads:
//
//	go tool pprof -top prof.pb.gz     # device time by kernel
//	go tool pprof -http=: prof.pb.gz  # flame graph: device, stream, kind, kernel
//
// Each record is a sample whose stack is, from the root, its device
// ("cuda:0"), its stream ("cuda:0 stream 1", or "cuda:0 host" for
// allocations and compilations), its kind ("kernel", "h2d") and, when it
// has one, its name ("saxpy"); samples of one stack are merged. The sample
// types are count/count, device_time/nanoseconds (the default: time the
// operations took on the device, or on the host for its host work) and
// bytes/bytes; each sample is labelled with its kind and device. User ranges
// are left out: they enclose the work they measure and would count it twice.
func (p *Profiler) WritePprof(w io.Writer) error {
	if w == nil {
		return nilWriter("write pprof")
	}
	return buildPprof(p).Write(w)
}

// buildPprof is the profile WritePprof writes.
func buildPprof(p *Profiler) *profile.Profile {
	prof := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "count", Unit: "count"},
			{Type: "device_time", Unit: "nanoseconds"},
			{Type: "bytes", Unit: "bytes"},
		},
		DefaultSampleType: "device_time",
		PeriodType:        &profile.ValueType{Type: "count", Unit: "count"},
		Period:            1,
		Mapping:           []*profile.Mapping{{ID: 1, File: "anygpu", HasFunctions: true}},
		TimeNanos:         p.Epoch().UnixNano(),
	}
	locations := map[string]*profile.Location{}
	location := func(name string) *profile.Location {
		if l, ok := locations[name]; ok {
			return l
		}
		id := uint64(len(locations) + 1)
		fn := &profile.Function{ID: id, Name: name, SystemName: name}
		l := &profile.Location{ID: id, Mapping: prof.Mapping[0], Line: []profile.Line{{Function: fn}}}
		locations[name] = l
		prof.Function = append(prof.Function, fn)
		prof.Location = append(prof.Location, l)
		return l
	}
	samples := map[[4]string]*profile.Sample{}
	for _, r := range p.Records() {
		prof.DurationNanos = max(prof.DurationNanos, int64(r.End))
		if r.Kind == KindRange {
			continue
		}
		dev := deviceLabel(r.Device)
		thread := dev + " host"
		if r.Stream >= 0 {
			thread = dev + " stream " + strconv.Itoa(r.Stream)
		}
		key := [4]string{dev, thread, string(r.Kind), r.Name}
		s, ok := samples[key]
		if !ok {
			s = &profile.Sample{
				Value: make([]int64, 3),
				Label: map[string][]string{"kind": {string(r.Kind)}, "device": {dev}},
			}
			if r.Name != "" {
				s.Location = append(s.Location, location(r.Name))
			}
			s.Location = append(s.Location, location(string(r.Kind)), location(thread), location(dev))
			samples[key] = s
			prof.Sample = append(prof.Sample, s)
		}
		s.Value[0]++
		s.Value[1] += int64(r.Duration())
		s.Value[2] += r.Bytes
	}
	return prof
}
