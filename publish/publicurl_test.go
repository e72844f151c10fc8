package publish_test

import (
	"testing"

	"github.com/eligo/eligo/publish"
)

// Every spelling of a loopback, private or link-local host is refused,
// read as resolvers read it; public names and addresses pass.
func TestPrivateURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		// Names, with trailing dots.
		"http://localhost/", "http://localhost./", "http://LOCALHOST../", "http://api.localhost./",
		"http://printer.local./", "http://intranet/", "http://intranet./", "http://router.home.arpa/",
		// Loopback in inet_aton forms.
		"http://127.0.0.1/", "http://127.1/", "http://127.0.1/", "http://0x7f.1/", "http://0x7f000001/",
		"http://2130706433/", "http://017700000001/", "http://0177.0.0.1/", "http://127.000.000.001/",
		"http://127.0.0.1./", "http://0/", "http://0.0.0.0/",
		// Private and link-local, plain and spelled.
		"http://10.0.0.1/", "http://012.0.0.1/", "http://167772161/", "http://172.16.0.1/", "http://192.168.1.1/",
		"http://0xc0.0xa8.1.1/", "http://169.254.169.254/", "http://0xa9fea9fe/", "http://100.64.0.1/",
		// IPv6: loopback, unspecified, mapped, compatible, unique local,
		// link-local with a zone, 6to4 and NAT64 around private IPv4.
		"http://[::1]/", "http://[::]/", "http://[0:0:0:0:0:0:0:1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/",
		"http://[::ffff:10.0.0.1]/", "http://[::127.0.0.1]/", "http://[fc00::1]/", "http://[fd12:3456::1]/",
		"http://[fe80::1]/", "http://[fe80::1%25eth0]/", "http://[2002:7f00:1::]/", "http://[64:ff9b::a00:1]/",
		"http://[ff02::1]/",
		// Malformed numeric hosts, refused rather than guessed at.
		"http://256.1.1.1/", "http://1.2.3.4.5/", "http://127.0.0.08/", "http://4294967296/", "http://1.16777216/",
		// Not an address anybody can open.
		"https://user:pass@laws.example.org/act", "ftp://laws.example.org/act", "/relative/act", "http://./", "http://.../",
	} {
		if why := publish.PrivateURL(u); why == "" {
			t.Errorf("PrivateURL(%q) passes, want refused", u)
		}
	}
	for _, u := range []string{
		"https://www.legislation.gov.uk/ukpga/1992/4/section/141", "http://laws.example.org./grant",
		"https://8.8.8.8/act", "https://134744072/act", "https://0x8.0x8.0x8.0x8/act", "https://203.0.113.9/act",
		"https://[2606:4700::1111]/act", "https://[::ffff:8.8.8.8]/act", "https://[2002:808:808::]/act",
		"https://example.org:8443/act", "https://a1.example.org/act",
	} {
		if why := publish.PrivateURL(u); why != "" {
			t.Errorf("PrivateURL(%q) = %q, want public", u, why)
		}
	}
}
