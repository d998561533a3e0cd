package vulkan_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// successStatuses are the VkResults that report a call that did its work.
var successStatuses = map[string]bool{
	"VK_SUCCESS": true, "VK_EVENT_SET": true, "VK_EVENT_RESET": true, "VK_SUBOPTIMAL_KHR": true,
	"VK_THREAD_IDLE_KHR": true, "VK_THREAD_DONE_KHR": true, "VK_OPERATION_DEFERRED_KHR": true,
	"VK_OPERATION_NOT_DEFERRED_KHR": true,
}

func TestVkResultTable(t *testing.T) {
	codes := vulkan.VkResultCodes()
	require.Len(t, codes, 50, "every VkResult of the Vulkan 1.4 registry")
	names := map[string]bool{}
	for i, c := range codes {
		t.Run(c.Name, func(t *testing.T) {
			if i > 0 {
				assert.Less(t, codes[i-1].Value, c.Value, "sorted, unique values")
			}
			assert.False(t, names[c.Name], "unique name")
			names[c.Name] = true
			assert.Regexp(t, `^VK_[A-Z0-9_]+$`, c.Name)
			got, ok := vulkan.VkResultCode(c.Value)
			require.True(t, ok)
			assert.Equal(t, c, got)

			assert.Equal(t, successStatuses[c.Name], c.Category == errors.None, "None exactly for the success statuses")
			assert.Equal(t, c.Value < 0, strings.HasPrefix(c.Name, "VK_ERROR_"), "errors are negative")
			assert.False(t, c.Fatal && c.Retryable, "fatal codes are not retryable")
			if c.Category == errors.DeviceLost {
				assert.True(t, c.Fatal)
			}
			if c.Category == errors.Internal {
				assert.Contains(t, []string{"VK_ERROR_UNKNOWN", "VK_INCOMPLETE"}, c.Name, "Internal only where nothing better fits")
			}
			checkPhrase(t, "message", c.Msg)
			checkPhrase(t, "hint", c.Hint)
			assert.GreaterOrEqual(t, len(c.Hint), 20)
			assert.NotEqual(t, c.Category.DefaultHint(), c.Hint)

			err := vulkan.FromVkResult(c.Value, "op")
			if c.Category == errors.None {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, "vulkan: op: "+c.Msg+" ("+c.Name+"): "+c.Hint, err.Error())
			assert.Equal(t, c.Category, errors.CategoryOf(err))
			assert.Equal(t, c.Fatal, errors.IsFatal(err))
			assert.Equal(t, c.Retryable, errors.IsRetryable(err))
			assert.ErrorIs(t, err, c.Category)
		})
	}
	for name, value := range map[string]int64{
		"VK_ERROR_OUT_OF_DEVICE_MEMORY": -2, "VK_ERROR_DEVICE_LOST": -4, "VK_ERROR_INCOMPATIBLE_DRIVER": -9,
		"VK_ERROR_OUT_OF_POOL_MEMORY": -1000069000, "VK_ERROR_VALIDATION_FAILED": -1000011001,
		"VK_ERROR_NOT_ENOUGH_SPACE_KHR": -1000483000, "VK_PIPELINE_BINARY_MISSING_KHR": 1000483000,
	} {
		c, ok := vulkan.VkResultCode(value)
		if assert.True(t, ok, name) {
			assert.Equal(t, name, c.Name)
		}
	}
	oom, _ := vulkan.VkResultCode(-2)
	assert.Equal(t, errors.OutOfMemory, oom.Category)
	assert.True(t, oom.Retryable)
	lost, _ := vulkan.VkResultCode(-4)
	assert.True(t, lost.Fatal)
	nodrv, _ := vulkan.VkResultCode(-9)
	assert.Equal(t, errors.Unavailable, nodrv.Category)
	assert.Contains(t, nodrv.Hint, "VK_DRIVER_FILES")

	err := vulkan.FromVkResult(-77, "op")
	assert.Equal(t, errors.Internal, errors.CategoryOf(err))
	assert.Contains(t, err.Error(), "VK_RESULT_UNKNOWN_-77")
}

// TestVkResultTableCoversHeader checks the table against the VkResult enum of
// the installed vulkan_core.h (Debian's libvulkan-dev), where there is one.
func TestVkResultTableCoversHeader(t *testing.T) {
	src, err := os.ReadFile("/usr/include/vulkan/vulkan_core.h")
	if err != nil {
		t.Skip("no vulkan_core.h:", err)
	}
	enum := regexp.MustCompile(`(?s)typedef enum VkResult \{(.*?)\} VkResult;`).FindSubmatch(src)
	require.NotNil(t, enum)
	n := 0
	for _, m := range regexp.MustCompile(`(VK_[A-Z0-9_]+) = (-?\d+),`).FindAllSubmatch(enum[1], -1) {
		v, err := strconv.ParseInt(string(m[2]), 10, 64)
		require.NoError(t, err)
		c, ok := vulkan.VkResultCode(v)
		if assert.True(t, ok, "%s (%d) is missing from the table", m[1], v) {
			name := strings.TrimSuffix(strings.TrimSuffix(string(m[1]), "_EXT"), "_KHR")
			assert.True(t, strings.HasPrefix(c.Name, name), "%d: table says %s, header %s", v, c.Name, m[1])
		}
		n++
	}
	assert.Greater(t, n, 40)
}

func checkPhrase(t *testing.T, what, s string) {
	t.Helper()
	require.NotEmpty(t, s, what)
	first, _, _ := strings.Cut(s, " ")
	r := []rune(first)[0]
	assert.True(t, !unicode.IsUpper(r) || strings.ToUpper(first) == first, "%s %q starts lower-case", what, s)
	assert.False(t, strings.HasSuffix(s, "."), "%s %q: no full stop", what, s)
	assert.NotContains(t, s, "\n")
}
