package tlsconf

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// How the ask URL is used: each question waits at most askTimeout; an
// answer is kept askTTL (an error askErrTTL, so that a handshake flood
// does not turn into a flood of questions to an endpoint that is down),
// for at most askCacheMax names.
var (
	askTimeout = 5 * time.Second
	askTTL     = time.Minute
	askErrTTL  = 5 * time.Second
)

const askCacheMax = 10000

// askParallel bounds the questions in flight: under a wildcard host any
// name passes the rules, and a scanner's stream of names must not become
// as many requests to the endpoint at once.
const askParallel = 16

// asker asks [acme] ask whether a name may be ordered, as Caddy's
// on_demand_tls ask does: GET URL?domain=NAME, 200 allows, anything else
// (another status, an error, no answer in time) refuses.
type asker struct {
	url    *url.URL
	client *http.Client
	slots  chan struct{}

	mu    sync.Mutex
	cache map[string]askAnswer
}

type askAnswer struct {
	ok bool
	// err is why not; answered is set when the endpoint answered (a
	// status other than 200), which is kept longer than a failure to
	// ask.
	err      error
	answered bool
	expires  time.Time
}

func newAsker(raw string) (*asker, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("[acme] ask: %q is not an http or https URL", raw)
	}
	return &asker{url: u, cache: map[string]askAnswer{}, slots: make(chan struct{}, askParallel),
		client: &http.Client{
			Timeout: askTimeout,
			// A redirect is an answer other than 200: refused, not
			// followed to wherever it points.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}}, nil
}

// allowed reports whether the ask URL allows name, and why not (for the
// log) when it does not.
func (a *asker) allowed(ctx context.Context, name string) (bool, error) {
	now := time.Now()
	a.mu.Lock()
	ans, ok := a.cache[name]
	a.mu.Unlock()
	if ok && now.Before(ans.expires) {
		return ans.ok, ans.err
	}
	select {
	case a.slots <- struct{}{}:
	case <-ctx.Done():
		return false, fmt.Errorf("waiting to ask %s: %w", a.url.Redacted(), ctx.Err())
	}
	ans = a.ask(ctx, name)
	<-a.slots
	if ans.err != nil && !ans.answered {
		ans.expires = now.Add(askErrTTL)
	} else {
		ans.expires = now.Add(askTTL)
	}
	a.mu.Lock()
	if len(a.cache) >= askCacheMax {
		for k, v := range a.cache {
			if !now.Before(v.expires) {
				delete(a.cache, k)
			}
		}
		if len(a.cache) >= askCacheMax {
			clear(a.cache)
		}
	}
	a.cache[name] = ans
	a.mu.Unlock()
	return ans.ok, ans.err
}

func (a *asker) ask(ctx context.Context, name string) askAnswer {
	u := *a.url
	q := u.Query()
	q.Set("domain", name)
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), askTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return askAnswer{err: err}
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return askAnswer{err: fmt.Errorf("ask %s: %w", a.url.Redacted(), err)}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096)) // lets the connection be reused
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return askAnswer{answered: true, err: fmt.Errorf("ask %s answered %d", a.url.Redacted(), resp.StatusCode)}
	}
	return askAnswer{ok: true}
}
