package engine

import fw "github.com/redirectd/redirectd/engine/forward"

// UpstreamOptions configure forwarding of misses to one upstream group;
// the type, its fields and their defaults are package forward's
// (forward.Options).
type UpstreamOptions = fw.Options
