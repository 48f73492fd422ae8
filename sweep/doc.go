// Package sweep runs a scenario over a grid of parameter values: the cartesian product of
// its axes (the file's sweep: block and --grid flags, scenarios.Axis), each point the
// scenario with --set PATH=VALUE per axis, on all cores, and writes one results document per
// point, a tidy sweep.csv, sweep.json, plots and an HTML report.
//
// # Usage
//
//	plan, err := sweep.NewPlan("my.yaml", data, sets, grid) // loads and checks every point
//	err = sweep.Run(plan, sweep.Options{Dir: "out", Workers: 4})
//
// An output directory holds:
//
//	points/NAME.json  a point's results document (NAME: its index and values)
//	sweep.csv         a row per point and variant: parameters, variant, metrics
//	sweep.json        the plan, the same rows, the seeds' summary (Manifest)
//	plots/            each table metric against each parameter, per variant, mean ±95%
//	report.html       the summary and the plots on one page
//
// Runs are resumable: a point whose document is there, complete, of the same version and
// resolved scenario (by its SHA-256) is not run again. Run and Merge write only into a new
// or empty directory or one of the same sweep (sweep.json's plan hash), under the
// directory's lock (results.LockDir); another sweep's is refused unless forced. Shards (Options.Shard of Shards: the
// points whose index is Shard modulo Shards) write their points, sweep.csv and sweep.json;
// Merge combines shard directories into exactly what the whole sweep writes in one place
// (points copied byte for byte; sweep.csv, sweep.json, plots and report computed from
// them, never from the wall clock).
package sweep
