package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
)

// GitignoreFile keeps moot's private files out of git. moot writes it when
// it creates .moot/ (a new debate, or the first write to a debate made by
// another tool or an older moot) and never replaces it, so that a user's
// edit stands.
const GitignoreFile = PrivateDir + "/.gitignore"

// Gitignore is what GitignoreFile holds when moot writes it: everything in
// .moot/ is ignored except the file itself and the usage log.
const Gitignore = `# Written by moot, which never overwrites it: edit it as you like.
# The lock, the journal of a step in progress, the answers kept for the
# next run and the refused answers are one machine's working state: never
# commit them. usage.jsonl, the log of every model call with its tokens
# and time, is the record of what the debate cost: it is kept.
*
!.gitignore
!usage.jsonl
`

// writeGitignore writes GitignoreFile unless something is there already.
// It is not part of any step, so it is written beside the commit path: a
// temporary file in TempDir, hard-linked to its name (a link, unlike a
// rename, fails if the name was taken meanwhile), then removed. Between
// the link and the removal the file has two links; a process killed there
// leaves the temporary file in TempDir, which the next accepted step
// removes, giving GitignoreFile back its single link. moot never reads
// GitignoreFile.
func (d *Dir) writeGitignore() error {
	if _, err := d.root.Lstat(GitignoreFile); !errors.Is(err, fs.ErrNotExist) {
		return nil // there, whatever it is; or unreadable, which its next reader reports
	}
	f, tmp, err := d.tempFile(path.Base(GitignoreFile))
	if err != nil {
		return fmt.Errorf("write %s: %w", GitignoreFile, err)
	}
	_, err = f.WriteString(Gitignore)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.root.Link(tmp, GitignoreFile)
		if errors.Is(err, fs.ErrExist) {
			err = nil
		}
	}
	rerr := d.fault("remove " + tmp)
	if rerr == nil {
		rerr = d.root.Remove(tmp)
	}
	if err == nil && rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", GitignoreFile, err)
	}
	return nil
}
