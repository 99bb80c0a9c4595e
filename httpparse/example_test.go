package httpparse_test

import (
	"errors"
	"fmt"

	"github.com/redirectd/redirectd/httpparse"
)

// An event loop parses every whole head in its buffer, keeps the rest for
// the next read, and answers an error with its status.
func ExampleParse() {
	buf := []byte("GET /a?b HTTP/1.1\r\nHost: x\r\n\r\n" +
		"GET /c HTTP/1.0\r\n\r\n" +
		"GET /d HTT") // the rest of this one has not arrived yet
	var r httpparse.Request // one per connection, reused
	for {
		n, err := httpparse.Parse(buf, &r, nil)
		var perr *httpparse.Error
		if errors.As(err, &perr) {
			fmt.Println("answer", perr.Status)
			return
		}
		if n == 0 {
			fmt.Printf("wait for more after %q\n", buf)
			return
		}
		fmt.Printf("%d bytes: %s %s host=%q query=%q keep-alive=%v\n",
			n, r.Method, r.Path, r.Host, r.Query, r.KeepAlive)
		buf = buf[n:]
	}
	// Output:
	// 30 bytes: GET /a host="x" query="b" keep-alive=true
	// 19 bytes: GET /c host="" query="" keep-alive=false
	// wait for more after "GET /d HTT"
}
