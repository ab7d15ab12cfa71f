package serve

import (
	"net/http"
	"path/filepath"
	"strings"

	"github.com/moot-dev/moot/internal/tournament"
	sm "github.com/moot-dev/moot/statemachine"
	"github.com/moot-dev/moot/store"
)

// Tournaments lists the names of the tournaments of root, in order: the
// folders (not links) with a valid slug for a name under its
// tournaments/ that hold a tournament.md.
func Tournaments(root string) ([]string, error) {
	return validSlugs(store.Debates(filepath.Join(root, tournament.Dir), tournament.FileName))
}

// tournamentDebates lists the slugs of the debates in the tournament
// folder tdir, as Debates does for the root.
func tournamentDebates(tdir string) ([]string, error) {
	return validSlugs(store.Debates(tdir, sm.StateFile))
}

func validSlugs(names []string, err error) ([]string, error) {
	out := names[:0]
	for _, n := range names {
		if store.ValidSlug(n) {
			out = append(out, n)
		}
	}
	return out, err
}

// tournamentRoute answers a request under /tournaments/: rest is
// "NAME/" for the tournament's leaderboard, or "NAME/SLUG/..." for one of
// its debates, served as the debates of the root are. Nothing of the
// request becomes a path unless it names a tournament, and a debate of
// it, that the root holds now.
func (s *Server) tournamentRoute(w http.ResponseWriter, r *http.Request, rest string) {
	name, rest, slashed := strings.Cut(rest, "/")
	if s.o.Leaderboard == nil || !store.ValidSlug(name) {
		http.NotFound(w, r)
		return
	}
	if !store.Holds(filepath.Join(s.o.Root, tournament.Dir), name, tournament.FileName) {
		http.NotFound(w, r)
		return
	}
	tdir := filepath.Join(s.o.Root, tournament.Dir, name)
	if rest == "" {
		if !slashed {
			http.Redirect(w, r, "/tournaments/"+name+"/"+tokenQuery(r), http.StatusMovedPermanently)
			return
		}
		s.leaderboard(w, r, tdir)
		return
	}
	slug, what, _ := strings.Cut(rest, "/")
	if !store.ValidSlug(slug) || !store.Holds(tdir, slug, sm.StateFile) {
		http.NotFound(w, r)
		return
	}
	s.debateRoute(w, r, filepath.Join(tdir, slug), what)
}

// leaderboard is the tournament's report page, with a link back to the
// index on top.
func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request, tdir string) {
	page, err := s.o.Leaderboard(tdir)
	if err != nil {
		s.fail(w, "read the tournament", err)
		return
	}
	page = insertAfter(page, "<body>", nav(false, indexLink(r)))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.Write(page)
}
