package prices

// The built-in prices, in US dollars per million tokens. moot cannot check
// them from where it runs: each row is the price as published on its Date
// at its Source, read from a stored copy of that page or of a page that
// quotes it (named in the row's comment), and may have changed since.
// Check them before relying on them; a prices file (MOOT_PRICES or
// --prices) replaces any of them.
//
// A row whose Cached price no source gave bills a cached token at the
// input price (NoCachedPrice), the most it can cost. A cache write costs
// the input price, except on Anthropic's models, whose pricing pages
// (the same as their rows') bill a write to the 5-minute cache, the only
// one moot asks for, at 1.25 of the input price.
var builtin = []Row{
	// OpenAI, https://platform.openai.com/docs/pricing as transcribed on
	// 2025-06-03 in the hex package openai_responses 0.4.1
	// (lib/responses/pricing.ex); gpt-4.1 also in GitHub's Copilot table
	// (github/docs data/tables/copilot/models-and-pricing.yml).
	{"gpt-4o", openAI(2.50, 1.25, 10.00, "2025-06-03", openAIPricing)},
	{"gpt-4o-2024-08-06", openAI(2.50, 1.25, 10.00, "2025-06-03", openAIPricing)},
	{"gpt-4o-2024-11-20", openAI(2.50, 1.25, 10.00, "2025-06-03", openAIPricing)},
	{"gpt-4.1", openAI(2.00, 0.50, 8.00, "2025-06-03", openAIPricing)},
	{"gpt-4.1-2025-04-14", openAI(2.00, 0.50, 8.00, "2025-06-03", openAIPricing)},
	{"gpt-4.1-mini", openAI(0.40, 0.10, 1.60, "2025-06-03", openAIPricing)},
	{"gpt-4.1-mini-2025-04-14", openAI(0.40, 0.10, 1.60, "2025-06-03", openAIPricing)},
	{"gpt-4.1-nano", openAI(0.10, 0.025, 0.40, "2025-06-03", openAIPricing)},
	{"gpt-4.1-nano-2025-04-14", openAI(0.10, 0.025, 0.40, "2025-06-03", openAIPricing)},
	// gpt-4o-mini: https://openai.com/api/pricing as quoted in the
	// CommitBrief wiki's OpenAI page (edited 2026-05-27), the same figures
	// as openrouter.ai/openai/gpt-4o-mini-2024-07-18 gives for input and
	// output.
	{"gpt-4o-mini", openAI(0.15, 0.075, 0.60, "2026-05-27", "https://openai.com/api/pricing")},
	{"gpt-4o-mini-2024-07-18", openAI(0.15, 0.075, 0.60, "2026-05-27", "https://openai.com/api/pricing")},
	// o4-mini: OpenAI's model page, as quoted with its cached price in
	// Roo-Code's pull request 2691 of 2025-04-17; input and output the
	// same in deploybase.ai's table of March 2026.
	{"o4-mini", openAI(1.10, 0.275, 4.40, "2025-04-17", "https://platform.openai.com/docs/models/o4-mini")},
	// o3: input and output after OpenAI's price cut, as tabled from
	// OpenAI's pricing page by deploybase.ai (March 2026) and aumiqx.com
	// (April 2026). The copies read disagree on its cached price, so the
	// row has none.
	// o3-mini: OpenAI's pricing page as tabled by llmcalc.app (last
	// verified there 2026-05-06) and modelpedia.dev (2026-03-21), which
	// agree on all three prices.
	{"o3-mini", openAI(1.10, 0.55, 4.40, "2026-05-06", openAIPricing)},
	{"o3-mini-2025-01-31", openAI(1.10, 0.55, 4.40, "2026-05-06", openAIPricing)},
	{"o3", Price{Input: 2.00, Cached: 2.00, NoCachedPrice: true, CacheWrite: 2.00, Output: 8.00, Provider: "openai", Date: "2026-03", Source: openAIPricing}},
	// Embeddings (refine's retrieval), which have no output: as checked
	// against OpenAI's embedding pricing on 2026-06-21 by tokenmath.io.
	{"text-embedding-3-small", Price{Input: 0.02, Cached: 0.02, NoCachedPrice: true, CacheWrite: 0.02, Provider: "openai", Date: "2026-06-21", Source: openAIPricing}},

	// Anthropic's models under OpenRouter's ids. OpenRouter bills them at
	// Anthropic's prices; a cached token is a "cache hit" (0.1 of the
	// input price), a cache write 1.25 of it. Anthropic caches only the
	// prompts moot marks (--cache-marks). https://docs.anthropic.com/en/docs/about-claude/pricing,
	// read on 2026-11-23 from a stored copy whose own date is not known.
	{"anthropic/claude-opus-4.1", anthropic(15.00, 1.50, 75.00, anthropicPricing)},
	{"anthropic/claude-opus-4", anthropic(15.00, 1.50, 75.00, anthropicPricing)},
	{"anthropic/claude-sonnet-4", anthropic(3.00, 0.30, 15.00, anthropicPricing)},
	{"anthropic/claude-3.7-sonnet", anthropic(3.00, 0.30, 15.00, anthropicPricing)},
	{"anthropic/claude-3.5-haiku", anthropic(0.80, 0.08, 4.00, anthropicPricing)},
	// https://platform.claude.com/docs/en/about-claude/pricing, read on
	// 2026-11-23 from a stored copy whose own date is not known; Haiku 4.5
	// from the model table of the same site.
	{"anthropic/claude-opus-4.5", anthropic(5.00, 0.50, 25.00, claudePricing)},
	{"anthropic/claude-haiku-4.5", anthropic(1.00, 0.10, 5.00, claudePricing)},
	// Sonnet 4.5: input and output from its OpenRouter page, the cache
	// hit at Anthropic's 0.1 of the input price that OpenRouter's prompt
	// caching guide gives.
	{"anthropic/claude-sonnet-4.5", anthropic(3.00, 0.30, 15.00, "https://openrouter.ai/anthropic/claude-sonnet-4.5")},

	// The same models under Anthropic's own ids, dated and aliased, as
	// its API (and Faultline's users) name them; the prices are those of
	// the rows above, from the same pages.
	{"claude-opus-4-1-20250805", native(15.00, 1.50, 75.00, anthropicPricing)},
	{"claude-opus-4-1", native(15.00, 1.50, 75.00, anthropicPricing)},
	{"claude-opus-4-20250514", native(15.00, 1.50, 75.00, anthropicPricing)},
	{"claude-opus-4-0", native(15.00, 1.50, 75.00, anthropicPricing)},
	{"claude-sonnet-4-20250514", native(3.00, 0.30, 15.00, anthropicPricing)},
	{"claude-sonnet-4-0", native(3.00, 0.30, 15.00, anthropicPricing)},
	{"claude-3-7-sonnet-20250219", native(3.00, 0.30, 15.00, anthropicPricing)},
	{"claude-3-7-sonnet-latest", native(3.00, 0.30, 15.00, anthropicPricing)},
	{"claude-3-5-haiku-20241022", native(0.80, 0.08, 4.00, anthropicPricing)},
	{"claude-3-5-haiku-latest", native(0.80, 0.08, 4.00, anthropicPricing)},
	{"claude-opus-4-5-20251101", native(5.00, 0.50, 25.00, claudePricing)},
	{"claude-opus-4-5", native(5.00, 0.50, 25.00, claudePricing)},
	{"claude-haiku-4-5-20251001", native(1.00, 0.10, 5.00, claudePricing)},
	{"claude-haiku-4-5", native(1.00, 0.10, 5.00, claudePricing)},
	{"claude-sonnet-4-5-20250929", native(3.00, 0.30, 15.00, "https://openrouter.ai/anthropic/claude-sonnet-4.5")},
	{"claude-sonnet-4-5", native(3.00, 0.30, 15.00, "https://openrouter.ai/anthropic/claude-sonnet-4.5")},
}

const (
	openAIPricing    = "https://platform.openai.com/docs/pricing"
	anthropicPricing = "https://docs.anthropic.com/en/docs/about-claude/pricing"
	claudePricing    = "https://platform.claude.com/docs/en/about-claude/pricing"
)

func openAI(input, cached, output float64, date, source string) Price {
	return Price{Input: input, Cached: cached, CacheWrite: input, Output: output, Provider: "openai", Date: date, Source: source}
}

// anthropic is a row of an Anthropic model under its OpenRouter id, which
// carries its prefix already.
func anthropic(input, cached, output float64, source string) Price {
	return Price{Input: input, Cached: cached, CacheWrite: 1.25 * input, Output: output, Date: "2026-11-23", Source: source}
}

// native is a row of an Anthropic model under Anthropic's own id.
func native(input, cached, output float64, source string) Price {
	p := anthropic(input, cached, output, source)
	p.Provider = "anthropic"
	return p
}
