// Package bonebakethree is the Go side of the npm package in this folder
// (js/bonebake-three): Core, the package's core files embedded for the viewer,
// and the Go tests that drive the package: its node tests (which also run the
// shared golden playback cases and check the JavaScript readers against
// formats/bpat on the same bytes) and its three.js binding in headless Chromium.
package bonebakethree

import (
	"embed"
	"io/fs"
)

//go:embed src/core/*.js
var coreFiles embed.FS

// Core is the package's core (src/core: the readers, the playback rule, the
// skinning pass and its GLSL chunks; plain ES modules that import nothing but
// each other), with its files at the root: the viewer serves them to its page
// under /core/, so that `bonebake view` draws with the same code as a three.js
// page, with no npm step and no CDN.
var Core fs.FS = mustSub(coreFiles, "src/core")

func mustSub(f fs.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // dir is a constant the embed pattern above names
	}
	return s
}
