package bpat

import "math"

// Playback says which two baked frames to blend for a phase, and how much of the
// second: pose = lerp(frame Frame, frame Next, Lerp).
type Playback struct {
	Frame, Next int
	Lerp        float32
}

// Resolve turns a clip phase into frames by the rules of docs/formats/bpat.md §5. A looping
// clip wraps any phase into [0,1) and blends its last frame back into its first; a
// one-shot clamps the phase to [0,1] and reaches its stored end pose at phase 1.
// A NaN phase plays as 0.
func Resolve(phase float64, frames int, loops bool) Playback {
	if frames <= 1 {
		return Playback{}
	}
	n := float64(frames)
	if loops {
		pos := (phase - math.Floor(phase)) * n
		frame := int(pos)
		if uint(frame) >= uint(frames) { // pos rounded up to n, or a NaN/Inf phase
			if pos == n {
				frame = frames - 1
			} else {
				pos, frame = 0, 0
			}
		}
		next := frame + 1
		if next == frames {
			next = 0
		}
		return Playback{frame, next, float32(pos - float64(frame))}
	}
	w := phase
	if !(w > 0) { // also NaN
		w = 0
	} else if w > 1 {
		w = 1
	}
	pos := w * (n - 1)
	frame := min(int(pos), frames-1)
	return Playback{frame, min(frame+1, frames-1), float32(pos - float64(frame))}
}

// Resolve is Resolve for clip clip of the file.
func (f *File) Resolve(clip int, phase float64) Playback {
	c := &f.clips[clip]
	return Resolve(phase, c.FrameCount, c.Loops)
}

// Sample blends the two frames that phase falls between into palette (at least
// BoneCount·16 floats) and, when sockets is not nil, the socket data into sockets
// (at least SocketCount·12 floats). It does not allocate.
func (f *File) Sample(clip int, phase float64, palette, sockets []float32) Playback {
	p := f.Resolve(clip, phase)
	f.SampleFrames(clip, p, palette, sockets)
	return p
}

// SampleFrames blends the frames p names, as Sample does.
func (f *File) SampleFrames(clip int, p Playback, palette, sockets []float32) {
	Lerp(palette, f.Palette(clip, p.Frame), f.Palette(clip, p.Next), p.Lerp)
	if sockets != nil && f.socketSize > 0 {
		Lerp(sockets, f.SocketData(clip, p.Frame), f.SocketData(clip, p.Next), p.Lerp)
	}
}

// Lerp writes a + (b−a)·t element by element into dst[:len(a)]; b and dst must be
// at least as long as a. On amd64 it runs four floats per SSE instruction, with the
// same float32 operations, so results are identical on every platform.
func Lerp(dst, a, b []float32, t float32) {
	n := len(a)
	dst, b = dst[:n], b[:n]
	i := lerpVector(dst, a, b, t)
	for ; i < n; i++ {
		dst[i] = a[i] + float32((b[i]-a[i])*t) // no fused multiply-add: the same rounding as the SSE loop
	}
}
