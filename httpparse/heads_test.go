package httpparse

// Request heads shared by the allocation tests, benchmarks and fuzz seeds.

// simpleHead is the smallest head a client sends: curl or a health check.
const simpleHead = "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"

// browserHead is a Chrome navigation of about 650 bytes, the size that
// dominates a redirect server's traffic.
const browserHead = "GET /old/path/to/page?utm_source=newsletter&utm_medium=email HTTP/1.1\r\n" +
	"Host: www.example.com\r\n" +
	"Connection: keep-alive\r\n" +
	"Upgrade-Insecure-Requests: 1\r\n" +
	"User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36\r\n" +
	"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8\r\n" +
	"Accept-Encoding: gzip, deflate, br\r\n" +
	"Accept-Language: en-US,en;q=0.9,de;q=0.8\r\n" +
	"Referer: https://www.example.org/blog/2024/05/some-article\r\n" +
	"Cookie: session=8f14e45fceea167a5a36dedd4bea2543; _ga=GA1.2.1234567890.1700000000; theme=dark\r\n" +
	"\r\n"
