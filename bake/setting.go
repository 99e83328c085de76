package bake

// SettingError is a setting a caller gave a source's adapter that does not fit
// the source (a glTF model's, a motion file's). Setting is the name the command
// line gives it ("fps", "one-shot"), so a caller can point at the flag. Every
// adapter returns this one type, so the command line tells them all apart alike.
type SettingError struct {
	Setting string
	Err     error
}

func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }
