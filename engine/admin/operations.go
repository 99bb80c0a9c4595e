package admin

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/safego"
)

// StartPromote starts the promote of draft by who with message as an
// operation, which runs to its end whatever happens to the request that
// asked for it, or refuses it at once (a role that may not, no message):
// the JSON endpoint and the console both promote through it.
func (s *Server) StartPromote(who edit.Identity, draft, message string) (*Operation, error) {
	do, err := s.edit.StartPromote(who, draft, message)
	if err != nil {
		return nil, err
	}
	return s.ops.start(who.Name, do), nil
}

// Operation returns the operation id that who may see (its author's,
// or any for an admin), nil for none.
func (s *Server) Operation(who edit.Identity, id string) *Operation {
	op := s.ops.get(id)
	if op == nil || op.author != who.Name && who.Role < edit.RoleAdmin {
		return nil
	}
	return op
}

// promptWait is how long a promote is waited for before it is answered
// 202 with a status to poll: well inside writeTimeout, so a long promote
// (a million-row draft on a loaded machine) never has its connection
// closed under it with the outcome unsaid.
const promptWait = 10 * time.Second

// keptOperations bounds the outcomes kept for GET /operations/{id}.
const keptOperations = 100

// errOperationStopped is the outcome of an operation that ended without
// one (a panic, recovered).
var errOperationStopped = errors.New("the operation stopped without an outcome: GET /versions shows what serves")

// Operation is a change run apart from the request that asked for it, so
// that it finishes, and its outcome is kept, whatever happens to the
// client's connection.
type Operation struct {
	id     string
	author string
	done   chan struct{}
	// Set before done closes.
	version int
	err     error
}

// operations are the operations started, the newest keptOperations.
type operations struct {
	mu    sync.Mutex
	next  int
	byID  map[string]*Operation
	order []string
	// wait returns what a request waits on before answering 202:
	// time.After(promptWait), a channel of the test's in tests.
	wait func() <-chan time.Time
}

// start runs do on a goroutine of its own as a new operation.
func (o *operations) start(author string, do func() (int, error)) *Operation {
	o.mu.Lock()
	o.next++
	op := &Operation{id: strconv.Itoa(o.next), author: author, done: make(chan struct{})}
	if o.byID == nil {
		o.byID = map[string]*Operation{}
	}
	o.byID[op.id] = op
	o.order = append(o.order, op.id)
	if len(o.order) > keptOperations {
		delete(o.byID, o.order[0])
		o.order = o.order[1:]
	}
	o.mu.Unlock()
	safego.Go("admin operation", func() {
		defer close(op.done)
		// Set first: should do panic (safego recovers it), the
		// outcome is unknown, not a success.
		op.err = errOperationStopped
		op.version, op.err = do()
	})
	return op
}

// ID is the operation's id, for GET /operations/{id}.
func (op *Operation) ID() string { return op.id }

// Done is closed when the operation has its outcome.
func (op *Operation) Done() <-chan struct{} { return op.done }

// Outcome is the version made, or the error; only after Done.
func (op *Operation) Outcome() (int, error) { return op.version, op.err }

func (o *operations) get(id string) *Operation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.byID[id]
}

// awaitPromote answers the promote op: its outcome when it ends within
// promptWait, else 202 with the URL of its status. A client that leaves
// first gets nothing; the promote goes on, and its outcome is kept.
func (s *Server) awaitPromote(w http.ResponseWriter, r *http.Request, op *Operation) {
	select {
	case <-op.done:
		if op.err != nil {
			text(w, edit.Status(op.err), line(op.err.Error()))
			return
		}
		writeJSON(w, map[string]int{"version": op.version})
	case <-s.ops.wait():
		url := "/operations/" + op.id
		w.Header().Set("Location", url)
		writeJSONStatus(w, http.StatusAccepted, map[string]string{"state": "running", "status_url": url})
	case <-r.Context().Done():
	}
}

// operationStatus answers GET /operations/{id}: running, done with the
// version, or failed with the status and error the promote would have
// been answered with. Only the token that started it, or an admin's,
// may read it.
func (s *Server) operationStatus(w http.ResponseWriter, r *http.Request) {
	op := s.Operation(*whoIs(r), r.PathValue("id"))
	if op == nil {
		text(w, http.StatusNotFound, "no such operation; an operation's status is kept for its last "+strconv.Itoa(keptOperations)+"\n")
		return
	}
	select {
	case <-op.done:
	default:
		writeJSON(w, map[string]any{"id": op.id, "state": "running"})
		return
	}
	if op.err != nil {
		writeJSON(w, map[string]any{"id": op.id, "state": "failed", "status": edit.Status(op.err), "error": op.err.Error()})
		return
	}
	writeJSON(w, map[string]any{"id": op.id, "state": "done", "status": http.StatusOK, "version": op.version})
}
