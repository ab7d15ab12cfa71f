package store

// ValidSlug reports whether s can name a debate (or a tournament), the
// folder it is kept in: 1 to 64 lower case letters, digits and hyphens,
// starting with a letter or digit, so that it names exactly one folder
// directly under the debates root. Every command that names a debate
// checks its name, so this is done by hand rather than with a regexp
// compiled at each start.
func ValidSlug(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
