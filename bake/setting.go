package bake

// SettingError is a setting a caller gave a source's adapter that does not fit
// the source (a glTF model's, a motion file's). Setting is the name of the
// adapter's Settings field that holds it ("FPS", "OneShot"): a caller names it
// its own way (the command line maps each to its flag in one place). Every
// adapter returns this one type, so a caller tells them all apart alike.
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }
