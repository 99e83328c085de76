#!/bin/sh
# Regenerates this folder: the codec test vectors (vectors/) and the
# meshopt-compressed models. Needs node and npm; the Go tests need neither.
# Run from this folder:  sh make.sh [path/to/shared/testdata/gltf]
set -eu
here=$(pwd)
models=${1:-../../../../shared/testdata/gltf}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null && npm install --no-audit --no-fund meshoptimizer@1.3.0 gltfpack@1.3.0 >/dev/null)
cp vectors.mjs strip.mjs "$work"/
rm -rf vectors
(cd "$work" && node vectors.mjs "$here/vectors")

pack() { node "$work/node_modules/gltfpack/cli.js" "$@" >/dev/null; }
for m in Fox.glb CesiumMan.gltf RiggedSimple.gltf SimpleSkin.gltf; do
	b=${m%.*}
	in=$models/$m
	if [ "$b" = CesiumMan ]; then # its 210 KB texture is not needed here
		node "$work/strip.mjs" "$in" "$work/$m"
		in=$work/$m
	fi
	# lossless values: the palettes must equal the original's
	pack -i "$in" -o "$b.meshopt.glb" -c -noq -af 0 -ac -kn -km -tr
	# the same without compression: what the meshopt copy must decode to
	pack -i "$in" -o "$b.plain.glb" -noq -af 0 -ac -kn -km -tr
	# what web pipelines ship: quantized, filtered, v0 codec (EXT) and v1 codec (KHR)
	pack -i "$in" -o "$b.cc.glb" -cc -kn -tr
	pack -i "$in" -o "$b.khr.glb" -cc -ce khr -kn -tr
done
