package frontmatter

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// DuplicateKeyError is the error of a JSON object that holds the same key
// twice. encoding/json would keep the last value and moot's ordered
// objects the first place, so a second key could change what a file says
// unseen: moot refuses it wherever it reads JSON.
type DuplicateKeyError struct {
	// Path names the object, as dotted keys and list indexes from the
	// top ("" for the top object).
	Path string
	Key  string
}

func (e *DuplicateKeyError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("field %q appears twice", e.Key)
	}
	return fmt.Sprintf("field %q appears twice in %s", e.Key, e.Path)
}

// CheckDuplicates returns a *DuplicateKeyError for the first object of
// data, valid JSON, that holds a key twice, or nil. The caller must know
// data to be valid JSON (json.Valid, or a decoder's value): data that is
// not may panic. It allocates nothing for objects of distinct plain keys.
func CheckDuplicates(data []byte) error {
	if _, err := dupValue(data, skipSpace(data, 0)); err != nil {
		return err
	}
	return nil
}

// Unmarshal is json.Unmarshal that refuses an object holding a key twice
// (see CheckDuplicates), and says what is wrong as JSONError does.
func Unmarshal(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return jsonMessage(err)
	}
	return CheckDuplicates(data)
}

// within returns e with the place of its object inside the value at
// step, a key or a list index, before its path: the path is made on the
// way out, so that a file without duplicates pays nothing for it.
func (e *DuplicateKeyError) within(step string) *DuplicateKeyError {
	if e.Path == "" || e.Path[0] == '[' {
		e.Path = step + e.Path
	} else {
		e.Path = step + "." + e.Path
	}
	return e
}

// dupValue checks the value that starts at data[i] and returns the index
// just past it.
func dupValue(data []byte, i int) (int, *DuplicateKeyError) {
	switch data[i] {
	case '{':
		return dupObject(data, i)
	case '[':
		i = skipSpace(data, i+1)
		if data[i] == ']' {
			return i + 1, nil
		}
		for n := 0; ; n++ {
			end, err := dupValue(data, i)
			if err != nil {
				return 0, err.within(fmt.Sprintf("[%d]", n))
			}
			i = skipSpace(data, end)
			if data[i] == ']' {
				return i + 1, nil
			}
			i = skipSpace(data, i+1) // past the comma
		}
	}
	return endOfValue(data, i), nil
}

// dupObject checks the object that starts at data[i]. Keys are compared
// as written, and only a key with an escape is decoded first, so that
// "a" and "\u0061" are one key.
func dupObject(data []byte, i int) (int, *DuplicateKeyError) {
	var small [16][]byte
	keys := small[:0]
	var many map[string]bool
	i = skipSpace(data, i+1)
	if data[i] == '}' {
		return i + 1, nil
	}
	for {
		end := endOfValue(data, i)
		key := data[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			// Valid JSON: the key decodes.
			s, _ := unquote(data[i:end])
			key = []byte(s)
		}
		seen := false
		if many != nil {
			seen = many[string(key)]
			many[string(key)] = true
		} else {
			for _, k := range keys {
				if bytes.Equal(k, key) {
					seen = true
					break
				}
			}
			if keys = append(keys, key); len(keys) > len(small) {
				many = make(map[string]bool, 2*len(keys))
				for _, k := range keys {
					many[string(k)] = true
				}
			}
		}
		if seen {
			return 0, &DuplicateKeyError{Key: string(key)}
		}
		i = skipSpace(data, skipSpace(data, end)+1) // past the colon
		if data[i] == '{' || data[i] == '[' {
			var err *DuplicateKeyError
			if end, err = dupValue(data, i); err != nil {
				return 0, err.within(string(key))
			}
		} else {
			end = endOfValue(data, i)
		}
		i = skipSpace(data, end)
		if data[i] == '}' {
			return i + 1, nil
		}
		i = skipSpace(data, i+1) // past the comma
	}
}
