package httpparse

import (
	"errors"

	"github.com/redirectd/redirectd/internal/ascii"
)

// ErrBadChunk is a malformed chunked body (RFC 9112 7.1).
var ErrBadChunk = &Error{400, "malformed chunked body"}

// Limits of the framing around chunk data: a size line (with extensions)
// and the trailer section. Data itself is unbounded here; the caller
// counts it.
const (
	maxChunkLine = 4096
	maxTrailers  = 8 << 10
)

// ChunkedDecoder removes the chunked transfer coding from a request body
// as it arrives, without copying: Next hands back the data bytes of the
// input it is given. The zero value is ready to use.
type ChunkedDecoder struct {
	state    chunkState
	left     int64 // data bytes left in the current chunk
	trailers int   // trailer bytes seen
}

type chunkState uint8

const (
	chunkSize     chunkState = iota // at a chunk-size line
	chunkData                       // inside chunk data
	chunkDataCRLF                   // at the CRLF after chunk data
	chunkTrailer                    // in the trailer section
	chunkDone
)

// errChunkNeedMore is internal: the input ends inside framing.
var errChunkNeedMore = errors.New("need more")

// Next decodes from the start of in. It returns data (a sub-slice of in,
// possibly empty) and how many bytes of in it consumed; done is set once
// the last chunk and the trailers have been read. When consumed is 0 and
// done is false, in holds only part of a framing line: call again with
// more bytes appended. The error is final.
func (d *ChunkedDecoder) Next(in []byte) (data []byte, consumed int, done bool, err error) {
	for consumed < len(in) || d.state == chunkDone {
		switch d.state {
		case chunkDone:
			return data, consumed, true, nil
		case chunkData:
			if data != nil {
				// Hand back one run of data per call.
				return data, consumed, false, nil
			}
			n := int(min(d.left, int64(len(in)-consumed)))
			data = in[consumed : consumed+n]
			consumed += n
			if d.left -= int64(n); d.left == 0 {
				d.state = chunkDataCRLF
			}
		case chunkDataCRLF:
			if len(in)-consumed < 2 {
				return data, consumed, false, nil
			}
			if in[consumed] != '\r' || in[consumed+1] != '\n' {
				return nil, 0, false, ErrBadChunk
			}
			consumed += 2
			d.state = chunkSize
		case chunkSize:
			n, size, err := chunkSizeLine(in[consumed:])
			if err == errChunkNeedMore {
				return data, consumed, false, nil
			}
			if err != nil {
				return nil, 0, false, err
			}
			consumed += n
			if size == 0 {
				d.state = chunkTrailer
			} else {
				d.left, d.state = size, chunkData
			}
		case chunkTrailer:
			line, ok := crlfLine(in[consumed:])
			if !ok {
				if len(in)-consumed > maxTrailers-d.trailers {
					return nil, 0, false, ErrBadChunk
				}
				return data, consumed, false, nil
			}
			consumed += len(line) + 2
			if d.trailers += len(line) + 2; d.trailers > maxTrailers {
				return nil, 0, false, ErrBadChunk
			}
			if len(line) == 0 {
				d.state = chunkDone
			} else if !validTrailer(line) {
				return nil, 0, false, ErrBadChunk
			}
		}
	}
	return data, consumed, d.state == chunkDone, nil
}

// chunkSizeLine reads `hex-size [; ext] CRLF`.
func chunkSizeLine(in []byte) (int, int64, error) {
	line, ok := crlfLine(in)
	if !ok {
		if len(in) > maxChunkLine {
			return 0, 0, ErrBadChunk
		}
		return 0, 0, errChunkNeedMore
	}
	var size int64
	i := 0
	for ; i < len(line); i++ {
		v := ascii.Unhex(line[i])
		if v < 0 {
			break
		}
		if i >= 15 {
			return 0, 0, ErrBadChunk // would overflow int64
		}
		size = size<<4 | int64(v)
	}
	if i == 0 {
		return 0, 0, ErrBadChunk
	}
	// Extensions (`;name=value`, RFC 9112 7.1.1) are ignored, but what
	// follows the size must start one; bare whitespace is not allowed.
	if i < len(line) && line[i] != ';' {
		return 0, 0, ErrBadChunk
	}
	for _, c := range line[i:] {
		if ascii.IsControl(c) && c != '\t' {
			return 0, 0, ErrBadChunk
		}
	}
	return len(line) + 2, size, nil
}

// crlfLine returns the line at the start of in, without its CRLF; a bare
// CR or LF is refused by returning a line that fails the callers' checks.
func crlfLine(in []byte) ([]byte, bool) {
	for i := 0; i+1 < len(in); i++ {
		switch in[i] {
		case '\r':
			if in[i+1] != '\n' {
				return in[:i+1], true // holds a bare CR: invalid
			}
			return in[:i], true
		case '\n':
			return in[:i+1], true // bare LF: invalid
		}
	}
	return nil, false
}

// validTrailer checks a trailer field line: a token, ':', a value without
// control characters.
func validTrailer(line []byte) bool {
	colon := -1
	for i, c := range line {
		if c == ':' {
			colon = i
			break
		}
		if !ascii.TokenChar(c) {
			return false
		}
	}
	if colon <= 0 {
		return false
	}
	for _, c := range line[colon+1:] {
		if ascii.IsControl(c) && c != '\t' {
			return false
		}
	}
	return true
}
