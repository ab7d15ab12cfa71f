// Package rating ranks the models of a tournament from the results of its
// debates: Bradley-Terry strengths with bootstrap intervals, sequential Elo
// beside them, a win matrix and its SVG heat map, the advantage of a side
// and of speaking first, results per motion, and the plan of pairings.
//
// Every function is pure and deterministic: it reads no files, and a
// bootstrap draws from a generator seeded by its caller, so the same games
// always give the same intervals.
package rating

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/moot-dev/moot/internal/stats"
)

// Game is one debate's result between two models.
type Game struct {
	// A and B are the models. A argued the proposition, or spoke first
	// where that is the protocol's only order.
	A, B string
	// Score is A's result: 1 a win, 0 a loss, 0.5 a draw. A share in
	// between (a judge's split) counts as that fraction of a win. A score
	// outside [0, 1] is taken as the nearer end; a NaN score marks a game
	// with no result, which every function here leaves out.
	Score  float64
	Motion string
	// First is the model that spoke first, "" when the protocol has no
	// order of speaking.
	First string
}

// score returns g's score for A, clamped to [0, 1], and false when it has
// none.
func (g Game) score() (float64, bool) {
	if math.IsNaN(g.Score) {
		return 0, false
	}
	return min(1, max(0, g.Score)), true
}

// Scale and Centre place Bradley-Terry strengths on the Elo scale: a model
// of strength p is rated Centre + Scale·ln(p) = Centre + 400·log10(p) less
// the mean over the models, so that a difference of 400 points means odds of
// 10 to 1, as in Elo, and the mean rating of the models is Centre.
const (
	Scale  = 400 / math.Ln10
	Centre = 1500.0
)

// EloK and EloStart are sequential Elo's update factor and initial rating.
const (
	EloK     = 32.0
	EloStart = 1500.0
)

// Level is the confidence level of every interval of the package.
const Level = stats.DefaultLevel

// Rating is one model's place on the leaderboard.
type Rating struct {
	Model string
	// BT is the model's Bradley-Terry strength on the Elo scale (see Scale
	// and Centre): the models' mean is 1500, and a model rated d points
	// above another is expected to score 1/(1+10^(-d/400)) against it.
	BT float64
	// Low and High bound a 95% interval of BT from a bootstrap over games:
	// the games are resampled with replacement and the ratings fitted
	// again, each time centred on the models' mean. They are NaN when
	// Ratings was asked for no resamples.
	Low, High float64
	// Elo is sequential Elo (K = 32, starting at 1500) over the games in
	// their order, for familiarity; unlike BT it depends on that order.
	Elo float64
	// Games counts the model's games; Wins, Losses and Draws split them by
	// its result (a score above, below or at one half).
	Games, Wins, Losses, Draws int
}

// game is a Game with its models as indices and its score clamped.
type game struct {
	a, b int
	s    float64
}

// Ratings fits the Bradley-Terry model to the games and returns a rating for
// every model in them, strongest first (ties by name). Games with no score,
// and games of a model against itself, are left out.
//
// In the model, model i beats model j with probability p_i/(p_i+p_j). A draw
// counts as half a win each way, which is the maximum-likelihood treatment of
// a result of one half. The prior is one virtual draw for every model
// against a virtual opponent of fixed strength 1, a model of average
// strength. Without it an unbeaten model's strength would grow without
// bound and models that never met (through any chain of games) would have
// no common scale; with it every fit has one finite answer, pulled towards
// the mean by the weight of one game, which many real games soon outweigh.
// Its effect is plain with two models: A beating B 3 games of 4 gives A +82
// points and B -82, where the maximum-likelihood answer is ±95 (odds of 3
// to 1). At the fit every model's points, wins plus half its draws and the
// virtual half, equal those the model expects:
//
//	W_i + ½ = Σ_j n_ij·p_i/(p_i+p_j) + p_i/(p_i+1)
//
// where n_ij is the games of i against j. The fit is Newton's method on the
// log-strengths, whose log-likelihood with the prior is strictly concave,
// a step halved while it would lower the likelihood; it stops when no
// log-strength moves by more than 1e-10 in a step, and the ratings are
// rounded to a millionth of a point. (The MM algorithm of Hunter (2004), a
// sweep of p_i ← (W_i + ½) / (Σ_j n_ij/(p_i+p_j) + 1/(p_i+1)), reaches the
// same fit, but needs thousands of sweeps when a model wins or loses
// almost every game, as a strength order that the judges always follow
// gives; Newton's method needs a few steps whatever the games.)
//
// Low and High come from resamples resamplings of the games with
// replacement, each fitted again, from a PCG generator seeded with seed: the
// 2.5% and 97.5% empirical quantiles of each model's resampled ratings. A
// model absent from a resample keeps only its virtual draw there and is
// rated at the mean.
func Ratings(games []Game, resamples int, seed uint64) []Rating {
	models, gs := index(games)
	out := make([]Rating, len(models))
	for i, m := range models {
		out[i] = Rating{Model: m, Low: math.NaN(), High: math.NaN()}
	}
	for _, g := range gs {
		a, b := &out[g.a], &out[g.b]
		a.Games++
		b.Games++
		switch {
		case g.s > 0.5:
			a.Wins++
			b.Losses++
		case g.s < 0.5:
			a.Losses++
			b.Wins++
		default:
			a.Draws++
			b.Draws++
		}
	}
	for i, e := range elo(len(models), gs) {
		out[i].Elo = e
	}
	f := newFitter(len(models), gs)
	bt := f.fit(nil)
	for i := range out {
		out[i].BT = bt[i]
	}
	if resamples > 0 && len(gs) > 0 {
		low, high := f.bootstrap(bt, resamples, seed)
		for i := range out {
			out[i].Low, out[i].High = low[i], high[i]
		}
	}
	slices.SortStableFunc(out, func(x, y Rating) int {
		return cmp.Or(cmp.Compare(y.BT, x.BT), cmp.Compare(x.Model, y.Model))
	})
	return out
}

// index returns the models of the games, sorted by name, and the games that
// count (with a score, between two different models) in their order, with
// the models as indices into the first.
func index(games []Game) ([]string, []game) {
	var models []string
	seen := map[string]bool{}
	for _, g := range games {
		if _, ok := g.score(); !ok || g.A == g.B {
			continue
		}
		for _, m := range []string{g.A, g.B} {
			if !seen[m] {
				seen[m] = true
				models = append(models, m)
			}
		}
	}
	slices.Sort(models)
	at := make(map[string]int, len(models))
	for i, m := range models {
		at[m] = i
	}
	gs := make([]game, 0, len(games))
	for _, g := range games {
		if s, ok := g.score(); ok && g.A != g.B {
			gs = append(gs, game{a: at[g.A], b: at[g.B], s: s})
		}
	}
	return models, gs
}

// elo returns sequential Elo ratings of n models after the games in order.
func elo(n int, gs []game) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = EloStart
	}
	for _, g := range gs {
		expected := 1 / (1 + math.Pow(10, (r[g.b]-r[g.a])/400))
		d := EloK * (g.s - expected)
		r[g.a] += d
		r[g.b] -= d
	}
	return r
}

// Fitting limits: the fit stops when no log-strength moves by more than
// tol in a step, or after maxSteps steps.
const (
	tol      = 1e-10
	maxSteps = 200
)

// fitter fits Bradley-Terry strengths to a sample of a fixed set of games,
// reusing its buffers from one fit to the next.
type fitter struct {
	n      int
	games  []game
	points []float64 // W_i: points of model i in the sample
	meets  []float64 // n_ij at i*n+j: games between i and j in the sample
	theta  []float64 // log-strengths
	next   []float64 // log-strengths of a step tried
	grad   []float64 // the gradient of the log-likelihood, then the step
	hess   []float64 // minus its Hessian at i*n+j, then its Cholesky factor
	warm   []float64 // log-strengths to start from, nil for all 0
}

func newFitter(n int, gs []game) *fitter {
	return &fitter{
		n:      n,
		games:  gs,
		points: make([]float64, n),
		meets:  make([]float64, n*n),
		theta:  make([]float64, n),
		next:   make([]float64, n),
		grad:   make([]float64, n),
		hess:   make([]float64, n*n),
	}
}

// fit returns the ratings on the Elo scale fitted to the games at the
// indices of sample, or to all the games when sample is nil, in a slice that
// the next fit reuses.
func (f *fitter) fit(sample []int) []float64 {
	n := f.n
	if n == 0 {
		return f.theta
	}
	clear(f.points)
	clear(f.meets)
	add := func(g game) {
		f.points[g.a] += g.s
		f.points[g.b] += 1 - g.s
		f.meets[g.a*n+g.b]++
		f.meets[g.b*n+g.a]++
	}
	if sample == nil {
		for _, g := range f.games {
			add(g)
		}
	} else {
		for _, k := range sample {
			add(f.games[k])
		}
	}
	theta := f.theta
	if f.warm != nil {
		copy(theta, f.warm)
	} else {
		clear(theta)
	}
	ll := f.logLikelihood(theta)
	for range maxSteps {
		f.newton(theta)
		// Halve the step while it lowers the likelihood (by more than
		// rounding: near the fit the gain is below what float64 tells).
		step := 1.0
		var next float64
		for range 60 {
			for i := range theta {
				f.next[i] = theta[i] + step*f.grad[i]
			}
			if next = f.logLikelihood(f.next); next >= ll-1e-12*(1+math.Abs(ll)) {
				break
			}
			step /= 2
		}
		moved := 0.0
		for i := range theta {
			moved = max(moved, math.Abs(f.next[i]-theta[i]))
		}
		copy(theta, f.next)
		ll = next
		if moved < tol {
			break
		}
	}
	out := f.next
	mean := 0.0
	for _, t := range theta {
		mean += t
	}
	mean /= float64(n)
	for i, t := range theta {
		out[i] = round(Centre + Scale*(t-mean))
	}
	return out
}

// logLikelihood is the log-likelihood of the log-strengths theta, the
// prior's virtual draws included.
func (f *fitter) logLikelihood(theta []float64) float64 {
	n := f.n
	ll := 0.0
	for i := range n {
		ll += 0.5 * (logSigma(theta[i]) + logSigma(-theta[i]))
		row := f.meets[i*n : (i+1)*n]
		for j := i + 1; j < n; j++ {
			// A game of i against j scoring s for i adds
			// s·θ_i + (1-s)·θ_j - ln(e^θ_i + e^θ_j): summed, the
			// points W_i·θ_i and n_ij times the last term.
			if c := row[j]; c != 0 {
				ll -= c * logSumExp(theta[i], theta[j])
			}
		}
		ll += f.points[i] * theta[i]
	}
	return ll
}

// newton leaves in f.grad Newton's step from theta: the solution δ of
// H·δ = g, where g is the log-likelihood's gradient and H minus its
// Hessian, positive definite thanks to the prior.
func (f *fitter) newton(theta []float64) {
	n := f.n
	g, h := f.grad, f.hess
	clear(h)
	for i := range n {
		s := sigma(theta[i])
		g[i] = f.points[i] + 0.5 - s
		h[i*n+i] = s * (1 - s)
	}
	for i := range n {
		row := f.meets[i*n : (i+1)*n]
		for j := i + 1; j < n; j++ {
			c := row[j]
			if c == 0 {
				continue
			}
			s := sigma(theta[i] - theta[j])
			g[i] -= c * s
			g[j] -= c * (1 - s)
			w := c * s * (1 - s)
			h[i*n+i] += w
			h[j*n+j] += w
			h[i*n+j] -= w
			h[j*n+i] -= w
		}
	}
	// Cholesky: h = L·Lᵀ, L in the lower triangle of h.
	for j := range n {
		d := h[j*n+j]
		for k := range j {
			d -= h[j*n+k] * h[j*n+k]
		}
		// The prior keeps every pivot above zero; a strength so extreme
		// that rounding loses it is held by a tiny floor.
		d = math.Sqrt(max(d, 1e-300))
		h[j*n+j] = d
		for i := j + 1; i < n; i++ {
			v := h[i*n+j]
			for k := range j {
				v -= h[i*n+k] * h[j*n+k]
			}
			h[i*n+j] = v / d
		}
	}
	// Solve L·y = g, then Lᵀ·δ = y, in g.
	for i := range n {
		v := g[i]
		for k := range i {
			v -= h[i*n+k] * g[k]
		}
		g[i] = v / h[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		v := g[i]
		for k := i + 1; k < n; k++ {
			v -= h[k*n+i] * g[k]
		}
		g[i] = v / h[i*n+i]
	}
}

// sigma is the logistic function.
func sigma(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// logSigma is ln σ(x), without overflow.
func logSigma(x float64) float64 {
	if x > 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

// logSumExp is ln(e^a + e^b), without overflow.
func logSumExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// bootstrap returns each model's Level interval of its rating over
// resamples resamplings of the games, each fit starting from the strengths
// of the whole sample's ratings bt.
func (f *fitter) bootstrap(bt []float64, resamples int, seed uint64) (low, high []float64) {
	n, g := f.n, len(f.games)
	f.warm = make([]float64, n)
	for i, r := range bt {
		f.warm[i] = (r - Centre) / Scale
	}
	rng := rand.New(rand.NewPCG(seed, stream))
	sample := make([]int, g)
	values := make([]float64, n*resamples) // model i's r-th value at i*resamples+r
	for r := range resamples {
		for k := range sample {
			sample[k] = rng.IntN(g)
		}
		for i, v := range f.fit(sample) {
			values[i*resamples+r] = v
		}
	}
	low, high = make([]float64, n), make([]float64, n)
	tail := (1 - Level) / 2
	for i := range n {
		v := values[i*resamples : (i+1)*resamples]
		slices.Sort(v)
		low[i], high[i] = stats.Quantile(tail, v), stats.Quantile(1-tail, v)
	}
	return low, high
}

// round rounds a rating to a millionth of a point, well within what the fit
// settles (a relative 1e-10 of a strength is 2e-8 points), so that models
// with the same record get the same rating and fall in order by name.
func round(r float64) float64 {
	return math.Round(r*1e6) / 1e6
}

// stream is the second word of the PCG state, fixed so that the seed alone
// decides the draws.
const stream = 0x2545f4914f6cdd1d
