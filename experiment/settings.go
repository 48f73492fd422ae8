package experiment

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/fabricsim/fabricsim/scenarios"
	"github.com/fabricsim/fabricsim/switchmodel"
	"github.com/fabricsim/fabricsim/transports"
)

// copySettings copies into the model's config dst (a pointer to a struct) every setting of
// the scenario block src (a struct, or a pointer to one) whose declaration names a field of
// the model (the struct tag model:"Name", see the scenarios package), converting between
// types of one kind (int to uint16, int64 to sim.Time). So a plain setting reaches the model
// without code here: its declaration and the model's field are all it takes. Settings that
// need more than a copy (an enumeration, a size computed from the topology) are mapped by
// hand next to the call. It fails when a declaration names a field the model lacks, or one
// of another kind, which the tests catch.
func copySettings(dst, src any) error {
	d := reflect.ValueOf(dst).Elem()
	s := reflect.Indirect(reflect.ValueOf(src))
	for i := range s.NumField() {
		name := s.Type().Field(i).Tag.Get("model")
		if name == "" {
			continue
		}
		f := d.FieldByName(name)
		v := s.Field(i)
		if !f.IsValid() || !v.Type().ConvertibleTo(f.Type()) || v.Kind() != f.Kind() && !sameNumberKind(v.Kind(), f.Kind()) {
			return fmt.Errorf("setting %s.%s names model field %s, which %s has not as a %s", s.Type().Name(), s.Type().Field(i).Name, name, d.Type(), v.Kind())
		}
		f.Set(v.Convert(f.Type()))
	}
	return nil
}

// sameNumberKind reports whether a and b are both whole numbers (signed or not), or both
// floating point.
func sameNumberKind(a, b reflect.Kind) bool {
	whole := func(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Uint64 }
	float := func(k reflect.Kind) bool { return k == reflect.Float32 || k == reflect.Float64 }
	return whole(a) && whole(b) || float(a) && float(b)
}

// settingsReachModels checks that every scenario block copied to a model names only fields
// the model has (see copySettings).
func settingsReachModels() error {
	for _, c := range []struct{ dst, src any }{
		{&switchmodel.Config{}, scenarios.SwitchConfig{}},
		{&transports.RoCEConfig{}, scenarios.RoCEConfig{}},
		{&transports.IRNParams{}, scenarios.IRNConfig{}},
		{&transports.IWARPConfig{}, scenarios.IWARPConfig{}},
		{&transports.UETConfig{}, scenarios.UETConfig{}},
	} {
		if err := copySettings(c.dst, c.src); err != nil {
			return err
		}
	}
	if err := ccsReachModels("transports.rocev2.cc", "roceCCs", roceCCs); err != nil {
		return err
	}
	if err := ccsReachModels("transports.iwarp.cc", "iwarpCCs", iwarpCCs); err != nil {
		return err
	}
	return ccsReachModels("transports.uet.cc", "uetCCs", uetCCs)
}

// ccsReachModels checks a transport's congestion controls (ccs, named name in
// experiment/flows.go): every value its scenario block's cc field allows has an entry (none
// needs none: it is no scheme), and every entry's block copies into its model.
func ccsReachModels[B, M any](path, name string, ccs map[string]func(*B) (M, any)) error {
	cc, _ := reflect.TypeFor[B]().FieldByName("CC")
	for _, v := range strings.Split(cc.Tag.Get("oneof"), ",") {
		if _, ok := ccs[v]; !ok && v != "none" {
			return fmt.Errorf("%s %s has no entry in %s (experiment/flows.go)", path, v, name)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(ccs)) {
		if model, settings := ccs[v](new(B)); settings != nil {
			if err := copySettings(model, settings); err != nil {
				return fmt.Errorf("%s %s: %w", path, v, err)
			}
		}
	}
	return nil
}
