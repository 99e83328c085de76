//go:build unix

package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestREADMEExamples runs every command of the README's sh blocks exactly as
// written, in order, from a folder laid out like the repository root (its
// testdata linked in), with `bonebake` on the PATH and `go run ./cmd/bonebake`
// standing for it. A command must exit 0; `bonebake view` must print its URL
// (then it is stopped). `go test` and `go install` lines are not run here.
func TestREADMEExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the README")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Dir(builtBinary(t)) // the folder put first on the PATH
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "testdata"), filepath.Join(work, "testdata")); err != nil {
		t.Fatal(err)
	}
	lines := readmeCommands(t, filepath.Join(root, "README.md"))
	if len(lines) < 10 {
		t.Fatalf("found only %d commands in the README", len(lines))
	}
	prelude := `go() { if [ "$1" = run ] && [ "$2" = ./cmd/bonebake ]; then shift 2; bonebake "$@"; else command go "$@"; fi; }` + "\n"
	for _, line := range lines {
		cmd := line
		if i := strings.Index(cmd, " #"); i >= 0 {
			cmd = strings.TrimSpace(cmd[:i])
		}
		fields := strings.Fields(cmd)
		if len(fields) >= 2 && fields[0] == "go" && (fields[1] == "test" || fields[1] == "install") {
			continue
		}
		// A limit for a command that hangs, not for speed: on a loaded machine
		// packing the built-in creatures has taken over a minute.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		sh := exec.CommandContext(ctx, "bash", "-c", prelude+cmd)
		sh.Dir = work
		sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "BROWSER=", "DISPLAY=")
		if isView(fields) {
			runView(t, sh, line)
			cancel()
			continue
		}
		out, err := sh.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("README: %s\n  failed: %v\n%s", line, err, out)
		}
	}
}

// readmeCommands returns the command lines of the README's sh blocks.
func readmeCommands(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(l, "```"):
			in = !in && l == "```sh"
		case in && l != "" && !strings.HasPrefix(l, "#"):
			out = append(out, l)
		}
	}
	return out
}

func isView(fields []string) bool {
	for i, f := range fields {
		if f == "view" && i > 0 && (fields[i-1] == "bonebake" || fields[i-1] == "./cmd/bonebake") {
			return true
		}
	}
	return false
}

// runView starts a `bonebake view` line and waits for the URL it prints.
func runView(t *testing.T, sh *exec.Cmd, line string) {
	t.Helper()
	stdout, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	sh.Stderr = &stderr
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // bash and the server it starts stop together
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-sh.Process.Pid, syscall.SIGKILL); sh.Wait() }()
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "http://") {
				got <- sc.Text()
				return
			}
		}
		close(got)
	}()
	select {
	case url, ok := <-got:
		if !ok {
			t.Errorf("README: %s\n  printed no URL: %s", line, stderr.String())
		}
		_ = url
	case <-time.After(30 * time.Second):
		t.Errorf("README: %s\n  no URL after 30 s: %s", line, stderr.String())
	}
}

// TestREADMEGoModuleSteps runs the README's steps for using bonebake from a new
// Go module against a local checkout, as written, on a program importing crowd:
// the module must build (issue 45 item 6: `replace` alone did not). Modules
// come from the local cache only (GOPROXY=off), so the test needs no network.
func TestREADMEGoModuleSteps(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "<!-- go module steps -->\n```shell\n")
	if !ok {
		t.Fatal("the README has no Go module steps block")
	}
	block, _, _ = strings.Cut(block, "```")
	dir := t.TempDir()
	game := filepath.Join(dir, "game")
	if err := os.Mkdir(game, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(dir, "bonebake")); err != nil {
		t.Fatal(err)
	}
	prog := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/bonebake/bonebake/crowd\"\n)\n\nfunc main() { fmt.Println(crowd.New(3).Len()) }\n"
	if err := os.WriteFile(filepath.Join(game, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		sh := exec.Command("bash", "-c", line)
		sh.Dir = game
		sh.Env = append(os.Environ(), "GOPROXY=off", "GOSUMDB=off", "GOFLAGS=", "GOWORK=off")
		if out, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
}
