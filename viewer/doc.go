// Package viewer is bonebake's local web viewer: an HTTP server that hands a
// browser BPAT palettes, meshes and clip tables, and an embedded WebGL2 page that
// draws crowds of baked creatures from them.
//
// The page (plain HTML, JavaScript and GLSL under web/, embedded with go:embed;
// nothing from a CDN, no build step) fetches each asset's palette block as the
// bytes stored in its BPAT file and uploads them unchanged as an RGBA32F texture
// (FACTS §1.1: width bone_count·4 texels, one row per frame; texel k of a bone is
// row k of its model-space matrix). For each bone influence the vertex shader
// reads rows 0-2 (palette entries are affine) of the frame and of the next frame,
// blends them element by element, multiplies by the mesh's inverse bind matrix
// and applies the instance transform: one instanced draw per species (per glTF
// primitive for a model with materials, coloured by its base colour factor and
// sRGB texture, and turned by its mesh node's rest rotation in the scene, since its
// palette is in that node's space). The per-instance (frame, next, lerp) comes from the phase by the
// rules of FACTS §1.5, the same as bpat.Resolve.
//
// The server answers only these routes, on GET or HEAD:
//
//	/                              the page (index.html)
//	/<file>                        one of the embedded page files, by exact name
//	/api/assets                    JSON: every asset with its clips, sockets, bones
//	/api/assets/{id}/palette       the palette block, byte for byte as in the file
//	/api/assets/{id}/socketdata    the socket data block, byte for byte
//	/api/assets/{id}/mesh          the mesh, inverse binds and parts (see EncodeMesh)
//	/api/assets/{id}/texture/{k}   a glTF model's base colour image, as the file holds it
//
// Anything else is 404: the server never reads a file by a name a request gives,
// and lists no directory. It listens on loopback by default and, while it does,
// refuses requests whose Host header names anything but a loopback host (a guard
// against DNS rebinding).
//
// The page takes URL parameters for reproducible views: n (instances, 1-20000),
// layout (parade or battle), only=1 (a crowd of the selected species alone), asset
// and clip (select a species and play one clip on all of it), paused=1, t (the
// clock in seconds), skeleton=0, sockets=0, props=0, focus=1 (a close-up), yaw,
// pitch and zoom (the camera), aa=0 (no multisampling, for software renderers).
// It exposes window.bonebake for tests: ready, error, state, stats {frames,
// drawCalls, instances, glErrors, frameMs}, resolve (the §1.5 math), setInstances,
// setLayout, setCrowdSpecies, selectAsset, selectClip, play, pause, step,
// setSpeed, setTime, frameCrowd, focusSelected, camera, glError, sync,
// nextFrames, crowdRect, focusInstance and project.
package viewer
