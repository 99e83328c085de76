package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/iopath"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species/creatures"
	"github.com/bonebake/bonebake/viewer"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newViewCmd() *cobra.Command {
	var (
		addr    string
		open    bool
		dir     string
		species speciesFlag
		model   modelFlags
	)
	cmd := &cobra.Command{
		Use:   "view [PATH...] [--addr 127.0.0.1:0] [--open] [--up AXIS] [--scale S] [--face AXIS] [--plant-feet] [--in-place] | view MODEL --clips A.glb B.bvh...",
		Short: "Show baked creatures in a local web viewer",
		Long: `Start a local web server with a WebGL2 viewer and print its URL. The page draws
crowds of up to 20,000 animated instances skinned on the GPU from the BPAT
palettes by the same code as the bonebake-three npm package (embedded: no npm
step, no CDN), with the clip list, a timeline with markers, socket gizmos,
props, a skeleton overlay and an info panel.

The server animates the crowd with bonebake's runtime, so the page shows what a
game gets: the battle layout is the battle 'bonebake simulate' runs (the built-in
species only), the parade plays every asset's clips with the runtime's playback
kernel.

With no PATH it shows the .bpat files in assets/creatures (drawn with the meshes
of the built-in species of the same names) or, when there are none, the built-in
creatures baked in memory. Given .bpat files, glTF models (.gltf, .glb), FBX
models (.fbx) or BVH motion capture (.bvh; all baked on the fly) it shows those;
a .bpat without a known mesh, and a BVH file, are drawn as a box per bone. --up
gives BVH files' up axis as 'bake --up' does (default: found from each
skeleton); --scale bakes the models scaled, as 'bake --scale' does: a model
whose size looks like centimetres (Fox.glb, 155 m across) has a hint saying so
on the page, and on stderr as view starts, as bake prints it.
--face, --plant-feet and --in-place turn the models, lock their feet to the
ground and take their clips' root motion out as 'bake --face', 'bake
--plant-feet' and 'bake --in-place' do, so the page shows what those bakes give.

With --clips, the first PATH is a glTF, FBX or BVH model and the others are clip
files: their animations are baked onto the model's skeleton by joint name, as
'bake --clips' does (--retarget, --up and --scale as there).

The server listens on loopback unless --addr says otherwise and serves nothing
but the page and the assets it was given. It builds crowds, steps them and bakes
bone animation textures only for its own page: requests that do must carry the
token written into the page (header X-Bonebake-Token), and a request from a page
on another site (its Origin) is refused. On loopback it also refuses any Host
but a loopback one (DNS rebinding); a non-loopback --addr turns that check off,
and says so. Stop it with Ctrl-C.`,
		Example: `  bonebake view
  bonebake view testdata/gltf/Fox.glb --scale 0.01 --open
  bonebake view out/*.bpat --addr 127.0.0.1:8080
  bonebake view ybot.glb --clips walking.glb flair.glb
  bonebake view walk.bvh --up +Z --clips run.bvh`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			var (
				assets []*viewer.Asset
				what   string
			)
			start := time.Now()
			if err := refuseFlags(cmd.Flags(), []flagRule{ // before Check, which names a manifest's clips too
				{model.set.Retarget && !cmd.Flags().Changed("clips"), []string{"retarget"}, "applies to the clips of --clips"}}); err != nil {
				return err
			}
			set, err := model.settings(cmd.Flags())
			if err != nil {
				return err
			}
			if paths, err = clipArgs(cmd, &set, paths); err != nil {
				return err
			}
			for _, p := range paths { // a folder is a path to view too: only a missing one is refused here
				if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
					return iopath.Input(p) // "p: no such file", as every command says it
				}
			}
			if cmd.Flags().Changed("clips") {
				if kind, err := formats.SniffFile(paths[0]); err != nil {
					return err
				} else if !gltfbake.IsModel(kind) {
					return usagef("--clips puts clips on a glTF, FBX or BVH model; %s is not one", paths[0])
				}
				if err := iopath.Inputs(set.ClipFiles...); err != nil {
					return err
				}
			}
			if len(paths) > 0 {
				if err := set.CheckUpUsed(paths); err != nil {
					return libError(err)
				}
				if err := checkModelFlagsUsed(cmd.Flags(), paths); err != nil {
					return err
				}
			}
			// The address first: a port in use or a bad --addr is said at once,
			// not after the assets are loaded (seconds for glTF models).
			ln, err := net.Listen("tcp", addr)
			if errors.Is(err, syscall.EADDRINUSE) {
				host, port, _ := net.SplitHostPort(addr)
				return fmt.Errorf("port %s on %s is already in use (another bonebake view?): choose another with --addr %s:PORT, or --addr %s:0 for any free port", port, host, host, host)
			}
			if err != nil {
				return usagef("--addr %q: %v", addr, err)
			}
			defer ln.Close()
			if len(set.ClipFiles) > 0 {
				var a *viewer.Asset
				a, err = viewer.LoadGLTFWith(paths[0], set)
				assets, what = []*viewer.Asset{a}, fmt.Sprintf("%s with %s", paths[0], plural(len(set.ClipFiles), "clip file"))
			} else if len(paths) > 0 {
				assets, err = loadViewPaths(paths, set, species.option())
				what = plural(len(assets), "file")
			} else {
				if err := refuseFlags(cmd.Flags(), []flagRule{
					{set.Up != "", []string{"up"}, "applies to BVH files: name them (view walk.bvh --up +Z)"},
					{true, viewModelFlags, "applies to models (glTF, FBX, BVH): name them (view Fox.glb --scale 0.01)"},
				}); err != nil {
					return err
				}
				if cmd.Flags().Changed("dir") {
					if st, err := os.Stat(dir); err != nil || !st.IsDir() {
						return usagef("--dir %s: no such folder", dir)
					}
				}
				assets, what, err = viewer.Default(dir, creatures.All(), species.option())
			}
			if err != nil {
				return err
			}
			for _, a := range assets {
				a.Reword(flagWords)            // the page's warnings name flags, as bake's lines do
				if w := a.Warning(); w != "" { // in the terminal too, as bake and bat say it
					fmt.Fprintf(cmd.ErrOrStderr(), "bonebake view: %s: %s\n", a.Source, w)
				}
			}
			srv := viewer.New(assets)
			srv.AllowAnyHost = !viewer.IsLoopback(ln.Addr())
			url := pageURL(ln.Addr())
			if srv.AllowAnyHost {
				fmt.Fprintf(cmd.ErrOrStderr(), "bonebake view: warning: listening on %s, which is not loopback, so the Host check is off: "+
					"anyone who can reach this address can open the page, see the assets, build crowds and start BAT bakes, "+
					"and a site whose host name is made to resolve to this address (DNS rebinding) can do the same from a browser that reaches it; "+
					"pages on other sites still cannot (the Origin and token checks hold)\n", ln.Addr())
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "bonebake view: %s ready in %s; Ctrl-C stops\n", what, tookText(time.Since(start)))
			fmt.Fprintln(cmd.OutOrStdout(), url)
			if open {
				if err := openBrowser(url); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "bonebake view: --open: %v; open %s yourself\n", err, url)
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, ln, srv)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	fl.BoolVar(&open, "open", false, "open the page in a browser (xdg-open or open)")
	fl.StringVar(&dir, "dir", "assets/creatures", "where to look for .bpat files when no PATH is given")
	model.add(fl, "clips", "retarget", "up", "scale", "face", "plant-feet", "in-place")
	species.add(cmd)
	return cmd
}

// viewModelFlags are view's flags that change how a model is baked, as bake's do.
var viewModelFlags = []string{"scale", "face", "plant-feet", "in-place"}

// checkModelFlagsUsed refuses viewModelFlags where none of paths is a model they
// would change (.bpat files and folders of them are baked already).
func checkModelFlagsUsed(fl *pflag.FlagSet, paths []string) error {
	f := changed(fl, viewModelFlags...)
	if f == "" {
		return nil
	}
	for _, p := range paths {
		if kind, err := formats.SniffFile(p); err != nil || gltfbake.IsModel(kind) {
			return nil // a file that cannot be read is left to the loader, which names it
		}
	}
	return usagef("--%s applies to models (glTF, FBX, BVH), and none of %s is one: a .bpat file is baked already", f, strings.Join(paths, ", "))
}

// loadViewPaths loads the files view is given: a model with set's scale,
// face, planted feet and clips in place, and a BVH file with its up axis too
// (as bake --scale, --face, --plant-feet, --in-place, --up), the rest as
// viewer.Load reads them.
func loadViewPaths(paths []string, set gltfbake.Settings, read formats.Option) ([]*viewer.Asset, error) {
	if set.Up == "" && set.Scale == 0 && set.Face == "" && !set.PlantFeet && !set.InPlace {
		return viewer.Load(paths, creatures.All(), read)
	}
	var out []*viewer.Asset
	for _, p := range paths {
		if kind, err := formats.SniffFile(p); err == nil && gltfbake.IsModel(kind) {
			s := gltfbake.Settings{Scale: set.Scale, Face: set.Face, PlantFeet: set.PlantFeet, InPlace: set.InPlace}
			if kind == formats.BVH {
				s.Up = set.Up // glTF and FBX carry their own axes
			}
			a, err := viewer.LoadGLTFWith(p, s)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
			continue
		}
		as, err := viewer.Load([]string{p}, creatures.All(), read)
		if err != nil {
			return nil, err
		}
		out = append(out, as...)
	}
	return out, nil
}

// serve runs the server on ln until ctx is done, then shuts it down.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := viewer.HTTPServer(h)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// pageURL is the address to open the page at: the listener's own, or loopback
// when it listens on every interface.
func pageURL(addr net.Addr) string {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return "http://" + addr.String() + "/"
	}
	ip := ta.IP
	if ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return "http://" + net.JoinHostPort(ip.String(), strconv.Itoa(ta.Port)) + "/"
}

// openBrowser asks the desktop to open url.
func openBrowser(url string) error {
	var tools []string
	switch runtime.GOOS {
	case "darwin":
		tools = []string{"open"}
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url).Start()
	default:
		tools = []string{"xdg-open", "open"}
	}
	for _, t := range tools {
		if p, err := exec.LookPath(t); err == nil {
			c := exec.Command(p, url)
			if err := c.Start(); err != nil {
				return err
			}
			go c.Wait()
			return nil
		}
	}
	return fmt.Errorf("found none of %v to open a browser with", tools)
}
