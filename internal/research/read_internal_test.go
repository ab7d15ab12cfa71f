package research

import (
	"net/netip"
	"strings"
	"testing"
)

// TestAllowed checks the addresses a read may connect to without
// --research-allow-private: public ones only, whatever form they take.
func TestAllowed(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"93.184.216.34", true},
		{"2606:2800:220:1:248:1893:25c8:1946", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"::ffff:127.0.0.1", false},
		{"10.1.2.3", false},
		{"192.168.0.1", false},
		{"169.254.169.254", false},
		{"fe80::1", false},
		{"100.64.0.1", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"240.0.0.1", false},
		{"255.255.255.255", false},
		{"64:ff9b::7f00:1", false},    // NAT64 for 127.0.0.1
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 for 169.254.169.254
		{"64:ff9b::5db8:d822", true},  // NAT64 for 93.184.216.34
		{"fc00::1", false},            // unique local
	} {
		if got := allowed(netip.MustParseAddr(tc.addr)); got != tc.ok {
			t.Errorf("allowed(%s) = %v, want %v", tc.addr, got, tc.ok)
		}
	}
}

// TestHTMLText checks what of a page is read: its main content where it
// marks one, else its whole body; never its scripts, hidden parts or
// chrome; links and images as their text.
func TestHTMLText(t *testing.T) {
	long := strings.Repeat("Water boils at a lower temperature where the air is thinner. ", 5)
	tests := []struct {
		name      string
		page      string
		want      []string
		dontWant  []string
		wantExact string
	}{
		{
			name: "main content",
			page: `<html><head><title>T</title><style>p{}</style></head><body>
<header><a href="/">Site name</a></header><nav><a href="/a">Home</a> | <a href="/b">About</a></nav>
<main><h1>Boiling</h1><p>` + long + `</p><p>See <a href="https://example.org/x/y">the survey of 1960</a> for more.</p>
<img src="chart.png" alt="A chart of boiling points"></main>
<aside>Related: cooking at altitude</aside><footer>Copyright 2026</footer>
<script>var secret = "not text";</script></body></html>`,
			want:     []string{"# Boiling", "Water boils at a lower temperature", "See the survey of 1960 for more.", "A chart of boiling points"},
			dontWant: []string{"Site name", "Home", "About", "Related", "Copyright", "not text", "example.org", "chart.png", "p{}"},
		},
		{
			name: "one article with its own header",
			page: `<body><div class="menu"><ul><li>Menu one</li></ul></div>
<article><header><h1>Everest</h1><p>By A. Writer</p></header><p>` + long + `</p><footer>Filed under physics</footer></article>
<div role="navigation">Next page</div><div hidden>Hidden text</div><div aria-hidden="true">Icon text</div></body>`,
			want:     []string{"# Everest", "By A. Writer", "Filed under physics", "Water boils"},
			dontWant: []string{"Menu one", "Next page", "Hidden text", "Icon text"},
		},
		{
			name:     "several articles: the whole body",
			page:     `<body><article><p>` + long + `</p></article><article><p>Second teaser here.</p></article></body>`,
			want:     []string{"Water boils", "Second teaser here."},
			dontWant: nil,
		},
		{
			name:     "a short main: the whole body",
			page:     `<body><div>Intro text outside main.</div><main><p>Short.</p></main><nav>Menu</nav></body>`,
			want:     []string{"Intro text outside main.", "Short."},
			dontWant: []string{"Menu"},
		},
		{
			name:     "a table",
			page:     `<body><main><p>` + long + `</p><table><tr><th>Place</th><th>Boils at</th></tr><tr><td>Everest</td><td>70 °C</td></tr></table></main></body>`,
			want:     []string{"| Place", "| Everest", "70 °C"},
			dontWant: nil,
		},
		{
			name:      "plain text kept as it is",
			page:      `<p>2 * 3 = 6 and a_b_c, [not a link]</p>`,
			wantExact: "2 * 3 = 6 and a_b_c, [not a link]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := htmlText([]byte(tc.page))
			if tc.wantExact != "" && got != tc.wantExact {
				t.Errorf("text = %q, want %q", got, tc.wantExact)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("text lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(got, w) {
					t.Errorf("text holds %q:\n%s", w, got)
				}
			}
		})
	}
}
