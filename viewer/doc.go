// Package viewer is bonebake's local web viewer: an HTTP server that computes
// crowds of baked creatures with bonebake's runtime, and an embedded WebGL2 page
// that draws them.
//
// The split: the server computes the crowd, the page only draws it. For a
// layout, a unit count and a seed the server builds a Scene and advances it one
// step per request, exactly as a game linking the runtime would:
//
// The battle and the parade play from one registry.Registry of every asset
// (slots.go): an asset that is a built-in species in its species' slot (by the
// runtime's rule, registry.Registry.LoadEach: by name, then species id;
// docs/species.md §1), any other in a slot of the viewer's own
// (registry.WithSlot, filled with registry.Memory(file).Into(slot)).
//
//   - battle: crowd/battle over the registry's built-in species: targets,
//     movement, the combat timeline and Crowd.Animate with the runtime's intent →
//     state → clip tables (docs/runtime.md). Positions, headings, clips and frames
//     are the battle's; a rider sits on its horse, whose record carries the rider's
//     frames. Assets that are not built-in species cannot fight: the answer says
//     so, and they show in the parade;
//   - parade: every asset's units in rows, cycling through its clips at about
//     1/duration each, played by a crowd.Player over the same registry: its crowd.Batch steps
//     phase += rate·dt, then phase → frame, next, lerp by docs/formats/bpat.md §5,
//     and its one-shots replay after holding their end pose. A horse's rider
//     (crowd.Player.Ride) plays the clip the rider archetype's table maps to the
//     state the horse's clip stands for (registry.RiderClips). The rows are
//     lanes (travel.go): a unit on a looping clip with a ground speed (the
//     registry's gait) walks along +x at rate · speed · cycle (its units turned
//     to face the way its clips travel, the sidecar's direction, and a unit on
//     a strafe or a walk backwards to that clip's own axis), so that planted
//     feet stand still on the ground, and wraps at the lanes' end, shrunk into
//     the ground over their last metre and grown over their first (the focus
//     unit spared); a seek moves it by the stride it skips.
//
// A clip chosen for an asset (the page's clip table) plays on all its units: the
// parade's through its crowd.Player, a battle's through the battle's own Crowd
// (crowd.Crowd.Override: the unit stays the battle's, which plays on
// underneath, and shows the clip); pause, single steps and speed are the page
// choosing dt. Clip changes cross-fade (docs/runtime.md §6.1): the battle's in
// Crowd.Animate, chosen clips through Player.Change and Crowd.Override, over the
// time registry.Registry.ClipFade gives (the asset's species' fade table for
// the states its clips stand for; registry.FadeLocomotion for an asset that is
// no built-in species); a unit of a battle fades into a chosen clip from the
// battle's pose and back out of it. A step of no time (the page paused)
// switches at once (a battle's Crowd animated for no time shows it), and
// fades=0 turns fades off (Crowd.NoFade, fade 0 for chosen clips). Each step answers every unit's 32-float GPU record
// (frame row, next row, lerp, level, tint, x, z, yaw, scale, the rider's frames,
// then the unit's and the rider's crowd.Blend: docs/viewer-wire.md, defined in
// wire.go, which generates the page's web/wire.js), grouped by asset, so the page uploads
// them as they come; it asks for step k+1 while it draws step k.
//
// A parade made with SceneParams.Clock plays in the GPU clock mode
// (docs/runtime.md §6.2; clock.go): its crowd.Player keeps each playback unit's
// crowd.TimeRecord and rewrites it only when the unit's clip, rate or phase is
// set (an override, a one-shot replayed, a seek), by crowd.Batch's rules, fades
// included (the parade plays clips by number, which GPUClock.Commit's intent
// rules cannot). A step then answers
// the time and only the changed units' records (appendClock), each with its
// travel (its speed along its lane since a time, which the resolve pass
// plays on, so that a walking unit's entry is sent only when its speed
// changes); the page keeps
// them and a vertex shader (web/clock.vert.glsl, crowd.TimeRecord.At in GLSL,
// the rule itself, swings' eased timeline included, from the core's PLAYBACK
// chunk) resolves them at that time into the same
// 32-float records, written by transform feedback into the instance buffers,
// so every draw (palette or BAT skinning, riders, the sword, socket gizmos)
// reads what it reads per frame. With level of detail on, the player chooses
// the levels at each step's time (crowd.Player.Advance), the answer carries the
// units whose levels changed (appendLevels), and the page resolves each level's
// units into that level's instance buffer with their level's rows. The page
// asks for the clock mode from 5,000 units, or as the panel or clock=0|1 says.
// A battle plays per frame: its units move every step and its swings run on
// the frame-stepped combat.
//
// The page (plain HTML, JavaScript and GLSL under web/, embedded with go:embed;
// nothing from a CDN, no build step) draws with the npm package's core
// (js/bonebake-three/src/core, embedded too and served under /core/): the
// playback rule, and the skinning of a three.js page. It fetches each asset's
// palette block as the bytes stored in its BPAT file and multiplies it by the
// mesh's inverse binds once (the core's SkinPalette: three texels a bone and
// frame). Before each draw the core's pass (web/pose.js) writes every drawn
// unit's posed matrices into a texture: the rows its record names, lerped
// element by element, a fading unit's (1−W−Q)·its own + W·the faded-from
// clip's + Q·the prior's; the vertex shader then reads three texels per
// influence and applies the instance transform. Attached draws (a rider, the
// sword, socket gizmos) follow their carrier's socket or bone, posed by the
// same pass from the socket data or the palette. One instanced draw per
// species (per glTF primitive for a model with materials, coloured by its base
// colour factor and sRGB texture; a glTF model's palettes are in its scene's
// space, so it stands as any glTF viewer shows it with no correction).
//
// Level of detail (docs/runtime.md §6.4, lod.go and web/lod.js) is on for every
// crowd unless the page says lod=0: the page sends its camera's position (eye=x,y,z)
// with each step; the server writes every unit's distance from it into the
// runtime's batches (crowd.Batch.EnableLOD: the battle's and the playback's, at
// each species' registry.DefaultLOD distances), which choose the levels, and puts each
// unit's level in its record (float 3; a horse's rider's in float 15). The page
// draws each level from an instance buffer of its own: full as above, reduced with
// the two heaviest influences renormalized (the runtime already gives the floor
// frame), snapshot from the asset's snapshot mesh (NAME_minimal.bpsm beside a
// .bpat file, baked in memory for a built-in species; docs/formats/bpsm.md),
// uploaded once as a texture and read by frame, with no skinning. A rider is drawn
// at its own level on its horse's saddle; the page gives a snapshot unit's record
// the palette frame at the time of its snapshot frame, so the sword, the rider's
// saddle, the overlays and the BAT mode follow the pose the snapshot shows.
//
// The BAT mode draws the crowd skinned from bone animation textures instead (or
// side by side: palette in the left half, BAT in the right, one camera). For a
// meshed asset and a preset and format the server bakes them once from the
// asset's own BPAT palettes (bat.FromBPAT, no padding, so palette frame row r is
// texture row r + 1), verifies them (the report's max_error) and decodes the
// files into the stored channel values; the page uploads those as RGBA32F and
// bat.vert.glsl rebuilds each vertex by docs/formats/bat.md §3, decoding
// c·range + offset itself, so what it draws carries the files' precision (a
// fading unit: each clip's vertex, weighted as the palette path weighs rows).
//
// The server answers only these routes, on GET or HEAD unless marked; those
// marked * change state or start work and take the run's token (below):
//
//	/                              the page (index.html)
//	/<file>                        one of the embedded page files, by exact name
//	/core/<file>                   a file of the npm package's core (js/bonebake-three/src/core), embedded
//	/api/assets                    JSON: every asset with its clips, sockets, bones (docs/json.md)
//	/api/assets/{id}/palette       the palette block, byte for byte as in the file
//	/api/assets/{id}/socketdata    the socket data block, byte for byte
//	/api/assets/{id}/mesh          the mesh, inverse binds and parts (see EncodeMesh)
//	/api/assets/{id}/texture/{k}   a glTF model's base colour image, as the file holds it
//	/api/assets/{id}/snapshot      its snapshot mesh (.bpsm), byte for byte, where it has one
//	/api/bat/{id}?preset=…&format=…        * the asset's BAT bake (docs/formats/bat.md): the report, max_error verified
//	/api/bat/{id}/texels?preset=…&format=… * its textures' stored values and TEXCOORD_1, for the page (see encodeTexels)
//	/api/bat/{id}/{file}?preset=…&format=… * a file of that bake, byte for byte (textures, mesh, XML report)
//	POST /api/crowd              * a new crowd (SceneParams as JSON) → its id, units per asset, riders, fade tables (rules), extent, playback
//	/api/crowd/{id}/step?dt=…    * advance it (also focus, clips, seek, fades, eye, lod) → the records, or the changed time records (see Scene.AppendStep)
//
// Anything else is 404: the server never reads a file by a name a request gives,
// and lists no directory. Bad crowd parameters are 400 with the reason. At most
// MaxUnits units a crowd and MaxCrowds crowds live (a new one evicts the oldest).
// It listens on loopback by default and, while it does, refuses requests whose
// Host header names anything but a loopback host (a guard against DNS rebinding).
//
// A page on another site can make the browser send requests to the viewer, so
// the server answers those that change state or start work (*) only from its
// own page (guard.go): each must carry the server's token, 32 random bytes new
// each run that the served index.html holds in <meta name="bonebake-token"> and
// the page sends in the X-Bonebake-Token header (TokenHeader), which another
// site can neither read nor send (a custom header needs a CORS preflight, which
// the server never grants; an <img> or a form sets no header); any request whose
// Origin header is present and is not the viewer's own (http or https, the
// request's Host) is refused; and POST /api/crowd takes application/json only
// (415 otherwise), never a cross-site "simple" request. A missing or wrong token
// or a foreign Origin is 403 with the reason. Reading the page, its files and
// /api/assets needs no token: they start no work, and another site cannot read
// the answers. With a non-loopback address (AllowAnyHost) the Host check is off:
// the page works from any machine that reaches it (its Origin is then that
// address), and a site whose host name is made to resolve to this address can
// read the page and its token, which `bonebake view` warns of.
//
// At most MaxBuilding crowds are built at once; a POST /api/crowd beyond that
// is 503 with Retry-After, not queued (the page sends one at a time and retries).
// A crowd of MaxUnits allocates at most about 12 MiB while built and keeps about
// 14 MiB once built and stepped (TestCrowdBuildMemory), so crowds being built
// hold at most 24 MiB and built ones 56 MiB. At most MaxBaking BAT bakes run at
// once (the page asks for every asset's together; the rest wait their turn), and
// the finished ones are kept within 512 MiB (maxBATCache).
//
// The page draws a frame every animation frame while playing; paused, only when
// what it shows may have changed (a step's answer, input, a hook call, a load
// that finished) or a frame is waited for (nextFrames), so stats.frames counts
// the frames drawn.
//
// The page takes URL parameters for reproducible views: n (units, 1-20000),
// layout (parade or battle), only=1 (a crowd of the selected species alone), asset
// and clip (select a species and play one clip on all of it), paused=1, t (seconds
// of crowd time before the first frame), skeleton=0, sockets=0, props=0, focus=1
// (a close-up, which follows the selected species' first unit as it walks, over
// a fine grid fixed to the ground), frame=1 (the whole crowd however far: by default the page opens on
// the crowd framed, but no farther from the selected species' first unit than its
// full-detail distance, so that it is drawn at full detail), yaw, pitch and zoom (the camera), aa=0 (no multisampling, for
// software renderers), bat (bat: skin from the BAT textures; side: palette left,
// BAT right), preset and format (the BAT bake's), fades=0 (clip changes pop),
// clock=1 or clock=0 (the GPU clock mode for any parade, or never), lod=0 (every
// unit at full detail), lodcolor=1 (units tinted by level). It
// exposes window.bonebake for tests: ready, error, state,
// stats {frames, drawCalls, instances, glErrors, frameMs, alive, playback,
// recordsSent, steps, records}, resolve (the §5 math), clockResolve (the clock
// mode's resolve pass on given time records), and setInstances, setLayout,
// setCrowdSpecies, selectAsset, selectClip, seek, step (a frame, or seconds),
// setFades, setClock, setBAT and settled (promises that
// resolve once the change is drawn; selectClip(name, seconds) sends the change
// with a step of that much time, so a paused crowd fades), batReport, play,
// pause, setSpeed, frameCrowd, focusSelected, camera, glError, sync, nextFrames,
// drawTimed (the milliseconds a frame takes to draw, the GPU finished),
// crowdRect, focusInstance, project and viewProj (the matrix project uses); for level of detail setLOD, setLODColour,
// lodStats, lodLevels, resetLODSwitches, snapshotsLoaded and eye.
package viewer
