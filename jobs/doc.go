// Package jobs is the collectives' runtime: a run's jobs (a collective item's iterations, or
// a chakra item's collectives one after another), each a sequence of phases whose messages
// are posted as work requests on queue pairs kept for the job (one per channel and pair of
// ranks: persistent flows of the fabric) once the messages bringing their data have arrived
// and their sender may send (its compute has passed), on every partition of the fabric at
// once; and each job's results entry: per iteration its time, bandwidths, step ends, slowest
// messages and the histogram of its messages' times, against the ideal of its dependency
// graph alone on the empty fabric.
//
// It knows the fabric only through Fabric: the engine that runs between windows, the
// partitions, the plans on the fabric's layout, how to post on a queue pair, and what a
// message's path costs. The graphs themselves are package collective's.
package jobs
