package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// check returns "" when v is allowed by the setting's limits, else the message saying what is
// allowed. Enumerations are checked as they are decoded (see settingValue).
func (s *setting) check(v reflect.Value) string {
	if s.ok(v) {
		return ""
	}
	return s.problem(v)
}

func (s *setting) ok(v reflect.Value) bool {
	if x, isXoff := v.Interface().(XoffSize); isXoff {
		return x.Dynamic || x.Auto || s.gt == nil || x.Bytes > s.gt.Int()
	}
	if soa, isSOA := v.Interface().(SizeOrAuto); isSOA {
		return soa.Auto || s.gt == nil || soa.Bytes > s.gt.Int()
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		x := v.Int()
		switch {
		case s.zero && x == 0:
			return true
		case s.ints != nil:
			return slices.Contains(s.ints, x)
		}
		return (s.min == nil || x >= s.min.Int()) && (s.max == nil || x <= s.max.Int()) && (s.gt == nil || x > s.gt.Int())
	case reflect.Float64:
		x := v.Float()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
		if s.prob && (x < 0 || x > 1) {
			return false
		}
		return (s.min == nil || x >= s.min.Float()) && (s.max == nil || x <= s.max.Float()) && (s.gt == nil || x > s.gt.Float())
	}
	return true
}

// limits says in a few symbols what the limits allow ("1..255", "> 0", "0 or >= 1us"); "" when
// anything goes.
func (s *setting) limits() string {
	text := func(v *reflect.Value) string { return s.format(*v) }
	var l string
	switch {
	case s.prob:
		l = "[0,1]"
	case s.ints != nil:
		l = strings.ReplaceAll(s.tag.Get("oneof"), ",", ", ")
	case s.enum != nil:
		l = strings.Join(s.enumNames(), " | ")
	case s.min != nil && s.max != nil:
		l = text(s.min) + ".." + text(s.max)
	case s.gt != nil && s.max != nil:
		l = "(" + text(s.gt) + "," + text(s.max) + "]"
	case s.gt != nil:
		l = "> " + text(s.gt)
	case s.min != nil:
		l = ">= " + text(s.min)
	case s.max != nil:
		l = "<= " + text(s.max)
	}
	if s.zero && l != "" {
		l = "0 or " + l
	}
	return l
}

// problem is the message for a value the limits do not allow: it names the field, says what
// is allowed, and gives the value found.
func (s *setting) problem(v reflect.Value) string {
	got := s.format(v)
	means := ""
	if m := s.tag.Get("means"); m != "" {
		means = " (" + m + ")"
	}
	eg := ""
	if e := s.tag.Get("eg"); e != "" {
		eg = fmt.Sprintf(", e.g. %s: %s", s.key, e)
	}
	number := ""
	if s.typ.Kind() == reflect.Float64 {
		number = "a number "
	}
	switch {
	case s.tag.Get("rule") != "":
		return fmt.Sprintf("%s is %s; got %s", s.key, s.tag.Get("rule"), got)
	case s.prob:
		return fmt.Sprintf("%s is a probability: a number in [0,1], got %s", s.key, got)
	case s.typ == reflectSizeOrAuto:
		return fmt.Sprintf("%s must be auto or a size > %s", s.key, s.format(*s.gt))
	case s.typ == reflectXoffSize:
		return fmt.Sprintf("%s must be auto, dynamic or a size > %s", s.key, s.format(*s.gt))
	case s.ints != nil:
		return fmt.Sprintf("%s is one of %s%s, got %s", s.key, s.limits(), means, got)
	case s.zero && s.min != nil:
		return fmt.Sprintf("%s is 0 (off) or at least %s%s, got %s", s.key, s.format(*s.min), means, got)
	case s.gt != nil && s.max == nil:
		return fmt.Sprintf("%s must be %s> %s%s%s", s.key, number, s.format(*s.gt), means, eg)
	case s.min != nil && s.max == nil:
		return fmt.Sprintf("%s must be >= %s%s, got %s", s.key, s.format(*s.min), means, got)
	case s.gt != nil:
		return fmt.Sprintf("%s is %sin %s%s, got %s", s.key, number, s.limits(), means, got)
	}
	return fmt.Sprintf("%s is %s%s, got %s", s.key, s.limits(), means, got)
}

var (
	reflectSizeOrAuto = reflect.TypeFor[SizeOrAuto]()
	reflectXoffSize   = reflect.TypeFor[XoffSize]()
)

// format writes a value of the setting as a file would.
func (s *setting) format(v reflect.Value) string {
	if s.enum != nil {
		return s.enumName(v)
	}
	if v.Kind() == reflect.Int64 && v.Int() == 0 {
		return "0"
	}
	switch x := v.Interface().(type) {
	case int64:
		return formatSize(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []int:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = strconv.Itoa(n)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v.Interface())
}

// formatSize writes a size in the largest decimal unit that holds it exactly ("32MB", "5KB").
func formatSize(b int64) string {
	for _, u := range []unit{{"GB", 1000_000_000}, {"MB", 1000_000}, {"KB", 1000}} {
		if b != 0 && b%u.mult == 0 {
			return strconv.FormatInt(b/u.mult, 10) + u.name
		}
	}
	if b == 0 {
		return "0"
	}
	return strconv.FormatInt(b, 10) + "B"
}
