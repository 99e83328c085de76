package fbx

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
	"github.com/bonebake/bonebake/internal/regfile"
	"github.com/bonebake/bonebake/internal/words"
)

// maxImage bounds the bytes of one texture read from a file of its own, as
// the glTF source bounds an external image.
const maxImage = 256 << 20

// imageMIME names an image's type by its first bytes: PNG or JPEG, else "".
func imageMIME(data []byte) string {
	switch {
	case len(data) > 8 && string(data[1:4]) == "PNG":
		return "image/png"
	case len(data) > 3 && data[0] == 0xFF && data[1] == 0xD8:
		return "image/jpeg"
	}
	return ""
}

// textureNames are the files a texture kept outside the FBX may be, relative
// to the FBX's folder (§10): its RelativeFilename (the texture's or its
// Video's); the base name of its FileName, which holds the author's absolute
// path, beside the FBX; and that name in NAME.fbm, the folder the FBX SDK
// extracts a file's media to. Windows separators are read as '/'.
func (s *scene) textureNames(tex *fbxfile.Object, videos []*fbxfile.Object) []string {
	var rel, abs []string
	for _, o := range append([]*fbxfile.Object{tex}, videos...) {
		for _, c := range o.Node.Children {
			if len(c.Props) == 0 || c.Props[0].String == "" {
				continue
			}
			name := strings.ReplaceAll(c.Props[0].String, `\`, "/")
			switch c.Name {
			case "RelativeFilename":
				rel = append(rel, name)
			case "FileName", "Filename":
				abs = append(abs, name)
			}
		}
		if p := o.Props["Path"]; p != nil && len(p.Values) > 0 && p.Values[0].String != "" {
			abs = append(abs, strings.ReplaceAll(p.Values[0].String, `\`, "/"))
		}
	}
	fbm := strings.TrimSuffix(filepath.Base(s.path), filepath.Ext(s.path)) + ".fbm"
	var out []string
	add := func(n string) {
		n = filepath.Clean(filepath.FromSlash(n))
		for _, o := range out {
			if o == n {
				return
			}
		}
		out = append(out, n)
	}
	for _, n := range rel {
		add(n)
	}
	for _, n := range append(rel, abs...) {
		if b := filepath.Base(filepath.FromSlash(n)); b != "." && b != "/" && b != ".." {
			add(b)
			add(filepath.Join(fbm, b))
		}
	}
	return out
}

// externalTexture reads a texture kept in a file of its own from beside the
// FBX (§10): the first of textureNames that exists, read only inside root (the
// FBX's folder unless FilesRoot names another), a regular file of at most
// maxImage bytes. It returns the image and the name it was read from, or why
// none was.
func (s *scene) externalTexture(names []string, root string) ([]byte, string, error) {
	dir := filepath.Dir(s.path)
	if root == "" {
		root = dir
	}
	if len(names) == 0 {
		return nil, "", fmt.Errorf("it names no file")
	}
	var looked []string
	for _, n := range names {
		if filepath.IsAbs(n) {
			continue
		}
		rel, err := filepath.Rel(root, filepath.Join(dir, n))
		if err != nil || !filepath.IsLocal(rel) {
			looked = append(looked, n+" (outside "+root+", not read)")
			continue
		}
		looked = append(looked, n)
		f, st, err := regfile.OpenInRoot(root, rel)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, n, err
		}
		defer f.Close()
		if st.Size() > maxImage {
			return nil, n, fmt.Errorf("%s is %s, more than the %s allowed", n, words.Bytes(st.Size()), words.Bytes(maxImage))
		}
		b := make([]byte, st.Size())
		if _, err := io.ReadFull(f, b); err != nil {
			return nil, n, fmt.Errorf("%s: %w", n, err)
		}
		return b, n, nil
	}
	return nil, "", fmt.Errorf("no such file beside %s (looked for %s)", filepath.Base(s.path), strings.Join(looked, ", "))
}
