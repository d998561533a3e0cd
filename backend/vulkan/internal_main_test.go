package vulkan

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// TestMain runs the package's internal tests under the validation layer
// (unless ANYGPU_VULKAN_VALIDATION is set) and fails on any message.
func TestMain(m *testing.M) {
	if os.Getenv(probeHelperEnv) == "1" {
		probeHelper()
		os.Exit(0)
	}
	if _, set := os.LookupEnv(EnvValidation); !set {
		os.Setenv(EnvValidation, "1")
	}
	code := m.Run()
	if msgs := ValidationMessages(); len(msgs) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d Vulkan validation messages:\n", len(msgs))
		for i, msg := range msgs {
			if i == 20 {
				break
			}
			fmt.Fprintln(os.Stderr, msg)
		}
		code = 1
	}
	os.Exit(code)
}

// probeHelperEnv makes the test binary a helper process that probes under
// the environment the probe tests set and prints the result as JSON.
const probeHelperEnv = "ANYGPU_VULKAN_TEST_PROBE_HELPER"

func probeHelper() {
	var r struct {
		Devices             int
		Category, Err, Hint string
		State, Reason       string
	}
	devs, err := Driver{}.Probe(context.Background())
	r.Devices = len(devs)
	if err != nil {
		r.Category, r.Err, r.Hint = errors.CategoryOf(err).String(), err.Error(), errors.Hint(err)
	}
	if st, ok := gpu.Probe(context.Background()).Backend(Name); ok {
		r.State, r.Reason = st.State.String(), st.Reason
	}
	out, _ := json.Marshal(r)
	fmt.Println("RESULT " + string(out))
}
