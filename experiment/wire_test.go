package experiment

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabricsim/fabricsim/topology"
)

// wireScenario is a layer-3 leaf-spine (every switch routes; 10.0.1.0/24 under leaf1,
// 10.0.2.0/24 under leaf2) with ECN marking low enough that an incast onto h5 marks CE: h1,
// h2 and h3 send to h5 across the spines, h1 also to h2 inside its rack.
const wireScenario = `
version: 1
name: wire
seed: 1
stop: 5ms
topology:
  preset: leafspine
  params:
    leaves: 2
    spines: 2
    hosts_per_leaf: 4
    host_link: {rate: 100Gbps, delay: 1us}
    fabric_link: {rate: 400Gbps, delay: 1us}
    routing: l3
switch:
  pfc: {enabled: true, priorities: [3]}
  ecn: {enabled: true, kmin: 5KB, kmax: 50KB, pmax: 0.2}
transports:
  rocev2: {cc: dcqcn}
  iwarp: {handshake: true}
traffic:
  - flow: {src: h1, dst: h5, size: 256KB}
  - flow: {src: h2, dst: h5, size: 256KB}
  - flow: {src: h3, dst: h5, size: 256KB}
  - flow: {src: h1, dst: h2, size: 64KB}
variants:
  - {name: RoCEv2, transport: rocev2}
  - {name: iWARP, transport: iwarp}
  - {name: iWARP markers, transport: iwarp, set: {transports.iwarp.markers: true, transports.iwarp.timestamps: true}}
`

// captureRun runs variant i of wireScenario with the links captured and returns the
// directory of the pcap files.
func captureRun(t *testing.T, i int, links ...string) string {
	t.Helper()
	dir := t.TempDir()
	_, err := RunCapture(load(t, wireScenario).Scenario(i), nil, Capture{Links: links, Dir: dir})
	require.NoError(t, err)
	return dir
}

// tshark runs tshark on a capture with IP and TCP checksum validation on and returns its
// standard output. A machine without tshark fails the test: ./test.sh (the README's test command) installs it.
func tshark(t *testing.T, file string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("tshark")
	require.NoError(t, err, "tshark is needed to check the captures (Debian: apt-get install tshark; ./test.sh installs it)")
	all := append([]string{"-n", "-r", file, "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE"}, args...)
	var out, stderr bytes.Buffer
	cmd := exec.Command(bin, all...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	require.NoError(t, cmd.Run(), "tshark %v: %s", all, stderr.String())
	return out.String()
}

// count is the number of frames of a capture that match a display filter.
func count(t *testing.T, file, filter string) int {
	t.Helper()
	out := strings.TrimSpace(tshark(t, file, "-Y", filter, "-T", "fields", "-e", "frame.number"))
	if out == "" {
		return 0
	}
	return len(strings.Split(out, "\n"))
}

// problems are the frames Wireshark finds wrong: malformed, with an expert warning or error,
// a bad IP or TCP checksum, or a TCP retransmission (of which a lossless run has none).
const problems = `_ws.malformed || _ws.expert.severity >= warning || ip.checksum.status == "Bad" ||
	tcp.checksum.status == "Bad" || tcp.analysis.retransmission || tcp.analysis.spurious_retransmission`

func TestTsharkDecodesIWARP(t *testing.T) {
	for _, v := range []struct {
		name    string
		variant int
	}{{"plain", 1}, {"markers and timestamps", 2}} {
		t.Run(v.name, func(t *testing.T) {
			dir := captureRun(t, v.variant, "h1-leaf1")
			file, err := filepath.Glob(filepath.Join(dir, "*.pcap"))
			require.NoError(t, err)
			require.Len(t, file, 1)
			f := file[0]
			require.Equal(t, 2, count(t, f, "iwarp_mpa.req"), "an MPA Request per connection")
			require.Equal(t, 2, count(t, f, "iwarp_mpa.rep"), "an MPA Reply per connection")
			fpdus := count(t, f, "iwarp_mpa.fpdu")
			require.Greater(t, fpdus, 100)
			require.Equal(t, fpdus, count(t, f, "iwarp_rdma.opcode == 0"), "every FPDU is decoded as an RDMA Write")
			require.Equal(t, 2, count(t, f, "iwarp_ddp.last_flag == 1"), "one last DDP segment per message")
			if v.variant == 2 {
				require.Greater(t, count(t, f, "iwarp_mpa.markers"), 100, "markers are decoded")
			}
			// The MPA dissector says whether each CRC32c is good only in its text.
			detail := tshark(t, f, "-V", "-Y", "iwarp_mpa.fpdu")
			require.Equal(t, fpdus, strings.Count(detail, "(Good CRC32)"))
			require.Zero(t, strings.Count(detail, "Bad CRC32"))
			require.Zero(t, count(t, f, problems), "frames Wireshark finds wrong")
			// Pure ACKs: 40 bytes of IP, the Ethernet padding is not TCP data.
			acks := tshark(t, f, "-Y", "tcp.len == 0 && tcp.flags.syn == 0", "-T", "fields", "-e", "ip.len")
			lens := map[string]int{}
			for _, l := range strings.Fields(acks) {
				lens[l]++
			}
			want := "40"
			if v.variant == 2 {
				want = "52" // with the timestamps option
			}
			require.Len(t, lens, 1, "pure ACK IP lengths %v", lens)
			require.Positive(t, lens[want], "pure ACK IP lengths %v", lens)
		})
	}
}

func TestTsharkRoCEv2RoutersRewriteMACs(t *testing.T) {
	links := []string{"h1-leaf1", "leaf1-spine1", "leaf1-spine2", "spine1-leaf2", "spine2-leaf2", "leaf2-h5", "leaf1-h2"}
	dir := captureRun(t, 0, links...)
	nw := build0(t, wireScenario).nw
	node := func(name string) topology.NodeID {
		id, ok := nw.Lookup(name)
		require.True(t, ok, name)
		return id
	}
	// ends is the MAC pair of a link from a to b: a's port and b's port on it.
	ends := func(a, b string) (src, dst string) {
		ia, ib := node(a), node(b)
		li, ok := nw.LinkBetween(ia, ib)
		require.True(t, ok)
		l := nw.Links[li]
		if l.A.Node != ia {
			l.A, l.B = l.B, l.A
		}
		return nw.PortMAC(l.A.Node, l.A.Port).String(), nw.PortMAC(l.B.Node, l.B.Port).String()
	}
	// macs lists the distinct "src dst" pairs of a flow's frames in one capture.
	macs := func(link, from, to string) []string {
		out := tshark(t, filepath.Join(dir, "rocev2-"+link+".pcap"), "-Y",
			"infiniband && ip.src == "+nw.Nodes[node(from)].IP.String()+" && ip.dst == "+nw.Nodes[node(to)].IP.String(),
			"-T", "fields", "-e", "eth.src", "-e", "eth.dst")
		set := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l != "" {
				set[strings.Replace(l, "\t", " ", 1)] = true
			}
		}
		var s []string
		for k := range set {
			s = append(s, k)
		}
		return s
	}
	// h1 to h5 is routed at leaf1, a spine and leaf2: each hop carries its link's MACs.
	hop := func(link, a, b string) {
		src, dst := ends(a, b)
		require.Equal(t, []string{src + " " + dst}, macs(link, "h1", "h5"), "h1 to h5 on %s", link)
	}
	hop("h1-leaf1", "h1", "leaf1")
	hop("leaf2-h5", "leaf2", "h5")
	spine := "spine1"
	if len(macs("leaf1-spine1", "h1", "h5")) == 0 {
		spine = "spine2"
	}
	hop("leaf1-"+spine, "leaf1", spine)
	hop(spine+"-leaf2", spine, "leaf2")
	h1, _ := ends("h1", "leaf1")
	s1, _ := ends("leaf1", spine)
	s2, _ := ends(spine, "leaf2")
	require.Len(t, map[string]bool{h1: true, s1: true, s2: true}, 3, "the source MAC changes at each router")
	// h1 to h2 is bridged by leaf1 (one subnet): the hosts' MACs on both links.
	bridged := topology.HostMAC(node("h1")).String() + " " + topology.HostMAC(node("h2")).String()
	require.Equal(t, []string{bridged}, macs("h1-leaf1", "h1", "h2"))
	require.Equal(t, []string{bridged}, macs("leaf1-h2", "h1", "h2"))
	for _, l := range links {
		f := filepath.Join(dir, "rocev2-"+l+".pcap")
		require.Zero(t, count(t, f, problems), "frames Wireshark finds wrong in %s", l)
		require.Zero(t, count(t, f, "udp.port == 4791 && !infiniband"), "RoCE v2 frames not decoded in %s", l)
	}
}

// pcapFrames splits a pcap file into its frames.
func pcapFrames(t *testing.T, b []byte) [][]byte {
	t.Helper()
	require.GreaterOrEqual(t, len(b), 24)
	var frames [][]byte
	for off := 24; off < len(b); {
		n := int(binary.LittleEndian.Uint32(b[off+8:]))
		frames = append(frames, b[off+16:off+16+n])
		off += 16 + n
	}
	return frames
}

// icrcV2 recomputes a RoCE v2 frame's ICRC the way IBA annex A17 defines it, independently
// of the pcap writer: CRC-32 over eight 0xFF bytes for the absent LRH, the IPv4 header with
// TOS, TTL and checksum set to 0xFF, the UDP header with its checksum set to 0xFF, the BTH
// with byte 4 (FECN, BECN, reserved) set to 0xFF, then everything up to the ICRC.
func icrcV2(ip []byte) uint32 {
	buf := append([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, ip...)
	h := buf[8:]
	h[1] = 0xFF                   // TOS: DSCP and ECN
	h[8] = 0xFF                   // TTL
	h[10], h[11] = 0xFF, 0xFF     // header checksum
	h[20+6], h[20+7] = 0xFF, 0xFF // UDP checksum
	h[28+4] = 0xFF                // BTH FECN, BECN, resv6
	return crc32.ChecksumIEEE(buf)
}

func TestICRCOfCEMarkedFrames(t *testing.T) {
	dir := captureRun(t, 0, "leaf2-h5")
	b, err := os.ReadFile(filepath.Join(dir, "rocev2-leaf2-h5.pcap"))
	require.NoError(t, err)
	roce, ce := 0, 0
	for _, f := range pcapFrames(t, b) {
		if binary.BigEndian.Uint16(f[12:]) != 0x0800 || f[14+9] != 17 || binary.BigEndian.Uint16(f[14+22:]) != 4791 {
			continue
		}
		total := int(binary.BigEndian.Uint16(f[14+2:]))
		ip := f[14 : 14+total]
		got := binary.LittleEndian.Uint32(ip[total-4:])
		require.Equal(t, icrcV2(ip[:total-4]), got, "ICRC of frame with PSN %d", binary.BigEndian.Uint32(ip[28+8:])&0xFFFFFF)
		roce++
		if ip[1]&3 == 3 {
			ce++
		}
	}
	require.Greater(t, roce, 100)
	require.Positive(t, ce, "the incast marks frames CE")
	t.Logf("%d RoCE v2 frames, %d CE-marked, every ICRC valid", roce, ce)
}

func TestCapturesAreDeterministic(t *testing.T) {
	a := captureRun(t, 2, "h1-leaf1")
	b := captureRun(t, 2, "h1-leaf1")
	name := "iwarp-markers-h1-leaf1.pcap"
	ba, err := os.ReadFile(filepath.Join(a, name))
	require.NoError(t, err)
	bb, err := os.ReadFile(filepath.Join(b, name))
	require.NoError(t, err)
	require.True(t, bytes.Equal(ba, bb), "two runs wrote different bytes ("+strconv.Itoa(len(ba))+" and "+strconv.Itoa(len(bb))+")")
}
