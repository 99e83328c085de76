package viewer

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// What a page on another site can do to the viewer: nothing that changes state
// or starts work. A browser sends any site's requests to a loopback server, so
// the viewer answers such requests only from its own page:
//
//   - a request whose Origin header is present and is not the viewer's own
//     (the scheme and the request's Host) is refused, whatever it asks for;
//   - every request that changes state or starts work (POST /api/crowd, a
//     crowd's step, a BAT bake and its files) must carry the run's token in
//     the TokenHeader header. The token is random per server and written into
//     the page it serves, which another site cannot read; a custom header
//     cannot be sent cross-site without a CORS preflight, which the viewer never
//     grants; an <img>, a <form> or a link cannot set it at all;
//   - POST /api/crowd takes application/json only, so it is never a "simple"
//     cross-site request (text/plain, a form) a browser sends without asking.
//
// Reading the page, its files and /api/assets needs no token: it starts no work
// and another site's page cannot read the answers.

// TokenHeader is the request header that carries the server's token.
const TokenHeader = "X-Bonebake-Token"

// tokenMeta is the element of index.html whose content the server fills with
// its token; the page's gl.js reads it.
const tokenMeta = `<meta name="bonebake-token" content="">`

// MaxBuilding is how many crowds the server builds at once. A crowd of MaxUnits
// units of the built-in creatures allocates at most buildMB while it is built
// and keeps at most builtMB once built and stepped (TestCrowdBuildMemory), so
// crowds being built hold at most MaxBuilding × 12 = 24 MiB and built ones
// MaxCrowds × 14 = 56 MiB. A request beyond it is refused at once with 503 and
// Retry-After, not queued.
const MaxBuilding = 2

// buildMB and builtMB are what a crowd of MaxUnits units holds, at most, while it
// is built and once built, in MiB (TestCrowdBuildMemory measures them).
const buildMB, builtMB = 12, 14

// newToken returns 32 random bytes in hex.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return hex.EncodeToString(b)
}

// withToken returns the page with the token written into its tokenMeta element.
func withToken(page []byte, token string) []byte {
	return bytes.Replace(page, []byte(tokenMeta), []byte(`<meta name="bonebake-token" content="`+token+`">`), 1)
}

// Token returns the token a request that changes state or starts work must
// carry in TokenHeader; the page the server serves holds it in
// <meta name="bonebake-token">. It is new each time a server is made.
func (s *Server) Token() string { return s.token }

// foreignOrigin returns why r's Origin is not the viewer's own, or "" when r has
// no Origin (a same-origin GET, a tool such as curl) or has the viewer's: http
// or https with the host and port the request was sent to. "null" (a sandboxed
// frame, a file: page) is foreign.
func foreignOrigin(r *http.Request) string {
	vs := r.Header.Values("Origin")
	if len(vs) == 0 {
		return ""
	}
	if len(vs) > 1 {
		return fmt.Sprintf("%d Origin headers", len(vs))
	}
	u, err := url.Parse(vs[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return fmt.Sprintf("Origin %q", vs[0])
	}
	if !strings.EqualFold(hostPort(u.Host, u.Scheme), hostPort(r.Host, u.Scheme)) {
		return fmt.Sprintf("Origin %q is not this viewer's (http://%s)", vs[0], r.Host)
	}
	return ""
}

// hostPort returns host with the scheme's default port made explicit, so that
// "example.com" and "example.com:80" compare equal under http.
func hostPort(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "80"
	if scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), port)
}

// checkToken answers 403 and returns false unless r carries the server's token.
func (s *Server) checkToken(w http.ResponseWriter, r *http.Request) bool {
	got := r.Header.Get(TokenHeader)
	if got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1 {
		return true
	}
	why := "no " + TokenHeader + " header"
	if got != "" {
		why = TokenHeader + " is not this run's token"
	}
	http.Error(w, fmt.Sprintf("%s %s: %s: the viewer changes state or starts work only for its own page, which carries the token (reload the page: the token is new each run)", r.Method, r.URL.Path, why), http.StatusForbidden)
	return false
}

// checkJSON answers 415 and returns false unless r's body is declared JSON.
func checkJSON(w http.ResponseWriter, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return true
	}
	http.Error(w, fmt.Sprintf("%s %s: Content-Type %q: want application/json", r.Method, r.URL.Path, ct), http.StatusUnsupportedMediaType)
	return false
}

// startBuild takes one of the MaxBuilding build slots, or answers 503 and
// returns false when all are taken. done gives the slot back.
func (s *Server) startBuild(w http.ResponseWriter) (done func(), ok bool) {
	select {
	case s.building <- struct{}{}:
		return func() { <-s.building }, true
	default:
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("the viewer is already building %d crowds, its most at once: try again in a moment", MaxBuilding), http.StatusServiceUnavailable)
		return nil, false
	}
}
