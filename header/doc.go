// Package header holds typed views over the bytes of the headers fabricsim writes into its
// packet captures: Ethernet and 802.1Q, IPv4, UDP and TCP, the InfiniBand transport headers of
// RoCE (GRH, BTH, RETH, AETH, ICRC), and the iWARP layers (MPA, DDP, RDMAP). Each view is a
// byte slice with named field accessors; the constants cite the standard that defines them.
// The views do not allocate: they read and write the slice they are given.
package header
