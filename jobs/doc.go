// Package jobs is the collectives' runtime: a run's jobs (a collective item's iterations, or
// a chakra item's collectives one after another), each a sequence of phases whose messages
// go as flows of the fabric once the messages bringing their data have arrived and their
// sender may send (its compute has passed), and each job's results entry: per iteration its
// time, bandwidths, step ends and slowest message, against the ideal of its dependency graph
// alone on the empty fabric.
//
// It knows the fabric only through Fabric: the engine its events run on, how to start a
// flow, and what a message's path costs. The graphs themselves are package collective's.
package jobs
