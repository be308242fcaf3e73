# shellcheck shell=bash
# Helpers shared by the TCP cases (20-pacing-rate, 30-tso-autosize, 40-bbr).
# Sourced after lib.sh. Every command runs inside the snd/rcv namespaces.

IPERF_PORT=5201
# Background helpers of this case (sampler, capture, listeners). run.sh's
# cleanup kills iperf3 and tcpdump only, so a case that fails half-way must
# not leave an ss loop or a python listener running into the next case.
TCP_BG_PIDS=()
tcp_bg_kill() {
	local p
	for p in "${TCP_BG_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
}
trap tcp_bg_kill EXIT
# The MSS over veth with MTU 1500 and TCP timestamps: 1500 - 20 - 20 - 12.
export MSS=1448

# tcp_topo DELAY: snd/rcv over veth with DELAY of netem on the ACK path.
tcp_topo() {
	topo
	rcv_delay "$1"
}

# iperf_server: a one-shot iperf3 server in rcv, ready when this returns.
iperf_server() {
	rn iperf3 -s -1 -D -B "$RCV_IP" -p "$IPERF_PORT" >/dev/null

	for _ in $(seq 50); do
		rn ss -ltn "sport = :$IPERF_PORT" | grep -q LISTEN && return 0
		sleep 0.1
	done
	fail "iperf3 server did not start listening"
}

# iperf_client OUT.json ARGS...: iperf3 -J from snd to the rcv server.
iperf_client() {
	local out=$1
	shift
	sn iperf3 -c "$RCV_IP" -p "$IPERF_PORT" -J "$@" >"$out" ||
		fail "iperf3 client failed: $(head -c 400 "$out")"
}

# iperf_field FILE EXPR: a field of the client's JSON (EXPR is Python on j).
iperf_field() {
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# ss_sampler OUT: sample `ss -tin` for the iperf3 connections into OUT
# (blocks separated by "@ <uptime>") until ss_sampler_stop. One bash loop
# inside the namespace with builtins only besides ss: spawning processes is
# slow under TCG (a sample every ~0.1-0.5 s), so no extra sleep either.
ss_sampler() {
	# ip netns exec directly, not via sn: $! must be the sampler itself
	# (ip execs it), not a subshell whose death would orphan the loop.
	# shellcheck disable=SC2016 # the script is for the inner bash
	ip netns exec snd bash -c '
		while :; do
			read -r up _ </proc/uptime
			echo "@ $up"
			ss -tin "dport = :$1"
		done' sampler "${2:-$IPERF_PORT}" >"$1" 2>&1 &
	SAMPLER_PID=$!
	TCP_BG_PIDS+=("$SAMPLER_PID")
}

ss_sampler_stop() {
	kill "$SAMPLER_PID" 2>/dev/null || true
	wait "$SAMPLER_PID" 2>/dev/null || true
}

# ss_pacing FILE SS_RATIO CA_RATIO [CAP_BPS] [SKIP_S]: check every sample of
# the bulk connection (the one with the most bytes_acked) against the
# kernel's formula (tcp_update_pacing_rate):
#   pacing = ratio% * mss * max(cwnd, packets_out) / srtt, capped at CAP
# with ratio = SS_RATIO when cwnd < ssthresh/2 (or no ssthresh), else
# CA_RATIO. ss prints rtt as srtt>>3 in µs / 1000 and pacing_rate in bit/s
# (numeric with -n), so the formula is exact up to the race between the
# last ACK and the ss read. Samples in the first SKIP_S seconds (the
# handshake and the first RTTs, before srtt settles) are not judged.
# Prints one line per sample, then key=value totals:
#   samples ss_samples ca_samples ok ratio_ss_median ratio_ca_median
#   ratio_min ratio_max capped (samples at the cap) over_cap cwnd_min
#   cwnd_max rtt_min_us rtt_max_us
ss_pacing() {
	python3 - "$@" <<'EOF'
import re, statistics, sys
path, ss_ratio, ca_ratio = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
cap = float(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else 0
skip = float(sys.argv[5]) if len(sys.argv) > 5 else 0.3
blocks, cur, t = [], None, None
for line in open(path):
    if line.startswith("@ "):
        t = float(line.split()[1])
        cur = (t, [])
        blocks.append(cur)
    elif cur is not None and line[:1].isspace() and "rtt:" in line:
        cur[1].append(line)
if not blocks:
    sys.exit("no samples")
t0 = blocks[0][0]
def num(key, s, default=None):
    m = re.search(r"(?:^|\s)" + key + r"[: ]([0-9.]+)", s)
    return float(m.group(1)) if m else default
rows = []
for t, lines in blocks:
    if t - t0 < skip or not lines:
        continue
    s = max(lines, key=lambda l: num("bytes_acked", l, 0))
    if num("bytes_acked", s, 0) < 200000 or num("pacing_rate", s) is None:
        continue
    cwnd, mss, rate = num("cwnd", s), num("mss", s), num("pacing_rate", s)
    rtt_us = float(re.search(r"\brtt:([0-9.]+)/", s).group(1)) * 1000
    unacked = num("unacked", s, 0)
    ssthresh = num("ssthresh", s)
    ss_phase = ssthresh is None or cwnd < ssthresh // 2
    want_ratio = ss_ratio if ss_phase else ca_ratio
    base = mss * max(cwnd, unacked) * 8e6 / rtt_us  # bit/s at ratio 100%
    want = base * want_ratio / 100
    capped = bool(cap) and want > cap
    if capped:
        want = cap
    meas = rate / base * 100
    ok = abs(rate - want) <= 0.10 * want
    rows.append(dict(t=t - t0, ss=ss_phase, ratio=meas, ok=ok, capped=capped,
                     over=bool(cap) and rate > cap, cwnd=cwnd, rtt=rtt_us))
    print("sample t=%.2f phase=%s cwnd=%d unacked=%d ssthresh=%s mss=%d rtt_us=%d "
          "pacing_bps=%d want_bps=%d ratio=%.1f ok=%d" % (
          t - t0, "ss" if ss_phase else "ca", cwnd, unacked, ssthresh, mss, rtt_us,
          rate, want, meas, ok))
def med(v):
    return "%.1f" % statistics.median(v) if v else "nan"
ssr = [r["ratio"] for r in rows if r["ss"]]
car = [r["ratio"] for r in rows if not r["ss"]]
print("samples=%d" % len(rows))
print("ss_samples=%d" % len(ssr))
print("ca_samples=%d" % len(car))
print("ok=%d" % sum(r["ok"] for r in rows))
print("ratio_ss_median=%s" % med(ssr))
print("ratio_ca_median=%s" % med(car))
print("ratio_min=%.1f" % min([r["ratio"] for r in rows] or [0]))
print("ratio_max=%.1f" % max([r["ratio"] for r in rows] or [0]))
print("capped=%d" % sum(r["capped"] for r in rows))
print("over_cap=%d" % sum(r["over"] for r in rows))
print("cwnd_min=%d" % min([r["cwnd"] for r in rows] or [0]))
print("cwnd_max=%d" % max([r["cwnd"] for r in rows] or [0]))
print("rtt_min_us=%d" % min([r["rtt"] for r in rows] or [0]))
print("rtt_max_us=%d" % max([r["rtt"] for r in rows] or [0]))
EOF
}

# stamp MSG: MSG with the guest's uptime, to see where a case spends time.
stamp() {
	local up
	read -r up _ </proc/uptime
	say "[$up] $*"
}


# capture_start FILE: tcpdump of snd's data packets on veth0 (sender side,
# so the GSO sizes before segmentation), ready when this returns.
# Headers only: -s 128; pcapstat takes sizes from the original length.
capture_start() {

	# Not via sn (a function): $! must be tcpdump itself, see ss_sampler.
	ip netns exec snd tcpdump -i veth0 -n -s 128 -B 8192 -U -w "$1" \
		"tcp and src host $SND_IP and dst port $IPERF_PORT" 2>"$1.err" &
	CAPTURE_PID=$!
	TCP_BG_PIDS+=("$CAPTURE_PID")
	for _ in $(seq 100); do
		grep -q 'listening on' "$1.err" && return 0
		sleep 0.1
	done
	fail "tcpdump did not start: $(cat "$1.err")"
}

# capture_stop: end the capture started by capture_start, flushing it.
# SIGTERM: a background job of a non-interactive shell ignores SIGINT.
capture_stop() {
	kill -TERM "$CAPTURE_PID" 2>/dev/null || true
	wait "$CAPTURE_PID" 2>/dev/null || true
}

# bulk_stats PCAP OUT: pcapstat of the connection that carried the most
# bytes (the iperf3 data stream, not its control connection) into OUT.
bulk_stats() {
	local sport
	pcapstat "$1" >"$2.all" || fail "pcapstat failed on $1"
	sport=$(sed -n 's/^flow=[^ ]*:\([0-9]*\)>[^ ]* .*/\1/p' "$2.all" | head -n 1)
	[ -n "$sport" ] || fail "no TCP flow in $1"
	pcapstat -c "$2.csv" "$1" "src port $sport" >"$2" || fail "pcapstat failed on $1"
}

# route_metrics METRICS...: a host route to rcv carrying route metrics
# (e.g. "cwnd lock 40"), then one short connection so that snd's tcp_metrics
# cache holds an entry for rcv: tcp_init_metrics() only applies the locked
# cwnd and ssthresh from an existing entry (it does not create one), and
# the entry is created from the route when a connection closes.
route_metrics() {
	sn ip route replace "$RCV_IP/32" dev veth0 "$@"
	ip netns exec rcv python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5300)); s.listen(1)
print("ready", flush=True)
c, _ = s.accept()
while c.recv(4096):
    pass
c.close()' "$RCV_IP" >"$R/data/warmup.out" &
	local pid=$!
	TCP_BG_PIDS+=("$pid")
	for _ in $(seq 50); do
		grep -q ready "$R/data/warmup.out" 2>/dev/null && break
		sleep 0.1
	done
	sn python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], 5300))
s.sendall(b"x" * 1000)
s.shutdown(socket.SHUT_WR)
s.recv(1)
s.close()' "$RCV_IP" || fail "warm-up connection failed"
	wait "$pid" || true
	for _ in $(seq 30); do
		sn ip tcp_metrics show "$RCV_IP" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	fail "no tcp_metrics entry for $RCV_IP after the warm-up connection"
}

# py_transfer CC BYTES: send exactly BYTES from snd to rcv (port 5301) over
# one TCP connection with congestion control CC, and have the receiver count
# what it read until EOF and report it back. Prints "sent=N received=M
# cc=CC pacing_bps=P", P the largest tcpi_pacing_rate (in bit/s) the sender
# saw in TCP_INFO while sending. (iperf3's own byte counts cannot be compared: its server stops
# counting at TEST_END, while the tail of the data is still in flight.)
py_transfer() {
	ip netns exec rcv python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5301)); s.listen(1)
print("ready", flush=True)
c, _ = s.accept()
n = 0
while True:
    b = c.recv(1 << 20)
    if not b:
        break
    n += len(b)
c.sendall(str(n).encode())
c.close()' "$RCV_IP" >"$R/data/py-rcv.out" &
	local pid=$!
	TCP_BG_PIDS+=("$pid")
	for _ in $(seq 50); do
		grep -q ready "$R/data/py-rcv.out" 2>/dev/null && break
		sleep 0.1
	done
	sn python3 -c '
import socket, sys
ip, cc, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
s.connect((ip, 5301))
buf = b"\x5a" * (1 << 16)
sent = pacing = 0
while sent < total:
    sent += s.send(buf[:min(len(buf), total - sent)])
    # struct tcp_info: tcpi_pacing_rate is the u64 at offset 104 (B/s).
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    rate = int.from_bytes(info[104:112], "little")
    if rate != (1 << 64) - 1:
        pacing = max(pacing, rate * 8)
s.shutdown(socket.SHUT_WR)
got = b""
while True:
    b = s.recv(64)
    if not b:
        break
    got += b
used = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).split(b"\0")[0].decode()
print("sent=%d received=%s cc=%s pacing_bps=%d" % (sent, got.decode() or "none", used, pacing))' "$RCV_IP" "$1" "$2"
	wait "$pid" || true
}
