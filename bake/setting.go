package bake

// SettingError is a setting a caller gave a source's adapter that does not fit
// the source (a glTF model's, a motion file's). Setting is the name of the
// adapter's Settings field that holds it ("FPS", "OneShot"): a caller names it
// its own way (the command line maps each to its flag in one place). Every
// adapter returns this one type, so a caller tells them all apart alike.
type SettingError struct {
	Setting string
	Err     error
	// ReadsOn says Err's text reads on from the setting's name: a rule's error
	// that starts with the value given ("0 is outside [0.001, 1e+06]"), or
	// "applies to …". A caller writes the name, a space and Err ("FPS 0 is
	// outside …"), where otherwise a colon comes between.
	ReadsOn bool
}

func (e *SettingError) Error() string {
	if e.ReadsOn {
		return e.Setting + " " + e.Err.Error()
	}
	return e.Setting + ": " + e.Err.Error()
}
func (e *SettingError) Unwrap() error { return e.Err }

// A Rule is the rule of one setting of an adapter's settings, for
// CheckSettings: Check says whether the value fits.
type Rule struct {
	Setting string
	// Zero says the setting holds its zero value, which an adapter takes for
	// "not given" (its default).
	Zero  bool
	Check func() error
}

// CheckSettings applies each rule whose setting was given and returns the
// first error, a *SettingError that reads on from the setting's name. given
// says which settings were given, by name, so that a zero given (--fps 0) is
// checked as any other value; nil takes a setting's zero for not given.
func CheckSettings(given func(setting string) bool, rules ...Rule) error {
	for _, r := range rules {
		if given == nil && r.Zero || given != nil && !given(r.Setting) {
			continue
		}
		if err := r.Check(); err != nil {
			return &SettingError{Setting: r.Setting, Err: err, ReadsOn: true}
		}
	}
	return nil
}
