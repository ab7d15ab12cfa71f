package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"slices"
)

// This file reads a streamed chat completion: server-sent events whose
// data lines each hold a chunk of the answer, the last one "[DONE]".

// streamOptions asks a streaming server to send the usage in a last chunk.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatChunk is the part of one streamed chunk moot reads.
type chatChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// errStreamCut is a stream that ended before it said it was done.
var errStreamCut = errors.New("the stream ended before the answer did")

// streamError is an error a server sent in the middle of a stream.
type streamError struct{ message string }

func (e *streamError) Error() string { return "the server sent an error mid-stream: " + e.message }

func isEventStream(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/event-stream"
}

// readStream reads the events of a streamed chat completion from body
// into comp, as if it had come whole, calling onChunk with each piece of
// content as it arrives. A stream that stops before "[DONE]" and before
// any choice finished is an error: the answer may be cut short.
func readStream(body io.Reader, comp *chatCompletion, onChunk func(string)) error {
	br := bufio.NewReader(body)
	var content, refusal bytes.Buffer
	finished := false
	var data bytes.Buffer
	for {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(line) > 0 || err == nil {
			line = bytes.TrimRight(line, "\r\n")
			if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data.Write(bytes.TrimPrefix(rest, []byte(" ")))
				continue
			}
			if len(line) > 0 {
				// A comment (": keep-alive") or an event or id field.
				if err == nil {
					continue
				}
			}
		}
		// A blank line or the end: dispatch the event gathered so far.
		if data.Len() > 0 {
			payload := bytes.TrimSpace(data.Bytes())
			if string(payload) == "[DONE]" {
				break
			}
			var ch chatChunk
			if jerr := json.Unmarshal(payload, &ch); jerr != nil {
				return fmt.Errorf("parsing a streamed chunk: %w", jerr)
			}
			if len(ch.Error) > 0 && string(ch.Error) != "null" {
				msg, _, _, _, ok := parseError(append(append([]byte(`{"error":`), ch.Error...), '}'))
				if !ok {
					msg = "unknown error"
				}
				return &streamError{message: msg}
			}
			if ch.Model != "" {
				comp.Model = ch.Model
			}
			if ch.Usage != nil {
				comp.Usage = *ch.Usage
			}
			for _, c := range ch.Choices {
				if c.Delta.Content != "" {
					content.WriteString(c.Delta.Content)
					if onChunk != nil {
						onChunk(c.Delta.Content)
					}
				}
				refusal.WriteString(c.Delta.Refusal)
				if c.FinishReason != nil && *c.FinishReason != "" {
					finished = true
					comp.setFinish(*c.FinishReason)
				}
				// Only the first choice is asked for; others are ignored.
				break
			}
			data.Reset()
		}
		if errors.Is(err, io.EOF) {
			if !finished {
				return errStreamCut
			}
			break
		}
	}
	comp.setText(content.String(), refusal.String())
	return nil
}

// setFinish records the finish reason of the first choice.
func (comp *chatCompletion) setFinish(reason string) {
	comp.ensureChoice()
	comp.Choices[0].FinishReason = reason
}

// setText records the text and refusal of the first choice.
func (comp *chatCompletion) setText(content, refusal string) {
	comp.ensureChoice()
	comp.Choices[0].Message.Content = content
	comp.Choices[0].Message.Refusal = refusal
}

func (comp *chatCompletion) ensureChoice() {
	if len(comp.Choices) == 0 {
		// A fresh array: its one choice is the zero value.
		comp.Choices = slices.Grow(comp.Choices, 1)[:1]
	}
}
