package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// This file sends one attempt of a chat request through the SDK and reads
// its answer, whole or as a stream of events (the SDK's ssestream, its
// chunks gathered by its ChatCompletionAccumulator, tool calls included).

// errStreamCut is a stream that ended before it said it was done.
var errStreamCut = errors.New("the stream ended before the answer did")

// errStreamMixed is a stream whose chunks the SDK's accumulator refuses
// as not of one answer.
var errStreamMixed = errors.New("the stream mixes chunks of different answers")

// streamError is an error a server sent in the middle of a stream.
type streamError struct{ message string }

func (e *streamError) Error() string { return "the server sent an error mid-stream: " + e.message }

func isEventStream(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/event-stream"
}

// chatAttempt sends p once and reads the answer into comp, giving each
// piece of streamed text to onChunk (when not nil). x records what moot's
// middleware saw of the attempt.
func (c *Client) chatAttempt(ctx context.Context, p openai.ChatCompletionNewParams, stream bool, cl *call, x *exchange, comp *chatCompletion) error {
	// Nothing of an earlier attempt, streamed in part, may stay.
	*comp = chatCompletion{}
	mw := c.middleware(ctx, x, cl, stream)
	defer x.done()
	if !stream {
		res, err := c.chat.New(ctx, p, mw)
		if err != nil {
			return sdkFailure(err, x)
		}
		comp.fromSDK(res)
		return nil
	}
	s := c.chat.NewStreaming(ctx, p, mw)
	defer s.Close()
	if x.whole != nil {
		var whole openai.ChatCompletion
		if err := json.Unmarshal(x.whole, &whole); err != nil {
			return fmt.Errorf("parsing the JSON: %w", err)
		}
		comp.fromSDK(&whole)
		return nil
	}
	if err := readStream(s, comp, cl.onChunk); err != nil {
		if !x.streaming {
			// The request failed before any stream began.
			return sdkFailure(err, x)
		}
		return fmt.Errorf("reading the stream: %w", err)
	}
	return nil
}

// readStream reads the chunks of a streamed chat completion into comp, as
// if it had come whole, calling onChunk with each piece of content as it
// arrives. A stream that stops before any choice finished is an error:
// the answer may be cut short.
//
// A chunk without choices (the usage after the answer; Azure's content
// filter results before it) is read for its usage only, and a chunk's id
// is taken as the answer's when it differs: servers leave the id out of
// such chunks, or give it another, and the SDK's accumulator refuses a
// chunk whose id is not the first one's.
func readStream(s *ssestream.Stream[openai.ChatCompletionChunk], comp *chatCompletion, onChunk func(string)) error {
	var acc openai.ChatCompletionAccumulator
	var calls callIndexer
	finished := false
	id := ""
	for s.Next() {
		ch := s.Current()
		if ch.JSON.Usage.Valid() {
			comp.usage = readUsage(ch.Usage)
		}
		if len(ch.Choices) == 0 {
			continue
		}
		if id == "" {
			id = ch.ID
		}
		ch.ID = id
		for i := range ch.Choices {
			if ch.Choices[i].Index == 0 {
				calls.index(ch.Choices[i].Delta.ToolCalls)
			}
		}
		if !acc.AddChunk(ch) {
			return errStreamMixed
		}
		// Only the first choice is asked for; others are ignored.
		if len(ch.Choices) > 0 {
			d := ch.Choices[0]
			if d.Delta.Content != "" && onChunk != nil {
				onChunk(d.Delta.Content)
			}
			if d.FinishReason != "" {
				finished = true
			}
		}
	}
	if err := s.Err(); err != nil {
		return streamFailure(err)
	}
	if !finished {
		return errStreamCut
	}
	usage := comp.usage
	comp.fromSDK(&acc.ChatCompletion)
	for i := range comp.toolCalls {
		// The accumulator keeps no field it does not type.
		comp.toolCalls[i].Extra = calls.extra[int64(i)]
	}
	comp.usage, comp.streamed = usage, true
	return nil
}

// streamFailure is the error of a stream the SDK's reader stopped with
// err: an error event (an "error" key), which names what the server
// said, or an event that is not JSON.
func streamFailure(err error) error {
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		var ev struct {
			Error openai.Error `json:"error"`
		}
		msg := "unknown error"
		if json.Unmarshal(se.Event.Data, &ev) == nil {
			if f, ok := errorFields(&ev.Error); ok {
				msg = f.message
			}
		}
		return &streamError{message: msg}
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) {
		return fmt.Errorf("parsing a streamed chunk: %w", err)
	}
	return err
}

// callIndexer gives the streamed tool calls of an answer's first choice
// that come without an index (as Gemini's OpenAI-compatible endpoint sends
// them, each call whole, and some proxies) the index the accumulator
// needs to keep them apart: a delta with an id not seen before starts the
// next call, one with a known id or none goes on with that call or the
// last one. A delta with its index keeps it.
//
// It keeps each call's extra_content too (see ToolCall.Extra), by index.
type callIndexer struct {
	ids   map[string]int64
	last  int64
	next  int64
	extra map[int64]json.RawMessage
}

func (c *callIndexer) index(deltas []openai.ChatCompletionChunkChoiceDeltaToolCall) {
	for i := range deltas {
		d := &deltas[i]
		switch known, seen := c.ids[d.ID]; {
		case d.JSON.Index.Valid():
		case d.ID != "" && seen:
			d.Index = known
		case d.ID != "":
			d.Index = c.next
		default:
			d.Index = c.last
		}
		if d.ID != "" {
			if c.ids == nil {
				c.ids = map[string]int64{}
			}
			if _, seen := c.ids[d.ID]; !seen {
				c.ids[d.ID] = d.Index
			}
		}
		c.last = d.Index
		c.next = max(c.next, d.Index+1)
		if extra := extraValue(d.JSON.ExtraFields["extra_content"].Raw()); extra != nil {
			if c.extra == nil {
				c.extra = map[int64]json.RawMessage{}
			}
			c.extra[d.Index] = extra
		}
	}
}
