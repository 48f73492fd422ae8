package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/fabricsim/fabricsim/internal/infile"
)

// WriteJSON writes d as the results document of docs/results.md: indented by two spaces, keys
// in the spec's order, empty lists as [] and unfinished flows' times as null, followed by a
// newline. Floats are written at full precision, so the same document gives the same bytes.
// A NaN or infinite number anywhere in d is an error naming the field, and nothing is written.
func WriteJSON(w io.Writer, d *Document) error {
	if d == nil {
		return fmt.Errorf("results: no document to write")
	}
	if err := checkFinite(reflect.ValueOf(*d), ""); err != nil {
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("results: encoding the document: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ReadJSON decodes a results document written by WriteJSON. Unknown fields are allowed, as
// later versions may add fields.
func ReadJSON(r io.Reader) (*Document, error) {
	var d Document
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, fmt.Errorf("results: decoding the document: %w", err)
	}
	return &d, nil
}

// MaxDocumentBytes bounds a results document read back (compare's inputs, a sweep's points):
// the largest a run within the scenarios package's limits writes is about 0.6 GB a variant
// (MaxFlows, 10^6, per_flow records of some 600 bytes as written, indented, besides its
// series), so 2 GiB holds a few such variants, while reading one (the decoder holds the
// text and the document decoded, about three times the file) still fits a workstation.
// Larger is no document of ours (a sparse file, say) and is refused before it is read.
const MaxDocumentBytes = 2 << 30

// ReadJSONFile reads the results document in the file at path: a regular file of at most
// MaxDocumentBytes (internal/infile), refused at once otherwise (a fifo, a device, /dev/zero
// through a link) with an error naming path.
func ReadJSONFile(path string) (*Document, error) {
	f, err := infile.Open(path, MaxDocumentBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadJSON(f)
}

// checkFinite walks v and reports the first NaN or infinite float, by its JSON path (e.g.
// "variants[1].per_flow[3].slowdown"). JSON cannot hold such numbers.
func checkFinite(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("results: %s is %v; the results document holds only finite numbers", path, f)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return checkFinite(v.Elem(), path)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if path != "" {
				name = path + "." + name
			}
			if err := checkFinite(v.Field(i), name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkFinite(v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if err := checkFinite(iter.Value(), fmt.Sprintf("%s[%v]", path, iter.Key())); err != nil {
				return err
			}
		}
	}
	return nil
}
