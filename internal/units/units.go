// Package units formats quantities for messages and tables.
package units

import "fmt"

// ByteSize formats a byte count with binary prefixes: "512 B", "1.0 KiB",
// "1.5 GiB". Negative counts keep their sign.
func ByteSize(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; (m >= unit || m <= -unit) && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
