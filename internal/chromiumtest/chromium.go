// Package chromiumtest starts the headless Chromium that the browser tests
// (the viewer's and the three.js package's) draw in, the one way for both.
package chromiumtest

import (
	"os"
	"os/exec"
	"strings"

	"github.com/chromedp/chromedp"
)

// Chromium returns the browser the browser tests run: $BONEBAKE_CHROMIUM, or
// Debian's chromium on the PATH; "" when there is none (the tests skip).
func Chromium() string {
	if p := os.Getenv("BONEBAKE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Flags are the flags DESIGN.md gives for browser tests, as
// "name" or "name=value": headless Chromium with WebGL2 on SwiftShader, or on
// what BONEBAKE_CHROMIUM_GL names instead (space-separated flags, e.g.
// "use-angle=vulkan ignore-gpu-blocklist" to run the tests on a machine's GPU),
// and no background work of the browser's own that would skew a timing.
func Flags() []string {
	gl := []string{"use-angle=swiftshader", "enable-unsafe-swiftshader"}
	if f := os.Getenv("BONEBAKE_CHROMIUM_GL"); f != "" {
		gl = strings.Fields(f)
	}
	return append(append([]string{"headless", "no-sandbox"}, gl...),
		"disable-background-networking", "disable-component-update", "disable-sync", "no-first-run")
}

// Options are the allocator options a browser starts with: Chromium, Flags
// and the extra flags given ("name" or "name=value"), its own profile in dir,
// a window of width × height.
func Options(exe, dir string, width, height int, extra ...string) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(exe), chromedp.UserDataDir(dir), chromedp.WindowSize(width, height)}
	for _, f := range append(Flags(), extra...) {
		if name, value, ok := strings.Cut(f, "="); ok {
			opts = append(opts, chromedp.Flag(name, value))
		} else {
			opts = append(opts, chromedp.Flag(name, true))
		}
	}
	return opts
}
